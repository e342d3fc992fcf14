"""From the raw p-values of every pair to the comparisons and groups: one place for the engine
of MUC tallies (:mod:`~muceval.significance.engine`) and that of modern counts
(:mod:`~muceval.significance.ratios`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from muceval.significance.classic import ClassicTests
from muceval.significance.groups import decisions, group_letters
from muceval.significance.result import Comparison
from muceval.significance.settings import SignificanceSettings

__all__ = ["Assembled", "RawTest", "assemble"]


@dataclass(frozen=True)
class RawTest:
    """What the randomization found for one pair and metric, before any adjustment:
    the p-value, how it was computed, and the confidence of an approximate decision."""

    p_value: float
    method: str
    shuffles: int | None
    nge: int | None
    confidence: float
    error_bound: float


@dataclass(frozen=True)
class Assembled:
    """The comparisons (pair by pair, metric by metric) and the groups and letters."""

    comparisons: tuple[Comparison, ...]
    groups: dict[str, list[list[str]]]
    letters: dict[str, dict[str, str]]
    letter_groups: dict[str, list[list[str]]]


def assemble(names: Sequence[str], metrics: Sequence[str],
             scores: dict[str, dict[str, float]], index_pairs: Sequence[tuple[int, int]],
             raw: Sequence[Sequence[RawTest]], settings: SignificanceSettings,
             units: Sequence[int], pair_ci: np.ndarray | None = None,
             classic: Mapping[str, Sequence[ClassicTests]] | None = None) -> Assembled:
    """Adjust and decide every pair (``raw[k][m]``: pair ``k``, metric ``m``), then build its
    :class:`Comparison` (``units[k]``: the units pair ``k`` differs on or is tested on;
    ``pair_ci``: pairs × metrics × 2 intervals; ``classic``: per metric, per pair) and the
    groups of systems no decision separates."""
    p_values = np.array([[t.p_value for t in row] for row in raw]).reshape(-1, len(metrics))
    confidence = np.array([[t.confidence for t in row] for row in raw]).reshape(-1, len(metrics))
    adjusted, decided = decisions(p_values, confidence, settings)
    different: dict[str, set[frozenset[str]]] = {metric: set() for metric in metrics}
    comparisons: list[Comparison] = []
    for k, (a, b) in enumerate(index_pairs):
        for m, metric in enumerate(metrics):
            test = raw[k][m]
            significant = bool(decided[k, m])
            if significant:
                different[metric].add(frozenset((names[a], names[b])))
            value_a, value_b = scores[names[a]][metric], scores[names[b]][metric]
            comparisons.append(Comparison(
                a=names[a], b=names[b], metric=metric, value_a=value_a, value_b=value_b,
                difference=value_a - value_b, p_value=test.p_value, method=test.method,
                shuffles=test.shuffles, nge=test.nge, confidence=test.confidence,
                error_bound=test.error_bound, alternative=settings.alternative,
                p_adjusted=float(adjusted[k, m]), significant=significant, units=units[k],
                ci=(float(pair_ci[k, m, 0]), float(pair_ci[k, m, 1])) if pair_ci is not None
                else None,
                classic=classic[metric][k] if classic is not None else None,
            ))  # fmt: skip
    groups, letters, cld = group_letters(names, metrics, scores, different)
    return Assembled(tuple(comparisons), groups, letters, cld)
