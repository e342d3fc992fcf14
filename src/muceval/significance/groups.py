"""From p-values to decisions: the confidence of an approximate test, adjustments for
multiple comparisons, significance groupings and the compact letter display."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from scipy import stats

from muceval.errors import UsageError

ADJUSTMENTS = ("none", "holm", "bh")


def confidence_level(nge: int, shuffles: int, alpha: float) -> float:
    """Posterior probability that the exact test makes the same decision at ``alpha``.

    ``p̂ = (nge + 1) / (shuffles + 1)``; decision "significant" iff ``p̂ ≤ alpha``.
    Exact p ~ Beta(nge + 1, shuffles − nge + 1) (uniform prior, binomial model).

    >>> round(confidence_level(0, 9999, 0.1), 6)
    1.0
    >>> round(confidence_level(999, 9999, 0.1), 2)
    0.5
    """
    cdf = float(stats.beta.cdf(alpha, nge + 1, shuffles - nge + 1))
    significant = (nge + 1) / (shuffles + 1) <= alpha
    return cdf if significant else 1.0 - cdf


def adjust_pvalues(pvalues: Sequence[float], method: str) -> list[float]:
    """Holm (step-down) or Benjamini–Hochberg adjusted p-values, in input order.

    >>> [round(p, 3) for p in adjust_pvalues([0.01, 0.04, 0.03], "holm")]
    [0.03, 0.06, 0.06]
    >>> [round(p, 3) for p in adjust_pvalues([0.01, 0.04, 0.03], "bh")]
    [0.03, 0.04, 0.04]
    """
    p = np.asarray(pvalues, dtype=np.float64)
    n = len(p)
    if method == "none" or n == 0:
        return p.tolist()
    order = np.argsort(p, kind="stable")
    adjusted = np.empty(n)
    if method == "holm":
        running = 0.0
        for rank, i in enumerate(order):
            running = max(running, min(1.0, (n - rank) * p[i]))
            adjusted[i] = running
    elif method == "bh":
        running = 1.0
        for rank in range(n - 1, -1, -1):
            i = order[rank]
            running = min(running, n * p[i] / (rank + 1))
            adjusted[i] = min(1.0, running)
    else:
        raise UsageError(f"unknown adjustment {method!r}; choose from {', '.join(ADJUSTMENTS)}")
    return adjusted.tolist()


def groupings(order: Sequence[str], different: Callable[[str, str], bool]) -> list[list[str]]:
    """Maximal runs of consecutive systems (in ``order``) with no significant difference inside.

    >>> diff = lambda a, b: {a, b} == {"A", "C"}
    >>> groupings(["A", "B", "C"], diff)
    [['A', 'B'], ['B', 'C']]
    """
    runs: list[list[str]] = []
    n = len(order)
    last_end = -1
    end = 0
    for start in range(n):
        end = max(end, start)
        while end + 1 < n and all(
            not different(order[k], order[end + 1]) for k in range(start, end + 1)
        ):
            end += 1
        if end > last_end:
            runs.append(list(order[start : end + 1]))
            last_end = end
    return runs


def _letter(k: int) -> str:
    alphabet = "abcdefghijklmnopqrstuvwxyz"
    out = ""
    k += 1
    while k:
        k, r = divmod(k - 1, 26)
        out = alphabet[r] + out
    return out


def letter_display(order: Sequence[str], runs: Sequence[Sequence[str]]) -> dict[str, str]:
    """Compact letter display: systems sharing a letter are not significantly different.

    >>> letter_display(["A", "B", "C"], [["A", "B"], ["B", "C"]])
    {'A': 'a', 'B': 'ab', 'C': 'b'}
    """
    letters = {name: "" for name in order}
    for k, run in enumerate(runs):
        for name in run:
            letters[name] += _letter(k)
    return letters


def _differs(apart: set[frozenset[str]]) -> Callable[[str, str], bool]:
    return lambda x, y: frozenset((x, y)) in apart


def group_letters(names: Sequence[str], metrics: Sequence[str], scores: dict[str, dict[str, float]],
            different: dict[str, set[frozenset[str]]],
            ) -> tuple[dict[str, list[list[str]]], dict[str, dict[str, str]]]:
    """Per metric, the significance groups and the compact letter display of ``names``
    (``different[metric]``: the pairs found significantly different)."""
    groups: dict[str, list[list[str]]] = {}
    letters: dict[str, dict[str, str]] = {}
    for metric in metrics:
        order = sorted(names, key=lambda s: (-scores[s][metric], s))
        runs = groupings(order, _differs(different[metric]))
        groups[metric] = runs
        letters[metric] = letter_display(order, runs)
    return groups, letters
