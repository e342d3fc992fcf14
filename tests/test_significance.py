"""Tests of the significance engine: randomization, confidence, classic tests, groupings."""

from __future__ import annotations

import itertools
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from muceval.core.units import from_arrays
from muceval.errors import UsageError
from muceval.formats.scores.reports import from_reports
from muceval.significance.engine import (
    adjust_pvalues,
    classic_tests,
    compare,
    confidence_level,
    groupings,
    letter_display,
    parse_metrics,
)
from muceval.significance.kernels import (
    METRICS,
    PairData,
    approximate_counts,
    coins,
    exact_pvalue,
    metric_value,
    reduce_counts,
)
from muceval.significance.numpy_counts import approximate_counts_numpy
from muceval.significance.settings import SignificanceSettings
from oracles import brute_force_pvalue, groupings_by_definition


@st.composite
def unit_tuple(draw, max_count=6):
    pos = draw(st.integers(0, max_count))
    act = draw(st.integers(0, max_count))
    cor = draw(st.integers(0, min(pos, act)))
    par = draw(st.integers(0, min(pos, act) - cor))
    return [pos, act, cor, par]


@st.composite
def system_pair(draw, max_units=9):
    n = draw(st.integers(0, max_units))
    x = [draw(unit_tuple()) for _ in range(n)]
    # Some units identical in both systems, as in real data.
    y = [xi if draw(st.booleans()) and draw(st.booleans()) else draw(unit_tuple()) for xi in x]
    return np.array(x, dtype=np.int64).reshape(-1, 4), np.array(y, dtype=np.int64).reshape(-1, 4)


@settings(max_examples=150, deadline=None)
@given(system_pair())
def test_exact_equals_brute_force(data):
    x, y = (reduce_counts(a) for a in data)
    pair = PairData.of(x, y)
    for metric in METRICS:
        for two_sided in (True, False):
            brute = brute_force_pvalue(x, y, metric, two_sided)
            exact = exact_pvalue(pair, metric, two_sided)
            assert exact.error_bound == 0.0
            assert exact.p_value == pytest.approx(brute, abs=1e-12), (metric, two_sided)
            if not two_sided:
                assert exact.p_value <= exact_pvalue(pair, metric, True).p_value + 1e-12


@settings(max_examples=25, deadline=None)
@given(system_pair(max_units=14))
def test_compiled_kernel_equals_numpy_reference(data):
    x, y = (reduce_counts(a) for a in data)
    pair = PairData.of(x, y)
    from muceval.significance.kernels import _gemm_counts, _table_counts

    for two_sided in (True, False):
        fast = approximate_counts([pair], METRICS, 600, seed=7, two_sided=two_sided,
                                  compiled=True)[0]
        plain = approximate_counts_numpy(pair, METRICS, 600, seed=7, two_sided=two_sided)
        assert fast.tolist() == plain.tolist()
        # Both compiled kernels, whichever approximate_counts chose: the matrix product
        # (over 1,100 shuffles: more than one coin block) and the lookup tables.
        gemm = _gemm_counts([pair, pair], METRICS, 1100, 7, two_sided)
        table = _table_counts([pair], METRICS, 1100, 7, two_sided, 1 << 14)[0]
        reference = approximate_counts_numpy(pair, METRICS, 1100, seed=7, two_sided=two_sided)
        assert gemm[0].tolist() == gemm[1].tolist() == table.tolist() == reference.tolist()


@settings(max_examples=25, deadline=None)
@given(st.lists(system_pair(max_units=12), min_size=1, max_size=5), st.integers(1, 2_500))
def test_numpy_many_pairs_equals_the_reference_pair_by_pair(data, shuffles):
    """The NumPy path of small runs (all pairs in one matrix product, padded to the longest
    pair) counts what the one-pair reference counts, in several shuffle steps and blocks."""
    from muceval.significance.numpy_counts import approximate_counts_numpy_many

    pairs = [PairData.of(*(reduce_counts(a) for a in pair)) for pair in data]
    for two_sided in (True, False):
        many = approximate_counts_numpy_many(pairs, METRICS, shuffles, 11, two_sided, block=2,
                                            sums=3_000)
        for k, pair in enumerate(pairs):
            reference = approximate_counts_numpy(pair, METRICS, shuffles, 11, two_sided)
            assert many[k].tolist() == reference.tolist()


def test_numpy_many_pairs_stays_small_for_a_long_pair_among_short_ones():
    """The NumPy path pads pairs to their block's longest and draws coins a few shuffles at a
    time: a pair of 300,000 units beside short ones takes tens of megabytes, not gigabytes,
    and counts what the one-pair reference counts."""
    import tracemalloc

    from muceval.significance.numpy_counts import approximate_counts_numpy_many

    rng = np.random.default_rng(4)

    def pair(n):
        return PairData.of(rng.integers(0, 4, (n, 3)), rng.integers(0, 4, (n, 3)))

    pairs = [pair(3), pair(300_000), pair(7)]
    tracemalloc.start()
    try:
        counts = approximate_counts_numpy_many(pairs, ("f1",), 40, seed=2)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 100e6, peak
    assert [c.tolist() for c in counts] == [
        approximate_counts_numpy(p, ("f1",), 40, seed=2).tolist() for p in pairs]


