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
@click.option("--scorer", type=click.Choice(["gtt", "ceaf-ree", "ceaf-rme"]),
              help="Modern scores files (score --metric all): which scorer's counts to test.")
@click.option("--matrix/--no-matrix", default=None,
              help="Print the p-value matrices (by default only when they fit the terminal).")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table",
              show_default=True)
def significance(inputs: tuple[str, ...], metrics: str, method: str, shuffles: int,
                 seed: int | None, alternative: str, alpha: float, confidence: float,
                 adjust: str, bootstrap: int, threads: int | None, units: str, names: tuple[str, ...],
                 scorer: str | None, matrix: bool | None, fmt: str) -> None:
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
    from muceval.significance.settings import SignificanceSettings

    settings = SignificanceSettings(method=method, shuffles=shuffles, seed=seed,
                                    alternative=alternative, alpha=alpha, confidence=confidence,
                                    adjust=adjust, bootstrap=bootstrap)
    if _modern_scores(inputs):
        from muceval.formats.scores.modern import read_modern_scores
        from muceval.significance.ratios import RATIO_METRICS, compare_ratios

        ratios = read_modern_scores(list(inputs), scorer)
        given = click.get_current_context().get_parameter_source("metrics")
        chosen = (RATIO_METRICS if given is not click.core.ParameterSource.COMMANDLINE
                  else tuple(m.strip() for m in metrics.split(",")))
        with progress_bar(sys.stdout.isatty() and sys.stderr.isatty(), "pairs") as advance:
            result = compare_ratios(ratios, chosen, settings, progress=advance)
    else:
        tallies = load_inputs(list(inputs), units, parse_names(names, inputs))
        if units == "intersection":
            click.echo(f"note: compared on the {len(tallies.units)} units all systems share "
                       "(--units intersection)", err=True)
        with progress_bar(sys.stdout.isatty() and sys.stderr.isatty()) as advance:
            result = compare(tallies, metrics, settings, threads=threads, progress=advance)
    if fmt == "json":
        click.echo(result.to_json())
    elif fmt == "csv":
        click.echo(result.to_csv(), nl=False)
    else:
        result.render(Console(soft_wrap=False), matrix=matrix)





def _modern_scores(paths: tuple[str, ...]) -> bool:
    """Whether the inputs are muceval's modern scores (all of them; a mix is refused)."""
    from muceval.errors import UsageError
    from muceval.formats.files import read_text
    from muceval.formats.scores.modern import looks_like_modern_scores

    kinds = [looks_like_modern_scores(read_text(p)) for p in paths]
    if any(kinds) and not all(kinds):
        raise UsageError("modern scores (score --metric gtt|ceaf-ree|ceaf-rme) cannot be tested "
                         "against 1992 scores: give files of one kind")
    return all(kinds)
