"""muceval score: score responses as the 1992 MUC-4 scorer did."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import click

from muceval.cli.app import cli
from muceval.cli.common import (
    UNIT_LEVEL_HELP,
    alignment_file_option,
    configuration_options,
    expand_folders,
    name_option,
    parse_names,
    progress_bar,
    refuse_overwriting_inputs,
    refuse_unused,
    report_warnings,
    resolve_configuration,
    scores_table,
    strict_option,
)
from muceval.cli.modern import (
    MODERN_ONLY,
    MODERN_USES,
    key_is_modern,
    modern_options,
    run_modern,
)
from muceval.errors import UsageError
from muceval.formats.files import write_atomic, write_files
from muceval.formats.muc.store import HistorySaveError

if TYPE_CHECKING:
    from rich.table import Table

    from muceval.core.model import Configuration
    from muceval.core.tallies import PairScore
    from muceval.scoring.muc1992.judgements import AnswerCallback, Query, QueryAnswer, Unresolved
    from muceval.scoring.muc1992.scorer import MappingKind


@cli.command("score")
@click.argument("responses", nargs=-1, required=True, metavar="RESPONSE...",
                type=click.Path())
@click.option("--key", "key_path", required=True, type=click.Path(dir_okay=False),
              help="The answer-key template file.")
@configuration_options()
@click.option("--history", "history_path", type=click.Path(dir_okay=False),
              help="1992 history file of human judgements.")
@click.option("--no-query-pass", is_flag=True,
              help="Batch mode of the 1992 program: no queries, so questions give no credit "
              "(the history is still used by the automatic look-up).")
@click.option("--manual-mappings", "mapping_paths", multiple=True,
              type=click.Path(dir_okay=False),
              help="Template pairs to use instead of the automatic mapping: lines "
              "'MESSAGE-ID KEY-ID RESPONSE-ID', or a 1992 score report. Give it once for "
              "all responses, or once per RESPONSE in the same order.")
@click.option("--mapping", type=click.Choice(["greedy", "optimal"]), default="greedy",
              show_default=True, help="Automatic mapping: the 1992 greedy one or an optimal one.")
@click.option("--alignment", "alignment", metavar="CRITERION",
              help="Score with this alignment criterion of the configuration ([alignment] "
              "tables; predefined: 1992, 1992-optimal, any-slot) instead of its default.")
@alignment_file_option
@click.option("--unresolved", type=click.Choice(["incorrect", "partial", "correct", "ask"]),
              default="incorrect", show_default=True,
              help="What a question without a recorded answer gives; 'ask' asks you.")
@click.option("--save-history", "save_history", type=click.Path(dir_okay=False),
              help="With --unresolved ask: store the history with your answers here "
              "instead of updating --history in place.")
@click.option("--scheduler", help="Score the systems on Dask, one task per system: "
              "tcp://HOST:8786 or local:N (N worker processes). Needs 'muceval[distributed]'.")
@click.option("--format", "fmt", type=click.Choice(["report", "json", "csv", "table"]),
              default="report", show_default=True,
              help="report: the 1992 text report; json / csv: every tally, for programs; "
              "table: a compact summary for the terminal.")
@click.option("--layout", type=click.Choice(["template", "summary", "message"]),
              default="template", show_default=True,
              help="1992 report layout (--format report): per template pair, summary only, or "
              "per message (with TEXT FILTERING).")
@click.option("--detail", type=click.Choice(["summary", "messages", "pairs"]), default="summary",
              show_default=True,
              help="--format json / csv: the summary of each system with its per-message totals; "
              "'messages' adds every row of every message, 'pairs' also every template pair.")
@click.option("--unit", type=click.Choice(["message", "template", "fill"]), default="message",
              show_default=True,
              help="With --format json: the units written for the significance tests: "
              + UNIT_LEVEL_HELP)
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="Write to this file instead of standard output.")
@click.option("--output-dir", type=click.Path(file_okay=False),
              help="Write one file per system (DIR/SYSTEM.report, .json, .csv) and a summary "
              "(DIR/summary.txt, .json or .csv) into this folder (created if needed).")
@click.option("--force", is_flag=True, help="Replace existing output files.")
@click.option("--per-slot", is_flag=True,
              help="With --format table or json: recall, precision and F of every slot, the "
              "object subtotals and the four manners, per system.")
@name_option
# modern_options is still untyped: cli/modern.py is typed by the main session (issue 25).
@modern_options
@strict_option
def score(responses: tuple[str, ...], key_path: str, config_path: str, slots_path: str | None,
          history_path: str | None, no_query_pass: bool, mapping_paths: tuple[str, ...],
          mapping: MappingKind, alignment: str | None, alignment_path: str | None,
          unresolved: Unresolved,
          save_history: str | None, scheduler: str | None, fmt: str, layout: str,
          detail: str, unit: str, output: str | None, output_dir: str | None, force: bool, per_slot: bool,
          metric: str, phi: str | None, event_n: str | None, ignore_empty_docs: bool,
          compat: bool, names: tuple[str, ...], strict: bool) -> None:
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
      muceval score --key gtt/test.json --metric all gtt/preds_gtt.out iterx/*.jsonlines
    """

    from muceval.scoring.session import score_files

    given = click.get_current_context().get_parameter_source
    if metric != "1992" or key_is_modern(key_path):
        if metric == "1992":
            raise UsageError(f"{key_path} is a modern MUC-4 gold file: choose --metric gtt, "
                             "ceaf-ree, ceaf-rme or all")
        refuse_unused(MODERN_USES, "belongs to the 1992 scorer; the modern metrics take --phi, "
                      "--event-n, --ignore-empty-docs, --compat, --name, --format, -o, --force "
                      "and --strict")
        predictions = expand_folders(responses)
        refuse_overwriting_inputs(output, {key_path: "key",
                                           **{p: "predictions" for p in predictions}})
        run_modern(key_path, predictions, metric, phi, event_n, ignore_empty_docs, compat, fmt,
                   output, force, strict, parse_names(names, predictions))
        return
    refuse_unused([name for name in click.get_current_context().params
                   if name not in MODERN_ONLY], "goes with a modern --metric")

    if output is not None and output_dir is not None:
        raise UsageError("give -o FILE or --output-dir DIR, not both")
    if per_slot and (fmt not in ("table", "json") or output_dir is not None):
        raise UsageError("--per-slot goes with --format table or --format json, without "
                         "--output-dir")
    if fmt != "report" and given("layout") is click.core.ParameterSource.COMMANDLINE:
        raise UsageError(f"--layout chooses a 1992 report layout; --format {fmt} has none "
                         "(json and csv take --detail)")
    if fmt not in ("json", "csv") and given("detail") is click.core.ParameterSource.COMMANDLINE:
        raise UsageError("--detail goes with --format json or csv")
    if unit != "message" and (fmt != "json" or per_slot):
        raise UsageError(f"--unit {unit} writes the units into muceval's JSON scores: it goes "
                         "with --format json (without --per-slot)")
    responses = expand_folders(responses)
    inputs: dict[str | None, str] = {key_path: "key", config_path: "configuration", slots_path: "slot file",
              history_path: "history", **{path: "response file" for path in responses},
              **{path: "mapping file" for path in mapping_paths}}
    config = resolve_configuration(config_path, slots_path, alignment_path)
    # The slot file a 1992 configuration names is read too, though not given.
    inputs.update((path, "configuration file") for path in config.read_from if path not in inputs)
    refuse_overwriting_inputs(output, inputs)
    refuse_overwriting_inputs(save_history, {k: v for k, v in inputs.items() if k != history_path})
    show_progress = len(responses) > 1 and unresolved != "ask" and sys.stderr.isatty()
    renamed = parse_names(names, responses)
    chosen_mappings = _adjudicated_mappings(history_path, responses, renamed) \
        if not mapping_paths else mapping_paths
    try:
        with progress_bar(show_progress, "scoring") as advance:
            session = score_files(
                config, key_path, responses, history_path=history_path,
                query_pass=not no_query_pass, mapping=mapping, mapping_paths=chosen_mappings,
                unresolved=unresolved,
                ask=_ask_on_terminal(config) if unresolved == "ask" else None,
                save_history=save_history, names=renamed,
                progress=advance, alignment=alignment, scheduler=scheduler,
                fills=unit == "fill")
    except HistorySaveError as failed:
        _save_elsewhere(failed, set(inputs))
        raise click.exceptions.Exit(2) from None
    report_warnings(session.warnings, session.file_warnings, strict)

    results = session.systems
    out = Output(fmt, layout, detail, unit, {
        "command": "score", "muceval": _version(), "key": key_path,
        "configuration": config_path or "muc4", "slots": slots_path, "history": history_path,
        "responses": list(responses), "query_pass": not no_query_pass, "mapping": mapping,
        "alignment": alignment or (config.alignment.default if config.alignment else "1992"),
        "manual_mappings": [str(p) for p in (chosen_mappings.values()
                                             if isinstance(chosen_mappings, dict)
                                             else chosen_mappings)],
        "unresolved": unresolved})
    if per_slot:
        _print_per_slot(fmt, results, config, output, force)
    elif output_dir is not None:
        written = write_folder(output_dir, out, results, config, inputs, force)
        click.echo(f"wrote {len(written)} files to {output_dir}", err=True)
    elif output is not None:
        write_atomic(output, out.text(results, config),
                     encoding=_ENCODING[fmt], errors="replace", overwrite=force)
    elif fmt == "table":
        from rich.console import Console

        Console().print(_table(results, config))
    else:
        click.echo(out.text(results, config), nl=False)
    if session.answers_file is not None:
        click.echo(f"{len(session.new_judgements)} new judgement(s) stored in "
                   f"{session.answers_file}", err=True)


