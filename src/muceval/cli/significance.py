"""muceval significance: test every pairwise difference."""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from muceval.pipelines.significance import ErrorPairs, Plan, StreamedRun
    from muceval.significance.result import SignificanceResult

from muceval.cli.app import cli
from muceval.cli.common import (
    ERROR_ANALYSES,
    RESPONSES,
    SCORES,
    UNIT_LEVEL_HELP,
    UNIT_LEVELS,
    expand_folders,
    given_on_command_line,
    print_notes,
    progress_bar,
    progress_option,
    refuse_unused,
)
from muceval.cli.groups import (
    SETTINGS_OPTIONS,
    Cluster,
    Destination,
    Keyed,
    Selection,
    Testing,
    executor_options,
    option_group,
    refuse_missing_folder,
    selection_options,
    testing_options,
)
from muceval.errors import UsageError
from muceval.scoring.scorers import modern_scorers


def _pairs_file(pairs_path: str | None, force: bool) -> Destination | None:
    if pairs_path is None:
        return None
    refuse_missing_folder("--pairs", pairs_path)
    return Destination(pairs_path, force)


@dataclass(frozen=True)
class Subject:
    """What is tested besides MUC tallies: one modern scorer, or error categories."""

    scorer: str | None
    errors: bool
    phi: str | None = None


@dataclass(frozen=True)
class View:
    """What the terminal table shows: the matrices, the classic tests."""

    matrix: bool | None
    tests: str | None


@cli.command("significance")
@click.argument("inputs", metavar="INPUT...", nargs=-1, required=True, type=click.Path())
@testing_options("muc4")
@selection_options(parse=True)
@click.option("--unit", "unit_level", type=click.Choice(UNIT_LEVELS),
              help="Insist on what one unit is: " + UNIT_LEVEL_HELP + " muceval scores hold the "
              "level they were written with (muceval score --unit LEVEL --format json); "
              "1992 reports hold messages. By default, the level the inputs hold.")
@option_group("keyed", Keyed, [
    click.option("--key", "key_path", type=click.Path(dir_okay=False),
                 help="An answer key: INPUT files are then responses (or, with a modern key, "
                 "predictions or raw answers), scored here as muceval score scores them."),
    click.option("--config", "config_path", type=click.Path(dir_okay=False),
                 help="With a 1992 --key: the configuration (muceval TOML, a 1992 "
                 "config-*.el, or 'muc4', the default)."),
    click.option("--slots", "slots_path", type=click.Path(dir_okay=False),
                 help="With a 1992 --config: its slot file (slotconfig-*.el)."),
    click.option("--history", "history_path", type=click.Path(dir_okay=False),
                 help="With a 1992 --key: the history of human judgements."),
    click.option("--no-query-pass", is_flag=True,
                 help="With a 1992 --key: 1992 batch mode (questions give no credit).")])
@option_group("subject", Subject, [
    click.option("--scorer", "--metric", "scorer", type=click.Choice(modern_scorers()),
                 help="Modern scores files (score --metric all): which scorer's counts to "
                 "test; with a modern --key, the scorer (default: the first its schema "
                 "reports)."),
    click.option("--phi", help="With a modern --key and --scorer ceaf-ree or ceaf-rme: the "
                 "similarity."),
    click.option("--errors", is_flag=True,
                 help="INPUT files are error analyses (muceval errors --format json): test, "
                 "per error category, every pair of systems by a paired randomization over "
                 "documents (exact up to 20 differing documents); --shuffles, --seed, --alpha "
                 "and --adjust apply (--adjust: over the pairs of each category).")])
@option_group("view", View, [
    click.option("--matrix/--no-matrix", default=None,
                 help="Print the p-value matrices (by default only when they fit the "
                 "terminal)."),
    click.option("--tests", "tests", metavar="TESTS",
              help="Show the classic tests beside randomization, per pair: comma-separated "
              "from paired-t, sign, wilcoxon, two-sample-t, binomial, chi2, or 'paired' "
              "(paired-t, sign, wilcoxon) or 'all'; with the correlation r of the systems and "
              "Yeh's factor √(1/(1−r)) by which tests assuming independence understate "
              "significance. JSON and CSV always hold every test; a --pairs file holds them "
              "only with --tests (any).")])
@executor_options(
    "Run the shuffles on Dask: tcp://HOST:8786 (a running scheduler) or local:N (N worker "
    "processes started for the run); the p-values are those of an in-process run. Needs "
    "'muceval[distributed]'.",
    "With --scheduler: append each finished batch to this file; the same command started "
    "again with it resumes where the run stopped.")
