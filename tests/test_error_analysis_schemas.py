"""Das et al.'s error analysis under any template schema: the categories per role of the
schema (MUC-4's five in the original's order, another closed schema's in its order, open roles
as the gold and then the predictions name them), FAMuS's prompt files as the key, and MUC-4
unmoved by ``--schema muc4``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from muceval.cli import main
from muceval.core.modern import ModernTemplate
from muceval.errors import InputError, UsageError
from muceval.formats.modern import read_modern
from muceval.formats.modern.embedded import prompt_document, read_texts
from muceval.pipelines.errors import analyse_errors as analyse_pipeline
from muceval.reporting.errors_section import error_section
from muceval.scoring.errors import DAS_ROLES, ErrorAnalysis, analyse_error_files
from muceval.scoring.errors.model import error_roles
from muceval.scoring.errors.spans import NOT_FOUND, SpanFinder
from muceval.scoring.modern.files import read_predictions
from muceval.significance.settings import SignificanceSettings

REPORT_GOLD = "data/prompts/report/dev.json"
SOURCE_GOLD = "data/prompts/source/dev.json"
CHATGPT = "models/cdae/chatgpt/dev_report_gpt-3.5-turbo-0301_responses.jsonl"

KITCHEN = """[schema]
name = "kitchen-errors"
type_field = "event"
roles = ["Dish", "Cook", "Place"]
"""
"""A closed schema whose role order is neither alphabetical nor the files' key order."""

GOLD = [
    {"docid": "K1", "doctext": "Anna baked bread in the kitchen while Ben made soup.",
     "templates": [
         {"event": "Baking", "Cook": [[["Anna", 0]]], "Dish": [[["bread", 11]]],
          "Place": [[["kitchen", 24]]]},
         {"event": "Cooking", "Cook": [[["Ben", 38]]], "Dish": [[["soup", 47]]]}]},
    {"docid": "K2", "doctext": "Dora served tea in the garden.",
     "templates": [{"event": "Serving", "Cook": [[["Dora", 0]]],
                    "Place": [[["garden", 23]]]}]},
]
PREDICTED = [
    {"K1": [{"event": "Baking", "Cook": [["Anna"]], "Dish": [["bread"], ["kitchen"]]},
            {"event": "Cooking", "Cook": [["Ben"], ["Anna"]], "Dish": [["made soup"]]},
            {"event": "Frying", "Cook": [["Carl"]]}]},
    {"K2": []},
]


def _kitchen(tmp_path: Path) -> tuple[Path, Path, Path]:
    schema = tmp_path / "kitchen.toml"
    schema.write_text(KITCHEN)
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps(d) + "\n" for d in GOLD))
    pred = tmp_path / "pred.jsonlines"
    pred.write_text("".join(json.dumps(d) + "\n" for d in PREDICTED))
    return schema, gold, pred


def _nonzero(analysis: ErrorAnalysis, row: str) -> dict[str, int]:
    counts = analysis.systems[0].before_totals.row(row)
    return {c: counts.category(c) for c in analysis.options.categories if counts.category(c)}


