"""muceval demo: score the bundled example."""

from __future__ import annotations

import click

from muceval.cli.app import cli
from muceval.cli.common import scores_table


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
    console.print(scores_table("Bundled example, ALL TEMPLATES (%)",
                                {s.name: s.all_templates for s in result.systems}))
    console.print(f"1992-layout reports and scores.json written to [bold]{result.out_dir}[/bold]")
    if result.report_path is not None:
        console.print(f"HTML report with plots: [bold]{result.report_path}[/bold]")



