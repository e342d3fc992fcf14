"""``significance --plan``'s estimate beside the measured time of the same randomization.

For each case, the estimate of :func:`muceval.significance.estimate.estimate` (what ``--plan``
prints), then the median wall time of running that plan with the in-process executor (what
``muceval significance`` spends in the randomization: the kernels, not reading, bootstrap or
classic tests; the pairs' data are built beforehand, as :func:`~muceval.significance.engine.
compare` builds them), and their ratio; then what planning itself took: the wall time of
``prepare`` and ``estimate`` (what ``--plan`` runs) and the peak of the memory they allocate
(tracemalloc, in a second planning, since tracing slows it). Targets (issue 30): the ratio
within [0.5, 2], planning under a second. numba's start-up (importing it and loading the
cached kernels, about a second and a half, once per process, whichever kernel comes first)
is timed first and apart: it is no part of any case's planning time below, nor of the
measured runs.

Cases: the 17 official TST3 systems (message units), approximate with the five metrics and
exact F0.5 (needs ../shared); 300 synthetic systems × 100 units, approximate; 300 synthetic
systems × 12 units, exact F1; 1,000 synthetic systems × 100 units, approximate with
``--large-shuffles`` shuffles (999 by default, so that a measured run stays near 20 s:
the estimate must follow the shuffles too).

    python3 benchmarks/plan_estimates.py                 # medians of 3
    python3 benchmarks/plan_estimates.py --repeat 1 --shuffles 999 --large-shuffles 99

Prints figures only; medians, since the machines are shared and noisy.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np

from common import median_time, shared_folder, synthetic_tallies
from muceval.formats.registry import load_inputs
from muceval.significance.engine import prepare
from muceval.significance.estimate import PlanEstimate, estimate
from muceval.significance.execute import LocalExecutor
from muceval.significance.kernels import (
    METRICS,
    PairData,
    approximate_counts,
    default_threads,
    exact_pvalue,
)
from muceval.significance.settings import SignificanceSettings

RATIO_TARGET = (0.5, 2.0)
PLANNING_TARGET = 1.0


def planning(tallies, metrics, settings: SignificanceSettings,
             threads: int) -> tuple[PlanEstimate, float, float]:
    """What ``--plan`` runs: the estimate, its wall time, and its peak allocation in MB."""
    started = time.perf_counter()
    prepared = prepare(tallies, metrics, settings)
    found = estimate(prepared.plan, prepared.pairs, prepared.metrics, prepared.settings, 1,
                     threads)
    seconds = time.perf_counter() - started
    tracemalloc.start()
    prepared = prepare(tallies, metrics, settings)
    estimate(prepared.plan, prepared.pairs, prepared.metrics, prepared.settings, 1, threads)
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return found, seconds, peak


def case(label: str, tallies, metrics, settings: SignificanceSettings, threads: int,
         repeat: int) -> tuple[float, float]:
    found, planned, peak = planning(tallies, metrics, settings, threads)
    prepared = prepare(tallies, metrics, settings)
    pairs = list(prepared.pairs)
    executor = LocalExecutor(threads)

    def run() -> None:
        executor.run(prepared.plan, pairs, prepared.metrics, prepared.settings)

    measured, _ = median_time(run, repeat)
    ratio = found.seconds / measured
    low, high = RATIO_TARGET
    print(f"{label}: {found.approximate_pairs:,} approximate pairs × "
          f"{prepared.settings.shuffles:,} shuffles, {found.exact_jobs:,} exact jobs "
          f"({found.exact_cells:,.0f} cells), {threads} threads")
    print(f"  estimate {found.seconds:.2f} s (approximate {found.approximate_seconds:.2f} s at "
          f"{found.ns_per_pair_shuffle:.1f} ns per pair-shuffle, exact {found.exact_seconds:.2f} s "
          f"at {found.ns_per_cell:.2f} ns per cell and {found.us_per_job:.0f} µs per job on one "
          f"thread, {found.exact_speedup:.1f}× on {threads})")
    print(f"  measured {measured:.2f} s (median of {repeat}); estimate / measured = "
          f"{ratio:.2f} (target [{low}, {high}]: {'ok' if low <= ratio <= high else 'MISSED'})")
    print(f"  planning {planned:.2f} s (target < {PLANNING_TARGET:.0f} s: "
          f"{'ok' if planned < PLANNING_TARGET else 'MISSED'}), peak {peak:.1f} MB allocated")
    return ratio, planned


def numba_startup(threads: int) -> float:
    """Seconds to import numba and load the kernels every case takes (once per process)."""
    x = np.array([[2, 2, 4], [1, 2, 0], [3, 3, 3]])
    pair = PairData.of(x, np.zeros_like(x))
    started = time.perf_counter()
    approximate_counts([pair], ("f1",), 64, 1, threads=threads, compiled=True)
    exact_pvalue(pair, "f1")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", help="folder holding muc4/ (default: ../shared)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--shuffles", type=int, default=9_999)
    parser.add_argument("--large-shuffles", type=int, default=999,
                        help="shuffles of the 1,000-systems case (default 999)")
    parser.add_argument("--threads", type=int, default=default_threads())
    args = parser.parse_args()
    approximate = SignificanceSettings(seed=1, shuffles=args.shuffles)
    exact = SignificanceSettings(seed=1, method="exact", shuffles=0)
    reports = sorted((shared_folder(args.shared, "muc4") / "tst3" / "official-scores")
                     .glob("*.nrad"))
    tst3 = load_inputs([str(p) for p in reports])
    print(f"numba start-up: {numba_startup(args.threads):.2f} s (once per process, before "
          f"any case; in no planning time below)")
    cases = [
        ("TST3, approximate, 5 metrics", tst3, METRICS, approximate),
        ("TST3, exact F0.5", tst3, ["f0.5"], exact),
        ("300 synthetic systems × 100 units, approximate, 5 metrics",
         synthetic_tallies(300, 100), METRICS, approximate),
        ("300 synthetic systems × 12 units, exact F1", synthetic_tallies(300, 12), ["f1"],
         exact),
        ("1,000 synthetic systems × 100 units, approximate, 5 metrics",
         synthetic_tallies(1000, 100), METRICS,
         SignificanceSettings(seed=1, shuffles=args.large_shuffles)),
    ]
    found = [case(label, tallies, metrics, settings, args.threads, args.repeat)
             for label, tallies, metrics, settings in cases]
    ratios = [ratio for ratio, _ in found]
    low, high = RATIO_TARGET
    print(f"estimate / measured: {', '.join(f'{r:.2f}' for r in ratios)}; all within "
          f"[{low}, {high}]: {'yes' if all(low <= r <= high for r in ratios) else 'no'}; "
          f"planning: {', '.join(f'{p:.2f}' for _, p in found)} s; all under "
          f"{PLANNING_TARGET:.0f} s: {'yes' if all(p < PLANNING_TARGET for _, p in found) else 'no'}")


if __name__ == "__main__":
    main()
