"""History files: the human judgements the 1992 scorer recorded and reused.

A history file is one Emacs Lisp list (SCORER-SPEC §12.1)::

    (("TST3-MUC4-0011"                         ; message
      ("1"                                     ; key template
       (inc-date                               ; slot
        ((range nil "04 MAY 1988") match (range nil "04 MAY 88"))
        ("04 FEB 88" fail)))
      (":MAP" ("1" . "2") (nil . "3"))))       ; a user mapping

:func:`read_history` / :func:`parse_history` turn it into a
:class:`~muceval.core.model.History`; :func:`write_history` writes it back in the
same syntax and layout as the 1992 program (so the 1992 program can read it
again), and :func:`save_history` does so atomically. :func:`add_judgement`
records a new judgement without changing the original object.

>>> h = parse_history('(("M-1" ("1" (inc-type ("ATTACK" partial "BOMBING")))))', "h")
>>> [(m, t, s, e.judgement.value) for m, t, s, e in h.entries()]
[('M-1', '1', 'inc-type', 'partial')]
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

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
from muceval.formats.sexpr import SExpr, SList, String, Symbol

__all__ = [
    "MAP_ID",
    "format_value",
    "parse_history",
    "read_history",
    "save_history",
    "write_history",
]

"""The pseudo template id under which a message's user mapping is stored."""

# The 1992 pretty-printer puts a judgement on one line when it ends within
# this many columns, and one element a line otherwise (measured on the
# TST3/TST4 history files, which it reproduces byte for byte).
_LINE_WIDTH = 75

_JUDGEMENTS = {j.value: j for j in Judgement}
# value operator -> (minimum, maximum) number of operands
_ARITY: dict[str, tuple[int, int | None]] = {
    "or": (1, None),
    "xref": (2, 2),
    "range": (2, 2),
    "location": (1, None),
    "qualified": (2, 2),
    "between": (2, 2),
    "optional": (1, 1),
    "all-of": (1, None),
}


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------


