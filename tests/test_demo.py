"""The bundled example and `muceval demo`: runs anywhere, no shared data needed."""

from __future__ import annotations

import json
from pathlib import Path

from muceval.cli import main
from muceval.core.metrics import float_scores
from muceval.core.tallies import summarize
from muceval.formats.config import load_configuration
from muceval.formats.muc.history import read_history
from muceval.formats.muc.reports import read_report
from muceval.formats.muc.templates import read_templates
from muceval.reporting.demo import EXAMPLE_SYSTEMS, example_dir, run_demo
from muceval.scoring.muc1992.scorer import score_system


def test_demo_writes_reports_that_agree_with_its_scores(tmp_path: Path) -> None:
    result = run_demo(tmp_path)
    assert [s.name for s in result.systems] == list(EXAMPLE_SYSTEMS)
    scores = json.loads(result.json_path.read_text())
    assert [s["system"] for s in scores["systems"]] == list(EXAMPLE_SYSTEMS)
    for system in result.systems:
        report = read_report(system.report_path)
        row = report.summary_row("ALL TEMPLATES")
        # The 1992 rounding truncates to tenths before rounding: within 0.6 points.
        assert abs(row.rec - 100 * system.all_templates.recall) <= 0.6
        assert abs(row.pre - 100 * system.all_templates.precision) <= 0.6
        assert report.f_measures is not None


def test_example_systems_are_ordered_as_designed(tmp_path: Path) -> None:
    # The example was written so that the systems differ in a known way:
    # alpha strong, beta overgenerates, gamma cautious (high precision, low
    # recall), delta weak. A scorer change that breaks this is suspicious.
    by_name = {s.name: s.all_templates for s in run_demo(tmp_path, html_report=False).systems}
    assert by_name["alpha"].f_pr > by_name["beta"].f_pr > by_name["gamma"].f_pr > by_name["delta"].f_pr
    assert by_name["gamma"].precision > by_name["alpha"].precision
    assert by_name["gamma"].recall < by_name["beta"].recall
    assert by_name["beta"].overgeneration > by_name["alpha"].overgeneration
    assert by_name["gamma"].overgeneration == 0.0


def test_key_scored_against_itself_is_perfect_in_every_manner() -> None:
    source = example_dir()
    config = load_configuration(source / "config.toml")
    key = read_templates(source / "key.txt", config)
    history = read_history(source / "history.lisp")
    summary = summarize(score_system(key, key, config, history).pairs, config)
    for manner in ("matched_only", "matched_missing", "matched_spurious", "all_templates"):
        scores = float_scores(getattr(summary.accumulators, manner).total)
        assert scores.recall == 1.0 and scores.precision == 1.0, manner


def test_demo_command_prints_table_and_json(tmp_path: Path, capsys) -> None:
    assert main(["demo", "--out", str(tmp_path / "t")]) == 0
    out = capsys.readouterr().out
    for name in EXAMPLE_SYSTEMS:
        assert name in out
    assert main(["demo", "--out", str(tmp_path / "j"), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["systems"]) == set(EXAMPLE_SYSTEMS)
    assert all(0.0 <= v["f1"] <= 1.0 for v in data["systems"].values())
