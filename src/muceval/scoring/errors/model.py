"""The options and the results of the error analysis (frozen dataclasses), its rows and
categories."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from muceval.core.modern import ModernTemplate
from muceval.core.schema import MUC4, Schema, schema_named
from muceval.errors import Problem, UsageError
from muceval.scoring.errors.search import f1_of

__all__ = ["CATEGORIES", "DAS_ROLES", "MODES", "ROWS", "TYPES", "DocumentErrors",
           "ErrorDocument", "ErrorOptions", "ErrorTotals", "RowCounts", "SystemErrors",
           "Transformation", "error_roles", "error_rows"]

# MUC-4's roles in the original's fixed order (Weapon before Victim): it decides ties.
DAS_ROLES: tuple[str, ...] = ("PerpInd", "PerpOrg", "Target", "Weapon", "Victim")

TOTAL_ROW = "total"
TYPE_ROW = "incident_type"


def error_rows(roles: tuple[str, ...]) -> tuple[str, ...]:
    """The rows of an analysis of ``roles``: ``total``, ``incident_type``, then the roles.

    >>> error_rows(("Cook", "Dish"))
    ('total', 'incident_type', 'Cook', 'Dish')
    """
    return (TOTAL_ROW, TYPE_ROW, *roles)


ROWS: tuple[str, ...] = error_rows(DAS_ROLES)


def error_roles(schema: Schema | str, gold: Iterable[ModernTemplate] = (),
                predicted: Iterable[ModernTemplate] = ()) -> tuple[str, ...]:
    """The roles an error analysis counts, in the order its rows, searches and ties take them.

    MUC-4: :data:`DAS_ROLES`. Open roles (FAMuS): every role the ``gold`` and then the
    ``predicted`` templates name (a role a model invented is a row too: its fillers are
    spurious). A role named as another row is a UsageError.

    >>> error_roles("muc4")
    ('PerpInd', 'PerpOrg', 'Target', 'Weapon', 'Victim')
    >>> gold = ModernTemplate("Hiring", ((), ()), ("Employer", "Time"))
    >>> pred = ModernTemplate("Hiring", ((), ()), ("Salary", "Employer"))
    >>> error_roles("famus", [gold], [pred])
    ('Employer', 'Time', 'Salary')
    """
    chosen = schema_named(schema) if isinstance(schema, str) else schema
    if chosen.name == MUC4.name:
        return DAS_ROLES
    roles = chosen.roles if chosen.roles is not None else tuple(dict.fromkeys(
        role for templates in (gold, predicted) for t in templates for role in t.role_names))
    clash = [r for r in roles if r in (TOTAL_ROW, TYPE_ROW)]
    if clash:
        raise UsageError(f"a role named {clash[0]!r}: the error analysis has a row of that "
                         f"name already (schema {chosen.name})", parameter="schema")
    return roles

SPAN_ERROR = "Span_Error"
GENERAL_SPURIOUS = "General_Spurious_Role_Filler"
DUPLICATE = "Duplicate_Role_Filler"
DUPLICATE_PARTIAL = "Duplicate_Partially_Matched_Role_Filler"
WITHIN = "Within_Template_Incorrect_Role"
WITHIN_PARTIAL = "Within_Template_Incorrect_Role + Partially_Matched_Filler"
WRONG_TEMPLATE = "Wrong_Template_For_Role_Filler"
WRONG_TEMPLATE_PARTIAL = "Wrong_Template_For_Partially_Matched_Role_Filler"
WRONG_BOTH = "Wrong_Template + Wrong_Role"
WRONG_BOTH_PARTIAL = "Wrong_Template + Wrong_Role + Partially_Matched_Filler"
SPURIOUS_FILLER = "Spurious_Role_Filler"
MISSING_FILLER = "Missing_Role_Filler"
SPURIOUS_TEMPLATE = "Spurious_Template"
SPURIOUS_TEMPLATE_FILLER = "Spurious_Template_Role_Filler"
MISSING_TEMPLATE = "Missing_Template"
MISSING_TEMPLATE_FILLER = "Missing_Template_Role_Filler"
INCORRECT_TYPE = "Incorrect_Incident_Type"

# Where an unaligned predicted filler is found, exact and partial: its own gold template and
# role, the same template and another role, another template and the same role, neither.
LEVELS: tuple[tuple[str, str], ...] = (
    (DUPLICATE, DUPLICATE_PARTIAL), (WITHIN, WITHIN_PARTIAL),
    (WRONG_TEMPLATE, WRONG_TEMPLATE_PARTIAL), (WRONG_BOTH, WRONG_BOTH_PARTIAL))

# The nine classes of an unaligned predicted filler, in the order they are tried.
SUBCATEGORIES: tuple[str, ...] = (*(c for level in LEVELS for c in level), SPURIOUS_FILLER)

CATEGORIES: tuple[str, ...] = (SPAN_ERROR, GENERAL_SPURIOUS, *SUBCATEGORIES, MISSING_FILLER,
                               SPURIOUS_TEMPLATE, SPURIOUS_TEMPLATE_FILLER, MISSING_TEMPLATE,
                               MISSING_TEMPLATE_FILLER)

ALL_CATEGORIES: tuple[str, ...] = (*CATEGORIES, INCORRECT_TYPE)

MODES = ("all", "msp", "mmi", "mat")  # the original's -s
TYPES = ("equal", "any")  # -m MUC_Errors, -m Errors

Mode = Literal["all", "msp", "mmi", "mat"]
Types = Literal["equal", "any"]


@dataclass(frozen=True)
class ErrorOptions:
    """How the error analysis runs.

    ``mode``: which unpaired templates count (``msp`` leaves out the missing gold ones, ``mmi``
    the spurious predicted ones, ``mat`` both); the alignment is the same in every mode.
    ``types='any'``: a pair whose types differ costs one unit, ``Incorrect_Incident_Type``.
    ``after_repair``: analyse the repaired data again (``-at``). ``canonical_order``: sort
    templates, entities and mentions first (the original's categories depend on input order).

    >>> ErrorOptions(mode="msp").to_dict()["mode"]
    'msp'
    >>> ErrorOptions(mode="some")
    Traceback (most recent call last):
    ...
    muceval.errors.UsageError: mode: 'some': choose from all, msp, mmi, mat
    """

    mode: Mode = "all"
    types: Types = "equal"
    after_repair: bool = False
    canonical_order: bool = False

    def __post_init__(self) -> None:
        for name, choices in (("mode", MODES), ("types", TYPES)):
            if getattr(self, name) not in choices:
                raise UsageError(f"{getattr(self, name)!r}: choose from {', '.join(choices)}",
                                 parameter=name)

    @property
    def categories(self) -> tuple[str, ...]:
        """The sixteen, and ``Incorrect_Incident_Type`` with ``types='any'``."""
        return ALL_CATEGORIES if self.types == "any" else CATEGORIES

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class ErrorDocument:
    """One document to analyse: its text (where mentions are looked for) and its templates."""

    docid: str
    text: str
    predicted: tuple[ModernTemplate, ...]
    gold: tuple[ModernTemplate, ...]


@dataclass(frozen=True)
class RowCounts:
    """One row: ``num`` (credited units, both numerators), the denominators and categories."""

    num: int = 0
    p_den: int = 0
    r_den: int = 0
    categories: tuple[int, ...] = (0,) * len(ALL_CATEGORIES)
    cancelled: int = 0

    def __add__(self, other: RowCounts) -> RowCounts:
        return RowCounts(self.num + other.num, self.p_den + other.p_den,
                         self.r_den + other.r_den,
                         tuple(a + b for a, b in zip(self.categories, other.categories,
                                                     strict=True)),
                         self.cancelled + other.cancelled)

    def category(self, name: str) -> int:
        return self.categories[ALL_CATEGORIES.index(name)]

    @property
    def precision(self) -> float:
        return self.num / self.p_den if self.p_den else 0.0

    @property
    def recall(self) -> float:
        return self.num / self.r_den if self.r_den else 0.0

    @property
    def f1(self) -> float:
        return f1_of(self.num, self.p_den, self.r_den)

    def to_dict(self, categories: tuple[str, ...] = CATEGORIES) -> dict[str, Any]:
        return {"num": self.num, "p_den": self.p_den, "r_den": self.r_den,
                "precision": self.precision, "recall": self.recall, "f1": self.f1,
                "categories": {name: self.category(name) for name in categories},
                "cancelled": self.cancelled}


@dataclass(frozen=True)
class Transformation:
    """A repair kept for one filler or template: the chain of edits in the pair ``entry``;
    ``value``: the mention put in its place (or introduced), ``target_role`` where it goes."""

    entry: int
    names: tuple[str, ...]
    role: str | None = None
    mention: str | None = None
    value: str | None = None
    target_role: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "names": list(self.names)}


def score_text(score: float, partial: bool) -> str:
    """The Error Score as the original prints it: an integer unless a partial pair added a
    fraction, else the shortest form of the double.

    >>> score_text(12.0, False), score_text(12.0, True), score_text(0.1 + 0.2, True)
    ('12', '12.0', '0.30000000000000004')
    """
    return str(int(score)) if not partial else repr(float(score))


class _Rows:
    """The rows of :class:`DocumentErrors` and :class:`ErrorTotals`, by name."""

    rows: tuple[RowCounts, ...]
    roles: tuple[str, ...]
    error_score: float
    partial: bool

    @property
    def names(self) -> tuple[str, ...]:
        return error_rows(self.roles)

    def row(self, name: str) -> RowCounts:
        return self.rows[self.names.index(name)]

    @property
    def total(self) -> RowCounts:
        return self.rows[0]

    @property
    def error_score_text(self) -> str:
        return score_text(self.error_score, self.partial)

    def to_dict(self, categories: tuple[str, ...] = CATEGORIES) -> dict[str, Any]:
        return {"error_score": self.error_score, "error_score_text": self.error_score_text,
                "rows": {name: row.to_dict(categories)
                         for name, row in zip(self.names, self.rows, strict=True)}}


@dataclass(frozen=True)
class DocumentErrors(_Rows):
    """The analysis of one document; ``partial``: a partial pair contributed to the Error Score;
    ``alignment``: per entry, the predicted and gold template indices (None for none)."""

    docid: str
    rows: tuple[RowCounts, ...]
    error_score: float
    partial: bool
    alignment: tuple[tuple[int | None, int | None], ...]
    transformations: tuple[Transformation, ...] = ()
    roles: tuple[str, ...] = DAS_ROLES


@dataclass(frozen=True)
class ErrorTotals(_Rows):
    """A report block: the rows summed over documents, the Error Score in file order."""

    rows: tuple[RowCounts, ...]
    error_score: float
    partial: bool
    roles: tuple[str, ...] = DAS_ROLES

    @classmethod
    def of(cls, documents: tuple[DocumentErrors, ...],
           roles: tuple[str, ...] = DAS_ROLES) -> ErrorTotals:
        rows = [RowCounts() for _ in error_rows(roles)]
        score = 0.0
        for document in documents:
            rows = [a + b for a, b in zip(rows, document.rows, strict=True)]
            score += document.error_score
        return cls(tuple(rows), score, any(d.partial for d in documents), roles)


@dataclass(frozen=True)
class SystemErrors:
    """One system's analysis: per document before the repair and (``after_repair``) after."""

    system: str
    options: ErrorOptions
    documents: tuple[DocumentErrors, ...]
    after: tuple[DocumentErrors, ...] | None = None
    warnings: tuple[Problem, ...] = ()
    transformations: Mapping[str, int] = field(default_factory=dict)  # kept, by name
    roles: tuple[str, ...] = DAS_ROLES

    # Summed once: tables, figures and JSON read them category by category.
    @functools.cached_property
    def before_totals(self) -> ErrorTotals:
        return ErrorTotals.of(self.documents, self.roles)

    @functools.cached_property
    def after_totals(self) -> ErrorTotals | None:
        return None if self.after is None else ErrorTotals.of(self.after, self.roles)
