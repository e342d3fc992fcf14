"""IterX's CEAF-RME, document by document, against IterX's own released per-document scores.

``../shared/modern/iterx/comparisons/<encoder>/test.rme.{subset,phi3}.txt`` hold, for the
predictions ``iterx/preds.<encoder>.test.jsonlines`` against GTT's ``gtt/test.json``, one line
per document: ``doc_id``, ``#pred`` and ``#gold`` (templates scored), and P, R and F1 to four
decimals. ``ceaf-rme`` must print the same line for every document of every encoder: with
phi ``subset`` as such, and with phi 3 in its ``phi3-entities`` variant (recall denominator
in gold entities, as those files count it; IterX's code counts gold mentions, ``phi3``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from muceval.core.modern import ROLES, ModernFile, ModernTemplate
from muceval.formats.modern import read_modern
from muceval.scoring.modern import ModernOptions, ModernScores, score_modern
from muceval.scoring.modern.ceaf import rme_document, rme_gold

ENCODERS = ("bart-base", "bart-large", "bert-base", "t5-large-enc")
_LINE = re.compile(r"doc_id=(\S+)\t#pred=(\d+)\t#gold=(\d+)\tprec=(\S+)\trec=(\S+)\tf1=(\S+)")

Row = tuple[int, int, str, str, str]
"""What IterX prints of a document: #pred, #gold, precision, recall, F1 (``{:.4f}``)."""


def iterx_rows(path: Path) -> dict[str, Row]:
    """The per-document lines of one of IterX's comparison files."""
    rows: dict[str, Row] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        m = _LINE.fullmatch(line)
        if m is not None:
            rows[m[1]] = (int(m[2]), int(m[3]), m[4], m[5], m[6])
    return rows


def muceval_rows(scores: ModernScores, gold: ModernFile, pred: ModernFile) -> dict[str, Row]:
    """The same lines from muceval's per-document counts (#pred: predicted templates with an
    entity; #gold: gold templates as :func:`rme_gold` reads them)."""
    golds, preds = gold.by_id(), pred.by_id()
    rows: dict[str, Row] = {}
    for document in scores.documents:
        c = document.overall
        g = golds[document.docid].templates or () if document.docid in golds else ()
        p = preds[document.docid].templates or () if document.docid in preds else ()
        rows[document.docid] = (sum(1 for t in p if any(t.roles)), len(rme_gold(g)),
                                f"{c.precision:.4f}", f"{c.recall:.4f}", f"{c.f1:.4f}")
    return rows


def _score(modern: Path, encoder: str, phi: str) -> tuple[dict[str, Row], dict[str, Row]]:
    gold = read_modern(modern / "gtt" / "test.json")
    pred = read_modern(modern / "iterx" / f"preds.{encoder}.test.jsonlines")
    scores = score_modern(gold, pred, ModernOptions("ceaf-rme", phi=phi), encoder)
    name = "subset" if phi == "subset" else "phi3"
    expected = iterx_rows(modern / "iterx" / "comparisons" / encoder / f"test.rme.{name}.txt")
    return muceval_rows(scores, gold, pred), expected


@pytest.mark.parametrize("phi", ["subset", "phi3-entities"])
@pytest.mark.parametrize("encoder", ENCODERS)
def test_ceaf_rme_agrees_with_iterx_on_every_document(modern: Path, encoder: str,
                                                      phi: str) -> None:
    mine, expected = _score(modern, encoder, phi)
    assert len(expected) == 200
    differing = {d: (expected.get(d), row) for d, row in mine.items() if expected.get(d) != row}
    assert not differing, f"{len(differing)} of {len(mine)} documents differ: {differing}"
    assert set(mine) == set(expected)


@pytest.mark.parametrize("encoder", ENCODERS)
def test_phi3_counts_gold_mentions_where_the_released_files_count_entities(
        modern: Path, encoder: str) -> None:
    # IterX's code divides phi-3 recall by gold mentions (every copy of a split template);
    # its released files by gold entities. Precision is the same in both, on every document.
    mine, expected = _score(modern, encoder, "phi3")
    assert all(mine[d][2] == expected[d][2] for d in expected)
    assert sum(mine[d][3] != expected[d][3] for d in expected) > 50


