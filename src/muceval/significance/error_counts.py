"""Which changes in error counts are real: per error category and pair of systems, the
p-value of :func:`~muceval.significance.counts.paired_count_tests`, adjusted per category.

>>> import numpy as np
>>> from muceval.core.error_counts import ErrorCounts
>>> counts = ErrorCounts(("Missing",), ("d1", "d2", "d3"),
...                      {"A": np.array([[1], [2], [0]]), "B": np.array([[2], [3], [1]])})
>>> (change,) = error_changes(counts, "A", SignificanceSettings(seed=1))
>>> change.candidate, change.difference, change.p_value, change.method
('B', 3, 0.25, 'exact')
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace

from muceval.core.error_counts import ErrorCounts
from muceval.errors import UsageError
from muceval.significance.counts import pairwise_count_tests
from muceval.significance.groups import adjust_pvalues
from muceval.significance.settings import SignificanceSettings, known_systems

__all__ = ["ErrorChange", "all_pair_changes", "changes_between", "error_changes"]


@dataclass(frozen=True)
class ErrorChange:
    """One category of one pair of systems (``difference``: candidate − baseline;
    ``adjusted_p_value``: over the pairs tested for that category)."""

    baseline: str
    candidate: str
    category: str
    baseline_count: int
    candidate_count: int
    difference: int
    p_value: float
    method: str
    documents: int
    adjusted_p_value: float

    def significant(self, alpha: float) -> bool:
        return self.adjusted_p_value <= alpha


def changes_between(counts: ErrorCounts, pairs: Sequence[tuple[str, str]],
                    settings: SignificanceSettings) -> list[ErrorChange]:
    """Every category of each pair ``(baseline, candidate)``; a document a system lacks counts 0."""
    known_systems(counts.systems, [n for pair in pairs for n in pair])
    tests = pairwise_count_tests(counts.counts, pairs, settings)
    out: list[ErrorChange] = []
    for (baseline, candidate), found in tests.items():
        out += [ErrorChange(baseline, candidate, category, t.first, t.second, t.difference,
                            t.p_value, t.method, t.documents, t.p_value)
                for category, t in zip(counts.categories, found, strict=True)]
    return _adjusted(out, settings.adjust)


def _adjusted(changes: list[ErrorChange], method: str) -> list[ErrorChange]:
    """Each category's p-values adjusted over its pairs (the family of one category)."""
    if method == "none":
        return changes
    out = list(changes)
    for category in dict.fromkeys(c.category for c in changes):
        where = [i for i, c in enumerate(changes) if c.category == category]
        for i, p in zip(where, adjust_pvalues([changes[i].p_value for i in where], method),
                        strict=True):
            out[i] = replace(changes[i], adjusted_p_value=p)
    return out


def error_changes(counts: ErrorCounts, baseline: str,
                  settings: SignificanceSettings) -> list[ErrorChange]:
    """Every category of every other system of ``counts`` against ``baseline``."""
    known_systems(counts.systems, [baseline])
    if len(counts.systems) < 2:
        raise UsageError("compare needs a baseline and at least one candidate")
    return changes_between(counts, [(baseline, s) for s in counts.systems if s != baseline],
                           settings)


def all_pair_changes(counts: ErrorCounts, settings: SignificanceSettings,
                     order: Sequence[str] | None = None) -> list[ErrorChange]:
    """Every pair of systems, the earlier of ``order`` (default: ``counts``') as baseline."""
    names = list(order) if order is not None else list(counts.systems)
    if len(names) < 2:
        raise UsageError("testing error counts needs at least two systems")
    return changes_between(counts, list(itertools.combinations(names, 2)), settings)
