"""The significance engine against the machine's limit (issue 16's four measures).

1. End to end: ``muceval significance`` on SYSTEMS synthetic systems × UNITS units ×
   SHUFFLES shuffles × 5 metrics, JSON out (a fresh process: start-up, reading, kernel,
   classic tests, bootstrap, letters, writing), in ns per pair-shuffle.
2. The kernel alone (all pairs, one thread and all threads) against the same-run floor of a
   float32 GEMM that forms the same exchanged sums (coins × per-unit differences of every
   pair, one BLAS thread), in ns per pair-shuffle, and their ratio.
3. Exact F0.5 for all 136 pairs of the 17 official TST3 systems (needs ../shared).

(Start-up, with its targets, is ``benchmarks/startup.py``'s.) Between 2 and 3, the parts the engine replaced against the former way, same run: the
lookup-table kernel, ``np.quantile`` for the bootstrap intervals, insert-and-absorb for
the letter groups.

    python3 benchmarks/engine.py                    # 300 × 100 × 9,999, medians of 3
    python3 benchmarks/engine.py --systems 100 --repeat 1
    python3 benchmarks/engine.py --baseline /tmp/before/src   # an earlier version beside it

Prints figures only; medians, since the machines are shared and noisy.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from common import installed_environment, median_time, shared_folder, synthetic_tallies
from muceval.significance.kernels import (
    METRICS,
    PairData,
    approximate_counts,
    coins,
    default_threads,
    reduce_counts,
)
from muceval.significance.settings import SignificanceSettings


def write_csv(path: Path, tallies) -> None:
    with path.open("w") as out:
        out.write("system,unit,POS,ACT,COR,PAR\n")
        for s, name in enumerate(tallies.systems):
            for u, unit in enumerate(tallies.units):
                out.write(f"{name},{unit}," + ",".join(map(str, tallies.counts[s, u])) + "\n")


def run_cli(args: list[str], source: str | None = None, out: Path | None = None) -> None:
    """``muceval ARGS`` in a fresh process, imported from ``source`` (a ``src`` folder) if
    given, its stdout to ``out`` or discarded."""
    env = installed_environment()
    if source:
        env["PYTHONPATH"] = source
    with open(out or os.devnull, "wb") as sink:
        subprocess.run([sys.executable, "-m", "muceval", *args], check=True, stdout=sink,
                       env=env)


def end_to_end(tallies, shuffles: int, repeat: int, folder: Path,
               baseline: str | None = None) -> float:
    """The median of ``repeat`` fresh runs writing JSON; with ``baseline`` (the ``src`` folder
    of an earlier version), its runs alternate with these on the same file, and the two JSON
    texts are compared."""
    path = folder / "systems.csv"
    write_csv(path, tallies)
    args = ["significance", str(path), "--shuffles", str(shuffles), "--seed", "1",
            "--format", "json"]
    sources = {"current": None, **({"baseline": baseline} if baseline else {})}
    times: dict[str, list[float]] = {label: [] for label in sources}
    for source in sources.values():  # warm numba's cache of each version
        run_cli(["significance", str(path), "--shuffles", "99", "--format", "json"], source)
    for _ in range(repeat):
        for label, source in sources.items():
            start = time.perf_counter()
            run_cli(args, source, folder / f"{label}.json")
            times[label].append(time.perf_counter() - start)
    pairs = len(tallies.systems) * (len(tallies.systems) - 1) // 2
    medians = {label: statistics.median(t) for label, t in times.items()}
    ns = medians["current"] / (pairs * shuffles) * 1e9
    print(f"end to end, {len(tallies.systems)} systems × {len(tallies.units)} units × "
          f"{shuffles:,} shuffles × 5 metrics, JSON: {medians['current']:.1f} s, {ns:.1f} ns "
          f"per pair-shuffle (target ≤ 25, issue 30)")
    if baseline:
        same = (folder / "current.json").read_bytes() == (folder / "baseline.json").read_bytes()
        old_ns = medians["baseline"] / (pairs * shuffles) * 1e9
        print(f"  baseline {baseline}: {medians['baseline']:.1f} s, {old_ns:.1f} ns per "
              f"pair-shuffle ({medians['baseline'] / medians['current']:.2f}× the current "
              f"time, same run, alternating); JSON {'identical' if same else 'DIFFERENT'}")
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


def parts(tallies, shuffles: int, repeat: int) -> None:
    """The parts this engine replaced, each against the former way in the same run."""
    from muceval.significance.bootstrap import bootstrap_values, pair_intervals
    from muceval.significance.engine import compare
    from muceval.significance.groups import letter_groups
    from muceval.significance.kernels import _table_counts, metric_values

    reduced = reduce_counts(tallies.counts)
    index = list(itertools.combinations(range(len(tallies.systems)), 2))
    pairs = [PairData.of(reduced[a], reduced[b]) for a, b in index]
    sample = pairs[:2000]
    import numba

    _table_counts(sample[:2], METRICS, 100, 1, True, 1 << 14)  # load it
    previous = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        new, _ = median_time(lambda: approximate_counts(sample, METRICS, shuffles, seed=1,
                                                        compiled=True), repeat)
        old, _ = median_time(lambda: _table_counts(sample, METRICS, shuffles, 1, True,
                                                   1 << 14), repeat)
    finally:
        numba.set_num_threads(previous)
    print(f"  matrix-product kernel {new:.2f} s, lookup-table kernel {old:.2f} s "
          f"({old / new:.1f}×; {len(sample)} pairs, one thread)")
    values = bootstrap_values(reduced, METRICS, 1000, 1, metric_values)
    new, _ = median_time(lambda: pair_intervals(values, index, 0.025, 0.975, compiled=True),
                         repeat)
    old, _ = median_time(lambda: pair_intervals(values, index, 0.025, 0.975, compiled=False),
                         repeat)
    print(f"  bootstrap intervals of {len(index):,} pairs: tail selection {new:.2f} s, "
          f"np.quantile {old:.2f} s ({old / new:.1f}×, equal bit for bit)")
    result = compare(tallies, metrics=["f1"],
                     settings=SignificanceSettings(
                         shuffles=999, seed=1, bootstrap=0, classic=False))
    order = result.ranking("f1")
    apart = {frozenset((c.a, c.b)) for c in result.comparisons if c.significant}

    def different(x: str, y: str) -> bool:
        return frozenset((x, y)) in apart

    new, groups = median_time(lambda: letter_groups(order, different), repeat)
    old, former = median_time(lambda: insert_and_absorb(order, different), 1)
    assert sorted(groups) == sorted(former)
    print(f"  letter groups of {len(order)} systems: Bron–Kerbosch {new:.3f} s, "
          f"insert-and-absorb {old:.3f} s ({old / new:.0f}×, the same groups)")


def insert_and_absorb(order, different):
    """Piepho's (2004) insert-and-absorb, as muceval computed letter groups before: the
    baseline of the letter-group figure."""
    groups = [frozenset(order)]
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            if not different(a, b):
                continue
            keep = [g for g in groups if a not in g or b not in g]
            if len(keep) == len(groups):
                continue
            split = [part for g in groups if a in g and b in g for part in (g - {a}, g - {b})]
            new = []
            for g in split:
                if g in new or any(g <= h for h in keep) or any(g < h for h in split):
                    continue
                new.append(g)
            groups = keep + new
    position = {name: k for k, name in enumerate(order)}
    return [sorted(g, key=position.__getitem__) for g in groups]


def exact_f05(shared: str | None) -> None:
    from muceval.formats.scores.reports import from_reports
    from muceval.significance.engine import compare

    try:
        folder = shared_folder(shared, "muc4")
    except SystemExit as missing:
        print(f"exact F0.5: skipped ({missing})")
        return
    tallies = from_reports(sorted((folder / "tst3" / "official-scores").glob("*.nrad")))
    compare(tallies.select(tallies.systems[:2]), metrics=["f0.5"],
            settings=SignificanceSettings(method="exact", bootstrap=0))
    start = time.perf_counter()
    compare(tallies, metrics=["f0.5"],
            settings=SignificanceSettings(method="exact", bootstrap=0, classic=False))
    print(f"exact F0.5, all {len(tallies.systems) * (len(tallies.systems) - 1) // 2} TST3 "
          f"pairs: {time.perf_counter() - start:.1f} s (target ≤ 10)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", type=int, default=300)
    parser.add_argument("--units", type=int, default=100)
    parser.add_argument("--shuffles", type=int, default=9999)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--shared")
    parser.add_argument("--baseline", metavar="SRC",
                        help="src folder of an earlier version, measured end to end beside "
                             "this one (e.g. git archive <commit> src | tar -x -C /tmp/before)")
    args = parser.parse_args()
    os.environ.setdefault("COLUMNS", "100")
    tallies = synthetic_tallies(args.systems, args.units)
    with tempfile.TemporaryDirectory() as tmp:
        end_to_end(tallies, args.shuffles, args.repeat, Path(tmp),
                   str(Path(args.baseline).resolve()) if args.baseline else None)
        kernel_and_floor(tallies, args.shuffles, args.repeat)
        parts(tallies, args.shuffles, args.repeat)
    exact_f05(args.shared)


if __name__ == "__main__":
    main()
