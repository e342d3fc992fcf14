"""The registry of scorers (muceval.scoring.scorers): a new scorer is one register() call."""

from __future__ import annotations

import pytest

from muceval.core.modern import ModernDocument, ModernFile, ModernTemplate
from muceval.errors import UsageError
from muceval.scoring.modern import DocumentCounts, ModernOptions, score_modern
from muceval.scoring.modern.counts import Counts
from muceval.scoring.scorers import SCORERS, ScorerSpec, modern_scorers, register


def toy_documents(golds, preds, options):
    """One point per gold document that has a prediction: a scorer in a few lines."""
    return [DocumentCounts(docid, Counts(int(docid in preds), 1, int(docid in preds), 1))
            for docid in golds]


@pytest.fixture()
def toy():
    spec = ScorerSpec("toy", "a test scorer", options=frozenset({"ignore_empty_docs"}),
                      needs_templates=False, implementation=f"{__name__}:toy_documents")
    register(spec)
    try:
        yield spec
    finally:
        del SCORERS["toy"]


def _file(path: str, gold: bool, docids: list[str]) -> ModernFile:
    template = ModernTemplate("attack", ((("x",),), (), (), (), ()))
    layout = "gtt-gold" if gold else "gtt-pred"
    return ModernFile(path, layout, tuple(ModernDocument(d, (template,)) for d in docids))


def test_the_builtin_scorers_in_the_order_the_command_line_lists_them():
    assert list(SCORERS) == ["1992", "gtt", "ceaf-ree", "ceaf-rme"]
    assert modern_scorers() == ("gtt", "ceaf-ree", "ceaf-rme")


def test_a_registered_scorer_scores_and_checks_its_options(toy):
    assert modern_scorers()[-1] == "toy"
    gold = _file("gold.json", True, ["TST3-MUC4-0001", "TST3-MUC4-0002"])
    pred = _file("pred.out", False, ["TST3-MUC4-0001"])
    scores = score_modern(gold, pred, ModernOptions("toy"), "mine")
    assert scores.overall == Counts(1, 2, 1, 2) and scores.options.reproduces == "a test scorer"
    assert ModernOptions("toy", ignore_empty_docs=True).ignore_empty_docs
    with pytest.raises(UsageError, match="phi: goes with ceaf-ree, ceaf-rme"):
        ModernOptions("toy", phi="strict")
    with pytest.raises(UsageError, match="event_n: goes with gtt"):
        ModernOptions("toy", event_n="2")
    with pytest.raises(UsageError, match="ignore_empty_docs: goes with ceaf-rme, toy"):
        ModernOptions("gtt", ignore_empty_docs=True)


@pytest.mark.parametrize("spec,parameter", [
    (ScorerSpec("gtt", "again", implementation="m:f"), "name"),
    (ScorerSpec("all", "a keyword", implementation="m:f"), "name"),
])
def test_a_name_is_registered_once(spec, parameter):
    with pytest.raises(UsageError) as caught:
        register(spec)
    assert caught.value.parameter == parameter


@pytest.mark.parametrize("fields,parameter", [
    ({"options": frozenset({"beam"}), "implementation": "m:f"}, "options"),
    ({}, "implementation"),
])
def test_a_spec_is_checked_when_made(fields, parameter):
    with pytest.raises(UsageError) as caught:
        ScorerSpec("new", "something", **fields)
    assert caught.value.parameter == parameter
