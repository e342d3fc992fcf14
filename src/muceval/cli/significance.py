"""muceval significance: test every pairwise difference."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, cast

import click

if TYPE_CHECKING:
    from muceval.core.units import UnitTallies
    from muceval.significance.distributed import DaskExecutor
    from muceval.significance.result import SignificanceResult
    from muceval.significance.settings import SignificanceSettings

from muceval.cli.app import cli
from muceval.cli.common import (
    ERROR_ANALYSES,
    SCORES,
    UNIT_LEVEL_HELP,
    UNIT_LEVELS,
    expand_folders,
    progress_bar,
    progress_option,
    refuse_unused,
)
from muceval.cli.groups import (
    SETTINGS_OPTIONS,
    Cluster,
    Destination,
    Selection,
    Testing,
    executor_options,
    option_group,
    selection_options,
    testing_options,
)
from muceval.scoring.scorers import modern_scorers


def _pairs_file(pairs_path: str | None, force: bool) -> Destination | None:
    return None if pairs_path is None else Destination(pairs_path, force)


@dataclass(frozen=True)
class Subject:
    """What is tested besides MUC tallies: one scorer of modern scores files, or the error
    categories of error analyses."""

    scorer: str | None
    errors: bool


@cli.command("significance")
@click.argument("inputs", metavar="INPUT...", nargs=-1, required=True, type=click.Path())
@testing_options("muc4")
@selection_options()
@click.option("--unit", "unit_level", type=click.Choice(UNIT_LEVELS),
              help="Insist on what one unit is: " + UNIT_LEVEL_HELP + " muceval scores hold the "
              "level they were written with (muceval score --unit LEVEL --format json); "
              "1992 reports hold messages. By default, the level the inputs hold.")
@option_group("subject", Subject, [
    click.option("--scorer", "--metric", "scorer", type=click.Choice(modern_scorers()),
                 help="Modern scores files (score --metric all): which scorer's counts to "
                 "test."),
    click.option("--errors", is_flag=True,
                 help="INPUT files are error analyses (muceval errors --format json): test, "
                 "per error category, every pair of systems by a paired randomization over "
                 "documents (exact up to 20 differing documents); --shuffles, --seed, --alpha "
                 "and --adjust apply (--adjust: over the pairs of each category).")])
@click.option("--matrix/--no-matrix", default=None,
              help="Print the p-value matrices (by default only when they fit the terminal).")
@click.option("--tests", "tests", metavar="TESTS",
              help="Show the classic tests beside randomization, per pair: comma-separated "
              "from paired-t, sign, wilcoxon, two-sample-t, binomial, chi2, or 'paired' "
              "(paired-t, sign, wilcoxon) or 'all'; with the correlation r of the systems and "
              "Yeh's factor √(1/(1−r)) by which tests assuming independence understate "
              "significance. JSON and CSV always hold every test.")
@executor_options(
    "Run the shuffles on Dask: tcp://HOST:8786 (a running scheduler) or local:N (N worker "
    "processes started for the run); the p-values are those of an in-process run. Needs "
    "'muceval[distributed]'.",
    "With --scheduler: append each finished batch to this file; the same command started "
    "again with it resumes where the run stopped.")
@option_group("pairs", _pairs_file, [
    click.option("--pairs", "pairs_path", type=click.Path(dir_okay=False),
                 help="Write every pairwise comparison to this CSV file as it is computed (the "
                 "columns of --format csv), keeping only arrays in memory: for leaderboards of "
                 "hundreds or thousands of systems. The terminal (or --format json) then gets "
                 "the summary: scores, groups and letters."),
    click.option("--force", is_flag=True, help="With --pairs: replace an existing file.")])
@click.option("--plan", "show_plan", is_flag=True,
              help="Print the jobs, the work and the estimated time (from a short calibration "
              "run on this machine), and run nothing.")
@progress_option
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table",
              show_default=True)
def significance(inputs: tuple[str, ...], testing: Testing, selection: Selection,
                 unit_level: str | None, subject: Subject, matrix: bool | None,
                 tests: str | None, cluster: Cluster | None, pairs: Destination | None,
                 show_plan: bool, progress: bool | None, fmt: str) -> None:
    """Test every pairwise difference between systems for significance.

    INPUT files are 1992 score reports (one system each, named by the file name
    without its last suffix), muceval scores (muceval score --format json or
    csv: every system in the file, per message) or CSV files with the columns
    system,unit,POS,ACT,COR,PAR.

    \b
    Example:
      muceval significance ../shared/muc4/tst3/official-scores/*.nrad --seed 1
      muceval significance scores.json --plan
      muceval significance scores.json --metrics recall,f1 --tests all
      muceval score --key KEY --history HIST --unit fill --format json -o fills.json A B
      muceval significance fills.json --unit fill --method auto --tests all
      muceval significance scores.json --scheduler local:2 --checkpoint run.ckpt
      muceval significance leaderboard.csv --pairs pairs.csv --format json
      muceval errors --key GOLD A B C --format json -o errors.json
      muceval significance errors.json --errors --adjust holm
    """
    from muceval.significance.engine import compare

    if subject.errors:
        _error_pairs(expand_folders(inputs, ERROR_ANALYSES), testing, selection, fmt)
        return
    scorer = subject.scorer
    inputs = expand_folders(inputs, SCORES)
    chosen_tests = _parse_tests(tests)
    # The terminal shows no intervals, and the classic tests only with --tests: computing
    # them there would cost a leaderboard seconds for nothing.
    table = fmt == "table"
    settings = replace(testing.settings, bootstrap=0 if table else testing.settings.bootstrap,
                       classic=bool(chosen_tests) or not table)
    if not table and (matrix is not None or tests is not None):
        raise click.UsageError(f"--matrix and --tests choose what the terminal table shows; "
                               f"--format {fmt} holds every matrix cell and every test")
    if _modern_scores(inputs):
        refuse_unused({*SETTINGS_OPTIONS, "inputs", "metrics", "scorer", "matrix", "progress",
                       "fmt"} - {"unit_means"}, "applies to MUC tallies; modern scores are tested per document, "
                       "in-process, by randomization only")
        result: SignificanceResult = _ratios(inputs, scorer, testing, settings, _show(progress))
    else:
        refuse_unused([p for p in click.get_current_context().params if p != "scorer"],
                      "chooses among the scorers of modern scores files; these are MUC tallies")
        tallies = _tallies(inputs, selection, unit_level)
        executor = cluster.executor() if cluster is not None else None
        if show_plan:
            _print_plan(tallies, testing.metrics, settings, testing.threads, executor, fmt)
            return
        if pairs is not None:
            # The file holds every column, whatever the terminal shows.
            _write_pairs(tallies, testing, executor, pairs, list(inputs), _show(progress),
                         fmt, tests)
            return
        with progress_bar(_show(progress)) as advance:
            result = compare(tallies, testing.metrics, settings, threads=testing.threads,
                             progress=advance, executor=executor)
    _print(result, fmt, matrix, chosen_tests)


def _error_pairs(inputs: tuple[str, ...], testing: Testing, selection: Selection,
                 fmt: str) -> None:
    """Every pair of systems of the error analyses, per category."""
    from rich.console import Console

    from muceval.formats.error_counts import read_error_counts
    from muceval.reporting.error_changes import error_changes_to_csv, error_changes_to_json
    from muceval.reporting.terminal import render_error_pairs
    from muceval.significance.error_counts import all_pair_changes

    refuse_unused({"inputs", "errors", "shuffles", "seed", "alpha", "adjust", "names", "fmt"},
                  "does not apply to error counts (--errors: paired randomization over "
                  "documents, exact up to 20 differing documents)")
    counts = read_error_counts(list(inputs), selection.renames(inputs))
    settings = testing.settings.with_seed()
    changes = all_pair_changes(counts, settings)
    if fmt == "json":
        click.echo(error_changes_to_json(counts, None, changes, settings), nl=False)
    elif fmt == "csv":
        click.echo(error_changes_to_csv(changes), nl=False)
    else:
        render_error_pairs(changes, Console(), settings.alpha, settings.seed, settings.adjust)


def _ratios(inputs: tuple[str, ...], scorer: str | None, testing: Testing,
            settings: SignificanceSettings, show: bool) -> SignificanceResult:
    """Modern scores files: the per-document counts of one scorer, tested."""
    from muceval.formats.scores.modern import read_modern_scores
    from muceval.significance.ratios import RATIO_METRICS, compare_ratios

    ratios = read_modern_scores(list(inputs), scorer)
    given = click.get_current_context().get_parameter_source("metrics")
    chosen = (RATIO_METRICS if given is not click.core.ParameterSource.COMMANDLINE
              else tuple(testing.metric_names))
    with progress_bar(show, "pairs") as advance:
        return compare_ratios(ratios, chosen, settings, progress=advance)


def _tallies(inputs: tuple[str, ...], selection: Selection,
             unit_level: str | None) -> UnitTallies:
    """The units of every system in the input files (at least two systems)."""
    from muceval.formats.registry import load_inputs

    tallies = load_inputs(list(inputs), selection.units, selection.renames(inputs), unit_level)
    if len(tallies.systems) < 2:
        raise click.UsageError(
            f"significance needs at least two systems; {', '.join(inputs)} "
            f"hold{'s' if len(inputs) == 1 else ''} only {', '.join(tallies.systems)}")
    if selection.units == "intersection":
        click.echo(f"note: compared on the {len(tallies.units)} units all systems share "
                   "(--units intersection)", err=True)
    return tallies


def _print(result: SignificanceResult, fmt: str, matrix: bool | None,
           chosen_tests: tuple[str, ...]) -> None:
    if fmt == "json":
        # In pieces: a leaderboard's JSON is hundreds of megabytes.
        out = sys.stdout
        for part in result.json_parts():
            out.write(part)
        out.write("\n")
        out.flush()
    elif fmt == "csv":
        click.echo(result.to_csv(), nl=False)
    else:
        # Only here: rich and the terminal tables are a tenth of a JSON run's start-up.
        from rich.console import Console

        from muceval.reporting.terminal import render_classic_tests, render_significance

        console = Console(soft_wrap=False)
        render_significance(result, console, matrix=matrix)
        if chosen_tests:
            render_classic_tests(result, console, chosen_tests)


def _write_pairs(tallies: UnitTallies, testing: Testing, executor: DaskExecutor | None,
                 pairs: Destination, inputs: list[str], show: bool, fmt: str,
                 tests: str | None) -> None:
    """The streamed run: rows to ``path`` as they are computed, the summary to stdout."""
    from rich.console import Console

    from muceval.cli.common import refuse_overwriting_inputs
    from muceval.formats.files import write_atomic
    from muceval.reporting.terminal import render_significance
    from muceval.significance.stream import compare_streamed

    if executor is not None and executor.checkpoint is not None:
        raise click.UsageError("--checkpoint does not go with --pairs yet: a streamed run "
                               "starts again from the beginning")
    if fmt == "csv" or tests:
        raise click.UsageError("--pairs writes the pairwise CSV itself (classic tests "
                               "included); the terminal or --format json gets the summary")
    path = cast(str, pairs.output)
    refuse_overwriting_inputs(path, {p: "input" for p in inputs})
    if os.path.exists(path) and not pairs.force:
        raise click.UsageError(f"{path} exists; use --force to replace it")
    with progress_bar(show) as advance:
        summary, rows = compare_streamed(tallies, testing.metrics,
                                         replace(testing.settings, classic=True),
                                         threads=testing.threads, progress=advance,
                                         executor=executor)
        write_atomic(path, rows.csv_text())
    summary = replace(summary, settings=summary.settings.with_more(pairs_file=path))
    if fmt == "json":
        click.echo(summary.to_json())
    else:
        render_significance(summary, Console(soft_wrap=False))
        count = len(tallies.systems) * (len(tallies.systems) - 1) // 2
        click.echo(f"{count:,} pairs × {len(summary.metrics)} metrics written to {path}")


def _show(progress: bool | None) -> bool:
    return progress if progress is not None else sys.stdout.isatty() and sys.stderr.isatty()


def _parse_tests(text: str | None) -> tuple[str, ...]:
    from muceval.significance.classic import CLASSIC_TESTS, PAIRED_TESTS

    if text is None:
        return ()
    chosen: list[str] = []
    for name in (t.strip() for t in text.split(",") if t.strip()):
        expanded = {"paired": PAIRED_TESTS, "all": CLASSIC_TESTS}.get(name, (name,))
        for test in expanded:
            if test not in CLASSIC_TESTS:
                raise click.UsageError(f"unknown test {test!r} in --tests; choose from "
                                       f"{', '.join(CLASSIC_TESTS)}, paired, all")
            if test not in chosen:
                chosen.append(test)
    if not chosen:
        raise click.UsageError("--tests names no test")
    return tuple(chosen)


def _print_plan(tallies: UnitTallies, metrics: str, settings: SignificanceSettings,
                threads: int | None, executor: DaskExecutor | None, fmt: str) -> None:
    """``--plan``: the jobs, the work and the estimated time, and nothing run."""
    import json

    from muceval.core.signature import document_header
    from muceval.significance.engine import prepare
    from muceval.significance.estimate import estimate
    from muceval.significance.kernels import default_threads

    prepared = prepare(tallies, metrics, settings)
    # In-process: one worker of all the threads; on a cluster: one thread per worker.
    workers, per_worker = ((executor.parallelism(), 1) if executor is not None
                           else (1, threads or default_threads()))
    where = executor.describe() if executor is not None else f"in-process, {per_worker} threads"
    found = estimate(prepared.plan, prepared.pairs, prepared.metrics, prepared.settings,
                     workers, per_worker)
    if fmt == "json":
        click.echo(json.dumps({**document_header("muceval-significance-plan",
                                                 prepared.settings.to_json()),
                               "executor": where, "systems": len(tallies.systems),
                               "units": len(tallies.units), "metrics": list(prepared.metrics),
                               **found.to_dict()}, indent=1))
        return
    click.echo(f"{len(tallies.systems)} systems, {len(tallies.units)} units, "
               f"{found.pairs} pairs × {len(prepared.metrics)} metrics")
    threads_here = "one thread" if found.threads == 1 else f"{found.threads} threads"
    click.echo(f"approximate: {found.approximate_pairs} pairs × {prepared.settings.shuffles} "
               f"shuffles = {found.pair_shuffles:,} pair-shuffles "
               f"({found.ns_per_pair_shuffle:.1f} ns each on {threads_here} here): "
               f"{found.approximate_seconds:,.2f} s")
    click.echo(f"exact: {found.exact_jobs} jobs, about {found.exact_cells:,.0f} lattice cells "
               f"({found.ns_per_cell:.2f} ns each and {found.us_per_job:,.0f} µs per job on one "
               f"thread here, {found.exact_speedup:.1f}× on {threads_here}): "
               f"{found.exact_seconds:,.2f} s")
    click.echo(f"estimated time on {where}: {found.seconds:,.2f} s "
               f"(the randomization only; start-up, reading, bootstrap and classic tests come "
               "on top)")


def _modern_scores(paths: tuple[str, ...]) -> bool:
    """Whether the inputs are muceval's modern scores (all of them; a mix is refused)."""
    from muceval.errors import UsageError
    from muceval.formats.registry import INPUTS

    kinds = [(kind := INPUTS.kind_of(p)) is not None and kind.name == "modern-scores"
             for p in paths]
    if any(kinds) and not all(kinds):
        raise UsageError("modern scores (score --metric gtt|ceaf-ree|ceaf-rme) cannot be tested "
                         "against 1992 scores: give files of one kind")
    return all(kinds)