@pytest.mark.parametrize("scale, units", [(400, 12000), (4000, 3000), (3 << 20, 40)])
def test_pairs_too_large_for_one_packed_sum(scale, units):
    """Sums beyond the packing are added in segments (the first two cases) and units too
    large for a segment go to the NumPy path (the last): the counts are the reference's."""
    from muceval.significance.kernels import _FIELD_LIMIT, _segment_words

    rng = np.random.default_rng(5)
    pos = rng.integers(scale // 2, scale, units)
    x = np.stack([pos, pos, rng.integers(0, pos)], axis=1)
    y = np.stack([pos, pos, rng.integers(0, pos)], axis=1)
    pair = PairData.of(x, y)
    assert np.abs(pair.diffs).sum(axis=0).max() >= _FIELD_LIMIT
    # A segment holds at least one coin word (64 units) without overflowing a field.
    assert (_segment_words(pair) == 0) == (np.abs(pair.diffs).max() * 64 > _FIELD_LIMIT - 2)
    from muceval.significance.kernels import _gemm_fitting, _table_counts

    for two_sided in (True, False):
        fast = approximate_counts([pair], METRICS, 300, seed=3, two_sided=two_sided,
                                  compiled=True)[0]
        plain = approximate_counts_numpy(pair, METRICS, 300, seed=3, two_sided=two_sided)
        assert fast.tolist() == plain.tolist()
        # The lookup tables (summed in segments) whichever path approximate_counts took.
        table = _table_counts([pair], METRICS, 300, 3, two_sided, 1 << 14)[0]
        assert table.tolist() == plain.tolist()
    # The first two go through the matrix product: more than one chunk of units for the
    # first (12,000 units), one product for the second; the third's sums reach 2^24.
    assert _gemm_fitting([pair]).tolist() == [units != 40]


def test_matrix_product_in_chunks_of_units_equals_the_reference():
    from muceval.significance.kernels import _GEMM_UNITS, _chunked_counts

    rng = np.random.default_rng(8)
    units = 2 * _GEMM_UNITS + 100
    pairs = [PairData.of(*(reduce_counts(a) for a in random_pair(rng, units)))
             for _ in range(3)]
    for two_sided in (True, False):
        chunked = _chunked_counts(pairs, METRICS, 700, 9, two_sided)
        for k, pair in enumerate(pairs):
            reference = approximate_counts_numpy(pair, METRICS, 700, seed=9,
                                                 two_sided=two_sided)
            assert chunked[k].tolist() == reference.tolist()


def random_pair(rng, n):
    def system():
        pos = rng.integers(0, 8, n)
        act = rng.integers(0, 8, n)
        top = np.minimum(pos, act)
        cor = rng.integers(0, top + 1)
        par = rng.integers(0, top - cor + 1)
        return np.stack([pos, act, cor, par], axis=1)

    return system(), system()


def test_approximate_converges_to_exact():
    rng = np.random.default_rng(3)
    x4, y4 = random_pair(rng, 14)
    x, y = reduce_counts(x4), reduce_counts(y4)
    pair = PairData.of(x, y)
    shuffles = 40_000
    for two_sided in (True, False):
        counts = approximate_counts([pair], METRICS, shuffles, seed=11, two_sided=two_sided)[0]
        for metric, nge in zip(METRICS, counts, strict=True):
            exact = exact_pvalue(pair, metric, two_sided).p_value
            estimate = (nge + 1) / (shuffles + 1)
            # 5 binomial standard errors plus the +1 bias: fails by chance with p < 1e-6.
            tolerance = 5 * np.sqrt(max(exact * (1 - exact), 1e-4) / shuffles) + 2 / shuffles
            assert abs(estimate - exact) <= tolerance, (metric, two_sided, estimate, exact)


def test_counts_independent_of_chunks_and_threads():
    rng = np.random.default_rng(5)
    pairs = [PairData.of(*(reduce_counts(a) for a in random_pair(rng, 70))) for _ in range(3)]
    a = approximate_counts(pairs, METRICS, 5000, seed=2, threads=1, chunk=5000, compiled=True)
    b = approximate_counts(pairs, METRICS, 5000, seed=2, threads=2, chunk=333, compiled=True)
    c = approximate_counts(pairs[1:2], METRICS, 5000, seed=2)
    assert a.tolist() == b.tolist()
    assert a[1].tolist() == c[0].tolist()
    assert approximate_counts(pairs, METRICS, 5000, seed=3).tolist() != a.tolist()


def test_coins_are_fair_and_reproducible():
    c = coins(123, 0, 4000, 100)
    assert c.shape == (4000, 100)
    assert abs(c.mean() - 0.5) < 0.01
    assert np.array_equal(c[1000:2000], coins(123, 1000, 2000, 100))


def test_identical_systems_give_p_one():
    rng = np.random.default_rng(1)
    x, _ = random_pair(rng, 30)
    t = from_arrays(["A", "B"], [f"u{i}" for i in range(30)], np.stack([x, x]))
    for method in ("approximate", "exact"):
        result = compare(t,
                         settings=SignificanceSettings(
                             method=method, shuffles=999, seed=1, bootstrap=0))
        assert all(c.p_value == 1.0 for c in result.comparisons)
        assert result.groups == {m: [["A", "B"]] for m in METRICS}


def test_exchange_that_cannot_change_the_statistic_gives_p_one():
    # BRIEF §2: B equals A except one message where B scores 0/20 and A 15/20.
    a = np.tile([20, 20, 15, 0], (50, 1))
    b = a.copy()
    b[17] = [20, 20, 0, 0]
    t = from_arrays(["A", "B"], [f"m{i:02d}" for i in range(50)], np.stack([a, b]))
    for method in ("approximate", "exact"):
        result = compare(t,
                         settings=SignificanceSettings(
                             method=method, shuffles=9999, seed=4, bootstrap=0, classic=False))
        for c in result.comparisons:
            assert c.difference > 0
            assert c.p_value == 1.0, (method, c.metric)


def test_swapping_systems_keeps_two_sided_p():
    rng = np.random.default_rng(8)
    x, y = random_pair(rng, 40)
    units = [f"u{i}" for i in range(40)]
    ab = compare(from_arrays(["A", "B"], units, np.stack([x, y])),
                 settings=SignificanceSettings(seed=9, bootstrap=0))
    ba = compare(from_arrays(["B", "A"], units, np.stack([y, x])),
                 settings=SignificanceSettings(seed=9, bootstrap=0))
    ex_ab = compare(from_arrays(["A", "B"], units, np.stack([x, y])),
                    settings=SignificanceSettings(method="exact", bootstrap=0))
    ex_ba = compare(from_arrays(["B", "A"], units, np.stack([y, x])),
                    settings=SignificanceSettings(method="exact", bootstrap=0))
    for metric in METRICS:
        assert ab.comparison("A", "B", metric).p_value == ba.comparison("A", "B", metric).p_value
        assert ex_ab.comparison("A", "B", metric).p_value == pytest.approx(
            ex_ba.comparison("A", "B", metric).p_value, abs=1e-12
        )


def test_response_level_recall_matches_sign_test():
    # Response-level units (POS 1, each response correct or not): the exact
    # randomization test of recall is the two-sided sign test.
    rng = np.random.default_rng(12)
    n = 300
    a_cor = rng.random(n) < 0.55
    b_cor = rng.random(n) < 0.45
    ones = np.ones(n, dtype=np.int64)
    a = np.stack([ones, ones, a_cor.astype(np.int64), 0 * ones], axis=1)
    b = np.stack([ones, ones, b_cor.astype(np.int64), 0 * ones], axis=1)
    t = from_arrays(["A", "B"], [f"r{i}" for i in range(n)], np.stack([a, b]))
    result = compare(t, metrics=["recall"],
                     settings=SignificanceSettings(method="exact", bootstrap=0))
    c = result.comparison("A", "B", "recall")
    wins = int((a_cor & ~b_cor).sum())
    losses = int((~a_cor & b_cor).sum())
    sign = stats.binomtest(wins, wins + losses, 0.5).pvalue
    assert c.p_value == pytest.approx(sign, rel=1e-9)
    assert c.classic.sign == pytest.approx(sign, rel=1e-9)


def test_pruning_reports_a_bound():
    rng = np.random.default_rng(2)
    n = 2000
    a = np.stack([np.ones(n), np.ones(n), rng.random(n) < 0.6, np.zeros(n)], 1).astype(int)
    b = np.stack([np.ones(n), np.ones(n), rng.random(n) < 0.5, np.zeros(n)], 1).astype(int)
    pair = PairData.of(reduce_counts(a), reduce_counts(b))
    exact = exact_pvalue(pair, "recall")
    pruned = exact_pvalue(pair, "recall", budget=1e-10)
    assert 0 < pruned.error_bound <= 1e-10
    assert exact.p_value - 1e-15 <= pruned.p_value <= exact.p_value + pruned.error_bound + 1e-15


def test_confidence_level_formula():
    assert confidence_level(0, 9999, 0.1) == pytest.approx(1.0)
    for nge in (500, 950, 1000, 1050, 3000):
        posterior = stats.beta(nge + 1, 9999 - nge + 1)
        significant = (nge + 1) / 10000 <= 0.1
        expected = posterior.cdf(0.1) if significant else posterior.sf(0.1)
        assert confidence_level(nge, 9999, 0.1) == pytest.approx(expected)
    # Closer to the cutoff, less confidence; more shuffles, more confidence.
    assert confidence_level(950, 9999, 0.1) < confidence_level(900, 9999, 0.1)
    assert confidence_level(9500, 99999, 0.1) > confidence_level(950, 9999, 0.1)


def test_adjustments():
    p = [0.01, 0.04, 0.03, 0.2]
    assert adjust_pvalues(p, "none") == p
    assert adjust_pvalues(p, "holm") == pytest.approx([0.04, 0.09, 0.09, 0.2])
    assert adjust_pvalues([-0.1, -0.0, 0.2], "holm") == [0.0, 0.0, 0.2]  # no value below 0
    assert adjust_pvalues(p, "bh") == pytest.approx(stats.false_discovery_control(p))
    with pytest.raises(UsageError):
        adjust_pvalues(p, "bonferroni")


def _step_down(p: list[float], method: str) -> list[float]:
    """Holm's step-down and Benjamini-Hochberg's step-up, one p-value after the other."""
    n, order = len(p), sorted(range(len(p)), key=lambda i: p[i])
    adjusted = [0.0] * n
    running = 0.0 if method == "holm" else 1.0
    for rank in range(n) if method == "holm" else range(n - 1, -1, -1):
        i = order[rank]
        if method == "holm":
            running = max(running, min(1.0, (n - rank) * p[i]))
            adjusted[i] = running
        else:
            running = min(running, n * p[i] / (rank + 1))
            adjusted[i] = min(1.0, running)
    return adjusted


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.floats(0.0, 1.0), st.sampled_from([0.0, 1.0, 0.05, 0.01])),
                max_size=12), st.sampled_from(["holm", "bh"]))
