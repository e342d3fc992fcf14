"""Benchmark: score all 17 MUC-4 TST3 systems, end to end.

Prints the median wall and CPU time of three paths measured in the same run:

* muceval: read configuration, key, history and the 17 response files once,
  and score them with one Scorer, the cyclic garbage collector paused as
  ``muceval score`` pauses it (``core.heap.building``);
* the same with the collector running (what it costs to let it walk every
  template and tally again and again);
* baseline: the simplest correct path, each system on its own, as 17 separate
  runs would be: everything re-read and every cache emptied for each system.

The 1992 program needed 10-17 s per system (not measured here). Target: all
17 systems in under 3 s on the 2-core machine.

Usage: python3 benchmarks/score.py [--repeat N] [--shared DIR]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from common import median_times, shared_folder
from muceval.core.heap import building
from muceval.core.tallies import summarize
from muceval.formats.config import load_configuration
from muceval.formats.muc import templates as parsing
from muceval.formats.muc.history import read_history
from muceval.formats.muc.templates import read_templates
from muceval.scoring.muc1992.scorer import Scorer, ScoringOptions

SYSTEMS = (
    "BBN GE GE-CMU HUGHES LSI MDC MITRE NMSU NYU PARAMAX PRC SRA SRI SYNCH UMASS UMICH USC".split()
)


def clear_caches() -> None:
    for name in dir(parsing):
        cached = getattr(parsing, name)
        if hasattr(cached, "cache_clear"):
            cached.cache_clear()


def score_all_shared(root: Path) -> list[float]:
    tst3 = root / "tst3"
    config = load_configuration(tst3 / "config-tst3.el")
    key = read_templates(root / "corpora/tst3/key-tst3.v2", config)
    scorer = Scorer(config, read_history(tst3 / "final-history-nrad.tst3"), ScoringOptions())
    f = []
    for system in SYSTEMS:
        pairs = scorer.score(key, read_templates(tst3 / "responses" / f"{system}.tst3", config)).pairs
        f.append(summarize(pairs, config).all_templates.total.cor)
    return f


def score_all_baseline(root: Path) -> list[float]:
    tst3 = root / "tst3"
    f = []
    for system in SYSTEMS:
        clear_caches()
        config = load_configuration(tst3 / "config-tst3.el")
        key = read_templates(root / "corpora/tst3/key-tst3.v2", config)
        history = read_history(tst3 / "final-history-nrad.tst3")
        response = read_templates(tst3 / "responses" / f"{system}.tst3", config)
        pairs = Scorer(config, history, ScoringOptions()).score(key, response).pairs
        f.append(summarize(pairs, config).all_templates.total.cor)
    return f


def timed(fn, root: Path, repeat: int, paused: bool = False) -> tuple[float, float, list[float]]:
    """Median wall and CPU seconds of ``fn`` (caches emptied first), with the cyclic collector
    paused as muceval's sessions pause it (``core.heap.building``) or running."""
    def run() -> list[float]:
        clear_caches()
        with building(paused):
            return fn(root)

    return median_times(run, repeat)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--shared", help="folder holding muc4/ (default: ../shared)")
    args = parser.parse_args()
    root = shared_folder(args.shared, "muc4")
    timed(score_all_shared, root, 1)  # unmeasured: first-use costs fall on no path
    fast, fast_cpu, fast_result = timed(score_all_shared, root, args.repeat, paused=True)
    running, running_cpu, running_result = timed(score_all_shared, root, args.repeat)
    slow, slow_cpu, slow_result = timed(score_all_baseline, root, args.repeat)
    if not fast_result == running_result == slow_result:
        sys.exit("the paths disagree: benchmark invalid")
    print(f"17 TST3 systems, parse + score, median of {args.repeat} runs, wall / CPU seconds")
    print(f"  muceval (one Scorer, files read once, collector paused): {fast:6.2f} / "
          f"{fast_cpu:.2f}   target < 3 s: {'met' if fast < 3 else 'NOT met'}")
    print(f"  the same with the collector running                   : {running:6.2f} / "
          f"{running_cpu:.2f}   ({running / fast:.2f}x)")
    print(f"  baseline (each system on its own, collector paused)   : {slow:6.2f} / "
          f"{slow_cpu:.2f}   ({slow / fast:.2f}x)")
    print(f"  per system                                             : "
          f"{1000 * fast / len(SYSTEMS):6.0f} ms (the 1992 program: 10-17 s)")


if __name__ == "__main__":
    main()
