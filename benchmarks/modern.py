"""Benchmark: the six shared modern prediction files under the three modern metrics.

Prints, for each metric, the median time to score every prediction file that
the metric takes (reading included), the total, and, as the baseline measured
in the same run, the time of GTT's plain exhaustive search (every one-to-one
partial map, as the original enumerates them) on the same documents with the
map muceval's pruned search finds instead; both give the same map (checked
here, and by a property test).

Usage: python3 benchmarks/modern.py [--shared ../shared] [--repeat N]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from common import median_time, shared_folder
from muceval.formats.modern import read_modern
from muceval.scoring.modern import ModernOptions, score_modern
from muceval.scoring.modern.gtt import (
    best_map,
    gold_templates,
    predicted_templates,
)

# GTT's exhaustive enumeration of maps, which the tests keep.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from oracles import brute_force_map  # noqa: E402

PREDICTIONS = ["gtt/preds_gtt.out", "grit/preds_s_t.out",
               *(f"iterx/preds.{e}.test.jsonlines"
                 for e in ("bart-base", "bart-large", "bert-base", "t5-large-enc"))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", help="folder holding modern/ (default: ../shared)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    modern = shared_folder(args.shared, "modern")

    def run(metric: str) -> None:
        gold = read_modern(modern / ("grit/test.json" if metric == "ceaf-ree" else "gtt/test.json"))
        for name in PREDICTIONS:
            pred = read_modern(modern / name)
            if metric != "ceaf-ree" and pred.layout == "grit-pred":
                continue
            score_modern(gold, pred, ModernOptions(metric, compat=True))

    total = 0.0
    for metric in ("gtt", "ceaf-ree", "ceaf-rme"):
        seconds = median_time(lambda metric=metric: run(metric), args.repeat)[0]
        total += seconds
        print(f"{metric:9s} all prediction files: {seconds:7.3f} s (median of {args.repeat})")
    print(f"{'total':9s}                      {total:7.3f} s")

    gold = read_modern(modern / "gtt/test.json").by_id()
    documents = []
    for name in PREDICTIONS:
        pred = read_modern(modern / name)
        if pred.layout == "grit-pred":
            continue
        for docid, document in pred.by_id().items():
            documents.append((predicted_templates(document.templates or ()),
                              gold_templates(gold[docid].templates or ())))
    maps = sum((len(g) + 1) ** len(p) for p, g in documents)
    pruned = median_time(lambda: [best_map(p, g) for p, g in documents], args.repeat)[0]
    plain = median_time(lambda: [brute_force_map(p, g) for p, g in documents], 1)[0]
    assert all(best_map(p, g) == brute_force_map(p, g) for p, g in documents)
    print(f"GTT map search over {len(documents)} documents ({maps:,} candidate maps):")
    print(f"  exhaustive enumeration (baseline) {plain:8.3f} s")
    print(f"  muceval's pruned search           {pruned:8.3f} s   ratio {plain / pruned:6.1f}x")


if __name__ == "__main__":
    main()
