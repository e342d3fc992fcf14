"""muceval report: the HTML report with plots."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, cast

import click

from muceval.cli.app import cli
from muceval.cli.common import (
    RESPONSES,
    SCORES,
    expand_folders,
    note_unanswered,
    parse_criteria,
    progress_bar,
    refuse_unused,
    report_warnings,
    strict_option,
    unit_level_option,
)
from muceval.cli.groups import (
    SETTINGS_OPTIONS,
    ConfigurationChoice,
    Decorator,
    Selection,
    Testing,
    configuration_options,
    option_group,
    scoring_options,
    selection_options,
    testing_options,
)
from muceval.cli.modern import key_is_modern
from muceval.errors import UsageError
from muceval.reporting.options import ReportOptions

if TYPE_CHECKING:
    from pathlib import Path

    from muceval.core.model import Configuration
    from muceval.core.systems import SystemScores
    from muceval.core.units import UnitTallies
    from muceval.reporting.analysis import Analysis
    from muceval.reporting.html import ReportFiles
    from muceval.scoring.errors import ErrorAnalysis
    from muceval.scoring.muc1992.scorer import ScoringOptions
    from muceval.significance.settings import SignificanceSettings


def _report_options() -> Decorator:
    """The folder of the report and :class:`ReportOptions`: the command receives ``out_dir``
    and ``shown``."""
    def build(out_dir: str, title: str | None, force: bool, alignment: str | None,
              png: bool, histograms: tuple[str, ...], errors: bool,
              ) -> tuple[str, ReportOptions]:
        pairs = []
        for text in histograms:
            names = tuple(n.strip() for n in text.split(","))
            if len(names) != 2:
                raise UsageError(f"--histogram {text!r}: give two systems, A,B")
            pairs.append(names)
        return out_dir, ReportOptions(title, png, force, alignment, tuple(pairs), errors)

    return option_group("written", build, [
        click.option("--out", "out_dir", type=click.Path(file_okay=False),
                     default="muceval-report", show_default=True,
                     help="Folder for report.html, the figures and the data."),
        click.option("--title", help="Title of the page."),
        click.option("--force", is_flag=True,
                     help="Replace the files of an earlier report in the --out folder (never "
                     "an input)."),
        click.option("--alignment", "alignment", metavar="CRITERIA",
                     help="With --key: add an Alignment section comparing these criteria "
                     "(comma-separated; 'compare' takes the configuration's compare list), "
                     "with the pair evidence, the removal audit and the calibration."),
        click.option("--png/--no-png", "png", default=False, show_default=True,
                     help="Also write every figure as PNG (for slides and documents); the "
                     "report itself shows the SVG figures, which are always written."),
        click.option("--histogram", "histograms", multiple=True, metavar="A,B",
                     help="Also draw the randomization distribution of systems A and B "
                     "(Chinchor's Figure 1; every pair of neighbours in the ranking is drawn). "
                     "Repeatable."),
        click.option("--errors", is_flag=True,
                     help="With --key: add an Errors section, Das et al. (2022)'s error "
                     "categories of every system (muceval errors) as stacked bars and tables, "
                     "and the categories whose counts differ between neighbours in the "
                     "ranking by a paired randomization over documents."),
    ])


@cli.command("report")
@click.argument("inputs", metavar="INPUT...", nargs=-1, type=click.Path())
@click.option("--key", "key_path", type=click.Path(dir_okay=False),
              help="Answer key: INPUT files are then system responses to score. Without it, "
              "INPUT files are 1992 score reports or muceval JSON scores.")
@configuration_options("With --key", "Optional for score reports: it tells object subtotal "
                       "rows from slot rows.", alignment_file=True)
@click.option("--history", "history_path", type=click.Path(dir_okay=False),
              help="1992 history file of human judgements (with --key).")
@scoring_options("With --key", mapping=True)
@click.option("--example", is_flag=True,
              help="Report on the bundled example (its key, configuration, history and four "
              "systems); no INPUT needed.")
@_report_options()
@testing_options("muc4")
@selection_options()
@unit_level_option
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True,
              help="What to print: a compact table, or the written files as JSON.")
@strict_option
def report(inputs: tuple[str, ...], key_path: str | None, configuration: ConfigurationChoice,
           history_path: str | None, scoring: ScoringOptions, example: bool,
           written: tuple[str, ReportOptions], testing: Testing, selection: Selection,
           unit: str, fmt: str, strict: bool) -> None:
    """Score systems, test their differences and write one self-contained HTML report.

    With --key, INPUT files are system responses scored against the key (with
    --config and an optional --history). Without it, INPUT files are 1992 score
    reports and/or muceval JSON scores (muceval score --format json). The
    --out folder receives report.html (viewable offline), the figures as SVG (and
    PNG with --png), and the data as JSON and CSV; an earlier report there is
    replaced only with --force, an input never. --alignment adds a section on the
    alignment criteria (muceval alignment --audit all --calibrate, drawn).

    \b
    Example:
      muceval report --example --out example-report
      muceval report ../shared/muc4/tst3/official-scores/*.nrad --seed 1 --out tst3-report
      muceval report --key key.txt --config task.toml --history h.lisp A.txt B.txt
      muceval report --example --alignment 1992,strict --out example-report
      muceval report --example --errors --out example-report
      muceval report --key ../shared/modern/gtt/test.json ../shared/modern/gtt/preds_gtt.out \\
          ../shared/modern/iterx/*.jsonlines --out modern-report
    """
    import time

    from muceval.errors import UsageError
    from muceval.reporting.analysis import analyze

    started = time.perf_counter()
    _fewer_collections()
    out_dir, shown = written
    if example:
        if inputs or key_path or configuration.config_path or history_path:
            raise UsageError("--example takes no INPUT, --key, --config or --history")
        key_path, config_path, history_path, inputs = _the_example()
        configuration = replace(configuration, config_path=config_path)
    if not inputs:
        raise UsageError("give INPUT files (or --example)")
    inputs = expand_folders(inputs, SCORES if key_path is None else RESPONSES)
    _refuse_an_earlier_report(out_dir, shown.overwrite)
    if (shown.alignment is not None or configuration.alignment_path is not None
            or shown.errors) and key_path is None:
        raise UsageError("--alignment, --alignment-file and --errors need responses scored "
                         "with --key (or --example)")
    modern = key_path is not None and key_is_modern(key_path)
    _refuse_unused(key_path, modern)
    if modern and key_path is not None:
        _modern_report(key_path, inputs, selection.renames(inputs), out_dir, shown, fmt,
                       strict, started, testing.settings,
                       {key_path: "key", **{p: "prediction file" for p in inputs}})
        return
    extra: dict[str, str] = {}
    config: Configuration | None  # None: score files read without a configuration
    errors: ErrorAnalysis | None = None
    if key_path is not None:
        config, systems, tallies, recorded, errors = _scored(
            key_path, inputs, configuration, history_path, scoring, selection, unit, strict,
            extra, shown.errors)
        if shown.alignment is not None:
            recorded["alignment"] = shown.alignment
            recorded["alignment file"] = configuration.alignment_path or "none"
    else:
        config, systems, tallies, recorded = _from_scores(inputs, configuration, selection,
                                                          unit)
    if len(systems) < 2:
        raise UsageError("a report compares systems: give at least two")
    with progress_bar(sys.stderr.isatty()) as advance:
        analysis = analyze(systems, tallies, metrics=testing.metrics, settings=testing.settings,
                           threads=testing.threads, progress=advance, inputs=recorded)
    analysis = _with_errors(analysis, errors, testing.settings)
    if shown.alignment is not None:
        # --alignment was refused above without --key: a configuration was resolved and the
        # key path is set.
        analysis = _with_alignment(analysis, cast("Configuration", config), cast(str, key_path),
                                   inputs, selection.renames(inputs), history_path, scoring,
                                   configuration, shown, testing.settings.shuffles, strict, extra)
    keep = _inputs(inputs, key=key_path, history=history_path, **{
        role: path for path, role in configuration.inputs().items()})
    _write(analysis, out_dir, shown, extra, keep, fmt, started)


def _fewer_collections() -> None:
    """Let the garbage collector run about 30 times less often until the command ends: the
    parsed inputs, the scores and the figures are millions of long-lived objects that it
    walked again and again (a quarter of the time, issue 30), and they leave few cycles (the
    peak memory of the TST3 reports stayed within 1%)."""
    import gc

    thresholds = gc.get_threshold()
    gc.set_threshold(20_000, 20, 20)
    click.get_current_context().call_on_close(lambda: gc.set_threshold(*thresholds))


_COMMON = ("inputs", "example", "out_dir", "title", "force", "png", *SETTINGS_OPTIONS, "metrics",
           "threads", "names", "fmt", "strict")
"""The options of `report` whatever it reports on."""


def _refuse_unused(key_path: str | None, modern: bool) -> None:
    """Each way of reading the systems takes its own options; any other one given is refused."""
    if modern:
        refuse_unused({*_COMMON, "key_path", "errors"} - {"unit_means"},
                      "belongs to the 1992 scorer: with a modern key "
                      "(GTT, GRIT, IterX) the report scores every modern scorer")
    elif key_path is not None:
        refuse_unused({*_COMMON, "key_path", "config_path", "slots_path", "alignment_path",
                       "history_path", "no_query_pass", "mapping", "alignment", "unit",
                       "errors"},
                      "does not go with responses scored against a key (one test set)")
    else:
        refuse_unused({*_COMMON, "config_path", "slots_path", "units", "unit"},
                      "applies when scoring responses with --key (or --example)")


def _scored(key_path: str, inputs: tuple[str, ...], configuration: ConfigurationChoice,
            history_path: str | None, scoring: ScoringOptions, selection: Selection,
            unit: str, strict: bool, extra: dict[str, str], errors: bool,
            ) -> tuple[Configuration, list[SystemScores], UnitTallies, dict[str, object],
                       ErrorAnalysis | None]:
    """Responses scored against the key: the configuration, the systems, their units, what
    the report records of it and, with ``errors``, their error analysis (from the same
    scoring); ``scores.json`` joins the ``extra`` files."""
    from muceval.formats.files import system_name
    from muceval.formats.scores.json import scores_to_json
    from muceval.reporting.analysis import systems_from_pairs
    from muceval.scoring.session import score_files

    config = configuration.load()
    renamed = selection.renames(inputs)
    if errors and scoring.mapping != "greedy":
        raise UsageError(f"--errors sorts the 1992 scorer's verdicts at the 1992 template "
                         f"mapping: it does not go with --mapping {scoring.mapping}")
    session = score_files(config, key_path, inputs, history_path=history_path,
                          options=replace(scoring, fills=unit == "fill" or errors),
                          names=renamed)
    report_warnings(session.warnings, session.file_warnings, strict)
    note_unanswered(session.unanswered, "incorrect", history_path)
    results = session.systems
    systems, tallies = systems_from_pairs(results, config,
                                          {renamed.get(p) or system_name(p): str(p)
                                           for p in inputs}, unit=unit)
    label = os.path.basename(configuration.config_path) if configuration.config_path \
        else "muc4 (bundled)"
    extra["scores.json"] = scores_to_json(results, config, config_label=label, unit=unit)
    recorded: dict[str, object] = {
        "key": key_path, "configuration": configuration.label,
        "history": history_path or "none", "responses": list(inputs),
        "query pass": scoring.query_pass, "mapping": scoring.mapping, "unit": unit}
    analysed = None
    if errors:
        from muceval.scoring.errors.muc1992 import analyse_1992_session

        analysed = analyse_1992_session(config, key_path, inputs, session,
                                        history_path=history_path, names=renamed)
    return config, systems, tallies, recorded, analysed


def _with_errors(analysis: Analysis, errors: ErrorAnalysis | None,
                 settings: SignificanceSettings) -> Analysis:
    """The analysis with its Errors section (when ``errors``), in the report's ranking,
    tested with the report's seed."""
    from muceval.reporting.errors_section import error_section
    from muceval.reporting.plots import METRIC_TITLES

    if errors is None:
        return analysis
    significance = analysis.significance
    metric = "f1" if "f1" in significance.metrics else significance.metrics[0]
    seeded = replace(settings, seed=significance.settings["seed"])
    return replace(analysis, errors=error_section(errors, significance.ranking(metric),
                                                  METRIC_TITLES.get(metric, metric), seeded))


def _write(analysis: Analysis, out_dir: str, shown: ReportOptions, extra: dict[str, str],
           keep: dict[str | Path | None, str], fmt: str, started: float) -> None:
    """Write the report, then say where: the compact table, or the files as JSON."""
    import json
    import time

    from rich.console import Console

    from muceval.reporting.html import write_report

    def written() -> ReportFiles:
        return write_report(analysis, out_dir, shown, extra_files=extra, keep=keep)

    if sys.stderr.isatty():
        with Console(stderr=True).status("drawing figures and writing the report"):
            files = written()
    else:
        files = written()
    elapsed = time.perf_counter() - started
    if fmt == "json":
        click.echo(json.dumps({
            "html": str(files.html), "json": str(files.json),
            "figures": [str(p) for p in files.figures], "data": [str(p) for p in files.data],
            "seconds": round(elapsed, 2)}, indent=2))
        return
    _print_summary(analysis, files.html, elapsed)


def _the_example() -> tuple[str, str, str, tuple[str, ...]]:
    """The bundled example's key, configuration, history and responses."""
    from muceval.reporting.demo import example_files

    bundled = example_files()
    return bundled.key, bundled.config, bundled.history, bundled.responses


def _refuse_an_earlier_report(out_dir: str, force: bool) -> None:
    """Said before the analysis runs; every file is checked again before the first is
    written (:func:`muceval.formats.files.write_files`)."""
    from muceval.errors import UsageError

    earlier = [name for name in ("report.html", "report.json")
               if os.path.lexists(os.path.join(out_dir, name))]
    if earlier and not force:
        raise UsageError(f"{out_dir} holds a report already ({', '.join(earlier)}): use --force "
                         "to replace it, or another --out folder")


def _inputs(inputs: Sequence[str], **named: str | None) -> dict[str | Path | None, str]:
    """Every file the report reads, with what it is: never to be replaced by its output."""
    keep: dict[str | Path | None, str] = {path: role for role, path in named.items()}
    keep.update((path, "input") for path in inputs)
    return keep


def _from_scores(inputs: tuple[str, ...], configuration: ConfigurationChoice,
                 selection: Selection, unit: str,
                 ) -> tuple[Configuration | None, list[SystemScores], UnitTallies,
                            dict[str, object]]:
    """Systems read from score files; ``--unit`` insists on a level only when it was given."""
    from muceval.formats.registry import load_systems

    given = click.get_current_context().get_parameter_source("unit")
    level = unit if given is click.core.ParameterSource.COMMANDLINE else None
    config = configuration.load() if configuration.given else None
    systems, tallies = load_systems(list(inputs), config, selection.units,
                                    selection.renames(inputs), level)
    recorded: dict[str, object] = {"inputs": list(inputs),
                                   "configuration": configuration.config_path or "none",
                                   "units": selection.units, "unit": tallies.level or "as given"}
    return config, systems, tallies, recorded


def _print_summary(analysis: Analysis, html: Path, elapsed: float) -> None:
    """The compact terminal table: ALL TEMPLATES per system, ranked, with its group."""
    from rich.console import Console
    from rich.table import Table

    from muceval.reporting.html import format_pct

    sig = analysis.significance
    rank_metric = "f1" if "f1" in sig.metrics else sig.metrics[0]
    console = Console()
    table = Table(title=f"ALL TEMPLATES (%), ranked by {rank_metric}", title_justify="left")
    for column in ("system", "REC", "PRE", "F P&R", "F 2P&R", "F P&2R", "group"):
        table.add_column(column, justify="left" if column in ("system", "group") else "right")
    for name in sig.ranking(rank_metric):
        row = analysis.system(name).all_templates
        table.add_row(name, format_pct(row.recall), format_pct(row.precision),
                      format_pct(row.f_pr), format_pct(row.f_2pr), format_pct(row.f_p2r),
                      sig.letters[rank_metric][name])
    console.print(table)
    console.print(f"seed {sig.settings['seed']}; report written to [bold]{html}[/bold] "
                  f"({elapsed:.1f} s)")


def _with_alignment(analysis: Analysis, config: Configuration, key_path: str,
                    inputs: tuple[str, ...], names: dict[str, str], history_path: str | None,
                    scoring: ScoringOptions, configuration: ConfigurationChoice,
                    shown: ReportOptions, shuffles: int, strict: bool,
                    extra: dict[str, str]) -> Analysis:
    """The analysis with its ``alignment`` part: the same audit as ``muceval alignment
    --audit all --calibrate``, tested with the report's seed and alpha."""
    import dataclasses

    from muceval.reporting.alignment import alignment_to_dict, alignment_to_json, compare_criteria
    from muceval.scoring.session import audit_files
    from muceval.significance.settings import SignificanceSettings
    from muceval.version import __version__

    criteria = None if shown.alignment == "compare" else parse_criteria(shown.alignment, config)
    audit, warnings = audit_files(config, key_path, inputs, history_path=history_path,
                                  names=names, criteria=criteria, pairs=True, removal=True,
                                  calibrate=True, query_pass=scoring.query_pass)
    report_warnings((), warnings, strict)
    settings = analysis.significance.settings
    comparison = compare_criteria(audit, SignificanceSettings(
        shuffles=shuffles, seed=settings["seed"], alpha=settings["alpha"])) \
        if len(audit.scored) > 1 else None
    recorded = {"command": "report", "muceval": __version__, "key": key_path,
                "config": analysis.settings["inputs"].get("configuration"), "history": history_path,
                "alignment_file": configuration.alignment_path, "criteria": list(audit.scored),
                "default": audit.default, "flag": audit.flag, "audit": "all",
                "query_pass": scoring.query_pass, "unit": "message"}
    extra["alignment.json"] = alignment_to_json(audit, comparison, recorded)
    return dataclasses.replace(
        analysis, alignment=alignment_to_dict(audit, comparison, recorded))


def _modern_report(key_path: str, inputs: tuple[str, ...], names: dict[str, str], out_dir: str,
                   shown: ReportOptions, fmt: str, strict: bool, started: float,
                   settings: SignificanceSettings, keep: dict[str | Path | None, str]) -> None:
    """Modern predictions: every scorer side by side, significance per scorer, one page."""
    import json
    import time

    from muceval.cli.groups import ModernChoice
    from muceval.cli.modern import score_modern
    from muceval.reporting.modern_report import analyze_modern, write_modern_report

    run = score_modern(key_path, inputs, ModernChoice("all"), strict, names)
    for line in run.skipped:
        click.echo(f"note: not scored: {line}", err=True)
    with progress_bar(sys.stderr.isatty(), "pairs") as advance:
        analysis = analyze_modern([list(systems) for systems in run.scores], settings,
                                  {"key": key_path, "predictions": list(inputs),
                                   "gold layout": run.layout}, advance)
    if shown.errors:
        from muceval.reporting.errors_section import error_section
        from muceval.scoring.errors import analyse_error_files

        label, order = analysis.ranking
        seeded = replace(settings, seed=analysis.settings["seed"])
        analysis = replace(analysis, errors=error_section(
            analyse_error_files(key_path, inputs, names=names), order, label, seeded))
    files = write_modern_report(analysis, out_dir, title=shown.title, png=shown.png,
                                overwrite=shown.overwrite, keep=keep)
    elapsed = time.perf_counter() - started
    if fmt == "json":
        click.echo(json.dumps({"html": str(files.html), "json": str(files.json),
                               "figures": [str(p) for p in files.figures],
                               "seconds": round(elapsed, 2)}, indent=2))
        return
    for r in analysis.scorers:
        ranked = sorted(r.systems, key=lambda s: -s.overall.f1)
        click.echo(f"{r.label}: " + ", ".join(f"{s.system} {100 * s.overall.f1:.2f}"
                                              for s in ranked))
    click.echo(f"seed {analysis.settings['seed']}; report written to {files.html} "
               f"({elapsed:.1f} s)")
