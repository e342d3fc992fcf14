"""Template schemas as data: the built-in ones, a user's TOML file checked key by key, and the
invented ``kitchen`` dataset muceval ships, scored end to end as docs/configuration.md says."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import pytest

from conftest import REPO_ROOT
from muceval.core.schema import SCHEMAS, schema_named
from muceval.errors import InputError, UsageError
from muceval.formats.modern import read_modern
from muceval.formats.schema import read_schema, resolve_schema
from muceval.scoring.modern import ModernOptions, score_modern
from muceval.scoring.modern.counts import normaliser
from muceval.scoring.modern.files import read_predictions, score_modern_files

KITCHEN = Path(str(files("muceval") / "data" / "kitchen"))


def _schema(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "schema.toml"
    path.write_text("# a schema\n[schema]\n" + body)
    return path


@pytest.mark.parametrize(("body", "line", "fragment"), [
    ('name = "x"\nrole = ["A"]\n', 4, "unknown key 'role'"),
    ('name = "x"\nroles = "A"\n', 4, "roles must be a list"),
    ('name = "x"\nroles = []\n', 4, "roles must list role names"),
    ('name = "x"\nroles = ["A", "A"]\n', 4, "a role is listed twice"),
    ('name = "x"\ntype_from = "title"\n', 4, "type_from 'title': choose from field, docid"),
    ('name = "x"\ntype_from = "docid"\n', 4, "needs the separator"),
    ('name = "x"\nnormalisation = "nfc"\n', 4, "normalisation 'nfc': choose from"),
    ('name = "x"\nreported = [[1]]\n', 4, "reported lists [scorer] or [scorer, phi] pairs"),
    ('label = "x"\n', 2, "a schema needs a name"),
    ('name = "x"\nroles = [A]\n', 4, "TOML syntax error"),
])
def test_a_schema_file_is_checked_key_by_key(tmp_path: Path, body: str, line: int,
                                             fragment: str) -> None:
    path = _schema(tmp_path, body)
    with pytest.raises(InputError) as error:
        read_schema(path)
    (problem,) = error.value.problems
    assert (problem.path, problem.line) == (str(path), line), str(error.value)
    assert fragment in problem.message


def test_a_schema_is_named_or_read_and_registered_once(tmp_path: Path) -> None:
    assert resolve_schema("famus") == "famus"
    path = _schema(tmp_path, 'name = "tiny"\nroles = ["A"]\n')
    assert resolve_schema(path) == "tiny" and schema_named("tiny").roles == ("A",)
    assert resolve_schema(path) == "tiny"  # the same schema again: fine
    other = tmp_path / "other.toml"
    other.write_text('[schema]\nname = "tiny"\nroles = ["B"]\n')
    with pytest.raises(InputError, match="exists with other choices"):
        resolve_schema(other)
    with pytest.raises(UsageError) as error:
        resolve_schema("nowhere")
    assert error.value.parameter == "schema"
    del SCHEMAS["tiny"]


def test_normalisations_differ_as_documented() -> None:
    text = "The  CHEF’s, “pie”"
    assert normaliser("squad")(text) == "chef’s “pie”"
    assert normaliser("none")(text) == text
    assert normaliser("lower-tokens")(text) == "the chef’s, “pie”"
    assert normaliser("unicode")(text) == "the chef s pie"


def test_a_closed_schema_refuses_another_role_with_its_line(tmp_path: Path) -> None:
    name = resolve_schema(KITCHEN / "schema.toml")
    pred = tmp_path / "pred.jsonl"
    pred.write_text(json.dumps({"K1": []}) + "\n"
                    + json.dumps({"K2": [{"type": "Baking", "Chef": [["Bob"]]}]}) + "\n")
    with pytest.raises(InputError) as error:
        read_modern(pred, schema=name)
    assert str(error.value).startswith(f"{pred}:2: document K2: unknown role 'Chef' "
                                       "(roles: Cook, Dish, Place)")


def test_the_kitchen_counts_are_those_worked_out_by_hand() -> None:
    """GTT's template F1 on the example. Gold: K1 4 fields (type, Cook, Dish, Place), K2 4 + 3,
    K3 none, K4 4, K5 4 (two cooks): 19. alpha predicts 19 fields and misses one: "salad"
    is not "a salad" under lower-tokens (no article removal), while "carla" and "the chef"
    match "Carla" and "The chef". beta predicts 4 + 5 + 2 + 3 + 3 = 17 fields; right are K1's
    type and Ann (2; "pie" and "kitchen" are not the gold strings), K2's type, Bob and fish
    mapped to Grilling (3; Carla and "a salad" belong to Mixing, which a Grilling template
    cannot map to), nothing of K3 (no gold) or K4 (Baking is not Frying), and K5's type,
    Dan and bread (3): 8."""
    run = score_modern_files(KITCHEN / "gold.jsonl", [KITCHEN / "alpha.jsonl",
                                                       KITCHEN / "beta.jsonl"],
                             [ModernOptions("gtt")], schema=KITCHEN / "schema.toml")
    counts = {s.system: s.overall for s in run.scores[0]}
    assert (counts["alpha"].p_num, counts["alpha"].p_den, counts["alpha"].r_num,
            counts["alpha"].r_den) == (18, 19, 18, 19)
    assert (counts["beta"].p_num, counts["beta"].p_den, counts["beta"].r_num,
            counts["beta"].r_den) == (8, 17, 8, 19)
    assert run.schema == "kitchen"
    assert set(run.scores[0][0].roles) == {"incident_type", "Cook", "Dish", "Place"}


def test_every_scorer_gives_a_key_against_itself_full_marks() -> None:
    name = resolve_schema(KITCHEN / "schema.toml")
    gold = read_modern(KITCHEN / "gold.jsonl", schema=name)
    from dataclasses import replace

    pred = replace(gold, layout="muceval-pred")
    for metric, phi in (("gtt", None), ("ceaf-ree", "strict"), ("ceaf-ree", "prop"),
                        ("ceaf-rme", "subset"), ("ceaf-rme", "phi3")):
        c = score_modern(gold, pred, ModernOptions(metric, phi)).overall
        assert (c.precision, c.recall) == (1.0, 1.0), (metric, phi)
    # phi-a, as FAMuS defines it, is worth at most 1 an entity and is counted in mentions: the
    # key scores its entities (14) over its mentions (16: Ann/She and an apple pie/it).
    c = score_modern(gold, pred, ModernOptions("ceaf-rme", "phi-a")).overall
    assert (c.p_num, c.p_den, c.r_num, c.r_den) == (14, 16, 14, 16)


def _documented() -> list[str]:
    doc = (REPO_ROOT / "docs" / "configuration.md").read_text()
    section = doc.split("## Template schemas", 1)[1]
    (block,) = [b for b in re.findall(r"```sh\n(.*?)```", section, flags=re.S)]
    return [line for line in block.splitlines() if line.strip()]


def test_the_kitchen_example_runs_as_documented(tmp_path: Path) -> None:
    lines = _documented()
    assert lines[0].startswith("K=$(python3 -c")
    toml = (REPO_ROOT / "docs" / "configuration.md").read_text().split(
        "## Template schemas", 1)[1].split("```toml\n", 1)[1].split("```", 1)[0]
    assert toml == (KITCHEN / "schema.toml").read_text()
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    env = {**os.environ, "PATH": path, "COLUMNS": "100"}
    for command in lines[1:]:
        done = subprocess.run(["bash", "-c", lines[0].replace("python3", sys.executable)
                               + "\n" + command], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, (command, done.stderr[-2000:])
        assert "Traceback" not in done.stderr
    page = (tmp_path / "kitchen-report" / "report.html").read_text()
    assert "muceval report: kitchen templates" in page
    report = json.loads((tmp_path / "kitchen-report" / "report.json").read_text())
    assert [s["label"] for s in report["scorers"]] == ["gtt", "ceaf-rme (phi3)"]
    # The Errors section counts the kitchen's roles.
    assert 'id="errors"' in page and "Dish" in page and "PerpInd" not in page


def test_raw_answers_of_a_closed_schema_with_ids_that_give_the_type(tmp_path: Path) -> None:
    """Raw answers are not FAMuS's alone: a schema whose ids give the type reads them too,
    and its closed roles are what the lenient reading matches names to."""
    schema = _schema(tmp_path, 'name = "ids"\ntype_from = "docid"\ndocid_separator = "#"\n'
                     'roles = ["Cook", "Dish"]\nfillers = "strings"\nnormalisation = "none"\n')
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({"docid": "D1#Baking", "templates": [
        {"Cook": ["Ann"], "Dish": ["pie"]}]}) + "\n")
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"id": "D1#Baking",
                                   "response": 'Here: {"cook": "Ann", "Dish": ["pie"]}'}) + "\n")
    name = resolve_schema(schema)
    key = read_modern(gold, schema=name)
    assert key.documents[0].templates[0].incident_type == "Baking"
    strict = score_modern(key, read_predictions(answers, key), ModernOptions("gtt"))
    lenient = score_modern(key, read_predictions(answers, key, "lenient"), ModernOptions("gtt"))
    assert strict.overall.r_num == 0 and strict.note_counts() == {"unparsed": 1}
    assert lenient.overall.f1 == 1.0
    assert set(lenient.note_counts()) == {"prose-before", "role-renamed", "string-as-list"}
    del SCHEMAS["ids"]


def test_files_of_a_schema_convert_and_say_their_schema(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from muceval.cli.app import cli

    out = tmp_path / "gold.json"
    done = CliRunner().invoke(cli, ["convert", str(KITCHEN / "gold.jsonl"), "--schema",
                                    str(KITCHEN / "schema.toml"), "--to", "muceval", "-o",
                                    str(out)])
    assert done.exit_code == 0, done.output
    assert json.loads(out.read_text())["schema"] == "kitchen"
    again = read_modern(out, schema="kitchen")
    assert again.documents == read_modern(KITCHEN / "gold.jsonl", schema="kitchen").documents
    # Read without the schema, its roles would be misread: refused.
    with pytest.raises(InputError, match="a file of 'kitchen' templates, read as muc4: give "
                       "--schema kitchen"):
        read_modern(out)


def test_validate_reads_with_the_schema_and_names_unreadable_answers(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from muceval.cli.app import cli

    files_ = [str(KITCHEN / "gold.jsonl"), str(KITCHEN / "alpha.jsonl")]
    without = CliRunner().invoke(cli, ["validate", *files_])
    assert without.exit_code == 2 and "unknown role 'Cook'" in without.output
    done = CliRunner().invoke(cli, ["validate", "--schema", str(KITCHEN / "schema.toml"),
                                    *files_])
    assert done.exit_code == 0, done.output
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"instance_id": "EN-1-frame-Hiring",
                                   "response": "Sorry, I cannot."}) + "\n")
    said = CliRunner().invoke(cli, ["validate", "--strict", str(answers)])
    assert said.exit_code == 2
    assert f"{answers}:1: document EN-1-frame-Hiring: unparsed (Sorry, I cannot.)" in said.output


def test_a_schema_reporting_an_unknown_scorer_is_refused_where_used(tmp_path: Path) -> None:
    from muceval.scoring.modern.files import reported_scorers

    path = _schema(tmp_path, 'name = "odd"\nroles = ["A"]\nreported = [["f1"]]\n')
    name = resolve_schema(path)
    with pytest.raises(UsageError, match=f"schema odd \\({re.escape(str(path))}\\), "
                       "reported: metric: 'f1': choose from gtt"):
        reported_scorers(name)
    del SCHEMAS["odd"]


def test_two_prediction_files_with_one_name_are_refused_naming_both(tmp_path: Path) -> None:
    from muceval.scoring.errors.files import analyse_error_files

    copies = []
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        copy = tmp_path / folder / "alpha.jsonl"
        copy.write_bytes((KITCHEN / "alpha.jsonl").read_bytes())
        copies.append(copy)
    schema = KITCHEN / "schema.toml"
    for score in (lambda: score_modern_files(KITCHEN / "gold.jsonl", copies,
                                             [ModernOptions("gtt")], schema=schema),
                  lambda: analyse_error_files(KITCHEN / "gold.jsonl", copies, schema=schema)):
        with pytest.raises(UsageError, match="two files give the system name 'alpha'") as refused:
            score()
        assert all(str(copy) in str(refused.value) for copy in copies)
    # --name tells them apart: the same two files are then scored.
    run = score_modern_files(KITCHEN / "gold.jsonl", copies, [ModernOptions("gtt")],
                             names={str(copies[1]): "alpha-2"}, schema=schema)
    assert [s.system for s in run.scores[0]] == ["alpha", "alpha-2"]
