"""muceval report: the HTML report with plots."""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from typing import TYPE_CHECKING

import click

from muceval.cli.app import cli
from muceval.cli.common import (
    RESPONSES,
    SCORES,
    expand_folders,
    given_on_command_line,
    print_notes,
    progress_bar,
    refuse_unused,
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
from muceval.errors import UsageError
from muceval.reporting.options import ReportOptions

if TYPE_CHECKING:
    from pathlib import Path

    from muceval.reporting.analysis import Analysis
    from muceval.reporting.modern_report import ModernAnalysis
    from muceval.scoring.muc1992.scorer import ScoringOptions


def _report_options() -> Decorator:
    """``--out`` and the :class:`ReportOptions`: the command receives both as ``written``."""
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
                     default="muceval-report",
                     help="Folder for report.html, the figures and the data."),
        click.option("--title", help="Title of the page."),
        click.option("--force", is_flag=True,
                     help="Replace the files of an earlier report in the --out folder (never "
                     "an input)."),
        click.option("--alignment", "alignment", metavar="CRITERIA",
                     help="With --key: add an Alignment section comparing these criteria "
                     "(comma-separated; 'compare' takes the configuration's compare list), "
                     "with the pair evidence, the removal audit and the calibration."),
        click.option("--png/--no-png", "png", default=False,
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
@selection_options(parse=True)
@unit_level_option
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
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

    from muceval.pipelines.report import ModernPredictions, build_report, report_source

    started = time.perf_counter()
    out_dir, shown = written
    if example:
        if inputs or key_path or configuration.config_path or history_path:
            raise UsageError("--example takes no INPUT, --key, --config or --history")
        from muceval.reporting.demo import example_files

        bundled = example_files()
        key_path, history_path, inputs = bundled.key, bundled.history, bundled.responses
        configuration = replace(configuration, config_path=bundled.config)
    if not inputs:
        raise UsageError("give INPUT files (or --example)")
    inputs = expand_folders(inputs, SCORES if key_path is None else RESPONSES)
    # Said before the analysis runs; every file is checked again before the first is written
    # (muceval.formats.files.write_files).
    earlier = [name for name in ("report.html", "report.json")
               if os.path.lexists(os.path.join(out_dir, name))]
    if earlier and not shown.overwrite:
        raise UsageError(f"{out_dir} holds a report already ({', '.join(earlier)}): use --force "
                         "to replace it, or another --out folder")
    if (shown.alignment is not None or configuration.alignment_path is not None
            or shown.errors) and key_path is None:
        raise UsageError("--alignment, --alignment-file and --errors need responses scored "
                         "with --key (or --example)")
    source = report_source(
        inputs, key_path, config=configuration.config_path, slots=configuration.slots_path,
        alignment_file=configuration.alignment_path, history=history_path, scoring=scoring,
        unit=unit if key_path is not None or given_on_command_line("unit") else None,
        units=selection.units, names=selection.renames(inputs),
        parse=selection.parse, schema=selection.schema)
    refuse_unused(*_ACCEPTED[type(source).__name__])
    modern = isinstance(source, ModernPredictions)
    with progress_bar(True, "pairs" if modern else "randomization") as advance:
        analysis = build_report(source, settings=testing.settings, options=shown,
                                metrics=None if modern else testing.metrics,
                                threads=testing.threads, progress=advance,
                                on_scored=print_notes(strict))
    _write(analysis, out_dir, shown, source.files, fmt, started)


_COMMON = ("inputs", "example", "out_dir", "title", "force", "png", "histograms",
           *SETTINGS_OPTIONS, "metrics", "threads", "names", "fmt", "strict")
# The options each kind of input takes; any other one given is refused.
_ACCEPTED: dict[str, tuple[frozenset[str], str]] = {
    "ModernPredictions": (frozenset({*_COMMON, "key_path", "errors", "parse", "schema"}
                                    - {"unit_means", "metrics", "histograms"}),
                          "belongs to the 1992 scorer: with a modern key (GTT, GRIT, IterX) "
                          "the report scores every modern scorer and tests precision, recall "
                          "and F1"),
    "Responses": (frozenset({*_COMMON, "key_path", "config_path", "slots_path",
                             "alignment_path", "history_path", "no_query_pass", "mapping",
                             "alignment", "unit", "errors"}),
                  "does not go with responses scored against a key (one test set)"),
    "ScoreFiles": (frozenset({*_COMMON, "config_path", "slots_path", "units", "unit"}),
                   "applies when scoring responses with --key (or --example)"),
}


def _write(analysis: Analysis | ModernAnalysis, out_dir: str, shown: ReportOptions,
           keep: dict[str | None, str], fmt: str, started: float) -> None:
    import contextlib
    import json
    import time

    from rich.console import Console

    from muceval.reporting.analysis import Analysis
    from muceval.reporting.html import write_report

    with (Console(stderr=True).status("drawing figures and writing the report")
          if sys.stderr.isatty() else contextlib.nullcontext()):
        files = write_report(analysis, out_dir, shown, keep=keep)
    elapsed = time.perf_counter() - started
    if fmt == "json":
        listed: dict[str, object] = {"html": str(files.html), "json": str(files.json),
                                     "figures": [str(p) for p in files.figures]}
        if isinstance(analysis, Analysis):
            listed["data"] = [str(p) for p in files.data]
        click.echo(json.dumps({**listed, "seconds": round(elapsed, 2)}, indent=2))
    elif isinstance(analysis, Analysis):
        _print_summary(analysis, files.html, elapsed)
    else:
        _print_modern(analysis, files.html, elapsed)


def _print_summary(analysis: Analysis, html: Path, elapsed: float) -> None:
    from rich.console import Console
    from rich.table import Table

    from muceval.core.measures import F_MEASURES
    from muceval.reporting.html import format_pct

    sig = analysis.significance
    rank_metric = analysis.ranking_metric
    console = Console()
    table = Table(title=f"ALL TEMPLATES (%), ranked by {rank_metric}", title_justify="left")
    for column in ("system", "REC", "PRE", *(m.label for m in F_MEASURES), "group"):
        table.add_column(column, justify="left" if column in ("system", "group") else "right")
    for name in sig.ranking(rank_metric):
        row = analysis.system(name).all_templates
        table.add_row(name, format_pct(row.recall), format_pct(row.precision),
                      *(format_pct(v) for v in row.f), sig.letters[rank_metric][name])
    console.print(table)
    console.print(f"seed {analysis.settings.seed}; report written to [bold]{html}[/bold] "
                  f"({elapsed:.1f} s)")


def _print_modern(analysis: ModernAnalysis, html: Path, elapsed: float) -> None:
    for r in analysis.scorers:
        ranked = sorted(r.systems, key=lambda s: -s.overall.f1)
        click.echo(f"{r.label}: " + ", ".join(f"{s.system} {100 * s.overall.f1:.2f}"
                                              for s in ranked))
    click.echo(f"seed {analysis.settings.seed}; report written to {html} "
               f"({elapsed:.1f} s)")
