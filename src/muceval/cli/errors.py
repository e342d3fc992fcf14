"""`muceval errors`: Das et al. (2022)'s error analysis of modern predictions (any template
schema) and of 1992 MUC-4 templates."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import click

from muceval.cli.app import cli
from muceval.cli.common import PARSE_OPTION, SCHEMA_OPTION, notice
from muceval.cli.groups import (
    Destination,
    Selection,
    destination_options,
    option_group,
    selection_options,
)
from muceval.pipelines.common import refuse_outputs

if TYPE_CHECKING:
    from rich.console import Console

    from muceval.pipelines.errors import ErrorComparison
    from muceval.scoring.errors import ErrorAnalysis, SystemErrors
    from muceval.scoring.errors.model import Mode, Types

MODE_CHOICES = ("all", "msp", "mmi", "mat")
TYPE_CHOICES = ("equal", "any")
WIDTH = 160


@dataclass(frozen=True)
class Scoring1992:
    """How 1992 responses are scored before their errors are sorted."""

    config: str | None
    history: str | None
    no_query_pass: bool


@dataclass(frozen=True)
class Reading:
    """How modern files are read: the key's template schema and how raw answers are parsed."""

    schema: str | None
    parse: str


@cli.command("errors")
@click.argument("predictions", nargs=-1, required=True, metavar="PRED...",
                type=click.Path(dir_okay=False))
@click.option("--key", "key_path", required=True, metavar="GOLD|embedded",
              help="The gold file with the document texts (GTT's or GRIT's test.json), or "
              "'embedded': the gold and text each record of a GTT prediction file carries, "
              "as the original reads them (a file called 'embedded': ./embedded).")
@click.option("--after-repair", is_flag=True,
              help="Apply each error's transformation and analyse the repaired predictions "
              "again (the original's -at: the After Transformation block).")
@click.option("--canonical-order", is_flag=True,
              help="Sort templates, entities and mentions first: the original's categories "
              "depend on the input order (its P/R/F1 and Error Score do not).")
@click.option("--mode", type=click.Choice(MODE_CHOICES), default="all",
              help="Which unpaired templates count (the original's -s): all; msp without the "
              "missing ones; mmi without the spurious ones; mat without either. The "
              "alignment is the same in every mode.")
@click.option("--types", type=click.Choice(TYPE_CHOICES), default="equal",
              help="equal: templates pair only with the same incident type (-m MUC_Errors); "
              "any: any pair, a differing type counted as Incorrect_Incident_Type "
              "(-m Errors, which crashes in the original).")
@option_group("reading", Reading, [SCHEMA_OPTION, PARSE_OPTION])
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table",
              help="table: P/R/F1 and the categories per system; json: everything, per "
              "document too; csv: one line per system, document and row.")
@option_group("scoring", Scoring1992, [
    click.option("--config", "config", metavar="CONFIG",
                 help="1992 templates only: the configuration (TOML, config-*.el, or 'muc4', "
                 "the default)."),
    click.option("--history", "history", type=click.Path(dir_okay=False),
                 help="1992 templates only: the history of judgements the scorer uses."),
    click.option("--no-query-pass", is_flag=True,
                 help="1992 templates only: score in batch mode (no query pass).")])
@click.option("--compare", "compare_to", is_flag=True,
              help="The first PRED is a baseline: for each other, per category, both counts, "
              "the difference and the p-value of a paired randomization over documents (exact "
              "up to 20 differing documents, else 9,999 shuffles, seed 1).")
@destination_options()
@selection_options(units=False)
def errors(predictions: tuple[str, ...], key_path: str, after_repair: bool,
           canonical_order: bool, mode: str, types: str, reading: Reading, fmt: str,
           scoring: Scoring1992, compare_to: bool, destination: Destination,
           selection: Selection) -> None:
    """Error analysis of template filling (Das et al. 2022): sixteen error categories.

    Aligns the predicted with the gold templates of each document as the
    original Error_Analysis.py does (-s all -m MUC_Errors), scores them
    (micro P/R/F1 over the template type and the roles, one numerator for
    both), and sorts every wrong or missing role filler into a category named
    after the edit that would repair it; the Error Score sums the errors.
    PRED: prediction files of any modern layout (GTT, GRIT, IterX, muceval's
    neutral JSON, raw answers of a language model); the document text comes
    from the key (--key embedded: from each record; FAMuS's prompt files: the
    document of each prompt). The categories are counted per role of the
    key's schema (--schema): MUC-4's five in the original's order, another
    schema's in its order, open roles (FAMuS) as the key and then the
    predictions name them. docs/error-analysis.md gives the rules where the
    original crashes. When --key is a 1992 template file, the responses are
    1992 template files too: they are scored by the 1992 scorer (--config,
    --history, --no-query-pass) and its verdicts sorted into the categories
    (docs/error-analysis.md, "1992 templates").

    \b
    Example:
      muceval errors --key embedded ../shared/modern/gtt/preds_gtt.out
      muceval errors --key ../shared/modern/gtt/test.json --after-repair \\
          ../shared/modern/iterx/preds.bart-base.test.jsonlines --format json -o errors.json
      muceval errors --key key-tst3.v2 --config config-tst3.el \\
          --history final-history-nrad.tst3 BBN.tst3 NYU.tst3
      muceval errors --key famus/data/prompts/report/dev.json \\
          dev_report_gpt-3.5-turbo-0301_responses.jsonl
    """
    from muceval.pipelines.errors import analyse_errors, compare_errors
    from muceval.scoring.errors import EMBEDDED, ErrorOptions

    inputs: dict[str | None, str] = {p: "predictions" for p in predictions}
    if key_path != EMBEDDED:
        inputs[key_path] = "key"
    refuse_outputs([destination.output], inputs)
    # Which options go with a 1992 key and which with a modern one: analyse_errors decides.
    analysis = analyse_errors(
        key_path, predictions, options=ErrorOptions(cast("Mode", mode), cast("Types", types),
                                                    after_repair, canonical_order),
        config=scoring.config, history=scoring.history,
        query_pass=not scoring.no_query_pass, names=selection.renames(list(predictions)),
        schema=reading.schema, parse=reading.parse)
    for system in analysis.systems:
        for warning in system.warnings:
            notice(f"warning: {warning}")
    if compare_to:
        _compare(compare_errors(analysis), fmt, destination)
    elif fmt == "json":
        destination.emit(analysis.to_json())
    elif fmt == "csv":
        destination.emit(analysis.to_csv())
    else:
        destination.emit(_tables(analysis, destination.output is None))


