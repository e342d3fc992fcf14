"""The units of the significance tests, made from scored pairs.

``message`` (the MUC-4 stratification): a message's ALL TEMPLATES tally.
``template``: each key template with the response template mapped to it (or none),
and each response template mapped to no key template, on its own. A unit's
tally is what the pair adds to the ALL TEMPLATES accumulator, so a system's
units sum to its ALL TEMPLATES total at either level. Units are named
``MESSAGE`` or ``MESSAGE#key:ID`` / ``MESSAGE#response:ID``, so that the same
key template is the same unit in every system.
"""

from __future__ import annotations

from collections.abc import Sequence

from muceval.core.model import Configuration
from muceval.core.tallies import PairScore, Tally, summarize

__all__ = ["UNIT_LEVELS", "units_of"]

UNIT_LEVELS = ("message", "template")


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
        raise ValueError(f"unknown unit {unit!r}; choose from {', '.join(UNIT_LEVELS)}")
    if unit == "message":
        return {m.message_id: m.accumulators.all_templates.total
                for m in summarize(pairs, config).messages}
    out: dict[str, Tally] = {}
    for pair in pairs:
        side = f"key:{pair.key_id}" if pair.key_id is not None else f"response:{pair.response_id}"
        name = base = f"{pair.message_id}#{side}"
        n = 1
        while name in out:  # irrelevant key templates may share the id "*"
            n += 1
            name = f"{base}#{n}"
        out[name] = summarize([pair], config).all_templates.total
    return out
