"""muceval significance: test every pairwise difference."""

from __future__ import annotations

import sys

import click

from muceval.cli.app import cli
from muceval.cli.common import (
    name_option,
    parse_names,
    progress_bar,
    significance_options,
    units_option,
)


@cli.command("significance")
@click.argument("inputs", metavar="INPUT...", nargs=-1, required=True,
                type=click.Path(dir_okay=False))
@significance_options
@units_option
@name_option
@click.option("--matrix/--no-matrix", default=None,
              help="Print the p-value matrices (by default only when they fit the terminal).")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table",
              show_default=True)
def significance(inputs: tuple[str, ...], metrics: str, method: str, shuffles: int,
                 seed: int | None, alternative: str, alpha: float, confidence: float,
                 adjust: str, bootstrap: int, threads: int | None, units: str, names: tuple[str, ...],
                 matrix: bool | None, fmt: str) -> None:
    """Test every pairwise difference between systems for significance.

    INPUT files are 1992 score reports (one system each, named by the file name
    without its last suffix), muceval scores (muceval score --format json or
    csv: every system in the file, per message) or CSV files with the columns
    system,unit,POS,ACT,COR,PAR.

    \b
    Example:
      muceval significance ../shared/muc4/tst3/official-scores/*.nrad --seed 1
    """
    from rich.console import Console

    from muceval.formats.registry import load_inputs
    from muceval.significance.engine import compare

    tallies = load_inputs(list(inputs), units, parse_names(names, inputs))
    if units == "intersection":
        click.echo(f"note: compared on the {len(tallies.units)} units all systems share "
                   "(--units intersection)", err=True)
    with progress_bar(sys.stdout.isatty() and sys.stderr.isatty()) as advance:
        result = compare(tallies, metrics=metrics, method=method, shuffles=shuffles, seed=seed,
                         alternative=alternative, alpha=alpha, confidence=confidence,
                         adjust=adjust, bootstrap=bootstrap, threads=threads, progress=advance)
    if fmt == "json":
        click.echo(result.to_json())
    elif fmt == "csv":
        click.echo(result.to_csv(), nl=False)
    else:
        result.render(Console(soft_wrap=False), matrix=matrix)



