"""The columnar comparisons of issue 30: a ComparisonTable reads, writes and finds exactly as
the tuple of Comparison objects it stands for."""

from __future__ import annotations

import json

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from muceval.core.units import from_arrays
from muceval.significance.engine import compare
from muceval.significance.ratios import RatioTallies, compare_ratios
from muceval.significance.result import SignificanceResult
from muceval.significance.settings import SignificanceSettings
from muceval.significance.table import ComparisonTable

NAMES = ['A "quoted"', "b%s%%", "c\\d", "é ∂", "x}, {\"a\": y"]


def _tallies(data, systems: int, units: int):
    counts = []
    for _ in range(systems):
        rows = []
        for _ in range(units):
            pos = data.draw(st.integers(0, 4))
            act = data.draw(st.integers(0, 4))
            cor = data.draw(st.integers(0, min(pos, act)))
            par = data.draw(st.integers(0, min(pos, act) - cor))
            rows.append([pos, act, cor, par])
        counts.append(rows)
    if systems > 2 and data.draw(st.booleans()):
        counts[1] = counts[0]  # two identical systems: p = 1, no unit differs
    return from_arrays(NAMES[:systems], [f"u{i}" for i in range(units)], counts)


def _as_objects(result: SignificanceResult) -> SignificanceResult:
    """The same result holding a tuple of Comparison objects (the generic writers)."""
    return SignificanceResult(result.systems, result.metrics, result.scores,
                              tuple(result.comparisons), result.groups, result.letters,
                              result.settings, result.system_ci, result.letter_groups)


def _same(result: SignificanceResult) -> None:
    assert isinstance(result.comparisons, ComparisonTable)
    objects = _as_objects(result)
    table = result.comparisons
    assert list(table) == [table[i] for i in range(len(table))] == list(objects.comparisons)
    assert table[-1] == table[len(table) - 1] and table[1:3] == list(objects.comparisons)[1:3]
    assert result.to_json() == objects.to_json()
    assert result.to_json(indent=None) == objects.to_json(indent=None)
    assert result.to_csv() == objects.to_csv()
    json.loads(result.to_json())
    for a in result.systems:
        for b in result.systems:
            if a != b:
                for metric in result.metrics:
                    assert result.comparison(a, b, metric) == objects.comparison(a, b, metric)


@settings(max_examples=60, deadline=None)
@given(st.data(), st.integers(2, 5), st.integers(1, 12),
       st.sampled_from(["exact", "approximate", "auto"]),
       st.sampled_from(["none", "holm", "bh"]), st.booleans(), st.booleans(), st.booleans())
def test_a_table_writes_what_its_comparisons_write(data, systems, units, method, adjust,
                                                   bootstrap, classic, unit_means):
    tallies = _tallies(data, systems, units)
    metrics = data.draw(st.lists(st.sampled_from(["recall", "precision", "f1", "f0.5", "f2"]),
                                 min_size=1, max_size=5, unique=True))
    chosen = SignificanceSettings(method=method, shuffles=99, seed=data.draw(st.integers(0, 9)),
                                  bootstrap=50 if bootstrap else 0, adjust=adjust,
                                  classic=classic, unit_means=unit_means,
                                  alternative=data.draw(st.sampled_from(["two-sided",
                                                                         "one-sided"])))
    _same(compare(tallies, metrics, chosen))


@settings(max_examples=30, deadline=None)
@given(st.data(), st.integers(2, 4), st.integers(1, 8))
def test_a_table_of_modern_counts_writes_what_its_comparisons_write(data, systems, units):
    tallies = _tallies(data, systems, units)
    ratio = RatioTallies(tallies.systems, tallies.units,
                         tallies.counts[..., [2, 1, 2, 0]].tolist())
    _same(compare_ratios(ratio, ["precision", "recall", "f1"],
                         SignificanceSettings(method="auto", shuffles=99, seed=1, bootstrap=20)))


def test_the_fields_are_declared_in_the_order_of_a_comparison():
    from dataclasses import fields

    from muceval.significance.comparison import CSV_HEADER, FIELDS, Comparison

    assert [f.name for f in FIELDS] == [f.name for f in fields(Comparison)]
    # The public CSV's columns, in order: the declaration's places must not move them.
    assert CSV_HEADER == (
        "metric", "a", "b", "value_a", "value_b", "difference", "p_value", "p_adjusted",
        "method", "shuffles", "confidence", "error_bound", "significant", "alternative",
        "units", "ci_low", "ci_high", "correlation", "sign", "wilcoxon", "paired_t",
        "two_sample_t", "chi2", "binomial")