def _adjudicated_mappings(history_path: str | None, responses: Sequence[str],
                          renamed: Mapping[str, str]) -> dict[str, str]:
    """The manual mappings ``muceval adjudicate`` kept next to the history, per system; each
    one used is said on standard error."""
    from muceval.formats.files import system_name
    from muceval.formats.muc.mappings import sidecar_mapping_path

    if history_path is None:
        return {}
    found = {}
    for path in responses:
        name = renamed.get(path) or system_name(path)
        sidecar = sidecar_mapping_path(history_path, name)
        if sidecar.is_file():
            found[name] = str(sidecar)
            click.echo(f"note: {name} uses the manual mappings of muceval adjudicate in "
                       f"{sidecar} (--manual-mappings overrides)", err=True)
    return found


def _print_per_slot(fmt: str, results: Mapping[str, Sequence[PairScore]], config: Configuration,
                    output: str | None, force: bool) -> None:
    import json

    from rich.console import Console

    from muceval.reporting.slots import PER_SLOT_FORMAT, per_slot_rows, per_slot_table
    from muceval.version import __version__

    rows = {name: per_slot_rows(pairs, config) for name, pairs in results.items()}
    if fmt == "json":
        text = json.dumps({"format": PER_SLOT_FORMAT, "format_version": 1,
                           "muceval": __version__,
                           "systems": [{"system": name, "rows": [r.to_dict() for r in system]}
                                       for name, system in rows.items()]}, indent=1) + "\n"
    else:
        console = Console(record=True, width=100, file=io.StringIO()) if output else Console()
        for name, system in rows.items():
            console.print(per_slot_table(name, system))
        if output is None:
            return
        text = console.export_text()
    if output is None:
        click.echo(text, nl=False)
    else:
        write_atomic(output, text, overwrite=force)


