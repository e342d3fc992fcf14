"""`muceval score --scorer NAME|all`: the modern MUC-4 scorers of the registry
(:mod:`muceval.scoring.scorers`)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from muceval.cli.groups import Decorator, Destination, ModernChoice, option_group
from muceval.scoring.scorers import EVENT_N, SCORERS, modern_scorers

if TYPE_CHECKING:
    from muceval.scoring.modern.files import ModernRun

METRIC_CHOICES = (*SCORERS, "all")
MODERN_ONLY = ("phi", "event_n", "event_n_file", "ignore_empty_docs", "compat")
"""The options of `score` that only the modern metrics take."""
MODERN_USES = ("responses", "key_path", "metric", *MODERN_ONLY, "fmt", "output", "force",
               "names", "strict")
"""Every option of `score` the modern path uses: any other one given is refused."""


def modern_options() -> Decorator:
    """The options of the modern metrics, added to `score`; it receives ``modern:
    ModernChoice``."""
    def taking(option: str) -> str:
        return ", ".join(m for m in modern_scorers() if option in SCORERS[m].options)

    scorers = "; ".join(f"{spec.name}: {spec.reproduces}" for spec in SCORERS.values())
    similarities = ", ".join(f"{m} {'|'.join(SCORERS[m].similarities)}"
                             for m in modern_scorers() if SCORERS[m].similarities)
    options = [
        click.option("--scorer", "--metric", "metric", type=click.Choice(METRIC_CHOICES),
                     default="1992",
                     show_default=True,
                     help=f"The scorer ({scorers}; the modern ones on their JSON layouts); all: "
                     "every modern scorer side by side."),
        click.option("--phi", help=f"Similarity: {similarities} (default: the first)."),
        click.option("--event-n", type=click.Choice(EVENT_N),
                     help=f"{taking('event_n')}: only documents with this many gold templates "
                     "(4: four or more). With --event-n-file, the documents GTT's buckets "
                     "file lists (as GTT does); without it, muceval's own choice: the gold "
                     "templates counted (exact duplicates dropped), which differs from GTT's "
                     "buckets for some documents."),
        click.option("--event-n-file", type=click.Path(dir_okay=False), metavar="FILE",
                     help=f"{taking('event_n_file')}, with --event-n: GTT's buckets file "
                     "(docids_event_n.json: bucket → numeric document ids) to take the "
                     "documents of --event-n from."),
        click.option("--ignore-empty-docs", is_flag=True,
                     help=f"{taking('ignore_empty_docs')}: leave out documents without gold "
                     "templates (a template without any entity does not count, as in IterX)."),
        click.option("--compat", is_flag=True,
                     help="Reproduce the originals also where they err (an entity without "
                     "mentions or an empty incident type gets full credit; unknown documents "
                     "are counted)."),
    ]
    return option_group("modern", ModernChoice, options)


def key_is_modern(key_path: str) -> bool:
    """Whether the key file is in a modern layout (GTT, GRIT, IterX, neutral), as the one
    registry of inputs recognises it."""
    from muceval.formats.modern import LAYOUTS
    from muceval.formats.registry import INPUTS

    kind = INPUTS.kind_of(key_path)
    return kind is not None and kind.name in LAYOUTS


def score_modern(key_path: str, predictions: Sequence[str], choice: ModernChoice,
                 strict: bool, names: dict[str, str] | None = None) -> ModernRun:
    """Score modern predictions under the chosen scorer (or all); the warnings are printed
    (``strict``: as errors, exit 2)."""
    from muceval.scoring.modern.files import score_modern_files

    metrics = modern_scorers() if choice.metric == "all" else (choice.metric or "gtt",)
    run = score_modern_files(key_path, predictions, [choice.options(m) for m in metrics],
                             names)
    for warning in run.warnings:
        click.echo(f"{'error' if strict else 'warning'}: {warning}", err=True)
    if strict and run.warnings:
        raise click.exceptions.Exit(2)
    return run


def run_modern(key_path: str, predictions: Sequence[str], choice: ModernChoice, fmt: str,
               destination: Destination, strict: bool, names: dict[str, str]) -> None:
    """Score modern predictions; print or write the table, JSON or CSV."""
    from muceval.reporting.modern import modern_scores_to_csv, modern_scores_to_json
    from muceval.version import __version__

    run = score_modern(key_path, predictions, choice, strict, names)
    results = [list(systems) for systems in run.scores]
    settings = {"command": "score", "muceval": __version__, "key": key_path,
                "predictions": list(predictions), "metric": choice.metric, "phi": choice.phi,
                "event_n": choice.event_n, "event_n_file": choice.event_n_file,
                "event_n_buckets": _buckets(run), "ignore_empty_docs": choice.ignore_empty_docs,
                "compat": choice.compat, "names": dict(names)}
    if fmt == "json":
        text = modern_scores_to_json(results, settings)
    elif fmt == "csv":
        text = modern_scores_to_csv(results)
    else:
        text = _table_text(run, destination.output is None)
    destination.emit(text)


def _buckets(run: ModernRun) -> str | None:
    """Where the documents of --event-n come from, in words (None without it)."""
    return next((o.event_n_buckets for o in run.options if o.event_n_buckets), None)


def _table_text(run: ModernRun, terminal: bool) -> str:
    from rich.console import Console
    from rich.table import Table

    console = Console(record=True, width=120, file=None if terminal else io.StringIO())
    for systems in run.scores:
        if not systems:
            continue
        options = systems[0].options
        label = options.metric + (f" (phi {options.phi})" if options.phi else "")
        if options.event_n is not None:
            label += f" (event-n {options.event_n}: {options.event_n_buckets})"
        table = Table(title=f"{label}: reproduces {options.reproduces}")
        for column in ("system", "P", "R", "F1", "p_num/p_den", "r_num/r_den"):
            table.add_column(column, justify="left" if column == "system" else "right")
        for s in sorted(systems, key=lambda s: -s.overall.f1):
            c = s.overall
            table.add_row(s.system, f"{100 * c.precision:.2f}", f"{100 * c.recall:.2f}",
                          f"{100 * c.f1:.2f}", f"{c.p_num:g}/{c.p_den}", f"{c.r_num:g}/{c.r_den}")
        console.print(table)
        if options.metric == "ceaf-ree" and run.layout == "gtt-gold":
            console.print("  gold extracts: the per-role union of the GTT gold templates "
                          "(GRIT's own gold differs in a dozen documents)")
    for line in run.skipped:
        console.print(f"  not scored: {line}")
    return "" if terminal else console.export_text()
