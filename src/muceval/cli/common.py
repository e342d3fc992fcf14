"""Helpers shared by several commands: the configuration option, tables, progress, options."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import click

from muceval.errors import MucevalError, Problem, UsageError

if TYPE_CHECKING:
    from muceval.pipelines.common import ScoringNotes

F = TypeVar("F", bound=Callable[..., Any])


_QUIET = [False]  # set by the --quiet option, at each run


def set_quiet(on: bool) -> None:
    _QUIET[0] = on


def notice(message: str) -> None:
    """A warning, note or progress line on stderr, unless ``--quiet``: results and errors are
    never kept back."""
    if not _QUIET[0]:
        click.echo(message, err=True)


QUIET_SECONDS = 2.0
LINE_SECONDS = 10.0


@contextlib.contextmanager
def progress_bar(enabled: bool, label: str = "randomization", asked: bool = False,
                 ) -> Iterator[Callable[[int, int], None] | None]:
    """A progress callback ``(done, total)`` drawing a bar on stderr, or ``None`` when disabled.

    Without a terminal it writes lines instead: none within :data:`QUIET_SECONDS`, then one
    every :data:`LINE_SECONDS` and one at the end, so that long work is never silent and short
    work writes nothing; ``asked`` (the user asked for progress): one at every tenth.
    """
    if not enabled or _QUIET[0]:
        yield None
        return
    if not sys.stderr.isatty():
        start = time.monotonic()
        last: list[float | None] = [None]  # when the last line was written
        tenths = [-1]  # the last tenth written, when asked

        def report(done: int, total: int) -> None:
            now, tenth = time.monotonic(), 10 * done // max(1, total)
            if asked:
                due = tenth > tenths[0]
            else:
                due = now - start >= QUIET_SECONDS if last[0] is None else (
                    now - last[0] >= LINE_SECONDS or done >= total)
            if due:
                last[0], tenths[0] = now, tenth
                share = f"{100 * done // max(1, total)}%, " if total else ""
                notice(f"{label}: {share}{done:,}/{total:,} after {now - start:.0f} s")
        yield report
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    # Drawn by the calls (a tenth of a second apart at most), without rich's refresh thread:
    # a process with a second thread does not fork (muceval.core.processes.fork_safe), and
    # scoring forks.
    with Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=Console(stderr=True), transient=True, auto_refresh=False) as bar:
        task = bar.add_task(label, total=None)
        drawn = [0.0]

        def draw(done: int, total: int) -> None:
            now = time.monotonic()
            due = now - drawn[0] >= 0.1 or done >= total
            if due:
                drawn[0] = now
            bar.update(task, completed=done, total=total, refresh=due)
        yield draw


progress_option = click.option(
    "--progress/--no-progress", "progress", default=None,
    help="Report progress on stderr: a bar on a terminal, a line per tenth of the work "
    "otherwise (default: only on a terminal).")


# The kinds of file a folder of responses, of scores, of error analyses holds.
RESPONSES = frozenset({"templates"})
SCORES = frozenset({"scores-csv", "unit-csv", "scores-json", "modern-scores", "report-1992"})
ERROR_ANALYSES = frozenset({"error-analysis"})


def expand_folders(paths: tuple[str, ...] | list[str], kinds: Collection[str]) -> tuple[str, ...]:
    """The paths, with each folder replaced by its files of ``kinds``, sorted, hidden ones left
    out; a note names the files skipped (a folder may hold responses and their reports side by
    side). Files named one by one are always kept: their reader refuses a wrong one."""
    from muceval.formats.modern import LAYOUTS
    from muceval.formats.registry import INPUTS

    expanded: list[str] = []
    for path in paths:
        if not os.path.isdir(path):
            expanded.append(path)
            continue
        found = sorted(entry.path for entry in os.scandir(path)
                       if entry.is_file() and not entry.name.startswith("."))
        if not found:
            raise UsageError(f"{path} is a folder with no files in it")
        wanted = {*kinds, *(LAYOUTS if "templates" in kinds else ())}
        skipped: list[str] = []
        if kinds == SCORES and len(found) > 1:
            # The summary that `score --output-dir` and `batch` write beside the per-system
            # files holds the same systems again: read twice, they would clash.
            summaries = [f for f in found if os.path.basename(f) in ("summary.json",
                                                                     "summary.csv")]
            found = [f for f in found if f not in summaries]
            skipped += [f"{os.path.basename(f)} (the per-system files' summary)"
                        for f in summaries]
        for file in found:
            try:
                kind = INPUTS.kind_of(file)
            except MucevalError:
                kind = None
            if kind is not None and kind.name in wanted:
                expanded.append(file)
            else:
                skipped.append(f"{os.path.basename(file)} ({kind.label if kind else 'unknown'})")
        if skipped:
            click.echo(f"note: {path}: skipped {len(skipped)} file(s): "
                       + ", ".join(skipped[:5]) + (", ..." if len(skipped) > 5 else ""),
                       err=True)
        if len(skipped) == len(found):
            raise UsageError(f"{path}: no file of the kind this command reads")
    return tuple(expanded)


strict_option = click.option(
    "--strict", is_flag=True,
    help="Treat every warning as an error (exit 2): for pipelines that must not score "
    "anything the 1992 program would have accepted only with a shrug.")

PARSE_OPTION = click.option(
    "--parse", type=click.Choice(["strict", "lenient"]), default="strict",
    help="With raw answers of a language model (JSON lines of an id and a 'response'): "
    "strict reads them exactly as FAMuS's pipeline does (an answer json.loads refuses is "
    "an empty prediction, counted and named); lenient recovers JSON in code fences or "
    "between prose, truncated objects, role names in another case, strings where lists "
    "were expected, and lists each repair, with the strict scores beside.")

SCHEMA_OPTION = click.option(
    "--schema", metavar="NAME|FILE",
    help="The template schema of a modern key and its predictions: muc4, famus, or a "
    "TOML file of your own (docs/configuration.md). Default: the one the key's layout "
    "says (FAMuS's prompt files: famus; the others: muc4).")


def report_warnings(warnings: Sequence[Problem], file_warnings: Sequence[Problem],
                    strict: bool) -> None:
    """Print the warnings of a scoring session on stderr; with ``strict``, stop with exit 2.
    The readers' warnings (often many per file) are summed up in one line."""
    prefix = "error" if strict else "warning"
    say = (lambda text: click.echo(text, err=True)) if strict else notice  # errors always
    for warning in warnings:
        say(f"{prefix}: {warning}")
    per_file = Counter(warning.path for warning in file_warnings)
    if strict or len(file_warnings) == 1:
        for warning in file_warnings:
            say(f"{prefix}: {warning}")
    elif file_warnings:
        counts = ", ".join(f"{os.path.basename(path)} {n}" for path, n in per_file.items())
        say(f"{prefix}: {len(file_warnings)} things the 1992 program accepted in "
            f"{len(per_file)} file(s) ({counts}); 'muceval validate "
            f"{' '.join(per_file)} --warnings' lists them")
    if strict and (warnings or file_warnings):
        click.echo(f"error: {len(warnings) + len(file_warnings)} warning(s) and --strict: "
                   "nothing scored", err=True)
        raise click.exceptions.Exit(2)