def _compare(compared: ErrorComparison, fmt: str, destination: Destination) -> None:
    from muceval.reporting.error_changes import error_changes_to_json

    settings = compared.settings
    if fmt == "json":
        destination.emit(error_changes_to_json(compared.counts, compared.baseline,
                                               list(compared.changes), settings))
        return
    if fmt == "csv":
        raise click.UsageError("--compare gives a table or JSON")
    from muceval.reporting.outputs import text_console
    from muceval.reporting.terminal import render_error_changes

    console = text_console(120, destination.output is None)
    render_error_changes(list(compared.changes), console, settings.alpha, settings.seed,
                         settings.adjust)
    if destination.output is not None:
        destination.emit(console.export_text())


def _tables(analysis: ErrorAnalysis, terminal: bool) -> str:
    from muceval.reporting.outputs import text_console

    console = text_console(WIDTH, terminal)
    for system in analysis.systems:
        _scores(console, system)
        _categories(console, system)
        if system.transformations:
            kept = ", ".join(f"{name} {n}" for name, n in system.transformations.items())
            console.print(f"  transformations kept: {kept}")
    return "" if terminal else console.export_text()


def _scores(console: Console, system: SystemErrors) -> None:
    from muceval.reporting.outputs import new_table

    before, after = system.before_totals, system.after_totals
    columns = ["P", "R", "F1", "num", "p_den", "r_den"]
    if after is not None:
        columns += ["after P", "after R", "after F1"]
    table = new_table(f"{system.system}: Before Transformation"
                      + (" and After" if after is not None else ""), ("row",), columns)
    for n, name in enumerate(before.names):
        row = before.rows[n]
        # Percentages with two decimals, as score prints them (JSON and CSV keep fractions).
        cells = [name, f"{100 * row.precision:.2f}", f"{100 * row.recall:.2f}",
                 f"{100 * row.f1:.2f}", str(row.num), str(row.p_den), str(row.r_den)]
        if after is not None:
            a = after.rows[n]
            cells += [f"{100 * a.precision:.2f}", f"{100 * a.recall:.2f}", f"{100 * a.f1:.2f}"]
        table.add_row(*cells)
    console.print(table)


def _score(totals: Any) -> str:
    # Two decimals where a partial match made it fractional (JSON and CSV keep the original's).
    return f"{totals.error_score:.2f}" if totals.partial else totals.error_score_text


def _chunks(columns: list[list[str]], room: int) -> list[list[int]]:
    """The columns split, in order, into runs that fit ``room`` characters (at least one
    column each)."""
    runs: list[list[int]] = [[]]
    used = 0
    for n, cells in enumerate(columns):
        width = max(len(cell) for cell in cells) + 3
        if runs[-1] and used + width > room:
            runs.append([])
            used = 0
        runs[-1].append(n)
        used += width
    return runs


def _categories(console: Console, system: SystemErrors) -> None:
    """The categories per row; with many roles (open schemas such as FAMuS's frames) the
    rows are split over several tables that each fit the width."""
    from muceval.reporting.outputs import new_table

    before, after = system.before_totals, system.after_totals
    categories = system.options.categories
    names = before.names
    cells = [[name, *(str(row.category(c)) for c in categories)]
             for name, row in zip(names, before.rows, strict=True)]
    cells[0].append(_score(before))
    label = max(len(c) for c in (*categories, "Error Score", "category")) + 4
    extra = len("after: total") + 3 if after is not None else 0
    runs = _chunks(cells, WIDTH - label - extra)
    for part, run in enumerate(runs, start=1):
        shown = "" if len(runs) == 1 else f", {part}/{len(runs)}"
        last = after is not None and part == 1
        table = new_table(f"{system.system}: error categories (Before Transformation, per "
                          f"row{shown})", ("category",),
                          [*(names[n] for n in run), *(["after: total"] if last else [])])
        for k, category in enumerate(categories):
            row = [category, *(cells[n][k + 1] for n in run)]
            if last and after is not None:
                row.append(str(after.total.category(category)))
            table.add_row(*row)
        score = ["Error Score", *(_score(before) if n == 0 else "" for n in run)]
        if last and after is not None:
            score.append(_score(after))
        table.add_row(*score, end_section=False)
        console.print(table)
