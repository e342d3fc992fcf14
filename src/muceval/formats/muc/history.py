"""History files (SCORER-SPEC §12.1): the human judgements the 1992 scorer recorded and
reused, written back in its syntax and layout so that the 1992 program can read them again.

>>> h = parse_history('(("M-1" ("1" (inc-type ("ATTACK" partial "BOMBING")))))', "h")
>>> [(m, t, s, e.judgement.value) for m, t, s, e in h.entries()]
[('M-1', '1', 'inc-type', 'partial')]
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from muceval.core.model import (
    MAP_ID,
    AllOf,
    Alternatives,
    Between,
    CrossRef,
    History,
    HistoryEntry,
    HistoryMapping,
    HistoryMessage,
    HistorySlot,
    HistoryTemplate,
    Judgement,
    Location,
    OptionalValue,
    Qualified,
    Range,
    Text,
    Value,
    add_judgement,
)
from muceval.errors import InputError
from muceval.formats import sexpr
from muceval.formats.files import read_text, write_atomic
from muceval.formats.sexpr import SExpr, SList, String, Symbol, error_at, list_items

__all__ = [
    "MAP_ID",
    "HistoryEditor",
    "format_value",
    "parse_history",
    "read_history",
    "save_history",
    "write_history",
]

# The 1992 pretty-printer puts a judgement on one line if it ends within this many columns, else
# one element a line (measured on the TST3/TST4 histories, which it reproduces byte for byte).
_LINE_WIDTH = 75

_JUDGEMENTS = {j.value: j for j in Judgement}
# value operator -> (minimum, maximum) number of operands, and the value they make
_OPERATORS: dict[str, tuple[int, int | None, Callable[[list[Value]], Value]]] = {
    "or": (1, None, lambda args: Alternatives(tuple(args))),
    "xref": (2, 2, lambda args: CrossRef(*args)),
    "range": (2, 2, lambda args: Range(*args)),
    "location": (1, None, lambda args: Location(args[0], tuple(args[1:]))),
    "qualified": (2, 2, lambda args: Qualified(*args)),
    "between": (2, 2, lambda args: Between(*args)),
    "optional": (1, 1, lambda args: OptionalValue(*args)),
    "all-of": (1, None, lambda args: AllOf(tuple(args))),
}


def read_history(path: str | Path) -> History:
    """Read a 1992 history file: the human judgements that earlier scoring runs recorded.

    When no rule decides whether a response fill matches a key fill (string fills, mostly),
    the 1992 scorer asked its operator and stored the answer for later runs.

    Returns
    -------
    muceval.core.model.History
        ``entries()`` yields ``(message id, key template id, slot id, entry)`` for each
        judgement, in file order.

    Raises
    ------
    InputError
        If the file cannot be read or is not a well-formed history (file, line and column).

    Examples
    --------
    >>> import muceval
    >>> from importlib.resources import files
    >>> history = muceval.read_history(files("muceval") / "data" / "example" / "history.lisp")
    >>> message, template, slot, entry = next(history.entries())
    >>> message, template, slot, entry.response, entry.judgement.value
    ('DEMO-0001', '1', 'perp-ind-id', Text(raw='"MOTORCYCLE"'), 'fail')
    >>> read_history("/nonexistent/history")
    Traceback (most recent call last):
    muceval.errors.InputError: /nonexistent/history: cannot read file: No such file or directory
    """
    return parse_history(read_text(path), str(path))


def parse_history(text: str, path: str = "<string>") -> History:
    """Parse the text of a history file; ``path`` is used in error messages.

    >>> parse_history("nil", "h").messages
    ()
    """
    try:
        top = sexpr.parse_one(text, path)
    except InputError as error:
        from muceval.formats.registry import wrong_kind  # the registry knows every kind

        raise wrong_kind(text, path, "a history", {"history"}) or error from None
    if sexpr.is_nil(top):
        return History(path=path, messages=())
    items = list_items(top, path, "expected the history (a list of messages)")
    return History(path=path, messages=tuple(_read_message(node, path) for node in items))


def _read_message(node: SExpr, path: str) -> HistoryMessage:
    items = list_items(node, path, 'expected a message ("MESSAGE-ID" template…)')
    if not items or not isinstance(items[0], String):
        raise error_at(path, node, 'a message must start with its id as a string ("MESSAGE-ID" …)')
    out: list[HistoryTemplate | HistoryMapping] = []
    for child in items[1:]:
        parts = list_items(child, path, 'expected a template ("ID" slot…) or (":MAP" pair…)')
        if not parts or not isinstance(parts[0], String):
            raise error_at(path, child, 'a template must start with its id as a string ("1" slot…)')
        if parts[0].value == MAP_ID:
            out.append(_read_mapping(child, parts[1:], path))
        else:
            slots = tuple(_read_slot(slot, path) for slot in parts[1:])
            out.append(HistoryTemplate(parts[0].value, slots))
    return HistoryMessage(items[0].value, tuple(out))


def _map_side(node: SExpr, path: str) -> str | None:
    if sexpr.is_nil(node):
        return None
    if isinstance(node, String):
        return node.value
    raise error_at(
        path, node, f"a :MAP side must be a template id string or nil, found {sexpr.describe(node)}"
    )


def _read_mapping(node: SExpr, pairs: tuple[SExpr, ...], path: str) -> HistoryMapping:
    out: list[tuple[str | None, str | None]] = []
    for pair in pairs:
        if not isinstance(pair, SList) or sexpr.is_nil(pair):
            raise error_at(
                path, pair, f"expected a (KEY-ID . RESPONSE-ID) pair, found {sexpr.describe(pair)}"
            )
        if len(pair.items) != 1:
            raise error_at(path, pair, "expected a (KEY-ID . RESPONSE-ID) pair")
        # (a . nil) is the list (a): the Lisp printer writes it that way.
        key = _map_side(pair.items[0], path)
        out.append((key, None if pair.tail is None else _map_side(pair.tail, path)))
    return HistoryMapping(tuple(out), line=node.line or None)


def _read_slot(node: SExpr, path: str) -> HistorySlot:
    items = list_items(node, path, "expected a slot (slot-id entry…)")
    if not items or not isinstance(items[0], Symbol) or items[0].name in ("nil", "t"):
        raise error_at(path, node,
                       "a slot must start with its slot id as a symbol (inc-type entry…)")
    return HistorySlot(items[0].name, tuple(_read_entry(entry, path) for entry in items[1:]))


def _read_entry(node: SExpr, path: str) -> HistoryEntry:
    items = list_items(node, path, "expected a judgement (RESPONSE-VALUE judgement [KEY-VALUE])")
    if len(items) not in (2, 3):
        raise error_at(
            path,
            node,
            f"a judgement has 2 or 3 elements (RESPONSE-VALUE judgement [KEY-VALUE]), found {len(items)}",
        )
    mark = items[1]
    if not isinstance(mark, Symbol) or mark.name not in _JUDGEMENTS:
        raise error_at(
            path,
            mark,
            f"unknown judgement {sexpr.describe(mark)} (expected one of {', '.join(_JUDGEMENTS)})",
        )
    has_key = len(items) == 3
    return HistoryEntry(response=_read_value(items[0], path), judgement=_JUDGEMENTS[mark.name],
                        key=_read_value(items[2], path) if has_key else None, has_key=has_key,
                        line=node.line or None)


def _read_value(node: SExpr, path: str) -> Value:
    if isinstance(node, String):
        return Text(node.value)
    if sexpr.is_nil(node):
        return None
    if (
        not isinstance(node, SList)
        or node.tail is not None
        or not isinstance(node.items[0], Symbol)
    ):
        raise error_at(
            path,
            node,
            f"expected a fill value (a string, nil or (or …), (xref …), …), found {sexpr.describe(node)}",
        )
    op = node.items[0].name
    if op not in _OPERATORS:
        raise error_at(
            path,
            node.items[0],
            f"unknown value operator '{op}' (expected one of {', '.join(_OPERATORS)})",
        )
    low, high, build = _OPERATORS[op]
    args = [_read_value(arg, path) for arg in node.items[1:]]
    if len(args) < low or (high is not None and len(args) > high):
        wanted = f"{low}" if low == high else f"at least {low}"
        raise error_at(path, node, f"({op} …) takes {wanted} value(s), found {len(args)}")
    return build(args)


def format_value(value: Value) -> str:
    """A fill value in history syntax, on one line.

    >>> format_value(CrossRef(Text("OTHER"), Alternatives((Text('"A"'), Text('"B"')))))
    '(xref "OTHER" (or "\\\\"A\\\\"" "\\\\"B\\\\""))'
    """
    if value is None:
        return "nil"
    if isinstance(value, Text):
        return sexpr.quote_string(value.raw)
    if isinstance(value, Alternatives):
        return _form("or", value.options)
    if isinstance(value, CrossRef):
        return _form("xref", (value.value, value.tag))
    if isinstance(value, Range):
        return _form("range", (value.low, value.high))
    if isinstance(value, Location):
        return _form("location", (value.country, *value.places))
    if isinstance(value, Qualified):
        return _form("qualified", (value.value, value.qualifier))
    if isinstance(value, Between):
        return _form("between", (value.first, value.second))
    if isinstance(value, OptionalValue):
        return _form("optional", (value.value,))
    if isinstance(value, AllOf):
        return _form("all-of", value.members)
    raise TypeError(f"not a fill value: {value!r}")


def _form(op: str, args: tuple[Value, ...]) -> str:
    if not args:
        raise ValueError(f"({op}) needs at least one value")
    return "(" + op + " " + " ".join(format_value(arg) for arg in args) + ")"


def _map_side_text(side: str | None) -> str:
    return "nil" if side is None else sexpr.quote_string(side)


def write_history(history: History) -> str:
    """The history in the 1992 file syntax and layout (no trailing newline, like the original).

    >>> h = parse_history('(("M-1" ("1" (inc-type ("ATTACK" partial "BOMBING")))))', "h")
    >>> print(write_history(h))
    (("M-1"
      ("1"
       (inc-type
        ("ATTACK" partial "BOMBING")))))
    """
    if not history.messages:
        return "nil"
    # A message after the first starts one column in, under the first one's parenthesis.
    return "(" + "\n ".join("\n".join(_message_lines(m)) for m in history.messages) + ")"


def _closed(first: str, children: Iterable[list[str]]) -> list[str]:
    """``first`` and the children's lines, with the list's closing parenthesis."""
    lines = [first, *itertools.chain.from_iterable(children)]
    lines[-1] += ")"
    return lines


def _message_lines(message: HistoryMessage) -> list[str]:
    return _closed("(" + sexpr.quote_string(message.message_id),
                   (_template_lines(item) if isinstance(item, HistoryTemplate)
                    else [_mapping_line(item)] for item in message.items))


def _mapping_line(mapping: HistoryMapping) -> str:
    pairs = ["(" + _map_side_text(key) + ")" if response is None
             else f"({_map_side_text(key)} . {_map_side_text(response)})"
             for key, response in mapping.pairs]
    return "  (" + " ".join([sexpr.quote_string(MAP_ID), *pairs]) + ")"


def _template_lines(template: HistoryTemplate) -> list[str]:
    if template.template_id == MAP_ID:
        raise ValueError(f"{MAP_ID!r} cannot be used as a template id")
    return _closed("  (" + sexpr.quote_string(template.template_id),
                   map(_slot_lines, template.slots))


def _slot_lines(slot: HistorySlot) -> list[str]:
    if not slot.slot_id or slot.slot_id in ("nil", "t"):
        raise ValueError(f"invalid slot id {slot.slot_id!r}")
    return _closed("   (" + sexpr.format_symbol(slot.slot_id), map(_entry_lines, slot.entries))


def _entry_lines(entry: HistoryEntry) -> list[str]:
    """A judgement at column 4: on one line if it fits, else one element a line."""
    parts = [format_value(entry.response), entry.judgement.value]
    if entry.has_key or entry.key is not None:
        parts.append(format_value(entry.key))
    flat = "(" + " ".join(parts) + ")"
    if 4 + len(flat) <= _LINE_WIDTH:
        return ["    " + flat]
    pad = " " * 5
    return ["    (" + parts[0], *(pad + part for part in parts[1:-1]), pad + parts[-1] + ")"]


def insert_entries(
    text: str, added: Sequence[tuple[str, str, str, HistoryEntry]], path: str = "<string>"
) -> str:
    """``text`` (a history file) with the ``added`` judgements in it, the rest byte for byte:
    each where :func:`~muceval.core.model.add_judgement` puts it, as :func:`write_history`
    writes it.

    >>> text = ';; checked by hand\\n(("M-1" ("1" (inc-type ("ATTACK" fail)))))'
    >>> print(insert_entries(text, [("M-1", "1", "inc-type", HistoryEntry(Text("X"), Judgement.FAIL))]))
    ;; checked by hand
    (("M-1" ("1" (inc-type ("ATTACK" fail)
        ("X" fail)))))
    """
    if not added:
        return text
    editor = HistoryEditor(text, path)
    for message_id, template_id, slot_id, entry in added:
        editor.add(message_id, template_id, slot_id, entry)
    return editor.text()


# Where a judgement's block goes in the user's text: at the end of the whole history (a new
# message), of a message (a new template), of a template (a new slot) or of its slot.
_MESSAGE, _TEMPLATE, _SLOT, _ENTRIES = range(4)


class _Block(NamedTuple):
    """The judgements inserted at one point of the user's text for one message, template or
    slot: ``tree`` holds them as a one-message history would, ``text`` as inserted."""

    offset: int
    level: int
    tree: HistoryMessage
    text: str


class HistoryEditor:
    """A history file's ``text`` with judgements added (and taken back, last first) one at a
    time: :meth:`text` is ``insert_entries(text, added)``, but an answer costs what it adds, not
    a new reading of the whole file.

    >>> editor = HistoryEditor('(("M-1" ("1" (inc-type ("ATTACK" fail)))))')
    >>> editor.add("M-1", "1", "inc-type", HistoryEntry(Text("X"), Judgement.FAIL))
    >>> editor.add("M-2", "1", "inc-type", HistoryEntry(Text("Y"), Judgement.MATCH))
    >>> _ = editor.pop()
    >>> print(editor.text())
    (("M-1" ("1" (inc-type ("ATTACK" fail)
        ("X" fail)))))
    """

    def __init__(self, text: str, path: str = "<string>") -> None:
        self.base = text
        self.added: list[tuple[str, str, str, HistoryEntry]] = []
        top = sexpr.parse_one(text, path)
        self._nl = "\r\n" if "\r\n" in text else "\n"
        # The history is the symbol nil: the first judgement writes a whole list over it.
        self._nil_at = None if isinstance(top, SList) else _offset(text, top.line, top.column)
        self._top_end = top.end if isinstance(top, SList) else -1
        self._top_empty = not isinstance(top, SList) or not top.items
        self._ends = _list_ends(top) if isinstance(top, SList) else {}
        self._blocks: dict[tuple[str, ...], _Block] = {}
        # The blocks' keys at each offset, oldest first (their order in the file), and the
        # offsets in file order.
        self._at: dict[int, list[tuple[str, ...]]] = {}
        self._offsets: list[int] = []
        # Per judgement added: its block's key and what the block was before (None: new).
        self._undo: list[tuple[tuple[str, ...], _Block | None]] = []

    def add(self, message_id: str, template_id: str, slot_id: str, entry: HistoryEntry) -> None:
        """Insert one judgement where :func:`insert_entries` puts it; on an error (an id or
        value that cannot be written) nothing changes."""
        key, offset, level = self._place(message_id, template_id, slot_id)
        if offset < 0:
            raise ValueError("not a history list: a quoted form cannot take a judgement")
        old = self._blocks.get(key)
        seed = HistoryMessage(message_id, ()) if old is None else old.tree
        tree = add_judgement(History(None, (seed,)), message_id, template_id, slot_id,
                             entry).messages[0]
        if level == _ENTRIES:
            # A slot of the user's text: the entry goes after the ones inserted before it.
            added = "\n" + "\n".join(_entry_lines(entry))
            text = ("" if old is None else old.text) + added.replace("\n", self._nl)
        else:
            text = self._render(level, tree)
        if old is None:
            if offset not in self._at:
                bisect.insort(self._offsets, offset)
            self._at.setdefault(offset, []).append(key)
        self._blocks[key] = _Block(offset, level, tree, text)
        self._undo.append((key, old))
        self.added.append((message_id, template_id, slot_id, entry))

    def pop(self) -> tuple[str, str, str, HistoryEntry]:
        """Take back the last judgement added; returns it."""
        if not self.added:
            raise IndexError("no judgement to take back")
        key, old = self._undo.pop()
        if old is not None:
            self._blocks[key] = old
        else:
            # Made by this judgement, the newest block: the last one at its offset.
            offset = self._blocks.pop(key).offset
            keys = self._at[offset]
            keys.pop()
            if not keys:
                del self._at[offset]
                del self._offsets[bisect.bisect_left(self._offsets, offset)]
        return self.added.pop()

    def text(self) -> str:
        """The user's text with every judgement added so far."""
        if self._nil_at is not None:
            if not self._offsets:
                return self.base
            pieces = [self._blocks[key].text for key in self._at[self._nil_at]]
            return (self.base[: self._nil_at] + "(" + (self._nl + " ").join(pieces) + ")"
                    + self.base[self._nil_at + 3 :])
        parts: list[str] = []
        start = 0
        for offset in self._offsets:
            parts.append(self.base[start:offset])
            for n, key in enumerate(self._at[offset]):
                block = self._blocks[key]
                if block.level == _MESSAGE and not (n == 0 and self._top_empty):
                    parts.append(self._nl + " ")
                parts.append(block.text)
            start = offset
        parts.append(self.base[start:])
        return "".join(parts)

    def _place(self, message_id: str, template_id: str, slot_id: str) -> tuple[
            tuple[str, ...], int, int]:
        """The key of the block a judgement goes in, where that block goes, and its level."""
        ids = (message_id, template_id, slot_id)
        # At a level, the block goes at the end of the list named by the ids above it.
        for level in (_ENTRIES, _SLOT, _TEMPLATE):
            if ids[:level] in self._ends:
                return ids[: level + 1], self._ends[ids[:level]], level
        return ids[:1], self._top_end if self._nil_at is None else self._nil_at, _MESSAGE

    def _render(self, level: int, tree: HistoryMessage) -> str:
        if level == _MESSAGE:
            lines = _message_lines(tree)
        else:
            template = tree.items[0]
            assert isinstance(template, HistoryTemplate)
            lines = ["", *(_template_lines(template) if level == _TEMPLATE
                           else _slot_lines(template.slots[0]))]
        return "\n".join(lines).replace("\n", self._nl)