def read_history(path: str | Path) -> History:
    """Read a 1992 history file: the human judgements that earlier scoring runs recorded.

    When no rule decides whether a response fill matches a key fill (string fills, mostly),
    the 1992 scorer asked its operator and stored the answer in a history file, which later
    runs reused. Scoring with the same history gives the same scores.

    Parameters
    ----------
    path : str or pathlib.Path
        The history file: one Emacs Lisp list of messages, key templates, slots and
        judgements (``match``, ``partial``, ``fail``...), possibly with manual template
        mappings (``":MAP"``).

    Returns
    -------
    muceval.core.model.History
        The judgements in file order; ``entries()`` yields ``(message id, key template id,
        slot id, entry)`` for each.

    Raises
    ------
    InputError
        If the file cannot be read or is not a well-formed history, naming file, line and
        column.

    See Also
    --------
    save_history : Write a history back, atomically.
    score_files : Takes a history (``history_path``).

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
    top = sexpr.parse_one(text, path)
    if sexpr.is_nil(top):
        return History(path=path, messages=())
    items = _proper_list(top, path, "the history (a list of messages)")
    return History(path=path, messages=tuple(_read_message(node, path) for node in items))


def _fail(path: str, node: SExpr, message: str) -> InputError:
    return InputError.at(path, node.line or None, message, node.column or None)


def _proper_list(node: SExpr, path: str, what: str) -> tuple[SExpr, ...]:
    if sexpr.is_nil(node):
        return ()
    if not isinstance(node, SList) or node.tail is not None:
        raise _fail(path, node, f"expected {what}, found {sexpr.describe(node)}")
    return node.items


def _read_message(node: SExpr, path: str) -> HistoryMessage:
    items = _proper_list(node, path, 'a message ("MESSAGE-ID" template…)')
    if not items or not isinstance(items[0], String):
        raise _fail(path, node, 'a message must start with its id as a string ("MESSAGE-ID" …)')
    message_id = items[0].value
    out: list[HistoryTemplate | HistoryMapping] = []
    for child in items[1:]:
        parts = _proper_list(child, path, 'a template ("ID" slot…) or (":MAP" pair…)')
        if not parts or not isinstance(parts[0], String):
            raise _fail(path, child, 'a template must start with its id as a string ("1" slot…)')
        if parts[0].value == MAP_ID:
            out.append(_read_mapping(child, parts[1:], path))
        else:
            slots = tuple(_read_slot(slot, path) for slot in parts[1:])
            out.append(HistoryTemplate(parts[0].value, slots))
    return HistoryMessage(message_id, tuple(out))


def _map_side(node: SExpr, path: str) -> str | None:
    if sexpr.is_nil(node):
        return None
    if isinstance(node, String):
        return node.value
    raise _fail(
        path, node, f"a :MAP side must be a template id string or nil, found {sexpr.describe(node)}"
    )


def _read_mapping(node: SExpr, pairs: tuple[SExpr, ...], path: str) -> HistoryMapping:
    out: list[tuple[str | None, str | None]] = []
    for pair in pairs:
        if not isinstance(pair, SList) or sexpr.is_nil(pair):
            raise _fail(
                path, pair, f"expected a (KEY-ID . RESPONSE-ID) pair, found {sexpr.describe(pair)}"
            )
        if pair.tail is not None and len(pair.items) == 1:
            out.append((_map_side(pair.items[0], path), _map_side(pair.tail, path)))
        elif pair.tail is None and len(pair.items) == 1:
            # (a . nil) is the list (a): the Lisp printer writes it that way.
            out.append((_map_side(pair.items[0], path), None))
        else:
            raise _fail(path, pair, "expected a (KEY-ID . RESPONSE-ID) pair")
    return HistoryMapping(tuple(out), line=node.line or None)


def _read_slot(node: SExpr, path: str) -> HistorySlot:
    items = _proper_list(node, path, "a slot (slot-id entry…)")
    if not items or not isinstance(items[0], Symbol) or items[0].name in ("nil", "t"):
        raise _fail(path, node, "a slot must start with its slot id as a symbol (inc-type entry…)")
    return HistorySlot(items[0].name, tuple(_read_entry(entry, path) for entry in items[1:]))


def _read_entry(node: SExpr, path: str) -> HistoryEntry:
    items = _proper_list(node, path, "a judgement (RESPONSE-VALUE judgement [KEY-VALUE])")
    if len(items) not in (2, 3):
        raise _fail(
            path,
            node,
            f"a judgement has 2 or 3 elements (RESPONSE-VALUE judgement [KEY-VALUE]), found {len(items)}",
        )
    mark = items[1]
    if not isinstance(mark, Symbol) or mark.name not in _JUDGEMENTS:
        raise _fail(
            path,
            mark,
            f"unknown judgement {sexpr.describe(mark)} (expected one of {', '.join(_JUDGEMENTS)})",
        )
    response = _read_value(items[0], path)
    has_key = len(items) == 3
    key = _read_value(items[2], path) if has_key else None
    return HistoryEntry(
        response=response,
        judgement=_JUDGEMENTS[mark.name],
        key=key,
        has_key=has_key,
        line=node.line or None,
    )


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
        raise _fail(
            path,
            node,
            f"expected a fill value (a string, nil or (or …), (xref …), …), found {sexpr.describe(node)}",
        )
    op = node.items[0].name
    if op not in _ARITY:
        raise _fail(
            path,
            node.items[0],
            f"unknown value operator '{op}' (expected one of {', '.join(_ARITY)})",
        )
    low, high = _ARITY[op]
    args = [_read_value(arg, path) for arg in node.items[1:]]
    if len(args) < low or (high is not None and len(args) > high):
        wanted = f"{low}" if low == high else f"at least {low}"
        raise _fail(path, node, f"({op} …) takes {wanted} value(s), found {len(args)}")
    if op == "or":
        return Alternatives(tuple(args))
    if op == "xref":
        return CrossRef(args[0], args[1])
    if op == "range":
        return Range(args[0], args[1])
    if op == "location":
        return Location(args[0], tuple(args[1:]))
    if op == "qualified":
        return Qualified(args[0], args[1])
    if op == "between":
        return Between(args[0], args[1])
    if op == "optional":
        return OptionalValue(args[0])
    return AllOf(tuple(args))


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------


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


def _format_entry(entry: HistoryEntry, column: int) -> list[str]:
    parts = [format_value(entry.response), entry.judgement.value]
    if entry.has_key or entry.key is not None:
        parts.append(format_value(entry.key))
    flat = "(" + " ".join(parts) + ")"
    if column + len(flat) <= _LINE_WIDTH:
        return [flat]
    pad = " " * (column + 1)
    return ["(" + parts[0], *(pad + part for part in parts[1:-1]), pad + parts[-1] + ")"]


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
    lines: list[str] = []
    for m_index, message in enumerate(history.messages):
        message_lines = _message_lines(message)
        lines.append(("(" if m_index == 0 else " ") + message_lines[0])
        lines.extend(message_lines[1:])
    lines[-1] += ")"
    return "\n".join(lines)


def _message_lines(message: HistoryMessage) -> list[str]:
    lines = ["(" + sexpr.quote_string(message.message_id)]
    for item in message.items:
        if isinstance(item, HistoryMapping):
            pairs = []
            for key, response in item.pairs:
                if response is None:
                    pairs.append("(" + _map_side_text(key) + ")")
                else:
                    pairs.append(f"({_map_side_text(key)} . {_map_side_text(response)})")
            lines.append("  (" + " ".join([sexpr.quote_string(MAP_ID), *pairs]) + ")")
        else:
            lines.extend(_template_lines(item))
    lines[-1] += ")"
    return lines


def _template_lines(template: HistoryTemplate) -> list[str]:
    if template.template_id == MAP_ID:
        raise ValueError(f"{MAP_ID!r} cannot be used as a template id")
    lines = ["  (" + sexpr.quote_string(template.template_id)]
    for slot in template.slots:
        lines.extend(_slot_lines(slot))
    lines[-1] += ")"
    return lines


def _slot_lines(slot: HistorySlot) -> list[str]:
    if not slot.slot_id or slot.slot_id in ("nil", "t"):
        raise ValueError(f"invalid slot id {slot.slot_id!r}")
    lines = ["   (" + sexpr.format_symbol(slot.slot_id)]
    for entry in slot.entries:
        lines.extend(_entry_lines(entry))
    lines[-1] += ")"
    return lines


def _entry_lines(entry: HistoryEntry) -> list[str]:
    entry_lines = _format_entry(entry, 4)
    return ["    " + entry_lines[0], *entry_lines[1:]]


def insert_entries(
    text: str, added: Sequence[tuple[str, str, str, HistoryEntry]], path: str = "<string>"
) -> str:
    """``text`` (a history file) with the ``added`` judgements in it, the rest byte for byte.

    Each judgement goes where :func:`~muceval.core.model.add_judgement` puts it
    (at the end of its slot, template or message, created if missing), written
    as :func:`write_history` writes it. Comments, layout and escapes of the
    user's file stay as they were.

    >>> text = ';; checked by hand\\n(("M-1" ("1" (inc-type ("ATTACK" fail)))))'
    >>> print(insert_entries(text, [("M-1", "1", "inc-type", HistoryEntry(Text("X"), Judgement.FAIL))]))
    ;; checked by hand
    (("M-1" ("1" (inc-type ("ATTACK" fail)
        ("X" fail)))))
    """
    if not added:
        return text
    new = History(None, ())
    for message_id, template_id, slot_id, entry in added:
        new = add_judgement(new, message_id, template_id, slot_id, entry)
    top = sexpr.parse_one(text, path)
    nl = "\r\n" if "\r\n" in text else "\n"
    if not isinstance(top, SList):  # the symbol nil: the whole history is new
        offset = _offset(text, top.line, top.column)
        return text[:offset] + write_history(new).replace("\n", nl) + text[offset + 3 :]
    inserts: list[tuple[int, str]] = []
    first_in_empty = not top.items
    for message in new.messages:
        m_node = _child(top, String, message.message_id)
        if m_node is None:
            lead = "" if first_in_empty else "\n "
            first_in_empty = False
            inserts.append((top.end, lead + "\n".join(_message_lines(message))))
            continue
        for item in message.items:
            assert isinstance(item, HistoryTemplate)
            t_node = _child(m_node, String, item.template_id)
            if t_node is None:
                inserts.append((m_node.end, "\n" + "\n".join(_template_lines(item))))
                continue
            for slot in item.slots:
                s_node = _child(t_node, Symbol, slot.slot_id)
                lines = _slot_lines(slot) if s_node is None else [
                    line for e in slot.entries for line in _entry_lines(e)]
                inserts.append(((t_node if s_node is None else s_node).end,
                                "\n" + "\n".join(lines)))
    # Back to front, so that earlier offsets stay valid; at one offset the later
    # piece goes in first, so that the pieces end up in the order they were added.
    order = sorted(range(len(inserts)), key=lambda i: (inserts[i][0], i), reverse=True)
    for i in order:
        offset, piece = inserts[i]
        text = text[:offset] + piece.replace("\n", nl) + text[offset:]
    return text


def _child(node: SList, kind: type[String] | type[Symbol], name: str) -> SList | None:
    """The first list among ``node``'s items (after its own id) whose head is ``name``."""
    for item in node.items[1:] if node.items and not isinstance(node.items[0], SList) else node.items:
        if isinstance(item, SList) and item.items and isinstance(item.items[0], kind):
            head = item.items[0]
            if (head.value if isinstance(head, String) else head.name) == name:
                return item
    return None


def _offset(text: str, line: int, column: int) -> int:
    start = 0
    for _ in range(line - 1):
        start = text.index("\n", start) + 1
    return start + column - 1


def save_history(history: History, path: str | Path) -> None:
    """Write ``history`` to ``path`` atomically: either the old file or the complete new one.

    The text has the 1992 syntax and layout (:func:`write_history`), so that the 1992 program
    can read it too. The file is replaced by a rename, after the new content is on disk: an
    interrupted save leaves the old history intact.

    Parameters
    ----------
    history : muceval.core.model.History
        The judgements to write.
    path : str or pathlib.Path
        Where to write them; an existing file is replaced (keeping its permissions), a
        symbolic link is written through.

    Raises
    ------
    OutputError
        If the file cannot be written (a missing folder, no permission) or is read-only;
        the old file, if any, is then unchanged.

    See Also
    --------
    read_history : Read a history file.

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
