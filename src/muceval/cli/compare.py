"""muceval compare: is my new version really better? A baseline against candidates, one command."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING

import click

from muceval.cli.app import cli
from muceval.cli.modern import key_is_modern

if TYPE_CHECKING:
    from muceval.core.units import RatioTallies, UnitTallies
from muceval.cli.common import (
    RESPONSES,
    SCORES,
    UNIT_LEVEL_HELP,
    expand_folders,
    note_unanswered,
    progress_bar,
    refuse_unused,
    report_warnings,
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
    from muceval.significance.baseline import BaselineResult
    from muceval.significance.error_counts import ErrorChange

_COMMON = ("baseline", "candidates", "metrics", "method", "shuffles", "seed", "alternative",
           "alpha", "confidence", "adjust", "bootstrap", "threads", "names", "fmt", "strict")
"""The options of `compare` whatever it compares."""


@dataclass(frozen=True)
class UnitChoice:
    """What one unit is (``--unit``), whether Yeh's whole procedure was asked (``--yeh``),
    and whether the error categories are compared too (``--errors``)."""

    level: str
    yeh: bool
    errors: bool = False


def _unit_choice(unit: str, yeh: bool, errors: bool) -> UnitChoice:
    given = click.get_current_context().get_parameter_source("unit")
    if yeh and given is click.core.ParameterSource.COMMANDLINE and unit != "response":
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
@selection_options()
@option_group("unit", _unit_choice, [
    click.option("--unit", "unit", type=click.Choice(["message", "template", "fill", "response"]),
                 default="message", show_default=True,
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
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table",
              show_default=True)
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
    from rich.console import Console

    from muceval.formats.files import system_name
    from muceval.reporting.terminal import render_baseline, render_error_changes
    from muceval.significance.baseline import compare_to_baseline

    # A folder of candidates may hold the baseline too: it is not its own candidate.
    paths = [baseline, *(p for p in expand_folders(candidates, SCORES if key_path is None
                                                   else RESPONSES)
                         if not os.path.samefile(p, baseline))]
    renamed = selection.renames(paths)
    system_names = [renamed.get(p) or system_name(p) for p in paths]
    if len(set(system_names)) != len(system_names):
        raise UsageError("two files give the same system name: " + ", ".join(system_names)
                         + " (--name FILE=NAME renames one)")
    is_modern = key_path is not None and (modern.metric is not None or key_is_modern(key_path))
    _refuse_unused(key_path, is_modern, unit)
    if unit.level == "response" and key_path is not None:
        result = _by_responses(key_path, paths, configuration, history_path, scoring, testing,
                               renamed, unit, strict)
    else:
        tallies, system_names = _tallies(key_path, paths, configuration, history_path, scoring,
                                         modern, selection, unit.level, strict, system_names,
                                         is_modern)
        with progress_bar(sys.stderr.isatty()) as advance:
            result = compare_to_baseline(
                tallies, system_names[0], system_names[1:], metrics=testing.metric_names,
                settings=testing.settings, threads=testing.threads, progress=advance,
                unit="document" if is_modern else unit.level)
    if unit.errors and fmt == "csv":
        raise UsageError("--errors goes with the table or JSON")
    changes = _error_changes(key_path, paths, configuration, history_path, scoring, renamed,
                             testing) if unit.errors and key_path is not None else None
    if fmt == "json":
        doc = result.to_dict()
        if changes is not None:
            doc["error_changes"] = [asdict(c) for c in changes]
        click.echo(json.dumps(doc, indent=1))
    elif fmt == "csv":
        click.echo(result.to_csv(), nl=False)
    else:
        render_baseline(result, Console())
        if changes is not None:
            render_error_changes(changes, Console(), testing.settings.alpha,
                                 testing.settings.seed, testing.settings.adjust)


def _error_changes(key_path: str, paths: list[str], configuration: ConfigurationChoice,
                   history_path: str | None, scoring: ScoringOptions, renamed: dict[str, str],
                   testing: Testing) -> list[ErrorChange]:
    """The error categories of the candidates against the baseline (the first of ``paths``),
    from a modern key or, for 1992 templates, the 1992 scorer's verdicts."""
    from muceval.formats.registry import INPUTS
    from muceval.scoring.errors import analyse_error_files
    from muceval.scoring.errors.muc1992 import analyse_1992_files
    from muceval.significance.error_counts import error_changes

    kind = INPUTS.kind_of(key_path)
    if kind is not None and kind.name == "templates":
        analysis = analyse_1992_files(configuration.load(), key_path, paths,
                                      history_path=history_path, query_pass=scoring.query_pass,
                                      names=renamed)
    else:
        analysis = analyse_error_files(key_path, paths, names=renamed)
    return error_changes(analysis.counts(), analysis.systems[0].system, testing.settings)


