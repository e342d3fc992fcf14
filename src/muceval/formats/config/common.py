"""What the configuration readers and the writer share: the 1992 defaults and names, and the
cross-checks that need a whole configuration."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from muceval.core.model import (
    Configuration,
    DisplayType,
    SetNode,
    SlotSpec,
    SlotType,
)
from muceval.errors import InputError
from muceval.formats.files import read_text

# The 1992 defaults (manual, "Defining your template files") of options a file does not give;
# unlike those of ``Configuration``, query_verbose and nil display_type (matched/missing).
DEFAULTS = Configuration(
    slots=(),
    query_verbose=True,
    display_type=DisplayType.MATCHED_MISSING,
)

FILE_OPTIONS = ("slot-file", "key-file", "response-file", "message-file", "history-file")
FLAG_OPTIONS = {
    "disable-edit": "disable_edit",
    "query-verbose": "query_verbose",
    "report-verbose": "report_verbose",
    "score-irrelevant": "score_irrelevant",
}
_LISP_VARIABLES = {
    "*message-header-regexp*": "message_header_regexp",
    "*template-header-regexp*": "template_header_regexp",
    "*template-tail-regexp*": "template_tail_regexp",
    "*muc-alternate-separator*": "alternative_separator",
}
# Types the 1992 manual lists that the scorer of muceval does not implement
# (the MUC-4 configuration does not use them).
_UNSUPPORTED_TYPES = ("boolean", "qualified-string")
_LISP_TYPES = {
    "id": SlotType.MESSAGE_ID,
    "template-id": SlotType.TEMPLATE_ID,
    "date": SlotType.DATE,
    "location": SlotType.LOCATION,
    "element": SlotType.SET,
    "string": SlotType.STRING,
    "number": SlotType.NUMBER,
}
_DISPLAY_ALIASES = {
    # The manual spells this one with an underscore.
    "all_templates": DisplayType.ALL_TEMPLATES,
}
# Where a reader found what the cross-checks may blame: check name -> (file, line).
_Where = dict[str, tuple[str, int | None]]


def _read_text(path: Path) -> str:
    return read_text(path, utf8_only=True)


def _check_references(
    config: Configuration, where: _Where, default: tuple[str, int | None]
) -> None:
    """Cross-checks that need the whole configuration: every slot reference must exist;
    ``where`` gives the (file, line) to blame for each check."""

    def fail(key: str, message: str, slot_id: str | None = None) -> None:
        # A reader may record where each slot id was written ("check:slot").
        path, line = where.get(f"{key}:{slot_id}") or where.get(key, default)
        raise InputError.at(path, line, message)

    problem = _slot_layout_problem(config.slots)
    if problem is not None:
        fail("slots", problem)
    known = {spec.slot_id for spec in config.slots}
    for slot_id, key, message, blamed in _slot_references(config):
        if slot_id not in known:
            fail(key, message, blamed)


def _slot_layout_problem(slots: tuple[SlotSpec, ...]) -> str | None:
    """What is wrong with the identifying slots (one of each kind, first), if anything."""
    if not slots:
        return "no slots are defined"
    for type_ in (SlotType.MESSAGE_ID, SlotType.TEMPLATE_ID):
        count = sum(1 for s in slots if s.type is type_)
        if count != 1:
            return f"exactly one slot of type '{type_.value}' is needed, found {count}"
    # One of each: there are two slots at least.
    if (slots[0].type, slots[1].type) != (SlotType.MESSAGE_ID, SlotType.TEMPLATE_ID):
        return "the first two slots must be the message id and the template id slots"
    return None


def _slot_references(config: Configuration) -> Iterator[tuple[str, str, str, str | None]]:
    """Every slot id named outside the slot definitions, in the order they are checked, as
    (slot id, check name, message if unknown, slot id to look up in ``where``)."""
    for spec in config.slots:
        for target in spec.xref:
            yield (target, f"xref:{spec.slot_id}",
                   f"slot '{spec.slot_id}': xref names unknown slot '{target}'", None)
    if config.restrict_map_slots is not None:
        for slot_id in config.restrict_map_slots.slot_ids():
            yield (slot_id, "restrict-map-slots",
                   f"restrict-map-slots names unknown slot '{slot_id}'", slot_id)
    for row in config.subtotal_rows:
        for slot_id in row.slot_ids:
            yield (slot_id, f"subtotal:{row.name}",
                   f"subtotal row '{row.name}' names unknown slot '{slot_id}'", slot_id)
    for slot_id in config.scored_slots or ():
        yield slot_id, "scored-slots", f"scored-slots names unknown slot '{slot_id}'", slot_id
    for selection in config.scored_templates or ():
        for _, slot_ids in selection.templates:
            for slot_id in slot_ids or ():
                yield (slot_id, "scored-templates",
                       f"scored-templates ({selection.message_id}) names unknown slot "
                       f"'{slot_id}'", slot_id)


def _check_set_tree(roots: Iterable[SetNode]) -> str | None:
    """The first value that occurs twice in a set tree, if any."""
    seen: set[str] = set()
    for root in roots:
        for node in root.walk():
            if node.value in seen:
                return node.value
            seen.add(node.value)
    return None
