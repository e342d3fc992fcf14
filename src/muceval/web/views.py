"""What the adjudication pages show (no HTML here: the templates escape every value)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from muceval.core.model import (
    Configuration,
    Slot,
    SlotSpec,
    SlotType,
    Template,
    Value,
    iter_texts,
)
from muceval.core.systems import SystemScores
from muceval.core.tallies import Tally
from muceval.formats.muc.fills import format_value
from muceval.reporting.html import format_pct
from muceval.scoring.adjudication import Adjudication, Question

__all__ = ["fill_text", "highlight", "question_view", "score_changes", "scores_view",
           "template_rows"]

_TYPE_NAMES = {"string": "string fill", "set": "set fill"}


def fill_text(value: Value | None, config: Configuration, slot_id: str) -> str:
    if value is None:
        return "-"
    return format_value(value, config.slot(slot_id).type)


def _strings(value: Value, slot_type: SlotType) -> list[str]:
    """The strings of a fill that may occur in the message text."""
    out = []
    for text in iter_texts(value):
        if text.quoted:
            out.append(text.content)
        elif slot_type in (SlotType.DATE, SlotType.LOCATION):
            bare = re.sub(r"\s*\([A-Z ]+\)$", "", text.raw.strip())
            if len(bare) > 2:
                out.append(bare)
    return out


@dataclass(frozen=True)
class Segment:
    text: str
    kind: str  # "", "key", "response" or "both"


def highlight(text: str, key: Sequence[str], response: Sequence[str]) -> list[Segment]:
    """``text`` cut into segments, marked where a key or a response string occurs (case and
    line breaks ignored: the texts wrap lines)."""
    marks = [""] * len(text)
    for kind, strings in (("key", key), ("response", response)):
        for s in strings:
            words = [re.escape(w) for w in s.split()]
            if not words:
                continue
            for m in re.finditer(r"\s+".join(words), text, re.IGNORECASE):
                for i in range(m.start(), m.end()):
                    marks[i] = kind if marks[i] in ("", kind) else "both"
    segments: list[Segment] = []
    start = 0
    for i in range(1, len(text) + 1):
        if i == len(text) or marks[i] != marks[start]:
            segments.append(Segment(text[start:i], marks[start]))
            start = i
    return segments


def template_rows(config: Configuration, key: Template | None, response: Template | None,
                  slot_id: str | None = None) -> list[dict[str, Any]]:
    """Slot by slot, the key's and the response's fills as written in a template file."""
    key_slots = {s.slot_id: s for s in key.slots} if key else {}
    response_slots = {s.slot_id: s for s in response.slots} if response else {}
    return [{"slot": spec.slot_id, "label": spec.label, "key": _fills(key_slots, spec),
             "response": _fills(response_slots, spec), "current": spec.slot_id == slot_id}
            for spec in config.slots[2:]]


def _fills(slots: Mapping[str, Slot], spec: SlotSpec) -> list[str]:
    slot = slots.get(spec.slot_id)
    if slot is None:
        return []
    if not slot.fills:
        return [slot.marker.value if slot.marker is not None and slot.marker.value else "-"]
    return [format_value(f, spec.type) for f in slot.fills]


def _systems(totals: Mapping[str, Tally], names: Sequence[str]) -> list[SystemScores]:
    # From the ALL TEMPLATES totals the session keeps up to date: summarising every pair
    # of 17 systems again took a second per page.
    return [SystemScores.of_tally(name, name, "scored", totals[name]) for name in names
            if name in totals]


def scores_view(session: Adjudication) -> list[dict[str, Any]]:
    """ALL TEMPLATES of every system as it stands (the 1992 summary's row)."""
    return [{"system": s.name, "recall": format_pct(s.all_templates.recall),
             "precision": format_pct(s.all_templates.precision),
             "f1": format_pct(s.all_templates.f_pr),
             "f_1992": "-" if s.f_1992 is None else f"{s.f_1992[0]:.2f}",
             "open": session.open_per_system.get(s.name, 0),
             "manual": sorted(session.manual.get(s.name, {}))}
            for s in _systems(session.totals, session.names)]


_METRICS = (("recall", "REC"), ("precision", "PRE"), ("f1", "F (P&R)"))


def _difference(start: float | None, now: float | None) -> str:
    if start is None or now is None:
        return "n/a"
    points = 100 * (now - start)
    # A change below the shown precision reads as none, not as "+0.00" or "-0.00".
    return "0.00" if abs(points) < 0.005 else f"{points:+.2f}"


def score_changes(session: Adjudication) -> list[dict[str, Any]]:
    """Per system, ALL TEMPLATES when the session started and as it stands."""
    before = {s.name: s.all_templates for s in _systems(session.initial_totals, session.names)}
    out = []
    for s in _systems(session.totals, session.names):
        old = before.get(s.name)
        values = [(name, label, None if old is None else old.value(name),
                   s.all_templates.value(name)) for name, label in _METRICS]
        out.append({"system": s.name, "metrics": [
            {"name": name, "label": label, "start": format_pct(start), "now": format_pct(now),
             "change": _difference(start, now)} for name, label, start, now in values]})
    return out


def question_view(session: Adjudication, question: Question,
                  texts: Mapping[str, str] | None) -> dict[str, Any]:
    config = session.config
    system, response_tid = question.systems[0]
    keys, responses = session.templates(system, question.message_id)
    key = next((t for t in keys if t.template_id == question.key_template_id), None)
    response = next((t for t in responses if t.template_id == response_tid), None)
    spec = config.slot(question.slot_id)
    key_strings = [s for v in question.offered for s in _strings(v, spec.type)]
    response_strings = _strings(question.response, spec.type)
    text = (texts or {}).get(question.message_id)
    return {
        "question": question,
        "system": system,
        "others": [s for s, _ in question.systems[1:]],
        "response_template": response_tid,
        "response_fill": fill_text(question.response, config, question.slot_id),
        "offered": [fill_text(v, config, question.slot_id) for v in question.offered],
        "category": f"{spec.label.strip()} ({_TYPE_NAMES.get(spec.type.value, spec.type.value)})",
        "segments": highlight(text, key_strings, response_strings) if text else None,
        "have_texts": texts is not None,
        "rows": template_rows(config, key, response, question.slot_id),
        "manual": session.is_manual(system, question.message_id),
    }
