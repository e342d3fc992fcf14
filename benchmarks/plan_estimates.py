"""``significance --plan``'s estimate beside the measured time of the same randomization.

For each case, the estimate of :func:`muceval.significance.estimate.estimate` (what ``--plan``
prints), then the median wall time of running that plan with the in-process executor (what
``muceval significance`` spends in the randomization: the kernels, not reading, bootstrap or
classic tests), and their ratio (issue 24: within a factor of 2 either way).

Cases: the 17 official TST3 systems (message units), approximate with the five metrics and
exact F0.5 (needs ../shared); 300 synthetic systems × 100 units, approximate; 300 synthetic
systems × 12 units, exact F1.

    python3 benchmarks/plan_estimates.py                 # medians of 3
    python3 benchmarks/plan_estimates.py --repeat 1 --shuffles 999

Prints figures only; medians, since the machines are shared and noisy.
"""

from __future__ import annotations

import argparse
import time

from common import median_time, shared_folder, synthetic_tallies
from muceval.formats.registry import load_inputs
from muceval.significance.engine import prepare
from muceval.significance.estimate import estimate
from muceval.significance.execute import LocalExecutor
from muceval.significance.kernels import METRICS, default_threads
from muceval.significance.settings import SignificanceSettings


def case(label: str, tallies, metrics, settings: SignificanceSettings, threads: int,
         repeat: int) -> float:
    prepared = prepare(tallies, metrics, settings)
    started = time.perf_counter()
    found = estimate(prepared.plan, prepared.pairs, prepared.metrics, prepared.settings, 1,
                     threads)
    calibration = time.perf_counter() - started
    executor = LocalExecutor(threads)

    def run() -> None:
        executor.run(prepared.plan, prepared.pairs, prepared.metrics, prepared.settings)

    measured, _ = median_time(run, repeat)
    ratio = found.seconds / measured
    print(f"{label}: {found.approximate_pairs} approximate pairs × "
          f"{prepared.settings.shuffles:,} shuffles, {found.exact_jobs} exact jobs "
          f"({found.exact_cells:,.0f} cells), {threads} threads")
    print(f"  estimate {found.seconds:.2f} s (approximate {found.approximate_seconds:.2f} s at "
          f"{found.ns_per_pair_shuffle:.1f} ns per pair-shuffle, exact {found.exact_seconds:.2f} s "
          f"at {found.ns_per_cell:.2f} ns per cell and {found.us_per_job:.0f} µs per job on one "
          f"thread, {found.exact_speedup:.1f}× on {threads}; "
          f"calibration took {calibration:.2f} s)")
    print(f"  measured {measured:.2f} s (median of {repeat}); estimate / measured = "
          f"{ratio:.2f} ({'within' if 0.5 <= ratio <= 2 else 'NOT within'} 2×)")
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", help="folder holding muc4/ (default: ../shared)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--shuffles", type=int, default=9_999)
    parser.add_argument("--threads", type=int, default=default_threads())
    args = parser.parse_args()
    approximate = SignificanceSettings(seed=1, shuffles=args.shuffles)
    exact = SignificanceSettings(seed=1, method="exact", shuffles=0)
    reports = sorted((shared_folder(args.shared, "muc4") / "tst3" / "official-scores")
                     .glob("*.nrad"))
    tst3 = load_inputs([str(p) for p in reports])
    ratios = [
        case("TST3, approximate, 5 metrics", tst3, METRICS, approximate, args.threads,
             args.repeat),
        case("TST3, exact F0.5", tst3, ["f0.5"], exact, args.threads, args.repeat),
        case("300 synthetic systems × 100 units, approximate, 5 metrics",
             synthetic_tallies(300, 100), METRICS, approximate, args.threads, args.repeat),
        case("300 synthetic systems × 12 units, exact F1", synthetic_tallies(300, 12), ["f1"],
             exact, args.threads, args.repeat),
    ]
    print(f"estimate / measured: {', '.join(f'{r:.2f}' for r in ratios)}; all within 2×: "
          f"{'yes' if all(0.5 <= r <= 2 for r in ratios) else 'no'}")


if __name__ == "__main__":
    main()
