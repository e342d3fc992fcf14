"""Benchmark: Das et al.'s error analysis (`muceval errors`), bounded search against enumeration.

Prints the median time of the analysis of the shared GTT predictions (``--key embedded``,
with and without the repair pass) and of the synthetic worst case of the original (N
identical predicted fillers against N identical gold entities in one role: 1,441,729
filler alignments at N = 8, 28 s in the original), each with muceval's bounded search and,
as the baseline measured in the same run, with the original's exhaustive enumeration
(reimplemented: ``tests/oracles.exhaustive_first_best``) on the sizes it can still do. Both give the same
result (checked here, and by tests/test_error_analysis.py).

Usage: python3 benchmarks/error_analysis.py [--shared ../shared] [--repeat N] [--brute-size N]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from common import median_time, shared_folder
from muceval.core.modern import ROLES, ModernTemplate
from muceval.formats.modern.embedded import read_embedded
from muceval.scoring.errors import (
    ErrorDocument,
    ErrorOptions,
    analyse_document,
    analyse_errors,
    error_documents,
)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from oracles import exhaustive_first_best  # noqa: E402


def worst_case(n: int) -> ErrorDocument:
    """N identical fillers against N identical gold entities (PerpInd), one template each."""
    def template(entities: int) -> ModernTemplate:
        return ModernTemplate("attack", tuple((("army",),) * entities if role == "PerpInd"
                                              else () for role in ROLES))

    return ErrorDocument("WORST", "the army attacked", (template(n),), (template(n),))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", help="folder holding modern/ (default: ../shared)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--brute-size", type=int, default=7,
                        help="largest worst case the enumeration is timed on (default 7)")
    args = parser.parse_args()
    modern = shared_folder(args.shared, "modern")
    embedded = read_embedded(modern / "gtt" / "preds_gtt.out")
    documents, _ = error_documents(embedded.gold, embedded.predictions, embedded.texts)

    print("shared GTT predictions (200 documents, --key embedded, reading excluded):")
    for repair in (False, True):
        options = ErrorOptions(after_repair=repair)
        fast, ours = median_time(lambda o=options: analyse_errors(documents, o), args.repeat)
        slow, theirs = median_time(
            lambda o=options: analyse_errors(documents, o, solve=exhaustive_first_best), args.repeat)
        assert ours == theirs, "the bounded search must give the enumeration's result"
        label = "with --after-repair" if repair else "before only        "
        print(f"  {label}: bounded {fast:8.4f} s   enumeration {slow:8.4f} s   "
              f"ratio {slow / fast:7.1f}x")

    print(f"synthetic worst case (N identical fillers against N identical entities; median of "
          f"{args.repeat}):")
    for n in (*range(4, args.brute_size + 1), 8, 12, 20):
        fast, ours = median_time(lambda n=n: analyse_document(worst_case(n)), args.repeat)
        line = f"  N = {n:2d}: bounded {fast:9.5f} s"
        if n <= args.brute_size:
            slow, theirs = median_time(
                lambda n=n: analyse_document(worst_case(n), solve=exhaustive_first_best),
                1 if n >= 7 else args.repeat)
            assert ours == theirs, "the bounded search must give the enumeration's result"
            line += f"   enumeration {slow:9.4f} s   ratio {slow / fast:10.1f}x"
        else:
            line += "   enumeration: not run (the original: 28 s at N = 8, x10 per step)"
        print(line)


if __name__ == "__main__":
    main()
