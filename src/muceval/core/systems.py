"""The scores of one system, wherever they come from (scored by muceval, or read by
``muceval.formats``): a :class:`ScoredSystem`. :func:`unit_tallies` merges several systems into
one :class:`~muceval.core.units.UnitTallies`.

>>> from muceval.core.tallies import Tally
>>> a = ScoredSystem("A", "a.txt", {"m1": Tally(pos=2, act=2, cor=2)})
>>> b = ScoredSystem("B", "b.txt", {"m1": Tally(pos=2, act=1), "m2": Tally(act=1)})
>>> t = unit_tallies([a, b])
>>> t.units, t.totals("A").tolist()
(('m1', 'm2'), [2, 2, 2, 0])
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from muceval.core.metrics import F_WEIGHTS, FloatScores, MeasureValues, f_measures_1992, scores
from muceval.core.model import DisplayType
from muceval.core.tallies import Tally
from muceval.core.units import FIELDS, UnitTallies, check_counts
from muceval.errors import InputError, UsageError

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "MANNER_LABELS",
    "Row",
    "ScoredSystem",
    "SystemScores",
    "UNIT_POLICIES",
    "unit_tallies",
]

MANNER_LABELS: dict[str, str] = {
    DisplayType.MATCHED_MISSING.value: "MATCHED/MISSING",
    DisplayType.MATCHED_SPURIOUS.value: "MATCHED/SPURIOUS",
    DisplayType.MATCHED_ONLY.value: "MATCHED ONLY",
    DisplayType.ALL_TEMPLATES.value: "ALL TEMPLATES",
}
"""Accumulator name (as in :class:`~muceval.core.model.DisplayType`) → the report's row label."""
_MANNER_OF_LABEL = {label: manner for manner, label in MANNER_LABELS.items()}


@dataclass(frozen=True)
class Row(MeasureValues):
    """One labelled row of a summary with its tallies and unrounded measures.

    ``kind``: ``slot``, ``subtotal``, ``total`` (one of the four manners), ``set-fills`` or
    ``string-fills``. ``fallout`` is ``None`` where the 1992 report prints no FAL or ``*``.

    >>> Row.of("s", "slot", Tally(pos=4, act=2, cor=1, par=1)).recall
    0.375
    """

    name: str
    kind: str
    tally: Tally
    recall: float | None
    precision: float | None
    overgeneration: float | None
    fallout: float | None
    f: tuple[float | None, ...]
    """The F-measures of :data:`~muceval.core.metrics.F_MEASURES`, in order."""

    @classmethod
    def of(cls, name: str, kind: str, tally: Tally, fallout: float | None = None) -> Row:
        f = FloatScores.of(tally)
        return cls(name, kind, tally, f.recall, f.precision, f.overgeneration, fallout, f.f)

    def to_dict(self) -> dict[str, Any]:
        return {
            "row": self.name,
            "kind": self.kind,
            "tallies": self.tally.as_dict(),
            **FloatScores.of(self.tally).as_dict(),
            "fallout": self.fallout,
        }


@dataclass(frozen=True)
class SystemScores:
    """The summary of one system: ALL TEMPLATES, the four manners, slot and object rows.

    ``source`` names where it came from (file or system), ``origin`` is ``scored``,
    ``report``, ``json`` or ``arrays``; ``f_1992``: the F-measures the 1992 report prints.

    >>> a = SystemScores.of_tally("A", "x", "arrays", Tally(pos=2, act=2, cor=2))
    >>> a.all_templates.recall, a.f_1992
    (1.0, (100.0, 100.0, 100.0))
    """

    name: str
    source: str
    origin: str
    all_templates: Row
    manners: tuple[Row, ...] = ()
    slots: tuple[Row, ...] = ()
    objects: tuple[Row, ...] = ()
    f_1992: tuple[float, float, float] | None = None

    @classmethod
    def of_tally(cls, name: str, source: str, origin: str, total: Tally) -> SystemScores:
        """A system known only by its ALL TEMPLATES tally."""
        s = scores(total)
        return cls(name, source, origin, Row.of("ALL TEMPLATES", "total", total),
                   f_1992=f_measures_1992(s.rec, s.pre))  # fmt: skip

    @property
    def fallout(self) -> float | None:
        """The one fallout of a system, that of the 1992 SET FILLS ONLY row (only set-fill slots
        count possible wrong fills, PIE); ``None`` when unknown."""
        row = next((r for r in self.objects if r.kind == "set-fills"), None)
        return None if row is None else row.fallout

    def manner(self, accumulator: str) -> Row | None:
        """The total row of one manner (``"matched-only"`` …), or ``None`` if unknown."""
        label = MANNER_LABELS[accumulator]
        return next((r for r in self.manners if r.name == label), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": self.name,
            "source": self.source,
            "origin": self.origin,
            "all_templates": self.all_templates.to_dict(),
            "fallout": self.fallout,
            "f_1992": (
                None if self.f_1992 is None
                else dict(zip((w[0] for w in F_WEIGHTS), self.f_1992, strict=True))
            ),
            "manners": {_MANNER_OF_LABEL[r.name]: r.to_dict() for r in self.manners},
            "slots": [r.to_dict() for r in self.slots],
            "objects": [r.to_dict() for r in self.objects],
        }


