"""`muceval score --scorer NAME|all`: the modern MUC-4 scorers of the registry
(:mod:`muceval.scoring.scorers`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict

import click

from muceval.cli.common import PARSE_OPTION, SCHEMA_OPTION, notice
from muceval.cli.groups import Decorator, Destination, ModernChoice, option_group
from muceval.scoring.scorers import EVENT_N, SCORERS, modern_scorers

METRIC_CHOICES = (*SCORERS, "all")
MODERN_ONLY = ("phi", "event_n", "event_n_file", "ignore_empty_docs", "compat", "parse",
               "schema")
MODERN_USES = ("responses", "key_path", "metric", *MODERN_ONLY, "fmt", "output", "force",
               "names", "strict")


def modern_options() -> Decorator:
    """The options of the modern metrics; `score` receives ``modern: ModernChoice``."""
    def taking(option: str) -> str:
        return ", ".join(m for m in modern_scorers() if option in SCORERS[m].options)

    scorers = "; ".join(f"{spec.name}: {spec.reproduces}" for spec in SCORERS.values())
    similarities = ", ".join(f"{m} {'|'.join(SCORERS[m].similarities)}"
                             for m in modern_scorers() if SCORERS[m].similarities)
    return option_group("modern", ModernChoice, [
        click.option("--scorer", "--metric", "metric", type=click.Choice(METRIC_CHOICES),
                     default="1992",
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
                     help=f"{taking('ignore_empty_docs')}: leave out documents whose gold lists "
                     "no template (one whose templates have no entity is scored, as IterX's "
                     "--ignore-no-template-doc does)."),
        click.option("--compat", is_flag=True,
                     help="Reproduce the originals also where they err (an entity without "
                     "mentions or an empty incident type gets full credit; unknown documents "
                     "are counted)."),
        PARSE_OPTION,
        SCHEMA_OPTION,
    ])


def run_modern(key_path: str, predictions: Sequence[str], choice: ModernChoice, fmt: str,
               destination: Destination, strict: bool, names: dict[str, str]) -> None:
    """Score modern predictions; print or write the table, JSON or CSV."""
    from muceval.pipelines.inputs import ModernPredictions, names_of
    from muceval.pipelines.score import score_predictions
    from muceval.reporting.modern import (
        modern_scores_table,
        modern_scores_to_csv,
        modern_scores_to_json,
    )

    metrics = modern_scorers() if choice.metric == "all" else (choice.metric or "gtt",)
    scored = score_predictions(
        ModernPredictions(key_path, tuple(predictions), names_of(names), choice.parse,
                          choice.schema),
        [choice.options(m) for m in metrics], outputs=[destination.output],
        recorded=asdict(choice))
    for warning in scored.run.warnings:
        if strict:
            click.echo(f"error: {warning}", err=True)
        else:
            notice(f"warning: {warning}")
    if strict and scored.run.warnings:
        raise click.exceptions.Exit(2)
    results = [list(systems) for systems in scored.run.scores]
    if fmt == "json":
        text = modern_scores_to_json(results, scored.settings)
    elif fmt == "csv":
        text = modern_scores_to_csv(results)
    else:
        text = modern_scores_table(scored.run, destination.output is None)
    destination.emit(text)
