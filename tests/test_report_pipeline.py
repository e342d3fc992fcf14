"""The report's pipelines live in the library: the settings the user gave reach every section,
``write_report`` writes what the analysis holds, and ``muceval report`` is the library's calls."""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from markupsafe import Markup

import muceval
from muceval.cli import main
from muceval.core.measures import MEASURES, MeasureSpec
from muceval.errors import UsageError
from muceval.pipelines.report import (
    ModernPredictions,
    Responses,
    ScoreFiles,
    build_report,
    report_from_responses,
    report_source,
)
from muceval.reporting.analysis import analyze, systems_from_pairs
from muceval.reporting.demo import EXAMPLE_SYSTEMS, example_dir
from muceval.reporting.html import write_report
from muceval.reporting.options import ReportOptions
from muceval.reporting.sections import Page, ReportSection, template_of
from muceval.significance.settings import SignificanceSettings

EXAMPLE = example_dir()
RESPONSES = [EXAMPLE / f"{name}.txt" for name in EXAMPLE_SYSTEMS]
PACKAGE = Path(muceval.__file__).parent


def test_the_alignment_section_is_tested_with_every_setting_given(tmp_path: Path) -> None:
    # The Alignment section's tests once ran approximate, unadjusted and two-sided whatever
    # the command said, while report.json recorded what it said.
    out = tmp_path / "r"
    assert main(["report", "--example", "--alignment", "1992,any-slot", "--method", "exact",
                 "--adjust", "holm", "--alternative", "one-sided", "--seed", "3",
                 "--bootstrap", "0", "--out", str(out)]) == 0
    report = json.loads((out / "report.json").read_text())
    tested = report["alignment"]["settings"]["significance"]
    asked = report["settings"]
    for key in ("method", "adjust", "alternative", "seed", "alpha", "confidence", "shuffles"):
        assert tested[key] == asked[key], key
    assert (tested["method"], tested["adjust"], tested["alternative"]) == (
        "exact", "holm", "one-sided")
    assert json.loads((out / "alignment.json").read_text())["settings"]["significance"] == tested


def test_a_drawn_seed_is_the_seed_of_every_section() -> None:
    analysis = report_from_responses(
        EXAMPLE / "key.txt", RESPONSES[:3], config=EXAMPLE / "config.toml",
        history=EXAMPLE / "history.lisp",
        settings=SignificanceSettings(shuffles=199, bootstrap=0),
        options=ReportOptions(errors=True, alignment="1992,any-slot"))
    seed = analysis.settings.seed
    assert seed is not None and analysis.significance.settings["seed"] == seed
    assert analysis.alignment is not None and analysis.alignment.comparison is not None
    assert analysis.alignment.comparison.settings["seed"] == seed
    assert analysis.errors is not None and analysis.errors.alpha == analysis.settings.alpha


def test_the_library_builds_the_sections_and_write_report_writes_them(tmp_path: Path) -> None:
    analysis = report_from_responses(
        EXAMPLE / "key.txt", RESPONSES, config=EXAMPLE / "config.toml",
        history=EXAMPLE / "history.lisp",
        settings=SignificanceSettings(shuffles=199, seed=1, bootstrap=0),
        options=ReportOptions(errors=True, alignment="1992,any-slot"))
    written = write_report(analysis, tmp_path / "lib",
                           ReportOptions(errors=True, alignment="1992,any-slot"))
    names = {p.name for p in written.data}
    assert {"errors.json", "errors.csv", "alignment.json", "scores.json"} <= names
    page = written.html.read_text()
    assert '<section id="errors"' in page and '<section id="alignment"' in page
    report = json.loads(written.json.read_text())
    assert "errors" in report and "alignment" in report
    # The command is the same calls: the same files, byte for byte.
    assert main(["report", "--example", "--errors", "--alignment", "1992,any-slot",
                 "--shuffles", "199", "--seed", "1", "--bootstrap", "0",
                 "--out", str(tmp_path / "cli")]) == 0
    lib, cli = tmp_path / "lib", tmp_path / "cli"
    files = sorted(str(p.relative_to(lib)) for p in lib.rglob("*") if p.is_file())
    assert files == sorted(str(p.relative_to(cli)) for p in cli.rglob("*") if p.is_file())
    assert "report.html" in files and any(name.startswith("figures/") for name in files)
    for name in files:
        assert (cli / name).read_bytes() == (lib / name).read_bytes(), name


