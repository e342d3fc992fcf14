"""muceval score: score responses as the 1992 MUC-4 scorer did."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, get_args

import click

from muceval.cli.app import cli
from muceval.cli.common import (
    JSON_UNIT_OPTION,
    RESPONSES,
    expand_folders,
    given_on_command_line,
    name_option,
    note_unanswered,
    notice,
    parse_names,
    progress_bar,
    refuse_unused,
    report_warnings,
    strict_option,
)
from muceval.cli.groups import (
    Cluster,
    ConfigurationChoice,
    Decorator,
    Destination,
    ModernChoice,
    configuration_options,
    destination_options,
    executor_options,
    option_group,
    scoring_options,
)
from muceval.cli.modern import MODERN_ONLY, MODERN_USES, modern_options, run_modern
from muceval.errors import MucevalError, OutputError, UsageError
from muceval.formats.files import write_atomic
from muceval.pipelines.common import refuse_outputs
from muceval.reporting.outputs import (
    Detail,
    ReportForm,
    ScoreFormat,
    ScoreView,
    write_folder,
)

if TYPE_CHECKING:
    from muceval.core.model import Configuration
    from muceval.core.tallies import PairScore
    from muceval.formats.muc.store import HistorySaveError
    from muceval.pipelines.inputs import Responses
    from muceval.pipelines.score import ScoredResponses
    from muceval.scoring.muc1992.judgements import AnswerCallback, Query, QueryAnswer, Unresolved
    from muceval.scoring.muc1992.scorer import ScoringOptions


@dataclass(frozen=True)
class HistoryChoice:
    """The history, what its unanswered questions give, and where ``ask``'s answers go."""

    history_path: str | None
    unresolved: Unresolved
    save_history: str | None


def _history_options() -> Decorator:
    return option_group("history", HistoryChoice, [
        click.option("--history", "history_path", type=click.Path(dir_okay=False),
                     help="1992 history file of human judgements."),
        click.option("--unresolved", type=click.Choice(["incorrect", "partial", "correct", "ask"]),
                     default="incorrect",
                     help="What a question without a recorded answer gives; 'ask' asks you."),
        click.option("--save-history", "save_history", type=click.Path(dir_okay=False),
                     help="With --unresolved ask: store the history with your answers here "
                     "instead of updating --history in place."),
    ])


def _view_options() -> Decorator:
    return option_group("view", ScoreView, [
        click.option("--format", "fmt", type=click.Choice(get_args(ScoreFormat)),
                     default="report",
                     help="report: the 1992 text report; json / csv: every tally, for programs; "
                     "table: a compact summary for the terminal."),
        click.option("--layout", "report_form", type=click.Choice(get_args(ReportForm)),
                     default="template",
                     help="1992 report layout (--format report): per template pair, summary "
                     "only, or per message (with TEXT FILTERING)."),
        click.option("--detail", type=click.Choice(get_args(Detail)),
                     default="summary",
                     help="--format json / csv: the summary of each system with its per-message "
                     "totals; 'messages' adds every row of every message, 'pairs' also every "
                     "template pair."),
        JSON_UNIT_OPTION,
        click.option("--per-slot", is_flag=True,
                     help="With --format table or json: recall, precision and F of every slot, "
                     "the object subtotals and the four manners, per system."),
    ])


def _check_view(view: ScoreView, destination: Destination) -> None:
    fmt, unit, per_slot = view.fmt, view.unit, view.per_slot
    if per_slot and (fmt not in ("table", "json") or destination.output_dir is not None):
        raise UsageError("--per-slot goes with --format table or --format json, without "
                         "--output-dir")
    if fmt != "report" and given_on_command_line("report_form"):
        raise UsageError(f"--layout chooses a 1992 report layout; --format {fmt} has none "
                         "(json and csv take --detail)")
    if fmt not in ("json", "csv") and given_on_command_line("detail"):
        raise UsageError("--detail goes with --format json or csv")
    if unit != "message" and (fmt != "json" or per_slot):
        raise UsageError(f"--unit {unit} writes the units into muceval's JSON scores: it goes "
                         "with --format json (without --per-slot)")


@cli.command("score")
@click.argument("responses", nargs=-1, required=True, metavar="RESPONSE...",
                type=click.Path())
@click.option("--key", "key_path", required=True, type=click.Path(dir_okay=False),
              help="The answer-key template file.")
