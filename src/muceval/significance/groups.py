"""From p-values to decisions: the confidence of an approximate test, adjustments for
multiple comparisons, significance groupings and the compact letter display."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
from scipy import special

from muceval.errors import UsageError
from muceval.significance.settings import ADJUSTMENTS, SignificanceSettings


def confidence_level(nge: int, shuffles: int, alpha: float) -> float:
    """Posterior probability that the exact test makes the same decision at ``alpha``.

    ``p̂ = (nge + 1) / (shuffles + 1)``; decision "significant" iff ``p̂ ≤ alpha``.
    Exact p ~ Beta(nge + 1, shuffles − nge + 1) (uniform prior, binomial model).

    >>> round(confidence_level(0, 9999, 0.1), 6)
    1.0
    >>> round(confidence_level(999, 9999, 0.1), 2)
    0.5
    """
    return float(confidence_levels(np.array([nge]), shuffles, alpha)[0])


def confidence_levels(nge: np.ndarray, shuffles: int, alpha: float) -> np.ndarray:
    """:func:`confidence_level` of many counts at once."""
    nge = np.asarray(nge, dtype=np.float64)
    cdf = special.betainc(nge + 1, shuffles - nge + 1, alpha)
    significant = (nge + 1) / (shuffles + 1) <= alpha
    levels: np.ndarray = np.where(significant, cdf, 1.0 - cdf)
    return levels


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
        unadjusted: list[float] = p.tolist()
        return unadjusted
    order = np.argsort(p, kind="stable")
    adjusted = np.empty(n)
    # Holm's running maximum starts at 0 (a negative input counts as 0, and "+ 0.0" turns
    # -0.0 into 0.0); fmin(1, NaN) is 1, so a NaN neither stays nor spreads.
    if method == "holm":
        adjusted[order] = np.maximum.accumulate(
            np.fmax(0.0, np.fmin(1.0, (n - np.arange(n)) * p[order]))) + 0.0
    elif method == "bh":
        running = np.fmin.accumulate((n * p[order] / np.arange(1, n + 1))[::-1])[::-1]
        adjusted[order] = np.fmin(1.0, running)
    else:
        raise UsageError(f"unknown adjustment {method!r}; choose from {', '.join(ADJUSTMENTS)}",
                         parameter="method")
    return adjusted.tolist()


def decisions(p_raw: np.ndarray, confident: np.ndarray,
              settings: SignificanceSettings) -> tuple[np.ndarray, np.ndarray]:
    """Adjusted p-values (per metric, over all pairs) and decisions (pairs × metrics)."""
    adjusted = np.empty_like(p_raw, dtype=np.float64)
    for m in range(p_raw.shape[1]):
        adjusted[:, m] = adjust_pvalues(p_raw[:, m].tolist(), settings.adjust)
    return adjusted, (adjusted <= settings.alpha) & (confident >= settings.confidence)


def groupings(order: Sequence[str], different: Callable[[str, str], bool]) -> list[list[str]]:
    """Maximal runs of consecutive systems (in ``order``) with no significant difference inside.

    >>> diff = lambda a, b: {a, b} == {"A", "C"}
    >>> groupings(["A", "B", "C"], diff)
    [['A', 'B'], ['B', 'C']]
    """
    return _runs(order, _apart(order, different))


def _apart(order: Sequence[str], different: Callable[[str, str], bool]) -> np.ndarray:
    """The symmetric matrix of ``different(order[i], order[j])``, i < j."""
    n = len(order)
    apart = np.zeros((n, n), dtype=bool)
    for i in range(n):
        for j in range(i + 1, n):
            apart[i, j] = apart[j, i] = different(order[i], order[j])
    return apart


def letter_name(k: int) -> str:
    """The k-th letter of a letter display: a … z, aa, ab, …"""
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
            letters[name] += letter_name(k)
    return letters


MAX_LETTER_GROUPS = 2000
"""The most letters a compact letter display gets: the maximal sets of non-different systems
can number millions (over 5 million at 1,000 systems, the run killed at 24 GB); beyond this
many, the letters are those of the MUC-4 groupings, and the result says so."""


class TooManyGroups(Exception):
    """More maximal sets of non-different systems than a letter display can show."""


def letter_groups(order: Sequence[str], different: Callable[[str, str], bool],
                  limit: int | None = None) -> list[list[str]]:
    """The groups of a compact letter display (Piepho 2004): maximal sets of systems none two
    of which differ, each in ``order``, ordered by their best member; unlike
    :func:`groupings`, a group may skip a system. Bron–Kerbosch with pivoting on bit masks
    (300 systems: 0.05 s instead of 1 s).

    >>> diff = lambda a, b: {a, b} == {"A", "B"}
    >>> letter_groups(["A", "B", "C"], diff)
    [['A', 'C'], ['B', 'C']]

    With ``limit``, :class:`TooManyGroups` is raised as soon as there are more groups.
    """
    return _cliques(order, _together(_apart(order, different)), limit)


def _cliques(order: Sequence[str], together: list[int], limit: int | None) -> list[list[str]]:
    """:func:`letter_groups` from the bit masks of the non-differences."""
    n = len(order)
    if n == 0:
        return []
    cliques: list[int] = []
    stack = [(0, (1 << n) - 1, 0)]  # (clique so far, candidates, excluded)
    while stack:
        clique, candidates, excluded = stack.pop()
        if not candidates:
            if not excluded:
                cliques.append(clique)
                if limit is not None and len(cliques) > limit:
                    raise TooManyGroups(f"more than {limit:,} sets of mutually non-different "
                                        "systems")
            continue
        # The pivot: the first system of candidates | excluded with the most candidates
        # among its non-differences (as max() with a key picks it), in one loop without
        # calls, stopping at a system that has them all.
        pivot, best, most, rest = 0, -1, candidates.bit_count(), candidates | excluded
        while rest:
            low = rest & -rest
            v = low.bit_length() - 1
            count = (candidates & together[v]).bit_count()
            if count > best:
                pivot, best = v, count
                if count == most:
                    break
            rest ^= low
        for v in _bits(candidates & ~together[pivot]):
            bit = 1 << v
            stack.append((clique | bit, candidates & together[v], excluded & together[v]))
            candidates &= ~bit
            excluded |= bit
    return [[order[k] for k in positions] for positions in sorted(_bits(c) for c in cliques)]


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _differs(apart: set[frozenset[str]]) -> Callable[[str, str], bool]:
    return lambda x, y: frozenset((x, y)) in apart


def _together(apart: np.ndarray) -> list[int]:
    """Bit j of mask i: systems i ≠ j are not different (``apart``: symmetric)."""
    close = ~apart
    np.fill_diagonal(close, False)
    packed = np.packbits(close, axis=1, bitorder="little")
    return [int.from_bytes(row.tobytes(), "little") for row in packed]


def _runs(order: Sequence[str], apart: np.ndarray) -> list[list[str]]:
    """:func:`groupings` from the matrix of differences in ``order``: the run from ``start``
    takes j while the last system before j that differs from it is before ``start``."""
    n = len(order)
    if n == 0:
        return []
    below = np.triu(apart, 1)
    last = np.where(below.any(axis=0), n - 1 - np.argmax(below[::-1], axis=0), -1).tolist()
    runs: list[list[str]] = []
    last_end = -1
    end = 0
    for start in range(n):
        end = max(end, start)
        while end + 1 < n and last[end + 1] < start:
            end += 1
        if end > last_end:
            runs.append(list(order[start: end + 1]))
            last_end = end
    return runs


def group_letters(names: Sequence[str], metrics: Sequence[str], scores: dict[str, dict[str, float]],
            different: Mapping[str, set[frozenset[str]] | np.ndarray],
            ) -> tuple[dict[str, list[list[str]]], dict[str, dict[str, str]],
                       dict[str, list[list[str]]]]:
    """Per metric, the MUC-4 groupings, the letters and the letters' groups of ``names``
    (``different[metric]``: name pairs, or a symmetric matrix in ``names`` order)."""
    groups: dict[str, list[list[str]]] = {}
    letters: dict[str, dict[str, str]] = {}
    cld: dict[str, list[list[str]]] = {}
    for metric in metrics:
        order = sorted(names, key=lambda s: (-scores[s][metric], s))
        apart = different[metric]
        if not isinstance(apart, np.ndarray):
            apart = _apart(names, _differs(apart))
        position = {name: i for i, name in enumerate(names)}
        ranked = [position[name] for name in order]
        # As booleans: ~ of a 0/1 integer matrix would be -1 and -2, both true.
        in_order = apart.astype(bool)[np.ix_(ranked, ranked)]
        groups[metric] = _runs(order, in_order)
        try:
            cld[metric] = _cliques(order, _together(in_order), MAX_LETTER_GROUPS)
        except TooManyGroups:
            # The letters of the runs of neighbours: they still never join two systems that
            # differ, but two that share none may not differ (the JSON's "about" says so).
            cld[metric] = groups[metric]
        letters[metric] = letter_display(order, cld[metric])
    return groups, letters, cld
