"""Leaderboards: every pair of 300, 1,000 (and 3,000) synthetic systems, end to end.

For each size: SYSTEMS synthetic systems × 100 units written as a unit-tallies CSV, then in a
fresh process each (a) ``muceval significance FILE --plan --format json`` (its estimate of the
randomization, and how long planning took), (b) ``muceval significance FILE --pairs
PAIRS.csv --format json`` (9,999 shuffles, 5 metrics; since issue 41 a pairs file gets no
intervals or classic tests unless asked: every pair's row streamed to the file, the summary
to stdout), (c) the same with ``--pairs PAIRS.npz`` (NumPy arrays, no numbers formatted).
Prints the wall time and peak resident memory of (b) and (c), their time per pair-shuffle,
the estimate beside them, and the targets (issue 41, 1,000 systems: ≤ 60 s and ≤ 1 GB).
With ``--baseline``, an earlier version's (b) runs after each (before issue 41 it computed
the intervals and classic tests too).

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
    plan_seconds, plan_mb, _ = measured(["significance", *common, "--plan"], folder / "plan.json")
    plan = json.loads((folder / "plan.json").read_text())
    seconds, peak, cpu = measured(["significance", *common, "--pairs", str(folder / "pairs.csv"),
                              "--force"], folder / "summary.json")
    pairs = systems * (systems - 1) // 2
    ns = seconds / (pairs * shuffles) * 1e9
    rows = sum(1 for _ in (folder / "pairs.csv").open()) - 1
    assert rows == pairs * 5, f"{rows} rows for {pairs} pairs × 5 metrics"
    print(f"{systems:>5} systems, {pairs:>9,} pairs × {shuffles:,} shuffles × 5 metrics: "
          f"{seconds:7.1f} s, CPU {cpu:.1f} s ({ns:.1f} ns per pair-shuffle end to end), "
          f"peak {peak:,.0f} MB; "
          f"estimate of the randomization {plan['seconds']:.1f} s; planning {plan_seconds:.2f} s "
          f"(peak {plan_mb:,.0f} MB)")
    columnar, columnar_peak, columnar_cpu = measured(["significance", *common, "--pairs",
                                        str(folder / "pairs.npz"), "--force"],
                                       folder / "summary-npz.json")
    import numpy as np

    arrays = np.load(folder / "pairs.npz")
    assert arrays["p_value"].shape == (pairs, 5), arrays["p_value"].shape
    print(f"      as .npz: {columnar:7.1f} s, CPU {columnar_cpu:.1f} s "
          f"({columnar / (pairs * shuffles) * 1e9:.1f} ns per pair-shuffle), "
          f"peak {columnar_peak:,.0f} MB, {(folder / 'pairs.npz').stat().st_size / 1e6:,.0f} MB")
    if baseline:
        # The same run of an earlier version, right after: the same file and load. Before
        # issue 41 it computed intervals and classic tests unasked: asked for here, the
        # current version's file must be the same, byte for byte; a version since computes
        # them only when asked, and its file must be the current one's without them.
        before, before_peak, before_cpu = measured(["significance", *common, "--pairs",
                                        str(folder / "before.csv"), "--force"],
                                       folder / "before.json", baseline)
        full, full_peak, _ = measured(["significance", *common, "--bootstrap", "1000", "--tests",
                                    "all", "--pairs", str(folder / "full.csv"), "--force"],
                                   folder / "full.json")
        earlier = (folder / "before.csv").read_bytes()
        same = ("identical to this version's with both asked for"
                if earlier == (folder / "full.csv").read_bytes() else
                "identical to this version's"
                if earlier == (folder / "pairs.csv").read_bytes() else "DIFFERENT")
        print(f"      baseline {baseline}: {before:7.1f} s, CPU {before_cpu:.1f} s, "
              f"peak {before_peak:,.0f} MB "
              f"({before / seconds:.2f}× the current time); the current version asked for "
              f"intervals and classic tests: {full:7.1f} s, peak {full_peak:,.0f} MB "
              f"({before / full:.2f}×); its pairs file {same}")
    if systems == 1000:
        for label, wall, mb in (("CSV", seconds, peak), (".npz", columnar, columnar_peak)):
            print(f"      target (issue 41), {label}: ≤ 60 s and ≤ 1,024 MB: "
                  f"{'met' if wall <= 60 and mb <= 1024 else 'NOT met'}")


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