@configuration_options(alignment_file=True, criterion=True)
@_history_options()
@scoring_options(mapping=True)
@click.option("--manual-mappings", "mapping_paths", multiple=True,
              type=click.Path(dir_okay=False),
              help="Template pairs to use instead of the automatic mapping: lines "
              "'MESSAGE-ID KEY-ID RESPONSE-ID', or a 1992 score report. Give it once for "
              "all responses, or once per RESPONSE in the same order.")
@executor_options("Score the systems on Dask, one task per system: tcp://HOST:8786 or local:N "
                  "(N worker processes). Needs 'muceval[distributed]'.")
@_view_options()
@destination_options("Replace existing output files; also score a response that looks like a "
                     "key (optional templates, '?' values or '/' alternatives where the key "
                     "has none), which is refused as swapped otherwise.", folder=(
    "Write one file per system (DIR/SYSTEM.report, .json, .csv) and a summary "
    "(DIR/summary.txt, .json or .csv) into this folder (created if needed)."))
@name_option
@modern_options()
@strict_option
def score(responses: tuple[str, ...], key_path: str, configuration: ConfigurationChoice,
          history: HistoryChoice, scoring: ScoringOptions, mapping_paths: tuple[str, ...],
          cluster: Cluster | None, view: ScoreView, destination: Destination,
          names: tuple[str, ...], modern: ModernChoice, strict: bool) -> None:
    """Score system response files against an answer key as the 1992 MUC-4 scorer did.

    Prints the 1992 report of each RESPONSE (systems are named after the file
    name without its last suffix), or all tallies as JSON or CSV. A RESPONSE
    that is a folder stands for every file in it.

    \b
    Example:
      muceval score --key key-tst3.v2 --config config-tst3.el \\
          --history final-history-nrad.tst3 BBN.tst3 > BBN.report
      muceval score --key key.txt --config task.toml --format json -o scores.json A.txt B.txt
      muceval score --key key.txt --unit fill --format json -o fills.json A.txt B.txt
      muceval score --key key-tst3.v2 --no-query-pass --output-dir reports/ responses/
      muceval score --key key-tst3.v2 --format table --per-slot BBN.tst3
      muceval score --key gtt/test.json --scorer all gtt/preds_gtt.out iterx/*.jsonlines
      muceval score --key famus/source/dev.json --scorer ceaf-rme --phi phi-a \
          --parse lenient llama_responses.jsonl
    """
    from muceval.pipelines.inputs import is_modern, is_templates

    if modern.metric != "1992" or is_modern(key_path):
        templates = next((r for r in responses if os.path.isfile(r) and is_templates(r)), None)
        if templates is not None and is_modern(key_path):
            raise UsageError(f"{templates} is a 1992 MUC template file and {key_path} a modern "
                             "gold file (JSON): score it against a 1992 key, or convert it "
                             f"first (muceval convert {templates} --to iterx-pred)")
        if modern.metric == "1992":
            raise UsageError(f"{key_path} is a modern gold file: choose --scorer gtt, "
                             "ceaf-ree, ceaf-rme or all")
        refuse_unused(MODERN_USES, "belongs to the 1992 scorer; the modern metrics take --phi, "
                      "--event-n, --event-n-file, --ignore-empty-docs, --compat, --parse, "
                      "--schema, --name, --format, -o, --force and --strict")
        predictions = expand_folders(responses, RESPONSES)
        refuse_outputs([destination.output], {
            key_path: "key", **{p: "predictions" for p in predictions},
            **({modern.event_n_file: "buckets file"} if modern.event_n_file else {})})
        run_modern(key_path, predictions, modern, view.fmt, destination, strict,
                   parse_names(names, predictions))
        return
    from muceval.pipelines.inputs import Responses, names_of

    refuse_unused([name for name in click.get_current_context().params
                   if name not in MODERN_ONLY], "goes with a modern --metric")
    _check_view(view, destination)
    responses = expand_folders(responses, RESPONSES)
    # --force also scores a response that looks like a key (refused otherwise, as swapped).
    source = Responses(key_path, responses, configuration.config_path, configuration.slots_path,
                       configuration.alignment_path, history.history_path, scoring, view.unit,
                       names_of(parse_names(names, responses)), allow_swapped=destination.force)
    # Without --manual-mappings, the library takes those muceval adjudicate kept (its notes
    # say which).
    scored = _score(source, history, mapping_paths or None, configuration.alignment, cluster,
                    destination)
    for line in scored.notes():
        notice(f"note: {line} (--manual-mappings overrides)")
    session = scored.session
    report_warnings(session.warnings, session.file_warnings, strict)
    note_unanswered(session.unanswered, history.unresolved, history.history_path)
    _show(replace(view, settings=scored.settings), destination, session.systems, scored.config,
          scored.files)
    if session.answers_file is not None:
        notice(f"{len(session.new_judgements)} new judgement(s) stored in "
               f"{session.answers_file}")


