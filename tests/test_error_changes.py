"""Which changes in error counts are real (issue 28): the paired randomization over documents,
against enumeration, and `muceval errors --compare`."""

from __future__ import annotations

import itertools
import json

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from muceval.cli import main
from muceval.significance.counts import paired_count_tests
from muceval.significance.settings import SignificanceSettings

counts = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=1, max_size=9)


@settings(max_examples=60, deadline=None)
@given(counts)
def test_the_exact_test_is_the_enumeration_of_every_exchange(rows):
    first = np.array([[a] for a, _ in rows])
    second = np.array([[b] for _, b in rows])
    (found,) = paired_count_tests(first, second, SignificanceSettings(seed=1))
    observed = abs(int((second - first).sum()))
    extreme = 0
    for swap in itertools.product((False, True), repeat=len(rows)):
        x = np.where(np.array(swap)[:, None], second, first)
        y = np.where(np.array(swap)[:, None], first, second)
        extreme += abs(int((y - x).sum())) >= observed
    assert found.method == "exact" and found.p_value == extreme / 2 ** len(rows)
    assert (found.first, found.second) == (int(first.sum()), int(second.sum()))


def test_many_differing_documents_are_drawn_with_the_seed():
    rng = np.random.default_rng(3)
    first, second = rng.integers(0, 5, (80, 2)), rng.integers(0, 5, (80, 2))
    one = paired_count_tests(first, second, SignificanceSettings(seed=5, shuffles=999))
    two = paired_count_tests(first, second, SignificanceSettings(seed=5, shuffles=999))
    assert one == two and all(t.method == "approximate" for t in one)
    assert all(0 < t.p_value <= 1 for t in one)


def test_errors_compare_gives_each_category_its_p_value(modern, capsys):
    gold = str(modern / "gtt" / "test.json")
    preds = [str(modern / "iterx" / f"preds.{e}.test.jsonlines") for e in ("bart-base",
                                                                           "t5-large-enc")]
    assert main(["errors", "--key", gold, *preds, "--compare", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["format"] == "muceval-error-changes" and doc["settings"]["seed"] == 1
    changes = {c["category"]: c for c in doc["changes"]}
    assert len(changes) == 16 and {c["candidate"] for c in doc["changes"]} == {
        "preds.t5-large-enc.test"}
    spurious = changes["Spurious_Template"]
    assert spurious["difference"] == spurious["candidate_count"] - spurious["baseline_count"]
    assert 0 < spurious["p_value"] <= 1


def test_compare_takes_the_error_categories_too(capsys):
    """Issue 28: `compare --errors` shows, per category, the change and its p-value, for 1992
    templates (scored by the 1992 scorer) as for modern files; without --key it is refused."""
    from muceval.reporting.demo import example_files

    example = example_files()
    args = ["compare", "--key", str(example.key), "--config", str(example.config),
            str(example.responses[0]), str(example.responses[1]), "--errors"]
    assert main([*args, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["comparisons"] and len(doc["error_changes"]) == 17
    assert {c["candidate"] for c in doc["error_changes"]} == {doc["candidates"][0]}
    assert main(args) == 0
    assert "against" in capsys.readouterr().out
    assert main(["compare", str(example.responses[0]), str(example.responses[1]),
                 "--errors"]) == 2