def test_adjustments_equal_their_definition_bit_for_bit(p: list[float], method: str) -> None:
    got, expected = adjust_pvalues(p, method), _step_down(p, method)
    assert [x.hex() for x in got] == [x.hex() for x in expected]


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 7).flatmap(lambda n: st.tuples(
    st.just(n), st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))))))
def test_letter_groups_share_a_letter_exactly_when_not_different(case):
    from muceval.significance.groups import letter_groups

    n, pairs = case
    order = [f"S{i}" for i in range(n)]
    apart = {frozenset((order[a], order[b])) for a, b in pairs if a != b}
    groups = letter_groups(order, lambda x, y: frozenset((x, y)) in apart)
    for i, a in enumerate(order):
        assert any(a in g for g in groups)
        for b in order[i + 1:]:
            together = any(a in g and b in g for g in groups)
            assert together == (frozenset((a, b)) not in apart), (a, b)
    sets = [set(g) for g in groups]
    assert not any(x < y for x in sets for y in sets)  # maximal: none inside another


def test_groupings_and_letters():
    diff = {frozenset(p) for p in [("A", "C"), ("A", "D"), ("B", "D")]}
    order = ["A", "B", "C", "D"]
    runs = groupings(order, lambda x, y: frozenset((x, y)) in diff)
    assert runs == [["A", "B"], ["B", "C"], ["C", "D"]]
    assert letter_display(order, runs) == {"A": "a", "B": "ab", "C": "bc", "D": "c"}
    assert groupings(order, lambda x, y: False) == [order]
    assert groupings(order, lambda x, y: True) == [[s] for s in order]