@dataclass(frozen=True, eq=False)
class ScoredSystem:
    """One system as a scores source gives it: per-unit tallies and, if known, its summary.

    ``units`` maps a unit (a message id) to the tally whose POS, ACT, COR and PAR the tests
    use; ``summary`` is ``None`` for sources of those counts only (a unit-tallies CSV);
    ``unit_level`` is ``None`` where the source's author defined the units.
    """

    name: str
    source: str
    units: Mapping[str, Tally]
    summary: SystemScores | None = None
    unit_level: str | None = "message"


class ArrayUnits(Mapping[str, Tally]):
    """Units held as arrays (a unit-tallies CSV of millions of rows), read as the mapping of unit
    to :class:`Tally`: the unit names of a file, a system's unit indices and its counts.

    >>> import numpy as np
    >>> units = ArrayUnits(["m1", "m2"], np.array([1]), np.array([[2, 2, 1, 0]]))
    >>> list(units), units["m2"].cor
    (['m2'], 1)
    """

    def __init__(self, names: Sequence[str], index: np.ndarray, counts: np.ndarray):
        self.names = names
        self.index = index
        self.counts = counts
        self._rows: dict[str, int] | None = None

    def __getitem__(self, unit: str) -> Tally:
        if self._rows is None:
            self._rows = {self.names[i]: row for row, i in enumerate(self.index.tolist())}
        pos, act, cor, par = self.counts[self._rows[unit]].tolist()
        return Tally(pos=pos, act=act, cor=cor, par=par)

    def __iter__(self) -> Iterator[str]:
        names = self.names
        return (names[i] for i in self.index.tolist())

    def __len__(self) -> int:
        return len(self.index)


UNIT_POLICIES = ("same", "intersection")
"""How systems with different unit sets are compared (``--units``)."""


def units_disagree(units: Mapping[str, Tally], total: Tally) -> str | None:
    """Why a system's units cannot be the parts of its ALL TEMPLATES ``total`` (a file cut at a
    line or edited by hand: units lost, repeated or changed), or None.

    >>> units_disagree({"m1": Tally(pos=2, act=2, cor=1), "m2": Tally(pos=1, act=1)},
    ...                Tally(pos=3, act=3, cor=1))
    >>> units_disagree({"m1": Tally(pos=2, act=2, cor=1)}, Tally(pos=3, act=3, cor=1))
    'its units sum to POS 2 ACT 2 COR 1 PAR 0, its ALL TEMPLATES row says POS 3 ACT 3 COR 1 PAR 0'
    """
    summed = Tally.total(units.values()).as_tuple()[:4]
    stated = total.as_tuple()[:4]
    if summed == stated:
        return None

    def shown(values: tuple[int, ...]) -> str:
        return " ".join(f"{f} {v}" for f, v in zip(FIELDS, values, strict=True))

    return f"its units sum to {shown(summed)}, its ALL TEMPLATES row says {shown(stated)}"


