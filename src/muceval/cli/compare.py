"""muceval compare: is my new version really better? A baseline against candidates, one command."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

import click

from muceval.cli.app import cli
from muceval.cli.common import (
    RESPONSES,
    SCORES,
    UNIT_LEVEL_HELP,
    expand_folders,
    given_on_command_line,
    print_notes,
    progress_bar,
    refuse_unused,
    strict_option,
)
from muceval.cli.groups import (
    ConfigurationChoice,
    ModernChoice,
    Selection,
    Testing,
    configuration_options,
    option_group,
    scoring_options,
    selection_options,
    testing_options,
)
from muceval.errors import UsageError
from muceval.scoring.scorers import modern_scorers

if TYPE_CHECKING:
    from muceval.scoring.muc1992.scorer import ScoringOptions


@dataclass(frozen=True)
class UnitChoice:
    """``--unit``, ``--yeh`` and ``--errors``."""

    level: str
    yeh: bool
    errors: bool = False


def _unit_choice(unit: str, yeh: bool, errors: bool) -> UnitChoice:
    if yeh and given_on_command_line("unit") and unit != "response":
        raise UsageError(f"--yeh tests over responses; it does not go with --unit {unit}")
    return UnitChoice("response" if yeh else unit, yeh, errors)


@cli.command("compare")
@click.argument("baseline", metavar="BASELINE", type=click.Path(dir_okay=False))
@click.argument("candidates", metavar="CANDIDATE...", nargs=-1, required=True,
                type=click.Path())
@click.option("--key", "key_path", type=click.Path(dir_okay=False),
              help="Answer key: BASELINE and CANDIDATE are then system responses, scored here. "
              "Without it they are 1992 score reports or muceval score files.")
@configuration_options("With --key")
@click.option("--history", "history_path", type=click.Path(dir_okay=False),
              help="With --key: 1992 history of human judgements.")
@scoring_options("With --key")
@testing_options("ab")
@option_group("modern", ModernChoice, [
    click.option("--scorer", "--metric", "metric", type=click.Choice(modern_scorers()),
                 help="With a modern MUC-4 gold file as --key: the scorer whose per-document "
                 "counts are compared (default gtt)."),
    click.option("--phi", help="With --metric ceaf-ree or ceaf-rme: the similarity.")])
@selection_options(parse=True)
@option_group("unit", _unit_choice, [
    click.option("--unit", "unit", type=click.Choice(["message", "template", "fill", "response"]),
                 default="message",
                 help="With --key: the unit of the randomization: " + UNIT_LEVEL_HELP
                 + " response: Yeh 2000's unit, each response fill only one system produced, "
                 "given to either system independently (the template mapping held fixed; "
                 "competing responses scored as the 1992 scorer scores them together)."),
    click.option("--yeh", is_flag=True,
                 help="With --key: Yeh 2000's whole procedure: --unit response, all 2^n "
                 "assignments when n ≤ 20 responses differ, else 2^20 random ones, and his two "
                 "checks (recall against the sign test; a second run with another seed)."),
    click.option("--errors", is_flag=True,
                 help="With --key: also compare the error categories of Das et al. (2022) "
                 "(muceval errors), each with the p-value of a paired randomization over "
                 "documents.")])
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table")
@strict_option
def compare(baseline: str, candidates: tuple[str, ...], key_path: str | None,
            configuration: ConfigurationChoice, history_path: str | None,
            scoring: ScoringOptions, testing: Testing, modern: ModernChoice,
            selection: Selection, unit: UnitChoice, fmt: str, strict: bool) -> None:
    """Compare CANDIDATE systems with a BASELINE: scores, difference, interval, p, verdict.

    The test is paired and stratified by message: it asks whether the
    candidate's gain could come from chance in which messages each system got
    right. Systems are named after their files (the file name without its last
    suffix).

    \b
    Example:
      muceval compare --key key-tst3.v2 old.tst3 new.tst3
      muceval compare ../shared/muc4/tst3/official-scores/UMASS.tst3-pass1.nrad \\
          ../shared/muc4/tst3/official-scores/GE.tst3-pass1.nrad --format json
    """
    from muceval.pipelines.compare import compare_systems
    from muceval.pipelines.inputs import Responses, resolve_inputs

    # A folder of candidates may hold the baseline too: it is not its own candidate.
    paths = [baseline, *(p for p in expand_folders(candidates, SCORES if key_path is None
                                                   else RESPONSES)
                         if os.path.realpath(p) != os.path.realpath(baseline))]
    source = resolve_inputs(paths, key_path, config=configuration.config_path,
                            slots=configuration.slots_path, history=history_path,
                            scoring=scoring, unit=unit.level if key_path else None,
                            units=selection.units, names=selection.renames(paths),
                            parse=selection.parse, schema=selection.schema)
    variant = type(source).__name__
    if isinstance(source, Responses) and source.unit == "response":
        variant += "/yeh" if unit.yeh else "/response"
    refuse_unused(*_ACCEPTED[variant])
    if unit.errors and fmt == "csv":
        raise UsageError("--errors goes with the table or JSON")
    with progress_bar(True) as advance:
        compared = compare_systems(source, settings=testing.settings,
                                   metrics=testing.metric_names, threads=testing.threads,
                                   progress=advance, yeh=unit.yeh, errors=unit.errors,
                                   modern=modern.scorer(), on_scored=print_notes(strict))
    if fmt == "json":
        click.echo(compared.to_json())
    elif fmt == "csv":
        click.echo(compared.result.to_csv(), nl=False)
    else:
        from rich.console import Console

        from muceval.reporting.terminal import render_baseline, render_error_changes

        render_baseline(compared.result, Console())
        if compared.error_changes is not None:
            shown = compared.settings
            render_error_changes(compared.error_changes, Console(), shown.alpha, shown.seed,
                                 shown.adjust)


_COMMON = ("baseline", "candidates", "metrics", "method", "shuffles", "seed", "alternative",
           "alpha", "confidence", "adjust", "bootstrap", "threads", "names", "fmt", "strict")
_KEYED = {*_COMMON, "key_path", "config_path", "slots_path", "history_path", "no_query_pass",
          "unit", "errors"}
# The options each kind of input takes; any other one given is refused.
_ACCEPTED: dict[str, tuple[frozenset[str], str]] = {
    "Responses": (frozenset(_KEYED), "does not go with responses scored against a 1992 key"),
    # Yeh's procedure fixes the method and the number of shuffles; responses are not
    # sampled, so there is no bootstrap interval.
    "Responses/response": (frozenset({*_KEYED, "yeh"} - {"bootstrap", "threads"}),
                           "does not go with --unit response"),
    "Responses/yeh": (frozenset({*_KEYED, "yeh"} - {"bootstrap", "threads", "method",
                                                    "shuffles"}), "does not go with --yeh"),
    "ModernPredictions": (frozenset({*_COMMON, "key_path", "metric", "phi", "errors", "parse", "schema"}),
                          "does not go with a modern key (its scorer takes --metric and --phi)"),
    "ScoreFiles": (frozenset({*_COMMON, "units"}),
                   "goes with --key (responses scored here); these are scores"),
    "ModernScoreFiles": (frozenset(_COMMON), "does not go with modern scores"),
    "ErrorAnalyses": (frozenset(_COMMON), "does not go with error analyses"),
}
