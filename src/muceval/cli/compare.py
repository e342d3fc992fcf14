"""muceval compare: is my new version really better? A baseline against candidates, one command."""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import TYPE_CHECKING

import click

from muceval.cli.app import cli
from muceval.cli.modern import key_is_modern

if TYPE_CHECKING:
    from muceval.core.units import RatioTallies, UnitTallies
from muceval.cli.common import (
    progress_bar,
    refuse_unused,
    report_warnings,
    strict_option,
    unit_level_option,
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
from muceval.scoring.metrics import modern_metrics

if TYPE_CHECKING:
    from muceval.scoring.muc1992.scorer import ScoringOptions

_COMMON = ("baseline", "candidates", "metrics", "method", "shuffles", "seed", "alternative",
           "alpha", "confidence", "adjust", "bootstrap", "threads", "names", "fmt", "strict")
"""The options of `compare` whatever it compares."""


@cli.command("compare")
@click.argument("baseline", metavar="BASELINE", type=click.Path(dir_okay=False))
@click.argument("candidates", metavar="CANDIDATE...", nargs=-1, required=True,
                type=click.Path(dir_okay=False))
@click.option("--key", "key_path", type=click.Path(dir_okay=False),
              help="Answer key: BASELINE and CANDIDATE are then system responses, scored here. "
              "Without it they are 1992 score reports or muceval score files.")
@configuration_options("With --key")
@click.option("--history", "history_path", type=click.Path(dir_okay=False),
              help="With --key: 1992 history of human judgements.")
@scoring_options("With --key")
@testing_options("ab")
@option_group("modern", ModernChoice, [
    click.option("--metric", type=click.Choice(modern_metrics()),
                 help="With a modern MUC-4 gold file as --key: the scorer whose per-document "
                 "counts are compared (default gtt)."),
    click.option("--phi", help="With --metric ceaf-ree or ceaf-rme: the similarity.")])
@selection_options()
@unit_level_option
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table",
              show_default=True)
@strict_option
def compare(baseline: str, candidates: tuple[str, ...], key_path: str | None,
            configuration: ConfigurationChoice, history_path: str | None,
            scoring: ScoringOptions, testing: Testing, modern: ModernChoice,
            selection: Selection, unit: str, fmt: str, strict: bool) -> None:
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

    from muceval.errors import UsageError
    from muceval.formats.files import system_name
    from muceval.reporting.terminal import render_baseline
    from muceval.significance.baseline import compare_to_baseline

    paths = [baseline, *candidates]
    renamed = selection.renames(paths)
    system_names = [renamed.get(p) or system_name(p) for p in paths]
    if len(set(system_names)) != len(system_names):
        raise UsageError("two files give the same system name: " + ", ".join(system_names)
                         + " (--name FILE=NAME renames one)")
    tallies: UnitTallies | RatioTallies
    is_modern = key_path is not None and (modern.metric is not None or key_is_modern(key_path))
    _refuse_unused(key_path, is_modern)
    if is_modern and key_path is not None:
        tallies = _modern_tallies(key_path, paths, system_names, modern)
    elif key_path is not None:
        from muceval.reporting.analysis import systems_from_pairs
        from muceval.scoring.session import score_files

        config = configuration.load()
        session = score_files(config, key_path, paths, history_path=history_path,
                              options=replace(scoring, fills=unit == "fill"), names=renamed)
        report_warnings(session.warnings, session.file_warnings, strict)
        _, tallies = systems_from_pairs(session.systems, config, unit=unit)
    else:
        from muceval.formats.registry import load_inputs

        tallies = load_inputs(paths, selection.units, renamed)
        if len(tallies.systems) != len(paths):
            raise UsageError(f"{len(paths)} files hold {len(tallies.systems)} systems "
                             f"({', '.join(tallies.systems)}): give one system per file")
        system_names = list(tallies.systems)
    with progress_bar(sys.stderr.isatty()) as advance:
        result = compare_to_baseline(
            tallies, system_names[0], system_names[1:], metrics=testing.metric_names,
            settings=testing.settings, threads=testing.threads, progress=advance,
            unit="document" if is_modern else unit)
    if fmt == "json":
        click.echo(result.to_json())
    elif fmt == "csv":
        click.echo(result.to_csv(), nl=False)
    else:
        render_baseline(result, Console())


def _refuse_unused(key_path: str | None, modern: bool) -> None:
    """Each way of reading the systems takes its own options; any other one given is refused."""
    if modern:
        refuse_unused({*_COMMON, "key_path", "metric", "phi"},
                      "does not go with a modern key (its scorer takes --metric and --phi)")
    elif key_path is not None:
        refuse_unused({*_COMMON, "key_path", "config_path", "slots_path", "history_path",
                       "no_query_pass", "unit"},
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
