"""Is a change in a count real? A paired randomization over documents (an exchange flips the
sign of the document's difference), for counts such as :mod:`muceval.scoring.errors`'.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from muceval.errors import UsageError
from muceval.significance.kernels import coins
from muceval.significance.plan import MAX_EXACT_UNITS, Decided, decide_method
from muceval.significance.settings import SignificanceSettings

__all__ = ["CountTest", "paired_count_tests", "pairwise_count_tests"]

_CHUNK = 1 << 14


@dataclass(frozen=True)
class CountTest:
    """The test of one count (``difference``: second − first; ``documents``: differing)."""

    first: int
    second: int
    difference: int
    p_value: float
    method: Decided
    documents: int


def paired_count_tests(first: np.ndarray, second: np.ndarray,
                       settings: SignificanceSettings) -> list[CountTest]:
    """The test of every column of two ``documents × counts`` arrays (the same documents in
    the same order), two-sided: exact up to
    :data:`~muceval.significance.plan.MAX_EXACT_UNITS` differing documents, else
    ``settings.shuffles`` shuffles.

    Three documents, one count: the second system has one more in each.

    >>> import numpy as np
    >>> (t,) = paired_count_tests(np.array([[1], [2], [0]]), np.array([[2], [3], [1]]),
    ...                           SignificanceSettings(seed=1))
    >>> t.difference, t.p_value, t.method
    (3, 0.25, 'exact')
    """
    first = np.asarray(first, dtype=np.int64)
    second = np.asarray(second, dtype=np.int64)
    if first.shape != second.shape or first.ndim != 2:
        raise UsageError("give the counts of both systems for the same documents")
    differing = [d[d != 0] for d in (second - first).T]
    # Method auto whatever settings.method says: the counts are few, their tests cheap.
    methods = [decide_method("auto", len(d) <= MAX_EXACT_UNITS) for d in differing]
    drawn = [k for k, method in enumerate(methods) if method == "approximate"]
    approximate = dict(zip(drawn, _approximate([differing[k] for k in drawn], settings,
                                               first.shape[0]), strict=True))
    out = []
    for k, d in enumerate(differing):
        observed = int(d.sum())
        p = approximate[k] if k in approximate else _exact(d, observed)
        out.append(CountTest(int(first[:, k].sum()), int(second[:, k].sum()), observed, p,
                             methods[k], len(d)))
    return out


def pairwise_count_tests(counts: Mapping[str, np.ndarray],
                         pairs: Sequence[tuple[str, str]],
                         settings: SignificanceSettings) -> dict[tuple[str, str], list[CountTest]]:
    """:func:`paired_count_tests` of each pair ``(first, second)`` of systems (the same
    shuffles as alone: a pair's p-values do not depend on the other pairs)."""
    unknown = sorted({n for pair in pairs for n in pair} - set(counts))
    if unknown:
        raise UsageError(f"no counts for {', '.join(unknown)}")
    return {(a, b): paired_count_tests(counts[a], counts[b], settings) for a, b in pairs}


def _exact(d: np.ndarray, observed: int) -> float:
    """The share of the 2^m sign vectors whose signed sum is at least as far from zero as the
    observed one, by one convolution per document (exact: whole counts below 2^21)."""
    if len(d) == 0:
        return 1.0
    reach = int(np.abs(d).sum())
    ways = np.zeros(2 * reach + 1, dtype=np.int64)
    ways[reach] = 1
    for value in np.abs(d):
        v = int(value)
        shifted = np.zeros_like(ways)
        shifted[v:] += ways[:len(ways) - v]
        shifted[:len(ways) - v] += ways[v:]
        ways = shifted
    sums = np.arange(-reach, reach + 1)
    return float(ways[np.abs(sums) >= abs(observed)].sum() / (1 << len(d)))


@functools.lru_cache(maxsize=2)
def _signs(seed: int, start: int, stop: int, width: int) -> np.ndarray:
    """±1 of every unit in shuffles ``start..stop-1``, drawn once for all the tests of a run."""
    signs: np.ndarray = 1.0 - 2.0 * coins(seed, start, stop, width)
    signs.flags.writeable = False
    return signs


def _approximate(columns: Sequence[np.ndarray], settings: SignificanceSettings,
                 documents: int) -> list[float]:
    """The approximate p-value of each column (of m documents: the first m coins of each
    shuffle), all summed by one matrix product per chunk of shuffles."""
    if not columns:
        return []
    seed = settings.with_seed().seed
    assert seed is not None
    width = max(len(d) for d in columns)
    packed = np.zeros((width, len(columns)))
    for k, d in enumerate(columns):
        packed[:len(d), k] = d
    observed = np.abs(packed.sum(axis=0))
    nge = np.zeros(len(columns), dtype=np.int64)
    for start in range(0, settings.shuffles, _CHUNK):
        stop = min(settings.shuffles, start + _CHUNK)
        signs = _signs(seed, start, stop, documents)[:, :width]
        nge += np.count_nonzero(np.abs(signs @ packed) >= observed, axis=0)
    return [float((n + 1) / (settings.shuffles + 1)) for n in nge]
