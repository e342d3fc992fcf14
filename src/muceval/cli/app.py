"""The click group of every command, and the entry point that turns errors into exit codes."""

from __future__ import annotations

import signal
import sys
import threading
import warnings
from typing import Any

import click

from muceval.errors import InputError, MucevalError, MucevalWarning, UsageError
from muceval.version import __version__

# Written here so that ``muceval --help`` imports no command (their modules bring NumPy and
# more); tests/test_first_hour.py checks each against the command's own help.
SHORT_HELP = {
    "adjudicate": "Serve the open questions of the responses as a page, on 127.0.0.1 only.",
    "alignment": "Score the responses under several alignment criteria and show what changes.",
    "batch": "Score every test set of a BATCH file (TOML) in one run.",
    "compare": "Compare CANDIDATE systems with a BASELINE: scores, difference, interval, p, "
               "verdict.",
    "convert": "Convert between the modern MUC-4 layouts (GTT, GRIT, IterX, muceval's neutral "
               "JSON).",
    "convert-config": "Convert a 1992 configuration (config-*.el + slotconfig-*.el) into "
                      "muceval's TOML format.",
    "demo": "Score the bundled example (ten invented messages, four systems) and show the "
            "result.",
    "errors": "Error analysis of template filling (Das et al. 2022).",
    "report": "Score systems, test their differences and write one self-contained HTML report.",
    "score": "Score system response files against an answer key as the 1992 MUC-4 scorer did.",
    "significance": "Test every pairwise difference between systems for significance.",
    "validate": "Read keys, responses, configurations, histories or score reports and report "
                "what each holds and every problem found.",
}

# Each command's module is imported when it runs: importing all of them cost every command
# about 0.3 s.
COMMAND_MODULES = {name: name.replace("-", "_") for name in SHORT_HELP}


class _Commands(click.Group):
    """The commands, each imported when asked for; a library error about a parameter is shown
    with the command's flag."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *COMMAND_MODULES})

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, SHORT_HELP.get(name) or "") for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMAND_MODULES:
            import importlib

            importlib.import_module(f"muceval.cli.{COMMAND_MODULES[cmd_name]}")
        command = super().get_command(ctx, cmd_name)
        if command is not None and not any(p.name == "quiet" for p in command.params):
            # Every command, in one place.
            command.params.append(click.Option(
                ["-q", "--quiet"], is_flag=True, expose_value=False, is_eager=True,
                callback=_set_quiet,
                help="Print no warnings, notes or progress: only the results, and errors."))
        return command

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except UsageError as error:
            command = self.get_command(ctx, ctx.invoked_subcommand or "")
            flags = {p.name: max(p.opts, key=len) for p in (command.params if command else ())
                     if isinstance(p, click.Option)}
            # A library switch ``x`` is the command line's ``--no-x`` where it is on by default;
            # a library file ``x`` is the command line's ``x_path`` where a group holds it.
            flag = next((flags[name] for name in (error.parameter, f"no_{error.parameter}",
                                                  f"{error.parameter}_path") if name in flags),
                        None)
            if flag is not None:
                raise error.naming(flag) from None
            raise


def _set_quiet(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    from muceval.cli.common import set_quiet

    set_quiet(value)  # set at every run, so that one run's --quiet does not outlive it
    return value


@click.group(cls=_Commands,
             context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100,
                               "show_default": True})
@click.version_option(__version__, prog_name="muceval")
def cli() -> None:
    """Score MUC information-extraction templates as the 1992 MUC-4 scorer did,
    and test which differences between systems are real.

    \b
    Example:
      muceval demo
    """


def _terminated(signum: int, frame: object) -> None:
    # As Ctrl-C: the stack unwinds through every finally, so no temporary file is left.
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code."""
    from muceval.core.heap import freeze_after_building

    # The console script: the process ends with the command (a program calling main() with
    # its own arguments may live on, and keeps every object collectable).
    freeze_after_building(argv is None)
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _terminated)
    try:
        with warnings.catch_warnings():
            # What a reader accepted but the user should know goes to stderr, each time.
            warnings.simplefilter("always", MucevalWarning)
            warnings.showwarning = _show_warning
            return _run(argv)
    finally:
        freeze_after_building(False)
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _show_warning(message: Warning | str, category: type[Warning], filename: str,
                  lineno: int, file: object = None, line: str | None = None) -> None:
    from muceval.cli.common import notice

    notice(f"warning: {message}")


def _run(argv: list[str] | None) -> int:
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
        _print_problems(error)
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


_SHOWN_PROBLEMS = 10


def _print_problems(error: InputError) -> None:
    problems = error.problems
    for problem in problems[:_SHOWN_PROBLEMS]:
        click.echo(f"error: {problem}", err=True)
    hidden = problems[_SHOWN_PROBLEMS:]
    if not hidden:
        return
    paths = list(dict.fromkeys(p.path for p in hidden))
    click.echo(f"error: ... and {len(hidden)} more problem(s) in {', '.join(paths[:3])}"
               f"{' ...' if len(paths) > 3 else ''}; 'muceval validate FILE' lists them all",
               err=True)
    missing = sum(1 for p in problems if p.message.startswith("missing slot"))
    if missing > len(problems) // 2:
        click.echo("hint: most problems are missing slots: is the configuration (--config) the "
                   "one these templates were written for?", err=True)
