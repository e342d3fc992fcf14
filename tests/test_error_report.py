"""The report's Errors section (issue 28): Das et al.'s categories of every system, drawn and
tabled, and the changes between neighbours in the ranking that are more than chance."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from muceval.cli import main
from muceval.core.error_counts import ErrorCounts
from muceval.reporting.demo import example_files
from muceval.significance.error_counts import changes_between
from muceval.significance.settings import SignificanceSettings

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _counts(errors_json: dict) -> ErrorCounts:
    categories = errors_json["categories"]
    return ErrorCounts.of_documents(categories, {
        s["system"]: {d["docid"]: [d["before"]["rows"]["total"]["categories"][c]
                                   for c in categories] for d in s["documents"]}
        for s in errors_json["systems"]})


def _check_section(out: Path, errors_command: list[str], capsys: pytest.CaptureFixture,
                   seed: int, shuffles: int) -> dict:
    """The section holds what `muceval errors` gives for the same files, in the report's
    ranking, and each neighbour's tests are those of the pair tested alone."""
    data = json.loads((out / "report.json").read_text())
    section = data["errors"]
    assert main([*errors_command, "--format", "json"]) == 0
    alone = json.loads(capsys.readouterr().out)
    totals = {s["system"]: s["before"]["rows"]["total"]["categories"] for s in alone["systems"]}
    assert {s["system"]: s["categories"] for s in section["systems"]} == totals
    written = json.loads((out / "errors.json").read_text())
    assert [s["system"] for s in written["systems"]] == [s["system"] for s in alone["systems"]]
    order = section["order"]
    settings = SignificanceSettings(seed=seed, shuffles=shuffles)
    expected = changes_between(_counts(alone), list(zip(order, order[1:], strict=False)),
                               settings)
    assert [(c["baseline"], c["candidate"], c["category"], c["p_value"])
            for c in section["neighbours"]] == [(c.baseline, c.candidate, c.category,
                                                 c.p_value) for c in expected]
    return data


def test_the_errors_section_is_what_muceval_errors_gives(tmp_path, capsys):
    example = example_files()
    out = tmp_path / "report"
    assert main(["report", "--example", "--errors", "--seed", "5", "--shuffles", "999",
                 "--out", str(out), "--format", "json"]) == 0
    capsys.readouterr()
    data = _check_section(out, ["errors", "--key", str(example.key), "--config",
                                str(example.config), "--history", str(example.history),
                                *map(str, example.responses)], capsys, 5, 999)
    scores = data["significance"]["systems"]
    assert data["errors"]["order"] == sorted(scores, key=lambda name: -scores[name]["f1"])
    assert data["errors"]["ranked_by"] == "F P&R"
    html = (out / "report.html").read_text()
    assert 'href="#errors"' in html and 'id="errors-table"' in html
    for name in data["errors"]["order"]:
        assert f'id="errors-categories-bar-{name}--Missing_Role_Filler"' in html


def test_errors_is_refused_where_it_cannot_run(tmp_path, capsys, muc4):
    example = example_files()
    base = ["report", "--key", str(example.key), "--config", str(example.config),
            *map(str, example.responses), "--errors", "--out", str(tmp_path / "r")]
    assert main([*base, "--mapping", "optimal"]) == 2
    assert "--mapping: 'optimal' does not go with the Errors section" in capsys.readouterr().err
    scores = sorted(str(p) for p in (muc4 / "tst3" / "official-scores").iterdir())[:2]
    assert main(["report", *scores, "--errors", "--out", str(tmp_path / "s")]) == 2
    assert "--errors need" in capsys.readouterr().err
    out = tmp_path / "plain"
    assert main(["report", "--example", "--out", str(out), "--seed", "1", "--shuffles", "99",
                 "--format", "json"]) == 0
    assert "errors" not in json.loads((out / "report.json").read_text())
    assert not (out / "errors.json").exists() and 'id="errors"' not in (
        out / "report.html").read_text()


def test_the_modern_report_has_the_errors_section_in_its_ranking(modern, tmp_path, capsys):
    gold = str(modern / "gtt" / "test.json")
    preds = [str(modern / "iterx" / f"preds.{n}.test.jsonlines") for n in ("bart-base",
                                                                           "t5-large-enc")]
    out = tmp_path / "modern"
    assert main(["report", "--key", gold, *preds, "--errors", "--seed", "2", "--shuffles",
                 "199", "--out", str(out), "--format", "json"]) == 0
    capsys.readouterr()
    data = _check_section(out, ["errors", "--key", gold, *preds], capsys, 2, 199)
    gtt = next(r for r in data["scorers"] if r["metric"] == "gtt")
    ranked = sorted(gtt["systems"], key=lambda s: -s["overall"]["f1"])
    assert data["errors"]["order"] == [s["system"] for s in ranked]
    assert data["errors"]["ranked_by"].startswith("gtt")


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium not installed (Debian: apt-get install "
                    "chromium; .ci/run installs it)")
def test_the_errors_section_in_the_browser(tmp_path):
    """Rendered by Chromium: every system's bar, the categories table, and the per-role table
    that the system menu switches."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright not installed "
                                   "(pip install -e '.[test]')")
    out = tmp_path / "report"
    assert main(["report", "--example", "--errors", "--seed", "5", "--shuffles", "999",
                 "--out", str(out), "--format", "json"]) == 0
    data = json.loads((out / "report.json").read_text())
    order = data["errors"]["order"]
    problems: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.goto((out / "report.html").resolve().as_uri())
        page.click('nav a[href="#errors"]')
        assert page.locator("#errors").is_visible()
        for name in order:
            assert page.locator(f'#errors-categories-bar-{name}--Missing_Role_Filler').count() == 1
        cells = page.locator('#errors-table tr[data-category="Missing_Role_Filler"] td')
        shown = [cells.nth(i + 1).text_content() for i in range(len(order))]
        expected = [str(s["categories"]["Missing_Role_Filler"]) for s in data["errors"]["systems"]]
        assert shown == expected
        first, last = order[0], order[-1]
        assert page.locator(f'[data-errors-role="{first}"]').is_visible()
        assert not page.locator(f'[data-errors-role="{last}"]').is_visible()
        page.select_option("#errors-role-system", last)
        assert page.locator(f'[data-errors-role="{last}"]').is_visible()
        assert not page.locator(f'[data-errors-role="{first}"]').is_visible()
        browser.close()
    assert problems == []


def test_the_errors_section_says_its_p_values_are_not_adjusted(tmp_path) -> None:
    # "Which changes are real" listed the unadjusted tests that fell under alpha without
    # saying they were unadjusted.
    from importlib.resources import files

    from muceval.cli import main

    k = files("muceval") / "data" / "kitchen"
    out = tmp_path / "r"
    args = ["report", "--key", str(k / "gold.jsonl"), "--schema", str(k / "schema.toml"),
            "--errors", "--out", str(out), "--shuffles", "99", "--bootstrap", "0",
            str(k / "alpha.jsonl"), str(k / "beta.jsonl")]
    assert main(args) == 0
    page = (out / "report.html").read_text()
    assert "<strong>not adjusted</strong> for the 16 tests made" in page
    assert main([*args, "--adjust", "holm", "--force"]) == 0
    assert "not adjusted" not in (out / "report.html").read_text()
