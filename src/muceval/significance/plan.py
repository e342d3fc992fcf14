"""The plan of a significance analysis, plain data any executor runs: the approximate pairs
(a pair's metrics share its shuffles) and the (pair, metric) cells enumerated exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import islice
from typing import Literal

import numpy as np

from muceval.errors import UsageError
from muceval.significance.kernels import (
    _BLOCK_BITS,
    PairData,
    exact_cost,
    exact_grid_cells,
    exact_grid_cells_many,
)
from muceval.significance.settings import Method, SignificanceSettings

__all__ = ["MAX_EXACT_CELLS", "MAX_EXACT_UNITS", "ExactJob", "Plan", "Decided", "plan",
           "decide_method"]

# Beyond this many grid cells an exact distribution needs too much memory.
MAX_EXACT_CELLS = 300_000_000
MAX_EXACT_UNITS = 20
"""The most units (documents, responses) whose 2^n exchanges a test without a grid (modern
counts, error counts, responses) enumerates."""
# Cost model of method "auto", in nanoseconds measured on the TST3 data: an exact grid
# cell; per shuffle, a table gather (8 units), a metric, and a fixed part.
_EXACT_CELL_COST = 1.7
_SHUFFLE_BLOCK_COST = 1.1
_SHUFFLE_METRIC_COST = 1.5
_SHUFFLE_FIXED_COST = 2.0
# Method exact sizes the grids of this many pairs at a time.
_CHECKED_PAIRS = 4096


Decided = Literal["exact", "approximate"]
"""How one test was run: every exchange enumerated, or shuffles drawn."""


def decide_method(method: Method, fits: bool | Callable[[], bool],
                  cheaper: bool = True) -> Decided:
    """The one rule of ``method`` for one test: ``'auto'`` enumerates where that is
    ``cheaper`` and ``fits`` (a callable is asked only then); ``'exact'`` always (the caller
    refuses what does not fit).

    >>> [decide_method(m, fits=True) for m in ("exact", "approximate", "auto")]
    ['exact', 'approximate', 'exact']
    >>> decide_method("auto", fits=False), decide_method("auto", fits=True, cheaper=False)
    ('approximate', 'approximate')
    """
    if method == "auto" and cheaper:
        return "exact" if (fits() if callable(fits) else fits) else "approximate"
    return "exact" if method == "exact" else "approximate"


@dataclass(frozen=True)
class ExactJob:
    """Enumerate every exchange of pair ``pair`` for metric number ``metric``."""

    pair: int
    metric: int


@dataclass(frozen=True)
class Plan:
    """``exact[k, m]``: whether pair k, metric m is enumerated; the jobs that follow from it."""

    exact: np.ndarray
    approximate_pairs: tuple[int, ...]
    exact_jobs: tuple[ExactJob, ...]
    shuffles: int

    @property
    def work(self) -> int:
        """Units of progress: shuffles of the approximate pairs, a quarter as much per exact job."""
        return (len(self.approximate_pairs) * self.shuffles
                + len(self.exact_jobs) * max(1, self.shuffles // 4))


def plan(pairs: Sequence[PairData], metrics: Sequence[str], settings: SignificanceSettings,
         names: Sequence[tuple[str, str]]) -> Plan:
    """Decide, per pair and metric, exact or approximate (``settings.method``); ``exact``
    refuses a pair whose grid does not fit, naming it (``names``, read by ``exact`` only)."""
    exact = np.zeros((len(pairs), len(metrics)), dtype=bool)
    if settings.method == "approximate":
        # No pair's data is read: the pairs may be built on demand (--plan samples them).
        return Plan(exact, tuple(range(len(pairs))), (), settings.shuffles)
    if settings.method == "exact":
        _refuse_large_grids(pairs, metrics, names)
        exact[:] = True
    else:
        for k, pair in enumerate(pairs):
            exact[k] = _auto(pair, metrics, settings)
    approximate_pairs = tuple(np.flatnonzero(~exact.all(axis=1)).tolist())
    rows, columns = np.nonzero(exact)  # pair by pair, metrics in order
    jobs = tuple(ExactJob(k, m) for k, m in zip(rows.tolist(), columns.tolist(), strict=True))
    return Plan(exact, approximate_pairs, jobs, settings.shuffles)


def _auto(pair: PairData, metrics: Sequence[str], settings: SignificanceSettings) -> list[bool]:
    """Method auto for one pair: per metric, whether to enumerate."""
    blocks = -(-len(pair.diffs) // _BLOCK_BITS)
    # Marginal cost of one more metric in the shared shuffles.
    approx_cost = settings.shuffles * (
        _SHUFFLE_METRIC_COST
        + (_SHUFFLE_BLOCK_COST * blocks + _SHUFFLE_FIXED_COST) / len(metrics)
    )
    return [decide_method(settings.method, partial(_fits, pair, metric),
                          exact_cost(pair, metric) * _EXACT_CELL_COST <= approx_cost) == "exact"
            for metric in metrics]


def _fits(pair: PairData, metric: str) -> bool:
    return exact_grid_cells(pair, metric) <= MAX_EXACT_CELLS


def _refuse_large_grids(pairs: Sequence[PairData], metrics: Sequence[str],
                        names: Sequence[tuple[str, str]]) -> None:
    """Method exact: a UsageError naming the first pair and metric whose grid does not fit."""
    remaining = iter(pairs)
    start = 0
    while block := list(islice(remaining, _CHECKED_PAIRS)):
        cells = np.stack([exact_grid_cells_many(block, metric) for metric in metrics], axis=1)
        over = np.argwhere(cells > MAX_EXACT_CELLS)
        if len(over):
            k, m = (int(i) for i in over[0])
            a, b = names[start + k]
            raise UsageError(
                f"exact randomization of {a} vs {b} ({metrics[m]}) needs a grid of about "
                f"{int(cells[k, m]):.0f} cells; choose 'approximate' or 'auto'",
                parameter="method")
        start += len(block)
