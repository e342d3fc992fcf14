"""The registry of classic tests: every registered test gives p-values in [0, 1], agrees with
scipy.stats called directly, and appears in the JSON and the CSV of a comparison."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from scipy import stats

from muceval.core.units import from_arrays
from muceval.significance.classic import CLASSIC, CLASSIC_FIELDS
from muceval.significance.engine import compare
from muceval.significance.kernels import reduce_counts
from muceval.significance.settings import SignificanceSettings


def _proportion_table(ra: np.ndarray, rb: np.ndarray) -> list[list[float]]:
    """Recall's (credited, not credited) table of the two systems."""
    na, nb = ra[:, 2].sum() / 2, rb[:, 2].sum() / 2
    return [[na, ra[:, 0].sum() - na], [nb, rb[:, 0].sum() - nb]]


# scipy.stats' direct call of each test, on the recall of each unit (va, vb), both systems'
# reduced counts (ra, rb) and scipy's alternative.
SCIPY = {
    "paired-t": lambda va, vb, ra, rb, alt: stats.ttest_rel(va, vb, alternative=alt).pvalue,
    "sign": lambda va, vb, ra, rb, alt: stats.binomtest(
        int((va > vb).sum()), int((va != vb).sum()), 0.5, alternative=alt).pvalue,
    "wilcoxon": lambda va, vb, ra, rb, alt: stats.wilcoxon(
        (va - vb)[va != vb], alternative=alt, method="approx").pvalue,
    "two-sample-t": lambda va, vb, ra, rb, alt: stats.ttest_ind(va, vb, alternative=alt).pvalue,
    # The two-proportion z test: z² is χ²'s statistic, so one tail halves χ²'s p.
    "binomial": lambda va, vb, ra, rb, alt: stats.chi2_contingency(
        _proportion_table(ra, rb), correction=False).pvalue / (1 if alt == "two-sided" else 2),
    "chi2": lambda va, vb, ra, rb, alt: stats.chi2_contingency(
        _proportion_table(ra, rb), correction=False).pvalue,
}


def _system(rng: np.random.Generator, units: int) -> np.ndarray:
    pos, act = rng.integers(1, 8, units), rng.integers(0, 8, units)
    top = np.minimum(pos, act)
    cor = rng.integers(0, top + 1)
    return np.stack([pos, act, cor, rng.integers(0, top - cor + 1)], axis=1)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("alternative", ["two-sided", "one-sided"])
def test_every_registered_test_agrees_with_scipy_and_is_written(seed, alternative):
    assert {t.id for t in CLASSIC} == set(SCIPY)
    assert {t.field for t in CLASSIC} <= set(CLASSIC_FIELDS)
    rng = np.random.default_rng(seed)
    a, b = _system(rng, 40), _system(rng, 40)
    tallies = from_arrays(["A", "B"], [f"u{i}" for i in range(40)], [a.tolist(), b.tolist()])
    result = compare(tallies, ["recall"], SignificanceSettings(
        seed=1, shuffles=99, bootstrap=0, alternative=alternative))
    (c,) = result.comparisons
    ra, rb = reduce_counts(a), reduce_counts(b)
    va, vb = ra[:, 2] / ra[:, 0] / 2, rb[:, 2] / rb[:, 0] / 2  # every unit has key items
    alt = ("two-sided" if alternative == "two-sided"
           else "greater" if c.value_a >= c.value_b else "less")
    (written,) = json.loads(result.to_json())["comparisons"]
    (row,) = csv.DictReader(io.StringIO(result.to_csv()))
    for test in CLASSIC:
        p = getattr(c.classic, test.field)
        assert 0 <= p <= 1, test.id
        assert p == pytest.approx(SCIPY[test.id](va, vb, ra, rb, alt), rel=1e-9), test.id
        assert written["classic"][test.field] == p and float(row[test.field]) == p, test.id
