"""The immutable data model of keys, responses, configurations and histories.

Fill values follow the value grammar of the 1992 MUC-4 scorer (SCORER-SPEC §2.4.7), one class
per form, and keep what was written (case, quotes and escapes): a file is written back exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from enum import Enum
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from muceval.core.alignment import AlignmentSettings

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Text:
    """A bare token (``ATTACK``, ``16 NOV 89``) or a quoted string (``"JESUITS"``), as written."""

    raw: str

    @property
    def quoted(self) -> bool:
        return len(self.raw) >= 2 and self.raw[0] == '"' and self.raw[-1] == '"'

    @property
    def content(self) -> str:
        """The text without surrounding quotes and with ``\\"`` unescaped."""
        return self.raw[1:-1].replace('\\"', '"') if self.quoted else self.raw

    def __str__(self) -> str:
        return self.raw


@dataclass(frozen=True, slots=True)
class Alternatives:
    """Acceptable alternatives of a key fill (``"A" / "B"``), in written order."""

    options: tuple[Value, ...]


@dataclass(frozen=True, slots=True)
class OptionalValue:
    """A fill marked optional with a leading ``?``: meant for keys, read alike in a response and
    scored there as the 1992 program scores it (docs/fidelity.md)."""

    value: Value


@dataclass(frozen=True, slots=True)
class CrossRef:
    """A set fill (or number) tagged with the string fill it refers to: ``DEATH: "JESUITS"``."""

    value: Value
    tag: Value


@dataclass(frozen=True, slots=True)
class Range:
    """``LOW - HIGH``; an open end is ``None`` (``- 26 AUG 89``)."""

    low: Value
    high: Value


@dataclass(frozen=True, slots=True)
class Qualified:
    """``VALUE (QUALIFIER)``: a place with its type, or a template id with ``OPTIONAL``."""

    value: Value
    qualifier: Value


@dataclass(frozen=True, slots=True)
class Between:
    """``PLACE - PLACE`` inside a location: an incident between two places."""

    first: Value
    second: Value


@dataclass(frozen=True, slots=True)
class Location:
    """``COUNTRY: PLACE: PLACE ...``, places from least to most specific."""

    country: Value
    places: tuple[Value, ...]


@dataclass(frozen=True, slots=True)
class AllOf:
    """Several key fills credited by one judgement (history files only)."""

    members: tuple[Value, ...]


# None: a null alternative, or the open end of a range.
Value = Text | Alternatives | OptionalValue | CrossRef | Range | Qualified | Between | Location | AllOf | None


def iter_texts(value: Value) -> Iterator[Text]:
    """Every :class:`Text` inside ``value``, depth first, in written order."""
    if value is None:
        return
    if isinstance(value, Text):
        yield value
        return
    if not isinstance(value, Alternatives | OptionalValue | CrossRef | Range | Qualified
                      | Between | Location | AllOf):  # pragma: no cover - the union is closed
        raise TypeError(f"not a fill value: {value!r}")
    # Each composite declares its parts in written order; a tuple holds several values.
    for part in (getattr(value, f.name) for f in fields(value)):
        for item in part if isinstance(part, tuple) else (part,):
            yield from iter_texts(item)


class BlankMarker(str, Enum):
    """How an empty slot was written. The 1992 scorer treats all three alike."""

    NO_DATA = "-"
    NOT_APPLICABLE = "*"
    EMPTY = ""


@dataclass(frozen=True, slots=True)
class Slot:
    """One slot of one template: zero or more fills, in written order, or the ``marker`` a
    blank slot was written with (so that writing the template back gives the same text)."""

    slot_id: str
    fills: tuple[Value, ...]
    marker: BlankMarker | None = None
    line: int | None = field(default=None, compare=False)


IRRELEVANT_ID = "*"


@dataclass(frozen=True, slots=True)
class Template:
    """One answer-key or response template.

    ``message_comment`` keeps text written after the message id (``DEV-MUC3-0001 (NCCOSC)``),
    which the scorer ignores; ``slots`` holds the configuration's slots after the template id.
    """

    message_id: str
    template_id: str
    optional: bool
    slots: tuple[Slot, ...]
    message_comment: str = ""
    path: str | None = field(default=None, compare=False)
    line: int | None = field(default=None, compare=False)

    @property
    def irrelevant(self) -> bool:
        return self.template_id == IRRELEVANT_ID

    def slot(self, slot_id: str) -> Slot:
        for slot in self.slots:
            if slot.slot_id == slot_id:
                return slot
        raise KeyError(slot_id)

    def fills(self, slot_id: str) -> tuple[Value, ...]:
        return self.slot(slot_id).fills


