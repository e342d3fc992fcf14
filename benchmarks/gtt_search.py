"""Benchmark: GTT's template-map search (issue 30) on the shared predictions and on worst cases.

For each case prints the median time of muceval's search (``best_map``) and, as the
baseline measured in the same run, the time of the search it replaced (a depth-first
search whose bound ignored the one-to-one constraint and which never pruned ties; kept
below as ``previous_map``): a median as well when the runs fit in ``--budget`` seconds,
else one run, stopped at the budget. Then the ratio, and the target of issue 30 (12
templates in under a second) beside the measurement. Both searches, and the original's
exhaustive enumeration where it is feasible (the shared predictions), give the same
maps: checked here, and by tests/test_gtt_search.py.

Cases: GTT's ``preds_gtt.out`` against the gold of ``gtt/test.json`` (every document);
10 identical predicted templates against 10 identical gold templates; 12 identical
predicted templates against 12 random gold templates; 12 random against 12 random (8
words, 3 types), and again with many ties (5 words, 2 types).

Usage: python3 benchmarks/gtt_search.py [--shared ../shared] [--repeat N] [--budget SECONDS]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from common import median_time, shared_folder
from muceval.core.modern import ROLES
from muceval.formats.modern import read_modern
from muceval.scoring.modern.gtt import (
    GttTemplate,
    _denominators,
    _f1,
    _pair_gains,
    best_map,
    gold_templates,
    predicted_templates,
)

# The original's exhaustive enumeration, which the tests keep.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from oracles import brute_force_map  # noqa: E402

Document = tuple[list[GttTemplate], list[GttTemplate]]


class OutOfTime(Exception):
    """The baseline went over its budget."""


def previous_map(preds: Sequence[GttTemplate], golds: Sequence[GttTemplate],
                 deadline: float) -> tuple[int, ...]:
    """The search ``best_map`` replaced: each remaining prediction's best gold as the bound
    (used or not), and a subtree skipped only when that bound is below the best F1."""
    n_pred, n_gold = len(preds), len(golds)
    gains = _pair_gains(preds, golds)
    p_den, r_den = _denominators(preds, golds)
    rest_p, rest_r = [0] * (n_pred + 1), [0] * (n_pred + 1)
    for i in range(n_pred - 1, -1, -1):
        options = [g for g in gains[i] if g is not None]
        rest_p[i] = rest_p[i + 1] + max((g[0] for g in options), default=0)
        rest_r[i] = rest_r[i + 1] + max((g[1] for g in options), default=0)
    best_f1, best = -1.0, tuple([-1] * n_pred)
    choice, used, nodes = [-1] * n_pred, [False] * n_gold, [0]

    def search(i: int, p_num: int, r_num: int) -> None:
        nonlocal best_f1, best
        nodes[0] += 1
        # Looking at the clock every node would slow the baseline down.
        if nodes[0] & 0xFFF == 0 and time.perf_counter() > deadline:
            raise OutOfTime
        if i == n_pred:
            f1 = _f1(p_num, p_den, r_num, r_den)
            if f1 > best_f1:
                best_f1, best = f1, tuple(choice)
            return
        if _f1(p_num + rest_p[i], p_den, r_num + rest_r[i], r_den) < best_f1 - 1e-12:
            return
        for j in [*range(n_gold), -1]:
            if j >= 0 and used[j]:
                continue
            gain = gains[i][j] if j >= 0 else None
            choice[i] = j
            if j >= 0:
                used[j] = True
            search(i + 1, p_num + (gain[0] if gain else 0), r_num + (gain[1] if gain else 0))
            if j >= 0:
                used[j] = False
        choice[i] = -1

    search(0, 0, 0)
    return best


WORDS = ["guerrillas", "fmln", "bomb", "mayor", "bus", "embassy", "soldiers", "dynamite"]


def random_template(rng: random.Random, words: int = 8, kinds: int = 3) -> GttTemplate:
    """A template of the kind the shared data holds: one of ``kinds`` types, per role up to two
    entities of one or two mentions from ``words`` words (so that pairs partly match; fewer
    words and types, more ties)."""
    return GttTemplate(rng.choice(["attack", "bombing", "kidnapping"][:kinds]), tuple(
        tuple(frozenset(rng.sample(WORDS[:words], rng.randint(1, 2)))
              for _ in range(rng.randint(0, 2)))
        for _ in ROLES))


def cases(shared: str | None) -> list[tuple[str, list[Document], bool]]:
    """``(name, documents, whether issue 30 sets it a target of under a second)``."""
    modern = shared_folder(shared, "modern")
    gold = read_modern(modern / "gtt/test.json").by_id()
    pred = read_modern(modern / "gtt/preds_gtt.out").by_id()
    shared_documents = [(predicted_templates(document.templates or ()),
                         gold_templates(gold[docid].templates or ()))
                        for docid, document in pred.items()]
    rng = random.Random(30)
    same = random_template(rng)
    return [
        (f"preds_gtt.out, {len(shared_documents)} documents", shared_documents, False),
        ("10 identical vs 10 identical gold", [([same] * 10, [same] * 10)], True),
        ("12 identical vs 12 random gold",
         [([same] * 12, [random_template(rng) for _ in range(12)])], True),
        ("12 random vs 12 random gold", [([random_template(rng) for _ in range(12)],
                                          [random_template(rng) for _ in range(12)])], True),
        ("12 random vs 12, many ties", [([random_template(rng, 5, 2) for _ in range(12)],
                                         [random_template(rng, 5, 2) for _ in range(12)])], True),
    ]


def baseline(documents: list[Document], budget: float, repeat: int
             ) -> tuple[float | None, list]:
    """The previous search's time (a median of ``repeat`` runs when they fit in ``budget``
    seconds, else of one) and maps; None when one run goes over the budget."""
    def run() -> list:
        start = time.perf_counter()
        return [previous_map(p, g, start + budget) for p, g in documents]

    try:
        seconds, maps = median_time(run, 1)
    except OutOfTime:
        return None, []
    if seconds * repeat < budget:
        seconds, maps = median_time(run, repeat)
    return seconds, maps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", help="folder holding modern/ (default: ../shared)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--budget", type=float, default=30.0,
                        help="seconds after which the baseline is stopped (default 30)")
    args = parser.parse_args()
    print(f"new: median of {args.repeat} runs; baseline: the previous search, the same median "
          f"when {args.repeat} runs fit in {args.budget:g} s, else one run, stopped at "
          f"{args.budget:g} s")
    print(f"{'case':34s} {'candidate maps':>18s} {'baseline':>10s} {'new':>9s} {'ratio':>9s}"
          "  target")
    for name, documents, target in cases(args.shared):
        seconds, maps = median_time(lambda d=documents: [best_map(p, g) for p, g in d],
                                    args.repeat)
        old, old_maps = baseline(documents, args.budget, args.repeat)
        if old is not None:
            assert old_maps == maps, name
        if len(documents) > 1:
            assert maps == [brute_force_map(p, g) for p, g in documents], name
        candidates = sum((len(g) + 1) ** len(p) for p, g in documents)
        shown = f"{old:.3f} s" if old is not None else f"> {args.budget:g} s"
        ratio = f"{old / seconds:.1f}x" if old is not None else f"> {args.budget / seconds:.0f}x"
        verdict = f"< 1 s: {'met' if seconds < 1 else 'MISSED'}" if target else "-"
        print(f"{name:34s} {candidates:18,d} {shown:>10s} {seconds:7.3f} s {ratio:>9s}  {verdict}")


if __name__ == "__main__":
    main()