# The 1992 reports are 8-bit text like the files they come from; the rest is UTF-8.
_ENCODING = {"report": "latin-1", "json": "utf-8", "csv": "utf-8", "table": "utf-8"}
_EXTENSION = {"report": "report", "json": "json", "csv": "csv", "table": "txt"}


def _table(results: Mapping[str, Sequence[PairScore]], config: Configuration) -> Table:
    from muceval.core.metrics import float_scores
    from muceval.core.tallies import summarize

    summaries = {name: summarize(pairs, config).accumulators for name, pairs in results.items()}
    return scores_table(
        "ALL TEMPLATES (%)",
        {name: float_scores(acc.all_templates.total) for name, acc in summaries.items()},
        {name: [float_scores(getattr(acc, m).total) for m in
                ("matched_only", "matched_missing", "matched_spurious", "all_templates")]
         for name, acc in summaries.items()},
    )


def _version() -> str:
    from muceval.version import __version__

    return __version__


@dataclass(frozen=True)
class Output:
    """What the user asked to see: format, report layout, detail, and the settings to record."""

    fmt: str
    layout: str
    detail: str
    unit: str
    settings: Mapping[str, object]

    def text(self, results: Mapping[str, Sequence[PairScore]], config: Configuration,
             fmt: str | None = None) -> str:
        """The text of ``results`` in ``fmt`` (default: the chosen one), all systems in one text."""
        from muceval.formats.scores.csv import scores_to_csv
        from muceval.formats.scores.json import scores_to_json
        from muceval.reporting.muc1992 import format_report

        fmt = fmt or self.fmt
        if fmt == "table":
            from rich.console import Console

            console = Console(record=True, width=120, file=io.StringIO())
            console.print(_table(results, config))
            return console.export_text()
        if fmt == "json":
            return scores_to_json(results, config, detail=self.detail, unit=self.unit,
                                  settings={**self.settings, "detail": self.detail})
        if fmt == "csv":
            return scores_to_csv(results, config, detail=self.detail)
        reports = [format_report(pairs, config, layout=self.layout) for pairs in results.values()]
        if len(reports) == 1:
            return reports[0]
        # Each report stays byte-identical to the 1992 one; the line before it names the system.
        return "".join(f"==> {name} <==\n{text}" for name, text in zip(results, reports, strict=True))