def unit_tallies(systems: Sequence[ScoredSystem], units: str = "same") -> UnitTallies:
    """The per-unit tallies of ``systems``, in their order, over a common set of units.

    ``units="same"``: the union of the systems' units, a unit a system lacks counting as
    zeros. Across files that is exact only where no other system has key fills there (POS 0:
    spurious templates only); a system whose file lacks a unit with key fills was scored on
    another test set, an :class:`InputError` naming the units. ``units="intersection"``: only
    the units every system has.

    Two systems of the same name, counts no MUC tally can have and units of different levels
    are an :class:`InputError` too.
    """
    if units not in UNIT_POLICIES:
        raise UsageError(f"{units!r}: choose from {', '.join(UNIT_POLICIES)}", parameter="units")
    seen: dict[str, str] = {}
    for system in systems:
        if system.name in seen:
            raise InputError.at(
                system.source, None, f"system {system.name!r} also comes from {seen[system.name]}"
            )
        seen[system.name] = system.source
    level = _common_level(systems)
    if units == "intersection":
        common = set.intersection(*(set(s.units) for s in systems)) if systems else set()
        if systems and not common:
            raise UsageError("'intersection': the systems share no unit, nothing to compare",
                             parameter="units")
        chosen = sorted(common)
    else:
        _check_same_units(systems, by_message=level == "fill")
        chosen = sorted({u for s in systems for u in s.units})
    position = {u: i for i, u in enumerate(chosen)}
    import numpy as np  # imported here: scoring modern files needs no NumPy

    counts = np.zeros((len(systems), len(chosen), 4), dtype=np.int64)
    for n, system in enumerate(systems):
        if isinstance(system.units, ArrayUnits):
            arrays = system.units
            where = np.array([position.get(arrays.names[i], -1) for i in arrays.index.tolist()],
                             dtype=np.int64)
            counts[n, where[where >= 0]] = arrays.counts[where >= 0]
            continue
        for unit, t in system.units.items():
            if unit in position:
                counts[n, position[unit]] = (t.pos, t.act, t.cor, t.par)
        if (why := check_counts(counts[n])) is not None:
            raise InputError.at(system.source, None, f"system {system.name!r}: {why}")
    return UnitTallies(tuple(s.name for s in systems), tuple(chosen), counts, level)


def _common_level(systems: Sequence[ScoredSystem]) -> str | None:
    known = [s for s in systems if s.unit_level is not None]
    for s in known[1:]:
        if s.unit_level != known[0].unit_level:
            raise InputError.at(
                s.source, None,
                f"system {s.name!r} has {s.unit_level} units, but {known[0].name!r} "
                f"({known[0].source}) has {known[0].unit_level} units: a test exchanges units of "
                "one kind (score both with the same --unit)")
    return known[0].unit_level if known else None


def _with_key_fills(units: Mapping[str, Tally]) -> list[str]:
    """The units with POS above 0 (from the arrays at once where the source holds them)."""
    if isinstance(units, ArrayUnits):
        return [units.names[i] for i in units.index[units.counts[:, 0] > 0].tolist()]
    return [u for u, t in units.items() if t.pos > 0]


def _check_same_units(systems: Sequence[ScoredSystem], by_message: bool = False) -> None:
    """Refuse systems scored on different test sets (see :func:`unit_tallies`).

    Fill units differ between systems by nature (each has its own spurious fills): for them
    the test set is the set of messages, the part of a unit's name before ``#``.
    """
    def name(unit: str) -> str:
        return unit.split("#", 1)[0] if by_message else unit

    keyed = {name(u) for s in systems for u in _with_key_fills(s.units)}
    # Within one file the file sets the units: a unit-tallies CSV may leave out
    # the rows of zeros (documented), so a system has every unit of its file.
    of_source: dict[str, set[str]] = {}
    for system in systems:
        of_source.setdefault(system.source, set()).update(name(u) for u in system.units)
    for system in systems:
        missing = sorted(keyed - of_source[system.source])
        if not missing:
            continue
        other = next(s for s in systems
                     if any(t.pos > 0 and name(u) == missing[0] for u, t in s.units.items()))
        shown = ", ".join(missing[:3]) + (", ..." if len(missing) > 3 else "")
        raise InputError.at(
            system.source, None,
            f"system {system.name!r} lacks {len(missing)} unit(s) where {other.name!r} "
            f"({other.source}) has key fills ({shown}): they were not scored on the same test "
            "set. --units intersection compares systems on the units they share")