def test_write_report_refuses_a_section_the_analysis_does_not_hold(tmp_path: Path) -> None:
    # write_report once took ReportOptions(errors=True, alignment=...) and silently wrote
    # neither section: only the command built them.
    config = muceval.load_configuration(EXAMPLE / "config.toml")
    session = muceval.score_files(config, EXAMPLE / "key.txt", RESPONSES[:2])
    systems, tallies = systems_from_pairs(session.systems, config)
    analysis = analyze(systems, tallies, metrics="f1",
                       settings=SignificanceSettings(method="exact", bootstrap=0))
    for options, parameter in ((ReportOptions(errors=True), "errors"),
                               (ReportOptions(alignment="1992,any-slot"), "alignment")):
        with pytest.raises(UsageError) as raised:
            write_report(analysis, tmp_path / parameter, options)
        assert raised.value.parameter == parameter
        assert not (tmp_path / parameter).exists()


def test_report_source_tells_the_kinds_of_input(muc4: Path, modern: Path) -> None:
    assert isinstance(report_source(RESPONSES, EXAMPLE / "key.txt"), Responses)
    assert isinstance(report_source(sorted((muc4 / "tst3" / "official-scores").iterdir())[:2]),
                      ScoreFiles)
    gtt = modern / "gtt"
    assert isinstance(report_source([gtt / "preds_gtt.out"], gtt / "test.json"),
                      ModernPredictions)
    with pytest.raises(UsageError):
        report_source([])


def test_sections_that_the_inputs_cannot_give_are_refused(muc4: Path) -> None:
    scores = ScoreFiles(tuple(str(p) for p in
                              sorted((muc4 / "tst3" / "official-scores").iterdir())[:2]))
    for options in (ReportOptions(errors=True), ReportOptions(alignment="1992")):
        with pytest.raises(UsageError):
            build_report(scores, options=options)


_ALLOWED = {
    # What `muceval report` may import from the library: the pipeline's entry points, the
    # options, the writer, the registry of measures and the number format of its table.
    # Nothing that scores or tests.
    "muceval.errors", "muceval.pipelines.report", "muceval.reporting.options",
    "muceval.reporting.html", "muceval.reporting.analysis", "muceval.reporting.modern_report",
    "muceval.reporting.demo", "muceval.scoring.muc1992.scorer", "muceval.core.measures",
}


def test_the_report_command_holds_no_pipeline() -> None:
    tree = ast.parse((PACKAGE / "cli" / "report.py").read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module
                and node.module.startswith("muceval.") and not node.module.startswith(
                    "muceval.cli")}
    assert imported <= _ALLOWED, imported - _ALLOWED
    names = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
             and node.module == "muceval.reporting.html" for alias in node.names}
    assert names <= {"write_report", "ReportFiles", "format_pct"}


# ---------------------------------------------------------------------------
# One score per system and metric
# ---------------------------------------------------------------------------

_COUNTS = st.integers(0, 10**6)


@given(pos=_COUNTS, act=_COUNTS, cor=_COUNTS, par=_COUNTS)
def test_the_score_shown_is_the_score_ranked_and_tested(pos: int, act: int, cor: int,
                                                        par: int) -> None:
    # Report tables showed F computed from P and R, rankings and tests F from the counts:
    # they differed in the last bits on about a third of values, so a tie could be shown in
    # one order and ranked in the other.
    import numpy as np

    from muceval.core.metrics import METRIC_IDS, FloatScores
    from muceval.core.tallies import Tally
    from muceval.significance.kernels import metric_value, metric_values

    cor = min(cor, pos, act)
    par = min(par, pos - cor, act - cor)
    shown = FloatScores.of(Tally(pos=pos, act=act, cor=cor, par=par))
    n2 = 2 * cor + par
    for metric in METRIC_IDS:
        value = shown.value(metric)
        if value is None:
            continue
        assert value == metric_value(pos, act, n2, metric)
        assert value == metric_values(np.array([[pos, act, n2]]), metric)[0]


def test_the_report_ranks_by_the_values_it_shows(muc4: Path) -> None:
    analysis = muceval.analyze(*muceval.load_systems(
        sorted((muc4 / "tst3" / "official-scores").iterdir())),
        settings=SignificanceSettings(shuffles=99, seed=1, bootstrap=0, classic=False))
    sig = analysis.significance
    from muceval.core.metrics import METRIC_IDS

    for metric in METRIC_IDS:
        shown = {s.name: s.all_templates.value(metric) for s in analysis.systems}
        assert shown == {name: sig.scores[name][metric] for name in shown}
        assert sig.ranking(metric) == sorted(shown, key=lambda n: (-shown[n], n))


