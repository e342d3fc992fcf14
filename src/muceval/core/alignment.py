"""Alignment criteria: which key/response template pairs may be aligned, and how pairs are chosen.

A criterion never changes how an aligned pair is scored; the predefined ``"1992"`` (the 1992
program's mapping) is the default.

>>> strict = Criterion("strict", require=(SlotMatch("any", ("hum-tgt-name", "phys-tgt-id")),))
>>> strict.describe()
'1992 restriction, greedy; require any-match [hum-tgt-name, phys-tgt-id]'
>>> AlignmentSettings().criterion("1992").is_1992
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from muceval.core.model import Restriction
from muceval.errors import UsageError

__all__ = [
    "ASSIGNMENTS",
    "CARDINALITIES",
    "CONDITION_KEYS",
    "CREDITS",
    "PREDEFINED",
    "AlignmentSettings",
    "AllOf",
    "AnyOf",
    "ChanceSettings",
    "Condition",
    "Criterion",
    "MinEvidenceBits",
    "MinMatchingSlots",
    "MinPairScore",
    "Not",
    "SlotMatch",
    "ValueTest",
]

ASSIGNMENTS = ("greedy", "optimal")
CARDINALITIES = ("1:1", "N:1")
CREDITS = ("overlap", "partial", "full")
"""What counts as a match on a slot: the restriction's test (word overlap counts),
at least partial credit in the pair score, or full credit."""

CONDITION_KEYS = (
    "match",
    "any-match",
    "all-match",
    "min-matching-slots",
    "min-evidence-bits",
    "min-pair-score",
    "all",
    "any",
    "not",
)


@dataclass(frozen=True, slots=True)
class ValueTest:
    """Which slot matches count: the credit level, and optionally only informative values.

    ``max_chance``: the agreed value's chance (share of key templates with that value, or one
    below it in the hierarchy) must be at most this; ``min_bits``: its −log2 at least this.
    """

    credit: str = "partial"
    max_chance: float | None = None
    min_bits: float | None = None

    def describe(self) -> str:
        parts = [_SHOWN[key].format(value) for key, value in self.to_dict().items()]
        return f" ({', '.join(parts)})" if parts else ""

    def to_dict(self) -> dict[str, Any]:
        """The settings away from their defaults."""
        given = {"credit": None if self.credit == "partial" else self.credit,
                 "max-chance": self.max_chance, "min-bits": self.min_bits}
        return {key: value for key, value in given.items() if value is not None}


_SHOWN = {"credit": "credit {}", "max-chance": "chance ≤ {:g}", "min-bits": "≥ {:g} bits"}


@dataclass(frozen=True, slots=True)
class SlotMatch:
    """``match`` (one slot), ``any-match`` or ``all-match`` (named slots)."""

    quantifier: Literal["one", "any", "all"]
    slots: tuple[str, ...]
    test: ValueTest = ValueTest()

    @property
    def key(self) -> str:
        return {"one": "match", "any": "any-match", "all": "all-match"}[self.quantifier]

    def describe(self) -> str:
        if self.quantifier == "one":
            return f"match {self.slots[0]}{self.test.describe()}"
        return f"{self.key} [{', '.join(self.slots)}]{self.test.describe()}"

    def to_dict(self) -> dict[str, Any]:
        value: Any = self.slots[0] if self.quantifier == "one" else list(self.slots)
        return {self.key: value, **self.test.to_dict()}


@dataclass(frozen=True, slots=True)
class MinMatchingSlots:
    """At least ``count`` matching slots (of ``slots``, or of every scored slot)."""

    count: int
    slots: tuple[str, ...] | None = None
    test: ValueTest = ValueTest()

    def describe(self) -> str:
        among = f" of [{', '.join(self.slots)}]" if self.slots is not None else ""
        return f"min-matching-slots {self.count}{among}{self.test.describe()}"

    def to_dict(self) -> dict[str, Any]:
        return {"min-matching-slots": self.count, **_listed(self.slots), **self.test.to_dict()}


@dataclass(frozen=True, slots=True)
class MinEvidenceBits:
    """Σ over matching slots of the information of the agreed value, at least ``bits``."""

    bits: float
    slots: tuple[str, ...] | None = None

    def describe(self) -> str:
        among = f" of [{', '.join(self.slots)}]" if self.slots is not None else ""
        return f"min-evidence-bits {self.bits:g}{among}"

    def to_dict(self) -> dict[str, Any]:
        return {"min-evidence-bits": self.bits, **_listed(self.slots)}


def _listed(slots: tuple[str, ...] | None) -> dict[str, Any]:
    return {} if slots is None else {"slots": list(slots)}


@dataclass(frozen=True, slots=True)
class MinPairScore:
    """The 1992 pair score (recall percentage of the pair) at least ``score``."""

    score: float

    def describe(self) -> str:
        return f"min-pair-score {self.score:g}"

    def to_dict(self) -> dict[str, Any]:
        return {"min-pair-score": self.score}


@dataclass(frozen=True, slots=True)
class _Group:
    conditions: tuple[Condition, ...]
    word: ClassVar[str]

    def describe(self) -> str:
        return f"{self.word}(" + "; ".join(c.describe() for c in self.conditions) + ")"

    def to_dict(self) -> dict[str, Any]:
        return {self.word: [c.to_dict() for c in self.conditions]}


@dataclass(frozen=True, slots=True)
class AllOf(_Group):
    word = "all"


@dataclass(frozen=True, slots=True)
class AnyOf(_Group):
    word = "any"


@dataclass(frozen=True, slots=True)
class Not:
    condition: Condition

    def describe(self) -> str:
        return f"not({self.condition.describe()})"

    def to_dict(self) -> dict[str, Any]:
        return {"not": self.condition.to_dict()}


Condition = SlotMatch | MinMatchingSlots | MinEvidenceBits | MinPairScore | AllOf | AnyOf | Not


def _restriction_list(expr: Restriction) -> list[Any]:
    return [expr.op, *(_restriction_list(o) if isinstance(o, Restriction) else o
                       for o in expr.operands)]


def _restriction_text(expr: Restriction) -> str:
    inner = ", ".join(_restriction_text(o) if isinstance(o, Restriction) else o
                      for o in expr.operands)
    return f"{expr.op}({inner})"


@dataclass(frozen=True, slots=True)
class Criterion:
    """A named alignment criterion.

    ``restriction``: ``"1992"`` (the configuration's ``restrict-map-slots``), ``"none"``, or an
    expression judged as the 1992 restriction is (word overlap counts); ``require``: conditions
    that must hold as well. ``cardinality`` ``"N:1"`` (response templates sharing a key
    template) is a diagnostic of split events and cannot score.
    """

    name: str
    restriction: Restriction | str = "1992"
    assignment: str = "greedy"
    cardinality: str = "1:1"
    require: tuple[Condition, ...] = ()
    description: str = ""

    @property
    def is_1992(self) -> bool:
        """Whether this is the 1992 program's mapping (scored by the 1992 code path)."""
        return (self.restriction == "1992" and self.assignment == "greedy"
                and self.cardinality == "1:1" and not self.require)

    def describe(self) -> str:
        if isinstance(self.restriction, Restriction):
            text = f"restriction {_restriction_text(self.restriction)}"
        elif self.restriction == "none":
            text = "no restriction"
        else:
            text = "1992 restriction"
        text += f", {self.assignment}"
        if self.cardinality != "1:1":
            text += f", {self.cardinality}"
        if self.require:
            text += "; require " + "; ".join(c.describe() for c in self.require)
        return text

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "restriction": _restriction_list(self.restriction)
            if isinstance(self.restriction, Restriction) else self.restriction,
            "assignment": self.assignment,
            "cardinality": self.cardinality,
            "require": [c.to_dict() for c in self.require],
        }
        if self.description:
            out["description"] = self.description
        return out


