"""muceval score: score responses as the 1992 MUC-4 scorer did."""

from __future__ import annotations

import os

import click

from muceval.cli.app import cli
from muceval.cli.common import refuse_overwriting_inputs, resolve_configuration, scores_table
from muceval.formats.muc.store import HistorySaveError


@cli.command("score")
@click.argument("responses", nargs=-1, required=True, metavar="RESPONSE...",
                type=click.Path(dir_okay=False))
@click.option("--key", "key_path", required=True, type=click.Path(dir_okay=False),
              help="The answer-key template file.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False),
              help="Configuration: muceval TOML, a 1992 config-*.el (then see --slots), or "
              "'muc4' (the bundled MUC-4 configuration, the default).")
@click.option("--slots", "slots_path", type=click.Path(dir_okay=False),
              help="1992 slot file (slotconfig-*.el) for a 1992 --config "
              "(default: its :slot-file, looked for next to it).")
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
@click.option("--unresolved", type=click.Choice(["incorrect", "partial", "correct", "ask"]),
              default="incorrect", show_default=True,
              help="What a question without a recorded answer gives; 'ask' asks you.")
@click.option("--save-history", "save_history", type=click.Path(dir_okay=False),
              help="With --unresolved ask: store the history with your answers here "
              "instead of updating --history in place.")
@click.option("--format", "fmt", type=click.Choice(["report", "json", "csv", "table"]),
              default="report", show_default=True,
              help="report: the 1992 text report; json / csv: every tally, for programs; "
              "table: a compact summary for the terminal.")
@click.option("--layout", type=click.Choice(["template", "summary", "message"]),
              default="template", show_default=True,
              help="1992 report layout: per template pair, summary only, or per message "
              "(with TEXT FILTERING).")
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="Write to this file instead of standard output.")
def score(responses: tuple[str, ...], key_path: str, config_path: str, slots_path: str | None,
          history_path: str | None, no_query_pass: bool, mapping_paths: tuple[str, ...],
          mapping: str, unresolved: str, save_history: str | None, fmt: str, layout: str,
          output: str | None) -> None:
    """Score system response files against an answer key as the 1992 MUC-4 scorer did.

    Prints the 1992 report of each RESPONSE (systems are named after the file
    name without its last suffix), or all tallies as JSON or CSV.

    \b
    Example:
      muceval score --key key-tst3.v2 --config config-tst3.el \\
          --history final-history-nrad.tst3 BBN.tst3 > BBN.report
      muceval score --key key.txt --config task.toml --format json -o scores.json A.txt B.txt
    """

    from muceval.reporting.muc1992 import format_report, scores_to_csv, scores_to_json
    from muceval.scoring.session import score_files

    inputs = {key_path: "key", config_path: "configuration", slots_path: "slot file",
              history_path: "history", **{path: "response file" for path in responses},
              **{path: "mapping file" for path in mapping_paths}}
    refuse_overwriting_inputs(output, inputs)
    refuse_overwriting_inputs(save_history, {k: v for k, v in inputs.items() if k != history_path})
    config = resolve_configuration(config_path, slots_path)
    try:
        session = score_files(
            config, key_path, responses, history_path=history_path,
            query_pass=not no_query_pass, mapping=mapping, mapping_paths=mapping_paths,
            unresolved=unresolved, ask=_ask_on_terminal(config) if unresolved == "ask" else None,
            save_history=save_history)
    except HistorySaveError as failed:
        _save_elsewhere(failed, set(inputs))
        raise click.exceptions.Exit(2) from None
    results = session.systems
    for warning in session.warnings:
        click.echo(f"warning: {warning}", err=True)

    if fmt == "table":
        from rich.console import Console

        from muceval.core.metrics import float_scores
        from muceval.core.tallies import summarize

        summaries = {name: summarize(pairs, config).accumulators for name, pairs in results.items()}
        table = scores_table(
            "ALL TEMPLATES (%)",
            {name: float_scores(acc.all_templates.total) for name, acc in summaries.items()},
            {name: [float_scores(getattr(acc, m).total) for m in
                    ("matched_only", "matched_missing", "matched_spurious", "all_templates")]
             for name, acc in summaries.items()},
        )
        if output is None:
            Console().print(table)
        else:
            console = Console(record=True, width=120, file=open(os.devnull, "w"))  # noqa: SIM115
            console.print(table)
            _write_text(output, console.export_text())
        text = None
    elif fmt == "json":
        text = scores_to_json(results, config)
    elif fmt == "csv":
        text = scores_to_csv(results, config)
    else:
        text = "".join(format_report(pairs, config, layout=layout) for pairs in results.values())
    if text is None:
        pass
    elif output is None:
        click.echo(text, nl=False)
    else:
        _write_text(output, text)
    if session.answers_file is not None:
        click.echo(f"{len(session.new_judgements)} new judgement(s) stored in "
                   f"{session.answers_file}", err=True)


def _write_text(path: str, text: str) -> None:
    """Write ``text`` to ``path`` (latin-1, like the 1992 files), via a temporary file."""
    import tempfile

    from muceval.errors import UsageError

    directory = os.path.dirname(os.path.abspath(path))
    try:
        handle, temporary = tempfile.mkstemp(dir=directory, prefix=".muceval-")
        with os.fdopen(handle, "w", encoding="latin-1", errors="replace", newline="") as out:
            out.write(text)
        os.replace(temporary, path)
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror or error}") from None


def _save_elsewhere(failed: HistorySaveError, inputs: set[str | None]) -> None:
    """After a failed save: offer to store the answers (kept in memory) in another file."""
    from muceval.errors import MucevalError
    from muceval.formats.muc.history import save_history

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
            save_history(failed.history, path)
        except MucevalError as error:
            click.echo(f"  error: {error}", err=True)
            continue
        click.echo(f"  history saved to {path}", err=True)
        return


def _ask_on_terminal(config):
    """A callback that asks the person at the terminal to judge a response fill."""
    from muceval.core.model import Judgement
    from muceval.formats.muc.templates import format_value

    choices = {"c": Judgement.MATCH, "p": Judgement.PARTIAL, "i": Judgement.FAIL}

    def ask(query):
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