def test_a_closed_schema_is_counted_per_role_in_its_order(tmp_path: Path) -> None:
    """The categories of a small invented schema, counted by hand.

    K1, text "Anna baked bread in the kitchen while Ben made soup." (the analysis finds each
    mention at its first occurrence in the text lower-cased, articles and punctuation gone):

    - Baking ↔ Baking. Dish: "bread" exact (num 1); "kitchen" pairs with nothing in Dish,
      and its own gold template has it as Place: Within_Template_Incorrect_Role (and
      General_Spurious_Role_Filler). Place: gold "kitchen" left over: Missing_Role_Filler,
      cancelled by that role error (cancelled 1, the category stays 0). Cook: "Anna" exact.
      Score: Dish 1 (the spurious filler) + Place 1 (the missing one).
    - Cooking ↔ Cooking. Cook: "Ben" exact; "Anna" is in the other gold template's Cook:
      Wrong_Template_For_Role_Filler (and General_Spurious_Role_Filler). Dish: "made soup"
      against "soup": spans of 8 and 4 letters sharing 4, SCS 1 - 3²/(7·3) = 4/7 < 1, a
      partial pair: Span_Error, p_den and r_den 1, num 0. Score 4/7 + 1.
    - Frying has no gold template: Spurious_Template (incident_type) and one
      Spurious_Template_Role_Filler (Cook). Score 1 + 1.

    K2: no prediction for Serving: Missing_Template and Missing_Template_Role_Filler for Cook
    ("Dora") and Place ("garden"). Score 1 + 2.

    Denominators (docs/error-analysis.md, Identities): p_den = 3 predicted templates + 7
    predicted mentions = 10; r_den = 3 gold templates + 7 gold entities = 10; num = 2 pairs
    of equal type + 3 exact fillers = 5.
    """
    schema, gold, pred = _kitchen(tmp_path)
    analysis = analyse_error_files(gold, [pred], schema=schema)
    assert analysis.roles == ("Dish", "Cook", "Place")
    assert analysis.rows == ("total", "incident_type", "Dish", "Cook", "Place")
    totals = analysis.systems[0].before_totals
    assert [(r.num, r.p_den, r.r_den) for r in totals.rows] == [
        (5, 10, 10), (2, 3, 3), (1, 3, 2), (2, 4, 3), (0, 0, 2)]
    assert _nonzero(analysis, "incident_type") == {"Spurious_Template": 1,
                                                   "Missing_Template": 1}
    assert _nonzero(analysis, "Dish") == {"Span_Error": 1, "General_Spurious_Role_Filler": 1,
                                          "Within_Template_Incorrect_Role": 1}
    assert _nonzero(analysis, "Cook") == {"General_Spurious_Role_Filler": 1,
                                          "Wrong_Template_For_Role_Filler": 1,
                                          "Spurious_Template_Role_Filler": 1,
                                          "Missing_Template_Role_Filler": 1}
    assert _nonzero(analysis, "Place") == {"Missing_Template_Role_Filler": 1}
    assert totals.row("Place").cancelled == 1
    assert totals.error_score == pytest.approx(2 + (4 / 7 + 1) + 2 + 3)
    assert analysis.settings["schema"] == "kitchen-errors"
    assert [d.alignment for d in analysis.systems[0].documents] == [
        ((0, 0), (1, 1), (2, None)), ((None, 0),)]

    data = json.loads(analysis.to_json())
    assert data["rows"] == list(analysis.rows)
    assert list(data["systems"][0]["documents"][0]["before"]["rows"]) == list(analysis.rows)
    lines = analysis.to_csv().splitlines()
    assert [line.split(",")[3] for line in lines[1:6]] == list(analysis.rows)


