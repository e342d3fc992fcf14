"""muceval's own scores files: the JSON and CSV writers and their readers."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from muceval.core.model import Configuration
from muceval.errors import InputError, UsageError
from muceval.formats.config import load_configuration
from muceval.formats.muc.reports import parse_report, read_report
from muceval.formats.scores.csv import CSV_COLUMNS, parse_scores_csv, scores_to_csv
from muceval.formats.scores.json import parse_scores_json, scores_to_json
from muceval.formats.scores.rows import FORMAT_VERSION
from muceval.reporting.muc1992 import format_report
from test_reports import CFG, HIT, JUNK, MISS, NONE, OPT, _pairs


@pytest.fixture(scope="module")
def tst3(muc4: Path) -> Configuration:
    return load_configuration(muc4 / "tst3" / "config-tst3.el")


# ---------------------------------------------------------------------------
# Writers
# ---------------------------------------------------------------------------


def test_json_schema_and_values():
    doc = json.loads(scores_to_json({"A": [HIT, MISS, JUNK, NONE, OPT], "B": [HIT]}, CFG,
                                    detail="pairs"))
    assert doc["format"] == "muceval-scores" and doc["format_version"] == FORMAT_VERSION
    assert [s["system"] for s in doc["systems"]] == ["A", "B"]
    assert doc["slots"] == [
        {"slot": "kind", "class": "set"},
        {"slot": "who", "class": "string"},
        {"slot": "when", "class": "other"},
    ]
    assert doc["subtotal_rows"] == {"obj-total": ["kind", "who"]}
    a = doc["systems"][0]
    assert [p["status"] for p in a["pairs"]] == [
        "matched",
        "missing",
        "spurious",
        "irrelevant",
        "optional",
    ]
    who = next(r for r in a["pairs"][0]["rows"] if r["row"] == "who")
    assert who["tallies"]["par"] == 1 and who["report"]["rec"] == 75
    assert who["measures"]["recall"] == 0.75 and who["report"]["fal"] is None
    summary = a["summary"]
    rows = {(r["row"], r["accumulator"]): r for r in summary["report_rows"]}
    all_total = rows[("ALL TEMPLATES", "all-templates")]
    assert all_total["tallies"]["pos"] == 6 and all_total["report"]["rec"] == 42
    assert all_total["measures"]["recall"] == pytest.approx(2.5 / 6)
    assert rows[("SET FILLS ONLY", "matched-missing")]["report"]["fal"] == 0
    assert summary["f_measures"]["report"] == {"P&R": 38.77, "2P&R": 37.06, "P&2R": 40.65}
    p, r = 2.5 / 7, 2.5 / 6
    assert summary["f_measures"]["float"]["P&R"] == pytest.approx(2 * p * r / (p + r))
    assert summary["text_filtering"]["row"]["report"] == {
        "rec": 100,
        "pre": 50,
        "ovg": 50,
        "fal": 33,
    }
    assert set(summary["accumulators"]) == {
        "matched-missing",
        "matched-spurious",
        "matched-only",
        "all-templates",
    }
    assert [m["text_filtering"] for m in a["messages"]] == ["a", "b", "d", "d"]
    b_only = doc["systems"][1]["summary"]["accumulators"]["matched-only"]
    assert b_only[-3]["row"] == "MATCHED ONLY" and b_only[-3]["tallies"]["cor"] == 2


def test_json_report_rows_match_the_text_report(muc4, tst3):
    report = read_report(muc4 / "tst3" / "official-scores" / "PRC.tst3-pass1.nrad")
    pairs = _pairs(report, tst3)
    doc = json.loads(scores_to_json({"PRC": pairs}, tst3, indent=None))
    printed = parse_report(format_report(pairs, tst3)).summary
    rows = doc["systems"][0]["summary"]["report_rows"]
    assert [r["row"] for r in rows] == [r.name for r in printed]
    for mine, theirs in zip(rows, printed, strict=True):
        assert tuple(mine["tallies"][f] for f in ("pos", "act", "cor", "non")) == (
            theirs.tally.pos,
            theirs.tally.act,
            theirs.tally.cor,
            theirs.tally.non,
        )
        assert (mine["report"]["rec"], mine["report"]["pre"], mine["report"]["fal"]) == (
            theirs.rec,
            theirs.pre,
            theirs.fal,
        )
    assert tuple(doc["systems"][0]["summary"]["f_measures"]["report"].values()) == report.f_measures


def test_csv_rows():
    text = scores_to_csv({"A": [HIT, MISS, JUNK, NONE, OPT]}, CFG, detail="pairs")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert tuple(rows[0].keys()) == CSV_COLUMNS
    assert {r["format_version"] for r in rows} == {str(FORMAT_VERSION)}
    by_scope = {}
    for r in rows:
        by_scope.setdefault(r["scope"], []).append(r)
    # pairs: HIT, MISS, JUNK 6 rows each (template-id, 3 slots, subtotal, TOTAL); NONE, OPT 1
    assert len(by_scope["pair"]) == 3 * 6 + 2
    # summary: 4 accumulators x (template-id, 3 slots, 1 subtotal, total, set, string) + TEXT FILTERING
    assert len(by_scope["summary"]) == 4 * 8 + 1
    assert len(by_scope["message"]) == 4 * 4 * 8
    all_total = next(
        r for r in by_scope["summary"] if r["row"] == "ALL TEMPLATES" and r["kind"] == "total"
    )
    assert (all_total["pos"], all_total["act"], all_total["rec"], all_total["pre"]) == (
        "6",
        "7",
        "42",
        "36",
    )
    assert (all_total["f1_1992"], all_total["f0.5_1992"]) == ("38.77", "37.06")
    assert float(all_total["recall"]) == pytest.approx(2.5 / 6)
    # '*' is an empty cell
    when_row = next(r for r in by_scope["pair"] if r["row"] == "when" and r["status"] == "matched")
    assert when_row["rec"] == "" and when_row["recall"] == ""
    optional_row = next(r for r in by_scope["pair"] if r["status"] == "optional")
    assert optional_row["key_id"] == "1" and optional_row["response_id"] == ""
    tf = by_scope["summary"][-1]
    assert (tf["row"], tf["fal"]) == ("TEXT FILTERING", "33")


def test_default_detail_is_the_summary_with_units_and_the_rest_on_request() -> None:
    systems = {"A": [HIT, MISS, JUNK, NONE, OPT], "B": [HIT]}
    small = json.loads(scores_to_json(systems, CFG, settings={"key": "k.txt"}))
    assert small["detail"] == "summary" and small["settings"] == {"key": "k.txt"}
    assert all("pairs" not in s and "messages" not in s for s in small["systems"])
    assert small["systems"][1]["units"] == {"DEV-0001": [3, 3, 2, 1]}
    messages = json.loads(scores_to_json(systems, CFG, detail="messages"))
    assert all("messages" in s and "pairs" not in s for s in messages["systems"])
    # Every detail gives the same systems back, units and summaries alike.
    def units(read):
        return [{u: t.as_tuple()[:4] for u, t in s.units.items()} for s in read]

    full = parse_scores_json(scores_to_json(systems, CFG, detail="pairs"))
    for detail in ("summary", "messages", "pairs"):
        read = parse_scores_json(scores_to_json(systems, CFG, detail=detail))
        assert [s.summary for s in read] == [s.summary for s in full]
        assert units(read) == units(full)
        assert units(parse_scores_csv(scores_to_csv(systems, CFG, detail=detail))) == units(full)
    rows = list(csv.DictReader(io.StringIO(scores_to_csv(systems, CFG))))
    assert {r["scope"] for r in rows} == {"message", "summary"}
    assert all(r["kind"] == "total" and r["accumulator"] == "all-templates"
               for r in rows if r["scope"] == "message")
    with pytest.raises(UsageError, match="unknown detail"):
        scores_to_json(systems, CFG, detail="everything")


def _example_scores(fmt: str) -> str:
    from muceval.reporting.demo import example_files
    from muceval.scoring.session import score_files

    example = example_files()
    config = load_configuration(example.config)
    systems = score_files(config, example.key, example.responses[:2]).systems
    return scores_to_csv(systems, config) if fmt == "csv" else scores_to_json(systems, config)


def test_a_scores_csv_cut_or_edited_at_a_line_is_refused() -> None:
    # Accepted before, with changed tallies: 158 of 200 line-cut CSVs (issue 27).
    lines = _example_scores("csv").splitlines(keepends=True)
    assert parse_scores_csv("".join(lines), "s.csv")
    counted = next(n for n, line in enumerate(lines)
                   if ",message," in line and ",ALL TEMPLATES,total,0," not in line)
    deleted = "".join(lines[:counted] + lines[counted + 1:])
    with pytest.raises(InputError, match="its units sum to .* its ALL TEMPLATES row says"):
        parse_scores_csv(deleted, "s.csv")
    repeated = "".join(lines[:counted + 1] + lines[counted:])
    with pytest.raises(InputError, match=f"given twice \\(first on line {counted + 1}\\)"):
        parse_scores_csv(repeated, "s.csv")
    summary = max(n for n, line in enumerate(lines) if ",summary," in line
                  and ",all-templates,ALL TEMPLATES,total," in line)
    with pytest.raises(InputError, match="no summary ALL TEMPLATES row: the file was cut"):
        parse_scores_csv("".join(lines[:summary]), "s.csv")


def test_a_scores_json_with_a_unit_lost_or_repeated_is_refused() -> None:
    doc = json.loads(_example_scores("json"))
    units = doc["systems"][0]["units"]
    lost = next(k for k, v in units.items() if v[0] > 0)
    del units[lost]
    with pytest.raises(InputError, match="its units sum to .* the file was cut or edited"):
        parse_scores_json(json.dumps(doc), "s.json")
    text = _example_scores("json")
    # The second unit renamed as the first: one key twice in the units object.
    repeated = text.replace('"DEMO-0002":[', '"DEMO-0001":[', 1)
    with pytest.raises(InputError, match='key "DEMO-0001" given twice'):
        parse_scores_json(repeated, "s.json")
