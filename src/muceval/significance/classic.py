"""The classic tests beside randomization: paired (sign, Wilcoxon, matched-pair t) and
those that wrongly assume independence (two-sample t, binomial z, χ²), with the correlation r.

Yeh (2000): systems run on one test set are positively correlated (r ≈ 0.3–0.8 on
MUC data), so a test that assumes independence overstates the variance of the
difference by about 1/(1 − r): its z is too small by √(1 − r), and it understates
significance by the factor √(1/(1 − r)) (:func:`understatement`). The paired tests and
randomization do not assume independence.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from muceval.significance.kernels import (
    METRIC_COEFS,
    metric_values,
    reduce_counts,
    totals_value,
)


@dataclass(frozen=True)
class ClassicTests:
    """Classic tests of one pair and metric on per-unit values (``None``: not applicable)."""

    units: int
    correlation: float | None
    sign: float | None
    wilcoxon: float | None
    paired_t: float | None
    two_sample_t: float | None
    chi2: float | None
    binomial: float | None = None


CLASSIC_TESTS = ("paired-t", "sign", "wilcoxon", "two-sample-t", "binomial", "chi2")
"""The tests by their command-line names (``--tests``)."""
PAIRED_TESTS = ("paired-t", "sign", "wilcoxon")
"""The tests that do not assume independence (the default view)."""
TEST_FIELDS = {"paired-t": "paired_t", "sign": "sign", "wilcoxon": "wilcoxon",
               "two-sample-t": "two_sample_t", "binomial": "binomial", "chi2": "chi2"}


def understatement(correlation: float | None) -> float | None:
    """Yeh's factor √(1/(1 − r)): how much a test that assumes independence understates
    the statistic of a difference between systems correlated by ``r`` (None: not applicable).

    >>> round(understatement(0.5), 3)
    1.414
    """
    if correlation is None or not 0 <= correlation < 1:
        return None
    return float(np.sqrt(1.0 / (1.0 - correlation)))


def _finite(x: float) -> float | None:
    x = float(x)
    return x if np.isfinite(x) else None


def _tail(z: float, alt: str, upper: Callable[[float], float]) -> float:
    """p-value of statistic ``z`` from its upper-tail function (symmetric distribution)."""
    if alt == "two-sided":
        return min(1.0, 2.0 * upper(abs(z)))
    return upper(z) if alt == "greater" else upper(-z)


def classic_tests(
    a: np.ndarray, b: np.ndarray, metric: str, alternative: str = "two-sided"
) -> ClassicTests:
    """Classic paired and (wrongly) independent tests for one pair and metric.

    ``a``/``b``: ``units × 4`` counts (POS, ACT, COR, PAR). Per-unit values are the
    metric of each unit's own tallies; units where either denominator is 0 are
    left out. One-sided tests look in the direction of the observed difference.
    Formulas (written out because scipy.stats' per-call overhead dominates with
    hundreds of pairs; the tests check them against scipy.stats):

    * sign test: exact binomial on the non-zero differences;
    * Wilcoxon signed-rank: normal approximation with tie correction, zero
      differences dropped, no continuity correction;
    * matched-pair t and two-sample (pooled-variance Student) t;
    * χ² (1 df, no Yates) on the (credited, not credited) table of recall or precision;
    * binomial z: the two-proportion z test of recall or precision (pooled proportion).

    >>> a = np.array([[2, 2, 2, 0]] * 6); b = np.array([[2, 2, 0, 0]] * 6)
    >>> round(classic_tests(a, b, "recall").sign, 4)
    0.0312
    """
    alpha, gamma, _ = METRIC_COEFS[metric]
    ra, rb = reduce_counts(a), reduce_counts(b)
    va_den = alpha * ra[:, 0] + gamma * ra[:, 1]
    vb_den = alpha * rb[:, 0] + gamma * rb[:, 1]
    keep = (va_den > 0) & (vb_den > 0)
    va = metric_values(ra[keep], metric)
    vb = metric_values(rb[keep], metric)
    ta, tb = ra.sum(0), rb.sum(0)
    observed = totals_value(ta, metric) - totals_value(tb, metric)
    alt = alternative if alternative == "two-sided" else ("greater" if observed >= 0 else "less")
    n = int(keep.sum())
    d = va - vb
    nonzero = d[d != 0]
    normal_upper = lambda z: float(special.ndtr(-z))  # noqa: E731
    correlation = sign = wilcoxon = paired_t = two_sample_t = chi2 = binomial = None
    if n >= 2 and np.std(va) > 0 and np.std(vb) > 0:
        correlation = _finite(np.corrcoef(va, vb)[0, 1])
    if n:
        m = len(nonzero)
        if m:
            k = int((nonzero > 0).sum())
            below = float(special.bdtr(k, m, 0.5))  # P(K <= k)
            above = float(special.bdtrc(k - 1, m, 0.5)) if k > 0 else 1.0  # P(K >= k)
            if alt == "two-sided":
                sign = min(1.0, 2.0 * min(below, above))
            else:
                sign = above if alt == "greater" else below
            ranks = stats.rankdata(np.abs(nonzero))
            w_plus = float(ranks[nonzero > 0].sum())
            _, ties = np.unique(np.abs(nonzero), return_counts=True)
            var = m * (m + 1) * (2 * m + 1) / 24.0 - float((ties**3 - ties).sum()) / 48.0
            if var > 0:
                z = (w_plus - m * (m + 1) / 4.0) / np.sqrt(var)
                wilcoxon = _tail(z, alt, normal_upper)
        else:
            sign = wilcoxon = 1.0
        if n >= 2:
            sd = float(np.std(d, ddof=1))
            mean = float(np.mean(d))
            if sd > 1e-12 * max(1.0, abs(mean)):
                t = mean / (sd / np.sqrt(n))
                paired_t = _tail(t, alt, lambda x: float(special.stdtr(n - 1, -x)))
            else:
                paired_t = 1.0 if mean == 0 else 0.0
            pooled = ((n - 1) * np.var(va, ddof=1) + (n - 1) * np.var(vb, ddof=1)) / (2 * n - 2)
            gap = float(np.mean(va) - np.mean(vb))
            if pooled > 1e-24:
                t = gap / np.sqrt(pooled * 2.0 / n)
                two_sample_t = _tail(t, alt, lambda x: float(special.stdtr(2 * n - 2, -x)))
            else:
                two_sample_t = 1.0 if gap == 0 else 0.0
    if metric in ("recall", "precision"):
        col = 0 if metric == "recall" else 1
        na, nb = ta[2] / 2.0, tb[2] / 2.0
        table = np.array([[na, ta[col] - na], [nb, tb[col] - nb]], dtype=np.float64)
        rows, cols = table.sum(1), table.sum(0)
        if np.all(rows > 0) and np.all(cols > 0):
            expected = np.outer(rows, cols) / table.sum()
            statistic = float(((table - expected) ** 2 / expected).sum())
            chi2 = float(special.chdtrc(1, statistic))
            # Credited share of each system, as two independent binomial samples.
            pa, pb = table[0, 0] / rows[0], table[1, 0] / rows[1]
            pooled = cols[0] / table.sum()
            se = np.sqrt(pooled * (1 - pooled) * (1 / rows[0] + 1 / rows[1]))
            if se > 0:
                binomial = _tail(float((pa - pb) / se), alt, normal_upper)
            else:
                binomial = 1.0 if pa == pb else 0.0
    return ClassicTests(n, correlation, sign, wilcoxon, paired_t, two_sample_t, chi2, binomial)
