"""The significance engine against the machine's limit (issue 16's four measures).

1. End to end: ``muceval significance`` on SYSTEMS synthetic systems × UNITS units ×
   SHUFFLES shuffles × 5 metrics, JSON out (a fresh process: start-up, reading, kernel,
   classic tests, bootstrap, letters, writing), in ns per pair-shuffle.
2. The kernel alone (all pairs, one thread and all threads) against the same-run floor of a
   float32 GEMM that forms the same exchanged sums (coins × per-unit differences of every
   pair, one BLAS thread), in ns per pair-shuffle, and their ratio.
3. Start-up: ``muceval significance`` on two small CSV systems (warm numba cache).
4. Exact F0.5 for all 136 pairs of the 17 official TST3 systems (needs ../shared).

    python3 benchmarks/engine.py                    # 300 × 100 × 9,999, medians of 3
    python3 benchmarks/engine.py --systems 100 --repeat 1

Prints figures only; medians, since the machines are shared and noisy.
"""

from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from common import median_time, shared_folder, synthetic_tallies
from muceval.significance.kernels import (
    METRICS,
    PairData,
    approximate_counts,
    coins,
    default_threads,
    reduce_counts,
)


def write_csv(path: Path, tallies) -> None:
    with path.open("w") as out:
        out.write("system,unit,POS,ACT,COR,PAR\n")
        for s, name in enumerate(tallies.systems):
            for u, unit in enumerate(tallies.units):
                out.write(f"{name},{unit}," + ",".join(map(str, tallies.counts[s, u])) + "\n")


def run_cli(args: list[str]) -> None:
    subprocess.run([sys.executable, "-m", "muceval", *args], check=True,
                   stdout=subprocess.DEVNULL)


def end_to_end(tallies, shuffles: int, repeat: int, folder: Path) -> float:
    path = folder / "systems.csv"
    write_csv(path, tallies)
    run_cli(["significance", str(path), "--shuffles", "99", "--format", "json"])  # warm cache
    seconds, _ = median_time(lambda: run_cli(
        ["significance", str(path), "--shuffles", str(shuffles), "--seed", "1",
         "--format", "json"]), repeat)
    pairs = len(tallies.systems) * (len(tallies.systems) - 1) // 2
    ns = seconds / (pairs * shuffles) * 1e9
    print(f"end to end, {len(tallies.systems)} systems × {len(tallies.units)} units × "
          f"{shuffles:,} shuffles × 5 metrics, JSON: {seconds:.1f} s, {ns:.1f} ns per "
          f"pair-shuffle (target ≤ 50)")
    return ns


def kernel_and_floor(tallies, shuffles: int, repeat: int) -> None:
    reduced = reduce_counts(tallies.counts)
    index = list(itertools.combinations(range(len(tallies.systems)), 2))
    pairs = [PairData.of(reduced[a], reduced[b]) for a, b in index]
    work = len(pairs) * shuffles
    approximate_counts(pairs[:2], METRICS, 100, seed=0, compiled=True)  # load the kernel
    one, _ = median_time(lambda: approximate_counts(pairs, METRICS, shuffles, seed=1, threads=1,
                                                    compiled=True), repeat)
    threads = default_threads()
    every, _ = median_time(lambda: approximate_counts(pairs, METRICS, shuffles, seed=1,
                                                      compiled=True), repeat)
    # The floor: the exchanged sums of every pair by one float32 matrix product of the shared
    # coin stream (shuffles × units) with every pair's differences (units × 3 per pair).
    units = max(len(p.diffs) for p in pairs)
    diffs = np.zeros((units, 3 * len(pairs)), dtype=np.float32)
    for k, p in enumerate(pairs):
        diffs[: len(p.diffs), 3 * k: 3 * k + 3] = p.diffs
    flips = coins(1, 0, shuffles, units).astype(np.float32)
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        threadpool_limits = None
        print("  (threadpoolctl not installed: the GEMM floor uses every BLAS thread)")
    block = max(1, (1 << 26) // max(1, 4 * shuffles * 3))  # output blocks of about 256 MB

    def gemm() -> None:
        for start in range(0, len(pairs), block):
            flips @ diffs[:, 3 * start: 3 * (start + block)]

    if threadpool_limits is not None:
        with threadpool_limits(limits=1):
            floor, _ = median_time(gemm, repeat)
    else:
        floor, _ = median_time(gemm, repeat)
    ns_one, ns_every, ns_floor = (t / work * 1e9 for t in (one, every, floor))
    print(f"kernel alone: {ns_one:.1f} ns per pair-shuffle on 1 thread, {ns_every:.1f} on "
          f"{threads}; float32 GEMM floor (sums only, 1 thread): {ns_floor:.1f} ns; "
          f"kernel / floor = {ns_one / ns_floor:.1f}× (target ≤ 2)")


def start_up(repeat: int, folder: Path) -> None:
    path = folder / "two.csv"
    write_csv(path, synthetic_tallies(2, 20))
    run_cli(["significance", str(path)])
    seconds, _ = median_time(lambda: run_cli(["significance", str(path), "--seed", "1"]),
                             max(3, repeat))
    print(f"start-up: significance on two small CSV systems: {seconds:.2f} s (target < 1)")


def exact_f05(shared: str | None) -> None:
    from muceval.formats.scores.reports import from_reports
    from muceval.significance.engine import compare

    try:
        folder = shared_folder(shared, "muc4")
    except SystemExit as missing:
        print(f"exact F0.5: skipped ({missing})")
        return
    tallies = from_reports(sorted((folder / "tst3" / "official-scores").glob("*.nrad")))
    compare(tallies.select(tallies.systems[:2]), metrics=["f0.5"], method="exact", bootstrap=0)
    start = time.perf_counter()
    compare(tallies, metrics=["f0.5"], method="exact", bootstrap=0, classic=False)
    print(f"exact F0.5, all {len(tallies.systems) * (len(tallies.systems) - 1) // 2} TST3 "
          f"pairs: {time.perf_counter() - start:.1f} s (target ≤ 10)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", type=int, default=300)
    parser.add_argument("--units", type=int, default=100)
    parser.add_argument("--shuffles", type=int, default=9999)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--shared")
    args = parser.parse_args()
    os.environ.setdefault("COLUMNS", "100")
    tallies = synthetic_tallies(args.systems, args.units)
    with tempfile.TemporaryDirectory() as tmp:
        end_to_end(tallies, args.shuffles, args.repeat, Path(tmp))
        kernel_and_floor(tallies, args.shuffles, args.repeat)
        start_up(args.repeat, Path(tmp))
    exact_f05(args.shared)


if __name__ == "__main__":
    main()