def write_folder(folder: str, out: Output, results: Mapping[str, Sequence[PairScore]],
                  config: Configuration, inputs: dict[str | None, str], force: bool) -> list[str]:
    """One file per system and a summary in ``folder``; existing files only with ``force``."""

    files: dict[str, tuple[str, str]] = {}  # file name -> (text, format)
    if out.fmt != "table":
        for name, pairs in results.items():
            files[f"{name}.{_EXTENSION[out.fmt]}"] = (out.text({name: pairs}, config), out.fmt)
    summary = out.fmt if out.fmt in ("json", "csv") else "table"
    files[f"summary.{_EXTENSION[summary]}"] = (out.text(results, config, summary), summary)
    encoded = {os.path.join(folder, name): text.encode(_ENCODING[kind], "replace")
               for name, (text, kind) in files.items()}
    write_files(encoded, overwrite=force, keep=inputs)
    return list(encoded)


def _save_elsewhere(failed: HistorySaveError, inputs: set[str | None]) -> None:
    """After a failed save: offer to store the answers (kept in memory) in another file."""
    from muceval.errors import MucevalError

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
            refuse_overwriting_inputs(path, {p: "input" for p in inputs if p is not None})
            if os.path.exists(path):
                raise MucevalError(f"{path} exists: choose a new file")
            write_atomic(path, failed.text, overwrite=False)
        except MucevalError as error:
            click.echo(f"  error: {error}", err=True)
            continue
        click.echo(f"  history saved to {path}", err=True)
        return


def _ask_on_terminal(config: Configuration) -> AnswerCallback:
    """A callback that asks the person at the terminal to judge a response fill."""
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



