"""Slow reference implementations the tests check the fast paths against."""

import numpy as np

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
