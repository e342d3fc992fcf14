"""muceval convert: the modern layouts and muceval's neutral JSON, and 1992 templates into them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from muceval.cli import main
from muceval.core.modern import ROLES
from muceval.errors import UsageError
from muceval.formats.config import load_configuration
from muceval.formats.modern import parse_modern, read_modern
from muceval.formats.modern.writer import from_templates, write_layout
from muceval.formats.muc.templates import parse_templates
from muceval.reporting.demo import example_dir
from muceval.scoring.modern import ModernOptions, score_modern
from muceval.scoring.scorers import modern_scorers


def _scores(gold, pred, metrics=None) -> dict[str, tuple]:
    out = {}
    for metric in metrics or modern_scorers():
        c = score_modern(gold, pred, ModernOptions(metric)).overall
        out[metric] = (c.p_num, c.p_den, c.r_num, c.r_den)
    return out


@pytest.mark.parametrize("name", ["gtt/preds_gtt.out", "iterx/preds.bart-large.test.jsonlines"])
def test_template_predictions_keep_their_scores_in_every_layout(modern: Path, name: str) -> None:
    gold = read_modern(modern / "gtt" / "test.json")
    original = read_modern(modern / name)
    expected = _scores(gold, original)
    for layout, read_as in (("muceval", "muceval-pred"), ("gtt-pred", "gtt-pred"),
                            ("iterx-pred", "iterx-pred")):
        converted = parse_modern(write_layout(original, layout), f"<{layout}>")
        assert converted.layout == read_as
        assert _scores(gold, converted) == expected, layout
    extracts = parse_modern(write_layout(original, "grit-pred"), "<grit>")
    assert _scores(gold, extracts, ("ceaf-ree",)) == {"ceaf-ree": expected["ceaf-ree"]}


def test_gold_files_keep_their_scores(modern: Path) -> None:
    gold = read_modern(modern / "gtt" / "test.json")
    pred = read_modern(modern / "gtt" / "preds_gtt.out")
    expected = _scores(gold, pred)
    for layout in ("gtt-gold", "muceval"):
        again = parse_modern(write_layout(gold, layout), f"<{layout}>")
        assert again.gold and _scores(again, pred) == expected, layout
    grit = read_modern(modern / "grit" / "test.json")
    grit_pred = read_modern(modern / "grit" / "preds_s_t.out")
    before = _scores(grit, grit_pred, ("ceaf-ree",))
    for layout in ("grit-gold", "muceval"):
        again = parse_modern(write_layout(grit, layout), f"<{layout}>")
        assert _scores(again, grit_pred, ("ceaf-ree",)) == before


def test_1992_templates_become_roles() -> None:
    config = load_configuration(example_dir() / "config.toml")
    text = """0.  MESSAGE: ID                     DEMO-0001
1.  MESSAGE: TEMPLATE               1
2.  INCIDENT: DATE                  03 MAR 24
3.  INCIDENT: LOCATION              VERIDIA
4.  INCIDENT: TYPE                  BOMBING
5.  INCIDENT: STAGE OF EXECUTION    ACCOMPLISHED
6.  PERP: INDIVIDUAL ID             "TWO MEN ON A MOTORCYCLE" / "TWO MEN"
7.  PERP: ORGANIZATION ID           "RED DAWN FRONT"
8.  PERP: ORGANIZATION CONFIDENCE   CLAIMED OR ADMITTED: "RED DAWN FRONT"
9.  PHYS TGT: ID                    "OFFICE"
10. PHYS TGT: TYPE                  GOVERNMENT OFFICE: "OFFICE"
11. HUM TGT: NAME                   "JUAN PEREZ"
12. HUM TGT: DESCRIPTION            "NIGHT WATCHMAN": "JUAN PEREZ"
                                    "PASSER-BY"
13. HUM TGT: TYPE                   CIVILIAN: "JUAN PEREZ"
14. HUM TGT: NUMBER                 1: "JUAN PEREZ"
15. HUM TGT: EFFECT OF INCIDENT     INJURY: "JUAN PEREZ"

