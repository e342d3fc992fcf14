"""The NumPy path of small randomization runs against its cost model and its baseline.

For synthetic pairs of several sizes, prints the median time of
``approximate_counts_numpy_many`` (all pairs at once) in nanoseconds per pair-shuffle, the
estimate ``kernels.numpy_work`` makes of it (the model behind the choice between NumPy and
loading the compiled kernels), and, as the baseline measured in the same run, the one-pair
reference ``approximate_counts_numpy`` pair by pair (same counts, checked). Then, in a fresh
process, what loading the compiled kernels costs (importing numba and the cached kernels), to
set beside ``kernels._NUMPY_BUDGET_NS``.

    python3 benchmarks/numpy_path.py            # medians of 3

Prints figures only; one thread (NumPy's products may use BLAS threads: the CPU time is
printed beside the wall time).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

import numpy as np

from common import installed_environment, median_times
from muceval.significance.kernels import _NUMPY_BUDGET_NS, PairData, numpy_work
from muceval.significance.numpy_counts import (
    approximate_counts_numpy,
    approximate_counts_numpy_many,
)

METRICS = ("recall", "precision", "f1", "f0.5", "f2")
CASES = [(136, 100, 5), (136, 100, 1), (136, 1000, 5), (20, 100, 5), (1000, 30, 5)]
SHUFFLES = 9_999
LOAD = ("import time; t = time.perf_counter(); "
        "from muceval.significance import compiled; print(time.perf_counter() - t)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print(f"{SHUFFLES:,} shuffles; ns per pair-shuffle, median of {args.repeat}")
    for count, units, metrics in CASES:
        pairs = [PairData.of(rng.integers(0, 5, (units, 3)), rng.integers(0, 5, (units, 3)))
                 for _ in range(count)]
        chosen = METRICS[:metrics]
        wall, cpu, many = median_times(lambda pairs=pairs, chosen=chosen: approximate_counts_numpy_many(
            pairs, chosen, SHUFFLES, 1), args.repeat)
        base, _, one = median_times(lambda pairs=pairs, chosen=chosen: np.array([
            approximate_counts_numpy(p, chosen, SHUFFLES, 1) for p in pairs]), 1)
        assert np.array_equal(many, one), "the two NumPy paths disagree"
        per = 1e9 / (count * SHUFFLES)
        model = np.mean([numpy_work(SHUFFLES, metrics, len(p.diffs)) for p in pairs]) / SHUFFLES
        print(f"  {count:5} pairs × {units:5} units × {metrics} metrics: {wall * per:6.1f} ns "
              f"(CPU {cpu * per:6.1f}), model {model:6.1f} ns; pair by pair {base * per:7.1f} "
              f"ns ({base / wall:.1f}× slower, one run)")
    loads = [float(subprocess.run([sys.executable, "-c", LOAD], check=True, text=True,
                                  capture_output=True, env=installed_environment()).stdout)
             for _ in range(args.repeat)]
    print(f"loading the compiled kernels in a fresh process: {statistics.median(loads):.3f} s "
          f"(the budget below which runs take NumPy: {_NUMPY_BUDGET_NS / 1e9:.2f} s)")


if __name__ == "__main__":
    main()
