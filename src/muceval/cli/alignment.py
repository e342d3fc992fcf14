"""muceval alignment: the alignment criteria side by side, and when a score rests on luck."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

import click

from muceval.cli.app import cli
from muceval.cli.common import (
    RESPONSES,
    expand_folders,
    name_option,
    parse_names,
    progress_bar,
    report_warnings,
    strict_option,
)
from muceval.cli.groups import (
    ConfigurationChoice,
    Decorator,
    Destination,
    configuration_options,
    destination_options,
    option_group,
    scoring_options,
)
from muceval.errors import UsageError
from muceval.pipelines.common import refuse_outputs

if TYPE_CHECKING:
    from muceval.pipelines.inputs import ModernPredictions
    from muceval.scoring.muc1992.scorer import ScoringOptions
    from muceval.significance.settings import SignificanceSettings

AUDITS = ("pairs", "removal", "all")


@dataclass(frozen=True)
class AuditChoice:
    """The criteria to compare and what to audit of them."""

    criteria: str | None
    audit: str | None
    calibrate: bool
    entropy: bool

    @property
    def pairs(self) -> bool:
        return self.audit in ("pairs", "all")

    @property
    def removal(self) -> bool:
        return self.audit in ("removal", "all")


def _audit_options() -> Decorator:
    return option_group("chosen", AuditChoice, [
        click.option("--criteria", help="Criteria to compare, comma-separated (default: the "
                     "configuration's 'compare', else the default and the flag criterion). "
                     "Predefined: 1992, 1992-optimal, any-slot."),
        click.option("--audit", type=click.Choice(AUDITS),
                     help="pairs: the evidence of every pair some criterion maps or judges "
                     "differently; removal: ΔR/ΔP/ΔF when each mapped response template is "
                     "removed; all: both."),
        click.option("--calibrate", is_flag=True,
                     help="From the key alone: the share of pairs of different key templates "
                     "(same message, other messages) each criterion would align."),
        click.option("--entropy", is_flag=True,
                     help="The distribution of the key's values per slot (how informative a "
                     "match is)."),
    ])


def _test_options() -> Decorator:
    from muceval.significance.settings import SignificanceSettings

    return option_group("settings", SignificanceSettings, [
        click.option("--shuffles", type=click.IntRange(min=1), default=9_999,
                     help="Shuffles of the randomization test of each change."),
        click.option("--seed", type=int,
                     help="Seed of the randomization (default: drawn, reported)."),
    ])


@cli.command("alignment")
@click.argument("responses", nargs=-1, required=True, metavar="RESPONSE...", type=click.Path())
@click.option("--key", "key_path", required=True, type=click.Path(dir_okay=False),
              help="The answer-key template file.")
@configuration_options(note="Criteria come from its [alignment] tables.", alignment_file=True)
@click.option("--history", "history_path", type=click.Path(dir_okay=False),
              help="1992 history file of human judgements.")
@_audit_options()
@scoring_options()
@_test_options()
@click.option("--csv-view", type=click.Choice(["scores", "pairs", "removal", "calibration",
                                                "entropy"]), default="scores",
              help="--format csv: which view.")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table")
@destination_options()
@name_option
@strict_option
def alignment(responses: tuple[str, ...], key_path: str, configuration: ConfigurationChoice,
              history_path: str | None, chosen: AuditChoice, scoring: ScoringOptions,
              settings: SignificanceSettings, csv_view: str, fmt: str,
              destination: Destination, names: tuple[str, ...], strict: bool) -> None:
    """Score the responses under several alignment criteria and show what changes.

    A criterion decides which key/response template pairs may be aligned and
    how pairs are chosen, never how an aligned pair is scored. For each system
    and criterion: R, P, F, and the change of F against the default criterion
    with its p-value (paired randomization over messages); Kendall's τ between
    the rankings and the significance decisions that flip. --audit adds the
    evidence of each pair (flags: type-root, or-common, or-set-word, stripped,
    history) and the removal audit (Kehler's anomaly: removing a template lowers
    F under the default criterion and raises it under the flag criterion).

    With a modern key (GTT, GRIT or IterX JSON) the criteria of the modern
    metrics are stated, and GTT's is audited: how many template pairs its map
    credits on the incident type alone, and F when such pairs are refused
    (gtt-role-match), with the p-value of the change (paired randomization over
    documents).

    \b
    Example:
      muceval alignment --key key.txt --config config.toml --criteria 1992,strict \\
          --audit all sys1.txt sys2.txt
      muceval alignment --key ../shared/modern/gtt/test.json --audit pairs \\
          ../shared/modern/gtt/preds_gtt.out
    """
    from muceval.pipelines.alignment import audit_alignment
    from muceval.pipelines.inputs import ModernPredictions, Responses, resolve_inputs
    from muceval.reporting.alignment import alignment_table, alignment_to_csv, alignment_to_json
    from muceval.scoring.alignment.criteria import parse_criteria

    paths = expand_folders(responses, RESPONSES)
    source = resolve_inputs(paths, key_path, config=configuration.config_path,
                            slots=configuration.slots_path,
                            alignment_file=configuration.alignment_path, history=history_path,
                            scoring=scoring, names=parse_names(names, paths))
    if isinstance(source, ModernPredictions):
        _refuse_1992_options(configuration, history_path, chosen, scoring, csv_view)
        _modern(source, chosen.audit == "pairs", settings, csv_view, fmt, destination, strict)
        return
    assert isinstance(source, Responses)
    refuse_outputs([destination.output], {
        key_path: "key", history_path: "history", **configuration.inputs(),
        **{p: "response file" for p in paths}})
    config = source.configuration()
    parse_criteria(chosen.criteria, config)  # refused before any file is read
    interactive = sys.stdout.isatty() and sys.stderr.isatty()
    with progress_bar(interactive and destination.output is None and fmt == "table",
                      "systems") as advance:
        run = audit_alignment(source, chosen.criteria, settings=settings, pairs=chosen.pairs,
                              removal=chosen.removal, calibrate=chosen.calibrate,
                              entropy=chosen.entropy, audit=chosen.audit, config=config,
                              progress=advance)
    report_warnings((), run.warnings, strict)
    if fmt == "json":
        text = alignment_to_json(run.audit, run.comparison, run.recorded)
    elif fmt == "csv":
        text = alignment_to_csv(run.audit, run.comparison, csv_view)
    else:
        text = alignment_table(run.audit, run.comparison,
                               terminal=destination.output is None and interactive)
    destination.emit(text)


def _refuse_1992_options(configuration: ConfigurationChoice, history_path: str | None,
                         chosen: AuditChoice, scoring: ScoringOptions, csv_view: str) -> None:
    """With a modern key, the options of the 1992 alignment are refused, not ignored."""
    given = {"--config": configuration.config_path, "--slots": configuration.slots_path,
             "--history": history_path, "--alignment-file": configuration.alignment_path,
             "--criteria": chosen.criteria, "--calibrate": chosen.calibrate,
             "--entropy": chosen.entropy, "--no-query-pass": not scoring.query_pass,
             "--audit removal/all": chosen.removal,
             "--csv-view " + csv_view: csv_view not in ("scores", "pairs")}
    used = [flag for flag, value in given.items() if value]
    if used:
        raise UsageError(f"{used[0]} belongs to the 1992 scorer's alignment; with a modern "
                         "key muceval audits GTT's criterion (gtt against gtt-role-match) "
                         "and takes --audit pairs, --shuffles, --seed, --format, -o")


def _modern(source: ModernPredictions, pairs: bool, settings: SignificanceSettings,
            csv_view: str, fmt: str, destination: Destination, strict: bool) -> None:
    from muceval.pipelines.alignment import audit_modern_alignment
    from muceval.reporting.modern_alignment import (
        modern_alignment_table,
        modern_alignment_to_csv,
        modern_alignment_to_json,
    )

    run = audit_modern_alignment(source, settings)
    report_warnings((), run.warnings, strict)
    audits = list(run.audits)
    if fmt == "json":
        text = modern_alignment_to_json(audits, run.comparison, run.recorded)
    elif fmt == "csv":
        text = modern_alignment_to_csv(audits, run.comparison, csv_view)
    else:
        interactive = sys.stdout.isatty() and destination.output is None
        text = modern_alignment_table(audits, run.comparison, pairs=pairs, terminal=interactive)
    destination.emit(text)
