"""Option groups: click options that reach a command as one object, worded, defaulted and built
in one place (``@testing_options("muc4")`` gives ``testing: Testing``)."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import click

from muceval.cli.common import PARSE_OPTION, SCHEMA_OPTION, name_option, parse_names
from muceval.errors import UsageError

if TYPE_CHECKING:
    from muceval.core.model import Configuration
    from muceval.scoring.modern import ModernOptions
    from muceval.scoring.muc1992.options import MappingKind, ScoringOptions
    from muceval.scoring.scorers import EventN
    from muceval.significance.distributed import DaskExecutor
    from muceval.significance.settings import PresetName, SignificanceSettings

Command = Callable[..., Any]
Decorator = Callable[[Command], Command]


def option_group(target: str, build: Callable[..., Any],
                 options: Sequence[Decorator]) -> Decorator:
    """``options`` added to a command, whose values reach it as ``target=build(**values)``."""
    def decorate(command: Command) -> Command:
        names: list[str] = []

        @functools.wraps(command)
        def grouped(*args: Any, **kwargs: Any) -> Any:
            kwargs[target] = build(**{name: kwargs.pop(name) for name in names})
            return command(*args, **kwargs)

        before = len(getattr(grouped, "__click_params__", ()))
        for option in reversed(options):
            grouped = option(grouped)  # type: ignore[assignment]
        names.extend(p.name for p in grouped.__click_params__[before:]  # type: ignore[attr-defined]
                     if p.name is not None)
        return grouped

    return decorate


SETTINGS_OPTIONS = ("method", "shuffles", "seed", "alternative", "alpha", "confidence", "adjust",
                    "bootstrap", "unit_means")


@dataclass(frozen=True)
class Testing:
    """The significance options of a command: the settings, and what is not a setting."""

    settings: SignificanceSettings
    metrics: str
    """Comma-separated metric names, as given."""
    threads: int | None

    @property
    def metric_names(self) -> list[str]:
        return [m.strip() for m in self.metrics.split(",") if m.strip()]


def testing_options(preset: PresetName) -> Decorator:
    """The options of the significance tests, shared by `significance`, `report` and `compare`,
    their defaults those of ``preset`` (named, with its purpose, at the end of the help)."""
    from muceval.core.measures import MEASURES
    from muceval.significance.settings import (
        ADJUSTMENTS,
        ALTERNATIVES,
        METHODS,
        PRESETS,
        SignificanceSettings,
    )

    chosen = PRESETS[preset]
    default = chosen.settings
    level = click.FloatRange(0, 1, min_open=True, max_open=True)

    def build(metrics: str, threads: int | None, **settings: Any) -> Testing:
        return Testing(SignificanceSettings(**settings, preset=preset), metrics, threads)

    group = option_group("testing", build, [
        click.option("--metrics", default=",".join(chosen.metrics),
                     help="Comma-separated metrics: " + ", ".join(
                         m.id + (f" ({m.name_1992})" if m.name_1992 else "")
                         for m in MEASURES) + "."),
        click.option("--method", type=click.Choice(METHODS), default=default.method,
                     help="Approximate randomization, exact enumeration, or auto: exact "
                     "whenever that is cheaper."),
        click.option("--shuffles", type=click.IntRange(min=1), default=default.shuffles,
                     help="Shuffles of the approximate test."),
        click.option("--seed", type=click.IntRange(min=0), default=default.seed,
                     show_default=default.seed is not None,
                     help="Seed of the shuffles and the bootstrap (recorded in the output; "
                     + ("drawn if not given)." if default.seed is None else "the same inputs "
                        "give the same verdict).")),
        click.option("--alternative", type=click.Choice(ALTERNATIVES), default=default.alternative,
                     help="one-sided: is the better system better by at least the observed "
                     "amount."),
        click.option("--alpha", type=level, default=default.alpha, help="Significance cutoff."),
        click.option("--confidence", type=level, default=default.confidence,
                     help="Confidence level an approximate result needs to count as "
                     "significant."),
        click.option("--adjust", type=click.Choice(ADJUSTMENTS), default=default.adjust,
                     help="Multiple-comparison adjustment across pairs."),
        click.option("--bootstrap", type=click.IntRange(min=0), default=default.bootstrap,
                     help="Paired bootstrap samples for confidence intervals (0: none)."),
        click.option("--unit-means", is_flag=True,
                     help="Also give the classic tests of per-unit values (sign, Wilcoxon, "
                     "paired and two-sample t) and Yeh's factor for precision and F, as tests "
                     "of the mean per-unit value (by default n/a: only recall is a mean over "
                     "its units' items)."),
        click.option("--threads", type=click.IntRange(min=1), default=None,
                     help="Threads of the randomization kernels (default: all cores)."),
    ])

    def decorate(command: Command) -> Command:
        command.__doc__ = (command.__doc__ or "").rstrip() + (
            f"\n\n    Defaults: the '{preset}' preset, {chosen.purpose}.\n")
        return group(command)

    return decorate


@dataclass(frozen=True)
class ConfigurationChoice:
    """The configuration named on the command line, read on demand."""

    config_path: str | None
    slots_path: str | None
    alignment_path: str | None = None
    alignment: str | None = None
    """The alignment criterion of the configuration to score with (``score --alignment``)."""

    @property
    def given(self) -> bool:
        return any(p is not None for p in (self.config_path, self.slots_path,
                                           self.alignment_path))

    def load(self) -> Configuration:
        from muceval.formats.config import resolve_configuration

        return resolve_configuration(self.config_path, self.slots_path, self.alignment_path)

    def inputs(self) -> dict[str | None, str]:
        """The files given, by role: never to be replaced by an output."""
        return {path: role for path, role in ((self.config_path, "configuration"),
                                              (self.slots_path, "slot file"),
                                              (self.alignment_path, "alignment file"))
                if path is not None}


def configuration_options(when: str = "", note: str = "", *, alignment_file: bool = False,
                          criterion: bool = False) -> Decorator:
    """``--config`` and ``--slots`` (``when``: the case they apply to); gives
    ``configuration``."""
    lead = f"{when}: the configuration" if when else "Configuration"
    options = [
        click.option(
            "--config", "config_path", type=click.Path(dir_okay=False),
            help=f"{lead}: muceval TOML, a 1992 config-*.el (then see --slots), or 'muc4' "
            f"(the bundled MUC-4 configuration, the default).{' ' + note if note else ''}"),
        click.option(
            "--slots", "slots_path", type=click.Path(dir_okay=False),
            help="1992 slot file (slotconfig-*.el) for a 1992 --config (default: its "
            ":slot-file, looked for next to it)."),
    ]
    if criterion:
        options.append(click.option(
            "--alignment", "alignment", metavar="CRITERION",
            help="Score with this alignment criterion of the configuration ([alignment] "
            "tables; predefined: 1992, 1992-optimal, any-slot) instead of its default."))
    if alignment_file:
        options.append(click.option(
            "--alignment-file", "alignment_path", type=click.Path(dir_okay=False),
            help="A TOML file of [alignment...] tables merged into the configuration "
            "(criteria added or replaced; default, compare, flag, chance replaced)."))
    return option_group("configuration", ConfigurationChoice, options)


def scoring_options(when: str = "", *, mapping: bool = False) -> Decorator:
    """``--no-query-pass`` (and ``--mapping``); gives ``scoring: ScoringOptions``."""
    def build(no_query_pass: bool, mapping: MappingKind = "greedy") -> ScoringOptions:
        from muceval.scoring.muc1992.options import ScoringOptions

        return ScoringOptions(query_pass=not no_query_pass, mapping=mapping)

    lead = f"{when}: " if when else ""
    options = [click.option(
        "--no-query-pass", is_flag=True,
        help=f"{lead}1992 batch mode: no queries, so questions give no credit (the history is "
        "still used by the automatic look-up).")]
    if mapping:
        options.append(click.option(
            "--mapping", type=click.Choice(["greedy", "optimal"]), default="greedy",
            help=f"{lead}the automatic mapping: the 1992 greedy one or an optimal one."))
    return option_group("scoring", build, options)


@dataclass(frozen=True)
class Keyed:
    """The key of ``significance --key`` and how the 1992 scorer scores its responses."""

    key_path: str | None
    config_path: str | None = None
    slots_path: str | None = None
    history_path: str | None = None
    no_query_pass: bool = False

    def scoring(self) -> ScoringOptions:
        from muceval.scoring.muc1992.options import ScoringOptions

        return ScoringOptions(query_pass=not self.no_query_pass)


@dataclass(frozen=True)
class Destination:
    """Where a command writes: standard output, ``-o FILE``, or (``score``) a folder."""

    output: str | None
    force: bool
    output_dir: str | None = None

    def emit(self, text: str, encoding: str = "utf-8") -> None:
        """``text`` on standard output, or into ``-o FILE`` (replaced only with ``--force``)."""
        from muceval.formats.files import write_atomic

        if self.output is None:
            click.echo(text, nl=False)
        else:
            write_atomic(self.output, text, encoding=encoding, overwrite=self.force)


def destination_options(force_help: str = "Replace --output if it exists.", *,
                        folder: str | None = None) -> Decorator:
    """``-o/--output`` and ``--force`` (and ``--output-dir`` with its ``folder`` help)."""
    options = [click.option("-o", "--output", type=click.Path(dir_okay=False),
                            help="Write to this file instead of standard output.")]
    if folder is not None:
        options.append(click.option("--output-dir", type=click.Path(file_okay=False),
                                    help=folder))
    options.append(click.option("--force", is_flag=True, help=force_help))

    def build(output: str | None, force: bool, output_dir: str | None = None) -> Destination:
        if output is not None and output_dir is not None:
            raise UsageError("give -o FILE or --output-dir DIR, not both")
        if output is not None:
            refuse_missing_folder("-o", output)
        return Destination(output, force, output_dir)

    return option_group("destination", build, options)


@dataclass(frozen=True)
class Selection:
    """Which systems a command reads, what they are called, and how they are read."""

    names: tuple[str, ...]
    units: str = "same"
    parse: str = "strict"
    schema: str | None = None

    def renames(self, inputs: Sequence[str]) -> dict[str, str]:
        """Input path → system name, for the names given; FILE must be one of ``inputs``."""
        return parse_names(self.names, inputs)


def selection_options(*, units: bool = True, parse: bool = False) -> Decorator:
    """``--name`` (and ``--units``, ``--parse``, ``--schema``)."""
    options = [PARSE_OPTION, SCHEMA_OPTION] if parse else []
    if units:
        options.append(click.option(
            "--units", "units", type=click.Choice(["same", "intersection"]), default="same",
            help="same: refuse systems scored on different test sets (a unit with key fills "
            "missing from a system); intersection: compare on the units all systems share."))
    options.append(name_option)
    return option_group("selection", Selection, options)


def executor_options(scheduler_help: str, checkpoint_help: str | None = None) -> Decorator:
    """``--scheduler`` (and ``--checkpoint``); gives ``cluster``, None without a scheduler."""
    options = [click.option("--scheduler", help=scheduler_help)]
    if checkpoint_help is not None:
        options.append(click.option("--checkpoint", type=click.Path(dir_okay=False),
                                    help=checkpoint_help))

    def build(scheduler: str | None, checkpoint: str | None = None) -> Cluster | None:
        if checkpoint is not None and scheduler is None:
            raise UsageError("--checkpoint goes with --scheduler")
        return None if scheduler is None else Cluster(scheduler, checkpoint)

    return option_group("cluster", build, options)


@dataclass(frozen=True)
class Cluster:
    """A Dask scheduler to run on, and the file that records finished work for a resumed run."""

    scheduler: str
    checkpoint: str | None = None

    def executor(self) -> DaskExecutor:
        from muceval.significance.distributed import parse_scheduler

        executor = parse_scheduler(self.scheduler)
        executor.checkpoint = self.checkpoint
        return executor


@dataclass(frozen=True)
class ModernChoice:
    """The scorer ``--metric`` names and the options of the modern scorers."""

    metric: str | None
    phi: str | None = None
    event_n: str | None = None
    event_n_file: str | None = None
    ignore_empty_docs: bool = False
    compat: bool = False
    parse: str = "strict"
    schema: str | None = None

    def scorer(self) -> ModernOptions | None:
        """The one scorer ``--metric`` names (default ``gtt``) with its ``--phi``, if either is."""
        from muceval.scoring.modern import ModernOptions

        if self.metric is None and self.phi is None:
            return None
        return ModernOptions(self.metric or "gtt", self.phi)

    def options(self, metric: str) -> ModernOptions:
        """The options of one modern scorer (``metric``). Under ``--metric all`` each scorer
        takes what applies to it; a scorer named alone gets every option given, so that one
        it does not take is refused (:class:`ModernOptions` names it), not ignored."""
        from muceval.scoring.modern import ModernOptions
        from muceval.scoring.scorers import MODERN_OPTIONS, SCORERS

        one = self.metric == metric
        takes = set(MODERN_OPTIONS) if one else SCORERS[metric].options
        return ModernOptions(metric, self.phi if one else None,
                             cast("EventN | None", self.event_n) if "event_n" in takes else None,
                             self.ignore_empty_docs and "ignore_empty_docs" in takes,
                             self.compat,
                             self.event_n_file if "event_n_file" in takes else None)


def refuse_missing_folder(flag: str, output: str) -> None:
    """Refuse an output file whose folder does not exist: said now, not after the work."""
    if not os.path.isdir(os.path.dirname(output) or "."):
        raise UsageError(f"{flag} {output}: the folder {os.path.dirname(output)} does not exist")