def test_the_gold_is_read_as_gtt_reads_it(modern: Path) -> None:
    """GTT's test.json holds 209 templates (MODERN-FORMATS.md says 208), 201 once exact
    duplicates are dropped; 6 of these have no entity, which IterX does not score (its
    #gold says 0 for TST3-MUC4-0001, whose one template is empty). 611 entities, 980
    mentions."""
    gold = read_modern(modern / "gtt" / "test.json")
    distinct = [list(dict.fromkeys(d.templates or ())) for d in gold.documents]
    kept = [rme_gold(d.templates or ()) for d in gold.documents]
    assert sum(len(d.templates or ()) for d in gold.documents) == 209
    assert sum(map(len, distinct)) == 201
    assert sum(map(len, kept)) == 201 - 6
    entities = [e for k in kept for t in k for es in t.roles for e in es]
    assert (len(entities), sum(len(e) for e in entities)) == (611, 980)


def _template(kind: str, **roles: list[list[str]]) -> ModernTemplate:
    return ModernTemplate(kind, tuple(tuple(tuple(e) for e in roles.get(r, [])) for r in ROLES))


def test_a_predicted_entity_credits_one_gold_entity() -> None:
    # Two gold entities share "bomb": the predicted "bomb" credits the first one only, so
    # recall counts one gold entity, not two (IterX's TST4-MUC4-0019 shows it).
    gold = [_template("bombing", Weapon=[["powerful bomb", "bomb"], ["bomb"]])]
    counts = rme_document([_template("bombing", Weapon=[["bomb"]])], gold, "subset")
    assert (counts.p_num, counts.p_den, counts.r_num, counts.r_den) == (1, 1, 1, 2)
    # Its first mention found in the gold decides: "x" (second gold entity), not "bomb".
    counts = rme_document([_template("bombing", Weapon=[["x", "bomb"]])],
                          [_template("bombing", Weapon=[["bomb"], ["x"]])], "subset")
    assert (counts.p_num, counts.r_num) == (1, 1)


def test_repeated_and_empty_gold_templates_are_not_scored() -> None:
    gold = [_template("attack", Victim=[["x"]]), _template("attack", Victim=[["x"]]),
            _template("arson")]
    pred = [_template("attack", Victim=[["x"]]), _template("attack", Victim=[["x"]])]
    counts = rme_document(pred, gold, "subset")
    # One gold template is left: one of the two (repeated) predictions aligns with it.
    assert (counts.p_num, counts.p_den, counts.r_num, counts.r_den) == (1, 2, 1, 1)


def test_a_split_gold_template_keeps_the_copy_of_the_largest_row_sum() -> None:
    # "attack / bombing" becomes an attack row (scores 1, 0) and a bombing row (0, 2). The
    # bombing copy has the larger row sum and is kept, though the first assignment may have
    # used the attack copy: the attack prediction is then left without a partner.
    gold = [_template("attack / bombing", Victim=[["x"], ["y"], ["z"]]),
            _template("bombing", Victim=[["y"], ["z"]])]
    pred = [_template("attack", Victim=[["x"]]), _template("bombing", Victim=[["y"], ["z"]])]
    counts = rme_document(pred, gold, "subset")
    assert (counts.p_num, counts.p_den, counts.r_num, counts.r_den) == (2, 3, 2, 5)


def test_ignoring_documents_without_templates_is_iterxs_rule() -> None:
    # IterX's --ignore-no-template-doc (iterx_muc.get_metric: `len(gold) == 0`, on the gold as
    # read_gold_templates keeps it) leaves out a document whose gold lists no template; a
    # document whose only template has no entity stays, and its predicted entities count in
    # the precision denominator (muceval left it out: one predicted entity fewer than IterX).
    from muceval.core.modern import ModernDocument, ModernFile, ModernTemplate
    from muceval.scoring.modern import ModernOptions, score_modern

    empty_template = ModernTemplate("attack", ((),) * 5)
    predicted = ModernTemplate("attack", ((("army",),), (), (), (), ()))
    gold = ModernFile("gold", "gtt-gold", (
        ModernDocument("TST3-MUC4-0001", (empty_template,)),  # a template, no entity
        ModernDocument("TST3-MUC4-0002", ())))  # no template
    pred = ModernFile("pred", "iterx-pred", (
        ModernDocument("TST3-MUC4-0001", (predicted,)),
        ModernDocument("TST3-MUC4-0002", (predicted,))))
    for phi in ("subset", "phi3"):
        kept = score_modern(gold, pred, ModernOptions("ceaf-rme", phi, ignore_empty_docs=True))
        assert [d.docid for d in kept.documents] == ["TST3-MUC4-0001"]
        assert (kept.overall.p_den, kept.overall.r_den) == (1, 0)
        every = score_modern(gold, pred, ModernOptions("ceaf-rme", phi))
        assert every.overall.p_den == 2
