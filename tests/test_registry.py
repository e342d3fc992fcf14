"""The one registry of input files: what each kind looks like, and what each command reads."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from muceval.cli import main
from muceval.core.systems import ScoredSystem
from muceval.errors import InputError
from muceval.formats.registry import (
    INPUTS,
    InputKind,
    Loaded,
    Registry,
    load_inputs,
    load_systems,
)
from muceval.formats.scores.csv import CSV_COLUMNS, parse_scores_csv, scores_to_csv
from muceval.formats.scores.json import parse_scores_json, scores_to_json
from muceval.reporting.analysis import systems_from_pairs
from muceval.reporting.muc1992 import format_report
from test_reports import CFG, HIT, JUNK, MISS, NONE, OPT

SYSTEMS = {"A": [HIT, MISS, JUNK, NONE, OPT], "B": [HIT, NONE]}


_SAMPLES = [
    (",".join(CSV_COLUMNS) + "\n1,A,pair\n", "scores.txt", "scores-csv"),
    ("system,unit,POS,ACT,COR,PAR\nA,u,1,1,1,0\n", "t.txt", "unit-csv"),
    ("anything\n", "t.csv", "unit-csv"),
    ('{"format": "muceval-scores"}', "s.txt", "scores-json"),
    ("[]", "s.json", "scores-json"),
    ('[slots]\nx = 1\n', "task.toml", "toml-configuration"),
    ("Configuration: config.el\n\nReport of all-templates scores\n", "r", "report-1992"),
    ("M-1\n\nSLOT\t\t      POS ACT|COR PAR INC|ICR IPA|SPU MIS NON|REC\n", "r", "report-1992"),
    ("(define-muc-configuration-options :slot-file \"s.el\")", "c.el", "configuration-1992"),
    ("(define-muc-template-slots (\"0.\" message-id))", "s.el", "slots-1992"),
    ('; judgements\n(("M-1" ("1" (inc-date ("1 JAN 90" fail)))))', "h", "history"),
    ("0.  MESSAGE: ID                    M-1\n1.  TEMPLATE ID  1\n", "key", "templates"),
]


@pytest.mark.parametrize(("text", "path", "kind"), _SAMPLES)
def test_every_kind_is_recognised_by_its_content(text: str, path: str, kind: str) -> None:
    found = INPUTS.detect(text, path)
    assert found is not None and found.name == kind


def test_recognising_a_file_imports_neither_numpy_nor_the_readers() -> None:
    # Every sample above, and a file of each modern layout, recognised in a fresh process.
    samples = [(text, path) for text, path, _ in _SAMPLES] + [
        ('{"docid": "TST3-MUC4-0001", "extracts": {}}', "g.json"),
        ('{"30002": {"pred_templates": []}}', "p.out")]
    code = ("import json, sys\nfrom muceval.formats.registry import INPUTS\n"
            f"for text, path in json.loads({json.dumps(json.dumps(samples))}):\n"
            "    assert INPUTS.detect(text, path) is not None, path\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'scipy')\n"
            "             or m.startswith(('muceval.formats.muc.', 'muceval.formats.config',\n"
            "                              'muceval.formats.scores.csv',\n"
            "                              'muceval.formats.scores.json',\n"
            "                              'muceval.formats.scores.unit_csv'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_a_file_no_kind_knows_lists_what_muceval_reads(tmp_path: Path) -> None:
    assert INPUTS.detect("just some prose\n", "notes.txt") is None
    notes = tmp_path / "notes.txt"
    notes.write_text("just some prose\n")
    with pytest.raises(InputError) as caught:
        INPUTS.read(notes)
    (problem,) = caught.value.problems
    assert problem.path == str(notes) and problem.line is None
    assert problem.message.startswith("not a file muceval knows; it reads: ")
    for kind in INPUTS.kinds:
        assert (kind.family or kind.description) in problem.message


def test_kind_names_are_unique_and_a_new_kind_registers_in_one_place() -> None:
    names = [k.name for k in INPUTS.kinds]
    assert len(names) == len(set(names))

    def sniff(text: str, path: str) -> bool:
        return '"gtt"' in text

    def load(text: str, path: str, options: object) -> Loaded:
        return Loaded((ScoredSystem("G", path, {}),), {"systems": 1})

    registry = Registry(INPUTS.kinds)
    gtt = InputKind("gtt-json", "GTT JSON", "GTT JSON (test)", sniff, load,
                    scores=lambda value, options: value, summaries=False)  # fmt: skip
    registry.register(gtt, before="scores-json")
    assert registry.detect('{"format": "gtt"}', "x.json") is gtt
    assert registry.detect('{"format": "muceval-scores"}', "x.json") is INPUTS.get("scores-json")
    assert [k.name for k in registry.kinds].index("gtt-json") == names.index("scores-json")
    with pytest.raises(ValueError, match="already registered"):
        registry.register(gtt)
    assert [k.name for k in INPUTS.kinds] == names  # the default registry is untouched


def test_each_command_reads_only_its_kinds(tmp_path: Path) -> None:
    key = tmp_path / "key.txt"
    key.write_text("0.  MESSAGE: ID                    M-1\n")
    with pytest.raises(InputError) as caught:
        load_inputs([key])
    message = str(caught.value)
    assert "a MUC template file (a key or a response) is not an input of " \
        "the significance tests; it holds templates, not scores: give the answer key too " \
        "(compare and report take --key)" in message
    assert "1992 score report" in message and "unit-tallies CSV" in message
    units = tmp_path / "u.csv"
    units.write_text("system,unit,POS,ACT,COR,PAR\nA,u,1,1,1,0\n")
    assert load_inputs([units]).systems == ("A",)
    with pytest.raises(InputError, match="unit-tallies CSV .* is not an input of muceval report"):
        load_systems([units])


def test_scores_json_and_csv_give_the_tallies_of_scoring(tmp_path: Path) -> None:
    from_pairs, tallies = systems_from_pairs(SYSTEMS, CFG)
    json_path, csv_path = tmp_path / "s.json", tmp_path / "s.csv"
    json_path.write_text(scores_to_json(SYSTEMS, CFG))
    csv_path.write_text(scores_to_csv(SYSTEMS, CFG))
    for path in (json_path, csv_path):
        read = load_inputs([path])
        assert read.systems == tallies.systems and read.units == tallies.units
        assert np.array_equal(read.counts, tallies.counts)
    summaries, _ = load_systems([json_path])
    assert [s.to_dict() | {"source": "", "origin": ""} for s in summaries] == [
        s.to_dict() | {"source": "", "origin": ""} for s in from_pairs
    ]
    with pytest.raises(InputError, match="muceval scores CSV .* is not an input of muceval report"):
        load_systems([csv_path])


def test_system_names_keep_everything_but_the_last_suffix(tmp_path: Path) -> None:
    for version in ("v1", "v2"):
        (tmp_path / f"mysys.{version}.report").write_text(format_report(SYSTEMS["A"], CFG))
    paths = sorted(tmp_path.iterdir())
    assert load_inputs(paths).systems == ("mysys.v1", "mysys.v2")
    systems, _ = load_systems(paths, CFG)
    assert [s.name for s in systems] == ["mysys.v1", "mysys.v2"]


def test_broken_scores_files_name_the_problem() -> None:
    doc = json.loads(scores_to_json(SYSTEMS, CFG))
    unit = next(iter(doc["systems"][0]["units"]))
    doc["systems"][0]["units"][unit][2] = 99
    with pytest.raises(InputError, match="system entry 1 lacks .*COR \\+ PAR exceeds POS"):
        parse_scores_json(json.dumps(doc), "s.json")
    # Files written before format version 2 keep their units in the per-message rows.
    doc = json.loads(scores_to_json(SYSTEMS, CFG, detail="messages"))
    del doc["systems"][0]["units"]
    row = doc["systems"][0]["messages"][0]["accumulators"]["all-templates"][-3]
    assert row["kind"] == "total"
    row["tallies"]["cor"] = 99
    with pytest.raises(InputError, match="system entry 1 lacks .*COR \\+ PAR exceeds POS"):
        parse_scores_json(json.dumps(doc), "s.json")
    doc = json.loads(scores_to_json(SYSTEMS, CFG))
    del doc["systems"][1]["summary"]["report_rows"]
    with pytest.raises(InputError, match="system 'B' lacks a valid summary"):
        parse_scores_json(json.dumps(doc), "s.json")
    lines = scores_to_csv(SYSTEMS, CFG).splitlines()
    n, line = next((n, x) for n, x in enumerate(lines, start=1)
                   if ",message," in x and ",all-templates,ALL TEMPLATES,total," in x)  # fmt: skip
    cells = line.split(",")
    cells[CSV_COLUMNS.index("pos")] = "-1"
    lines[n - 1] = ",".join(cells)
    with pytest.raises(InputError) as caught:
        parse_scores_csv("\n".join(lines), "s.csv")
    assert str(caught.value).startswith(f"s.csv:{n}: pos: not a count")


def test_validate_knows_the_scores_files(tmp_path: Path, capsys) -> None:
    (tmp_path / "s.json").write_text(scores_to_json(SYSTEMS, CFG))
    (tmp_path / "s.csv").write_text(scores_to_csv(SYSTEMS, CFG))
    (tmp_path / "u.txt").write_text("system,unit,POS,ACT,COR,PAR\nA,u1,1,1,1,0\nB,u2,1,1,0,0\n")
    paths = [str(tmp_path / name) for name in ("s.json", "s.csv", "u.txt")]
    assert main(["validate", "--format", "json", *paths]) == 0
    results = json.loads(capsys.readouterr().out)
    assert [(r["kind"], r["counts"]) for r in results] == [
        ("scores JSON", {"systems": 2, "messages": 4}),
        ("scores CSV", {"systems": 2, "messages": 4}),
        ("unit tallies", {"systems": 2, "units": 2}),
    ]
