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


def _error_json(modern, tmp_path, names=("bart-base", "t5-large-enc", "bert-base")):
    gold = str(modern / "gtt" / "test.json")
    preds = [str(modern / "iterx" / f"preds.{n}.test.jsonlines") for n in names]
    out = tmp_path / "errors.json"
    assert main(["errors", "--key", gold, *preds, "--format", "json", "-o", str(out)]) == 0
    return out


def test_significance_errors_tests_every_pair_as_each_pair_alone(modern, tmp_path, capsys):
    """Issue 28: `significance --errors` tests every pair of systems per category; a pair's
    p-values are those of the pair tested alone, and --adjust holm adjusts over the pairs of
    each category."""
    from muceval.formats.error_counts import read_error_counts

    path = _error_json(modern, tmp_path)
    capsys.readouterr()
    assert main(["significance", str(path), "--errors", "--seed", "3", "--adjust", "holm",
                 "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["format"] == "muceval-error-changes" and doc["settings"]["pairs"] == "all"
    changes = doc["changes"]
    assert len(changes) == 3 * 16
    counts = read_error_counts([path])
    for c in changes:
        alone = paired_count_tests(counts.counts[c["baseline"]], counts.counts[c["candidate"]],
                                   SignificanceSettings(seed=3))
        test = alone[counts.categories.index(c["category"])]
        assert (c["p_value"], c["difference"]) == (test.p_value, test.difference)
        assert c["adjusted_p_value"] >= c["p_value"]
    assert main(["significance", str(path), "--errors", "--seed", "3"]) == 0
    assert "every test: --format json or csv" in " ".join(capsys.readouterr().out.split())


def test_significance_errors_refuses_what_does_not_apply(modern, tmp_path, capsys):
    path = _error_json(modern, tmp_path, ("bart-base", "bert-base"))
    capsys.readouterr()
    assert main(["significance", str(path), "--errors", "--metrics", "f1"]) == 2
    assert "--metrics does not apply to error counts" in capsys.readouterr().err
    assert main(["significance", str(path)]) == 2
    assert "significance --errors" in capsys.readouterr().err
    broken = tmp_path / "broken.json"
    broken.write_text(path.read_text().replace('"categories":{"Span_Error":',
                                               '"categories":{"Span_Error":-1,"Spam":'))
    assert main(["significance", str(broken), "--errors"]) == 2
    err = capsys.readouterr().err
    assert str(broken) in err and "not a whole number" in err


def test_the_exact_count_is_that_of_the_sign_vectors():
    """The exact test counts the distribution of the signed sum; it must equal the count over
    all 2^m sign vectors, ties on |sum| included."""
    rng = np.random.default_rng(7)
    for _ in range(40):
        d = rng.integers(-5, 6, rng.integers(1, 13))
        d = d[d != 0]
        if len(d) == 0:
            continue
        first, second = np.zeros((len(d), 1), dtype=int), d[:, None]
        first = np.where(second < 0, -second, 0)
        second = np.where(second > 0, second, 0)
        (found,) = paired_count_tests(first, second, SignificanceSettings(seed=1))
        signs = np.array(list(itertools.product((1, -1), repeat=len(d))))
        expected = np.count_nonzero(np.abs(signs @ d) >= abs(d.sum())) / 2 ** len(d)
        assert found.p_value == expected


def test_the_drawn_test_is_its_definition_column_by_column():
    """All columns share one coin matrix and one product: each must still get exactly the
    coins and count its definition gives (a column of m differing documents, the first m
    coins of each shuffle, (nge + 1) / (shuffles + 1))."""
    from muceval.significance.kernels import coins

    rng = np.random.default_rng(11)
    first, second = rng.integers(0, 4, (90, 5)), rng.integers(0, 4, (90, 5))
    second[:, 4] = first[:, 4]  # a column without any difference
    settings = SignificanceSettings(seed=4, shuffles=20_000)
    found = paired_count_tests(first, second, settings)
    for k, test in enumerate(found):
        d = (second[:, k] - first[:, k])
        d = d[d != 0]
        if len(d) <= 20:
            assert test.method == "exact"
            continue
        signs = 1 - 2 * coins(4, 0, 20_000, len(d)).astype(np.int64)
        nge = np.count_nonzero(np.abs(signs @ d) >= abs(d.sum()))
        assert test.p_value == (nge + 1) / 20_001 and test.method == "approximate"
    assert found[4].p_value == 1.0 and found[4].documents == 0


def test_a_malformed_error_analysis_is_refused_naming_the_file(modern, tmp_path, capsys):
    """Every shape a hand-edited file can take gives exit 2 and the file's name, never a
    traceback nor a document counted once where it is given twice."""
    doc = json.loads(_error_json(modern, tmp_path, ("bart-base", "bert-base")).read_text())
    capsys.readouterr()
    first = doc["systems"][0]["documents"]
    cases = {
        "before-is-text": lambda d: first[0].__setitem__("before", "x"),
        "rows-is-list": lambda d: first[0]["before"].__setitem__("rows", []),
        "docid-twice": lambda d: first.append(dict(first[0])),
        "no-docid": lambda d: first[0].pop("docid"),
        "documents-not-list": lambda d: d["systems"][1].__setitem__("documents", {}),
    }
    for label, spoil in cases.items():
        broken = json.loads(json.dumps(doc))
        first = broken["systems"][0]["documents"]
        spoil(broken)
        path = tmp_path / f"{label}.json"
        path.write_text(json.dumps(broken))
        assert main(["significance", str(path), "--errors"]) == 2, label
        err = capsys.readouterr().err
        assert str(path) in err and "Traceback" not in err, (label, err)


def test_error_analyses_of_different_documents_are_refused(modern, tmp_path, capsys):
    """A document one system lacks was tested as if it had no error at all: p-values changed
    with exit 0. Documents removed, added, or with a changed id are refused (or compared on
    the documents all share with --units intersection)."""
    doc = json.loads(_error_json(modern, tmp_path, ("bart-base", "bert-base")).read_text())
    capsys.readouterr()

    def written(label, spoil):
        broken = json.loads(json.dumps(doc))
        spoil(broken["systems"])
        path = tmp_path / f"{label}.json"
        path.write_text(json.dumps(broken))
        return path

    def drop_half(systems):
        documents = systems[1]["documents"]
        del documents[len(documents) // 2:]

    def rename(systems):
        systems[1]["documents"][0]["docid"] += " "

    for label, spoil in (("half", drop_half), ("renamed", rename)):
        path = written(label, spoil)
        assert main(["significance", str(path), "--errors"]) == 2, label
        err = capsys.readouterr().err
        assert "Traceback" not in err and str(path) in err

    # Each file consistent in itself (its totals made from what is left), the two systems in
    # two files: the documents differ between the systems.
    from muceval.errors import UsageError
    from muceval.formats.error_counts import read_error_counts

    one, two = (json.loads(json.dumps(doc)) for _ in range(2))
    one["systems"], two["systems"] = one["systems"][:1], two["systems"][1:]
    kept = two["systems"][0]
    kept["documents"] = kept["documents"][:-1]
    total = kept["before"]["rows"]["total"]["categories"]
    for category in total:
        total[category] = sum(d["before"]["rows"]["total"]["categories"][category]
                              for d in kept["documents"])
    paths = [tmp_path / "one.json", tmp_path / "two.json"]
    for path, part in zip(paths, (one, two), strict=True):
        path.write_text(json.dumps(part))
    assert main(["significance", *map(str, paths), "--errors"]) == 2
    err = capsys.readouterr().err
    assert "different documents" in err and any(str(p) in err for p in paths)
    import pytest

    with pytest.raises(UsageError):
        read_error_counts(paths)
    shared = read_error_counts(paths, units="intersection")
    assert len(shared.documents) == len(doc["systems"][0]["documents"]) - 1
    assert main(["significance", *map(str, paths), "--errors", "--units", "intersection"]) == 0
    # Nothing shared: nothing to test, not a run of no tests with exit 0.
    disjoint = json.loads(json.dumps(two))
    for document in disjoint["systems"][0]["documents"]:
        document["docid"] = "X-" + document["docid"]
    (tmp_path / "disjoint.json").write_text(json.dumps(disjoint))
    with pytest.raises(UsageError, match="share no document"):
        read_error_counts([paths[0], tmp_path / "disjoint.json"], units="intersection")


def test_error_counts_are_bounded_and_versioned(modern, tmp_path, capsys):
    """2**62 in three documents came out as a negative count, 10**30 as a traceback, and any
    format_version was read."""
    doc = json.loads(_error_json(modern, tmp_path, ("bart-base", "bert-base")).read_text())
    capsys.readouterr()
    for label, value in (("huge", 2**62), ("enormous", 10**30)):
        broken = json.loads(json.dumps(doc))
        for document in broken["systems"][0]["documents"][:3]:
            document["before"]["rows"]["total"]["categories"]["Span_Error"] = value
        path = tmp_path / f"{label}.json"
        path.write_text(json.dumps(broken))
        assert main(["significance", str(path), "--errors"]) == 2, label
        err = capsys.readouterr().err
        assert str(path) in err and "Traceback" not in err, err
    future = json.loads(json.dumps(doc))
    future["format_version"] = 99
    path = tmp_path / "future.json"
    path.write_text(json.dumps(future))
    assert main(["significance", str(path), "--errors"]) == 2
    assert "format_version 99" in capsys.readouterr().err


def test_significance_errors_shows_names_as_the_rest_of_the_terminal_does() -> None:
    # Names were cut to 12 characters whatever the width ("preds.bart…2", "preds.….test"):
    # names that matched no input. At 200 columns they are shown whole.
    from io import StringIO

    from rich.console import Console

    from muceval.reporting.terminal import render_error_pairs
    from muceval.significance.error_counts import ErrorChange

    names = ["preds.bart-base.test", "preds.bart-large.test", "preds_gtt"]
    changes = [ErrorChange(a, b, "Missing_Template", 9, 1, -8, 0.001, "exact", 8, 0.001)
               for a, b in itertools.combinations(names, 2)]
    out = StringIO()
    render_error_pairs(changes, Console(file=out, width=200), 0.05, 1)
    text = out.getvalue()
    assert all(name in text for name in names), text
    assert "…" not in text
