"""The paired bootstrap shared by the MUC tallies and the modern counts: units resampled with
replacement (the same draw for every system: paired), percentile intervals.

Resampling weights are counted with ``bincount`` and summed with a float matrix product
(exact: the sums are integers far below 2^53), so that a million units cost seconds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

__all__ = ["bootstrap_intervals"]


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
    pair_ci = np.empty((len(pairs), len(metrics), 2))
    for n, (a, b) in enumerate(pairs):
        pair_ci[n] = np.quantile(values[:, a] - values[:, b], [lo, hi], axis=1).T
    return system_ci, pair_ci