def _score(source: Responses, history: HistoryChoice,
           mappings: Sequence[str] | None, criterion: str | None,
           cluster: Cluster | None, destination: Destination) -> ScoredResponses:
    """The scoring session; a failed save of an answer offers to keep the answers elsewhere."""
    from muceval.pipelines.score import score_responses

    ask = history.unresolved == "ask"
    try:
        with progress_bar(len(source.responses) > 1 and not ask, "scoring") as advance:
            return score_responses(
                source, unresolved=history.unresolved,
                ask=_ask_on_terminal(source.configuration()) if ask else None,
                mappings=mappings, save_history=history.save_history,
                criterion=criterion, scheduler=cluster.scheduler if cluster else None,
                outputs=[destination.output], progress=advance)
    except OutputError as failed:
        from muceval.formats.muc.store import HistorySaveError  # saves only when asking

        if not isinstance(failed, HistorySaveError):
            raise
        _save_elsewhere(failed, set(source.files))
        raise click.exceptions.Exit(2) from None


def _show(view: ScoreView, destination: Destination,
          results: Mapping[str, Sequence[PairScore]], config: Configuration,
          inputs: Mapping[str | None, str]) -> None:
    if destination.output_dir is not None:
        written = write_folder(destination.output_dir, view, results, config, inputs,
                               destination.force)
        notice(f"wrote {len(written)} files to {destination.output_dir}")
    elif view.fmt == "table" and destination.output is None:
        from rich.console import Console

        console = Console()
        for table in view.tables(results, config):
            console.print(table)
    else:
        destination.emit(view.text(results, config), encoding=view.encoding)


def _save_elsewhere(failed: HistorySaveError, inputs: set[str | None]) -> None:
    """After a failed save: offer to store the answers (kept in memory) in another file."""
    answers = sum(1 for _ in failed.history.entries())
    click.echo(f"error: {failed}", err=True)
    while True:
        path = click.prompt(f"  the history with your answers ({answers} judgements) is kept: "
                            "save it to another file (empty: quit without saving)",
                            default="", show_default=False, err=True).strip()
        if not path:
            click.echo("  answers of this session not saved", err=True)
            return
        try:
            refuse_outputs([path], {p: "input" for p in inputs if p is not None})
            if os.path.exists(path):
                raise MucevalError(f"{path} exists: choose a new file")
            write_atomic(path, failed.text, overwrite=False)
        except MucevalError as error:
            click.echo(f"  error: {error}", err=True)
            continue
        click.echo(f"  history saved to {path}", err=True)
        return


def _ask_on_terminal(config: Configuration) -> AnswerCallback:
    from muceval.core.model import Judgement
    from muceval.formats.muc.templates import format_value

    choices = {"c": Judgement.MATCH, "p": Judgement.PARTIAL, "i": Judgement.FAIL}

    def ask(query: Query) -> QueryAnswer:
        slot_type = config.slot(query.slot_id).type
        click.echo(f"\n{query.message_id}  key {query.key_template_id}  response "
                   f"{query.response_template_id or '<NONE>'}  slot {query.slot_id}", err=True)
        click.echo(f"  response: {format_value(query.response, slot_type)}", err=True)
        for i, fill in enumerate(query.offered, start=1):
            click.echo(f"  key [{i}]: {format_value(fill, slot_type)}", err=True)
        while True:
            answer = click.prompt(
                "  [c]orrect, [p]artial, [i]ncorrect or [s]kip; after c or p the key number "
                "(e.g. 'p 2')", default="s", err=True).split()
            kind = answer[0][:1].lower() if answer else "s"
            if kind == "s":
                return None  # no credit now, and nothing recorded: asked again next time
            which = answer[1] if len(answer) > 1 else "1"
            if kind in choices and which.isdigit() and 1 <= int(which) <= max(len(query.offered), 1):
                return choices[kind], int(which) - 1
            click.echo("  please answer c, p, i or s (c and p may be followed by a key number)",
                       err=True)

    return ask