def note_unanswered(unanswered: int, policy: str, history: str | None) -> None:
    """Say on stderr how many questions no recorded answer settled, and what they were scored:
    a run without the history must not pass for the official scores."""
    if not unanswered or policy == "ask":
        return
    verdict = {"incorrect": "no credit", "partial": "partial credit",
               "correct": "full credit"}[policy]
    how = ("give the history of judgements (--history) for the recorded answers"
           if history is None else "answer them with muceval adjudicate or --unresolved ask")
    notice(f"note: {unanswered} question(s) the 1992 scorer put to its operator had no "
           f"recorded answer and got {verdict} (--unresolved {policy}); {how}")


def print_notes(strict: bool) -> Callable[[ScoringNotes], None]:
    """What scoring noted, on stderr (with ``strict``, warnings stop the command, exit 2)."""
    def said(notes: ScoringNotes) -> None:
        report_warnings(notes.warnings, notes.file_warnings, strict)
        note_unanswered(notes.unanswered, "incorrect", notes.history)
        for line in notes.skipped:
            notice(f"note: not scored: {line}")
        for line in notes.notes:
            notice(f"note: {line}")

    return said


name_option = click.option(
    "--name", "names", multiple=True, metavar="FILE=NAME",
    help="Call the system of FILE NAME instead of its file name without the last suffix "
    "(repeatable).")


def parse_names(values: Sequence[str], inputs: Sequence[str]) -> dict[str, str]:
    """``--name FILE=NAME`` values as input path → name; FILE must be one of ``inputs``."""
    by_real = {os.path.realpath(p): p for p in inputs}
    out: dict[str, str] = {}
    for value in values:
        # FILE is the part before the '=' that names an input: a name (or a file) may hold '='.
        splits = [(value[:i], value[i + 1:]) for i, c in enumerate(value) if c == "="]
        found = [(by_real[os.path.realpath(f)], n) for f, n in splits
                 if f and os.path.realpath(f) in by_real]
        if not splits or not all(splits[-1]) or not splits[-1][1].strip():
            raise UsageError(f"--name {value!r}: give FILE=NAME")
        if not found or not found[0][1].strip():
            raise UsageError(f"--name {value!r}: {splits[-1][0]} is not one of the input "
                             "files")
        path, name = found[0]
        out[path] = name.strip()
    return out


# muceval.core.unit_levels.UNIT_LEVELS, written again so that the command line starts without
# NumPy.
UNIT_LEVELS = ("message", "template", "fill")

UNIT_LEVEL_HELP = ("a message (MUC-4), a key template with its mapped response (unmapped "
                   "response templates on their own), or a key fill (each key fill with the "
                   "response fill credited against it as one paired unit, each spurious fill on "
                   "its own; a fill both systems produced alike is never exchanged; close to, "
                   "but not, Yeh's response unit). See docs/significance-units.md.")


def _unit_option(lead: str) -> Callable[[F], F]:
    return click.option("--unit", type=click.Choice(UNIT_LEVELS), default="message",
                        help=lead + UNIT_LEVEL_HELP)


JSON_UNIT_OPTION = _unit_option("With --format json: the units written for the significance "
                                "tests: ")
unit_level_option = _unit_option("With --key: the unit of the randomization: ")


def refuse_unused(accepted: Collection[str], why: str) -> None:
    """Refuse every option given on the command line that is not ``accepted`` (no flag is taken
    and ignored); the message is the flag, then ``why``."""
    for param in click.get_current_context().command.params:
        if (param.name is not None and param.name not in accepted and param.name != "quiet"
                and given_on_command_line(param.name)):
            flag = max(param.opts, key=len)
            raise UsageError(f"{flag} {why}")


def given_on_command_line(name: str) -> bool:
    """Whether the parameter ``name`` of the running command was given, not defaulted."""
    return (click.get_current_context().get_parameter_source(name)
            is click.core.ParameterSource.COMMANDLINE)
