"""Significance of the differences between systems (Chinchor 1992; Yeh 2000): :func:`compare`
and the preparation it shares with the streamed run and ``significance --plan``.

>>> from muceval.core.units import from_arrays
>>> t = from_arrays(["A", "B"], ["m1", "m2", "m3"],
...                 [[[2, 2, 2, 0], [2, 2, 1, 0], [2, 2, 2, 0]],
...                  [[2, 2, 0, 0], [2, 2, 1, 0], [2, 2, 0, 0]]])
>>> r = compare(t, metrics=("recall",), settings=SignificanceSettings(method="exact"))
>>> r.comparison("A", "B", "recall").p_value
0.5
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import overload

import numpy as np

from muceval.core.units import UnitTallies
from muceval.errors import UsageError
from muceval.significance.assemble import RawColumns, assemble
from muceval.significance.bootstrap import bootstrap_values, intervals, system_intervals
from muceval.significance.classic import (
    ClassicColumns,
    ClassicTests,
    classic_columns,
    classic_tests,
)
from muceval.significance.execute import Executor, LocalExecutor, Outcomes
from muceval.significance.groups import (
    adjust_pvalues,
    confidence_level,
    groupings,
    letter_display,
)
from muceval.significance.kernels import (
    METRICS,
    PairData,
    default_threads,
    differing_units,
    metric_values,
    pair_data,
    reduce_counts,
    totals_value,
)
from muceval.significance.plan import Plan, plan
from muceval.significance.result import Comparison, SignificanceResult
from muceval.significance.settings import (
    ADJUSTMENTS,
    ALTERNATIVES,
    METHODS,
    SignificanceSettings,
    known_metrics,
)

__all__ = [
    "METRICS",
    "METHODS",
    "ALTERNATIVES",
    "ADJUSTMENTS",
    "ClassicTests",
    "Comparison",
    "SignificanceResult",
    "compare",
    "prepare",
    "Prepared",
    "SystemPairs",
    "confidence_level",
    "adjust_pvalues",
    "groupings",
    "letter_display",
    "classic_tests",
    "parse_metrics",
    "SignificanceSettings",
]


def parse_metrics(text: str | Sequence[str]) -> tuple[str, ...]:
    """Metric names from ``"recall,f1"`` or a sequence; :class:`UsageError` if unknown.

    >>> parse_metrics("recall, f0.5")
    ('recall', 'f0.5')
    """
    names = text.split(",") if isinstance(text, str) else list(text)
    return known_metrics(names, METRICS)


def compare(
    tallies: UnitTallies,
    metrics: str | Sequence[str] = METRICS,
    settings: SignificanceSettings | None = None,
    *,
    threads: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    executor: Executor | None = None,
) -> SignificanceResult:
    """Test every pair of systems on every metric: could the difference have arisen by chance?

    A randomization test stratified by unit exchanges the two systems' counts of each unit
    (a message, as in MUC-4) by a fair coin and counts how often the difference of the
    metric, computed in floating point from the summed tallies (COR + PAR/2 correct), is at
    least the observed one.

    Parameters
    ----------
    tallies : UnitTallies
        At least two systems' per-unit (POS, ACT, COR, PAR).
    metrics : str or sequence of str, default all five
        Among ``'recall'``, ``'precision'``, ``'f1'`` (P&R), ``'f0.5'`` (2P&R) and ``'f2'``
        (P&2R); a string is split at commas.
    settings : SignificanceSettings or None, default None
        None: ``SignificanceSettings()``. A seed of None is drawn now and recorded.
    threads : int or None, default None
        Threads of the compiled kernels (the results do not depend on it); None:
        ``NUMBA_NUM_THREADS`` if set, else every core this process may use.
    progress : callable or None, default None
        Called as ``progress(done, total)``, from the kernels' thread unless ``executor``
        is given.
    executor : Executor or None, default None
        None: this machine's threads; a
        :class:`~muceval.significance.distributed.DaskExecutor` runs on a cluster.

    Returns
    -------
    SignificanceResult

    Raises
    ------
    UsageError
        If a metric is unknown, there are fewer than two systems, or ``settings`` is not a
        :class:`SignificanceSettings`.

    Examples
    --------
    Three systems on six messages; B differs from A on one message only:

    >>> import muceval
    >>> t = muceval.from_arrays(["A", "B", "C"], [f"m{n}" for n in range(1, 7)],
    ...                         [[[2, 2, 2, 0]] * 6,
    ...                          [[2, 2, 2, 0]] * 5 + [[2, 2, 1, 0]],
    ...                          [[2, 2, 0, 0]] * 6])
    >>> settings = muceval.SignificanceSettings(method="exact", bootstrap=0)
    >>> result = muceval.compare(t, "recall", settings)
    >>> for c in result.comparisons:
    ...     print(c.a, c.b, round(c.difference, 3), c.p_value, c.significant)
    A B 0.083 1.0 False
    A C 1.0 0.03125 True
    B C 0.917 0.03125 True
    >>> result.groups["recall"], result.letters["recall"]
    ([['A', 'B'], ['C']], {'A': 'a', 'B': 'a', 'C': 'b'})

    Identical systems cannot differ:

    >>> from muceval.core.units import from_arrays
    >>> t = from_arrays(["A", "B"], ["m"], [[[1, 1, 1, 0]], [[1, 1, 1, 0]]])
    >>> compare(t, ["f1"], SignificanceSettings(seed=1)).comparison("A", "B", "f1").p_value
    1.0
    """
    prepared = prepare(tallies, metrics, settings)
    runner = executor or LocalExecutor(threads or default_threads())
    index_pairs = prepared.pairs.index_pairs()
    chosen = prepared.settings
    stop = threading.Event()

    def watched(done: int, total: int) -> None:
        if stop.is_set():
            raise _Stopped
        if progress is not None:
            progress(done, total)

    def shuffle() -> Outcomes:
        return runner.run(prepared.plan, list(prepared.pairs), prepared.metrics, chosen,
                          watched, source=(prepared.reduced, index_pairs))

    # Work that needs no shuffle (bootstrap draws, classic tests, then the groups) runs on
    # this thread while the kernels, which let go of the GIL, shuffle on theirs. Another
    # executor (a cluster) runs on this thread, first: its waits must see Ctrl-C.
    index = np.array(index_pairs, dtype=np.int64).reshape(-1, 2)
    with ThreadPoolExecutor(1, thread_name_prefix="muceval-shuffles") as pool:
        tails = None
        try:
            shuffled = pool.submit(shuffle) if isinstance(runner, LocalExecutor) \
                else _finished(shuffle())
            if chosen.bootstrap > 0:
                assert chosen.seed is not None
                draws = bootstrap_values(prepared.reduced, prepared.metrics, chosen.bootstrap,
                                         chosen.seed, metric_values)
                tails = pool.submit(intervals, draws, index_pairs, chosen.ci_level)
            classic = {metric: classic_columns(tallies.counts, index, metric,
                                               chosen.alternative, chosen.unit_means)
                       for metric in prepared.metrics} if chosen.classic else None
            units = prepared.pairs.differing_units()
            return _assemble(tallies, prepared.reduced, prepared.metrics, chosen, index,
                             prepared.plan, shuffled.result(), tails, classic, units)
        except BaseException:
            # Ctrl-C or a failure here: the shuffling thread stops at its next batch
            # instead of running to the end before the error is seen.
            stop.set()
            if tails is not None:
                tails.cancel()
            raise


def _finished(outcomes: Outcomes) -> Future[Outcomes]:
    done: Future[Outcomes] = Future()
    done.set_result(outcomes)
    return done


class _Stopped(Exception):
    """The caller has given up on the shuffling thread."""


class SystemPairs(Sequence[PairData]):
    """Every pair (a, b), a < b, of the systems' reduced tallies as :class:`PairData` built
    when asked for and not kept (1,000 systems' pairs would take gigabytes)."""

    def __init__(self, reduced: np.ndarray) -> None:
        self.reduced = reduced
        self.first, self.second = np.triu_indices(len(reduced), 1)
        self._totals = reduced.sum(axis=1)

    def __len__(self) -> int:
        return len(self.first)

    @overload
    def __getitem__(self, k: int) -> PairData: ...

    @overload
    def __getitem__(self, k: slice) -> list[PairData]: ...

    def __getitem__(self, k: int | slice) -> PairData | list[PairData]:
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        return PairData.of(self.reduced[self.first[k]], self.reduced[self.second[k]])

    def __iter__(self) -> Iterator[PairData]:
        for a in range(len(self.reduced) - 1):
            second = np.arange(a + 1, len(self.reduced))
            yield from pair_data(self.reduced, np.full(len(second), a), second, self._totals)

    def differing_units(self) -> np.ndarray:
        """How many units each pair differs on, without building the pairs."""
        return differing_units(self.reduced, self.first, self.second)

    def index_pairs(self) -> list[tuple[int, int]]:
        return list(zip(self.first.tolist(), self.second.tolist(), strict=True))


@dataclass(frozen=True)
class Prepared:
    """What a run needs before any shuffle: settings (seed drawn), pairs, and the plan."""

    settings: SignificanceSettings
    metrics: tuple[str, ...]
    reduced: np.ndarray
    pairs: SystemPairs
    plan: Plan


def prepare(tallies: UnitTallies, metrics: str | Sequence[str] = METRICS,
            settings: SignificanceSettings | None = None) -> Prepared:
    """The settings validated and the plan decided: what :func:`compare` runs and
    ``significance --plan`` estimates."""
    chosen, metric_ids = checked(tallies, metrics, settings)
    reduced = reduce_counts(tallies.counts)
    names = tallies.systems
    pairs = SystemPairs(reduced)
    # The systems' names name a pair the method exact refuses; the other methods never
    # refuse one, and a list of every pair's names would outweigh a sampled plan.
    pair_names = ([(names[a], names[b]) for a, b in pairs.index_pairs()]
                  if chosen.method == "exact" else [])
    the_plan = plan(pairs, metric_ids, chosen, pair_names)
    return Prepared(chosen, metric_ids, reduced, pairs, the_plan)


def checked(tallies: UnitTallies, metrics: str | Sequence[str],
            settings: SignificanceSettings | None
            ) -> tuple[SignificanceSettings, tuple[str, ...]]:
    """The settings (seed drawn) and metrics of a run on ``tallies``, or a UsageError."""
    if settings is not None and not isinstance(settings, SignificanceSettings):
        raise UsageError(f"settings must be a SignificanceSettings, not {type(settings).__name__}")
    chosen = (settings or SignificanceSettings()).with_seed()
    metric_ids = parse_metrics(metrics)
    if len(tallies.systems) < 2:
        raise UsageError("significance needs at least two systems")
    return chosen, metric_ids


def system_scores(reduced: np.ndarray, names: Sequence[str],
                  metrics: Sequence[str]) -> dict[str, dict[str, float]]:
    totals = reduced.sum(axis=1)
    return {s: {m: totals_value(totals[i], m) for m in metrics} for i, s in enumerate(names)}


def _assemble(tallies: UnitTallies, reduced: np.ndarray, metrics: tuple[str, ...],
              settings: SignificanceSettings, index: np.ndarray, plan_: Plan,
              outcomes: Outcomes, bootstrap: Future[tuple[np.ndarray, np.ndarray]] | None,
              classic: dict[str, ClassicColumns] | None,
              units: np.ndarray) -> SignificanceResult:
    """One result (``bootstrap``: the intervals, being computed)."""
    names = tallies.systems
    scores = system_scores(reduced, names, metrics)
    raw = RawColumns.of_outcomes(plan_, outcomes.nge, outcomes.exact, settings)
    found = assemble(names, metrics, scores, index[:, 0], index[:, 1], raw, settings, units,
                     None if bootstrap is None else lambda: bootstrap.result()[1], classic)
    system_ci = None if bootstrap is None else system_intervals(bootstrap.result()[0], names,
                                                                 metrics)
    recorded = settings.recorded(len(tallies.units), metrics, tallies.level)
    return SignificanceResult(systems=names, metrics=metrics, scores=scores,
                              comparisons=found.comparisons, groups=found.groups,
                              letters=found.letters, settings=recorded, system_ci=system_ci,
                              letter_groups=found.letter_groups)