def _list_ends(top: SList) -> dict[tuple[str, ...], int]:
    """Where each message, template and slot list of ``top`` closes, by its ids: a judgement
    goes into the first list of its name, within the first list of its parent's name."""
    ends: dict[tuple[str, ...], int] = {}
    for message_id, message in _named_children(top, String):
        if (message_id,) in ends:
            continue
        ends[message_id,] = message.end
        for template_id, template in _named_children(message, String):
            if (message_id, template_id) in ends:
                continue
            ends[message_id, template_id] = template.end
            for slot_id, slot in _named_children(template, Symbol):
                ends.setdefault((message_id, template_id, slot_id), slot.end)
    return ends


def _named_children(node: SList, kind: type[String] | type[Symbol]) -> Iterator[tuple[str, SList]]:
    """The lists among ``node``'s items (after its own id) headed by a ``kind``, by that name."""
    for item in node.items[1:] if node.items and not isinstance(node.items[0], SList) else node.items:
        if isinstance(item, SList) and item.items and isinstance(item.items[0], kind):
            head = item.items[0]
            yield (head.value if isinstance(head, String) else head.name), item


def _offset(text: str, line: int, column: int) -> int:
    start = 0
    for _ in range(line - 1):
        start = text.index("\n", start) + 1
    return start + column - 1


def save_history(history: History, path: str | Path) -> None:
    """Write ``history`` to ``path`` atomically (the old file or the complete new one), in the
    1992 syntax and layout, so that the 1992 program can read it too.

    Parameters
    ----------
    path : str or pathlib.Path
        An existing file is replaced (keeping its permissions), a symbolic link written through.

    Raises
    ------
    OutputError
        If the file cannot be written or is read-only; the old file is then unchanged.

    Examples
    --------
    >>> import muceval, os, tempfile
    >>> from importlib.resources import files
    >>> history = muceval.read_history(files("muceval") / "data" / "example" / "history.lisp")
    >>> target = os.path.join(tempfile.mkdtemp(), "history.lisp")
    >>> muceval.save_history(history, target)
    >>> next(muceval.read_history(target).entries())[:3]
    ('DEMO-0001', '1', 'perp-ind-id')
    >>> save_history(parse_history("nil", "h"), target)
    >>> open(target).read()
    'nil'
    """
    write_atomic(path, write_history(history))
