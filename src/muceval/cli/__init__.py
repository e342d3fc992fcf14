"""The ``muceval`` command line: a thin layer over the library.

Each command parses its options, calls the library and prints. Errors in user
input (:class:`muceval.errors.MucevalError`) end the program with exit code 2
and one clear message; they never show a traceback.
"""

from __future__ import annotations

import contextlib
import os
import sys

import click

from muceval import __version__
from muceval.errors import InputError, MucevalError


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="muceval")
def cli() -> None:
    """Score MUC information-extraction templates as the 1992 MUC-4 scorer did,
    and test which differences between systems are real.

    \b
    Example:
      muceval demo
    """


# --- commands -------------------------------------------------------------
# (each command is added below this line as its own function)


@cli.command("demo")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="muceval-demo",
              show_default=True, help="Folder for the reports and the JSON scores.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True, help="table for people, json for programs.")
def demo(out_dir: str, fmt: str) -> None:
    """Score the bundled example (ten invented messages, four systems) and show the result.

    Writes each system's report in the 1992 layout and all tallies as JSON to
    the --out folder.

    \b
    Example:
      muceval demo
      muceval demo --out /tmp/demo --format json
    """
    import json

    from rich.console import Console

    from muceval.reporting.demo import run_demo

    result = run_demo(out_dir)
    if fmt == "json":
        click.echo(json.dumps({
            "systems": {s.name: s.all_templates.as_dict() for s in result.systems},
            "reports": {s.name: str(s.report_path) for s in result.systems},
            "scores": str(result.json_path),
            "html_report": str(result.report_path) if result.report_path else None,
        }, indent=2))
        return
    console = Console()
    console.print(_scores_table("Bundled example, ALL TEMPLATES (%)",
                                {s.name: s.all_templates for s in result.systems}))
    console.print(f"1992-layout reports and scores.json written to [bold]{result.out_dir}[/bold]")
    if result.report_path is not None:
        console.print(f"HTML report with plots: [bold]{result.report_path}[/bold]")


def _pc(value: float | None) -> str:
    return "*" if value is None else f"{100 * value:.2f}"


def _scores_table(title: str, systems: dict, regions: dict | None = None):
    """A rich table of systems (best F P&R first), measures in %.

    ``regions`` adds the region of performance: the (recall, precision) range
    spanned by the four manners of counting unmapped templates.
    """
    from rich.table import Table

    table = Table(title=title)
    columns = ["system", "REC", "PRE", "OVG", "F P&R", "F 2P&R", "F P&2R"]
    if regions:
        columns.append("region REC x PRE")
    for column in columns:
        table.add_column(column, justify="left" if column == "system" else "right")
    for name, a in sorted(systems.items(), key=lambda item: -(item[1].f_pr or 0.0)):
        row = [name, _pc(a.recall), _pc(a.precision), _pc(a.overgeneration),
               _pc(a.f_pr), _pc(a.f_2pr), _pc(a.f_p2r)]
        if regions:
            row.append(_region(regions[name]))
        table.add_row(*row)
    return table


def _region(points) -> str:
    def span(values) -> str:
        values = [round(100 * v) for v in values if v is not None]
        return f"{min(values)}-{max(values)}" if values else "*"

    return f"{span(p.recall for p in points)} x {span(p.precision for p in points)}"



