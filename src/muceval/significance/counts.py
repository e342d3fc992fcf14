"""Is a change in a count real? A paired randomization over documents for counts such as the
error categories of :mod:`muceval.scoring.errors` (issue 28).

Each document's counts of the two systems are exchanged with probability 1/2, as the
documents are the units of the scores' tests; the statistic is the difference of the totals,
so an exchange flips the sign of that document's difference. With at most
:data:`EXACT_UP_TO` documents whose counts differ, all 2^m exchanges are enumerated (the
exact p-value); otherwise ``settings.shuffles`` random ones give ``(nge + 1) / (shuffles + 1)``
from the project's reproducible coins.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from muceval.errors import UsageError
from muceval.significance.kernels import coins
from muceval.significance.settings import SignificanceSettings

__all__ = ["EXACT_UP_TO", "CountTest", "paired_count_tests"]

EXACT_UP_TO = 20
"""Documents whose counts differ, up to which every exchange is enumerated."""

_CHUNK = 1 << 14


@dataclass(frozen=True)
class CountTest:
    """The test of one count: the two totals, their difference (second − first), the p-value,
    how it was found, and the number of documents whose counts differ."""

    first: int
    second: int
    difference: int
    p_value: float
    method: str
    documents: int


def paired_count_tests(first: np.ndarray, second: np.ndarray,
                       settings: SignificanceSettings) -> list[CountTest]:
    """The test of every column of two ``documents × counts`` arrays (the same documents in
    the same order), two-sided.

    Examples
    --------
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
    out = []
    for k in range(first.shape[1]):
        d = second[:, k] - first[:, k]
        d = d[d != 0]
        observed = int(d.sum())
        if len(d) <= EXACT_UP_TO:
            p, method = _exact(d, observed), "exact"
        else:
            p, method = _approximate(d, observed, settings), "approximate"
        out.append(CountTest(int(first[:, k].sum()), int(second[:, k].sum()), observed, p,
                             method, len(d)))
    return out


def _exact(d: np.ndarray, observed: int) -> float:
    if len(d) == 0:
        return 1.0
    signs = 1 - 2 * ((np.arange(1 << len(d))[:, None] >> np.arange(len(d))) & 1)
    totals = signs @ d
    return float(np.count_nonzero(np.abs(totals) >= abs(observed)) / (1 << len(d)))


def _approximate(d: np.ndarray, observed: int, settings: SignificanceSettings) -> float:
    seed = settings.with_seed().seed
    assert seed is not None
    nge = 0
    for start in range(0, settings.shuffles, _CHUNK):
        stop = min(settings.shuffles, start + _CHUNK)
        signs = 1 - 2 * coins(seed, start, stop, len(d)).astype(np.int64)
        nge += int(np.count_nonzero(np.abs(signs @ d) >= abs(observed)))
    return (nge + 1) / (settings.shuffles + 1)
