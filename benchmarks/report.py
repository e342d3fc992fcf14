"""Benchmark: ``muceval report`` on the 17 MUC-4 TST3 systems (issues 29 and 30).

Two commands, each run ``--repeat`` times in a fresh subprocess (imports included):

* scores: ``muceval report official-scores/*.nrad --seed 1``;
* responses: ``muceval report --key key-tst3.v2 --config config-tst3.el --history
  final-history-nrad.tst3 responses/*.tst3 --seed 1``.

Prints the median wall time and the median CPU time of the subprocess (a shared machine makes
the wall time noisy; the CPU time less so), the size of the whole folder and of report.html,
each beside its target (issue 30: under 5 s and under 3 MB), and what the folder holds:
figures/, the SVG inside report.html, the rest of the page, the data files. Then, unless
``--no-breakdown``, one more run of each command inside this process with timers around its
parts: reading or scoring, significance, building the figures, their SVG, the HTML page,
writing the files, and the garbage collector's time in each and in all (``gc.callbacks``;
the second command's imports are already done, so its "other" is smaller).

The baseline is an earlier version of the package, run the same way in the same run (its
runs alternate with the current one's, so that both see the same load): ``--baseline SRC``
names the ``src`` folder of another version, e.g. the commit before issue 30's figures,
unpacked with ``mkdir /tmp/before && git archive <commit> src | tar -x -C /tmp/before`` (SRC
is then /tmp/before/src).

Usage: python3 benchmarks/report.py [--shared ../shared] [--repeat N] [--baseline SRC]
       [--no-breakdown]
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

from common import child_cpu, installed_environment, shared_folder

TARGET_SECONDS = 5.0
TARGET_MB = 3.0


def commands(muc4: Path) -> dict[str, list[str]]:
    """The two reports' arguments after ``muceval`` (without ``--out``)."""
    tst3 = muc4 / "tst3"
    return {
        "scores": ["report", *map(str, sorted((tst3 / "official-scores").glob("*.nrad"))),
                   "--seed", "1", "--force"],
        "responses": ["report", "--key", str(muc4 / "corpora/tst3/key-tst3.v2"),
                      "--config", str(tst3 / "config-tst3.el"),
                      "--history", str(tst3 / "final-history-nrad.tst3"),
                      *map(str, sorted((tst3 / "responses").glob("*.tst3"))),
                      "--seed", "1", "--force"],
    }


def folder_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def composition(folder: Path) -> str:
    """What a report folder's bytes are: figures, the page's SVG and the rest, the data."""
    page = (folder / "report.html").read_text(encoding="utf-8")
    inline = sum(len(m.group().encode()) for m in re.finditer(r"<svg.*?</svg>", page, re.S))
    figures = folder_size(folder / "figures")
    data = folder_size(folder) - figures - len(page.encode())
    return (f"figures/ {figures / 1e6:.2f} MB, report.html: SVG {inline / 1e6:.2f} MB + rest "
            f"{(len(page.encode()) - inline) / 1e6:.2f} MB, data files {data / 1e6:.2f} MB")


def timed_runs(arguments: list[str], outs: dict[str, Path], sources: dict[str, str | None],
               repeat: int) -> dict[str, tuple[float, float]]:
    """Median wall and CPU seconds of ``repeat`` subprocess runs of each version (``sources``:
    label to the ``src`` folder to import muceval from, None for the installed one), the
    versions alternating."""
    walls: dict[str, list[float]] = defaultdict(list)
    cpus: dict[str, list[float]] = defaultdict(list)
    for _ in range(repeat):
        for label, source in sources.items():
            env = installed_environment()
            if source is not None:
                env["PYTHONPATH"] = source
            cpu, start = child_cpu(), time.perf_counter()
            subprocess.run([sys.executable, "-m", "muceval", *arguments, "--out",
                            str(outs[label])], check=True, capture_output=True, env=env)
            walls[label].append(time.perf_counter() - start)
            cpus[label].append(child_cpu() - cpu)
    return {label: (statistics.median(walls[label]), statistics.median(cpus[label]))
            for label in sources}