@option_group("pairs", _pairs_file, [
    click.option("--pairs", "pairs_path", type=click.Path(dir_okay=False),
                 help="Write every pairwise comparison to this file, keeping only arrays in "
                 "memory: for leaderboards of hundreds or thousands of systems. A name ending "
                 "in .npz gets NumPy arrays (numpy.load; the fastest), any other the CSV of "
                 "--format csv, written as computed. Intervals only with --bootstrap N and the "
                 "classic tests only with --tests, given on the command line. The terminal (or "
                 "--format json) then gets the summary: scores, groups and letters."),
    click.option("--force", is_flag=True, help="With --pairs: replace an existing file.")])
@click.option("--plan", "show_plan", is_flag=True,
              help="Print the jobs, the work and the estimated time (from a short calibration "
              "run on this machine), and run nothing.")
@progress_option
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table")
def significance(inputs: tuple[str, ...], keyed: Keyed, testing: Testing,
                 selection: Selection, unit_level: str | None, subject: Subject, view: View,
                 cluster: Cluster | None, pairs: Destination | None, show_plan: bool,
                 progress: bool | None, fmt: str) -> None:
    """Test every pairwise difference between systems for significance.

    INPUT files are 1992 score reports (one system each, named by the file name
    without its last suffix), muceval scores (muceval score --format json or
    csv: every system in the file, per message) or CSV files with the columns
    system,unit,POS,ACT,COR,PAR; with --key, responses (or modern predictions)
    scored here first.

    \b
    Example:
      muceval significance ../shared/muc4/tst3/official-scores/*.nrad --seed 1
      muceval significance --key key-tst3.v2 --history final-history-nrad.tst3 A B C
      muceval significance scores.json --plan
      muceval significance scores.json --metrics recall,f1 --tests all
      muceval score --key KEY --history HIST --unit fill --format json -o fills.json A B
      muceval significance fills.json --unit fill --method auto --tests all
      muceval significance scores.json --scheduler local:2 --checkpoint run.ckpt
      muceval significance leaderboard.csv --pairs pairs.csv --format json
      muceval significance leaderboard.csv --pairs pairs.npz --bootstrap 1000 --tests all
      muceval errors --key GOLD A B C --format json -o errors.json
      muceval significance errors.json --errors --adjust holm
    """
    from muceval.pipelines.inputs import ErrorAnalyses, resolve_inputs
    from muceval.pipelines.significance import run_significance

    inputs = expand_folders(inputs, ERROR_ANALYSES if subject.errors
                            else SCORES if keyed.key_path is None else RESPONSES)
    source = resolve_inputs(inputs, keyed.key_path, config=keyed.config_path,
                            slots=keyed.slots_path, history=keyed.history_path,
                            scoring=keyed.scoring(), unit=unit_level, units=selection.units,
                            names=selection.renames(inputs), parse=selection.parse,
                            schema=selection.schema)
    accepted, why, label = _ACCEPTED[type(source).__name__]
    refuse_unused(accepted, why)
    if subject.errors is not isinstance(source, ErrorAnalyses):
        raise UsageError("error analyses (muceval errors --format json) are tested with "
                         "muceval significance --errors, which reads nothing else")
    chosen_tests = _parse_tests(view.tests)
    # The terminal shows no intervals, and the classic tests only with --tests: computing
    # them there would cost a leaderboard seconds for nothing.
    table = fmt == "table"
    if not table and (view.matrix is not None or (view.tests is not None and pairs is None)):
        raise click.UsageError(f"--matrix and --tests choose what the terminal table shows; "
                               f"--format {fmt} holds every matrix cell and every test")
    if pairs is not None and fmt == "csv":
        raise click.UsageError("--pairs writes the pairwise table itself; the terminal or "
                               "--format json gets the summary")
    settings = testing.settings
    if pairs is not None:
        # A leaderboard's intervals and classic tests cost a third of its time: computed
        # only when asked for on the command line, and the summary says which were.
        asked = given_on_command_line("bootstrap")
        settings = replace(settings, bootstrap=settings.bootstrap if asked else 0,
                           classic=bool(chosen_tests))
    else:
        settings = replace(settings, bootstrap=0 if table else settings.bootstrap,
                           classic=bool(chosen_tests) or not table)
    shown = progress if progress is not None else sys.stdout.isatty() and sys.stderr.isatty()
    with progress_bar(label is not None and shown, label or "", asked=progress is True) as advance:
        result = run_significance(
            source, settings=settings,
            metrics=testing.metric_names if given_on_command_line("metrics") else None,
            threads=testing.threads, progress=advance,
            executor=cluster.executor() if cluster is not None else None, scorer=subject.scorer,
            phi=subject.phi, plan=show_plan, pairs=None if pairs is None else pairs.output,
            overwrite=pairs is not None and pairs.force, on_scored=print_notes(False))
    _print(result, fmt, view.matrix, chosen_tests)