def test_classic_tests_against_scipy():
    rng = np.random.default_rng(4)
    a, b = random_pair(rng, 60)
    for metric in ("recall", "precision", "f1"):
        for alternative in ("two-sided", "one-sided"):
            c = classic_tests(a, b, metric, alternative)
            ra, rb = reduce_counts(a), reduce_counts(b)
            from muceval.significance.kernels import METRIC_COEFS, metric_values

            al, ga, _ = METRIC_COEFS[metric]
            keep = (al * ra[:, 0] + ga * ra[:, 1] > 0) & (al * rb[:, 0] + ga * rb[:, 1] > 0)
            va, vb = metric_values(ra[keep], metric), metric_values(rb[keep], metric)
            obs = metric_value(*ra.sum(0), metric) - metric_value(*rb.sum(0), metric)
            alt = "two-sided" if alternative == "two-sided" else ("greater" if obs >= 0 else "less")
            d = va - vb
            nz = d[d != 0]
            assert c.units == keep.sum()
            assert c.sign == pytest.approx(
                stats.binomtest(int((nz > 0).sum()), len(nz), 0.5, alternative=alt).pvalue
            )
            assert c.wilcoxon == pytest.approx(
                stats.wilcoxon(nz, alternative=alt, method="approx").pvalue
            )
            assert c.paired_t == pytest.approx(stats.ttest_rel(va, vb, alternative=alt).pvalue)
            assert c.two_sample_t == pytest.approx(stats.ttest_ind(va, vb, alternative=alt).pvalue)
            assert c.correlation == pytest.approx(stats.pearsonr(va, vb)[0])
            if metric == "f1":
                assert c.chi2 is None and c.binomial is None
            else:
                col = 0 if metric == "recall" else 1
                na, nb = ra[:, 2].sum() / 2, rb[:, 2].sum() / 2
                table = [[na, ra[:, col].sum() - na], [nb, rb[:, col].sum() - nb]]
                expected = stats.chi2_contingency(table, correction=False).pvalue
                assert c.chi2 == pytest.approx(expected)
                # The two-proportion z test: z² is that χ² statistic, one tail halves p.
                assert c.binomial == pytest.approx(expected / (1 if alt == "two-sided" else 2))


