"""Scale limits of `significance`: 2 systems × 1,000,000 units and 200 systems × 1,000 units.

Each case runs the full default analysis (9,999 shuffles, bootstrap 1,000, classic tests) in a
fresh process, and prints wall time and peak memory (median of ``--repeat``). Baselines
measured in the same run:

* 2 × 1M units: the plain NumPy randomization (``approximate_counts_numpy``, same coins) on
  the same pair with ``--baseline-shuffles`` shuffles, scaled per pair-shuffle, against the
  compiled kernel's cost per pair-shuffle;
* 200 × 1,000 units: the classic tests computed pair by pair (``classic_tests``, the former
  way) on a sample of pairs, scaled to all pairs, against all pairs at once
  (``classic_tests_many``).

    python3 benchmarks/limits.py
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from common import synthetic_counts

HERE = Path(__file__).resolve().parent

CASE = r"""
import json, resource, sys, time
from common import synthetic_tallies
from muceval.significance.engine import compare
tallies = synthetic_tallies(int(sys.argv[1]), int(sys.argv[2]))
start = time.perf_counter()
compare(tallies, seed=1)
print(json.dumps({"seconds": time.perf_counter() - start,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run_case(systems: int, units: int, repeat: int) -> tuple[float, float]:
    runs = []
    for _ in range(repeat):
        # A fresh process per run: its peak memory is that of the case alone.
        out = subprocess.run([sys.executable, "-c", CASE, str(systems), str(units)],
                             capture_output=True, text=True, check=True,
                             env={**os.environ, "PYTHONPATH": os.pathsep.join(
                                 [str(HERE), os.environ.get("PYTHONPATH", "")])})
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return (statistics.median(r["seconds"] for r in runs),
            max(r["peak_mb"] for r in runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline-shuffles", type=int, default=20)
    args = parser.parse_args()
    from muceval.significance.classic import classic_tests, classic_tests_many
    from muceval.significance.kernels import (
        METRICS,
        PairData,
        approximate_counts,
            reduce_counts,
    )
    from muceval.significance.numpy_counts import approximate_counts_numpy

    for systems, units in ((2, 1_000_000), (200, 1_000)):
        seconds, peak = run_case(systems, units, args.repeat)
        print(f"{systems} systems × {units:,} units, full default analysis: {seconds:.1f} s, "
              f"peak {peak:.0f} MB")
    counts = synthetic_counts(2, 1_000_000)
    pair = PairData.of(reduce_counts(counts[0]), reduce_counts(counts[1]))
    shuffles = 999
    start = time.perf_counter()
    approximate_counts([pair], METRICS, shuffles, seed=1, compiled=True)
    kernel = (time.perf_counter() - start) / shuffles
    start = time.perf_counter()
    approximate_counts_numpy(pair, METRICS, args.baseline_shuffles, seed=1)
    numpy_cost = (time.perf_counter() - start) / args.baseline_shuffles
    print(f"2 × 1M units, per shuffle: kernel {1e3 * kernel:.2f} ms, NumPy reference "
          f"{1e3 * numpy_cost:.2f} ms ({numpy_cost / kernel:.1f}× the kernel)")
    counts = synthetic_counts(200, 1_000)
    pairs = [(a, b) for a in range(200) for b in range(a + 1, 200)]
    sample = pairs[:: max(1, len(pairs) // 400)]
    start = time.perf_counter()
    for a, b in sample:
        classic_tests(counts[a], counts[b], "f1")
    one_by_one = (time.perf_counter() - start) / len(sample) * len(pairs)
    start = time.perf_counter()
    classic_tests_many(counts, pairs, "f1")
    at_once = time.perf_counter() - start
    print(f"200 × 1,000 units, classic tests of all {len(pairs):,} pairs (one metric): pair by "
          f"pair {one_by_one:.1f} s (from {len(sample)} pairs), all at once {at_once:.1f} s "
          f"({one_by_one / at_once:.1f}×)")


if __name__ == "__main__":
    main()
