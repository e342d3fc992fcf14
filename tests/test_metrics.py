"""Tests of the 1992 integer measures and the floating-point measures (SCORER-SPEC §9)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from muceval.core.metrics import (
    FloatScores,
    Scores,
    f_measure,
    f_measures_1992,
    fallout,
    format_f,
    overgeneration,
    pct,
    precision,
    recall,
    round_f_1992,
    scores,
    text_filtering_scores,
)
from muceval.core.tallies import Tally, TextFiltering


def _pct_reference(a: int, b: int, d: int) -> int:
    """Independent statement of §9.1: truncate (a + b/2)/d to a tenth of a percent, then
    round half to even (Python's round() of a Fraction is round-half-even)."""
    permil = math.floor(Fraction(100 * (2 * a + b), 2 * d) * 10)
    return round(Fraction(permil, 10))


@pytest.mark.parametrize(
    ("a", "b", "d", "expected"),
    [
        (60, 3, 232, 26),  # BBN perp-total: exact 26.51 %, printed 26 (§9.1)
        (1, 0, 8, 12),  # 12.5 -> even 12
        (3, 0, 8, 38),  # 37.5 -> even 38
        (1, 0, 3, 33),
        (2, 0, 3, 67),
        (0, 1, 1, 50),
        (1, 0, 1, 100),
        (5, 0, 3, 167),  # more than 100 % (FAL may exceed it)
        (0, 0, 7, 0),
    ],
)
def test_pct_examples(a, b, d, expected):
    assert pct(a, b, d) == expected


def test_pct_undefined_on_zero_denominator():
    assert pct(0, 0, 0) is None
    assert pct(3, 1, 0) is None


@given(st.integers(0, 3000), st.integers(0, 3000), st.integers(1, 5000))
def test_pct_matches_independent_statement(a, b, d):
    assert pct(a, b, d) == _pct_reference(a, b, d)


@given(st.integers(0, 3000), st.integers(0, 3000), st.integers(1, 5000))
def test_pct_within_one_of_exact_percentage(a, b, d):
    exact = Fraction(100 * (2 * a + b), 2 * d)
    assert abs(pct(a, b, d) - exact) <= 1


def test_scores_of_tally_all_four_measures():
    t = Tally(pos=232, act=160, cor=60, par=3, inc=21, spu=76, pie=40)
    assert scores(t) == Scores(rec=26, pre=38, ovg=48, fal=pct(97, 0, 40))
    assert scores(t).fal == 242  # 242.5 %: not capped at 100, tie to even
    empty = scores(Tally())
    assert empty == Scores(None, None, None, None)


@pytest.mark.parametrize(
    ("rec", "pre", "expected"),
    [
        (29, 43, (34.64, 39.21, 31.02)),  # BBN TST3 official summary line
        (100, 100, (100.0, 100.0, 100.0)),
        (0, 43, (0.0, 0.0, 0.0)),
        (43, 0, (0.0, 0.0, 0.0)),
    ],
)
def test_f_measures_1992(rec, pre, expected):
    assert f_measures_1992(rec, pre) == expected


def test_f_measures_not_available():
    assert f_measures_1992(None, 10) is None
    assert f_measures_1992(10, None) is None


def test_round_f_1992_ties_go_to_even_hundredth():
    assert round_f_1992(12.345) in (12.34, 12.35)  # binary noise decides; no crash
    assert round_f_1992(0.125) == 0.12  # exact tie, 12 even
    assert round_f_1992(0.375) == 0.38  # exact tie, 37 odd
    assert round_f_1992(34.6389) == 34.64
    assert round_f_1992(34.6349) == 34.63


@pytest.mark.parametrize(
    ("value", "text"),
    [(24.0, "24.0"), (9.6, "9.6"), (35.68, "35.68"), (0.0, "0"), (100.0, "100.0"), (0.05, "0.05")],
)
def test_format_f(value, text):
    assert format_f(value) == text


def test_float_measures():
    t = Tally(pos=8, act=5, cor=2, par=2, inc=1, spu=0, mis=3, pie=10)
    assert recall(t) == 3 / 8
    assert precision(t) == 3 / 5
    assert overgeneration(t) == 0.0
    assert fallout(t) == 0.1
    assert recall(Tally()) is None and precision(Tally()) is None
    assert overgeneration(Tally()) is None and fallout(Tally()) is None


def test_f_measure_weights():
    p, r = 0.6, 0.3
    assert f_measure(p, r) == pytest.approx(2 * p * r / (p + r))
    # beta < 1 weights precision more: closer to P
    assert f_measure(p, r, 0.5) == pytest.approx(1.25 * p * r / (0.25 * p + r))
    assert f_measure(p, r, 0.5) > f_measure(p, r, 1.0) > f_measure(p, r, 2.0)
    assert f_measure(0.0, 0.0) == 0.0
    assert f_measure(None, 0.5) is None


@given(
    st.floats(0.01, 1.0),
    st.floats(0.01, 1.0),
    st.sampled_from([0.5, 1.0, 2.0]),
)
def test_f_measure_between_precision_and_recall(p, r, beta):
    f = f_measure(p, r, beta)
    assert min(p, r) - 1e-12 <= f <= max(p, r) + 1e-12


@given(st.integers(1, 200), st.integers(1, 200))
def test_float_f_agrees_with_1992_f_when_percentages_are_whole(rec, pre):
    """On whole-number percentages the 1992 value is the float F rounded to 2 decimals."""
    rec, pre = min(rec, 100), min(pre, 100)
    for value, beta in zip(f_measures_1992(rec, pre), (1.0, 0.5, 2.0), strict=True):
        exact = 100 * f_measure(pre / 100, rec / 100, beta)
        assert abs(value - exact) <= 0.005 + 1e-9


def test_float_scores_bundle():
    fs = FloatScores.of(Tally(pos=4, act=2, cor=2, spu=0))
    assert fs.recall == 0.5 and fs.precision == 1.0
    assert fs.f_pr == pytest.approx(2 / 3)
    assert fs.fallout is None


def test_text_filtering_scores_manual_sample():
    # The manual's sample row: TEXT FILTERING 13 10| 8 ...| 2 5 2| 62 80 20 50
    tf = TextFiltering(a=8, b=2, c=5, d=2)
    assert text_filtering_scores(tf) == Scores(62, 80, 20, 50)
    assert text_filtering_scores(TextFiltering(d=4)) == Scores(0, 0, 0, 0)