def test_compare_outputs_and_options():
    rng = np.random.default_rng(6)
    x, y = random_pair(rng, 25)
    z = np.minimum(x, x)  # a third system: copy of x
    units = [f"u{i}" for i in range(25)]
    t = from_arrays(["A", "B", "C"], units, np.stack([x, y, z]))
    r = compare(t, metrics="recall,f2",
                settings=SignificanceSettings(seed=5, bootstrap=200, adjust="holm"))
    data = r.to_dict()
    assert set(data) >= {"systems", "comparisons", "groups"}
    assert set(data["systems"]) == {"A", "B", "C"}
    first = data["comparisons"][0]
    for key in ("a", "b", "metric", "difference", "p_value", "method", "shuffles", "confidence"):
        assert key in first
    assert len(data["comparisons"]) == 3 * 2
    assert r.settings["seed"] == 5
    ac = r.comparison("A", "C", "recall")
    assert ac.p_value == 1.0 and ac.ci == (0.0, 0.0)
    lo, hi = r.system_ci["A"]["f2"]
    assert lo <= r.scores["A"]["f2"] <= hi
    ab = r.comparison("A", "B", "f2")
    assert ab.ci[0] <= ab.difference <= ab.ci[1]
    assert ab.p_adjusted >= ab.p_value
    assert r.to_csv().splitlines()[0].startswith("metric,a,b,")
    assert len(r.to_csv().splitlines()) == 7
    again = compare(t, metrics="recall,f2",
                    settings=SignificanceSettings(seed=5, bootstrap=200, adjust="holm"))
    assert again.to_json() == r.to_json()
    auto = compare(t, metrics=["recall"],
                   settings=SignificanceSettings(method="auto", seed=5, bootstrap=0))
    assert {c.method for c in auto.comparisons} == {"exact"}  # 25 units: exact is cheap
    with pytest.raises(UsageError):
        parse_metrics("recall,bogus")
    with pytest.raises(UsageError):
        compare(t, settings=SignificanceSettings(method="magic"))
    with pytest.raises(UsageError):
        compare(t.select(["A"]))


def test_official_tst3_f_measures(muc4):
    t = from_reports(sorted((muc4 / "tst3" / "official-scores").iterdir()))
    totals = reduce_counts(t.counts).sum(axis=1)
    f1 = {s: metric_value(*totals[i], "f1") for i, s in enumerate(t.systems)}
    names = [f"{s}.tst3-pass1" for s in ("GE", "GE-CMU", "UMASS")]
    assert [f"{100 * f1[s]:.2f}" for s in names] == ["56.01", "51.98", "51.61"]


def test_official_tst3_exact_and_approximate_agree(muc4):
    t = from_reports(sorted((muc4 / "tst3" / "official-scores").iterdir()))
    t = t.select([f"{s}.tst3-pass1" for s in ("GE", "GE-CMU", "UMASS", "NYU")])
    exact = compare(t, metrics=["recall", "precision"],
                    settings=SignificanceSettings(method="exact", bootstrap=0, classic=False))
    approx = compare(t, metrics=["recall", "precision"],
                     settings=SignificanceSettings(
                         shuffles=20000, seed=1, bootstrap=0, classic=False))
    for a, b in itertools.combinations(t.systems, 2):
        for metric in ("recall", "precision"):
            pe = exact.comparison(a, b, metric).p_value
            pa = approx.comparison(a, b, metric).p_value
            assert abs(pa - pe) <= 5 * np.sqrt(max(pe * (1 - pe), 1e-4) / 20000) + 2e-4


def test_pair_intervals_compiled_at_the_default_level():
    # The case every report takes (95 %, 1,000 samples), on the compiled path for certain.
    from muceval.significance.bootstrap import _pair_intervals_numpy, pair_intervals

    values = np.round(np.random.default_rng(2).random((5, 12, 1000)), 2)
    pairs = [(a, b) for a in range(12) for b in range(a + 1, 12)]
    compiled = pair_intervals(values, pairs, 0.025, 0.975, compiled=True)
    assert np.array_equal(compiled, _pair_intervals_numpy(values, np.array(pairs), 0.025, 0.975))


def test_pair_intervals_where_the_sampled_threshold_is_too_low():
    # The tails' threshold comes from every 8th difference: differences smallest exactly
    # there leave too few at or below it (the full insertion runs), many ties leave all.
    from muceval.significance.bootstrap import pair_intervals

    s = np.arange(1000, dtype=np.float64)
    spaced = np.where(s % 8 == 0, s, 1e6 + s)
    values = np.stack([np.stack([spaced, np.zeros(1000), np.round(spaced / 1e6)])] * 2)
    pairs = [(a, b) for a in range(3) for b in range(3) if a != b]
    for lo, hi in ((0.025, 0.975), (0.05, 0.95), (0.0, 1.0)):
        got = pair_intervals(values, pairs, lo, hi, compiled=True)
        want = np.stack([np.quantile(values[:, a] - values[:, b], [lo, hi], axis=1).T
                         for a, b in pairs])
        assert np.array_equal(got, want)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 300), st.integers(2, 6), st.floats(0.0, 0.5), st.integers(0, 3))