def _tallies(key_path: str | None, paths: list[str], configuration: ConfigurationChoice,
             history_path: str | None, scoring: ScoringOptions, modern: ModernChoice,
             selection: Selection, level: str, strict: bool, names: list[str],
             is_modern: bool) -> tuple[UnitTallies | RatioTallies, list[str]]:
    """The systems' units: modern counts per document, responses scored here, or score files;
    and the systems' names."""
    if is_modern and key_path is not None:
        return _modern_tallies(key_path, paths, names, modern), names
    renamed = selection.renames(paths)
    if key_path is not None:
        from muceval.reporting.analysis import systems_from_pairs
        from muceval.scoring.session import score_files

        config = configuration.load()
        session = score_files(config, key_path, paths, history_path=history_path,
                              options=replace(scoring, fills=level == "fill"), names=renamed)
        report_warnings(session.warnings, session.file_warnings, strict)
        note_unanswered(session.unanswered, "incorrect", history_path)
        return systems_from_pairs(session.systems, config, unit=level)[1], names
    from muceval.formats.registry import load_inputs

    tallies = load_inputs(paths, selection.units, renamed)
    if len(tallies.systems) != len(paths):
        raise UsageError(f"{len(paths)} files hold {len(tallies.systems)} systems "
                         f"({', '.join(tallies.systems)}): give one system per file")
    return tallies, list(tallies.systems)


def _by_responses(key_path: str, paths: list[str], configuration: ConfigurationChoice,
                  history_path: str | None, scoring: ScoringOptions, testing: Testing,
                  renamed: dict[str, str], unit: UnitChoice, strict: bool) -> BaselineResult:
    """Yeh's randomization over responses, the baseline against each candidate."""
    from muceval.scoring.responses import baseline_units
    from muceval.significance.responses import YEH_SHUFFLES, compare_responses

    settings = testing.settings
    if unit.yeh:
        settings = replace(settings, method="auto", shuffles=YEH_SHUFFLES)
    units, warnings = baseline_units(configuration.load(), key_path, paths,
                                     history_path=history_path, names=renamed, options=scoring)
    report_warnings((), warnings, strict)
    return compare_responses(units, testing.metric_names, settings)


def _refuse_unused(key_path: str | None, modern: bool, unit: UnitChoice) -> None:
    """Each way of reading the systems takes its own options; any other one given is refused."""
    if unit.level == "response":
        if key_path is None or modern:
            raise UsageError("--unit response and --yeh need responses scored against a 1992 "
                             "key (--key)")
        # Yeh's procedure fixes the method and the number of shuffles; responses are not
        # sampled, so there is no bootstrap interval.
        refuse_unused({*_COMMON, "key_path", "config_path", "slots_path", "history_path",
                       "no_query_pass", "unit", "yeh", "errors"} - {"bootstrap", "threads"}
                      - ({"method", "shuffles"} if unit.yeh else set()),
                      "does not go with " + ("--yeh" if unit.yeh else "--unit response"))
        return
    if modern:
        refuse_unused({*_COMMON, "key_path", "metric", "phi", "errors"},
                      "does not go with a modern key (its scorer takes --metric and --phi)")
    elif key_path is not None:
        refuse_unused({*_COMMON, "key_path", "config_path", "slots_path", "history_path",
                       "no_query_pass", "unit", "errors"},
                      "does not go with responses scored against a 1992 key")
    else:
        refuse_unused({*_COMMON, "units"},
                      "goes with --key (responses scored here); these are scores")


def _modern_tallies(key_path: str, paths: list[str], names: list[str],
                    modern: ModernChoice) -> RatioTallies:
    """Score modern predictions against a modern gold: per document, the counts of ``metric``."""
    from muceval.formats.modern import read_modern
    from muceval.scoring.modern import ModernOptions, ratio_tallies, score_modern

    gold = read_modern(key_path)
    options = ModernOptions(modern.metric or "gtt", modern.phi)
    scores = [score_modern(gold, read_modern(p), options, name)
              for p, name in zip(paths, names, strict=True)]
    for warning in dict.fromkeys(str(w) for s in scores for w in s.warnings):
        click.echo(f"warning: {warning}", err=True)
    return ratio_tallies(scores)