def test_a_closed_schema_runs_from_the_command_line_and_repairs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--schema FILE``: the table has the schema's roles; the repair pass keeps edits named
    by the schema's roles (the role error moves "kitchen" from Dish to Place)."""
    schema, gold, pred = _kitchen(tmp_path)
    assert main(["errors", "--key", str(gold), "--schema", str(schema), str(pred)]) == 0
    table = capsys.readouterr().out
    assert "│ Dish " in table and "│ Place " in table and "PerpInd" not in table
    assert main(["errors", "--key", str(gold), "--schema", str(schema), str(pred),
                 "--after-repair", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    kept = data["systems"][0]["documents"][0]["transformations"]
    assert {"names": ["Alter_Role"], "role": "Dish", "mention": "kitchen", "value": "kitchen",
            "target_role": "Place", "entry": 0} in kept
    after = data["systems"][0]["after"]["rows"]
    assert after["total"]["f1"] == 1.0
    # Without the schema, the key's layout says MUC-4, whose roles these templates lack.
    assert main(["errors", "--key", str(gold), str(pred)]) != 0
    assert "unknown role" in capsys.readouterr().err


def test_error_roles_is_the_one_rule_of_the_order() -> None:
    famus_gold = [ModernTemplate("Hiring", ((), ()), ("Employer", "Time")),
                  ModernTemplate("Hiring", ((), ()), ("Place", "Employer"))]
    famus_pred = [ModernTemplate("Hiring", ((), ()), ("Salary", "Time"))]
    assert error_roles("muc4") == DAS_ROLES
    assert error_roles("famus", famus_gold, famus_pred) == ("Employer", "Time", "Place",
                                                            "Salary")
    assert error_roles("famus", famus_pred, famus_gold) == ("Salary", "Time", "Employer",
                                                            "Place")
    with pytest.raises(UsageError, match="'total'"):
        error_roles("famus", [ModernTemplate("X", ((),), ("total",))])


# FAMuS: the prompt files as the key, raw answers as predictions.


@pytest.fixture(scope="module")
def chatgpt(famus: Path) -> ErrorAnalysis:
    return analyse_error_files(famus / REPORT_GOLD, [famus / CHATGPT])


def test_famus_prompts_give_the_document_of_each_prompt(famus: Path) -> None:
    """The report prompts' document, without the trigger's marks, holds every gold string
    (897 of 897; six run across ``<event>`` marks); the source prompts give the source
    document, not the report that precedes it in the same message."""
    gold = read_modern(famus / REPORT_GOLD)
    texts = read_texts(famus / REPORT_GOLD)
    assert set(texts) == {d.docid for d in gold.documents}
    absent = [(d.docid, m) for d in gold.documents for t in d.templates or ()
              for _, entities in t.named_roles() for e in entities for m in e
              if SpanFinder(texts[d.docid])(m) == NOT_FOUND]
    assert absent == []
    assert all("<event>" not in text for text in texts.values())
    sources = read_texts(famus / SOURCE_GOLD)
    first = "EN-4363-3-frame-Abandonment"
    assert sources[first].strip().startswith("FORTUNATE SON")
    assert texts[first].strip().startswith("In the liner notes")
    with pytest.raises(InputError, match="no document in the prompt"):
        prompt_document([{"role": "user", "content": "no document here"}])


def test_famus_errors_from_the_command_line(famus: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """`muceval errors --key` FAMuS's report prompts and ChatGPT's raw answers: one row per
    role of the frames (the key's schema, famus, read from its layout)."""
    assert main(["errors", "--key", str(famus / REPORT_GOLD), str(famus / CHATGPT),
                 "--format", "json"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert "4 answer(s) are no JSON object" in captured.err
    rows = data["rows"]
    assert rows[:2] == ["total", "incident_type"]
    assert {"Agent", "Time", "Place", "Victim"} <= set(rows)
    assert "PerpInd" not in rows
    assert data["settings"]["schema"] == "famus" and data["settings"]["parse"] == "strict"
    assert main(["errors", "--key", str(famus / REPORT_GOLD), str(famus / CHATGPT)]) == 0
    table = capsys.readouterr().out
    assert "│ Agent " in table and "per row, 1/" in table


def test_open_roles_are_those_of_the_gold_then_of_the_predictions(
        famus: Path, chatgpt: ErrorAnalysis) -> None:
    gold = read_modern(famus / REPORT_GOLD)
    pred = read_predictions(famus / CHATGPT, gold)
    expected = dict.fromkeys(r for f in (gold, pred) for d in f.documents
                             for t in d.templates or () for r in t.role_names)
    assert chatgpt.roles == tuple(expected)
    # A role ChatGPT invented is counted (as spurious fillers), after every gold role.
    assert chatgpt.roles[-1] == "Improvement_or_decline"
    assert chatgpt.systems[0].before_totals.row("Improvement_or_decline").p_den == 1


def test_famus_denominators_count_the_mentions_per_role(famus: Path,
                                                        chatgpt: ErrorAnalysis) -> None:
    """docs/error-analysis.md, Identities: p_den = predicted templates + predicted mentions,
    r_den = gold templates + gold entities, per role too (each filler is counted in its
    role's row whatever its category). FAMuS's strings are one mention each, so the role rows
    hold exactly the strings of each role (897 gold strings, as FAMuS's scorer counts them)."""
    gold = read_modern(famus / REPORT_GOLD)
    pred = read_predictions(famus / CHATGPT, gold)
    totals = chatgpt.systems[0].before_totals

    def strings(file_roles: list[tuple[str, int]], role: str) -> int:
        return sum(n for r, n in file_roles if r == role)

    gold_roles = [(r, len(e)) for d in gold.documents for t in d.templates or ()
                  for r, e in t.named_roles()]
    pred_roles = [(r, sum(len(x) for x in e)) for d in pred.documents
                  for t in d.templates or () for r, e in t.named_roles()]
    for role in chatgpt.roles:
        row = totals.row(role)
        assert (row.p_den, row.r_den) == (strings(pred_roles, role), strings(gold_roles, role))
    kind = totals.row("incident_type")
    assert kind.r_den == len(gold.documents) == 253
    assert kind.p_den == sum(len(d.templates or ()) for d in pred.documents)
    assert totals.total.r_den - kind.r_den == 897


def test_the_famus_gold_read_as_predictions_has_no_error_but_its_empty_instances(
        famus: Path, tmp_path: Path) -> None:
    """FAMuS's gold given as predictions (FAMuS's conversion: roles without fillers dropped, an
    instance without any filler has no template) finds each of its strings in its own place:
    every filler exact, nothing spurious or missing; the only errors are the Missing_Template
    of the gold instances without any filler (two in the report dev set), which cost 1 each."""
    copy = tmp_path / "report-gold-as-predictions.json"
    shutil.copyfile(famus / REPORT_GOLD, copy)
    analysis = analyse_error_files(famus / REPORT_GOLD, [copy])
    gold = read_modern(famus / REPORT_GOLD)
    empty = sum(1 for d in gold.documents for t in d.templates or ()
                if not any(t.roles))
    assert empty == 2
    totals = analysis.systems[0].before_totals
    assert totals.total.num == totals.total.p_den == totals.total.r_den - empty
    for name, row in zip(totals.names, totals.rows, strict=True):
        expected = {"Missing_Template": empty} if name in ("total", "incident_type") else {}
        assert {c: row.category(c) for c in analysis.options.categories
                if row.category(c)} == expected
    assert totals.error_score_text == str(empty)


def test_the_report_section_lays_open_roles_down_the_page(chatgpt: ErrorAnalysis) -> None:
    section = error_section(chatgpt, [chatgpt.systems[0].system], "F1",
                            SignificanceSettings(seed=1, shuffles=99))
    (view,) = section.view({})["roles"]
    assert view["transposed"] and [line["row"] for line in view["lines"]] == list(chatgpt.rows)
    agent = next(line for line in view["lines"] if line["row"] == "Agent")
    row = chatgpt.systems[0].before_totals.row("Agent")
    assert agent["counts"] == [row.category(c) for c in chatgpt.options.categories]


# MUC-4: unmoved.


def test_schema_muc4_given_gives_byte_identical_output(modern: Path, tmp_path: Path) -> None:
    gold = str(modern / "gtt" / "test.json")
    preds = [str(modern / "iterx" / "preds.bart-base.test.jsonlines"),
             str(modern / "gtt" / "preds_gtt.out")]
    runs = {"table": [], "json": ["--after-repair"], "csv": ["--canonical-order"]}
    for fmt, extra in runs.items():
        plain, given = tmp_path / f"plain.{fmt}", tmp_path / f"given.{fmt}"
        base = ["errors", "--key", gold, *preds, *extra, "--format", fmt]
        assert main([*base, "-o", str(plain)]) == 0
        assert main([*base, "--schema", "muc4", "-o", str(given)]) == 0
        assert plain.read_bytes() == given.read_bytes()
    data = json.loads((tmp_path / "given.json").read_text())
    assert data["rows"] == ["total", "incident_type", *DAS_ROLES]
    assert "schema" not in data["settings"]
    embedded = str(modern / "gtt" / "preds_gtt.out")
    assert main(["errors", "--key", "embedded", embedded, "-o", str(tmp_path / "e1")]) == 0
    assert main(["errors", "--key", "embedded", embedded, "--schema", "muc4",
                 "-o", str(tmp_path / "e2")]) == 0
    assert (tmp_path / "e1").read_bytes() == (tmp_path / "e2").read_bytes()


def test_schemas_are_refused_where_they_cannot_apply(
        modern: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    embedded = str(modern / "gtt" / "preds_gtt.out")
    assert main(["errors", "--key", "embedded", embedded, "--schema", "famus"]) == 2
    assert "hold muc4 templates" in capsys.readouterr().err
    from importlib.resources import files

    example = files("muceval") / "data" / "example"
    with pytest.raises(UsageError, match="1992 templates"):
        analyse_pipeline(str(example / "key.txt"), [str(example / "alpha.txt")],
                         config=str(example / "config.toml"), schema="famus")
    assert main(["errors", "--key", str(example / "key.txt"), str(example / "alpha.txt"),
                 "--config", str(example / "config.toml"), "--schema", "muc4"]) == 2
    # GTT's prediction layout holds MUC-4 templates only: against another schema's key,
    # refused rather than counted on roles it does not have.
    schema, gold, _ = _kitchen(tmp_path)
    with pytest.raises(InputError, match="predictions of schema muc4 against a gold of "
                       "schema kitchen-errors"):
        analyse_error_files(gold, [embedded], schema=schema)
