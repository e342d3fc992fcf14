"""What 1992 slot scoring knows of a slot (:class:`SlotRules`) and what it can report of
the credit it gives (:data:`Trace`, :data:`Ledger`), for
:class:`~muceval.scoring.muc1992.slots.SlotScorer`."""

from __future__ import annotations

from dataclasses import dataclass

from muceval.core.model import SlotSpec, SlotType
from muceval.scoring.muc1992.equality import CValue

__all__ = ["Ledger", "SlotRules", "Trace", "slot_rules"]


@dataclass(frozen=True, slots=True)
class SlotRules:
    """What slot scoring needs to know about one slot of the configuration."""

    slot_id: str
    is_set: bool
    is_string: bool
    is_location: bool
    hierarchical: bool
    cardinality: int
    xref: tuple[str, ...]


def slot_rules(spec: SlotSpec) -> SlotRules:
    """The :class:`SlotRules` of a slot specification."""
    return SlotRules(
        slot_id=spec.slot_id,
        is_set=spec.type is SlotType.SET,
        is_string=spec.type is SlotType.STRING,
        is_location=spec.type is SlotType.LOCATION,
        hierarchical=spec.type is SlotType.SET and spec.hierarchical,
        cardinality=spec.cardinality if spec.type is SlotType.SET else 0,
        xref=spec.xref,
    )


Trace = list[tuple[str, str, CValue, CValue]]
"""What a traced slot call credited: (how, credit, key fill, response fill).

``how``: ``equal`` (§3), ``history``, ``general`` (a set-hierarchy ancestor), ``country``,
``xref`` (§6.5), ``set-fill`` (§6.6), ``words`` (the restriction's word overlap; the key fill
is then the tuple of the key fills left). ``credit``: ``full`` or ``partial``.
"""


Ledger = list[tuple[CValue, CValue, int, int, int, int]]
"""What a slot call credited fill by fill: (key fill, response fill, POS, ACT, COR, PAR).

One entry per key fill the slot counted (with the response fill credited against it, or
``None``), and one per response fill no key fill took (key fill ``None``); they sum to the
slot's POS, ACT, COR and PAR. Where 1992 counted leftovers by number (§6.2 step E), the
leftover key fills, required ones first, take the leftover response fills in order as
incorrect, the remaining required ones are missing, the remaining response fills spurious.
"""
