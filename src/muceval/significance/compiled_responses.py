"""The compiled loop of the randomization over responses (numba), imported at first use by
:mod:`muceval.significance.responses`, whose NumPy loop gives the same counts (the tests
compare them)."""

from __future__ import annotations

import numpy as np
from numba import njit

# Imported for its side effect: the compiled code is cached in the user's cache directory.
from muceval.significance import compiled as _compiled  # noqa: F401
from muceval.significance.kernels import REL_TOL


@njit(cache=True)
def response_counts(words: np.ndarray, tables: np.ndarray, every: np.ndarray,
                    base: np.ndarray, groups: np.ndarray, outcomes: np.ndarray,
                    coefs: np.ndarray, observed: np.ndarray,
                    two_sided: bool) -> np.ndarray:
    """Per metric, how many rows of coin ``words`` give a difference at least as extreme.

    ``tables`` (bytes × 256 × 3): the singles' (POS, ACT, N2) per byte value; ``groups``
    (g × 3): each group's first bit, width and first row in ``outcomes`` (rows × 2 × 3);
    ``coefs`` (metrics × 3): alpha, gamma, kappa; ``observed``: each metric's difference.
    """
    n_metrics = coefs.shape[0]
    counts = np.zeros(n_metrics, dtype=np.int64)
    first = np.empty(3, dtype=np.int64)
    second = np.empty(3, dtype=np.int64)
    for s in range(words.shape[0]):
        for c in range(3):
            first[c] = base[0, c]
            second[c] = base[1, c] + every[c]
        for b in range(tables.shape[0]):
            value = (words[s, b // 8] >> np.uint64(8 * (b % 8))) & np.uint64(255)
            for c in range(3):
                first[c] += tables[b, value, c]
                second[c] -= tables[b, value, c]
        for g in range(groups.shape[0]):
            index = np.int64(0)
            for j in range(groups[g, 1]):
                position = groups[g, 0] + j
                bit = (words[s, position // 64] >> np.uint64(position % 64)) & np.uint64(1)
                index |= np.int64(bit) << j
            row = groups[g, 2] + index
            for c in range(3):
                first[c] += outcomes[row, 0, c]
                second[c] += outcomes[row, 1, c]
        for m in range(n_metrics):
            diff = _value(first, coefs[m]) - _value(second, coefs[m])
            target = observed[m]
            threshold = abs(target) - REL_TOL * abs(target)
            if two_sided:
                stat = abs(diff)
            else:
                stat = diff if target >= 0 else -diff
            if stat >= threshold:
                counts[m] += 1
    return counts


@njit(cache=True, inline="always")
def _value(totals: np.ndarray, coef: np.ndarray) -> float:
    v = coef[0] * totals[0] + coef[1] * totals[1]
    return coef[2] * totals[2] / v if v > 0 else 0.0
