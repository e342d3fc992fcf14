"""Start-up: what a short command costs before and around its work (issue 30's targets).

Each command runs ``--repeat`` times in a fresh process after one run that leaves Python's
bytecode cache written (as an installed muceval has it); the figures are medians:

1. ``muceval score`` of one system of the bundled example: its imports (the sum of
   ``python -X importtime``'s top-level entries, target < 0.3 s) and its wall time;
2. ``muceval significance --format json`` on two small systems, wall time (target < 0.5 s);
3. the same-run baselines: ``python -c pass`` and ``python -c "import numpy"``.

    python3 benchmarks/startup.py            # medians of 7
    python3 benchmarks/startup.py --repeat 3

Prints figures only; medians, since the machines are shared and noisy.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import installed_environment, synthetic_tallies
from engine import write_csv

EXAMPLE = Path(__file__).resolve().parents[1] / "src" / "muceval" / "data" / "example"


def wall(command: list[str], repeat: int) -> float:
    """The median wall time of ``command`` in a fresh process (after one unmeasured run)."""
    env = installed_environment()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=env)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, env=env)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def import_seconds(command: list[str], repeat: int) -> float:
    """The median over ``repeat`` runs of the imports ``python -X importtime`` reports for
    ``command`` (a ``python -m ...`` command line): the sum of its top-level entries."""
    env = installed_environment()
    totals = []
    for _ in range(repeat):
        done = subprocess.run([command[0], "-X", "importtime", *command[1:]], check=True,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              env=env)
        total = 0
        for line in done.stderr.splitlines():
            found = re.match(r"import time:\s+\d+ \|\s+(\d+) \| (\S.*)$", line)
            if found and not found.group(2).startswith(" "):
                total += int(found.group(1))
        totals.append(total / 1e6)
    return statistics.median(totals)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    python = sys.executable
    bare = wall([python, "-c", "pass"], args.repeat)
    numpy = wall([python, "-c", "import numpy"], args.repeat)
    print(f"baselines: python -c pass {bare:.3f} s, import numpy {numpy:.3f} s")
    score = [python, "-m", "muceval", "score", "--key", str(EXAMPLE / "key.txt"),
             "--config", str(EXAMPLE / "config.toml"), str(EXAMPLE / "alpha.txt")]
    imports = import_seconds(score, args.repeat)
    print(f"score, one system of the example: imports {imports:.3f} s (target < 0.3), "
          f"wall {wall(score, args.repeat):.3f} s")
    with tempfile.TemporaryDirectory() as folder:
        two = Path(folder) / "two.csv"
        write_csv(two, synthetic_tallies(2, 20))
        significance = [python, "-m", "muceval", "significance", str(two), "--format", "json",
                        "--seed", "1"]
        seconds = wall(significance, args.repeat)
        imports = import_seconds(significance, args.repeat)
    print(f"significance --format json, two small systems: wall {seconds:.3f} s "
          f"(target < 0.5), of which imports {imports:.3f} s")


if __name__ == "__main__":
    main()