_ALL = frozenset({"inputs", *SETTINGS_OPTIONS, "metrics", "threads", "units", "names",
                  "unit_level", "matrix", "tests", "scheduler", "checkpoint", "pairs_path",
                  "force", "show_plan", "progress", "fmt", "errors"})
_MODERN = frozenset({*SETTINGS_OPTIONS, "inputs", "metrics", "scorer", "matrix", "progress",
                     "fmt", "errors", "names"} - {"unit_means"})
# The options each kind of input takes (any other one given is refused), and the progress
# bar's label.
_ACCEPTED: dict[str, tuple[frozenset[str], str, str | None]] = {
    "ScoreFiles": (_ALL, "does not go with scores (MUC tallies): it is for responses "
                   "scored with --key, or for modern scores", "randomization"),
    "ModernScoreFiles": (
        _MODERN - {"names"},
        "applies to MUC tallies; modern scores are tested per document, in-process, by "
        "randomization only", "pairs"),
    "Responses": (
        frozenset({*_ALL, "key_path", "config_path", "slots_path", "history_path",
                   "no_query_pass"} - {"units"}),
        "does not go with responses scored against a 1992 key", "randomization"),
    "ModernPredictions": (
        frozenset({*_MODERN, "key_path", "phi", "parse", "schema"}),
        "does not go with predictions scored against a modern key (per document, "
        "in-process, by randomization only)", "pairs"),
    "ErrorAnalyses": (
        frozenset({"inputs", "errors", "shuffles", "seed", "alpha", "adjust", "names", "units",
                   "fmt"}),
        "does not apply to error counts (--errors: paired randomization over documents, exact "
        "up to 20 differing documents)", None),
}


def _print(result: SignificanceResult | ErrorPairs | StreamedRun | Plan, fmt: str,
           matrix: bool | None, chosen_tests: tuple[str, ...]) -> None:
    from muceval.pipelines.significance import ErrorPairs, Plan, StreamedRun

    if isinstance(result, Plan):
        click.echo(result.to_json()) if fmt == "json" else click.echo(result.to_text(), nl=False)
    elif fmt == "table":
        _table(result, matrix, chosen_tests)
    elif isinstance(result, StreamedRun):
        click.echo(result.summary.to_json())
    elif isinstance(result, ErrorPairs):
        click.echo(result.to_json() if fmt == "json" else result.to_csv(), nl=False)
    elif fmt == "json":
        # In pieces: a leaderboard's JSON is hundreds of megabytes.
        out = sys.stdout
        for part in result.json_parts():
            out.write(part)
        out.write("\n")
        out.flush()
    else:
        click.echo(result.to_csv(), nl=False)


# What a pairs file holds only when asked for: its name, its key in the settings, and how.
_ASKED = (("intervals", "pairs_intervals", "--bootstrap N"),
          ("classic tests", "pairs_classic_tests", "--tests all"))


def _table(result: SignificanceResult | ErrorPairs | StreamedRun, matrix: bool | None,
           chosen_tests: tuple[str, ...]) -> None:
    # Only here: rich and the terminal tables are a tenth of a JSON run's start-up.
    from rich.console import Console

    from muceval.pipelines.significance import ErrorPairs, StreamedRun
    from muceval.reporting.terminal import (
        render_classic_tests,
        render_error_pairs,
        render_significance,
    )

    if isinstance(result, ErrorPairs):
        shown = result.settings
        render_error_pairs(result.changes, Console(), shown.alpha, shown.seed, shown.adjust)
    elif isinstance(result, StreamedRun):
        render_significance(result.summary, Console(soft_wrap=False))
        record = result.summary.settings
        left = [(what, how) for what, key, how in _ASKED if not record[key]]
        click.echo(f"{result.pairs:,} pairs × {len(result.summary.metrics)} metrics written to "
                   f"{result.path}" + (f" (without {' or '.join(w for w, _ in left)}: ask with "
                   f"{' and '.join(h for _, h in left)})" if left else ""))
    else:
        console = Console(soft_wrap=False)
        render_significance(result, console, matrix=matrix)
        if chosen_tests:
            render_classic_tests(result, console, chosen_tests)


def _parse_tests(text: str | None) -> tuple[str, ...]:
    if text is None:
        return ()
    # Here, not at the top: the tests import scipy.special (0.2 s) that a run without them
    # does not need.
    from muceval.significance.classic import CLASSIC_TESTS, PAIRED_TESTS

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
