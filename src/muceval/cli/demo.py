"""muceval demo: score the bundled example."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import click

from muceval.cli.app import cli

if TYPE_CHECKING:
    from rich.console import Console

    from muceval.reporting.demo import DemoResult
    from muceval.scoring.alignment.audit import AlignmentAudit


@cli.command("demo")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="muceval-demo",
              help="Folder for the reports and the JSON scores.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              help="table for people, json for programs.")
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
    from muceval.reporting.terminal import scores_table

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
    console.print(scores_table("Bundled example, ALL TEMPLATES (%)",
                                {s.name: s.all_templates for s in result.systems}))
    console.print(f"1992-layout reports and scores.json written to [bold]{result.out_dir}[/bold]")
    if result.report_path is not None:
        console.print(f"HTML report with plots: [bold]{result.report_path}[/bold]")
    if result.kehler is not None:
        _kehler(console, result)


def _kehler(console: Console, result: DemoResult) -> None:
    from muceval.reporting.outputs import new_table

    audit = cast("AlignmentAudit", result.kehler)  # called only when there is one
    table = new_table("Kehler's trap (example/kehler): a wrong template aligned by luck",
                      ("response",), [f"F {name}" for name in audit.scored])
    first = {name: audit.systems[0].scores[name].f1 for name in audit.scored}
    for s in audit.systems:
        cells = []
        for name in audit.scored:
            f = s.scores[name].f1 or 0.0
            arrow = "" if s is audit.systems[0] else (" ↑" if f > (first[name] or 0.0) else " ↓")
            cells.append(f"{100 * f:.2f}{arrow}")
        table.add_row(s.system, *cells)
    console.print(table)
    # The sentence is said only when the scores above bear it out.
    single = audit.systems[1:-1]  # removed, added: one correct step each
    trap = all((s.scores[audit.default].f1 or 0.0) < (first[audit.default] or 0.0)
               and (s.scores[audit.flag].f1 or 0.0) > (first[audit.flag] or 0.0) for s in single)
    said = (f"Each single correct step lowers F under {audit.default} and raises it under "
            f"{audit.flag}" if trap else "Steps and scores above")
    console.print(f"{said}: see [bold]{result.kehler_path}[/bold] (muceval alignment --audit all)")