@dataclass(frozen=True, slots=True)
class TemplateFile:
    """All templates of one key or response file, in file order."""

    path: str
    templates: tuple[Template, ...]

    def message_ids(self) -> tuple[str, ...]:
        """Message ids in order of first appearance."""
        return tuple(dict.fromkeys(t.message_id for t in self.templates))

    def by_message(self) -> dict[str, tuple[Template, ...]]:
        grouped: dict[str, list[Template]] = {}
        for template in self.templates:
            grouped.setdefault(template.message_id, []).append(template)
        return {mid: tuple(ts) for mid, ts in grouped.items()}


class SlotType(str, Enum):
    """Slot types of the 1992 scorer. ``SET`` is the 1992 ``element`` type."""

    MESSAGE_ID = "id"
    TEMPLATE_ID = "template-id"
    DATE = "date"
    LOCATION = "location"
    SET = "set"
    STRING = "string"
    NUMBER = "number"


@dataclass(frozen=True, slots=True)
class SetNode:
    """One value of a set slot; ``children`` are its more specific values."""

    value: str
    children: tuple[SetNode, ...] = ()

    def walk(self) -> Iterator[SetNode]:
        yield self
        for child in self.children:
            yield from child.walk()


@dataclass(frozen=True, slots=True)
class SlotSpec:
    """A slot definition: id (``inc-type``), line label (``4.  INCIDENT: TYPE``), type.

    ``set_values``: the set of a SET slot as trees (children are more specific values);
    ``xref``: the slots whose strings this slot's fills may be tagged with, in order.
    """

    slot_id: str
    label: str
    type: SlotType
    set_values: tuple[SetNode, ...] = ()
    xref: tuple[str, ...] = ()

    @property
    def is_set_fill(self) -> bool:
        return self.type is SlotType.SET

    @property
    def is_string_fill(self) -> bool:
        return self.type is SlotType.STRING

    @property
    def hierarchical(self) -> bool:
        return any(node.children for node in self.set_values)

    @property
    def cardinality(self) -> int:
        """Number of values in the set trees, parents included (fallout denominator)."""
        return sum(1 for root in self.set_values for _ in root.walk())

    def set_members(self) -> tuple[str, ...]:
        return tuple(node.value for root in self.set_values for node in root.walk())


@dataclass(frozen=True, slots=True)
class Restriction:
    """A mapping restriction: ``op`` is ``"and"`` or ``"or"`` over slot ids or nested restrictions."""

    op: str
    operands: tuple[str | Restriction, ...]

    def slot_ids(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(
            slot_id for operand in self.operands
            for slot_id in (operand.slot_ids() if isinstance(operand, Restriction) else (operand,))
        ))


@dataclass(frozen=True, slots=True)
class SubtotalRow:
    name: str
    slot_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TemplateSelection:
    """One entry of ``:scored-templates``: a message's scored key templates as ``(template id,
    slot ids or None for all)``; none given: every template."""

    message_id: str
    templates: tuple[tuple[str, tuple[str, ...] | None], ...] = ()


class DisplayType(str, Enum):
    """Which accumulator feeds the per-slot rows of the summary report."""

    ALL_TEMPLATES = "all-templates"
    MATCHED_MISSING = "matched-missing"
    MATCHED_SPURIOUS = "matched-spurious"
    MATCHED_ONLY = "matched-only"


@dataclass(frozen=True, slots=True)
class Configuration:
    """Everything the 1992 configuration and slot files can say.

    ``slots`` are in report order, the message-id and template-id slots first;
    ``scored_slots`` and ``scored_templates`` are ``None`` for ``:all``; ``files`` holds the
    file options as ``(option, path)`` pairs; ``source`` is where it was read from (for report
    headers), ``read_from`` every file read for it, which no output may replace;
    ``alignment`` the native format's ``[alignment]`` tables (``None``: the predefined only).
    """

    slots: tuple[SlotSpec, ...]
    restrict_map_slots: Restriction | None = None
    string_premodifiers: tuple[str, ...] = ()
    subtotal_rows: tuple[SubtotalRow, ...] = ()
    display_type: DisplayType = DisplayType.ALL_TEMPLATES
    score_irrelevant: bool = True
    disable_edit: bool = False
    query_verbose: bool = False
    report_verbose: bool = True
    scored_slots: tuple[str, ...] | None = None
    scored_templates: tuple[TemplateSelection, ...] | None = None
    message_header_regexp: str = ""
    template_header_regexp: str = r"^0.  MESSAGE: ID"
    template_tail_regexp: str = r"^[ \t]*$"
    alternative_separator: str = "/"
    files: tuple[tuple[str, str], ...] = ()
    alignment: AlignmentSettings | None = None
    source: str | None = field(default=None, compare=False)
    read_from: tuple[str, ...] = field(default=(), compare=False)

    def slot(self, slot_id: str) -> SlotSpec:
        for spec in self.slots:
            if spec.slot_id == slot_id:
                return spec
        raise KeyError(slot_id)

    @property
    def content_slots(self) -> tuple[SlotSpec, ...]:
        """The slots that carry fills (all but message id and template id)."""
        return tuple(
            s for s in self.slots if s.type not in (SlotType.MESSAGE_ID, SlotType.TEMPLATE_ID)
        )


