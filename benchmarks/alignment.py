"""Benchmark: the alignment audit of all 17 MUC-4 TST3 systems under three criteria.

Measured in the same run (files read once, outside the timings):

* audit: ``audit_alignment`` with criteria 1992, strict and any-slot, first with
  the pair audit (target < 10 s), then with the removal audit too (target < 30 s);
* baseline: the same three scores the plain way, three Scorers each with a
  criterion hook, every pair judged afresh per criterion (no shared evidence,
  no pair audit): what scoring with ``score --alignment`` three times costs.

The side-by-side significance (``compare_criteria``) is timed on its own.

Usage: python3 benchmarks/alignment.py [--repeat N] [--shared DIR]
"""

from __future__ import annotations

import argparse
import sys

from common import median_time, shared_folder
from muceval.core.alignment import AlignmentSettings, Criterion, SlotMatch
from muceval.core.tallies import all_templates_total
from muceval.formats.config import load_configuration
from muceval.formats.muc.history import read_history
from muceval.formats.muc.templates import read_templates
from muceval.reporting.alignment import compare_criteria
from muceval.scoring.alignment.audit import audit_alignment
from muceval.scoring.alignment.criteria import CriterionHook
from muceval.scoring.muc1992.scorer import Scorer, ScoringOptions
from muceval.significance.settings import SignificanceSettings

SYSTEMS = (
    "BBN GE GE-CMU HUGHES LSI MDC MITRE NMSU NYU PARAMAX PRC SRA SRI SYNCH UMASS UMICH USC".split()
)
STRICT = Criterion("strict", require=(SlotMatch("any", ("hum-tgt-name", "phys-tgt-id")),))
SETTINGS = AlignmentSettings(criteria=(*AlignmentSettings().criteria, STRICT),
                             compare=("1992", "strict", "any-slot"), flag="strict")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--shared", help="folder holding muc4/ (default: ../shared)")
    args = parser.parse_args()
    root = shared_folder(args.shared, "muc4")
    tst3 = root / "tst3"
    config = load_configuration(tst3 / "config-tst3.el")
    key = read_templates(root / "corpora/tst3/key-tst3.v2", config)
    history = read_history(tst3 / "final-history-nrad.tst3")
    responses = {s: read_templates(tst3 / "responses" / f"{s}.tst3", config) for s in SYSTEMS}

    def audit(**what):
        return audit_alignment(config, key, responses, history=history, settings=SETTINGS,
                               **what)

    def baseline():
        out = {}
        for name in SETTINGS.compare:
            hook = CriterionHook(SETTINGS.criterion(name), config)
            scorer = Scorer(config, history, ScoringOptions(alignment=hook))
            for s, response in responses.items():
                out[(s, name)] = all_templates_total(scorer.score(key, response).pairs)
        return out

    base_time, base = median_time(baseline, args.repeat)
    pairs_time, with_pairs = median_time(lambda: audit(pairs=True), args.repeat)
    removal_time, _ = median_time(lambda: audit(pairs=True, removal=True), args.repeat)
    for s in with_pairs.systems:
        for name, score in s.scores.items():
            if score.tally != base[(s.system, name)]:
                sys.exit(f"audit and baseline disagree on {s.system} under {name}: invalid")
    sig_time, _ = median_time(
        lambda: compare_criteria(with_pairs, SignificanceSettings(seed=1)), args.repeat)
    n_pairs = sum(len(s.pairs) for s in with_pairs.systems)
    print(f"17 TST3 systems x 3 criteria (1992, strict, any-slot), median of {args.repeat} runs")
    print(f"  audit with pair audit ({n_pairs} pairs)  : {pairs_time:6.2f} s   target < 10 s: "
          f"{'met' if pairs_time < 10 else 'NOT met'}")
    print(f"  audit with pair and removal audits : {removal_time:6.2f} s   target < 30 s: "
          f"{'met' if removal_time < 30 else 'NOT met'}")
    print(f"  baseline (3 scorers, scores only)  : {base_time:6.2f} s")
    print(f"  pair audit vs baseline             : {base_time / pairs_time:6.2f}x")
    print(f"  side-by-side significance (9,999)  : {sig_time:6.2f} s")


if __name__ == "__main__":
    main()
