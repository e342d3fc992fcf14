"""Reading and writing MUC template files (answer keys and system responses).

The reader follows the 1992 MUC-4 scorer (SCORER-SPEC §2): a file is cut into
templates at lines matching the configured header regular expression; each
template is cut into slot regions at lines that start with a configured slot
label; every physical line of a region is one fill, parsed with the grammar of
the slot's type (§2.4). Everything is driven by the :class:`Configuration`;
nothing here knows about MUC-4 in particular.

Where the 1992 program silently turned an unparsable value into ``<ERROR>``
(or died on a missing slot), this reader reports a :class:`Problem` with file,
line and column. :func:`parse_templates` collects every problem it can find
(for ``muceval validate``) and still returns the templates, with ``<ERROR>``
standing in for unparsable fills exactly as in 1992; :func:`read_templates`
raises :class:`InputError` when there is any problem.

Things the 1992 program accepted without complaint (a slot written out of
order, a set fill that is not in the slot's set, an unindented line that is
neither a slot label nor a comment, which it ignored) are reported as
*warnings*, never as problems, so that every official key and response file
reads cleanly.

The writer produces the 1992 layout; ``parse(write(t)) == t`` for every
template the reader can produce.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from muceval.core.model import (
    Alternatives,
    Between,
    BlankMarker,
    Configuration,
    CrossRef,
    Location,
    OptionalValue,
    Qualified,
    Range,
    Slot,
    SlotSpec,
    SlotType,
    Template,
    TemplateFile,
    Text,
    Value,
)
from muceval.errors import InputError, Problem
from muceval.formats.files import read_text

__all__ = [
    "ERROR_VALUE",
    "ParseResult",
    "format_template",
    "format_value",
    "parse_fill",
    "parse_templates",
    "read_templates",
    "write_templates",
]

ERROR_VALUE = Text("<ERROR>")
"""What the 1992 scorer used in place of a fill it could not parse."""

# Columns of the value text in written files: the longest MUC-4 label is 33
# characters and the official keys put values at column 36 (35 characters of
# label and padding); keep at least two spaces after any label.
_MIN_VALUE_COLUMN = 35
_LABEL_GAP = 2


# ---------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ParseResult:
    """Templates read from one file, with everything found wrong in it.

    ``problems`` are errors (the file is not usable as it is); ``warnings``
    are oddities the 1992 scorer accepted silently.
    """

    templates: TemplateFile
    problems: tuple[Problem, ...]
    warnings: tuple[Problem, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems


# ---------------------------------------------------------------------------
# The value grammar (SCORER-SPEC §2.4)
# ---------------------------------------------------------------------------


class _Syntax(Exception):
    """A value that does not parse; ``col`` is the 0-based offset in the value text.

    ``recoverable`` marks text after a complete quoted string: the extent of the
    fill is still clear, so (like the 1992 scorer, which read it as ``<ERROR>``)
    it is a warning, and the fill is kept as :data:`ERROR_VALUE`.
    """

    def __init__(self, col: int, message: str, recoverable: bool = False):
        super().__init__(message)
        self.col = col
        self.message = message
        self.recoverable = recoverable


_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')
_WS = re.compile(r"[ \t]*")
_PAREN_OR_QUOTE = re.compile(r'"(?:[^"\\]|\\.)*"|[()]|"')

# A bare token runs to the next separator; parentheses inside it are literal
# text when balanced (``DEV-MUC3-0001 (NCCOSC)``, ``URUGUAY (COUNTRY)``).
_BARE_DEFAULT = re.compile(r"(?:[^/:()]|\((?:[^()]|\([^()]*\))*\))*")
_BARE_RANGE = re.compile(r"(?:[^/\-()]|\((?:[^()]|\([^()]*\))*\))*")
_BARE_PLAIN = re.compile(r"(?:[^/()]|\((?:[^()]|\([^()]*\))*\))*")
_BARE_PLACE = re.compile(r"[^/:()\-]*")


@dataclass(frozen=True, slots=True)
class _Grammar:
    name: str
    bare: re.Pattern[str]
    ops: str  # structural tokens
    qualifier: bool = False  # "NAME (TYPE)" after a bare token (places)


_DEFAULT = _Grammar("default", _BARE_DEFAULT, ":")
_RANGE = _Grammar("range", _BARE_RANGE, "-")
_PLAIN = _Grammar("plain", _BARE_PLAIN, "")
_LOC_TOP = _Grammar("loc-top", _BARE_PLAIN, "")
_PLACE = _Grammar("place", _BARE_PLACE, ":-", qualifier=True)
_SEGMENT = _Grammar("segment", _BARE_PLACE, "-", qualifier=True)

_OP_NAMES = {":": "cross-reference ':'", "-": "'-'"}


@dataclass(frozen=True, slots=True)
class _Choice:
    value: Value
    plain: bool
    col: int


@dataclass(frozen=True, slots=True)
class _Op:
    char: str
    col: int


_Element = _Choice | _Op


def _matching_paren(s: str, start: int) -> int:
    """Index of the ``)`` closing the ``(`` at ``start`` (quoted strings skipped), or -1."""
    depth = 0
    for m in _PAREN_OR_QUOTE.finditer(s, start):
        tok = m.group()
        if tok == "(":
            depth += 1
        elif tok == ")":
            depth -= 1
            if depth == 0:
                return m.start()
        elif tok == '"':  # an unterminated string swallows the rest
            return -1
    return -1


def _is_plain(value: Value, qualified_plain: bool = False) -> bool:
    if value is None or isinstance(value, Text):
        return True
    if qualified_plain and isinstance(value, Qualified):
        return True
    if isinstance(value, Alternatives):
        return all(_is_plain(o, qualified_plain) for o in value.options)
    return False


def _alternatives(values: list[Value]) -> Value:
    """``or(...)`` of ``values``: nested sets flattened, a set of one collapses."""
    flat: list[Value] = []
    for v in values:
        if isinstance(v, Alternatives):
            flat.extend(v.options)
        else:
            flat.append(v)
    if len(flat) == 1:
        return flat[0]
    return Alternatives(tuple(flat))


def _scan(s: str, lo: int, hi: int, grammar: _Grammar) -> list[_Element]:
    """Cut ``s[lo:hi]`` into choices and structural tokens (``/`` only separates)."""
    out: list[_Element] = []
    i = lo
    while True:
        # --- a choice ---
        i = _WS.match(s, i, hi).end()
        c = s[i] if i < hi else ""
        after = ""
        if c == '"':
            m = _QUOTED.match(s, i, hi)
            if m is None:
                raise _Syntax(i, "unterminated string (no closing '\"')")
            out.append(_Choice(Text(m.group()), True, i))
            i = m.end()
            after = "closing quote"
        elif c == "(":
            j = _matching_paren(s, i)
            if j < 0 or j >= hi:
                raise _Syntax(i, "unbalanced parentheses: '(' is never closed")
            value = _parse_group(s, i + 1, j, grammar)
            plain = _is_plain(value, grammar.qualifier)
            out.append(_Choice(value, plain, i))
            i = j + 1
            after = "')'"
        else:
            m = grammar.bare.match(s, i, hi)
            token = m.group().rstrip(" \t")
            start = i
            i = m.end()
            if grammar.qualifier and i < hi and s[i] == "(":
                j = _matching_paren(s, i)
                if j < 0 or j >= hi:
                    raise _Syntax(i, "unbalanced parentheses: '(' is never closed")
                qualifier = _parse_group(s, i + 1, j, _PLAIN)
                out.append(_Choice(Qualified(Text(token) if token else None, qualifier), True, start))
                i = j + 1
                after = "')'"
            else:
                out.append(_Choice(Text(token) if token else None, True, start))
        # --- a separator, a structural token, or the end ---
        i = _WS.match(s, i, hi).end()
        if i >= hi:
            return out
        c = s[i]
        if c == "/":
            i += 1
        elif c in grammar.ops:
            out.append(_Op(c, i))
            i += 1
        elif c == ")":
            raise _Syntax(i, "unbalanced parentheses: ')' without a matching '('")
        elif c == "(":
            raise _Syntax(i, "unbalanced parentheses: '(' is never closed")
        elif after:
            raise _Syntax(
                i,
                f"unexpected text after {after}: {s[i:hi].strip()[:30]!r}",
                recoverable=after == "closing quote",
            )
        else:
            raise _Syntax(i, f"unexpected {c!r} here")


def _assemble(
    elements: list[_Element],
    make: Callable[[Value, Value], Value],
    qualified_plain: bool = False,
) -> Value:
    """Combine choices around one kind of binary structural token.

    ``/`` binds tighter than the structural token: the operands of ``A / B - C``
    are ``or(A, B)`` and ``C`` (the 1992 reading of ``COLOMBIA / COLOMBIA:
    MEDELLIN``). A parenthesised structured choice stands alone as an
    alternative, which is how ``- 03 SEP 89 / (28 AUG 92 - 03 SEP 89)`` reads.
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
        return _alternatives([c.value for c in segments[0]])

    def run(choices: list[_Choice]) -> Value:
        return _alternatives([c.value for c in choices])

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
            alts.append(make(left, run(seg[:start])))
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
            left = run(seg[end:])
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


def _has_colon(s: str, lo: int, hi: int, top_level_only: bool) -> bool:
    depth = 0
    for m in re.finditer(r'"(?:[^"\\]|\\.)*"|[():]', s[lo:hi]):
        tok = m.group()
        if tok == "(":
            depth += 1
        elif tok == ")":
            depth -= 1
        elif tok == ":" and (depth == 0 or not top_level_only):
            return True
    return False


def _top_level_pieces(s: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """``s[lo:hi]`` cut at every ``/`` outside parentheses and quoted strings."""
    pieces, depth, start = [], 0, lo
    for m in re.finditer(r'"(?:[^"\\]|\\.)*"|[()/]', s[lo:hi]):
        tok, at = m.group(), lo + m.start()
        if tok == "(":
            depth += 1
        elif tok == ")":
            depth -= 1
        elif tok == "/" and depth == 0:
            pieces.append((start, at))
            start = at + 1
    pieces.append((start, hi))
    return pieces


def _parse_location(s: str, lo: int, hi: int) -> Value:
    pieces = _top_level_pieces(s, lo, hi)
    if len(pieces) > 1 and all(_has_colon(s, a, b, top_level_only=True) for a, b in pieces):
        # `C: P (CITY) / C: P (TOWN)`: every alternative is a whole location, and
        # the 1992 program matched a response equal to any one of them (TST4 key).
        # `COLOMBIA / COLOMBIA: MEDELLIN` keeps the manual's reading below.
        return _alternatives([_parse_location(s, a, b) for a, b in pieces])
    if not _has_colon(s, lo, hi, top_level_only=True):
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
    parts = [_assemble(seg, Between, qualified_plain=True) for seg in segments]
    return Location(parts[0], tuple(parts[1:]))


def _parse_number(s: str, lo: int, hi: int) -> Value:
    # Default grammar first; only a plain result is re-read as a range, so
    # inside a cross-reference "5 - 7" stays one string (SCORER-SPEC §2.4.4).
    value = _parse_default(s, lo, hi)
    if isinstance(value, CrossRef | Alternatives):
        return value
    return _assemble(_scan(s, lo, hi, _RANGE), Range)


_PARSERS: dict[SlotType, Callable[[str, int, int], Value]] = {
    SlotType.MESSAGE_ID: _parse_default,
    SlotType.SET: _parse_default,
    SlotType.STRING: _parse_default,
    SlotType.DATE: lambda s, lo, hi: _assemble(_scan(s, lo, hi, _RANGE), Range),
    SlotType.NUMBER: _parse_number,
    SlotType.LOCATION: _parse_location,
}

_OPTIONAL_PREFIX = re.compile(r"\?[ \t]*")
_NO_FILL = {"*": BlankMarker.NOT_APPLICABLE, "-": BlankMarker.NO_DATA, "": BlankMarker.EMPTY}


@lru_cache(maxsize=1 << 16)
def _parse_line(
    text: str, slot_type: SlotType
) -> tuple[Value, BlankMarker | None, int, str, bool]:
    """Parse one value line: ``(fill, marker, error column, error message, recoverable)``.

    ``fill`` is ``None`` when the line contributes no fill (``marker`` tells
    how it was written); on a syntax error the message is non-empty and the
    fill is ``<ERROR>``. Cached: the same values recur thousands of times.
    """
    optional = False
    lo = 0
    m = _OPTIONAL_PREFIX.match(text)
    if m:
        optional = True
        lo = m.end()
    body = text[lo:]
    if body in _NO_FILL:
        return None, _NO_FILL[body], 0, "", False
    try:
        value = _PARSERS[slot_type](text, lo, len(text))
    except _Syntax as bad:
        fill: Value = OptionalValue(ERROR_VALUE) if optional else ERROR_VALUE
        return fill, None, bad.col, bad.message, bad.recoverable
    if value is None:
        return None, BlankMarker.EMPTY, 0, "", False
    if isinstance(value, Text) and value.raw in ("*", "-"):
        return None, _NO_FILL[value.raw], 0, "", False
    if isinstance(value, Range) and value.low is None and value.high is None:
        return None, BlankMarker.NO_DATA, 0, "", False
    if optional:
        value = OptionalValue(value)
    return value, None, 0, "", False


def parse_fill(text: str, slot_type: SlotType) -> Value:
    """Parse one value line of a slot of type ``slot_type`` (as written after the label).

    Returns ``None`` when the line gives no fill (``*``, ``-`` or nothing).
    Raises :class:`InputError` when the value does not parse.

    >>> parse_fill('DEATH: "JESUITS"', SlotType.SET)
    CrossRef(value=Text(raw='DEATH'), tag=Text(raw='"JESUITS"'))
    >>> parse_fill("- 26 AUG 89", SlotType.DATE)
    Range(low=None, high=Text(raw='26 AUG 89'))
    """
    if slot_type is SlotType.TEMPLATE_ID:
        raise ValueError("template ids are not fills; see parse_templates")
    text = text.strip(" \t")
    value, _marker, col, message, _recoverable = _parse_line(text, slot_type)
    if message:
        raise InputError(Problem("<value>", 1, message, col + 1))
    return value


# ---------------------------------------------------------------------------
# Type checks that the grammar alone does not make
# ---------------------------------------------------------------------------


def _set_values(fill: Value) -> Iterable[Text]:
    """The texts of a set fill that must be members of the set (not the xref tags)."""
    if isinstance(fill, OptionalValue):
        fill = fill.value
    if isinstance(fill, CrossRef):
        fill = fill.value
    if isinstance(fill, Text):
        yield fill
    elif isinstance(fill, Alternatives):
        for option in fill.options:
            if isinstance(option, Text):
                yield option


# ---------------------------------------------------------------------------
# Files: decoding, sectioning, slot regions (SCORER-SPEC §2.1-2.3)
# ---------------------------------------------------------------------------

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_LOOKS_LIKE_LABEL = re.compile(r"\d+\.\s")
# What was written as the label: up to the spacing (two blanks or a tab) before the value.
_WRITTEN_LABEL = re.compile(r"\d+\.\s+\S.*?(?=\s{2,}|\t|$)")
_TEMPLATE_ID = re.compile(r"([^\s()/:\"]+)(?:[ \t]*\(([^()]*)\))?")
_MAX_CONTROL_PROBLEMS = 5


# The usual tail (a blank line), spelt with a tab or with a backslash-t.
_BLANK_TAILS = frozenset({r"^[ \t]*$", "^[ \t]*$"})


@lru_cache(maxsize=1 << 14)
def _slot_content(
    values: tuple[str, ...], slot_type: SlotType, members: frozenset[str] | None
) -> tuple[tuple[Value, ...], BlankMarker | None, tuple[tuple[int, int, str], ...], tuple[tuple[int, str], ...]]:
    """Fills and marker of one slot from its value lines, with (line index, column, message)
    errors and (line index, message) warnings. Cached: most slots are ``-`` or ``*``."""
    fills: list[Value] = []
    marker: BlankMarker | None = None
    errors: list[tuple[int, int, str]] = []
    warnings: list[tuple[int, str]] = []
    for index, value in enumerate(values):
        fill, blank, err_col, message, recoverable = _parse_line(value, slot_type)
        if message and recoverable:
            warnings.append((index, f"{message} (the fill is read as <ERROR>, as the 1992 scorer did)"))
        elif message:
            errors.append((index, err_col, message))
        if fill is None:
            if marker is None:
                marker = blank
            continue
        fills.append(fill)
        if members and not message:
            for text in _set_values(fill):
                if text.content.strip().upper() not in members:
                    warnings.append((index, f"{text.raw!r} is not a value of the slot's set"))
    return tuple(fills), (None if fills else marker), tuple(errors), tuple(warnings)


def _in_file_order(problems: list[Problem]) -> tuple[Problem, ...]:
    # Problems of a whole template (a missing slot) are found after its lines; report by line.
    return tuple(sorted(problems, key=lambda p: (p.line is None, p.line or 0, p.column or 0)))


class _FileParser:
    def __init__(self, config: Configuration, path: str):
        self.config = config
        self.path = path
        self.problems: list[Problem] = []
        self.warnings: list[Problem] = []
        try:
            self.header = re.compile(config.template_header_regexp)
            self.tail = re.compile(config.template_tail_regexp)
        except re.error as bad:
            raise InputError(
                Problem(config.source or "<configuration>", None, f"bad template header/tail regexp: {bad}")
            ) from None
        self.blank_tail = config.template_tail_regexp in _BLANK_TAILS
        # Labels are looked up by their first few characters, then by prefix,
        # longest first, so that one label may be a prefix of another.
        self.key_len = min((len(s.label) for s in config.slots if s.label), default=1)
        self.by_prefix: dict[str, list[SlotSpec]] = {}
        for spec in sorted(config.slots, key=lambda s: len(s.label), reverse=True):
            if spec.label:
                self.by_prefix.setdefault(spec.label[: self.key_len], []).append(spec)
        self.order = {s.slot_id: n for n, s in enumerate(config.slots)}
        self.members = {
            s.slot_id: frozenset(v.upper() for v in s.set_members()) for s in config.slots if s.is_set_fill
        }

    def problem(self, line: int | None, message: str, column: int | None = None) -> None:
        self.problems.append(Problem(self.path, line, message, column))

    def warning(self, line: int | None, message: str, column: int | None = None) -> None:
        self.warnings.append(Problem(self.path, line, message, column))

    def unknown_label(self, line: str) -> str:
        """The message for a line that looks like a slot label but is none, with a suggestion."""
        written = _WRITTEN_LABEL.match(line)
        label = (written.group() if written else line)[:60]
        known = [spec.label for spec in self.config.slots]
        close = difflib.get_close_matches(label, known, n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        return f"unknown slot label: {label!r}{hint}"

    def label_of(self, line: str) -> SlotSpec | None:
        for spec in self.by_prefix.get(line[: self.key_len], ()):
            if line.startswith(spec.label):
                return spec
        return None

    # -- sectioning --------------------------------------------------------

    def run(self, text: str) -> ParseResult:
        if "\r" in text:
            text = text.replace("\r\n", "\n")
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if _CONTROL.search(text):
            self.control_characters(lines)
        templates: list[Template] = []
        current: list[tuple[int, str]] | None = None
        header, tail, blank_tail = self.header.match, self.tail.match, self.blank_tail
        for number, line in enumerate(lines, 1):
            if header(line):
                if current:
                    templates.append(self.template(current))
                current = [(number, line)]
            elif (not line.strip(" \t")) if blank_tail else tail(line):
                if current:
                    templates.append(self.template(current))
                current = None
            elif current is not None:
                current.append((number, line))
        if current:
            templates.append(self.template(current))
        if not templates:
            self.no_templates(lines)
        self.duplicates(templates)
        return ParseResult(
            TemplateFile(self.path, tuple(templates)), _in_file_order(self.problems), _in_file_order(self.warnings)
        )

    def no_templates(self, lines: list[str]) -> None:
        # An empty file (or comments only) is what a system that found nothing
        # writes: the 1992 program scored every key template as missing. Other
        # text without a single template header is not a template file at all.
        if all(not line.strip() or line.startswith(";") for line in lines):
            self.warning(None, "no templates (an empty response: every key template is missing)")
        else:
            self.problem(
                None,
                "no templates: no line matches the template header "
                f"{self.config.template_header_regexp!r}",
            )

    def duplicates(self, templates: list[Template]) -> None:
        # `cat key key` or a template pasted twice would be scored twice without a
        # word; no MUC file repeats a message or a template id.
        first_of_message: dict[str, int | None] = {}
        first_of_template: dict[tuple[str, str], int | None] = {}
        previous = None
        for template in templates:
            message = template.message_id
            if message != previous and message in first_of_message:
                self.problem(template.line, f"message {message} given twice: its templates "
                             f"start again here (first on line {first_of_message[message]})")
            first_of_message.setdefault(message, template.line)
            key = (message, template.template_id)
            if key in first_of_template and message == previous:
                self.problem(template.line, f"template {template.template_id} of message "
                             f"{message} given twice (first on line {first_of_template[key]})")
            first_of_template.setdefault(key, template.line)
            previous = message

    def control_characters(self, lines: list[str]) -> None:
        count = 0
        for number, line in enumerate(lines, 1):
            bad = _CONTROL.search(line)
            if bad is not None:
                count += 1
                if count <= _MAX_CONTROL_PROBLEMS:
                    self.problem(
                        number,
                        f"control character {ord(bad.group()):#04x}: binary data in a template file?",
                        bad.start() + 1,
                    )
        if count > _MAX_CONTROL_PROBLEMS:
            self.problem(None, f"{count} lines with control characters in all")

    # -- one template ----------------------------------------------------------

    def template(self, lines: list[tuple[int, str]]) -> Template:
        header_line = lines[0][0]
        # slot label -> [(line number, column of the value, value text)]
        regions: dict[str, list[tuple[int, int, str]]] = {}
        current: list[tuple[int, int, str]] | None = None
        last_order = -1
        for number, line in lines:
            first = line[:1]
            if first == " " or first == "\t":
                value = line.strip(" \t")
                if not value:
                    continue
                if current is not None:
                    current.append((number, len(line) - len(line.lstrip(" \t")) + 1, value))
                else:
                    self.warning(number, "indented line outside any slot ignored")
                continue
            spec = self.label_of(line)
            if spec is None:
                current = None
                if first == ";":
                    continue  # a comment; it ends the slot before it (SCORER-SPEC §2.1)
                if _LOOKS_LIKE_LABEL.match(line):
                    # The 1992 program skips a line it has no label for (it only ends
                    # the slot before it); muceval does the same, and says so.
                    self.warning(number, self.unknown_label(line) + ": line ignored, as the "
                                 "1992 scorer did", 1)
                else:
                    self.warning(
                        number,
                        "line ignored: neither a slot label nor indented as a continuation "
                        f"line: {line.strip()[:40]!r}",
                        1,
                    )
                continue
            if spec.label in regions:
                where = f" (first on line {regions[spec.label][0][0]})"
                # The 1992 program reads the first line with a label; a repeated one
                # (and its continuation lines) is never looked at.
                self.warning(number, f"duplicated slot {spec.label!r}{where}: this line and its "
                             "continuation lines are ignored, as the 1992 scorer did", 1)
                current = None
                continue
            n = self.order[spec.slot_id]
            if n < last_order:
                self.warning(number, f"slot {spec.label!r} is out of order", 1)
            else:
                last_order = n
            rest = line[len(spec.label) :]
            value = rest.strip(" \t")
            column = len(line) - len(rest.lstrip(" \t")) + 1
            current = [(number, column, value)]
            regions[spec.label] = current

        message_id, comment = "", ""
        template_id, optional = "*", False
        slots: list[Slot] = []
        for spec in self.config.slots:
            region = regions.get(spec.label)
            if region is None:
                self.problem(header_line, f"missing slot {spec.label!r} in this template")
                if spec.type not in (SlotType.MESSAGE_ID, SlotType.TEMPLATE_ID):
                    slots.append(Slot(spec.slot_id, (), BlankMarker.EMPTY))
                continue
            if spec.type is SlotType.MESSAGE_ID:
                message_id, comment = self.message_id(spec, region)
            elif spec.type is SlotType.TEMPLATE_ID:
                template_id, optional = self.template_id(spec, region)
            else:
                slots.append(self.slot(spec, region))
        return Template(
            message_id=message_id,
            template_id=template_id,
            optional=optional,
            slots=tuple(slots),
            message_comment=comment,
            path=self.path,
            line=header_line,
        )

    def single_line(self, spec: SlotSpec, region: list[tuple[int, int, str]]) -> tuple[int, int, str]:
        for number, column, _value in region[1:]:
            self.problem(number, f"slot {spec.label!r} takes one value, not several lines", column)
        return region[0]

    def message_id(self, spec: SlotSpec, region: list[tuple[int, int, str]]) -> tuple[str, str]:
        number, column, value = self.single_line(spec, region)
        if not value:
            self.problem(number, f"empty message id in slot {spec.label!r}", column)
            return "", ""
        # Text after the first space is a comment (DEV-MUC3-0001 (NCCOSC)).
        parts = value.split(None, 1)
        return parts[0], (parts[1].strip() if len(parts) > 1 else "")

    def template_id(self, spec: SlotSpec, region: list[tuple[int, int, str]]) -> tuple[str, bool]:
        number, column, value = self.single_line(spec, region)
        if value in _NO_FILL:
            return "*", False
        m = _TEMPLATE_ID.fullmatch(value)
        if m is None:
            self.problem(
                number,
                f"bad template id {value[:40]!r}: expected one token, optionally followed by (OPTIONAL)",
                column,
            )
            return value.split()[0], False
        ident, qualifier = m.group(1), m.group(2)
        if ident == "-":
            ident = "*"
        if qualifier is None:
            return ident, False
        if qualifier.strip().upper() != "OPTIONAL":
            self.problem(
                number,
                f"bad template id qualifier ({qualifier.strip()}): only (OPTIONAL) is allowed",
                column + m.start(2),
            )
            return ident, False
        return ident, True

    def slot(self, spec: SlotSpec, region: list[tuple[int, int, str]]) -> Slot:
        first_number = region[0][0]
        if not region[0][2] and len(region) > 1:
            # The 1992 scorer read such a slot as blank and dropped the lines below.
            self.problem(
                region[1][0],
                f"slot {spec.label!r} has continuation lines but nothing on its label line",
                region[1][1],
            )
            return Slot(spec.slot_id, (), BlankMarker.EMPTY, line=first_number)
        values = (region[0][2],) if len(region) == 1 else tuple(v for _, _, v in region)
        fills, marker, errors, warnings = _slot_content(values, spec.type, self.members.get(spec.slot_id))
        for index, col, message in errors:
            number, column, _ = region[index]
            self.problem(number, f"slot {spec.label!r}: {message}", column + col)
        for index, message in warnings:
            number, column, _ = region[index]
            self.warning(number, f"slot {spec.label!r}: {message}", column)
        return Slot(spec.slot_id, fills, marker, line=first_number)


def parse_templates(text: str, config: Configuration, path: str = "<string>") -> ParseResult:
    """Read every template in ``text`` and collect all problems found.

    >>> from muceval.core.model import SlotSpec
    >>> cfg = Configuration(slots=(SlotSpec("message-id", "0.  MESSAGE: ID", SlotType.MESSAGE_ID),
    ...     SlotSpec("template-id", "1.  MESSAGE: TEMPLATE", SlotType.TEMPLATE_ID),
    ...     SlotSpec("date", "2.  INCIDENT: DATE", SlotType.DATE)))
    >>> r = parse_templates("0.  MESSAGE: ID  M-1\\n1.  MESSAGE: TEMPLATE  1\\n2.  INCIDENT: DATE  - 5 MAY 90\\n", cfg)
    >>> r.problems, r.templates.templates[0].fills("date")
    ((), (Range(low=None, high=Text(raw='5 MAY 90')),))
    """
    return _FileParser(config, str(path)).run(text)


def read_templates(path: str | Path, config: Configuration) -> TemplateFile:
    """Read a key or response file; raise :class:`InputError` listing every problem.

    >>> read_templates("key-tst3.v2", bundled_configuration("muc4"))  # doctest: +SKIP
    """
    result = parse_templates(read_text(path), config, str(path))
    if result.problems:
        raise InputError(result.problems)
    return result.templates


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------


def _fmt(value: Value, ctx: str) -> str:
    """Format ``value`` so that the grammar of context ``ctx`` reads it back unchanged."""
    if value is None:
        return ""
    if isinstance(value, Text):
        return value.raw
    if isinstance(value, OptionalValue):
        return "? " + _fmt(value.value, ctx)
    if isinstance(value, Alternatives):
        return " / ".join(_fmt_option(o, ctx) for o in value.options)
    if isinstance(value, CrossRef):
        return _join(": ", _fmt(value.value, "default"), _fmt(value.tag, "default"))
    if isinstance(value, Range):
        return _join(" - ", _fmt(value.low, "range"), _fmt(value.high, "range"))
    if isinstance(value, Location):
        text = _join(": ", _fmt(value.country, "place"), *(_fmt(p, "place") for p in value.places))
        pieces = _top_level_pieces(text, 0, len(text))
        if len(pieces) > 1 and all(_has_colon(text, a, b, top_level_only=True) for a, b in pieces):
            # Unbracketed, `A: B / C: D` would read back as two whole locations.
            return _join(": ", _fmt(value.country, "place"), *(_bracket_slashes(_fmt(p, "place")) for p in value.places))
        return text
    if isinstance(value, Qualified):
        return f"{_fmt(value.value, 'place')} ({_fmt(value.qualifier, 'qual')})".strip()
    if isinstance(value, Between):
        return _join(" - ", _fmt(value.first, "place"), _fmt(value.second, "place"))
    raise TypeError(f"cannot write {value!r} in a template file")


def _bracket_slashes(text: str) -> str:
    """``text`` in parentheses if it holds a ``/`` that a reader would take as a top-level cut."""
    return f"({text})" if len(_top_level_pieces(text, 0, len(text))) > 1 else text


def _join(separator: str, *parts: str) -> str:
    # An empty part is a null (an open range end, an empty place); no doubled spaces.
    return separator.join(p.strip() for p in parts).strip()


def _fmt_option(option: Value, ctx: str) -> str:
    """One alternative: structured ones go in parentheses so that '/' cannot regroup them."""
    text = _fmt(option, ctx)
    plain = option is None or isinstance(option, Text) or (ctx == "place" and isinstance(option, Qualified))
    return text if plain else f"({text})"


_CONTEXT = {
    SlotType.MESSAGE_ID: "default",
    SlotType.SET: "default",
    SlotType.STRING: "default",
    SlotType.NUMBER: "range",
    SlotType.DATE: "range",
    SlotType.LOCATION: "loc",
}


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
    return _fmt(value, _CONTEXT[slot_type])


def _value_column(config: Configuration) -> int:
    return max(_MIN_VALUE_COLUMN, max((len(s.label) for s in config.slots), default=0) + _LABEL_GAP)


def format_template(template: Template, config: Configuration) -> str:
    """One template in the 1992 layout (no trailing blank line).

    Labels are padded to a common column; further fills of a slot go on
    continuation lines aligned under the first; a blank slot shows its marker.
    """
    column = _value_column(config)
    pad = " " * column
    out: list[str] = []
    for spec in config.slots:
        label = spec.label.ljust(column)
        if spec.type is SlotType.MESSAGE_ID:
            text = template.message_id + (f" {template.message_comment}" if template.message_comment else "")
            out.append((label + text).rstrip())
        elif spec.type is SlotType.TEMPLATE_ID:
            text = template.template_id + (" (OPTIONAL)" if template.optional else "")
            out.append((label + text).rstrip())
        else:
            slot = template.slot(spec.slot_id)
            if not slot.fills:
                marker = slot.marker.value if slot.marker is not None else BlankMarker.EMPTY.value
                out.append((label + marker).rstrip())
                continue
            for n, fill in enumerate(slot.fills):
                out.append(((label if n == 0 else pad) + format_value(fill, spec.type)).rstrip())
    return "\n".join(out)


def write_templates(templates: Iterable[Template], config: Configuration) -> str:
    """A whole template file: templates in order, separated by one blank line.

    >>> write_templates([], Configuration(slots=()))
    ''
    """
    return "".join(format_template(t, config) + "\n\n" for t in templates).removesuffix("\n")
