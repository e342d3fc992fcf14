"""Consistency checks no single file reader can make: a history is read without the
configuration, and the scorer would skip the judgements of a mistyped slot id without a word."""

from __future__ import annotations

import difflib

from muceval.core.model import Configuration, History, HistoryTemplate
from muceval.errors import Problem

__all__ = ["unknown_history_slots"]


def unknown_history_slots(history: History, config: Configuration) -> tuple[Problem, ...]:
    """One warning for each block of judgements whose slot the configuration does not know.

    >>> from muceval.core.model import HistoryEntry, HistoryMessage, HistorySlot, Judgement
    >>> from muceval.core.model import SlotSpec, SlotType, Text
    >>> config = Configuration(slots=(SlotSpec("hum-tgt-name", "18. HUM TGT: NAME",
    ...                                         SlotType.STRING),))
    >>> entry = HistoryEntry(Text('"X"'), Judgement.FAIL, line=7)
    >>> slot = HistorySlot("hum-tgt-nmae", (entry,))
    >>> history = History("h.lisp", (HistoryMessage("M1", (HistoryTemplate("1", (slot,)),)),))
    >>> [str(p) for p in unknown_history_slots(history, config)]
    ["h.lisp:7: judgements for unknown slot 'hum-tgt-nmae' (message M1, key template 1): \
1 judgement(s) not used (did you mean 'hum-tgt-name'?)"]
    """
    known = [spec.slot_id for spec in config.slots]
    known_set = set(known)
    problems = []
    for message in history.messages:
        for item in message.items:
            if not isinstance(item, HistoryTemplate):
                continue
            for slot in item.slots:
                if slot.slot_id in known_set:
                    continue
                line = next((e.line for e in slot.entries if e.line is not None), None)
                close = difflib.get_close_matches(slot.slot_id, known, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                problems.append(Problem(
                    history.path or "<history>", line,
                    f"judgements for unknown slot {slot.slot_id!r} (message {message.message_id}, "
                    f"key template {item.template_id}): {len(slot.entries)} judgement(s) not "
                    f"used{hint}"))
    return tuple(problems)
