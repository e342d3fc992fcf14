"""muceval validate: what each file holds and every problem in it."""

from __future__ import annotations

import click

from muceval.cli.app import cli
from muceval.cli.common import SCHEMA_OPTION, strict_option


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
              help="text for people, json for programs.")
@click.option("--warnings", "show_warnings", is_flag=True,
              help="Show every warning (text format shows the first three per file).")
@SCHEMA_OPTION
@strict_option
def validate(files: tuple[str, ...], config_path: str | None, slots_path: str | None,
             fmt: str, show_warnings: bool, schema: str | None, strict: bool) -> None:
    """Read keys, responses, configurations, histories or score reports and report
    what each holds and every problem found (file, line, problem).

    The kind of each file is recognised from its content. Warnings report what
    the 1992 scorer accepted but you may want to know (values outside a slot's
    set, ignored lines). Exit code 0 when no file has a problem, 2 otherwise
    (and, with --strict, when any file has a warning).

    \b
    Example:
      muceval validate key-tst3.v2 BBN.tst3 final-history-nrad.tst3 config-tst3.el
      muceval validate --config my-task.toml key.txt system.txt
      muceval validate --schema kitchen/schema.toml kitchen/gold.jsonl kitchen/alpha.jsonl
    """
    import json

    from muceval.formats.config import resolve_configuration
    from muceval.formats.schema import resolve_schema
    from muceval.formats.validation import validate_files

    config = resolve_configuration(config_path, slots_path)
    results = validate_files(files, config, None if schema is None else resolve_schema(schema))
    if fmt == "json":
        click.echo(json.dumps([
            {"path": r.path, "kind": r.kind, "counts": r.counts,
             **{part: [{"line": p.line, "column": p.column, "message": p.message}
                       for p in getattr(r, part)] for part in ("problems", "warnings")}}
            for r in results], indent=2))
    else:
        for result in results:
            summary = ", ".join(f"{n} {what}" for what, n in result.counts.items())
            status = "ok" if result.ok else f"{len(result.problems)} problem(s)"
            if result.warnings:
                status += f", {len(result.warnings)} warning(s)"
            click.echo(f"{result.path}: {result.kind}: {summary or '-'}: {status}")
            for problem in result.problems:
                click.echo(f"  {problem}")
            shown = result.warnings if show_warnings else result.warnings[:3]
            for warning in shown:
                click.echo(f"  warning: {warning}")
            if len(shown) < len(result.warnings):
                click.echo(f"  ... {len(result.warnings) - len(shown)} more warning(s) "
                           "(--warnings shows all)")
    if not all(r.ok for r in results) or (strict and any(r.warnings for r in results)):
        raise click.exceptions.Exit(2)
