"""Benchmark: which error counts changed for real, for every pair (`significance --errors`).

Prints the median time of testing every pair of systems on every error category (paired
randomization over documents: exact up to 20 differing documents, else 9,999 shuffles) for
the 17 TST3 systems (136 pairs × 17 categories; the 1992 responses sorted into Das et al.'s
categories by `muceval errors`) and for the IterX predictions, with muceval's implementation
(one coin matrix and one matrix product per pair for all categories; the exact test by the
distribution of the signed sum) and, as the baseline measured in the same run, the direct one
(per category: its own coins, 2^m sign vectors enumerated). Both give the same p-values
(checked here, and by tests/test_error_changes.py).

Usage: python3 benchmarks/error_changes.py [--shared ../shared] [--repeat N]
"""

from __future__ import annotations

import argparse
import itertools

import numpy as np

from common import median_time, shared_folder
from muceval.core.error_counts import ErrorCounts
from muceval.formats.config import load_configuration
from muceval.scoring.errors import analyse_error_files
from muceval.scoring.errors.muc1992 import analyse_1992_files
from muceval.significance.error_counts import all_pair_changes
from muceval.significance.kernels import coins
from muceval.significance.settings import SignificanceSettings

SETTINGS = SignificanceSettings(seed=1, shuffles=9999)


def direct(counts: ErrorCounts) -> list[float]:
    """The definition, one category at a time (the baseline)."""
    out = []
    for a, b in itertools.combinations(counts.systems, 2):
        for k in range(len(counts.categories)):
            d = counts.counts[b][:, k] - counts.counts[a][:, k]
            d = d[d != 0]
            observed = abs(int(d.sum()))
            if len(d) == 0:
                out.append(1.0)
            elif len(d) <= 20:
                signs = 1 - 2 * ((np.arange(1 << len(d))[:, None] >> np.arange(len(d))) & 1)
                out.append(float(np.count_nonzero(np.abs(signs @ d) >= observed)
                                 / (1 << len(d))))
            else:
                signs = 1 - 2 * coins(1, 0, SETTINGS.shuffles, len(d)).astype(np.int64)
                nge = np.count_nonzero(np.abs(signs @ d) >= observed)
                out.append((nge + 1) / (SETTINGS.shuffles + 1))
    return out


def case(label: str, counts: ErrorCounts, repeat: int) -> None:
    ours = [c.p_value for c in all_pair_changes(counts, SETTINGS)]
    assert ours == direct(counts), label
    fast, _ = median_time(lambda: all_pair_changes(counts, SETTINGS), repeat)
    slow, _ = median_time(lambda: direct(counts), repeat)
    pairs = len(counts.systems) * (len(counts.systems) - 1) // 2
    print(f"{label:<28} {pairs:>5} pairs × {len(counts.categories)} categories: "
          f"muceval {fast:7.2f} s, direct {slow:7.2f} s, {slow / fast:5.1f}× "
          "(same p-values)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", default=None)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    muc4 = shared_folder(args.shared, "muc4")
    tst3 = muc4 / "tst3"
    responses = sorted((tst3 / "responses").glob("*.tst3"))
    analysis = analyse_1992_files(load_configuration(tst3 / "config-tst3.el"),
                                  muc4 / "corpora" / "tst3" / "key-tst3.v2",
                                  responses, history_path=tst3 / "final-history-nrad.tst3")
    case("TST3, 17 systems (1992)", analysis.counts(), args.repeat)
    modern = shared_folder(args.shared, "modern")
    preds = sorted((modern / "iterx").glob("preds.*.jsonlines"))
    case(f"IterX, {len(preds)} systems (modern)",
         analyse_error_files(modern / "gtt" / "test.json", preds).counts(), args.repeat)


if __name__ == "__main__":
    main()