PREDEFINED: tuple[Criterion, ...] = (
    Criterion("1992", description="the 1992 program: the configuration's restriction, greedy"),
    Criterion("1992-optimal", assignment="optimal",
              description="the 1992 restriction with a maximum-score assignment"),
    Criterion("any-slot", restriction="none", require=(MinMatchingSlots(1),),
              description="MUC-6 style: any slot earns credit"),
)


@dataclass(frozen=True, slots=True)
class ChanceSettings:
    """Where the chance of a value comes from (the key being scored, or given key files), and
    from which chance it is *common* (its match flagged when it alone satisfies an or-clause)."""

    source: str = "key"
    keys: tuple[str, ...] = ()
    common: float = 0.25

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "keys": list(self.keys), "common": self.common}


@dataclass(frozen=True, slots=True)
class AlignmentSettings:
    """The ``[alignment]`` table: criteria (the predefined ones included) and their uses."""

    default: str = "1992"
    compare: tuple[str, ...] = ()
    flag: str | None = None
    chance: ChanceSettings = ChanceSettings()
    criteria: tuple[Criterion, ...] = field(default=PREDEFINED)

    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.criteria)

    def criterion(self, name: str) -> Criterion:
        for c in self.criteria:
            if c.name == name:
                return c
        raise UsageError(f"unknown alignment criterion {name!r} "
                         f"(known: {', '.join(self.names())})")

    @property
    def compared(self) -> tuple[str, ...]:
        """The criteria shown side by side: ``compare``, else the default and the flag criterion."""
        names = self.compare or (self.default, *((self.flag,) if self.flag else ()))
        if self.default not in names:
            names = (self.default, *names)
        return tuple(dict.fromkeys(names))

    @property
    def flag_criterion(self) -> str:
        """The criterion whose refusals mark a pair as suspicious."""
        if self.flag:
            return self.flag
        others = [n for n in self.compared if n != self.default]
        return others[0] if others else self.default

    def to_dict(self) -> dict[str, Any]:
        return {
            "default": self.default,
            "compare": list(self.compared),
            "flag": self.flag_criterion,
            "chance": self.chance.to_dict(),
            "criteria": {c.name: c.to_dict() for c in self.criteria},
        }
