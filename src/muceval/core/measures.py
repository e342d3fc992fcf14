"""The one registry of measures: recall, precision and the F-measures, from counts.

It imports nothing heavy, so that the command line's options and the significance presets
can list the measures without loading NumPy; :mod:`muceval.core.metrics` re-exports it.

>>> [m.id for m in MEASURES]
['recall', 'precision', 'f1', 'f0.5', 'f2']
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "F_MEASURES",
    "F_WEIGHTS",
    "MEASURES",
    "MEASURE_NAMES",
    "METRIC_IDS",
    "METRIC_LABELS",
    "MeasureSpec",
    "metric_of_counts",
    "ranking_measure",
]


@dataclass(frozen=True)
class MeasureSpec:
    """One measure of the registry: ``kappa·N2 / (alpha·POS + gamma·ACT)`` with
    ``N2 = 2·COR + PAR`` (so COR + ½PAR is credited): recall, precision, or an F-measure.

    Every output takes its measures from :data:`MEASURES`: one line there adds a measure
    everywhere. ``id`` names it in JSON, CSV and ``--metrics`` (``'f1'``), ``label`` in tables
    and figures (``'F P&R'``), ``name_1992`` in the 1992 report (``'P&R'``) when that report
    printed it (only those have F-measures in the 1992 rounding, :data:`F_WEIGHTS`).
    """

    id: str
    label: str
    alpha: int
    gamma: int
    kappa: float
    name_1992: str | None = None

    @classmethod
    def f(cls, id: str, label: str, beta: float, name_1992: str | None = None) -> MeasureSpec:
        """F_beta = (1 + β²)·P·R / (β²·P + R) = ``(p + q)/2 · N2 / (p·POS + q·ACT)`` with
        β² = p/q in lowest terms (β² a binary fraction, as 0.25, 1, 4 or 9 are).

        >>> MeasureSpec.f("f3", "F P&3R", 3)
        MeasureSpec(id='f3', label='F P&3R', alpha=9, gamma=1, kappa=5.0, name_1992=None)
        """
        p, q = (beta * beta).as_integer_ratio()
        return cls(id, label, p, q, (p + q) / 2, name_1992)

    @property
    def beta(self) -> float | None:
        """β of an F-measure; None for recall and precision."""
        return None if not (self.alpha and self.gamma) else math.sqrt(self.alpha / self.gamma)


MEASURES: tuple[MeasureSpec, ...] = (
    MeasureSpec("recall", "recall", 2, 0, 1.0),
    MeasureSpec("precision", "precision", 0, 2, 1.0),
    MeasureSpec.f("f1", "F P&R", 1.0, "P&R"),
    MeasureSpec.f("f0.5", "F 2P&R", 0.5, "2P&R"),
    MeasureSpec.f("f2", "F P&2R", 2.0, "P&2R"),
)
"""The one registry of measures, in the order every output lists them."""
F_MEASURES: tuple[MeasureSpec, ...] = tuple(m for m in MEASURES if m.beta is not None)
"""The F-measures of :data:`MEASURES`."""
F_WEIGHTS: tuple[tuple[str, float, float], ...] = tuple(
    (m.name_1992, m.beta, 1 / (1 + m.beta * m.beta))
    for m in F_MEASURES if m.name_1992 is not None and m.beta is not None)
"""``(label, beta, a)`` of the F-measures the 1992 report prints (P&R, 2P&R, P&2R), the
weight ``a`` of precision in F(a) = 1 / (a/P + (1-a)/R), i.e. a = 1 / (1 + β²)."""
METRIC_IDS: tuple[str, ...] = tuple(m.id for m in MEASURES)
METRIC_LABELS: dict[str, str] = {m.id: m.label for m in MEASURES}
_BY_ID: dict[str, MeasureSpec] = {m.id: m for m in MEASURES}
_F_INDEX: dict[str, int] = {m.id: i for i, m in enumerate(F_MEASURES)}


def metric_of_counts(metric: str, pos: float, act: float, n2: float) -> float:
    """``κ·N2 / (α·POS + γ·ACT)`` of a registered measure, 0 when the denominator is 0.

    The one computation of a measure from counts: the scores shown (:class:`FloatScores`),
    the rankings and the significance tests (:mod:`muceval.significance.kernels`) all take
    it, so that a value shown is bit for bit the value ranked and tested.

    >>> metric_of_counts("f1", 4, 2, 4), metric_of_counts("recall", 0, 2, 0)
    (0.6666666666666666, 0.0)
    """
    m = _BY_ID[metric]
    v = m.alpha * pos + m.gamma * act
    return (m.kappa * float(n2)) / float(v) if v > 0 else 0.0


MEASURE_NAMES: tuple[str, ...] = ("recall", "precision", "overgeneration", "fallout",
                                  *(m.id for m in F_MEASURES))
"""Public names of the float measures, in the order of :meth:`FloatScores.as_dict`."""


def ranking_measure(measures: Sequence[str]) -> str:
    """The measure a ranking (of a report, a matrix, a terminal table) follows: F P&R when it
    is among ``measures``, else the first.

    >>> ranking_measure(["recall", "f1"]), ranking_measure(["precision"])
    ('f1', 'precision')
    """
    return "f1" if "f1" in measures else measures[0]