def test_pair_intervals_equal_numpy_quantiles(samples, systems, half, seed):
    # The compiled tail selection must give np.quantile's linear interpolation bit for bit,
    # ties included (rounded values), at any level.
    from muceval.significance.bootstrap import pair_intervals

    rng = np.random.default_rng(seed)
    values = np.round(rng.random((3, systems, samples)), 1 + seed % 3)
    pairs = [(a, b) for a in range(systems) for b in range(systems) if a != b]
    lo, hi = half, 1 - half
    got = pair_intervals(values, pairs, lo, hi, compiled=True)
    want = np.stack([np.quantile(values[:, a] - values[:, b], [lo, hi], axis=1).T
                     for a, b in pairs])
    assert np.array_equal(got, want)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 7), st.data())
def test_letter_groups_are_the_maximal_cliques_of_non_differences(n, data):
    from muceval.significance.groups import letter_groups

    order = [f"S{i}" for i in range(n)]
    pairs = [(a, b) for i, a in enumerate(order) for b in order[i + 1:]]
    apart = {frozenset(p) for p in pairs if data.draw(st.booleans())}

    def different(a, b):
        return frozenset((a, b)) in apart

    def clique(group):
        return all(not different(a, b) for i, a in enumerate(group) for b in group[i + 1:])

    subsets = [list(c) for r in range(1, n + 1) for c in itertools.combinations(order, r)]
    cliques = [c for c in subsets if clique(c)]
    maximal = [c for c in cliques if not any(set(c) < set(d) for d in cliques)]
    got = letter_groups(order, different)
    assert sorted(got) == sorted(maximal)
    assert got == sorted(got, key=lambda g: [order.index(m) for m in g])


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 9), st.data())
def test_groups_from_a_matrix_are_those_from_the_pairs(n, data):
    """Issue 30: group_letters reads a matrix of decisions with NumPy (bit masks and the last
    difference before each system); the groups, letters and letter groups are those of the
    pairs read one by one."""
    from muceval.significance.groups import group_letters

    names = [f"S{i}" for i in range(n)]
    apart = np.zeros((n, n), dtype=bool)
    for i in range(n):
        for j in range(i + 1, n):
            apart[i, j] = apart[j, i] = data.draw(st.booleans())
    scores = {s: {"f1": data.draw(st.sampled_from([0.1, 0.2, 0.3]))} for s in names}
    pairs = {frozenset((names[i], names[j])) for i in range(n) for j in range(n) if apart[i, j]}
    result = group_letters(names, ["f1"], scores, {"f1": apart})
    assert result == group_letters(names, ["f1"], scores, {"f1": pairs}) == \
        group_letters(names, ["f1"], scores, {"f1": apart.astype(np.int64)})
    # Both inputs now go through one matrix path: the runs are checked against their definition.
    order = sorted(names, key=lambda s: (-scores[s]["f1"], s))
    assert result[0]["f1"] == groupings_by_definition(order, pairs)


def test_json_keeps_one_comparison_per_line_whatever_the_names():
    # The writer splits the C encoder's output at '}, {"a": ': names holding that text
    # (or quotes, braces, newlines) must not move a boundary.
    import json

    names = ['x}, {"a": y', 'b\n"q"', '{"a": 1}']
    rng = np.random.default_rng(1)
    counts = rng.integers(0, 5, (3, 6, 4))
    counts[..., 2] = np.minimum(counts[..., 2], np.minimum(counts[..., 0], counts[..., 1]))
    counts[..., 3] = 0
    result = compare(from_arrays(names, [f"u{i}" for i in range(6)], counts),
                     settings=SignificanceSettings(bootstrap=10, seed=1))
    text = result.to_json()
    assert json.loads(text) == json.loads(json.dumps(result.to_dict()))
    rows = [line for line in text.splitlines() if line.startswith('    {"a": ')]
    assert len(rows) == len(result.comparisons)
    assert all(json.loads(line.rstrip(",")) for line in rows)


def test_tst3_counts_identical_to_the_recorded_run(muc4):
    # Recorded before the matrix-product kernel replaced the lookup tables: a faster kernel
    # must not change a single published p-value.
    import json
    from pathlib import Path

    recorded = json.loads((Path(__file__).parent / "data" / "significance"
                           / "tst3-seed1-nge.json").read_text())
    tallies = from_reports(sorted((muc4 / "tst3" / "official-scores").glob("*.nrad")))
    assert list(tallies.systems) == recorded["systems"]
    result = compare(tallies,
                     settings=SignificanceSettings(
                         shuffles=recorded["shuffles"], seed=recorded["seed"], bootstrap=0, classic=False))
    got = {f"{c.a}|{c.b}|{c.metric}": c.nge for c in result.comparisons}
    assert got == recorded["nge"]


@pytest.mark.parametrize("method, adjust, bootstrap", [("approximate", "none", 200),
                                                       ("auto", "holm", 0),
                                                       ("exact", "bh", 50)])
