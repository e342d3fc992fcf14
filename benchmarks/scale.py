"""All-pairs significance at leaderboard scale: in-process and on a local Dask cluster.

Synthetic systems are perturbations of the 17 official TST3 systems' per-message
tallies (each new system takes an official one and moves a few messages' counts),
so they are as correlated as real systems on one test set. For 17, 100 and 300
systems (``--systems``) the script times ``compare`` in-process (the baseline,
this machine's threads) and with ``DaskExecutor(workers=N)`` (same run, same
seed: the p-values are checked equal), prints wall time (median of ``--repeat``),
peak memory of this process, the growth exponent of time in the number of pairs,
and the estimate, from the measured cost per pair-shuffle, for 1,000 systems ×
1,000 documents × 2^20 shuffles.

    python3 benchmarks/scale.py                      # 17, 100, 300 systems, 9,999 shuffles
    python3 benchmarks/scale.py --systems 17,50 --workers 2 --shuffles 999
"""

from __future__ import annotations

import argparse
import glob
import math
import resource
import sys

import numpy as np

from common import median_time, shared_folder
from muceval.core.units import UnitTallies
from muceval.formats.registry import load_systems
from muceval.significance.distributed import DaskExecutor
from muceval.significance.engine import compare
from muceval.significance.settings import SignificanceSettings


def synthetic(official: UnitTallies, systems: int, seed: int = 7) -> UnitTallies:
    """``systems`` systems: the official ones first, then perturbed copies of them."""
    rng = np.random.default_rng(seed)
    counts = [official.counts[i] for i in range(min(systems, len(official.systems)))]
    while len(counts) < systems:
        base = official.counts[rng.integers(len(official.systems))].copy()
        moved = rng.choice(base.shape[0], size=max(1, base.shape[0] // 10), replace=False)
        for u in moved:
            pos, act, cor, par = base[u]
            act = max(0, act + int(rng.integers(-2, 3)))
            cor = min(cor + int(rng.integers(-1, 2)), pos, act)
            cor = max(0, cor)
            par = max(0, min(par, pos - cor, act - cor))
            base[u] = (pos, act, cor, par)
        counts.append(base)
    names = tuple(official.systems[:systems]) + tuple(
        f"SYN{n:04d}" for n in range(max(0, systems - len(official.systems))))
    return UnitTallies(names, official.units, np.array(counts))


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", help="the shared data folder (default: ../shared)")
    parser.add_argument("--systems", default="17,100,300")
    parser.add_argument("--shuffles", type=int, default=9_999)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    muc4 = shared_folder(args.shared, "muc4")
    _, official = load_systems(sorted(glob.glob(str(muc4 / "tst3" / "official-scores" / "*"))))
    settings = SignificanceSettings(seed=1, shuffles=args.shuffles, bootstrap=0, classic=False)
    rows = []
    print(f"{'systems':>8} {'pairs':>7} {'in-process s':>13} {f'local:{args.workers} s':>12} "
          f"{'ratio':>6} {'ns/pair-shuffle':>16} {'peak MB':>8}")
    for n in (int(x) for x in args.systems.split(",")):
        tallies = synthetic(official, n)
        pairs = n * (n - 1) // 2
        local_s, here = median_time(lambda t=tallies: compare(t, settings=settings), args.repeat)
        dask_s, there = median_time(lambda t=tallies: compare(
            t, settings=settings, executor=DaskExecutor(workers=args.workers)),
            max(1, args.repeat - 1))
        same = [c.p_value for c in here.comparisons] == [c.p_value for c in there.comparisons]
        if not same:
            sys.exit(f"{n} systems: the cluster's p-values differ from the in-process ones")
        per = local_s * 1e9 / (pairs * args.shuffles)
        rows.append((n, pairs, local_s, dask_s, per))
        print(f"{n:>8} {pairs:>7} {local_s:>13.2f} {dask_s:>12.2f} {dask_s / local_s:>6.2f} "
              f"{per:>16.1f} {peak_mb():>8.0f}")
    if len(rows) >= 2:
        (_, p0, t0, _, _), (_, p1, t1, _, _) = rows[0], rows[-1]
        exponent = math.log(t1 / t0) / math.log(p1 / p0)
        print(f"growth of in-process time with the number of pairs: exponent {exponent:.2f} "
              f"(1.0: linear)")
    per = rows[-1][4]
    units_now = len(official.units)
    big_pairs, big_units, big_shuffles = 1000 * 999 // 2, 1000, 1 << 20
    # The kernel's cost per pair-shuffle grows with the differing units (8 per table block).
    scaled = per * max(1.0, big_units / units_now)
    hours = big_pairs * big_shuffles * scaled / 1e9 / 3600
    print(f"estimate for 1,000 systems × 1,000 documents × 2^20 shuffles: "
          f"{big_pairs:,} pairs, {scaled:.0f} ns per pair-shuffle on this machine "
          f"(measured {per:.1f} ns at {units_now} documents, scaled by the documents) → "
          f"{hours:,.0f} hours here; divide by the cluster's cores for --scheduler")


if __name__ == "__main__":
    main()
