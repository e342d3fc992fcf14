r"""``muceval significance`` in the library: every pair of systems tested.

>>> import os, tempfile
>>> from muceval.pipelines.inputs import resolve_inputs
>>> from muceval.significance.settings import SignificanceSettings
>>> path = os.path.join(tempfile.mkdtemp(), "units.csv")
>>> _ = open(path, "w").write("system,unit,POS,ACT,COR,PAR\nA,m1,4,4,4,0\nA,m2,4,4,3,0\n"
...                           "B,m1,4,4,2,0\nB,m2,4,4,1,0\n")
>>> result = run_significance(resolve_inputs([path]), metrics=["f1"],
...                           settings=SignificanceSettings(method="exact", bootstrap=0))
>>> result.systems, result.metrics
(('A', 'B'), ('f1',))
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from muceval.core.units import RatioTallies, UnitTallies
from muceval.errors import OutputError, UsageError
from muceval.pipelines.common import Notify, Progress, ScoringNotes, default_metrics, notifier
from muceval.pipelines.inputs import (
    ErrorAnalyses,
    InputSource,
    ModernPredictions,
    ModernScoreFiles,
    Responses,
    ScoreFiles,
)

if TYPE_CHECKING:
    from muceval.core.error_counts import ErrorCounts
    from muceval.significance.distributed import DaskExecutor
    from muceval.significance.error_counts import ErrorChange
    from muceval.significance.estimate import PlanEstimate
    from muceval.significance.result import SignificanceResult
    from muceval.significance.settings import SignificanceSettings

__all__ = ["ErrorPairs", "Plan", "SignificanceSource", "StreamedRun", "run_significance"]

SignificanceSource = (ScoreFiles | ModernScoreFiles | ErrorAnalyses | Responses
                      | ModernPredictions)


@dataclass(frozen=True)
class ErrorPairs:
    """Every pair of systems of error analyses tested, per error category."""

    counts: ErrorCounts
    changes: tuple[ErrorChange, ...]
    settings: SignificanceSettings

    def to_json(self) -> str:
        from muceval.reporting.error_changes import error_changes_to_json

        return error_changes_to_json(self.counts, None, list(self.changes), self.settings)

    def to_csv(self) -> str:
        from muceval.reporting.error_changes import error_changes_to_csv

        return error_changes_to_csv(self.changes)


@dataclass(frozen=True)
class StreamedRun:
    """A streamed run: its summary, and the number of pairs written to ``path``."""

    summary: SignificanceResult
    path: str
    pairs: int


@dataclass(frozen=True)
class Plan:
    """The jobs of a run, the work and its estimated time on ``executor`` (nothing run)."""

    systems: int
    units: int
    metrics: tuple[str, ...]
    settings: SignificanceSettings
    executor: str
    estimate: PlanEstimate

    def to_json(self) -> str:
        from muceval.core.signature import document_header

        return json.dumps({**document_header("muceval-significance-plan",
                                             self.settings.to_json()),
                           "executor": self.executor, "systems": self.systems,
                           "units": self.units, "metrics": list(self.metrics),
                           **self.estimate.to_dict()}, indent=1)

    def to_text(self) -> str:
        found = self.estimate
        here = "one thread" if found.threads == 1 else f"{found.threads} threads"
        return (f"{self.systems} systems, {self.units} units, "
                f"{found.pairs} pairs × {len(self.metrics)} metrics\n"
                f"approximate: {found.approximate_pairs} pairs × {self.settings.shuffles} "
                f"shuffles = {found.pair_shuffles:,} pair-shuffles "
                f"({found.ns_per_pair_shuffle:.1f} ns each on {here} here): "
                f"{found.approximate_seconds:,.2f} s\n"
                f"exact: {found.exact_jobs} jobs, about {found.exact_cells:,.0f} lattice cells "
                f"({found.ns_per_cell:.2f} ns each and {found.us_per_job:,.0f} µs per job on "
                f"one thread here, {found.exact_speedup:.1f}× on {here}): "
                f"{found.exact_seconds:,.2f} s\n"
                f"estimated time on {self.executor}: {found.seconds:,.2f} s (the randomization "
                "only; start-up, reading, bootstrap and classic tests come on top)\n")


def run_significance(source: InputSource, *, settings: SignificanceSettings | None = None,
                     metrics: Sequence[str] | None = None, threads: int | None = None,
                     progress: Progress | None = None, executor: DaskExecutor | None = None,
                     scorer: str | None = None, phi: str | None = None, plan: bool = False,
                     pairs: str | Path | None = None, overwrite: bool = False,
                     on_scored: Notify | None = None,
                     ) -> SignificanceResult | ErrorPairs | StreamedRun | Plan:
    """Test every pair of systems of ``source``.

    ``source``: MUC tallies, modern scores, error analyses (per category: :class:`ErrorPairs`),
    or responses and modern predictions, scored here first. ``settings`` default to the
    ``muc4`` preset; ``metrics`` to those of the settings' preset (P, R and F1 for modern
    scores); ``executor``: a Dask cluster for the shuffles. ``scorer`` chooses in modern scores
    files holding several; with ``phi``, it scores modern predictions (None: the first the
    key's schema reports). ``plan`` only plans the run (:class:`Plan`); ``pairs`` streams every
    pairwise comparison to a CSV or ``.npz`` file (:class:`StreamedRun`). ``on_scored`` gets
    the notes of reading, before the tests.

    Raises
    ------
    UsageError
        If an option does not go with the inputs, or fewer than two systems are given.
    """
    from muceval.significance.settings import SignificanceSettings

    settings = settings or SignificanceSettings()
    if scorer is not None and not isinstance(source, ModernScoreFiles | ModernPredictions):
        raise UsageError("chooses among the modern scorers", parameter="scorer")
    if phi is not None and not isinstance(source, ModernPredictions):
        raise UsageError("goes with modern predictions scored against their key",
                         parameter="phi")
    if (plan or pairs is not None) and not isinstance(source, ScoreFiles | Responses):
        raise UsageError("applies to MUC tallies", parameter="plan" if plan else "pairs")
    if pairs is not None and getattr(executor, "checkpoint", None) is not None:
        raise UsageError("a streamed run (pairs) starts again from the beginning: it takes no "
                         "checkpoint yet", parameter="checkpoint")
    if isinstance(source, ErrorAnalyses):
        from muceval.formats.error_counts import read_error_counts
        from muceval.significance.error_counts import all_pair_changes

        counts = read_error_counts(list(source.paths), dict(source.names), source.units)
        settings = settings.with_seed()
        return ErrorPairs(counts, tuple(all_pair_changes(counts, settings)), settings)
    if isinstance(source, ModernPredictions | ModernScoreFiles):
        from muceval.significance.ratios import RATIO_METRICS, compare_ratios

        if isinstance(source, ModernPredictions):
            from muceval.pipelines.score import units_of
            from muceval.scoring.modern import ModernOptions

            chosen_scorer = ModernOptions(scorer, phi) if scorer is not None else None
            ratios, _ = units_of(source, chosen_scorer, on_scored)
            assert isinstance(ratios, RatioTallies)
        else:
            from muceval.formats.scores.modern import read_modern_scores

            ratios = read_modern_scores(list(source.paths), scorer)
        return compare_ratios(ratios, RATIO_METRICS if metrics is None else tuple(metrics),
                              settings, progress=progress)
    tallies = _tallies(source, notifier(on_scored))
    chosen = default_metrics(settings) if metrics is None else tuple(metrics)
    if plan:
        return _plan(tallies, chosen, settings, threads, executor)
    if pairs is not None:
        return _streamed(tallies, chosen, settings, threads, progress, executor, str(pairs),
                         source.files, overwrite)
    from muceval.core.heap import building
    from muceval.significance.engine import compare

    # Arrays and the result's objects: nothing for the collector but the imports' millions
    # of objects to walk again (not beside a cluster's client, which keeps cycles).
    with building(executor is None):
        return compare(tallies, chosen, settings, threads=threads, progress=progress,
                       executor=executor)


def _tallies(source: ScoreFiles | Responses, notify: Notify) -> UnitTallies:
    from muceval.formats.registry import load_inputs

    if isinstance(source, Responses):
        from muceval.pipelines.score import units_of

        scored, _ = units_of(source, None, notify)
        assert isinstance(scored, UnitTallies)
        if len(scored.systems) < 2:
            raise UsageError("significance needs at least two systems", parameter="inputs")
        return scored
    tallies = load_inputs(list(source.paths), source.units, dict(source.names), source.unit)
    if len(tallies.systems) < 2:
        raise UsageError(
            f"significance needs at least two systems; {', '.join(source.paths)} "
            f"hold{'s' if len(source.paths) == 1 else ''} only {', '.join(tallies.systems)}")
    if source.units == "intersection":
        notify(ScoringNotes(notes=(f"compared on the {len(tallies.units)} units all systems "
                                   "share (--units intersection)",)))
    return tallies


def _plan(tallies: UnitTallies, metrics: Sequence[str], settings: SignificanceSettings,
          threads: int | None, executor: DaskExecutor | None) -> Plan:
    from muceval.significance.engine import prepare
    from muceval.significance.estimate import estimate
    from muceval.significance.kernels import default_threads

    prepared = prepare(tallies, metrics, settings)
    # In-process: one worker of all the threads; on a cluster: one thread per worker.
    workers, per_worker = ((executor.parallelism(), 1) if executor is not None
                           else (1, threads or default_threads()))
    where = executor.describe() if executor is not None else f"in-process, {per_worker} threads"
    found = estimate(prepared.plan, prepared.pairs, prepared.metrics, prepared.settings,
                     workers, per_worker)
    return Plan(len(tallies.systems), len(tallies.units), tuple(prepared.metrics),
                prepared.settings, where, found)


def _streamed(tallies: UnitTallies, metrics: Sequence[str], settings: SignificanceSettings,
              threads: int | None, progress: Progress | None, executor: DaskExecutor | None,
              path: str, inputs: dict[str | None, str], overwrite: bool) -> StreamedRun:
    from muceval.formats.files import refuse_replacing_inputs, write_atomic
    from muceval.significance.stream import compare_streamed

    refuse_replacing_inputs(path, inputs)
    if os.path.exists(path) and not overwrite:
        raise OutputError(f"{path} exists; use --force to replace it")
    summary, rows = compare_streamed(tallies, metrics, settings, threads=threads,
                                     progress=progress, executor=executor)
    summary = replace(summary, settings=summary.settings.with_more(
        pairs_file=path, pairs_intervals=settings.bootstrap > 0,
        pairs_classic_tests=settings.classic))
    columnar = path.lower().endswith(".npz")
    write_atomic(path, _npz(summary, rows.arrays()) if columnar else rows.csv_text())
    count = len(tallies.systems) * (len(tallies.systems) - 1) // 2
    return StreamedRun(summary, path, count)


PAIRS_FORMAT_VERSION = 1


def _npz(summary: SignificanceResult, arrays: dict[str, Any]) -> bytes:
    """A leaderboard's pairs as one ``.npz`` of plain arrays (no pickle needed to read it)."""
    import io

    import numpy as np

    from muceval.core.signature import document_header

    header = document_header("muceval-pairs", summary.settings.to_json(), PAIRS_FORMAT_VERSION)
    contents: dict[str, Any] = {
        **{key: np.array(json.dumps(value) if key == "settings" else value)
           for key, value in header.items()},
        "systems": np.array(summary.systems, dtype=str),
        "metrics": np.array(summary.metrics, dtype=str),
        "scores": np.array([[summary.scores[s][m] for m in summary.metrics]
                            for s in summary.systems], dtype=np.float64).reshape(
                                len(summary.systems), len(summary.metrics)),
        **arrays}
    buffer = io.BytesIO()
    np.savez(buffer, **contents)
    return buffer.getvalue()