@cli.command("validate")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False),
    help="Configuration that defines the template slots (TOML or 1992 config .el). "
    "Default: the bundled MUC-4 configuration.",
)
@click.option("--slots", "slots_path", type=click.Path(dir_okay=False),
              help="1992 slot file (slotconfig-*.el) to go with a 1992 --config.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="text for people, json for programs.")
@click.option("--warnings", "show_warnings", is_flag=True,
              help="Show every warning (text format shows the first three per file).")
def validate(files: tuple[str, ...], config_path: str | None, slots_path: str | None,
             fmt: str, show_warnings: bool) -> None:
    """Read keys, responses, configurations, histories or score reports and report
    what each holds and every problem found (file, line, problem).

    The kind of each file is recognised from its content. Warnings report what
    the 1992 scorer accepted but you may want to know (values outside a slot's
    set, ignored lines). Exit code 0 when no file has a problem, 2 otherwise.

    \b
    Example:
      muceval validate key-tst3.v2 BBN.tst3 final-history-nrad.tst3 config-tst3.el
      muceval validate --config my-task.toml key.txt system.txt
    """
    import json

    from muceval.formats.validation import validate_files

    config = _configuration(config_path, slots_path)
    results = validate_files(files, config)
    if fmt == "json":
        click.echo(json.dumps([
            {"path": r.path, "kind": r.kind.value, "counts": r.counts,
             "problems": [{"line": p.line, "column": p.column, "message": p.message}
                          for p in r.problems],
             "warnings": [{"line": p.line, "column": p.column, "message": p.message}
                          for p in r.warnings]}
            for r in results], indent=2))
    else:
        for result in results:
            summary = ", ".join(f"{n} {what}" for what, n in result.counts.items())
            status = "ok" if result.ok else f"{len(result.problems)} problem(s)"
            if result.warnings:
                status += f", {len(result.warnings)} warning(s)"
            click.echo(f"{result.path}: {result.kind.value}: {summary or '-'}: {status}")
            for problem in result.problems:
                click.echo(f"  {problem}")
            shown = result.warnings if show_warnings else result.warnings[:3]
            for warning in shown:
                click.echo(f"  warning: {warning}")
            if len(shown) < len(result.warnings):
                click.echo(f"  ... {len(result.warnings) - len(shown)} more warning(s) "
                           "(--warnings shows all)")
    if not all(r.ok for r in results):
        raise click.exceptions.Exit(2)


def _configuration(config_path: str | None, slots_path: str | None):
    """The configuration named on the command line, or the bundled MUC-4 one."""
    from muceval.formats.config import bundled_configuration, load_configuration

    if config_path is None:
        if slots_path is not None:
            return load_configuration(slots_path)
        return bundled_configuration("muc4")
    return load_configuration(config_path, slots_path)


@cli.command("convert-config")
@click.argument("config_el", metavar="CONFIG.el", type=click.Path(dir_okay=False))
@click.option(
    "--slots",
    "slots_el",
    metavar="SLOTS.el",
    type=click.Path(dir_okay=False),
    help="The 1992 slot file (default: the :slot-file of CONFIG.el, looked for next to it).",
)
@click.option(
    "-o",
    "--output",
    metavar="OUT.toml",
    type=click.Path(dir_okay=False),
    help="Write to this file instead of standard output.",
)
@click.option("--force", is_flag=True, help="Overwrite OUT.toml if it exists.")
def convert_config(
    config_el: str, slots_el: str | None, output: str | None, force: bool
) -> None:
    """Convert a 1992 configuration (config-*.el + slotconfig-*.el) into muceval's TOML format.

    The output file is written atomically and never overwritten without --force.

    \b
    Example:
      muceval convert-config tst3/config-tst3.el --slots tst3/slotconfig-tst3.el -o tst3.toml
    """
    import os
    import tempfile
    from pathlib import Path

    from muceval.errors import UsageError
    from muceval.formats.config import convert_configuration

    text = convert_configuration(config_el, slots_el)
    if output is None:
        click.echo(text, nl=False)
        return
    target = Path(output)
    if target.exists() and not force:
        raise UsageError(f"{output} exists; use --force to overwrite it")
    directory = target.parent if str(target.parent) else Path(".")
    fd, temp_name = tempfile.mkstemp(prefix="." + target.name + ".", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp_name, 0o666 & ~_current_umask())
        os.replace(temp_name, target)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
    click.echo(f"wrote {output}", err=True)


def _current_umask() -> int:
    import os

    mask = os.umask(0)
    os.umask(mask)
    return mask


@cli.command("score")
@click.argument("responses", nargs=-1, required=True, metavar="RESPONSE...",
                type=click.Path(dir_okay=False))
@click.option("--key", "key_path", required=True, type=click.Path(dir_okay=False),
              help="The answer-key template file.")
@click.option("--config", "config_path", required=True, type=click.Path(dir_okay=False),
              help="Configuration: muceval TOML or a 1992 config-*.el (then see --slots).")
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
    import os

    from muceval.core.model import History
    from muceval.errors import UsageError
    from muceval.formats.muc.history import add_judgement, read_history
    from muceval.formats.muc.history import save_history as store_history
    from muceval.formats.muc.templates import read_templates
    from muceval.reporting.muc1992 import format_report, scores_to_csv, scores_to_json, system_name
    from muceval.scoring.muc1992.mapping import read_mapping_file
    from muceval.scoring.muc1992.scorer import Scorer, ScoringOptions, add_judgements

    if len(mapping_paths) not in (0, 1, len(responses)):
        raise UsageError(
            f"--manual-mappings was given {len(mapping_paths)} times for {len(responses)} "
            "response files: give it once for all, or once per response file"
        )
    if save_history is not None and unresolved != "ask":
        raise UsageError("--save-history only makes sense with --unresolved ask")
    answers_file = save_history or history_path
    if unresolved == "ask" and answers_file is None:
        raise UsageError(
            "--unresolved ask stores every answer in a history file: give --history FILE "
            "(created if it does not exist) or --save-history FILE"
        )
    names = [system_name(path) for path in responses]
    if len(set(names)) != len(names):
        raise UsageError("two response files give the same system name: " + ", ".join(names))

    config = _configuration(config_path, slots_path)
    if history_path is not None and (unresolved != "ask" or os.path.exists(history_path)):
        history = read_history(history_path)
    else:
        history = None
    key = read_templates(key_path, config)
    mappings = [read_mapping_file(path) for path in mapping_paths]
    ask = _ask_on_terminal(config) if unresolved == "ask" else None
    on_judgement = None
    if answers_file is not None and unresolved == "ask":
        stored = {"history": history if history is not None else History(answers_file, ())}

        def on_judgement(judgement) -> None:
            # Each answer is written at once (atomically): an interrupted
            # session loses nothing that was already answered.
            stored["history"] = add_judgement(
                stored["history"], judgement.message_id, judgement.template_id,
                judgement.slot_id, judgement.entry)
            store_history(stored["history"], answers_file)

    scorer = None
    results = {}
    new_judgements = []
    for n, (name, path) in enumerate(zip(names, responses, strict=True)):
        manual = mappings[0] if len(mappings) == 1 else mappings[n] if mappings else None
        options = ScoringOptions(query_pass=not no_query_pass, unresolved=unresolved, ask=ask,
                                 mapping=mapping, manual_mappings=manual,
                                 on_judgement=on_judgement)
        if scorer is None or len(mappings) > 1:
            # One scorer keeps the answers given for one system for the next ones,
            # as the 1992 session did; per-system manual mappings need a new scorer,
            # which gets those answers through the history.
            known = add_judgements(history, new_judgements) if new_judgements else history
            scorer = Scorer(config, known, options)
        result = scorer.score(key, read_templates(path, config))
        results[name] = result.pairs
        new_judgements.extend(result.new_judgements)

    if fmt == "table":
        from rich.console import Console

        from muceval.core.metrics import float_scores
        from muceval.core.tallies import summarize

        summaries = {name: summarize(pairs, config).accumulators for name, pairs in results.items()}
        table = _scores_table(
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
    if unresolved == "ask":
        click.echo(f"{len(new_judgements)} new judgement(s) stored in {answers_file}", err=True)


def _write_text(path: str, text: str) -> None:
    """Write ``text`` to ``path`` (latin-1, like the 1992 files), via a temporary file."""
    import os
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


def _significance_options(command):
    """The options of the significance tests, shared by `significance` and `report`."""
    options = [
        click.option("--metrics", default="recall,precision,f1,f0.5,f2", show_default=True,
                     help="Comma-separated metrics: recall, precision, f1 (P&R), f0.5 (2P&R), "
                     "f2 (P&2R)."),
        click.option("--method", type=click.Choice(["approximate", "exact", "auto"]),
                     default="approximate", show_default=True,
                     help="Approximate randomization, exact enumeration, or whichever is "
                     "cheaper."),
        click.option("--shuffles", type=click.IntRange(min=1), default=9999, show_default=True,
                     help="Shuffles of the approximate test."),
        click.option("--seed", type=int, default=None,
                     help="Seed of the shuffles and the bootstrap (drawn and recorded in the "
                     "output if not given)."),
        click.option("--alternative", type=click.Choice(["two-sided", "one-sided"]),
                     default="two-sided", show_default=True,
                     help="one-sided: is the better system better by at least the observed "
                     "amount."),
        click.option("--alpha", type=float, default=0.10, show_default=True,
                     help="Significance cutoff."),
        click.option("--confidence", type=float, default=0.99, show_default=True,
                     help="Confidence level an approximate result needs to count as "
                     "significant."),
        click.option("--adjust", type=click.Choice(["none", "holm", "bh"]), default="none",
                     show_default=True, help="Multiple-comparison adjustment across pairs."),
        click.option("--bootstrap", type=click.IntRange(min=0), default=1000, show_default=True,
                     help="Paired bootstrap samples for confidence intervals (0: none)."),
        click.option("--threads", type=click.IntRange(min=1), default=None,
                     help="Threads of the randomization kernels (default: all cores)."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@cli.command("significance")
@click.argument("inputs", metavar="INPUT...", nargs=-1, required=True,
                type=click.Path(dir_okay=False))
@_significance_options
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table",
              show_default=True)
def significance(inputs: tuple[str, ...], metrics: str, method: str, shuffles: int,
                 seed: int | None, alternative: str, alpha: float, confidence: float,
                 adjust: str, bootstrap: int, threads: int | None, fmt: str) -> None:
    """Test every pairwise difference between systems for significance.

    INPUT files are 1992 score reports (one system each, named by the file name
    up to its first dot), muceval scores (muceval score --format json: every
    system in the file, per message) or CSV files with the columns
    system,unit,POS,ACT,COR,PAR.

    \b
    Example:
      muceval significance ../shared/muc4/tst3/official-scores/*.nrad --seed 1
    """
    from rich.console import Console

    from muceval.core.units import load_inputs
    from muceval.significance.engine import compare

    tallies = load_inputs(list(inputs))
    with _progress(sys.stdout.isatty() and sys.stderr.isatty()) as advance:
        result = compare(tallies, metrics=metrics, method=method, shuffles=shuffles, seed=seed,
                         alternative=alternative, alpha=alpha, confidence=confidence,
                         adjust=adjust, bootstrap=bootstrap, threads=threads, progress=advance)
    if fmt == "json":
        click.echo(result.to_json())
    elif fmt == "csv":
        click.echo(result.to_csv(), nl=False)
    else:
        result.render(Console(soft_wrap=False))


@cli.command("report")
@click.argument("inputs", metavar="INPUT...", nargs=-1, type=click.Path(dir_okay=False))
@click.option("--key", "key_path", type=click.Path(dir_okay=False),
              help="Answer key: INPUT files are then system responses to score. Without it, "
              "INPUT files are 1992 score reports or muceval JSON scores.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False),
              help="Configuration (TOML or 1992 config-*.el); needed with --key, optional for "
              "reports (it tells object subtotal rows from slot rows).")
@click.option("--slots", "slots_path", type=click.Path(dir_okay=False),
              help="1992 slot file (slotconfig-*.el) for a 1992 --config.")
@click.option("--history", "history_path", type=click.Path(dir_okay=False),
              help="1992 history file of human judgements (with --key).")
@click.option("--no-query-pass", is_flag=True,
              help="With --key: 1992 batch mode, questions give no credit.")
@click.option("--mapping", type=click.Choice(["greedy", "optimal"]), default="greedy",
              show_default=True, help="With --key: the automatic template mapping.")
@click.option("--example", is_flag=True,
              help="Report on the bundled example (its key, configuration, history and four "
              "systems); no INPUT needed.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="muceval-report",
              show_default=True, help="Folder for report.html, the figures and the data.")
@click.option("--title", help="Title of the page.")
@_significance_options
@click.option("--no-png", is_flag=True, help="Write the figures as SVG only.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True, help="What to print: a compact table, or the written files as JSON.")
def report(inputs: tuple[str, ...], key_path: str | None, config_path: str | None,
           slots_path: str | None, history_path: str | None, no_query_pass: bool, mapping: str,
           example: bool, out_dir: str, title: str | None, metrics: str, method: str,
           shuffles: int, seed: int | None, alternative: str, alpha: float, confidence: float,
           adjust: str, bootstrap: int, threads: int | None, no_png: bool, fmt: str) -> None:
    """Score systems, test their differences and write one self-contained HTML report.

    With --key, INPUT files are system responses scored against the key (with
    --config and an optional --history). Without it, INPUT files are 1992 score
    reports and/or muceval JSON scores (muceval score --format json). The
    --out folder receives report.html (viewable offline), the figures as SVG and
    PNG, and the data as JSON and CSV.

    \b
    Example:
      muceval report --example --out example-report
      muceval report ../shared/muc4/tst3/official-scores/*.nrad --seed 1 --out tst3-report
      muceval report --key key.txt --config task.toml --history h.lisp A.txt B.txt
    """
    import json
    import time

    from rich.console import Console
    from rich.table import Table

    from muceval.errors import UsageError
    from muceval.reporting.analysis import (
        analyze,
        load_systems,
        score_responses,
        systems_from_pairs,
    )
    from muceval.reporting.html import format_pct, write_report
    from muceval.reporting.muc1992 import scores_to_json

    started = time.perf_counter()
    extra: dict[str, str] = {}
    if example:
        from muceval.reporting.demo import EXAMPLE_SYSTEMS, example_dir

        if inputs or key_path or config_path or history_path:
            raise UsageError("--example takes no INPUT, --key, --config or --history")
        source = example_dir()
        key_path, config_path = str(source / "key.txt"), str(source / "config.toml")
        history_path = str(source / "history.lisp")
        inputs = tuple(str(source / f"{name}.txt") for name in EXAMPLE_SYSTEMS)
    if not inputs:
        raise UsageError("give INPUT files (or --example)")
    recorded: dict[str, object] = {}
    if key_path is not None:
        if config_path is None:
            raise UsageError("--key needs --config (the configuration of the task)")
        config = _configuration(config_path, slots_path)
        results = score_responses(key_path, config, inputs, history_path,
                                  query_pass=not no_query_pass, mapping=mapping)
        from muceval.reporting.muc1992 import system_name

        systems, tallies = systems_from_pairs(results, config,
                                              {system_name(p): str(p) for p in inputs})
        label = os.path.basename(config_path)
        extra["scores.json"] = scores_to_json(results, config, config_label=label)
        recorded = {"key": key_path, "configuration": config_path, "history": history_path or "none",
                    "responses": list(inputs), "query pass": not no_query_pass,
                    "mapping": mapping}
    else:
        if history_path is not None:
            raise UsageError("--history only applies when scoring responses with --key")
        config = _configuration(config_path, slots_path) if config_path or slots_path else None
        systems, tallies = load_systems(list(inputs), config)
        recorded = {"inputs": list(inputs), "configuration": config_path or "none"}
    if len(systems) < 2:
        raise UsageError("a report compares systems: give at least two")

    show_progress = sys.stderr.isatty()
    with _progress(show_progress) as advance:
        analysis = analyze(systems, tallies, metrics=metrics, method=method, shuffles=shuffles,
                           seed=seed, alternative=alternative, alpha=alpha,
                           confidence=confidence, adjust=adjust, bootstrap=bootstrap,
                           threads=threads, progress=advance, inputs=recorded)
    if show_progress:
        with Console(stderr=True).status("drawing figures and writing the report"):
            files = write_report(analysis, out_dir, title=title, png=not no_png, extra_files=extra)
    else:
        files = write_report(analysis, out_dir, title=title, png=not no_png, extra_files=extra)
    elapsed = time.perf_counter() - started
    if fmt == "json":
        click.echo(json.dumps({
            "html": str(files.html), "json": str(files.json),
            "figures": [str(p) for p in files.figures], "data": [str(p) for p in files.data],
            "seconds": round(elapsed, 2)}, indent=2))
        return
    sig = analysis.significance
    rank_metric = "f1" if "f1" in sig.metrics else sig.metrics[0]
    console = Console()
    table = Table(title=f"ALL TEMPLATES (%), ranked by {rank_metric}", title_justify="left")
    for column in ("system", "REC", "PRE", "F P&R", "F 2P&R", "F P&2R", "group"):
        table.add_column(column, justify="left" if column in ("system", "group") else "right")
    for name in sig.ranking(rank_metric):
        row = analysis.system(name).all_templates
        table.add_row(name, format_pct(row.recall), format_pct(row.precision),
                      format_pct(row.f_pr), format_pct(row.f_2pr), format_pct(row.f_p2r),
                      sig.letters[rank_metric][name])
    console.print(table)
    console.print(f"seed {sig.settings['seed']}; report written to [bold]{files.html}[/bold] "
                  f"({elapsed:.1f} s)")


@contextlib.contextmanager
def _progress(enabled: bool):
    """A progress callback ``(done, total)`` drawing a bar on stderr, or ``None`` when disabled."""
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(TextColumn("randomization"), BarColumn(), TimeRemainingColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("randomization", total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code."""
    try:
        # Without standalone mode click returns (not raises) the code of ctx.exit().
        code = cli.main(args=argv, prog_name="muceval", standalone_mode=False)
        if isinstance(code, int):
            return code
    except click.exceptions.Exit as done:
        return done.exit_code
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        return 1
    except click.ClickException as bad_usage:
        bad_usage.show()
        return bad_usage.exit_code
    except InputError as error:
        for problem in error.problems:
            click.echo(f"error: {problem}", err=True)
        return 2
    except MucevalError as error:
        click.echo(f"error: {error}", err=True)
        return 2
    except BrokenPipeError:
        # `muceval ... | head` closes the pipe early; that is not an error.
        sys.stderr.close()
        return 0
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
