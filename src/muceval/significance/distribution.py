"""The randomization distribution of one pair's difference (Chinchor 1992, Figure 1), from
the approximate test's own shuffles: the histogram shows exactly the counts behind the p-value.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from muceval.core.units import UnitTallies
from muceval.errors import UsageError
from muceval.significance.kernels import (
    PairData,
    coins,
    count_extreme,
    metric_values,
    reduce_counts,
    totals_value,
)
from muceval.significance.settings import SignificanceSettings, known_systems

__all__ = ["Distribution", "shuffled_differences"]

_CHUNK = 1 << 13


@dataclass(frozen=True)
class Distribution:
    """The shuffled differences ``a − b`` of one metric, and what they were drawn with."""

    a: str
    b: str
    metric: str
    observed: float
    differences: np.ndarray
    seed: int
    two_sided: bool

    @property
    def shuffles(self) -> int:
        return len(self.differences)

    @property
    def nge(self) -> int:
        return count_extreme(self.differences, self.observed, self.two_sided)

    @property
    def p_value(self) -> float:
        return (self.nge + 1) / (self.shuffles + 1)


def shuffled_differences(tallies: UnitTallies, a: str, b: str, metric: str,
                         settings: SignificanceSettings) -> Distribution:
    """The differences of ``metric`` between the two pseudo-systems of every shuffle of the
    approximate test of ``a`` against ``b`` (``settings.shuffles`` of them, ``settings.seed``).

    >>> from muceval.core.units import from_arrays
    >>> t = from_arrays(["A", "B"], ["m1", "m2"], [[[2, 2, 2, 0], [2, 2, 1, 0]],
    ...                                           [[2, 2, 1, 0], [2, 2, 0, 0]]])
    >>> d = shuffled_differences(t, "A", "B", "recall", SignificanceSettings(shuffles=99, seed=1))
    >>> d.observed, d.shuffles, sorted(set(np.round(d.differences, 2).tolist()))
    (0.5, 99, [-0.5, 0.0, 0.5])
    """
    if settings.seed is None:
        raise UsageError("the shuffles are drawn from a seed: set one", parameter="seed")
    known_systems(tallies.systems, (a, b))
    pair = PairData.of(*(reduce_counts(tallies.counts[tallies.systems.index(s)]) for s in (a, b)))
    out = np.empty(settings.shuffles, dtype=np.float64)
    for start in range(0, settings.shuffles, _CHUNK):
        stop = min(settings.shuffles, start + _CHUNK)
        moved = coins(settings.seed, start, stop, len(pair.diffs)).astype(np.int64) @ pair.diffs
        out[start:stop] = (metric_values(pair.total_x - moved, metric)
                           - metric_values(pair.total_y + moved, metric))
    observed = totals_value(pair.total_x, metric) - totals_value(pair.total_y, metric)
    return Distribution(a, b, metric, observed, out, settings.seed, settings.two_sided)
