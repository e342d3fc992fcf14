"""The paired bootstrap shared by the MUC tallies and the modern counts: units resampled with
replacement (the same draw for every system: paired), percentile intervals.

Resampling weights are counted with ``bincount`` and summed with a float matrix product
(exact: the sums are integers far below 2^53), so that a million units cost seconds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from muceval.significance.kernels import HAVE_NUMBA

__all__ = ["bootstrap_intervals", "pair_intervals"]


def bootstrap_intervals(
    counts: np.ndarray,
    metrics: Sequence[str],
    pairs: Sequence[tuple[int, int]],
    samples: int,
    level: float,
    seed: int | None,
    value: Callable[[np.ndarray, str], np.ndarray],
    batch: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile intervals at ``level``: (systems × metrics × 2) and (pairs × metrics × 2).

    ``counts``: systems × units × k; ``value(sums, metric)`` turns summed counts
    ``(..., k)`` into the metric. ``batch`` resamples are drawn at a time (by default
    as many as keep a batch's weights near 20 MB).

    >>> counts = np.array([[[1, 1, 1]] * 4, [[1, 1, 0]] * 4], dtype=float)
    >>> s, p = bootstrap_intervals(counts, ["x"], [(0, 1)], 50, 0.9, 1,
    ...                            lambda c, m: c[..., 2] / c[..., 0])
    >>> s[0, 0].tolist(), p[0, 0].tolist()
    ([1.0, 1.0], [1.0, 1.0])
    """
    n_systems, n_units, k = counts.shape
    rng = np.random.default_rng(seed)
    values = np.empty((len(metrics), n_systems, samples))
    flat = counts.transpose(1, 0, 2).reshape(n_units, n_systems * k).astype(np.float64)
    size = batch or max(1, min(samples, 20_000_000 // max(1, n_units * 8)))
    for start in range(0, samples, size):
        stop = min(samples, start + size)
        rows = stop - start
        idx = rng.integers(0, n_units, size=(rows, n_units))
        offsets = (np.arange(rows, dtype=np.int64) * n_units)[:, None]
        weights = np.bincount((idx + offsets).ravel(), minlength=rows * n_units)
        sums = (weights.reshape(rows, n_units).astype(np.float64) @ flat).reshape(
            rows, n_systems, k).transpose(1, 0, 2)
        for m, metric in enumerate(metrics):
            values[m, :, start:stop] = value(sums, metric)
    lo, hi = (1 - level) / 2, (1 + level) / 2
    system_ci = np.quantile(values, [lo, hi], axis=2).transpose(2, 1, 0)
    return system_ci, pair_intervals(values, pairs, lo, hi)


def pair_intervals(values: np.ndarray, pairs: Sequence[tuple[int, int]], lo: float,
                   hi: float) -> np.ndarray:
    """The ``lo`` and ``hi`` quantiles of ``values[:, a] - values[:, b]`` over the samples,
    for every pair ``(a, b)``: pairs × metrics × 2, equal bit for bit to ``np.quantile``
    (linear). ``values``: metrics × systems × samples.

    >>> v = np.arange(6, dtype=float).reshape(1, 2, 3)
    >>> pair_intervals(v, [(1, 0)], 0.25, 0.75).tolist()
    [[[3.0, 3.0]]]
    """
    index = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    samples = values.shape[2]
    where, weights = _positions(samples, (lo, hi))
    if HAVE_NUMBA and samples > 1 and where[1] + 1 <= _TAIL and samples - where[2] <= _TAIL:
        out = np.empty((len(index), values.shape[0], 4))
        _tails(np.ascontiguousarray(values, dtype=np.float64), index[:, 0].copy(),
               index[:, 1].copy(), where, out)
        return _lerp(out[..., 0::2], out[..., 1::2], weights)
    return _pair_intervals_numpy(values, index, lo, hi)


def _pair_intervals_numpy(values: np.ndarray, index: np.ndarray, lo: float,
                          hi: float) -> np.ndarray:
    pair_ci = np.empty((len(index), values.shape[0], 2))
    # Blocks of pairs: one vectorised quantile per block, its differences near 40 MB.
    block = max(1, 5_000_000 // max(1, values.shape[0] * values.shape[2]))
    for start in range(0, len(index), block):
        a, b = index[start:start + block, 0], index[start:start + block, 1]
        diffs = values[:, a] - values[:, b]  # metrics × block × samples
        pair_ci[start:start + block] = np.quantile(diffs, [lo, hi], axis=2).transpose(2, 1, 0)
    return pair_ci


_TAIL = 64
"""The compiled path keeps at most this many of the smallest and of the largest differences
(a 95 % interval of 10,000 samples needs 252); wider quantiles take the NumPy path."""


def _positions(samples: int, quantiles: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """The sorted positions (previous, next for each quantile) and interpolation weights,
    computed as ``np.quantile``'s linear method computes them."""
    virtual = (samples - 1) * np.asarray(quantiles, dtype=np.float64)
    previous = np.floor(virtual)
    following = previous + 1
    above = virtual >= samples - 1
    previous[above] = following[above] = samples - 1
    below = virtual < 0
    previous[below] = following[below] = 0
    gamma = virtual - previous
    where = np.array([previous[0], following[0], previous[1], following[1]], dtype=np.int64)
    return where, gamma


def _lerp(a: np.ndarray, b: np.ndarray, t: np.ndarray) -> np.ndarray:
    """NumPy's own interpolation formula (``numpy.lib._function_base_impl._lerp``)."""
    diff = b - a
    out = a + diff * t
    return np.where(t >= 0.5, b - diff * (1 - t), out)


if HAVE_NUMBA:
    from numba import njit, prange

    @njit(cache=True, inline="always")
    def _keep_smallest(buf, count, cap, x):  # pragma: no cover - compiled
        if count == cap:
            if x >= buf[cap - 1]:
                return count
            i = cap - 1
        else:
            i = count
            count += 1
        while i > 0 and buf[i - 1] > x:
            buf[i] = buf[i - 1]
            i -= 1
        buf[i] = x
        return count

    @njit(parallel=True, cache=True)
    def _tails(values, a, b, where, out):  # pragma: no cover - compiled
        # Only the order statistics the two quantiles need: the smallest and the largest
        # few differences, kept sorted by insertion (most samples fail one comparison).
        n_metrics, _, samples = values.shape
        small_cap = where[1] + 1
        large_cap = samples - where[2]
        for n in prange(a.shape[0]):
            small = np.empty(small_cap)
            large = np.empty(large_cap)  # negated: the largest differences, ascending
            for m in range(n_metrics):
                ns = 0
                nl = 0
                for s in range(samples):
                    d = values[m, a[n], s] - values[m, b[n], s]
                    ns = _keep_smallest(small, ns, small_cap, d)
                    nl = _keep_smallest(large, nl, large_cap, -d)
                for q in range(4):
                    k = where[q]
                    out[n, m, q] = small[k] if k < small_cap else -large[samples - 1 - k]
