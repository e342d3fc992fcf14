"""One pair and one metric of a significance analysis: the :class:`Comparison` object and
its row of the pairwise table (:data:`CSV_HEADER`, :func:`csv_row`), the one place that lays
a comparison out."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from muceval.significance.classic import ClassicTests

__all__ = ["CSV_CLASSIC", "CSV_HEADER", "Comparison", "Outcome", "comparison_row", "csv_row"]


@dataclass(frozen=True)
class Comparison:
    """The result of one pair (a, b) and one metric; ``difference`` = value_a − value_b."""

    a: str
    b: str
    metric: str
    value_a: float
    value_b: float
    difference: float
    p_value: float
    method: str
    shuffles: int | None
    nge: int | None
    confidence: float
    error_bound: float
    alternative: str
    p_adjusted: float
    significant: bool
    units: int
    ci: tuple[float, float] | None = None
    classic: ClassicTests | None = None

    def mirrored(self) -> Comparison:
        """The same comparison seen from ``b``: b − a, its interval negated. p-values, tests
        and decisions stay (two-sided, or one-sided in the observed direction: both
        symmetric)."""
        return replace(self, a=self.b, b=self.a, value_a=self.value_b, value_b=self.value_a,
                       difference=-self.difference,
                       ci=(-self.ci[1], -self.ci[0]) if self.ci is not None else None)

    def to_dict(self) -> dict[str, Any]:
        # A copy of the instance dict rather than dataclasses.asdict: a leaderboard has
        # millions of these. The fields keep their declared order (ci and classic last).
        out = dict(self.__dict__)
        out["ci"] = list(self.ci) if self.ci is not None else None
        classic = self.classic
        out["classic"] = None if classic is None else dict(classic.__dict__)
        return out




CSV_HEADER: tuple[str, ...] = (
    "metric", "a", "b", "value_a", "value_b", "difference", "p_value", "p_adjusted",
    "method", "shuffles", "confidence", "error_bound", "significant", "alternative",
    "units", "ci_low", "ci_high", "correlation", "sign", "wilcoxon", "paired_t",
    "two_sample_t", "chi2", "binomial",
)  # fmt: skip
"""The columns of the pairwise table (``significance --format csv``, ``--pairs``)."""

CSV_CLASSIC = ("correlation", "sign", "wilcoxon", "paired_t", "two_sample_t", "chi2",
                    "binomial")


class Outcome(NamedTuple):
    """What the test of one pair and metric found: the middle columns of :data:`CSV_HEADER`
    (those of :class:`Comparison` by the same names)."""

    p_value: float
    p_adjusted: float
    method: str
    shuffles: int | None
    confidence: float
    error_bound: float
    significant: bool
    alternative: str
    units: int


def csv_row(*, metric: str, a: str, b: str, value_a: float, value_b: float, outcome: Outcome,
            ci: tuple[float, float] | None, classic: ClassicTests | None) -> list[Any]:
    """One comparison as a row of :data:`CSV_HEADER` (the one place that lays it out)."""
    o = outcome
    row: list[Any] = [
        metric, a, b, value_a, value_b, value_a - value_b, o.p_value, o.p_adjusted, o.method,
        o.shuffles if o.shuffles is not None else "", o.confidence, o.error_bound,
        int(o.significant), o.alternative, o.units, ci[0] if ci else "", ci[1] if ci else "",
    ]
    for name in CSV_CLASSIC:
        value = getattr(classic, name) if classic is not None else None
        row.append("" if value is None else value)
    return row


def comparison_row(c: Comparison) -> list[Any]:
    """:func:`csv_row` of a comparison."""
    outcome = Outcome(p_value=c.p_value, p_adjusted=c.p_adjusted, method=c.method,
                      shuffles=c.shuffles, confidence=c.confidence, error_bound=c.error_bound,
                      significant=c.significant, alternative=c.alternative, units=c.units)
    return csv_row(metric=c.metric, a=c.a, b=c.b, value_a=c.value_a, value_b=c.value_b,
                   outcome=outcome, ci=c.ci, classic=c.classic)