# ---------------------------------------------------------------------------
# The registry of measures
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("spec", MEASURES, ids=lambda m: m.id)
def test_every_measure_behaves_as_the_registry_says(spec: MeasureSpec) -> None:
    from muceval.core.measures import metric_of_counts
    from muceval.core.metrics import MEASURE_NAMES, FloatScores, f_measure, precision, recall
    from muceval.core.tallies import Tally

    t = Tally(pos=40, act=30, cor=17, par=6)
    r, p = recall(t), precision(t)
    value = metric_of_counts(spec.id, t.pos, t.act, 2 * t.cor + t.par)
    expected = {"recall": r, "precision": p}.get(spec.id)
    if expected is None:
        expected = f_measure(p, r, spec.beta)
    assert value == pytest.approx(expected, rel=1e-12)
    assert FloatScores.of(t).value(spec.id) == value
    assert spec.id in MEASURE_NAMES
    from muceval.significance.settings import PRESETS

    assert spec.id in PRESETS["muc4"].metrics


def test_adding_a_measure_is_one_line_of_the_registry(tmp_path: Path) -> None:
    # The measure reaches every output with no other change: scores' JSON and CSV, the
    # terminal table, the significance tests and the report's summary.
    import shutil
    import subprocess
    import sys

    package = tmp_path / "src" / "muceval"
    shutil.copytree(PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    registry = package / "core" / "measures.py"
    text = registry.read_text(encoding="utf-8")
    line = '    MeasureSpec.f("f2", "F P&2R", 2.0, "P&2R"),\n'
    assert line in text
    registry.write_text(text.replace(line, line + '    MeasureSpec.f("f3", "F P&3R", 3.0),\n'),
                        encoding="utf-8")
    env = {**__import__("os").environ, "PYTHONPATH": str(tmp_path / "src")}
    base = [sys.executable, "-m", "muceval"]
    key, config = str(EXAMPLE / "key.txt"), str(EXAMPLE / "config.toml")
    two = [str(p) for p in RESPONSES[:2]]
    scores = tmp_path / "s.json"

    def run(*args: str) -> str:
        done = subprocess.run([*base, *args], env=env, capture_output=True, text=True,
                              check=True)
        return done.stdout

    run("score", "--key", key, "--config", config, *two, "--format", "json", "-o", str(scores))
    assert '"f3":' in scores.read_text()
    assert ",f3," in run("score", "--key", key, "--config", config, *two, "--format", "csv")
    assert "F P&3R" in run("score", "--key", key, "--config", config, *two, "--format", "table")
    tested = json.loads(run("significance", str(scores), "--metrics", "f3", "--seed", "1",
                            "--shuffles", "99", "--format", "json"))
    assert tested["settings"]["metrics"] == ["f3"] and "f3" in tested["groups"]
    run("report", str(scores), "--seed", "1", "--shuffles", "99", "--bootstrap", "0",
        "--out", str(tmp_path / "r"))
    assert ",f3," in (tmp_path / "r" / "summary.csv").read_text().splitlines()[0]
    assert 'data-metric="f3"' in (tmp_path / "r" / "report.html").read_text()


# ---------------------------------------------------------------------------
# Report sections
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Longest:
    """A made-up one-table section: each system's number of units, as a new section would be
    written (one class; its template is its own text)."""

    units: tuple[tuple[str, int], ...]
    id = "units"
    title = "Units per system"
    after = "groupings"
    TEMPLATE = ('<section id="units"><h2>Units per system</h2><table id="units-table">'
                '{% for name, n in rows %}<tr data-system="{{ name }}"><td>{{ name | system }}'
                '</td><td>{{ n }}</td></tr>{% endfor %}</table></section>')

    def to_dict(self) -> dict[str, Any]:
        return dict(self.units)

    def figures(self) -> dict[str, Any]:
        return {}

    def files(self) -> dict[str, str]:
        return {"units.csv": "".join(f"{n},{u}\n" for n, u in self.units)}

    def html(self, page: Page) -> Markup:
        return page.render(template_of(self.TEMPLATE), rows=self.units)


def test_a_new_section_needs_no_change_to_the_report(tmp_path: Path) -> None:
    analysis = report_from_responses(
        EXAMPLE / "key.txt", RESPONSES[:3], config=EXAMPLE / "config.toml",
        settings=SignificanceSettings(method="exact", bootstrap=0, seed=1), metrics="f1")
    section = _Longest(tuple((n, len(analysis.tallies.units)) for n in analysis.tallies.systems))
    assert isinstance(section, ReportSection)
    written = write_report(analysis.with_section(section), tmp_path / "r")
    page = written.html.read_text()
    contents = page[page.index("<nav>"):page.index("</nav>")]
    assert contents.index('href="#groupings"') < contents.index('href="#units"') < \
        contents.index('href="#settings"')
    assert page.index('<section id="groupings"') < page.index('<section id="units"') < \
        page.index('<section id="settings"')
    assert 'data-system="alpha"' in page[page.index('<section id="units"'):]
    assert json.loads(written.json.read_text())["units"] == dict(section.units)
    assert (tmp_path / "r" / "units.csv").read_text().startswith("alpha,")


def test_every_candidate_of_a_baseline_is_tested_with_one_seed() -> None:
    # With no seed given, each candidate was tested with a seed of its own and only the last
    # one was recorded: the recorded seed did not reproduce the earlier candidates' p-values.
    from muceval.core.units import from_arrays
    from muceval.significance.baseline import compare_to_baseline

    rng = __import__("numpy").random.default_rng(5)
    counts = rng.integers(0, 4, size=(3, 40, 4))
    counts[..., 2] = __import__("numpy").minimum(counts[..., 2], counts[..., :2].min(-1))
    counts[..., 3] = 0
    t = from_arrays(["base", "b", "c"], [f"m{i}" for i in range(40)], counts)
    unseeded = SignificanceSettings(method="approximate", shuffles=199, seed=None, bootstrap=0)
    result = compare_to_baseline(t, "base", metrics=["f1"], settings=unseeded)
    again = compare_to_baseline(t, "base", metrics=["f1"],
                                settings=SignificanceSettings(
                                    method="approximate", shuffles=199,
                                    seed=result.settings["seed"], bootstrap=0))
    assert [c.p_value for c in result.comparisons] == [c.p_value for c in again.comparisons]


def test_a_modern_report_refuses_metrics_it_would_not_test(modern: Path, tmp_path: Path,
                                                           capsys) -> None:
    # --metrics was taken and ignored: a modern report tests precision, recall and F1.
    key, preds = modern / "gtt" / "test.json", [modern / "gtt" / "preds_gtt.out"] * 2
    assert main(["report", "--key", str(key), *map(str, preds), "--metrics", "f1",
                 "--out", str(tmp_path / "r")]) == 2
    assert "--metrics belongs to the 1992 scorer" in capsys.readouterr().err
    with pytest.raises(UsageError) as raised:
        build_report(ModernPredictions(str(key), tuple(map(str, preds))), metrics="f1")
    assert raised.value.parameter == "metrics"


def test_report_and_compare_use_the_remappings_adjudicate_kept(tmp_path: Path, capsys) -> None:
    # `score` with a history used the templates a person re-mapped in `muceval adjudicate`;
    # `report` and `compare` with the same history silently did not.
    import shutil

    from muceval.formats.muc.mappings import sidecar_mapping_path

    history = tmp_path / "h.lisp"
    shutil.copy(EXAMPLE / "history.lisp", history)
    sidecar = sidecar_mapping_path(history, "alpha")
    sidecar.parent.mkdir()
    sidecar.write_text("DEMO-0003 2 1\n")
    base = ["--key", str(EXAMPLE / "key.txt"), "--config", str(EXAMPLE / "config.toml"),
            "--history", str(history)]
    two = [str(RESPONSES[0]), str(RESPONSES[1])]
    assert main(["score", *base, *two, "--format", "json", "-o", str(tmp_path / "s.json")]) == 0
    scored = {s["system"]: s for s in json.loads((tmp_path / "s.json").read_text())["systems"]}
    assert main(["report", *base, *two, "--seed", "1", "--shuffles", "99", "--bootstrap", "0",
                 "--out", str(tmp_path / "r")]) == 0
    assert "alpha uses the manual mappings of muceval adjudicate" in capsys.readouterr().err
    reported = json.loads((tmp_path / "r" / "report.json").read_text())["systems"]
    alpha = next(s for s in reported if s["system"] == "alpha")
    tally = next(r["tallies"] for r in scored["alpha"]["summary"]["accumulators"]["all-templates"]
                 if r["row"] == "ALL TEMPLATES")
    assert alpha["all_templates"]["tallies"] == tally
    unmapped = muceval.score_files(muceval.load_configuration(EXAMPLE / "config.toml"),
                                   EXAMPLE / "key.txt", [RESPONSES[0]],
                                   history_path=EXAMPLE / "history.lisp")
    assert muceval.summarize(unmapped.systems["alpha"], muceval.load_configuration(
        EXAMPLE / "config.toml")).all_templates.total.as_dict() != tally
    assert main(["compare", *base, *two, "--format", "json"]) == 0
    compared = json.loads(capsys.readouterr().out)
    recall = next(c for c in compared["comparisons"] if c["metric"] == "recall")
    assert recall["baseline_score"] == pytest.approx((tally["cor"] + tally["par"] / 2)
                                                     / tally["pos"])
