"""All-pairs significance whose memory does not grow with Python objects per pair: the plan
run in blocks of pairs, and the pairwise table handed back block by block.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from muceval.core.units import UnitTallies
from muceval.significance.assemble import RawColumns, apart_matrices
from muceval.significance.bootstrap import (
    bootstrap_values,
    bounds,
    pair_intervals,
    system_intervals,
)
from muceval.significance.classic import classic_columns
from muceval.significance.engine import checked, system_scores
from muceval.significance.execute import Executor, LocalExecutor
from muceval.significance.groups import decisions, group_letters
from muceval.significance.kernels import (
    default_threads,
    differing_units,
    metric_values,
    pair_data,
    reduce_counts,
)
from muceval.significance.plan import plan
from muceval.significance.result import CSV_HEADER, SignificanceResult
from muceval.significance.settings import SignificanceSettings
from muceval.significance.table import ComparisonTable

__all__ = ["PairRows", "compare_streamed"]

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
) -> tuple[SignificanceResult, PairRows]:
    """The summary of :func:`compare` (no comparisons), and the pairwise table's rows,
    computed block by block when read (``block`` changes nothing but memory).

    >>> from muceval.core.units import from_arrays
    >>> t = from_arrays(["A", "B"], ["m"], [[[1, 1, 1, 0]], [[1, 1, 1, 0]]])
    >>> summary, rows = compare_streamed(t, ["f1"], SignificanceSettings(seed=1))
    >>> next(rows)[:3], next(rows)[:3], summary.comparisons
    (['metric', 'a', 'b'], ['f1', 'A', 'B'], ())
    """
    # checked() refuses fewer than two systems: there is always a pair, a block, a table.
    chosen, metric_ids = checked(tallies, metrics, settings)
    reduced = reduce_counts(tallies.counts)
    names = tallies.systems
    n = len(names)
    # A pair's data are up to 24 bytes per unit: blocks of at most about 256 MB of them.
    block = max(1, min(block, (1 << 28) // (24 * max(1, len(tallies.units)))))
    first, second = np.triu_indices(n, 1)
    found = _run_blocks(reduced, names, first, second, metric_ids, chosen, block,
                        executor or LocalExecutor(threads or default_threads()), progress)
    adjusted, significant = decisions(found.p_value, found.confidence, chosen)
    scores = system_scores(reduced, names, metric_ids)
    apart = apart_matrices(n, first, second, significant, metric_ids)
    groups, letters, cld = group_letters(names, metric_ids, scores, apart)
    values: np.ndarray | None = None
    system_ci = None
    if chosen.bootstrap > 0:  # drawn as compare draws them
        values = bootstrap_values(reduced, metric_ids, chosen.bootstrap, chosen.seed,
                                  metric_values)
        ci = np.quantile(values, bounds(chosen.ci_level), axis=2).transpose(2, 1, 0)
        system_ci = system_intervals(ci, names, metric_ids)
    recorded = chosen.recorded(len(tallies.units), metric_ids, tallies.level)
    summary = SignificanceResult(systems=names, metrics=metric_ids, scores=scores,
                                 comparisons=(), groups=groups, letters=letters,
                                 settings=recorded, system_ci=system_ci, letter_groups=cld)
    rows = PairRows(_tables(tallies, reduced, first, second, metric_ids, chosen, scores, found,
                            (adjusted, significant), values, block))
    return summary, rows


class PairRows(Iterator[list[Any]]):
    """The pairwise table of a streamed run, read once: as rows (the header first), as CSV
    text (:meth:`csv_text`) or as arrays (:meth:`arrays`)."""

    def __init__(self, tables: Iterator[ComparisonTable]) -> None:
        self._tables = tables
        self._rows: Iterator[list[Any]] | None = None
        self._text = False

    def __next__(self) -> list[Any]:
        if self._rows is None:
            if self._text:
                raise RuntimeError("these pairs were read as CSV text already")
            self._rows = self._all_rows()
        return next(self._rows)

    def _all_rows(self) -> Iterator[list[Any]]:
        yield list(CSV_HEADER)
        for table in self._tables:
            yield from table.csv_rows()

    def _claim(self) -> None:
        if self._rows is not None or self._text:
            raise RuntimeError("these pairs were read already")
        self._text = True

    def csv_text(self) -> Iterator[str]:
        """The table as ``csv.writer(f, lineterminator="\\n")`` writes the rows, in pieces."""
        self._claim()
        yield ",".join(CSV_HEADER) + "\n"
        for table in self._tables:
            yield from table.csv_joined()

    def arrays(self) -> dict[str, np.ndarray]:
        """The whole table as :meth:`ComparisonTable.arrays`, the blocks joined."""
        self._claim()
        parts = [table.arrays() for table in self._tables]
        return {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}


def _run_blocks(reduced: np.ndarray, names: tuple[str, ...], first: np.ndarray,
                second: np.ndarray, metrics: tuple[str, ...], settings: SignificanceSettings,
                block: int, runner: Executor,
                progress: Callable[[int, int], None] | None) -> RawColumns:
    """Pass one: p-values and their provenance, block by block."""
    count = len(first)
    parts = []
    total = count * settings.shuffles
    for start in range(0, count, block):
        stop = min(count, start + block)
        index = list(zip(first[start:stop].tolist(), second[start:stop].tolist(), strict=True))
        pairs = pair_data(reduced, first[start:stop], second[start:stop])
        chosen = plan(pairs, metrics, settings, [(names[a], names[b]) for a, b in index])
        outcomes = runner.run(chosen, pairs, metrics, settings,
                              _share(progress, start * settings.shuffles,
                                     (stop - start) * settings.shuffles, total),
                              source=(reduced, index))
        parts.append(RawColumns.of_outcomes(chosen, outcomes.nge, outcomes.exact, settings))
    return RawColumns(*(np.concatenate([getattr(p, f) for p in parts]) for f in (
        "p_value", "exact", "nge", "error_bound", "confidence")))


def _share(progress: Callable[[int, int], None] | None, before: int, size: int,
           total: int) -> Callable[[int, int], None] | None:
    """A block's progress as a share of the whole run's."""
    if progress is None:
        return None

    def advance(done: int, of: int) -> None:
        progress(before + (size * done) // max(1, of), total)

    return advance


def _tables(tallies: UnitTallies, reduced: np.ndarray, first: np.ndarray, second: np.ndarray,
            metrics: tuple[str, ...], settings: SignificanceSettings,
            scores: dict[str, dict[str, float]], raw: RawColumns,
            decided: tuple[np.ndarray, np.ndarray], values: np.ndarray | None,
            block: int) -> Iterator[ComparisonTable]:
    """Pass two: the pairwise table a block at a time. A block's intervals (compiled tails,
    which let go of the GIL) are selected on a thread of their own while this one computes
    its classic tests, and the next block's while the caller writes this one."""
    names = tallies.systems
    lo, hi = bounds(settings.ci_level)
    adjusted, significant = decided
    score_matrix = np.array([[scores[n][m] for m in metrics] for n in names])
    starts = list(range(0, len(first), block))

    def intervals(start: int) -> np.ndarray | None:
        if values is None:
            return None
        stop = min(len(first), start + block)
        return pair_intervals(values, np.stack([first[start:stop], second[start:stop]], 1),
                              lo, hi)

    with ThreadPoolExecutor(1, thread_name_prefix="muceval-tails") as pool:
        pending = pool.submit(intervals, starts[0])
        for n, start in enumerate(starts):
            stop = min(len(first), start + block)
            index = np.stack([first[start:stop], second[start:stop]], axis=1).astype(np.int64)
            units = differing_units(reduced, index[:, 0], index[:, 1])
            classic = tuple(classic_columns(tallies.counts, index, metric, settings.alternative,
                                            settings.unit_means)
                            for metric in metrics) if settings.classic else None
            found = pending.result()
            if n + 1 < len(starts):
                pending = pool.submit(intervals, starts[n + 1])
            table = ComparisonTable(
                names=names, metrics=metrics, first=index[:, 0], second=index[:, 1],
                values=score_matrix,
                p_value=raw.p_value[start:stop], exact=raw.exact[start:stop],
                nge=raw.nge[start:stop], shuffles=settings.shuffles,
                confidence=raw.confidence[start:stop], error_bound=raw.error_bound[start:stop],
                alternative=settings.alternative, p_adjusted=adjusted[start:stop],
                significant=significant[start:stop], units=units, ci=found,
                classic=classic)
            yield table