def test_streamed_comparisons_equal_the_objects(method, adjust, bootstrap):
    # Blocks of 4 pairs over 15 pairs: the table, groups and letters are compare()'s.
    import csv
    import io

    from muceval.significance.settings import SignificanceSettings
    from muceval.significance.stream import compare_streamed

    rng = np.random.default_rng(4)
    systems = [random_pair(rng, 9)[0] for _ in range(6)]
    tallies = from_arrays([f"S{i}" for i in range(6)], [f"u{j}" for j in range(9)],
                          np.stack(systems))
    settings = SignificanceSettings(method=method, shuffles=499, seed=5, adjust=adjust,
                                    bootstrap=bootstrap, alpha=0.2)
    whole = compare(tallies, ["recall", "f1"], settings)
    summary, rows = compare_streamed(tallies, ["recall", "f1"], settings, block=4)
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    assert buffer.getvalue() == whole.to_csv()
    assert summary.groups == whole.groups and summary.letters == whole.letters
    assert summary.letter_groups == whole.letter_groups
    assert summary.system_ci == whole.system_ci and summary.settings == whole.settings
    assert summary.comparisons == ()
    _, again = compare_streamed(tallies, ["recall", "f1"], settings, block=4)
    assert "".join(again.csv_text()) == whole.to_csv()


def test_a_comparison_asked_the_other_way_round_is_mirrored():
    t = from_arrays(["A", "B"], ["m1", "m2", "m3"],
                    [[[2, 2, 2, 0], [2, 2, 1, 0], [3, 3, 3, 0]],
                     [[2, 2, 1, 0], [2, 2, 0, 0], [3, 3, 2, 0]]])
    result = compare(t, metrics=["recall"], settings=SignificanceSettings(seed=1, shuffles=199))
    ab = result.comparison("A", "B", "recall")
    ba = result.comparison("B", "A", "recall")
    assert (ab.a, ab.b, ba.a, ba.b) == ("A", "B", "B", "A")
    assert ab.difference > 0 and ba.difference == -ab.difference
    assert (ba.value_a, ba.value_b) == (ab.value_b, ab.value_a)
    assert ba.ci == (-ab.ci[1], -ab.ci[0])
    assert (ba.p_value, ba.p_adjusted, ba.significant) == (ab.p_value, ab.p_adjusted,
                                                          ab.significant)
    with pytest.raises(KeyError):
        result.comparison("A", "C", "recall")


@pytest.mark.parametrize("field,value,fragment", [
    ("method", "bogus", "method='bogus'"), ("alternative", "less", "alternative='less'"),
    ("adjust", "bonferroni", "adjust='bonferroni'"), ("alpha", 0.0, "alpha=0.0"),
    ("confidence", 1.0, "confidence=1.0"), ("ci_level", 2, "ci_level=2"),
    ("shuffles", 0, "shuffles=0"), ("shuffles", 9.5, "shuffles=9.5"),
    ("seed", -1, "seed=-1"), ("bootstrap", -5, "bootstrap=-5"),
    ("exact_budget", 1.0, "exact_budget=1.0"),
])
def test_settings_are_checked_when_made_and_name_the_parameter(field, value, fragment):
    with pytest.raises(ValueError, match="SignificanceSettings") as caught:
        SignificanceSettings(**{field: value})
    assert fragment in str(caught.value) and isinstance(caught.value, UsageError)
    assert caught.value.parameter == field


def test_too_many_letter_groups_fall_back_to_the_muc4_groupings(monkeypatch):
    """Issue 30: the maximal sets of non-different systems explode in a large leaderboard
    (over 5 million at 1,000 systems); beyond a budget the letters are those of the runs of
    neighbours, and the result says so instead of running out of memory."""
    import numpy as np

    from muceval.significance import groups

    n = 60
    names = [f"S{i:02d}" for i in range(n)]
    rng = np.random.default_rng(1)
    apart = np.zeros((n, n), dtype=bool)
    for i in range(n):
        for j in range(i + 1, n):
            apart[i, j] = apart[j, i] = abs(i - j) > 12 or rng.random() < 0.5
    scores = {s: {"f1": 1 - i / n} for i, s in enumerate(names)}
    full = groups.letter_groups(names, lambda a, b: bool(apart[names.index(a),
                                                               names.index(b)]))
    monkeypatch.setattr(groups, "MAX_LETTER_GROUPS", len(full) - 1)
    runs, letters, cld = groups.group_letters(names, ["f1"], scores, {"f1": apart})
    assert cld["f1"] is runs["f1"] and set(letters["f1"]) == set(names)
    for group in cld["f1"]:  # still: systems sharing a letter never differ
        for a in group:
            for b in group:
                assert not apart[names.index(a), names.index(b)]


def test_average_ranks_are_scipys_rankdata():
    """The Wilcoxon ranks without scipy.stats (half a second of every JSON run): equal to
    scipy.stats.rankdata on rows with ties and the infinities that mark dropped units."""
    import numpy as np
    from scipy import stats

    from muceval.significance.classic import _average_ranks

    rng = np.random.default_rng(0)
    for _ in range(200):
        values = rng.integers(0, 6, (int(rng.integers(1, 6)), int(rng.integers(1, 30))))
        values = values.astype(float)
        values[rng.random(values.shape) < 0.2] = np.inf
        assert np.array_equal(_average_ranks(values), stats.rankdata(values, axis=1))


