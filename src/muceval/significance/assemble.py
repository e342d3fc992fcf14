"""From the raw p-values of every pair to the comparisons and groups, for MUC tallies and
modern counts alike."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from muceval.significance.classic import ClassicColumns
from muceval.significance.groups import confidence_levels, decisions, group_letters
from muceval.significance.kernels import ExactResult
from muceval.significance.plan import Decided, ExactJob, Plan
from muceval.significance.settings import SignificanceSettings
from muceval.significance.table import ComparisonTable

__all__ = ["Assembled", "RawColumns", "RawTest", "apart_matrices", "assemble"]


@dataclass(frozen=True)
class RawTest:
    """What the randomization found for one pair and metric, before any adjustment."""

    p_value: float
    method: Decided
    shuffles: int | None
    nge: int | None
    confidence: float
    error_bound: float


@dataclass(frozen=True, eq=False)
class RawColumns:
    """:class:`RawTest` of every pair and metric as arrays (``nge`` -1 where exact)."""

    p_value: np.ndarray
    exact: np.ndarray
    nge: np.ndarray
    error_bound: np.ndarray
    confidence: np.ndarray

    @staticmethod
    def of_tests(raw: Sequence[Sequence[RawTest]], metrics: int) -> RawColumns:
        """The columns of ``raw[k][m]`` (pair ``k``, metric ``m``)."""
        flat = [t for row in raw for t in row]

        def column(values: list[float | int], dtype: type) -> np.ndarray:
            return np.array(values, dtype=dtype).reshape(-1, metrics)

        return RawColumns(
            column([t.p_value for t in flat], np.float64),
            column([t.method == "exact" for t in flat], bool),
            column([-1 if t.nge is None else t.nge for t in flat], np.int64),
            column([t.error_bound for t in flat], np.float64),
            column([t.confidence for t in flat], np.float64))

    @staticmethod
    def of_outcomes(plan: Plan, nge: np.ndarray, exact: Mapping[ExactJob, ExactResult],
                    settings: SignificanceSettings) -> RawColumns:
        approximate = ~plan.exact
        p_value = np.where(approximate, (nge + 1) / (settings.shuffles + 1), 1.0)
        counts = np.where(approximate, nge, -1).astype(np.int64)
        bound = np.zeros(p_value.shape)
        for job, result in exact.items():
            p_value[job.pair, job.metric] = result.p_value
            bound[job.pair, job.metric] = result.error_bound
        confidence = np.where(approximate,
                              confidence_levels(nge, settings.shuffles, settings.alpha), 1.0)
        return RawColumns(p_value, plan.exact.copy(), counts, bound, confidence)


@dataclass(frozen=True)
class Assembled:
    """The comparisons (pair by pair, metric by metric) and the groups and letters."""

    comparisons: ComparisonTable
    groups: dict[str, list[list[str]]]
    letters: dict[str, dict[str, str]]
    letter_groups: dict[str, list[list[str]]]


def apart_matrices(n: int, first: np.ndarray, second: np.ndarray, significant: np.ndarray,
                   metrics: Sequence[str]) -> dict[str, np.ndarray]:
    """Per metric, the symmetric n × n matrix of the pairs found significantly different."""
    apart = {}
    for m, metric in enumerate(metrics):
        matrix = np.zeros((n, n), dtype=bool)
        matrix[first[significant[:, m]], second[significant[:, m]]] = True
        apart[metric] = matrix | matrix.T
    return apart


def assemble(names: Sequence[str], metrics: Sequence[str],
             scores: dict[str, dict[str, float]], first: np.ndarray, second: np.ndarray,
             raw: RawColumns, settings: SignificanceSettings, units: np.ndarray,
             pair_ci: np.ndarray | Callable[[], np.ndarray] | None = None,
             classic: Mapping[str, ClassicColumns] | None = None) -> Assembled:
    """Decide every pair ``(first[k], second[k])``, and lay out the comparisons and groups
    (``pair_ci``: the intervals, or what returns them, called once the groups are made)."""
    adjusted, decided = decisions(raw.p_value, raw.confidence, settings)
    apart = apart_matrices(len(names), first, second, decided, metrics)
    groups, letters, cld = group_letters(names, metrics, scores, apart)
    if callable(pair_ci):
        pair_ci = pair_ci()
    values = np.array([[scores[n][m] for m in metrics] for n in names],
                      dtype=np.float64).reshape(len(names), len(metrics))
    table = ComparisonTable(
        names=tuple(names), metrics=tuple(metrics), first=first, second=second, values=values,
        p_value=raw.p_value, exact=raw.exact, nge=raw.nge, shuffles=settings.shuffles,
        confidence=raw.confidence, error_bound=raw.error_bound,
        alternative=settings.alternative, p_adjusted=adjusted, significant=decided,
        units=units, ci=pair_ci,
        classic=None if classic is None else tuple(classic[m] for m in metrics))
    for array in (table.first, table.second, table.values, table.p_value, table.exact,
                  table.nge, table.confidence, table.error_bound, table.p_adjusted,
                  table.significant, table.units, *(() if pair_ci is None else (pair_ci,))):
        array.setflags(write=False)  # the table is the result: read, never changed
    return Assembled(table, groups, letters, cld)
