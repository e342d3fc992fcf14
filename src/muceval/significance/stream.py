"""All-pairs significance whose memory does not grow with Python objects per pair.

:func:`compare` keeps one :class:`~muceval.significance.result.Comparison` per pair and
metric: half a million pairs (1,000 systems) are millions of objects. :func:`compare_streamed`
runs the same plan in blocks of pairs, keeps only arrays (p-values, counts, decisions: a
few numbers per pair and metric) and a bit matrix of decisions per metric, and hands back
the rows of the pairwise table as an iterator, block by block, for the caller to write. The
summary (scores, groups, letters, settings) is a :class:`SignificanceResult` without
comparisons. The rows are those of :meth:`SignificanceResult.to_csv` for the same run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from muceval.core.units import UnitTallies
from muceval.significance.bootstrap import bounds, pair_intervals, system_intervals
from muceval.significance.classic import classic_tests_many
from muceval.significance.engine import checked, system_scores
from muceval.significance.execute import Executor, LocalExecutor
from muceval.significance.groups import confidence_levels, decisions, group_letters
from muceval.significance.kernels import (
    PairData,
    default_threads,
    metric_values,
    reduce_counts,
)
from muceval.significance.plan import ExactJob, plan
from muceval.significance.result import CSV_HEADER, Outcome, SignificanceResult, csv_row
from muceval.significance.settings import SignificanceSettings

__all__ = ["compare_streamed"]

_BLOCK = 20_000
"""Pairs per block: their pair data and results exist only while the block runs."""


def compare_streamed(
    tallies: UnitTallies,
    metrics: str | Sequence[str],
    settings: SignificanceSettings | None = None,
    *,
    threads: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    executor: Executor | None = None,
    block: int = _BLOCK,
) -> tuple[SignificanceResult, Iterator[list[Any]]]:
    """The summary of every pairwise comparison, and the pairwise table's rows (header
    first) as an iterator that computes the classic tests and intervals block by block.

    The p-values, decisions, groups and rows equal :func:`compare`'s for the same
    settings (``block`` changes nothing but memory).

    >>> from muceval.core.units import from_arrays
    >>> t = from_arrays(["A", "B"], ["m"], [[[1, 1, 1, 0]], [[1, 1, 1, 0]]])
    >>> summary, rows = compare_streamed(t, ["f1"], SignificanceSettings(seed=1))
    >>> next(rows)[:3], next(rows)[:3], summary.comparisons
    (['metric', 'a', 'b'], ['f1', 'A', 'B'], ())
    """
    chosen, metric_ids = checked(tallies, metrics, settings)
    reduced = reduce_counts(tallies.counts)
    names = tallies.systems
    n = len(names)
    # A pair's data are up to 24 bytes per unit: blocks of at most about 256 MB of them.
    block = max(1, min(block, (1 << 28) // (24 * max(1, len(tallies.units)))))
    first, second = np.triu_indices(n, 1)
    found = _run_blocks(reduced, names, first, second, metric_ids, chosen, block,
                        executor or LocalExecutor(threads or default_threads()), progress)
    adjusted, significant = decisions(found.p_raw, found.confident, chosen)
    columns = replace(found, adjusted=adjusted, significant=significant)
    scores = system_scores(reduced, names, metric_ids)
    apart = {}
    for m, metric in enumerate(metric_ids):
        matrix = np.zeros((n, n), dtype=bool)
        matrix[first[significant[:, m]], second[significant[:, m]]] = True
        apart[metric] = matrix | matrix.T
    groups, letters, cld = group_letters(names, metric_ids, scores, apart)
    values = _bootstrap_values(reduced, metric_ids, chosen)
    system_ci = None
    if values is not None:
        ci = np.quantile(values, bounds(chosen.ci_level), axis=2).transpose(2, 1, 0)
        system_ci = system_intervals(ci, names, metric_ids)
    recorded = chosen.recorded(len(tallies.units), metric_ids, tallies.level)
    summary = SignificanceResult(systems=names, metrics=metric_ids, scores=scores,
                                 comparisons=(), groups=groups, letters=letters,
                                 settings=recorded, system_ci=system_ci, letter_groups=cld)
    rows = _rows(tallies, reduced, first, second, metric_ids, chosen, scores, columns, values,
                 block)
    return summary, rows


@dataclass(frozen=True)
class _Columns:
    """Per pair and metric (arrays pairs × metrics): the raw p-value, the count of extreme
    shuffles (-1: exact), whether exact, the pruning bound, the confidence; after the
    adjustment, the adjusted p-value and the decision."""

    p_raw: np.ndarray
    nge: np.ndarray
    exact: np.ndarray
    bound: np.ndarray
    confident: np.ndarray
    adjusted: np.ndarray | None = None
    significant: np.ndarray | None = None


def _run_blocks(reduced: np.ndarray, names: tuple[str, ...], first: np.ndarray,
                second: np.ndarray, metrics: tuple[str, ...], settings: SignificanceSettings,
                block: int, runner: Executor,
                progress: Callable[[int, int], None] | None) -> _Columns:
    """Pass one: p-values and their provenance, block by block."""
    count = len(first)
    p_raw = np.ones((count, len(metrics)))
    nge = np.full((count, len(metrics)), -1, dtype=np.int64)
    exact = np.zeros((count, len(metrics)), dtype=bool)
    bound = np.zeros((count, len(metrics)))
    confident = np.ones((count, len(metrics)))
    total = count * settings.shuffles
    for start in range(0, count, block):
        stop = min(count, start + block)
        index = list(zip(first[start:stop].tolist(), second[start:stop].tolist(), strict=True))
        pairs = [PairData.of(reduced[a], reduced[b]) for a, b in index]
        chosen = plan(pairs, metrics, settings, [(names[a], names[b]) for a, b in index])
        outcomes = runner.run(chosen, pairs, metrics, settings,
                              _share(progress, start * settings.shuffles,
                                     (stop - start) * settings.shuffles, total),
                              source=(reduced, index))
        approx = ~chosen.exact
        levels = confidence_levels(outcomes.nge, settings.shuffles, settings.alpha)
        p_raw[start:stop][approx] = ((outcomes.nge + 1) / (settings.shuffles + 1))[approx]
        nge[start:stop][approx] = outcomes.nge[approx]
        confident[start:stop][approx] = levels[approx]
        exact[start:stop] = chosen.exact
        for job, result in outcomes.exact.items():
            assert isinstance(job, ExactJob)
            p_raw[start + job.pair, job.metric] = result.p_value
            bound[start + job.pair, job.metric] = result.error_bound
    return _Columns(p_raw, nge, exact, bound, confident)


def _share(progress: Callable[[int, int], None] | None, before: int, size: int,
           total: int) -> Callable[[int, int], None] | None:
    """A block's progress (its own units) as a share of the whole run's."""
    if progress is None:
        return None

    def advance(done: int, of: int) -> None:
        progress(before + (size * done) // max(1, of), total)

    return advance


def _bootstrap_values(reduced: np.ndarray, metrics: tuple[str, ...],
                      settings: SignificanceSettings) -> np.ndarray | None:
    """The bootstrap's metric values (metrics × systems × samples), drawn as :func:`compare`
    draws them, or None without intervals."""
    if settings.bootstrap <= 0:
        return None
    from muceval.significance.bootstrap import bootstrap_values

    return bootstrap_values(reduced, metrics, settings.bootstrap, settings.seed, metric_values)


def _rows(tallies: UnitTallies, reduced: np.ndarray, first: np.ndarray, second: np.ndarray,
          metrics: tuple[str, ...], settings: SignificanceSettings,
          scores: dict[str, dict[str, float]], columns: _Columns, values: np.ndarray | None,
          block: int) -> Iterator[list[Any]]:
    """Pass two: the rows of the pairwise table, the classic tests and intervals of a block
    computed when the block is reached."""
    assert columns.adjusted is not None and columns.significant is not None
    yield list(CSV_HEADER)
    names = tallies.systems
    lo, hi = bounds(settings.ci_level)
    for start in range(0, len(first), block):
        stop = min(len(first), start + block)
        index = list(zip(first[start:stop].tolist(), second[start:stop].tolist(), strict=True))
        units = [int(np.any(reduced[a] != reduced[b], axis=1).sum()) for a, b in index]
        intervals = pair_intervals(values, index, lo, hi) if values is not None else None
        classic = {metric: classic_tests_many(tallies.counts, index, metric, settings.alternative,
                                              settings.unit_means)
                   for metric in metrics} if settings.classic else None
        for k, (a, b) in enumerate(index):
            row_k = start + k
            for m, metric in enumerate(metrics):
                exact = bool(columns.exact[row_k, m])
                outcome = Outcome(
                    p_value=float(columns.p_raw[row_k, m]),
                    p_adjusted=float(columns.adjusted[row_k, m]),
                    method="exact" if exact else "approximate",
                    shuffles=None if exact else settings.shuffles,
                    confidence=1.0 if exact else float(columns.confident[row_k, m]),
                    error_bound=float(columns.bound[row_k, m]),
                    significant=bool(columns.significant[row_k, m]),
                    alternative=settings.alternative, units=units[k])
                yield csv_row(
                    metric=metric, a=names[a], b=names[b], value_a=scores[names[a]][metric],
                    value_b=scores[names[b]][metric], outcome=outcome,
                    ci=None if intervals is None else (float(intervals[k, m, 0]),
                                                       float(intervals[k, m, 1])),
                    classic=None if classic is None else classic[metric][k])

