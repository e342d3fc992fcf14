"""Slow reference implementations the tests check the fast paths against."""

import itertools
from collections.abc import Sequence

import numpy as np

from muceval.scoring.errors.search import Assignment, Choices, evaluate, f1_of
from muceval.scoring.modern.gtt import GttTemplate, _denominators, _f1, _pair_gains
from muceval.significance.kernels import metric_values, threshold_of, totals_value


def brute_force_pvalue(x: np.ndarray, y: np.ndarray, metric: str, two_sided: bool = True) -> float:
    """Exact p-value by enumerating all 2^n exchanges of the n units (n ≤ 20).

    >>> brute_force_pvalue(np.array([[1, 1, 2]]), np.array([[1, 1, 0]]), "recall")
    1.0
    """
    x = np.asarray(x, dtype=np.int64)
    y = np.asarray(y, dtype=np.int64)
    n = len(x)
    if n > 20:
        raise ValueError("brute force is limited to 20 units")
    masks = (np.arange(1 << n)[:, None] >> np.arange(n)[None, :]) & 1
    s = masks @ (x - y)
    tx, ty = x.sum(0), y.sum(0)
    diff = metric_values(tx - s, metric) - metric_values(ty + s, metric)
    observed = totals_value(tx, metric) - totals_value(ty, metric)
    sign, thr = threshold_of(observed, two_sided)
    stat = np.abs(diff) if two_sided else sign * diff
    return float(np.count_nonzero(stat >= thr)) / float(1 << n)


def brute_force_map(preds: Sequence[GttTemplate], golds: Sequence[GttTemplate],
                    role_match: bool = False) -> tuple[int, ...]:
    """GTT's exhaustive enumeration of maps (exponential in the predictions)."""
    gains = _pair_gains(preds, golds, role_match)
    p_den, r_den = _denominators(preds, golds)
    best_f1, best = -1.0, tuple([-1] * len(preds))
    for candidate in itertools.product([*range(len(golds)), -1], repeat=len(preds)):
        mapped = [j for j in candidate if j >= 0]
        if len(mapped) != len(set(mapped)):
            continue
        p_num = r_num = 0
        for i, j in enumerate(candidate):
            gain = gains[i][j] if j >= 0 else None
            if gain is not None:
                p_num += gain[0]
                r_num += gain[1]
        f1 = _f1(p_num, p_den, r_num, r_den)
        if f1 > best_f1:
            best_f1, best = f1, candidate
    return best


def groupings_by_definition(order: Sequence[str], apart: set[frozenset[str]]) -> list[list[str]]:
    """MUC-4's groupings as defined: the maximal runs of neighbours in ``order`` no two of
    which differ, in order of their first system (every interval tried, O(n^4))."""
    n = len(order)
    runs = [(i, j) for i in range(n) for j in range(i, n)
            if all(frozenset((order[a], order[b])) not in apart
                   for a in range(i, j + 1) for b in range(a + 1, j + 1))]
    maximal = [(i, j) for i, j in runs if not any(a <= i and j <= b and (a, b) != (i, j)
                                                  for a, b in runs)]
    return [list(order[i: j + 1]) for i, j in sorted(maximal)]


def exhaustive_first_best(problem: Choices) -> Assignment:
    """The search of Das et al.'s Error_Analysis.py as written: every candidate, depth-first
    (item by item, unpaired first, then each option in order, a target used once), the first
    with the greatest F1 and then the smallest score kept. Exponential."""
    best: tuple[float, float, tuple[int | None, ...], int] | None = None
    for choices in itertools.product(*(((None, *(o.target for o in options)))
                                       for options in problem.options)):
        targets = [t for t in choices if t is not None]
        if len(targets) != len(set(targets)):
            continue
        gain, score = evaluate(problem, choices)
        f1 = f1_of(gain, problem.p_den, problem.r_den)
        if best is None or f1 > best[0] or (f1 == best[0] and score < best[1]):
            best = (f1, score, choices, gain)
    assert best is not None
    return Assignment(best[2], best[3], best[1])
