"""Slot tallies: the eleven counts the 1992 scorer keeps for every scored slot.

A :class:`Tally` is a small immutable vector; adding tallies is how rows,
template totals, subtotals and the four summary accumulators are formed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from enum import Enum

TALLY_FIELDS: tuple[str, ...] = (
    "pos",
    "act",
    "cor",
    "par",
    "inc",
    "icr",
    "ipa",
    "spu",
    "mis",
    "non",
    "pie",
)


@dataclass(frozen=True, slots=True)
class Tally:
    """Counts of one slot (or a sum of slots), in the 1992 column order.

    ``pie`` ("possible incorrect elements") is the fallout denominator; the
    1992 report never prints it.

    >>> Tally(pos=1, act=1, cor=1) + Tally(pos=1, mis=1)
    Tally(pos=2, act=1, cor=1, par=0, inc=0, icr=0, ipa=0, spu=0, mis=1, non=0, pie=0)
    """

    pos: int = 0
    act: int = 0
    cor: int = 0
    par: int = 0
    inc: int = 0
    icr: int = 0
    ipa: int = 0
    spu: int = 0
    mis: int = 0
    non: int = 0
    pie: int = 0

    def __add__(self, other: Tally) -> Tally:
        if not isinstance(other, Tally):
            return NotImplemented
        return Tally(*(a + b for a, b in zip(self.as_tuple(), other.as_tuple(), strict=True)))

    def as_tuple(self) -> tuple[int, ...]:
        return tuple(getattr(self, f.name) for f in fields(self))

    def as_dict(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in TALLY_FIELDS}

    @classmethod
    def total(cls, tallies: Iterable[Tally]) -> Tally:
        out = ZERO
        for tally in tallies:
            out = out + tally
        return out


ZERO = Tally()


class TemplateStatus(str, Enum):
    """How a catalog entry (key/response pair) was treated (SCORER-SPEC §8.1)."""

    MATCHED = "matched"
    MISSING = "missing"
    SPURIOUS = "spurious"
    OPTIONAL = "optional"
    IRRELEVANT = "irrelevant"
    IGNORED = "ignored"


@dataclass(frozen=True, slots=True)
class PairScore:
    """The tallies of one key/response pairing: one section of the 1992 report.

    ``key_id`` / ``response_id`` are ``None`` where the report prints
    ``<NONE>``. ``template_id`` is the template-id row. ``slots`` holds the
    content slots in configuration order with their tallies; it is empty for
    entries that are not scored slot by slot (irrelevant, optional without any
    response template, ignored). ``scored`` tells whether the section shows
    all slot rows.
    """

    message_id: str
    key_id: str | None
    response_id: str | None
    status: TemplateStatus
    template_id: Tally
    slots: tuple[tuple[str, Tally], ...] = ()

    @property
    def scored(self) -> bool:
        return bool(self.slots)

    def slot(self, slot_id: str) -> Tally:
        for name, tally in self.slots:
            if name == slot_id:
                return tally
        raise KeyError(slot_id)

    def total(self) -> Tally:
        """Sum over the content slots (the template-id row never enters totals)."""
        return Tally.total(t for _, t in self.slots)
