"""One pair and one metric of a significance analysis: :class:`Comparison`, and
:data:`FIELDS`, the one declaration of its layout in JSON and in the pairwise table's CSV."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from muceval.significance.classic import CSV_CLASSIC, ClassicTests

__all__ = ["CSV_HEADER", "FIELDS", "Comparison", "Field", "csv_cell", "csv_row"]


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
        """The same comparison seen from ``b`` (p-values, tests and decisions are symmetric)."""
        return replace(self, a=self.b, b=self.a, value_a=self.value_b, value_b=self.value_a,
                       difference=-self.difference,
                       ci=(-self.ci[1], -self.ci[0]) if self.ci is not None else None)

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of :data:`FIELDS` (a pair as a list, an object as a dict).

        >>> c = Comparison("A", "B", "f1", 0.5, 0.25, 0.25, 0.125, "exact", None, None, 1.0,
        ...                0.0, "two-sided", 0.125, False, 3, ci=(0.0, 0.5))
        >>> c.to_dict()["ci"], c.to_dict()["nge"], list(c.to_dict())[:3]
        ([0.0, 0.5], None, ['a', 'b', 'metric'])
        """
        # A copy of the instance dict rather than dataclasses.asdict: a leaderboard has
        # millions of these. Its keys are the fields in their declared order.
        out = dict(self.__dict__)
        for name in _NESTED:
            value = out[name]
            if value is not None:
                out[name] = list(value) if isinstance(value, tuple) else dict(value.__dict__)
        return out


@dataclass(frozen=True)
class Field:
    """One field of a comparison: ``name``, ``place`` (the order of its CSV columns, None:
    JSON only) and ``columns`` (of a pair or an object; empty: one, the field's name)."""

    name: str
    place: int | None
    columns: tuple[str, ...] = ()


FIELDS = (
    Field("a", 1), Field("b", 2), Field("metric", 0), Field("value_a", 3),
    Field("value_b", 4), Field("difference", 5), Field("p_value", 6), Field("method", 8),
    Field("shuffles", 9), Field("nge", None), Field("confidence", 10),
    Field("error_bound", 11), Field("alternative", 13), Field("p_adjusted", 7),
    Field("significant", 12), Field("units", 14), Field("ci", 15, ("ci_low", "ci_high")),
    Field("classic", 16, CSV_CLASSIC),
)
"""The fields of a comparison in the order of its JSON object (that of :class:`Comparison`);
their places order the CSV columns."""

CSV_FIELDS = tuple(sorted((f for f in FIELDS if f.place is not None),
                          key=lambda f: f.place or 0))

CSV_HEADER: tuple[str, ...] = tuple(c for f in CSV_FIELDS for c in f.columns or (f.name,))
"""The columns of the pairwise table (``significance --format csv``, ``--pairs``)."""

_NESTED = tuple(f.name for f in FIELDS if f.columns)


def csv_cell(value: Any) -> Any:
    """A value as the csv module is given it: None empty, a flag 1 or 0."""
    return "" if value is None else int(value) if isinstance(value, bool) else value


def csv_row(c: Comparison) -> list[Any]:
    """One comparison as a row of :data:`CSV_HEADER`.

    >>> c = Comparison("A", "B", "f1", 0.5, 0.25, 0.25, 0.125, "exact", None, None, 1.0,
    ...                0.0, "two-sided", 0.125, True, 3)
    >>> csv_row(c)[:3], csv_row(c)[8:13], len(csv_row(c)) == len(CSV_HEADER)
    (['f1', 'A', 'B'], ['exact', '', 1.0, 0.0, 1], True)
    """
    row: list[Any] = []
    for f in CSV_FIELDS:
        value = getattr(c, f.name)
        if not f.columns:
            row.append(csv_cell(value))
        elif value is None:
            row += [""] * len(f.columns)
        elif isinstance(value, tuple):
            row += [csv_cell(v) for v in value]
        else:
            row += [csv_cell(getattr(value, column)) for column in f.columns]
    return row