class Judgement(str, Enum):
    MATCH = "match"
    PARTIAL = "partial"
    FAIL = "fail"
    NOMATCH = "nomatch"
    AUTO_PARTIAL = "auto-partial"


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """A recorded judgement of one response value against a slot of a key template: ``key`` is
    the key fill (``None`` for ``fail``; an :class:`AllOf` for one credited to several)."""

    response: Value
    judgement: Judgement
    key: Value = None
    has_key: bool = False
    line: int | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class HistorySlot:
    slot_id: str
    entries: tuple[HistoryEntry, ...]


@dataclass(frozen=True, slots=True)
class HistoryMapping:
    """A user's manual template mapping for one message: (key id, response id) pairs, either
    side ``None`` for an unmapped template."""

    pairs: tuple[tuple[str | None, str | None], ...]
    line: int | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class HistoryTemplate:
    template_id: str
    slots: tuple[HistorySlot, ...]


@dataclass(frozen=True, slots=True)
class HistoryMessage:
    """The judgements recorded for one message by key template, and its mapping, in file order
    (so that a history can be written back unchanged)."""

    message_id: str
    items: tuple[HistoryTemplate | HistoryMapping, ...]


@dataclass(frozen=True, slots=True)
class History:
    path: str | None
    messages: tuple[HistoryMessage, ...]

    def entries(self) -> Iterator[tuple[str, str, str, HistoryEntry]]:
        """``(message id, key template id, slot id, entry)`` for every judgement, in file order."""
        for message in self.messages:
            for item in message.items:
                if isinstance(item, HistoryTemplate):
                    for slot in item.slots:
                        for entry in slot.entries:
                            yield message.message_id, item.template_id, slot.slot_id, entry

    def mappings(self) -> dict[str, HistoryMapping]:
        return {message.message_id: item for message in self.messages
                for item in message.items if isinstance(item, HistoryMapping)}


MAP_ID = ":MAP"
"""The pseudo template id under which a 1992 history records a manual mapping."""

ManualMappings = Mapping[str, Sequence[tuple[str | None, str | None]]]
"""Per message id, the ordered (key id, response id) pairs of a manual mapping; ``None`` for no
template."""


def add_judgement(
    history: History, message_id: str, template_id: str, slot_id: str, entry: HistoryEntry
) -> History:
    """A new history with ``entry`` appended under message / key template / slot (each
    created at the end if missing).

    >>> h = add_judgement(History(None, ()), "M-1", "1", "inc-loc",
    ...                   HistoryEntry(Text("PERU"), Judgement.FAIL))
    >>> [(m, t, s) for m, t, s, _ in h.entries()]
    [('M-1', '1', 'inc-loc')]
    """
    if template_id == MAP_ID:
        raise ValueError(f"{MAP_ID!r} is not a template id")
    messages = list(history.messages)
    m = _found_or_added(messages, lambda x: x.message_id == message_id,
                        HistoryMessage(message_id, ()))
    items = list(messages[m].items)
    t = _found_or_added(items, lambda x: isinstance(x, HistoryTemplate)
                        and x.template_id == template_id, HistoryTemplate(template_id, ()))
    template = items[t]
    assert isinstance(template, HistoryTemplate)
    slots = list(template.slots)
    s = _found_or_added(slots, lambda x: x.slot_id == slot_id, HistorySlot(slot_id, ()))
    slots[s] = HistorySlot(slot_id, (*slots[s].entries, entry))
    items[t] = HistoryTemplate(template_id, tuple(slots))
    messages[m] = HistoryMessage(message_id, tuple(items))
    return History(path=history.path, messages=tuple(messages))


def _found_or_added(items: list[T], found: Callable[[T], bool], new: T) -> int:
    """The position of the first item ``found``; ``new`` is appended when there is none."""
    index = next((i for i, item in enumerate(items) if found(item)), len(items))
    if index == len(items):
        items.append(new)
    return index