0.  MESSAGE: ID                     DEMO-0002
1.  MESSAGE: TEMPLATE               *
"""
    templates = parse_templates(text, config, "k.txt").templates
    modern = from_templates(templates, config, gold=True)
    assert [d.docid for d in modern.documents] == ["DEMO-0001", "DEMO-0002"]
    (template,) = modern.documents[0].templates
    assert modern.documents[1].templates == ()
    assert template.incident_type == "bombing"
    assert template.role("PerpInd") == (("TWO MEN ON A MOTORCYCLE", "TWO MEN"),)
    assert template.role("PerpOrg") == (("RED DAWN FRONT",),)
    # The description tagged with the name is a mention of that person; the other is its own.
    assert template.role("Victim") == (("JUAN PEREZ", "NIGHT WATCHMAN"), ("PASSER-BY",))


def test_escaped_quotes_are_unescaped_in_mentions() -> None:
    from muceval.core.model import Alternatives, Slot, Template, TemplateFile, Text

    config = load_configuration(example_dir() / "config.toml")
    fills = (Alternatives((Text('"THE \\"FRONT\\""'), Text('"FRONT"'))),)
    template = Template("M-1", "1", False, (Slot("inc-type", (Text("ATTACK"),)),
                                             Slot("perp-org-id", fills)))
    modern = from_templates(TemplateFile("k", (template,)), config, gold=True)
    assert modern.documents[0].templates[0].role("PerpOrg") == (('THE "FRONT"', "FRONT"),)


def test_a_key_converted_twice_scores_itself_perfectly(tmp_path: Path, capsys) -> None:
    example = example_dir()
    for layout, out in (("gtt-gold", "gold.json"), ("iterx-pred", "pred.jsonlines")):
        assert main(["convert", str(example / "key.txt"), "--config",
                     str(example / "config.toml"), "--to", layout, "-o",
                     str(tmp_path / out)]) == 0
    capsys.readouterr()
    gold, pred = read_modern(tmp_path / "gold.json"), read_modern(tmp_path / "pred.jsonlines")
    assert gold.layout == "gtt-gold" and pred.layout == "iterx-pred"
    for metric in ("gtt", "ceaf-rme"):
        assert score_modern(gold, pred, ModernOptions(metric), "key").overall.f1 == 1.0, metric


def test_convert_refuses_what_cannot_be_written(modern: Path, tmp_path: Path, capsys) -> None:
    grit = str(modern / "grit" / "preds_s_t.out")
    assert main(["convert", grit, "--to", "gtt-pred"]) == 2
    assert "has per-role extracts only" in capsys.readouterr().err
    gtt = str(modern / "gtt" / "preds_gtt.out")
    assert main(["convert", gtt, "--to", "gtt-gold"]) == 2
    assert "holds predictions" in capsys.readouterr().err
    assert main(["convert", gtt, "--to", "muceval", "-o", gtt]) == 2
    capsys.readouterr()
    out = tmp_path / "n.json"
    assert main(["convert", gtt, "--to", "muceval", "-o", str(out)]) == 0
    assert main(["convert", gtt, "--to", "muceval", "-o", str(out)]) == 2  # exists
    capsys.readouterr()
    doc = json.loads(out.read_text())
    assert doc["format"] == "muceval-templates" and doc["gold"] is False
    first = next(d for d in doc["documents"] if d["templates"])
    assert set(first["templates"][0]) == {"incident_type", *ROLES}
    assert main(["validate", str(out)]) == 0
    assert "muceval-pred: 200 documents" in capsys.readouterr().out
    doc["format_version"] = 9
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    assert main(["score", "--key", str(modern / "gtt" / "test.json"), "--metric", "gtt",
                 str(bad)]) == 2
    assert "format_version 9" in capsys.readouterr().err


def test_the_command_writes_what_the_library_converts_and_names_wrong_options(
        tmp_path: Path, capsys) -> None:
    from muceval.pipelines.convert import convert_file

    example = example_dir()
    key, config = str(example / "key.txt"), str(example / "config.toml")
    out = tmp_path / "gold.json"
    assert main(["convert", key, "--config", config, "--to", "gtt-gold", "-o", str(out)]) == 0
    assert out.read_text() == convert_file(key, "gtt-gold", config=config).text
    capsys.readouterr()
    # Options for the other kind of file are refused, each named by its flag.
    assert main(["convert", key, "--config", config, "--schema", "muc4", "--to", "muceval"]) == 2
    assert "--schema: a schema is for modern files" in capsys.readouterr().err
    for option in (["--config", config], ["--gold"]):
        assert main(["convert", str(out), *option, "--to", "muceval"]) == 2
        assert f"{option[0]}: " in capsys.readouterr().err
    with pytest.raises(UsageError, match="layout: 'gtt'"):
        convert_file(key, "gtt", config=config)
