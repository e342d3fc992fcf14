"""Approximate randomization on plain NumPy: the one-pair reference (the benchmarks'
baseline) and all pairs of a run too small to repay loading the compiled kernels. Same
coins, hence the same counts, as the compiled kernels."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from muceval.significance.kernels import (
    METRIC_COEFS,
    PairData,
    coins,
    count_extreme,
    metric_values,
    pair_thresholds,
    totals_value,
)

__all__ = ["approximate_counts_numpy", "approximate_counts_numpy_many"]


def approximate_counts_numpy(
    pair: PairData,
    metrics: tuple[str, ...],
    shuffles: int,
    seed: int,
    two_sided: bool = True,
    chunk: int = 1 << 14,
) -> np.ndarray:
    """Number of shuffles at least as extreme, per metric, for one pair: coin matrix times
    difference matrix, then the metrics of both pseudo-systems.

    >>> pair = PairData.of(np.array([[2, 2, 4], [2, 2, 0]]), np.array([[2, 2, 0], [2, 2, 0]]))
    >>> approximate_counts_numpy(pair, ("recall",), 100, seed=1).tolist()
    [100]
    """
    d = pair.diffs
    tx, ty = pair.total_x, pair.total_y
    observed = [totals_value(tx, m) - totals_value(ty, m) for m in metrics]
    counts = np.zeros(len(metrics), dtype=np.int64)
    # Coin matrices of at most about 4M entries, whatever the number of units.
    chunk = max(1, min(chunk, (1 << 22) // max(1, len(d))))
    for start in range(0, shuffles, chunk):
        stop = min(shuffles, start + chunk)
        s = coins(seed, start, stop, len(d)).astype(np.int64) @ d
        for k, metric in enumerate(metrics):
            diff = metric_values(tx - s, metric) - metric_values(ty + s, metric)
            counts[k] += count_extreme(diff, observed[k], two_sided)
    return counts


def _values_of(pos: np.ndarray, act: np.ndarray, n2: np.ndarray, metric: str) -> np.ndarray:
    """:func:`metric_values` of integer-valued float arrays, operation for operation, without
    the int64 round trip. A zero term and a factor of one are left out: exact here, and each
    is a pass saved."""
    alpha, gamma, kappa = METRIC_COEFS[metric]
    v = alpha * pos if gamma == 0 else gamma * act if alpha == 0 else alpha * pos + gamma * act
    num = n2 if kappa == 1 else kappa * n2
    out = np.zeros(v.shape, dtype=np.float64)
    np.divide(num, v, out=out, where=v > 0)
    return out


def approximate_counts_numpy_many(
    pairs: Sequence[PairData],
    metrics: tuple[str, ...],
    shuffles: int,
    seed: int,
    two_sided: bool = True,
    block: int = 2048,
    sums: int = 1 << 18,
) -> np.ndarray:
    """:func:`approximate_counts_numpy` of many pairs at once: a ``(pairs, metrics)`` array.

    Pairs of like lengths in blocks, each one matrix product of the shared coins with the
    pairs' zero-padded differences, then each metric in a few array passes
    (benchmarks/numpy_path.py: 6× to 43× faster than pair by pair).

    >>> pair = PairData.of(np.array([[2, 2, 4], [2, 2, 0]]), np.array([[2, 2, 0], [2, 2, 0]]))
    >>> approximate_counts_numpy_many([pair, pair], ("recall",), 100, seed=1).tolist()
    [[100], [100]]
    """
    out = np.zeros((len(pairs), len(metrics)), dtype=np.int64)
    # Pairs of like lengths together, so that little is padding; a block's padded
    # differences, like its coins and sums below, stay near ``sums`` numbers.
    order = sorted(range(len(pairs)), key=lambda k: len(pairs[k].diffs))
    start = 0
    while start < len(order):
        stop = start + 1
        while (stop < len(order) and stop - start < block
               and 3 * (stop - start + 1) * len(pairs[order[stop]].diffs) <= sums):
            stop += 1
        chosen = order[start:stop]
        out[chosen] = _many_block([pairs[k] for k in chosen], metrics, shuffles, seed,
                                  two_sided, sums)
        start = stop
    return out


def _many_block(pairs: Sequence[PairData], metrics: tuple[str, ...], shuffles: int,
                seed: int, two_sided: bool, sums: int) -> np.ndarray:
    count = len(pairs)
    longest = max((len(p.diffs) for p in pairs), default=0)
    padded = np.zeros((longest, 3, count))
    for k, pair in enumerate(pairs):
        padded[:len(pair.diffs), :, k] = pair.diffs
    d = padded.reshape(longest, 3 * count)
    # Sums of whole numbers below 2**24 are exact in float32, whose product is twice as fast.
    exact32 = longest == 0 or float(np.abs(d).sum(axis=0).max()) < 2.0 ** 24
    d = d.astype(np.float32) if exact32 else d
    _, totals, signs, thresholds = pair_thresholds(list(pairs), metrics, two_sided)
    tx = totals[:, :3].T.astype(np.float64)
    ty = totals[:, 3:].T.astype(np.float64)
    out = np.zeros((count, len(metrics)), dtype=np.int64)
    # ``sums`` numbers at a time, sums and coins alike (arrays of 16 MB, made afresh at each
    # step, cost more in page faults than in arithmetic).
    step = max(1, min(sums // (3 * count), sums // max(1, longest)))
    for start in range(0, shuffles, step):
        stop = min(shuffles, start + step)
        s = (coins(seed, start, stop, longest).astype(d.dtype) @ d).reshape(-1, 3, count)
        x, y = tx - s, ty + s
        for k, metric in enumerate(metrics):
            diff = (_values_of(x[:, 0], x[:, 1], x[:, 2], metric)
                    - _values_of(y[:, 0], y[:, 1], y[:, 2], metric))
            stat = np.abs(diff, out=diff) if two_sided else signs[:, k] * diff
            out[:, k] += np.count_nonzero(stat >= thresholds[:, k], axis=0)
    return out
