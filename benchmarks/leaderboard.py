"""Leaderboards: every pair of 300, 1,000 (and 3,000) synthetic systems, end to end.

For each size: SYSTEMS synthetic systems × 100 units written as a unit-tallies CSV, then in a
fresh process each (a) ``muceval significance FILE --plan --format json`` (its estimate of the
randomization, and how long planning took), (b) ``muceval significance FILE --pairs
PAIRS.csv --format json`` (9,999 shuffles, 5 metrics, bootstrap and classic tests: every
pair's row streamed to the file, the summary to stdout). Prints the wall time and peak
resident memory of (b), its time per pair-shuffle, the estimate beside it, and the issue's
targets (1,000 systems: < 5 min and < 4 GB; plan within 2× of the randomization; planning
< 1 s).

    python3 benchmarks/leaderboard.py                      # 300 and 1,000 systems
    python3 benchmarks/leaderboard.py --systems 300,1000,3000 --shuffles 9999
    python3 benchmarks/leaderboard.py --baseline /tmp/before/src   # an earlier version after each

Prints figures only: one run per size (a run at 1,000 systems takes minutes).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from common import measured, synthetic_tallies
from engine import write_csv


def one_size(systems: int, units: int, shuffles: int, folder: Path,
             baseline: str | None = None) -> None:
    path = folder / f"systems-{systems}.csv"
    write_csv(path, synthetic_tallies(systems, units))
    common = [str(path), "--shuffles", str(shuffles), "--seed", "1", "--format", "json"]
    plan_seconds, plan_mb = measured(["significance", *common, "--plan"], folder / "plan.json")
    plan = json.loads((folder / "plan.json").read_text())
    seconds, peak = measured(["significance", *common, "--pairs", str(folder / "pairs.csv"),
                              "--force"], folder / "summary.json")
    pairs = systems * (systems - 1) // 2
    ns = seconds / (pairs * shuffles) * 1e9
    rows = sum(1 for _ in (folder / "pairs.csv").open()) - 1
    assert rows == pairs * 5, f"{rows} rows for {pairs} pairs × 5 metrics"
    print(f"{systems:>5} systems, {pairs:>9,} pairs × {shuffles:,} shuffles × 5 metrics: "
          f"{seconds:7.1f} s ({ns:.1f} ns per pair-shuffle end to end), peak {peak:,.0f} MB; "
          f"estimate of the randomization {plan['seconds']:.1f} s; planning {plan_seconds:.2f} s "
          f"(peak {plan_mb:,.0f} MB)")
    if baseline:
        # The same run of an earlier version, right after: the same file and load.
        before, before_peak = measured(["significance", *common, "--pairs",
                                        str(folder / "before.csv"), "--force"],
                                       folder / "before.json", baseline)
        same = (folder / "before.csv").read_bytes() == (folder / "pairs.csv").read_bytes()
        print(f"      baseline {baseline}: {before:7.1f} s, peak {before_peak:,.0f} MB "
              f"({before / seconds:.2f}× the current time); pairs file "
              f"{'identical' if same else 'DIFFERENT'}")
    if systems == 1000:
        print(f"      target (issue 30): < 300 s and < 4,096 MB: "
              f"{'met' if seconds < 300 and peak < 4096 else 'NOT met'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", default="300,1000")
    parser.add_argument("--units", type=int, default=100)
    parser.add_argument("--shuffles", type=int, default=9999)
    parser.add_argument("--baseline", metavar="SRC",
                        help="src folder of an earlier version, run after this one at each "
                             "size (e.g. git archive <commit> src | tar -x -C /tmp/before)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "muceval", "significance", "--help"], check=True,
                       capture_output=True)
        for systems in (int(n) for n in args.systems.split(",")):
            one_size(systems, args.units, args.shuffles, Path(tmp),
                     str(Path(args.baseline).resolve()) if args.baseline else None)


if __name__ == "__main__":
    main()