class Timers:
    """Seconds spent in wrapped functions (outermost call only), and in the collector during
    each of them and in all."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.collecting: dict[str, float] = defaultdict(float)
        self.collected = 0.0
        self._depth: dict[str, int] = defaultdict(int)
        self._gc_start = 0.0

    def wrap(self, owner: Any, name: str, label: str) -> Callable[[], None]:
        original = getattr(owner, name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            self._depth[label] += 1
            start, collected = time.perf_counter(), self.collected
            try:
                return original(*args, **kwargs)
            finally:
                self._depth[label] -= 1
                if not self._depth[label]:
                    self.seconds[label] += time.perf_counter() - start
                    self.collecting[label] += self.collected - collected

        setattr(owner, name, timed)
        return lambda: setattr(owner, name, original)

    def collector(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_start = time.perf_counter()
        else:
            self.collected += time.perf_counter() - self._gc_start


@contextmanager
def instrumented() -> Iterator[Timers]:
    """Timers around the parts of ``muceval report``, patched where the command looks them up."""
    import muceval.formats.registry as registry
    import muceval.reporting.analysis as analysis
    import muceval.reporting.html as html
    import muceval.scoring.session as session

    timers = Timers()
    undo = [timers.wrap(registry, "load_systems", "reading the scores"),
            timers.wrap(session, "score_files", "scoring the responses"),
            timers.wrap(analysis, "analyze", "significance (analyze)"),
            timers.wrap(html, "randomization_distributions", "randomization histograms"),
            timers.wrap(html, "build_figures", "figures: build"),
            timers.wrap(html, "to_svg", "figures: SVG"),
            timers.wrap(html, "render_html", "HTML page"),
            timers.wrap(html, "write_files", "writing the files")]
    gc.callbacks.append(timers.collector)
    try:
        yield timers
    finally:
        gc.callbacks.remove(timers.collector)
        for restore in undo:
            restore()


def breakdown(arguments: list[str], out: Path) -> None:
    from muceval.cli import main

    start = time.perf_counter()
    with instrumented() as timers, open(os.devnull, "w") as quiet, \
            redirect_stdout(quiet), redirect_stderr(quiet):
        main([*arguments, "--out", str(out)])
    total = time.perf_counter() - start
    print(f"    {'part':30s} {'seconds':>8s} {'share':>6s} {'of which gc':>12s}")
    parts, collecting = sum(timers.seconds.values()), sum(timers.collecting.values())
    for label, seconds, gc_seconds in [
            *((k, v, timers.collecting[k]) for k, v in timers.seconds.items()),
            ("other (imports, ...)", total - parts, timers.collected - collecting),
            ("whole command", total, timers.collected)]:
        print(f"    {label:30s} {seconds:8.2f} {100 * seconds / total:5.0f}% {gc_seconds:11.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", help="folder holding muc4/ (default: ../shared)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline", metavar="SRC",
                        help="src folder of an earlier version to measure beside this one")
    parser.add_argument("--no-breakdown", dest="breakdown", action="store_false")
    args = parser.parse_args()
    runs = commands(shared_folder(args.shared, "muc4"))
    sources: dict[str, str | None] = {"current": None}
    if args.baseline:
        sources = {"baseline": str(Path(args.baseline).resolve()), **sources}
    with tempfile.TemporaryDirectory() as folder:
        for command, arguments in runs.items():
            outs = {label: Path(folder) / f"{command}-{label}" for label in sources}
            print(f"{command} (median of {args.repeat}):")
            measured = timed_runs(arguments, outs, sources, args.repeat)
            for label, (wall, cpu) in measured.items():
                total, page = folder_size(outs[label]), (outs[label] / "report.html").stat().st_size
                print(f"  {label:9s} wall {wall:6.2f} s  CPU {cpu:6.2f} s  (target < "
                      f"{TARGET_SECONDS:g} s)   folder {total / 1e6:5.2f} MB  report.html "
                      f"{page / 1e6:5.2f} MB  (target < {TARGET_MB:g} MB)")
                print(f"  {'':9s} {composition(outs[label])}")
            if args.breakdown:
                print("  breakdown of one run of the current version in this process:")
                breakdown(arguments, Path(folder) / f"{command}-breakdown")


if __name__ == "__main__":
    main()