def test_a_column_of_few_values_is_encoded_once_and_negative_zero_kept():
    from muceval.significance.table import _texts

    repeated = np.tile([0.5, 1e-05, 1e16, np.nan, 0.1 + 0.2], 40)
    assert _texts(repeated, "NaN", "Infinity") == [json.dumps(v) for v in repeated.tolist()]
    assert _texts(repeated, "null", "Infinity")[3] == "null"
    signed = np.tile([0.0, -0.0, 2.5], 40)
    assert _texts(signed, "NaN", "Infinity") == [json.dumps(v) for v in signed.tolist()]
    assert _texts(np.array([], dtype=float), "NaN", "Infinity") == []


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True) | st.floats(-1e-3, 1e-3)
                | st.integers(-2**60, 2**60).map(float), max_size=60),
       st.booleans())
def test_number_texts_are_what_json_writes(values, agree):
    """Every float, orjson's path or json's (as when the installed orjson disagrees with the
    probe): json.dumps's text, NaN as asked."""
    from muceval.core import jsontext

    array = np.array(values, dtype=np.float64)
    expected = [json.dumps(v) for v in values]
    before = jsontext._orjson_agrees
    try:
        if not agree:
            jsontext._orjson_agrees = lambda: False  # type: ignore[assignment]
        assert jsontext.number_texts(array) == expected
        assert jsontext.number_texts(array, nan="null") == [
            "null" if v != v else t for v, t in zip(values, expected, strict=True)]
        ints = np.array([int(v) for v in values if v == v and abs(v) < 2**62], dtype=np.int64)
        assert jsontext.number_texts(ints) == [json.dumps(v) for v in ints.tolist()]
        unsigned = np.array([0, 1, 2**63, 2**64 - 1], dtype=np.uint64)
        assert jsontext.number_texts(unsigned) == [json.dumps(v) for v in unsigned.tolist()]
    finally:
        jsontext._orjson_agrees = before


def test_the_installed_orjson_agrees_with_json():
    """If this fails, every number takes json's slower path: correct, but the installed
    orjson has changed how it writes floats."""
    from muceval.core.jsontext import _orjson_agrees

    assert _orjson_agrees()


@settings(max_examples=30, deadline=None)
@given(st.data(), st.integers(2, 5), st.integers(1, 6), st.integers(1, 4),
       st.sampled_from([", ", ",\n    "]))
def test_comparisons_joined_in_blocks_are_the_rows_joined(data, systems, units, block,
                                                          separator):
    tallies = _tallies(data, systems, units)
    chosen = SignificanceSettings(shuffles=99, seed=1, bootstrap=data.draw(st.sampled_from([0, 20])),
                                  classic=data.draw(st.booleans()))
    table = compare(tallies, ["recall", "f1"], chosen).comparisons
    assert isinstance(table, ComparisonTable)
    assert "".join(table.json_joined(separator, block)) == separator.join(
        json.dumps(c.to_dict()) for c in table)


@settings(max_examples=30, deadline=None)
@given(st.data(), st.integers(2, 5), st.integers(1, 6), st.integers(1, 4))
def test_csv_joined_in_blocks_is_what_the_csv_module_writes(data, systems, units, block):
    import csv
    import io

    tallies = _tallies(data, systems, units)
    chosen = SignificanceSettings(shuffles=99, seed=1, bootstrap=data.draw(st.sampled_from([0, 20])),
                                  classic=data.draw(st.booleans()),
                                  method=data.draw(st.sampled_from(["approximate", "exact"])))
    table = compare(tallies, ["recall", "f1"], chosen).comparisons
    assert isinstance(table, ComparisonTable)
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(table.csv_rows())
    assert "".join(table.csv_joined(block)) == buffer.getvalue()


def test_numbers_in_csv_are_what_str_writes():
    from muceval.significance.table import _csv_field, _texts

    values = np.array([np.inf, -np.inf, np.nan, 1e-05, 0.1, -0.0, 1e16] * 20)
    assert _texts(values, "nan", "inf") == [str(v) for v in values.tolist()]
    assert _texts(values, "", "inf")[2] == ""
    assert [_csv_field(t) for t in ["a", "a,b", 'say "x"', "two\nlines", ""]] == [
        "a", '"a,b"', '"say ""x"""', '"two\nlines"', ""]
