"""`muceval score --metric NAME|all`: the modern MUC-4 scorers of the registry
(:mod:`muceval.scoring.metrics`)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

import click

from muceval.cli.common import F
from muceval.errors import UsageError
from muceval.scoring.metrics import EVENT_N, METRICS, modern_metrics

if TYPE_CHECKING:
    from muceval.core.modern import ModernFile
    from muceval.scoring.metrics import EventN
    from muceval.scoring.modern import ModernScores

METRIC_CHOICES = (*METRICS, "all")
MODERN_ONLY = ("phi", "event_n", "ignore_empty_docs", "compat")
"""The options of `score` that only the modern metrics take."""
MODERN_USES = ("responses", "key_path", "metric", *MODERN_ONLY, "fmt", "output", "force",
               "names", "strict")
"""Every option of `score` the modern path uses: any other one given is refused."""


def modern_options(command: F) -> F:
    """The options of the modern metrics, added to `score`."""
    def taking(option: str) -> str:
        return ", ".join(m for m in modern_metrics() if option in METRICS[m].options)

    scorers = "; ".join(f"{spec.name}: {spec.reproduces}" for spec in METRICS.values())
    similarities = ", ".join(f"{m} {'|'.join(METRICS[m].similarities)}"
                             for m in modern_metrics() if METRICS[m].similarities)
    options = [
        click.option("--metric", type=click.Choice(METRIC_CHOICES), default="1992",
                     show_default=True,
                     help=f"The scorer ({scorers}; the modern ones on their JSON layouts); all: "
                     "every modern scorer side by side."),
        click.option("--phi", help=f"Similarity: {similarities} (default: the first)."),
        click.option("--event-n", type=click.Choice(EVENT_N),
                     help=f"{taking('event_n')}: only documents with this many gold templates "
                     "(4: four or more)."),
        click.option("--ignore-empty-docs", is_flag=True,
                     help=f"{taking('ignore_empty_docs')}: leave out documents without gold "
                     "templates."),
        click.option("--compat", is_flag=True,
                     help="Reproduce the originals also where they err (an entity without "
                     "mentions or an empty incident type gets full credit; unknown documents "
                     "are counted)."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def key_is_modern(key_path: str) -> bool:
    """Whether the key file is in a modern layout (GTT, GRIT, IterX, neutral), as the one
    registry of inputs recognises it."""
    from muceval.formats.modern import LAYOUTS
    from muceval.formats.registry import INPUTS

    kind = INPUTS.kind_of(key_path)
    return kind is not None and kind.name in LAYOUTS


def run_modern(key_path: str, predictions: Sequence[str], metric: str, phi: str | None,
               event_n: str | None, ignore_empty_docs: bool, compat: bool, fmt: str,
               output: str | None, force: bool, strict: bool,
               names: dict[str, str] | None = None) -> None:
    """Score modern predictions; print or write the table, JSON or CSV."""
    from muceval.formats.files import write_atomic
    from muceval.reporting.modern import modern_scores_to_csv, modern_scores_to_json
    from muceval.version import __version__

    if fmt == "report":
        fmt = "table"
    results, skipped, layout = score_modern_files(key_path, predictions, metric, phi, event_n,
                                                  ignore_empty_docs, compat, strict, names)
    settings = {"command": "score", "muceval": __version__, "key": key_path,
                "predictions": list(predictions), "metric": metric, "phi": phi,
                "event_n": event_n, "ignore_empty_docs": ignore_empty_docs, "compat": compat,
                "names": dict(names or {})}
    if fmt == "json":
        text = modern_scores_to_json(results, settings)
    elif fmt == "csv":
        text = modern_scores_to_csv(results)
    else:
        text = _table_text(results, skipped, layout, output is None)
    if output is None:
        click.echo(text, nl=False)
    else:
        write_atomic(output, text, overwrite=force)


def score_modern_files(key_path: str, predictions: Sequence[str], metric: str,
                       phi: str | None, event_n: str | None, ignore_empty_docs: bool,
                       compat: bool, strict: bool,
                       names: dict[str, str] | None = None,
                       ) -> tuple[list[list[ModernScores]], list[str], str]:
    """Score predictions under one metric or all (``all``: those each layout allows); the
    warnings are printed (``strict``: as errors, exit 2). Returns the scores per metric, what
    could not be scored, and the gold layout."""
    from muceval.formats.files import system_name
    from muceval.formats.modern import read_modern
    from muceval.scoring.modern import ModernOptions, score_modern

    gold = read_modern(key_path)
    preds = [((names or {}).get(p) or system_name(p), read_modern(p)) for p in predictions]
    chosen = [n for n, _ in preds]
    if len(set(chosen)) != len(chosen):
        raise UsageError("two prediction files give the same system name: " + ", ".join(chosen))
    metrics = modern_metrics() if metric == "all" else (metric,)
    results: list[list[ModernScores]] = []
    skipped: list[str] = []
    for m in metrics:
        options = ModernOptions(m, phi if metric != "all" else None,
                                # click's choices: one of EventN
                                cast("EventN | None", event_n)
                                if "event_n" in METRICS[m].options else None,
                                ignore_empty_docs and "ignore_empty_docs" in METRICS[m].options,
                                compat)
        systems = []
        for name, pred in preds:
            if metric == "all" and _cannot(m, gold, pred):
                skipped.append(f"{name} under {m} ({pred.layout} has no templates)")
                continue
            systems.append(score_modern(gold, pred, options, name))
        results.append(systems)
    warnings = [w for systems in results for s in systems for w in s.warnings]
    for warning in dict.fromkeys(str(w) for w in warnings):
        click.echo(f"{'error' if strict else 'warning'}: {warning}", err=True)
    if strict and warnings:
        raise click.exceptions.Exit(2)
    return results, skipped, gold.layout


def _cannot(metric: str, gold: ModernFile, pred: ModernFile) -> bool:
    """Whether ``metric`` needs templates and one of the files has per-role extracts only."""
    def extracts_only(file: ModernFile) -> bool:
        return bool(file.documents) and file.documents[0].templates is None

    return METRICS[metric].needs_templates and (extracts_only(pred) or extracts_only(gold))


def _table_text(results: Sequence[Sequence[ModernScores]], skipped: Sequence[str],
                gold_layout: str, terminal: bool) -> str:
    from rich.console import Console
    from rich.table import Table

    console = Console(record=True, width=120, file=None if terminal else io.StringIO())
    for systems in results:
        if not systems:
            continue
        options = systems[0].options
        label = options.metric + (f" (phi {options.phi})" if options.phi else "")
        table = Table(title=f"{label}: reproduces {options.reproduces}")
        for column in ("system", "P", "R", "F1", "p_num/p_den", "r_num/r_den"):
            table.add_column(column, justify="left" if column == "system" else "right")
        for s in sorted(systems, key=lambda s: -s.overall.f1):
            c = s.overall
            table.add_row(s.system, f"{100 * c.precision:.2f}", f"{100 * c.recall:.2f}",
                          f"{100 * c.f1:.2f}", f"{c.p_num:g}/{c.p_den}", f"{c.r_num:g}/{c.r_den}")
        console.print(table)
        if options.metric == "ceaf-ree" and gold_layout == "gtt-gold":
            console.print("  gold extracts: the per-role union of the GTT gold templates "
                          "(GRIT's own gold differs in a dozen documents)")
    for line in skipped:
        console.print(f"  not scored: {line}")
    return "" if terminal else console.export_text()
