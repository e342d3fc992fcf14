"""The units of the significance tests, made from scored pairs: a ``message``, a ``template``
(a key template with the response template mapped to it, or an unmapped response template), or
a ``fill`` (a key fill with the response fill credited against it, or a spurious fill); see
docs/significance-units.md. A unit's tally is what it adds to the ALL TEMPLATES total.
"""

from __future__ import annotations

from collections.abc import Sequence

from muceval.core.model import Configuration, DisplayType
from muceval.core.tallies import ZERO, PairScore, Tally, TemplateStatus, manners_of, summarize
from muceval.errors import UsageError

__all__ = ["UNIT_LEVELS", "units_of"]

UNIT_LEVELS = ("message", "template", "fill")


def units_of(pairs: Sequence[PairScore], config: Configuration, unit: str = "message") -> dict[str, Tally]:
    """Unit name → ALL TEMPLATES tally of one system's scored pairs.

    >>> from muceval.core.model import SlotSpec, SlotType
    >>> from muceval.core.tallies import TemplateStatus
    >>> cfg = Configuration(slots=(SlotSpec("message-id", "0.", SlotType.MESSAGE_ID),
    ...     SlotSpec("template-id", "1.", SlotType.TEMPLATE_ID), SlotSpec("s", "2.", SlotType.STRING)))
    >>> hit = PairScore("M", "1", "1", TemplateStatus.MATCHED, Tally(1, 1, 1), (("s", Tally(1, 1, 1)),))
    >>> junk = PairScore("M", None, "2", TemplateStatus.SPURIOUS, Tally(act=1, spu=1),
    ...     (("s", Tally(act=1, spu=1)),))
    >>> {u: (t.pos, t.act, t.cor) for u, t in units_of([hit, junk], cfg, "template").items()}
    {'M#key:1': (1, 1, 1), 'M#response:2': (0, 1, 0)}
    """
    if unit not in UNIT_LEVELS:
        raise UsageError(f"unknown unit {unit!r}; choose from {', '.join(UNIT_LEVELS)}",
                         parameter="unit")
    if unit == "message":
        return dict(summarize(pairs, config).message_totals)
    if unit == "fill":
        return _fill_units(pairs, config)
    out: dict[str, Tally] = {}
    for pair in pairs:
        # Named by the key template where there is one: the same unit in every system.
        side = f"key:{pair.key_id}" if pair.key_id is not None else f"response:{pair.response_id}"
        name = base = f"{pair.message_id}#{side}"
        n = 1
        while name in out:  # irrelevant key templates may share the id "*"
            n += 1
            name = f"{base}#{n}"
        out[name] = summarize([pair], config).all_templates.total
    return out


def _fill_units(pairs: Sequence[PairScore], config: Configuration) -> dict[str, Tally]:
    out: dict[str, Tally] = {}
    for pair in pairs:
        out.setdefault(pair.message_id, ZERO)  # so that every system has every message
        if DisplayType.ALL_TEMPLATES not in manners_of(pair.status):
            continue
        where = (f"{pair.message_id}#spurious" if pair.status is TemplateStatus.SPURIOUS
                 else f"{pair.message_id}#key:{pair.key_id}")
        for f in pair.fills:
            # Fills in the scorer's normal form: a response both systems produced with the same
            # credit is the same unit, which exchanging changes nothing; equal names add up.
            name = (f"{where}#{f.slot_id}#{f.key}" if f.key is not None
                    else f"{where}#{f.slot_id}#+{f.response}")
            out[name] = out.get(name, ZERO) + Tally(f.pos, f.act, f.cor, f.par)
    expected = summarize(pairs, config).all_templates.total
    got = Tally.total(out.values())
    if got.as_tuple()[:4] != expected.as_tuple()[:4]:
        raise ValueError(
            "these pairs were scored without the credit of every fill (ScoringOptions(fills=True)): "
            f"the fill units sum to {got.as_tuple()[:4]}, ALL TEMPLATES is {expected.as_tuple()[:4]}")
    return out
