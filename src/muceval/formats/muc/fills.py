"""The grammar of one fill, per slot type (SCORER-SPEC §2.4): read a value line (with the
column of a syntax error), write a value (``parse_fill(format_value(v, t), t) == v``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from muceval.core.model import (
    Alternatives,
    Between,
    BlankMarker,
    CrossRef,
    Location,
    OptionalValue,
    Qualified,
    Range,
    SlotType,
    Text,
    Value,
)
from muceval.errors import InputError, Problem

__all__ = ["ERROR_VALUE", "format_value", "parse_fill"]

ERROR_VALUE = Text("<ERROR>")
"""What the 1992 scorer used in place of a fill it could not parse."""


class _Syntax(Exception):
    """A value that does not parse; ``col`` is the 0-based offset in the value text.

    ``recoverable`` marks text after a complete quoted string: the extent of the fill is still
    clear, so it is a warning and the fill is :data:`ERROR_VALUE`, as the 1992 scorer read it.
    """

    def __init__(self, col: int, message: str, recoverable: bool = False):
        super().__init__(message)
        self.col = col
        self.message = message
        self.recoverable = recoverable


_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')
_WS = re.compile(r"[ \t]*")

# A bare token runs to the next separator; parentheses inside it are literal
# text when balanced (``DEV-MUC3-0001 (NCCOSC)``, ``URUGUAY (COUNTRY)``).
_BARE_DEFAULT = re.compile(r"(?:[^/:()]|\((?:[^()]|\([^()]*\))*\))*")
_BARE_RANGE = re.compile(r"(?:[^/\-()]|\((?:[^()]|\([^()]*\))*\))*")
_BARE_PLAIN = re.compile(r"(?:[^/()]|\((?:[^()]|\([^()]*\))*\))*")
_BARE_PLACE = re.compile(r"[^/:()\-]*")


@dataclass(frozen=True, slots=True)
class _Grammar:
    bare: re.Pattern[str]
    ops: str  # structural tokens
    qualifier: bool = False  # "NAME (TYPE)" after a bare token (places)


# Compared by identity (_parse_group): _PLAIN and _LOC_TOP are equal but read groups apart.
_DEFAULT = _Grammar(_BARE_DEFAULT, ":")
_RANGE = _Grammar(_BARE_RANGE, "-")
_PLAIN = _Grammar(_BARE_PLAIN, "")
_LOC_TOP = _Grammar(_BARE_PLAIN, "")
_PLACE = _Grammar(_BARE_PLACE, ":-", qualifier=True)
_SEGMENT = _Grammar(_BARE_PLACE, "-", qualifier=True)

_OP_NAMES = {":": "cross-reference ':'", "-": "'-'"}


@dataclass(frozen=True, slots=True)
class _Choice:
    value: Value
    grouped: bool = False  # written in parentheses


@dataclass(frozen=True, slots=True)
class _Op:
    char: str
    col: int


_Element = _Choice | _Op


def _structure(s: str, lo: int, hi: int | None = None, marks: str = "()",
               ) -> Iterator[tuple[int, str]]:
    """Where the characters ``marks`` stand in ``s[lo:hi]`` outside strings, and where a
    string that is never closed begins (``'"'``, then the marks after it).

    A quote begins a string only where a choice begins (:func:`_scan_choice`): after ``(``,
    ``/``, an operator or ``lo``. Elsewhere it is a character of a bare token, as in ``?"``,
    which must then be read the same inside parentheses as outside.
    """
    end = len(s) if hi is None else hi
    found = _MARKS.get(marks) or _MARKS.setdefault(marks, re.compile(f'[{re.escape(marks)}"]'))
    i = lo
    while (m := found.search(s, i, end)) is not None:
        at, char = m.start(), m.group()
        i = at + 1
        if char == '"':
            before = at - 1
            while before >= lo and s[before] in " \t":
                before -= 1
            if before >= lo and s[before] not in "(/:-":
                continue
            quoted = _QUOTED.match(s, at, end)
            if quoted is not None:
                i = quoted.end()
                continue
        yield at, char


_MARKS: dict[str, re.Pattern[str]] = {}


MAX_NESTING = 20
"""Parentheses a fill may nest (the MUC-4 keys nest three deep)."""


def _check_nesting(s: str, lo: int) -> None:
    """Refuse parentheses nested deeper than :data:`MAX_NESTING` before the recursive parse."""
    depth = 0
    for at, tok in _structure(s, lo):
        if tok == "(":
            depth += 1
            if depth > MAX_NESTING:
                raise _Syntax(at, f"parentheses nested more than {MAX_NESTING} deep")
        elif tok == ")":
            depth -= 1
        # A quote that starts no string here may be a character of a bare token (the
        # grammar decides): the parentheses after it are counted all the same.


def _is_plain(value: Value, qualified_plain: bool = False) -> bool:
    if isinstance(value, Alternatives):
        return all(_is_plain(o, qualified_plain) for o in value.options)
    return value is None or isinstance(value, Text) or (
        qualified_plain and isinstance(value, Qualified))


def _alternatives(values: list[Value]) -> Value:
    """``or(...)`` of ``values``: nested sets flattened, a set of one collapses."""
    flat = [o for v in values for o in (v.options if isinstance(v, Alternatives) else (v,))]
    return flat[0] if len(flat) == 1 else Alternatives(tuple(flat))


def _skip_ws(s: str, i: int, hi: int) -> int:
    m = _WS.match(s, i, hi)
    return i if m is None else m.end()


def _scan(s: str, lo: int, hi: int, grammar: _Grammar) -> list[_Element]:
    """Cut ``s[lo:hi]`` into choices and structural tokens (``/`` only separates)."""
    out: list[_Element] = []
    i = lo
    while True:
        choice, i, after = _scan_choice(s, _skip_ws(s, i, hi), hi, grammar)
        out.append(choice)
        i = _skip_ws(s, i, hi)
        if i >= hi:
            return out
        c = s[i]
        if c == "/":
            i += 1
        elif c in grammar.ops:
            out.append(_Op(c, i))
            i += 1
        else:
            raise _unexpected(s, i, hi, after)


def _scan_choice(s: str, i: int, hi: int, grammar: _Grammar) -> tuple[_Choice, int, str]:
    """The choice at ``s[i]``, the index after it, and what closed it ("" after a bare token),
    named when unexpected text follows it."""
    c = s[i] if i < hi else ""
    if c == '"':
        m = _QUOTED.match(s, i, hi)
        if m is None:
            raise _Syntax(i, "unterminated string (no closing '\"')")
        return _Choice(Text(m.group())), m.end(), "closing quote"
    if c == "(":
        j = _group_end(s, i, hi)
        return _Choice(_parse_group(s, i + 1, j, grammar), grouped=True), j + 1, "')'"
    m = grammar.bare.match(s, i, hi)
    assert m is not None, "the bare patterns match the empty string"
    token = m.group().rstrip(" \t")
    text = Text(token) if token else None
    end = m.end()
    if grammar.qualifier and end < hi and s[end] == "(":
        j = _group_end(s, end, hi)
        return _Choice(Qualified(text, _parse_group(s, end + 1, j, _PLAIN))), j + 1, "')'"
    return _Choice(text), end, ""


def _group_end(s: str, i: int, hi: int) -> int:
    """Index of the ``)`` closing the ``(`` at ``s[i]``, which must come before ``hi``
    (quoted strings skipped)."""
    depth = 0
    for at, tok in _structure(s, i):
        if tok == "(":
            depth += 1
        elif tok == ")":
            depth -= 1
            if depth == 0:
                if at < hi:
                    return at
                break
        else:  # an unterminated string swallows the rest
            break
    raise _Syntax(i, "unbalanced parentheses: '(' is never closed")


def _unexpected(s: str, i: int, hi: int, after: str) -> _Syntax:
    """The error for ``s[i]``, which neither separates choices nor is a structural token."""
    c = s[i]
    if c == ")":
        return _Syntax(i, "unbalanced parentheses: ')' without a matching '('")
    if c == "(":
        return _Syntax(i, "unbalanced parentheses: '(' is never closed")
    if after:
        return _Syntax(
            i,
            f"unexpected text after {after}: {s[i:hi].strip()[:30]!r}",
            recoverable=after == "closing quote",
        )
    return _Syntax(i, f"unexpected {c!r} here")


def _operand(choices: list[_Choice]) -> Value:
    """The value of the choices that make one part of a structured fill.

    A part written as one parenthesised group stays an alternative set, also of one alternative.
    The 1992 program scored the response place ``COLOMBIA: (MEDELLIN (CITY) - DORADAL (TOWN))``
    partial against the TST4 key ``COLOMBIA: (MEDELLIN (CITY) - DORADAL (TOWN)) / (DORADAL
    (TOWN))``: read as a set, the place equals the key's set of two places only by set equality
    (SCORER-SPEC §3.1 rule 4), and the country gives the partial (§3.4). Groups among several
    alternatives still merge into one set; a whole fill of one alternative is that alternative.
    """
    if len(choices) == 1 and choices[0].grouped:
        value = choices[0].value
        if value is not None and not isinstance(value, Alternatives):
            return Alternatives((value,))
    return _alternatives([c.value for c in choices])


def _assemble(
    elements: list[_Element],
    make: Callable[[Value, Value], Value],
    qualified_plain: bool = False,
    part: bool = False,
) -> Value:
    """Combine choices around one kind of binary structural token.

    ``/`` binds tighter than the structural token: the operands of ``A / B - C`` are
    ``or(A, B)`` and ``C`` (the 1992 reading of ``COLOMBIA / COLOMBIA: MEDELLIN``). A
    parenthesised structured choice stands alone as an alternative, which is how
    ``- 03 SEP 89 / (28 AUG 92 - 03 SEP 89)`` reads. With ``part`` (a place of a location),
    ``elements`` as a whole is a part of a structure (:func:`_operand`), like the operands.
    """
    segments: list[list[_Choice]] = [[]]
    ops: list[_Op] = []
    for e in elements:
        if isinstance(e, _Op):
            ops.append(e)
            segments.append([])
        else:
            segments[-1].append(e)
    if not ops:
        return _operand(segments[0]) if part else _alternatives([c.value for c in segments[0]])

    alts: list[Value] = []
    left: Value = None
    last = len(segments) - 1
    for k, seg in enumerate(segments):
        start, end = 0, len(seg)
        if k > 0:
            while start < end and _is_plain(seg[start].value, qualified_plain):
                start += 1
            if start == 0:
                raise _Syntax(ops[k - 1].col, f"a parenthesised structure cannot follow {_OP_NAMES[ops[k - 1].char]}")
            alts.append(make(left, _operand(seg[:start])))
        if k < last:
            while end > start and _is_plain(seg[end - 1].value, qualified_plain):
                end -= 1
            if end == len(seg):
                if k > 0 and start == len(seg) == 1:
                    raise _Syntax(ops[k].col, f"one {_OP_NAMES[ops[k].char]} too many")
                if k > 0 and start == len(seg):
                    raise _Syntax(
                        ops[k].col,
                        f"ambiguous value: alternatives that contain {_OP_NAMES[ops[k].char]} "
                        "must be written in parentheses",
                    )
                raise _Syntax(ops[k].col, f"a parenthesised structure cannot precede {_OP_NAMES[ops[k].char]}")
            left = _operand(seg[end:])
        alts.extend(c.value for c in seg[start:end])
    return _alternatives(alts)


def _parse_group(s: str, lo: int, hi: int, outer: _Grammar) -> Value:
    """The value of a parenthesised sub-expression, in the grammar of its context."""
    if outer is _DEFAULT:
        return _parse_default(s, lo, hi)
    if outer is _RANGE:
        return _assemble(_scan(s, lo, hi, _RANGE), Range)
    if outer is _LOC_TOP:
        return _parse_location(s, lo, hi)
    if outer is _PLACE or outer is _SEGMENT:
        return _assemble(_scan(s, lo, hi, _SEGMENT), Between, qualified_plain=True)
    return _alternatives([c.value for c in _scan(s, lo, hi, _PLAIN) if isinstance(c, _Choice)])


def _parse_default(s: str, lo: int, hi: int) -> Value:
    value = _assemble(_scan(s, lo, hi, _DEFAULT), CrossRef)
    if isinstance(value, Alternatives) and any(isinstance(o, CrossRef) for o in value.options):
        raise _Syntax(lo, "unsupported complex cross-reference (alternatives that carry their own tags)")
    return value


def _top_level(s: str, lo: int, hi: int, mark: str) -> Iterator[int]:
    """Where ``mark`` stands in ``s[lo:hi]`` outside parentheses and quoted strings."""
    depth = 0
    for at, tok in _structure(s, lo, hi, "()" + mark):
        if tok == "(":
            depth += 1
        elif tok == ")":
            depth -= 1
        elif tok == mark and depth == 0:
            yield at


def _has_colon(s: str, lo: int, hi: int) -> bool:
    return next(_top_level(s, lo, hi, ":"), None) is not None


def _top_level_pieces(s: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """``s[lo:hi]`` cut at every top-level ``/``."""
    cuts = list(_top_level(s, lo, hi, "/"))
    return list(zip([lo, *(at + 1 for at in cuts)], [*cuts, hi], strict=True))


def _parse_location(s: str, lo: int, hi: int) -> Value:
    pieces = _top_level_pieces(s, lo, hi)
    if len(pieces) > 1 and all(_has_colon(s, a, b) for a, b in pieces):
        # `C: P (CITY) / C: P (TOWN)`: each alternative is a whole location, and the 1992 program
        # matched a response equal to any (TST4 key); `COLOMBIA / COLOMBIA: MEDELLIN` reads below.
        return _alternatives([_parse_location(s, a, b) for a, b in pieces])
    if not _has_colon(s, lo, hi):
        # A line without ':' is a plain string, not a location structure
        # (SCORER-SPEC §2.4.6); parenthesised alternatives may still hold locations.
        return _alternatives([c.value for c in _scan(s, lo, hi, _LOC_TOP) if isinstance(c, _Choice)])
    elements = _scan(s, lo, hi, _PLACE)
    segments: list[list[_Element]] = [[]]
    for e in elements:
        if isinstance(e, _Op) and e.char == ":":
            segments.append([])
        else:
            segments[-1].append(e)
    parts = [_assemble(seg, Between, qualified_plain=True, part=True) for seg in segments]
    return Location(parts[0], tuple(parts[1:]))


def _parse_number(s: str, lo: int, hi: int) -> Value:
    # Default grammar first; only a plain result is re-read as a range, so
    # inside a cross-reference "5 - 7" stays one string (SCORER-SPEC §2.4.4).
    value = _parse_default(s, lo, hi)
    if isinstance(value, CrossRef | Alternatives):
        return value
    return _assemble(_scan(s, lo, hi, _RANGE), Range)


# Each slot type's grammar: the parser of its values, and the context they are written in.
_GRAMMARS: dict[SlotType, tuple[Callable[[str, int, int], Value], str]] = {
    SlotType.MESSAGE_ID: (_parse_default, "default"),
    SlotType.SET: (_parse_default, "default"),
    SlotType.STRING: (_parse_default, "default"),
    SlotType.DATE: (lambda s, lo, hi: _assemble(_scan(s, lo, hi, _RANGE), Range), "range"),
    SlotType.NUMBER: (_parse_number, "range"),
    SlotType.LOCATION: (_parse_location, "loc"),
}

_OPTIONAL_PREFIX = re.compile(r"\?[ \t]*")
NO_FILL_MARKERS = {"*": BlankMarker.NOT_APPLICABLE, "-": BlankMarker.NO_DATA, "": BlankMarker.EMPTY}


@lru_cache(maxsize=1 << 16)
def parse_value_line(
    text: str, slot_type: SlotType
) -> tuple[Value, BlankMarker | None, int, str, bool]:
    """Parse one value line: ``(fill, marker, error column, error message, recoverable)``.

    ``fill`` is ``None`` when the line gives no fill (``marker`` tells how it was written), and
    ``<ERROR>`` on a syntax error. Cached: the same values recur thousands of times.
    """
    m = _OPTIONAL_PREFIX.match(text)
    optional = m is not None
    lo = m.end() if m else 0
    body = text[lo:]
    if body in NO_FILL_MARKERS:
        return None, NO_FILL_MARKERS[body], 0, "", False
    try:
        try:
            if "(" in text:
                _check_nesting(text, lo)
            value = _GRAMMARS[slot_type][0](text, lo, len(text))
        except RecursionError:  # what the count above missed, behind quotes it misread
            raise _Syntax(lo, f"parentheses nested more than {MAX_NESTING} deep") from None
    except _Syntax as bad:
        fill: Value = OptionalValue(ERROR_VALUE) if optional else ERROR_VALUE
        return fill, None, bad.col, bad.message, bad.recoverable
    if value is None:
        return None, BlankMarker.EMPTY, 0, "", False
    if isinstance(value, Text) and value.raw in ("*", "-"):
        return None, NO_FILL_MARKERS[value.raw], 0, "", False
    if isinstance(value, Range) and value.low is None and value.high is None:
        return None, BlankMarker.NO_DATA, 0, "", False
    if optional:
        value = OptionalValue(value)
    return value, None, 0, "", False


def parse_fill(text: str, slot_type: SlotType) -> Value:
    """Parse one value line of a slot (as written after the label): ``None`` when the line
    gives no fill (``*``, ``-`` or nothing), :class:`InputError` when it does not parse.

    >>> parse_fill('DEATH: "JESUITS"', SlotType.SET)
    CrossRef(value=Text(raw='DEATH'), tag=Text(raw='"JESUITS"'))
    >>> parse_fill("- 26 AUG 89", SlotType.DATE)
    Range(low=None, high=Text(raw='26 AUG 89'))
    """
    if slot_type is SlotType.TEMPLATE_ID:
        raise ValueError("template ids are not fills; see parse_templates")
    text = text.strip(" \t")
    value, _marker, col, message, _recoverable = parse_value_line(text, slot_type)
    if message:
        raise InputError(Problem("<value>", 1, message, col + 1))
    return value


def _fmt(value: Value, ctx: str) -> str:
    """Format ``value`` so that the grammar of context ``ctx`` reads it back unchanged."""
    if value is None:
        return ""
    if isinstance(value, Text):
        return value.raw
    if isinstance(value, OptionalValue):
        return "? " + _fmt(value.value, ctx)
    if isinstance(value, Alternatives):
        if len(value.options) == 1:
            # Only the parentheses make a part a set of one (_operand).
            return f"({_fmt(value.options[0], ctx)})"
        return " / ".join(_fmt_option(o, ctx) for o in value.options)
    if isinstance(value, CrossRef):
        return _join(": ", _fmt(value.value, "default"), _fmt(value.tag, "default"))
    if isinstance(value, Range):
        return _join(" - ", _fmt(value.low, "range"), _fmt(value.high, "range"))
    if isinstance(value, Location):
        text = _join(": ", _fmt(value.country, "place"), *(_fmt(p, "place") for p in value.places))
        pieces = _top_level_pieces(text, 0, len(text))
        if len(pieces) > 1 and all(_has_colon(text, a, b) for a, b in pieces):
            # Unbracketed, `A: B / C: D` would read back as two whole locations.
            return _join(": ", _fmt(value.country, "place"), *(_bracketed_place(p) for p in value.places))
        return text
    if isinstance(value, Qualified):
        return f"{_fmt(value.value, 'place')} ({_fmt(value.qualifier, 'qual')})".strip()
    if isinstance(value, Between):
        return _join(" - ", _fmt(value.first, "place"), _fmt(value.second, "place"))
    raise TypeError(f"cannot write {value!r} in a template file")


def _bracket_slashes(text: str) -> str:
    """``text`` in parentheses if it holds a ``/`` that a reader would take as a top-level cut."""
    return f"({text})" if len(_top_level_pieces(text, 0, len(text))) > 1 else text


def _bracketed_place(place: Value) -> str:
    """A place with every ``/`` in parentheses that are not the whole place's: a place written
    as one group is a set of one (:func:`_operand`), so a range between alternatives brackets
    its ends."""
    if isinstance(place, Between):
        return _join(" - ", _bracket_slashes(_fmt(place.first, "place")),
                     _bracket_slashes(_fmt(place.second, "place")))
    return _bracket_slashes(_fmt(place, "place"))


def _join(separator: str, *parts: str) -> str:
    # An empty part is a null (an open range end, an empty place); no doubled spaces.
    return separator.join(p.strip() for p in parts).strip()


def _fmt_option(option: Value, ctx: str) -> str:
    """One alternative: structured ones go in parentheses so that '/' cannot regroup them."""
    text = _fmt(option, ctx)
    plain = option is None or isinstance(option, Text) or (ctx == "place" and isinstance(option, Qualified))
    return text if plain else f"({text})"


def format_value(value: Value, slot_type: SlotType) -> str:
    """The text of one fill as written in a template file.

    >>> format_value(Range(None, Text("26 AUG 89")), SlotType.DATE)
    '- 26 AUG 89'
    >>> format_value(CrossRef(Text("DEATH"), Text('"JESUITS"')), SlotType.SET)
    'DEATH: "JESUITS"'
    """
    if slot_type is SlotType.TEMPLATE_ID:
        if isinstance(value, Qualified):
            return f"{_fmt(value.value, 'default')} ({_fmt(value.qualifier, 'qual')})"
        return _fmt(value, "default")
    return _fmt(value, _GRAMMARS[slot_type][1])
