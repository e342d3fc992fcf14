"""The paired bootstrap (the same draw of units for every system), percentile intervals.
Resampling weights are counted with ``bincount`` and summed by a float matrix product (exact:
integers far below 2^53), so that a million units cost seconds.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

import numpy as np

from muceval.significance.kernels import HAVE_NUMBA

__all__ = ["bootstrap_intervals", "bootstrap_values", "bounds", "intervals", "pair_intervals",
           "system_intervals"]


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
    ``(..., k)`` into the metric; ``batch``: resamples drawn at a time.

    >>> counts = np.array([[[1, 1, 1]] * 4, [[1, 1, 0]] * 4], dtype=float)
    >>> s, p = bootstrap_intervals(counts, ["x"], [(0, 1)], 50, 0.9, 1,
    ...                            lambda c, m: c[..., 2] / c[..., 0])
    >>> s[0, 0].tolist(), p[0, 0].tolist()
    ([1.0, 1.0], [1.0, 1.0])
    """
    return intervals(bootstrap_values(counts, metrics, samples, seed, value, batch), pairs,
                     level)


def intervals(values: np.ndarray, pairs: Sequence[tuple[int, int]],
              level: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`bootstrap_intervals` of the draws ``values`` (metrics × systems × samples)."""
    lo, hi = bounds(level)
    system_ci = np.quantile(values, [lo, hi], axis=2).transpose(2, 1, 0)
    return system_ci, pair_intervals(values, pairs, lo, hi)


def bounds(level: float) -> tuple[float, float]:
    """The quantiles of a central interval at ``level`` (0.95 → 0.025, 0.975)."""
    return (1 - level) / 2, (1 + level) / 2


def system_intervals(system_ci: np.ndarray, names: Sequence[str],
                     metrics: Sequence[str]) -> dict[str, dict[str, tuple[float, float]]]:
    """System → metric → (low, high), from a systems × metrics × 2 array."""
    return {s: {m: (float(system_ci[i, j, 0]), float(system_ci[i, j, 1]))
                for j, m in enumerate(metrics)} for i, s in enumerate(names)}


def bootstrap_values(
    counts: np.ndarray,
    metrics: Sequence[str],
    samples: int,
    seed: int | None,
    value: Callable[[np.ndarray, str], np.ndarray],
    batch: int | None = None,
) -> np.ndarray:
    """The metric of every system in every resample: metrics × systems × samples."""
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
    return values


def pair_intervals(values: np.ndarray, pairs: Sequence[tuple[int, int]] | np.ndarray, lo: float,
                   hi: float, compiled: bool | None = None) -> np.ndarray:
    """The ``lo`` and ``hi`` quantiles of ``values[:, a] - values[:, b]`` over the samples,
    for every pair ``(a, b)``: pairs × metrics × 2, bit for bit ``np.quantile``'s. ``compiled``
    chooses the compiled tail selection or NumPy (default: compiled when worth loading numba).

    >>> v = np.arange(6, dtype=float).reshape(1, 2, 3)
    >>> pair_intervals(v, [(1, 0)], 0.25, 0.75).tolist()
    [[[3.0, 3.0]]]
    """
    index = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    samples = values.shape[2]
    where, weights = _positions(samples, (lo, hi))
    # Loading numba costs about as much as 2·10^7 differences on the NumPy path.
    if compiled is None:
        compiled = ("muceval.significance.compiled" in sys.modules
                    or len(index) * values.shape[0] * samples > 2e7)
    if HAVE_NUMBA and compiled and samples > 1 and where[1] + 1 <= _TAIL and \
            samples - where[2] <= _TAIL:
        out = np.empty((len(index), values.shape[0], 4))
        from muceval.significance.compiled import _tails

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
"""The compiled path keeps at most this many of the smallest and of the largest differences;
wider quantiles take the NumPy path."""


def _positions(samples: int, quantiles: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """The sorted positions and interpolation weights of ``np.quantile``'s linear method."""
    virtual = (samples - 1) * np.asarray(quantiles, dtype=np.float64)
    # Both neighbours held to the first and last sample, as np.quantile holds them.
    previous = np.clip(np.floor(virtual), 0, samples - 1)
    following = np.clip(np.floor(virtual) + 1, 0, samples - 1)
    gamma = virtual - previous
    where = np.array([previous[0], following[0], previous[1], following[1]], dtype=np.int64)
    return where, gamma


def _lerp(a: np.ndarray, b: np.ndarray, t: np.ndarray) -> np.ndarray:
    """NumPy's own interpolation formula (``numpy.lib._function_base_impl._lerp``)."""
    diff = b - a
    out = a + diff * t
    lerped: np.ndarray = np.where(t >= 0.5, b - diff * (1 - t), out)
    return lerped