def _many_systems(systems: int, units: int) -> object:
    rng = np.random.default_rng(5)
    pos = rng.integers(1, 6, size=units)
    counts = np.stack([np.stack([pos, pos, rng.binomial(pos, 0.2 + 0.005 * s),
                                 np.zeros(units, dtype=np.int64)], 1) for s in range(systems)])
    return from_arrays([f"S{s}" for s in range(systems)], [f"u{j}" for j in range(units)],
                       counts)


def test_a_failure_beside_the_shuffles_stops_them(monkeypatch):
    """The classic tests run on the caller's thread while the kernels shuffle on theirs:
    when they fail, the error is raised and the shuffling stops at its first batch (its
    progress never reported) instead of running to the end first."""
    import muceval.significance.engine as engine

    def failing(*args, **kwargs):
        raise RuntimeError("the classic tests failed")

    monkeypatch.setattr(engine, "classic_columns", failing)
    reported: list[int] = []
    tallies = _many_systems(90, 20)  # 4,005 pairs: two batches of 9,999 shuffles
    with pytest.raises(RuntimeError, match="classic tests failed"):
        compare(tallies, ["f1"], SignificanceSettings(shuffles=9999, seed=1, bootstrap=0),
                progress=lambda done, total: reported.append(done))
    assert reported == []


def test_a_failure_on_the_shuffling_thread_reaches_the_caller():
    def failing(done: int, total: int) -> None:
        raise KeyError("progress failed")

    with pytest.raises(KeyError, match="progress failed"):
        compare(_many_systems(3, 5), ["f1"], SignificanceSettings(shuffles=99, seed=1),
                progress=failing)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.integers(0, 5), st.integers(0, 99))
def test_the_units_a_pair_differs_on_are_those_of_its_data(systems, units, seed):
    from muceval.significance.engine import SystemPairs

    rng = np.random.default_rng(seed)
    reduced = rng.integers(0, 2, size=(systems, units, 3))
    pairs = SystemPairs(reduced)
    assert pairs.differing_units().tolist() == [len(p.diffs) for p in pairs]


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6), st.integers(0, 5), st.integers(0, 99))
def test_pairs_built_many_at_a_time_are_those_built_one_by_one(systems, units, seed):
    from muceval.significance.kernels import PairData, differing_units, pair_data

    rng = np.random.default_rng(seed)
    reduced = rng.integers(0, 3, size=(systems, units, 3))
    first = rng.integers(0, systems, size=7)
    second = rng.integers(0, systems, size=7)
    built = pair_data(reduced, first, second)
    for k, pair in enumerate(built):
        one = PairData.of(reduced[first[k]], reduced[second[k]])
        assert pair.diffs.tolist() == one.diffs.tolist()
        assert pair.total_x.tolist() == one.total_x.tolist()
        assert pair.total_y.tolist() == one.total_y.tolist()
    assert differing_units(reduced, first, second).tolist() == [len(p.diffs) for p in built]


def test_parallel_kernels_take_turns_under_the_workqueue_layer():
    """numba's workqueue threading layer (no TBB, no OpenMP) ends the process when two threads
    launch parallel kernels at once: muceval's launches take turns."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent("""
        import threading
        import numpy as np
        from muceval.significance.bootstrap import pair_intervals
        from muceval.significance.kernels import approximate_counts, pair_data

        values = np.random.default_rng(1).random((5, 120, 1000))
        pairs = [(a, b) for a in range(120) for b in range(a + 1, 120)]
        first, second = np.array(pairs).T
        data = pair_data(np.random.default_rng(2).integers(0, 4, size=(120, 60, 3)), first,
                         second)

        def tails():
            for _ in range(4):
                pair_intervals(values, pairs, 0.025, 0.975, compiled=True)

        def shuffles():
            approximate_counts(data, ("recall", "f1"), 999, seed=1, compiled=True)
            tails()

        threads = [threading.Thread(target=tails), threading.Thread(target=shuffles)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        import numba
        print(numba.threading_layer())
    """)
    env = {**os.environ, "NUMBA_THREADING_LAYER": "workqueue", "NUMBA_NUM_THREADS": "2"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-1] == "workqueue"


def test_streamed_pairs_are_read_once():
    from muceval.significance.stream import compare_streamed

    _, rows = compare_streamed(_many_systems(3, 4), ["f1"], SignificanceSettings(seed=1))
    next(rows)
    with pytest.raises(RuntimeError, match="read already"):
        next(rows.csv_text())
    _, text = compare_streamed(_many_systems(3, 4), ["f1"], SignificanceSettings(seed=1))
    assert "".join(text.csv_text()).startswith("metric,a,b,")
    with pytest.raises(RuntimeError, match="CSV text already"):
        next(text)
