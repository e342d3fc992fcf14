"""An Emacs-Lisp-reader-style S-expression parser that remembers positions: the 1992
configurations and histories read into immutable nodes that know their line and column.

>>> forms = parse("(a . \\"b\\") ; comment", "x.el")
>>> forms[0].items[0].name, forms[0].tail.value, forms[0].line, forms[0].column
('a', 'b', 1, 1)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from muceval.errors import InputError
from muceval.formats.files import read_text


@dataclass(frozen=True, slots=True)
class Symbol:
    """A Lisp symbol such as ``inc-type``, ``:slot-file``, ``nil`` or ``t``."""

    name: str
    line: int = field(default=0, compare=False)
    column: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class String:
    """A string literal; ``value`` is the content with escapes resolved."""

    value: str
    line: int = field(default=0, compare=False)
    column: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class Integer:
    value: int
    line: int = field(default=0, compare=False)
    column: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class Float:
    value: float
    line: int = field(default=0, compare=False)
    column: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class Char:
    """A character literal ``?a``; ``value`` is the code point."""

    value: int
    line: int = field(default=0, compare=False)
    column: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class SList:
    """A list; ``tail`` is the final cdr of a dotted list ``(a b . c)``, else ``None``."""

    items: tuple[SExpr, ...]
    tail: SExpr | None = None
    line: int = field(default=0, compare=False)
    column: int = field(default=0, compare=False)
    # Offset of the closing ')' in the text read (-1 when not read from text):
    # what an editor of the file needs to insert before it.
    end: int = field(default=-1, compare=False)

    def __len__(self) -> int:
        return len(self.items)


@dataclass(frozen=True, slots=True)
class Vector:
    items: tuple[SExpr, ...]
    line: int = field(default=0, compare=False)
    column: int = field(default=0, compare=False)


SExpr = Symbol | String | Integer | Float | Char | SList | Vector


def is_nil(node: SExpr) -> bool:
    """``nil`` and ``()`` are the same object to the Lisp reader.

    >>> is_nil(Symbol("nil")), is_nil(SList(())), is_nil(Symbol("t"))
    (True, True, False)
    """
    if isinstance(node, Symbol):
        return node.name == "nil"
    return isinstance(node, SList) and not node.items and node.tail is None


def is_symbol(node: SExpr, name: str | None = None) -> bool:
    """Whether ``node`` is a symbol (named ``name`` when given).

    >>> is_symbol(Symbol("and"), "and")
    True
    """
    return isinstance(node, Symbol) and (name is None or node.name == name)


def unquote(node: SExpr) -> SExpr:
    """``'x`` (read as ``(quote x)``) → ``x``; anything else unchanged.

    >>> unquote(parse("'(a b)", "x")[0]).items[0].name
    'a'
    """
    if (
        isinstance(node, SList)
        and node.tail is None
        and len(node.items) == 2
        and is_symbol(node.items[0], "quote")
    ):
        return node.items[1]
    return node


def describe(node: SExpr) -> str:
    """A short human description of a node for error messages.

    >>> describe(Symbol("foo")), describe(String("x"))
    ("symbol 'foo'", 'string "x"')
    """
    if isinstance(node, Symbol):
        return f"symbol '{node.name}'"
    if isinstance(node, String):
        text = node.value if len(node.value) <= 40 else node.value[:37] + "..."
        return f"string {quote_string(text)}"
    if isinstance(node, Integer):
        return f"integer {node.value}"
    if isinstance(node, Float):
        return f"number {node.value}"
    if isinstance(node, Char):
        return f"character ?{chr(node.value)!s}"
    if isinstance(node, Vector):
        return "a vector"
    if is_nil(node):
        return "an empty list"
    return "a list"


def error_at(path: str, node: SExpr, message: str) -> InputError:
    """An :class:`InputError` at ``node``'s line and column (none if it was not read from text).

    >>> str(error_at("x.el", parse("(a)", "x.el")[0], "bad"))
    'x.el:1:1: bad'
    """
    return InputError.at(path, node.line or None, message, node.column or None)


def list_items(node: SExpr, path: str, expected: str) -> tuple[SExpr, ...]:
    """The items of the proper list ``node`` (none for ``nil``); anything else is an error.

    >>> list_items(Symbol("nil"), "x.el", "expected a list")
    ()
    """
    if is_nil(node):
        return ()
    if not isinstance(node, SList) or node.tail is not None:
        raise error_at(path, node, f"{expected}, found {describe(node)}")
    return node.items


_CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def quote_string(text: str) -> str:
    """``text`` as an Emacs Lisp string literal, as ``prin1`` writes it, control characters
    other than tab and newline as octal escapes (a history never gains a raw NUL byte).

    >>> print(quote_string('"LEADERS"'), quote_string("A\\x00B"))
    "\\"LEADERS\\"" "A\\000B"
    """
    quoted = text.replace("\\", "\\\\").replace('"', '\\"')
    quoted = _CONTROL_CHARS.sub(lambda m: f"\\{ord(m.group()):03o}", quoted)
    return '"' + quoted + '"'


_SYMBOL_SPECIAL = set("()[]\"';`,#?\\ \t\n\r\f\v")


def format_symbol(name: str) -> str:
    """A symbol name written so that the reader gives the same symbol back.

    >>> format_symbol("inc-type"), format_symbol("a b")
    ('inc-type', 'a\\\\ b')
    """
    text = "".join(
        "\\" + ch if ch in _SYMBOL_SPECIAL and not (ch in "#?" and i > 0) or ord(ch) < 32
        or ch == "\x7f" else ch for i, ch in enumerate(name))
    if _NUMBER_RE.fullmatch(name) or name == "." or name == "":
        text = "\\" + text if name else "##"
    return text


def dumps(node: SExpr) -> str:
    """Write a node on one line in reader syntax.

    >>> dumps(parse("(a (b . \\"c\\") 'd)", "x")[0])
    '(a (b . "c") (quote d))'
    """
    if isinstance(node, Symbol):
        return format_symbol(node.name)
    if isinstance(node, String):
        return quote_string(node.value)
    if isinstance(node, Integer):
        return str(node.value)
    if isinstance(node, Float):
        return repr(node.value)
    if isinstance(node, Char):
        ch = chr(node.value)
        return "?\\" + ch if ch in _SYMBOL_SPECIAL or ord(ch) < 32 else "?" + ch
    if isinstance(node, Vector):
        return "[" + " ".join(dumps(item) for item in node.items) + "]"
    inner = " ".join(dumps(item) for item in node.items)
    if node.tail is not None:
        inner += " . " + dumps(node.tail)
    return "(" + inner + ")"


_NUMBER_RE = re.compile(r"[+-]?(?:[0-9]+\.?|[0-9]*\.[0-9]+(?:e[+-]?[0-9]+)?|[0-9]+e[+-]?[0-9]+)")
_INT_RE = re.compile(r"[+-]?[0-9]+\.?")
_DELIMITERS = frozenset("()[]\";'`,")
_WHITESPACE = frozenset(" \t\n\r\f\v")
# The 1992 files nest under 20 levels; deeper input is not a history or configuration, and the
# readers built on these forms recurse over them.
MAX_DEPTH = 1000
_SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "t": "\t",
    "n": "\n",
    "v": "\v",
    "f": "\f",
    "r": "\r",
    "e": "\x1b",
    "s": " ",
    "d": "\x7f",
}
_QUOTE_PREFIX = {"'": "quote", "`": "`", ",": ",", ",@": ",@", "#'": "function"}


@dataclass(slots=True)
class _Frame:
    """An open list, vector or quote while reading."""

    kind: str
    start: int
    line: int
    column: int
    prefix: str = ""
    items: list[SExpr] = field(default_factory=list)
    tail: SExpr | None = None
    dotted: bool = False


class _Dot:
    """The consing dot of ``(a . b)``: only meaningful inside a list."""


class _Reader:
    def __init__(self, text: str, path: str):
        self.text = text
        self.path = path
        self.pos = 0
        self.line = 1
        self.line_start = 0
        self.scanned = 0
        self.first_multiline: int | None = None
        self.suspect: int | None = None

    def error(self, message: str, pos: int | None = None) -> InputError:
        pos = self.pos if pos is None else pos
        line = self.text.count("\n", 0, pos) + 1
        column = pos - (self.text.rfind("\n", 0, pos) + 1) + 1
        return InputError.at(self.path, line, message, column)

    def where(self, pos: int) -> tuple[int, int]:
        # Called in file order, so a running line counter keeps this linear.
        while True:
            nl = self.text.find("\n", self.scanned, pos)
            if nl < 0:
                break
            self.line += 1
            self.line_start = self.scanned = nl + 1
        # Never scan a stretch twice: a one-line file would be quadratic.
        self.scanned = max(self.scanned, pos)
        return self.line, pos - self.line_start + 1

    def skip_blank(self) -> None:
        text, n = self.text, len(self.text)
        while self.pos < n:
            ch = text[self.pos]
            if ch in _WHITESPACE:
                self.pos += 1
            elif ch == ";":
                nl = text.find("\n", self.pos)
                end = n if nl < 0 else nl
                nul = text.find("\x00", self.pos, end)
                if nul >= 0:
                    raise self.error("NUL character (binary data?)", nul)
                self.pos = end
            else:
                return

    def read_all(self) -> tuple[SExpr, ...]:
        forms: list[SExpr] = []
        while True:
            gap_start = self.pos
            self.skip_blank()
            if self.pos >= len(self.text):
                return tuple(forms)
            forms.append(self.read_form(gap_start))

    def read_form(self, gap_start: int) -> SExpr:
        """Read one datum, iteratively so deep input cannot overflow the stack."""
        text = self.text
        stack: list[_Frame] = []
        while True:
            if stack:
                gap_start = self.pos
            self.skip_blank()
            if self.pos >= len(text):
                raise self.end_of_file_error(stack)
            start = self.pos
            line, col = self.where(start)
            ch = text[start]
            # First token of its line: a newline in the gap since the last token
            # (looking only at the gap keeps a one-line file linear).
            if (self.suspect is None and ch not in ")]"
                    and (gap_start == 0 or text.find("\n", gap_start, start) >= 0)):
                self.check_indent(stack, start, col)
            opens_quote = ch in "'`," or (ch == "#" and text.startswith("#'", start))
            if len(stack) >= MAX_DEPTH and (ch in "([" or opens_quote):
                raise self.error(f"nested more than {MAX_DEPTH} levels deep: not a file "
                                 "muceval reads (a history or configuration nests a few levels)")
            node: SExpr | _Dot
            if ch in "([":
                self.pos += 1
                stack.append(_Frame("list" if ch == "(" else "vector", start, line, col))
                continue
            if opens_quote:
                stack.append(self.open_quote(start, line, col))
                continue
            if ch in ")]":
                node = self.close(stack, ch, start)
            else:
                node = _ATOM_READERS.get(ch, _Reader.read_atom)(self, line, col)
            done = self.attach(stack, node, start)
            if done is not None:
                return done

    def end_of_file_error(self, stack: list[_Frame]) -> InputError:
        """The error for a file that ends while ``stack`` is still open."""
        frame = stack[-1]
        if frame.kind == "quote":
            return self.error(f"nothing follows the quote {frame.prefix!r}", frame.start)
        opener = "(" if frame.kind == "list" else "["
        return self.paren_error(
            f"'{opener}' opened at line {frame.line}, column {frame.column} is never "
            "closed (unbalanced parentheses)",
            frame.start,
            stop=len(self.text),
        )

    def open_quote(self, start: int, line: int, col: int) -> _Frame:
        """The frame of the quote form (``'``, ``#'``, a backquote, ``,`` or ``,@``) at ``start``."""
        prefix = self.text[start]
        if self.text.startswith(",@", start) or self.text.startswith("#'", start):
            prefix = self.text[start : start + 2]
        self.pos += len(prefix)
        return _Frame("quote", start, line, col, prefix)

    def close(self, stack: list[_Frame], ch: str, start: int) -> SExpr:
        """The list or vector that the ``ch`` at ``start`` closes, popped off ``stack``."""
        if not stack or stack[-1].kind == "quote":
            raise self.paren_error(f"unexpected '{ch}' (unbalanced parentheses)", start)
        frame = stack[-1]
        expected = ")" if frame.kind == "list" else "]"
        if ch != expected:
            raise self.error(
                f"'{ch}' does not match the '{'(' if expected == ')' else '['}' "
                f"opened at line {frame.line}, column {frame.column}"
            )
        if frame.dotted and frame.tail is None:
            raise self.error("nothing after '.' in a dotted list")
        self.pos += 1
        stack.pop()
        if frame.kind == "list":
            return SList(tuple(frame.items), frame.tail, frame.line, frame.column, start)
        return Vector(tuple(frame.items), frame.line, frame.column)

    def attach(self, stack: list[_Frame], node: SExpr | _Dot, start: int) -> SExpr | None:
        """Add a finished ``node`` to its parent (a quote frame folds into it), or return it."""
        if isinstance(node, _Dot):
            self.mark_dot(stack, start)
            return None
        while stack:
            frame = stack[-1]
            if frame.kind != "quote":
                if not frame.dotted:
                    frame.items.append(node)
                elif frame.tail is None:
                    frame.tail = node
                else:
                    raise self.error("more than one object after '.' in a dotted list", start)
                return None
            stack.pop()
            head = Symbol(_QUOTE_PREFIX[frame.prefix], frame.line, frame.column)
            node = SList((head, node), None, frame.line, frame.column)
        return node

    def mark_dot(self, stack: list[_Frame], start: int) -> None:
        """Record the consing dot read at ``start`` in the list it belongs to."""
        if not stack or stack[-1].kind != "list":
            raise self.error("'.' outside a list", start)
        frame = stack[-1]
        if not frame.items:
            raise self.error("'.' at the start of a list", start)
        if frame.dotted:
            raise self.error("two '.' in one list", start)
        frame.dotted = True

    def read_string(self, line: int, col: int) -> String:
        text, start = self.text, self.pos
        out: list[str] = []
        i = start + 1
        n = len(text)
        while True:
            j = i
            while j < n and text[j] != '"' and text[j] != "\\":
                j += 1
            if j >= n:
                raise self.unterminated(start)
            chunk = text[i:j]
            if "\x00" in chunk:
                raise self.error(
                    "NUL character inside a string (binary data?)", i + chunk.index("\x00")
                )
            out.append(chunk)
            if text[j] == '"':
                self.pos = j + 1
                if self.first_multiline is None and "\n" in text[start:j]:
                    self.first_multiline = start
                return String("".join(out), line, col)
            value, i = self.read_escape(j, in_string=True)
            out.append(value)

    def check_indent(self, stack: list[_Frame], start: int, col: int) -> None:
        """Remember the first line whose indentation contradicts the nesting (a line left of
        the parenthesis meant to contain it, or an indented top-level form): it usually follows
        the line where a ')' is missing or one too many; only an unbalanced file is blamed on it.
        """
        frames = [frame for frame in stack if frame.kind != "quote"]
        if frames:
            if col <= frames[-1].column:
                self.suspect = start
        elif col > 1 and self.text[start] in "([":
            self.suspect = start

    def paren_error(self, message: str, pos: int, stop: int | None = None) -> InputError:
        """An unbalanced-parenthesis error at ``pos``, found when reading reached ``stop``."""
        stop = pos if stop is None else stop
        if self.suspect is None or self.suspect >= stop:
            return self.error(message, pos)
        suspect_line = self.text.count("\n", 0, self.suspect) + 1
        # Blame the last line with code before the badly indented one.
        lines = self.text.split("\n")
        culprit = suspect_line - 1
        while culprit > 1 and not lines[culprit - 1].split(";", 1)[0].strip():
            culprit -= 1
        error_line = self.text.count("\n", 0, stop) + 1
        return InputError.at(
            self.path,
            max(culprit, 1),
            f"unbalanced parentheses: a ')' is probably missing or one too many on this line "
            f"(line {suspect_line} is indented as if it were at another depth; the reader "
            f"stopped at line {error_line}: {message})",
        )

    def unterminated(self, start: int) -> InputError:
        # One missing '"' makes the reader pair every later quote wrongly, and
        # the file then ends inside some later string. The first string that
        # spans lines is where pairing most likely went wrong: blame that line.
        culprit = self.first_multiline
        if culprit is None:
            return self.error("unterminated string (no closing '\"')", start)
        end_line = self.text.count("\n", 0, start) + 1
        return self.error(
            "unterminated string: quotes stop pairing up after this string, which runs "
            f"over several lines; a '\"' is probably missing here (the file ends inside "
            f"a string opened at line {end_line})",
            culprit,
        )

    def read_escape(self, backslash: int, in_string: bool) -> tuple[str, int]:
        """Resolve the escape starting at ``text[backslash] == '\\'``; returns (text, next index)."""
        text = self.text
        i = backslash + 1
        if i >= len(text):
            raise self.error("backslash at end of file", backslash)
        ch = text[i]
        if ch == "\x00":
            raise self.error("NUL character (binary data?)", i)
        if ch == "\n" and in_string:
            return "", i + 1  # escaped newline: line continuation
        if ch in _SIMPLE_ESCAPES:
            return _SIMPLE_ESCAPES[ch], i + 1
        escape = _ESCAPE_READERS.get(ch)
        if escape is not None:
            return escape(self, backslash, in_string)
        if ch in "MSHAs" and text.startswith(ch + "-", i):
            raise self.error(f"modifier escape '\\{ch}-' is not supported here", backslash)
        # Emacs: a backslash before any other character stands for that character.
        return ch, i + 1

    def octal_escape(self, backslash: int, in_string: bool) -> tuple[str, int]:
        """``\\NNN``: up to three octal digits."""
        text, i = self.text, backslash + 1
        j = i
        while j < len(text) and j < i + 3 and text[j] in "01234567":
            j += 1
        return chr(int(text[i:j], 8)), j

    def hex_escape(self, backslash: int, in_string: bool) -> tuple[str, int]:
        """``\\xHH…``: any number of hexadecimal digits."""
        text, i = self.text, backslash + 1
        j = i + 1
        while j < len(text) and text[j] in "0123456789abcdefABCDEF":
            j += 1
        if j == i + 1:
            raise self.error("'\\x' without hexadecimal digits", backslash)
        return self.checked_chr(int(text[i + 1 : j], 16), backslash), j

    def unicode_escape(self, backslash: int, in_string: bool) -> tuple[str, int]:
        """``\\uHHHH`` and ``\\UHHHHHHHH``: exactly four or eight hexadecimal digits."""
        text, i = self.text, backslash + 1
        ch = text[i]
        width = 4 if ch == "u" else 8
        digits = text[i + 1 : i + 1 + width]
        if len(digits) != width or any(d not in "0123456789abcdefABCDEF" for d in digits):
            raise self.error(f"'\\{ch}' needs {width} hexadecimal digits", backslash)
        return self.checked_chr(int(digits, 16), backslash), i + 1 + width

    def named_escape(self, backslash: int, in_string: bool) -> tuple[str, int]:
        """``\\N{NAME}`` or ``\\N{U+HHHH}``; a ``\\N`` without ``{`` is a plain ``N``."""
        text, i = self.text, backslash + 1
        if not text.startswith("{", i + 1):
            return "N", i + 1
        close = text.find("}", i + 2)
        if close < 0:
            raise self.error("unterminated '\\N{…}' escape", backslash)
        name = text[i + 2 : close]
        if name.startswith("U+"):
            try:
                return self.checked_chr(int(name[2:], 16), backslash), close + 1
            except ValueError:
                pass
        import unicodedata

        try:
            return unicodedata.lookup(name), close + 1
        except KeyError:
            raise self.error(f"unknown character name '\\N{{{name}}}'", backslash) from None

    def control_escape(self, backslash: int, in_string: bool) -> tuple[str, int]:
        """``\\^X`` or ``\\C-X``; a ``\\C`` without ``-`` is a plain ``C``."""
        text, i = self.text, backslash + 1
        ch = text[i]
        if ch == "C" and not text.startswith("C-", i):
            return "C", i + 1
        j = i + 1 if ch == "^" else i + 2
        if j >= len(text):
            raise self.error("incomplete control-character escape", backslash)
        if text[j] == "\\":
            base, nxt = self.read_escape(j, in_string)
        else:
            base, nxt = text[j], j + 1
        if len(base) != 1:
            raise self.error("invalid control-character escape", backslash)
        if base == "?":
            return "\x7f", nxt
        code = ord(base.upper()) if base.isalpha() else ord(base)
        if not 0x40 <= code <= 0x5F and base not in "@[\\]^_":
            raise self.error(f"invalid control-character escape '\\C-{base}'", backslash)
        return chr(code & 0x1F), nxt

    def checked_chr(self, code: int, at: int) -> str:
        if code == 0:
            raise self.error("NUL character escape (binary data?)", at)
        if code > 0x10FFFF:
            raise self.error(f"character code {code:#x} out of range", at)
        return chr(code)

    def read_char(self, line: int, col: int) -> Char:
        start = self.pos
        i = start + 1
        if i >= len(self.text):
            raise self.error("'?' at end of file", start)
        ch = self.text[i]
        if ch == "\\":
            value, j = self.read_escape(i, in_string=False)
        elif ch == "\x00":
            raise self.error("NUL character (binary data?)", i)
        else:
            value, j = ch, i + 1
        if len(value) != 1:
            raise self.error("invalid character literal", start)
        self.pos = j
        return Char(ord(value), line, col)

    def read_hash(self, line: int, col: int) -> SExpr:
        start = self.pos
        nxt = self.text[start + 1 : start + 2]
        radix = {"x": 16, "X": 16, "o": 8, "O": 8, "b": 2, "B": 2}.get(nxt)
        if radix is None:
            shown = nxt if nxt and nxt.isprintable() else repr(nxt)
            raise self.error(f"unsupported reader syntax '#{shown}'", start)
        self.pos = start + 2
        token = self.read_token()
        try:
            value = int(token, radix)
        except ValueError:
            raise self.error(f"invalid base-{radix} integer '#{nxt}{token}'", start) from None
        return Integer(value, line, col)

    def read_token(self) -> str:
        text, n = self.text, len(self.text)
        out: list[str] = []
        i = self.pos
        while i < n:
            ch = text[i]
            if ch in _WHITESPACE or ch in _DELIMITERS:
                break
            if ch == "\\":
                if i + 1 >= n:
                    raise self.error("backslash at end of file", i)
                if text[i + 1] == "\x00":
                    raise self.error("NUL character (binary data?)", i + 1)
                out.append(text[i + 1])
                i += 2
                continue
            if ch == "\x00":
                raise self.error("NUL character (binary data?)", i)
            if ord(ch) < 32 or ch == "\x7f":
                raise self.error(f"unexpected control character U+{ord(ch):04X} (binary data?)", i)
            out.append(ch)
            i += 1
        self.pos = i
        return "".join(out)

    def read_atom(self, line: int, col: int) -> SExpr | _Dot:
        start = self.pos
        token = self.read_token()
        if "\\" not in self.text[start : self.pos]:
            if token == ".":
                return _Dot()
            if _NUMBER_RE.fullmatch(token):
                if _INT_RE.fullmatch(token):
                    return Integer(int(token.rstrip(".")), line, col)
                return Float(float(token), line, col)
        return Symbol(token, line, col)


# What a character starts, looked up once per datum or escape rather than tested in turn.
_ATOM_READERS: dict[str, Callable[[_Reader, int, int], SExpr | _Dot]] = {
    '"': _Reader.read_string,
    "?": _Reader.read_char,
    "#": _Reader.read_hash,
}
_EscapeReader = Callable[[_Reader, int, bool], tuple[str, int]]
_ESCAPE_READERS: dict[str, _EscapeReader] = {
    **dict.fromkeys("01234567", _Reader.octal_escape),
    "x": _Reader.hex_escape,
    "u": _Reader.unicode_escape,
    "U": _Reader.unicode_escape,
    "N": _Reader.named_escape,
    "^": _Reader.control_escape,
    "C": _Reader.control_escape,
}


def parse(text: str, path: str = "<string>", *, allow_empty: bool = False) -> tuple[SExpr, ...]:
    """Every top-level form of ``text``, in order (none is an error unless ``allow_empty``).

    >>> [dumps(f) for f in parse("(setq a 1) ; one\\n'b", "x.el")]
    ['(setq a 1)', '(quote b)']
    """
    forms = _Reader(text, path).read_all()
    if not forms and not allow_empty:
        raise InputError.at(path, 1, "empty file: no Lisp form found")
    return forms


def parse_one(text: str, path: str = "<string>") -> SExpr:
    """Exactly one top-level form (a history file is one big list).

    >>> parse_one("(1 2)", "h").items[1].value
    2
    """
    forms = parse(text, path)
    if len(forms) > 1:
        extra = forms[1]
        raise InputError.at(
            path, extra.line, "unexpected text after the end of the first form", extra.column
        )
    return forms[0]


def read_file(path: str | Path, *, allow_empty: bool = False) -> tuple[SExpr, ...]:
    """Parse a Lisp file. Unreadable files become an :class:`InputError` too.

    >>> read_file("/nonexistent.el")
    Traceback (most recent call last):
    muceval.errors.InputError: /nonexistent.el: cannot read file: No such file or directory
    """
    return parse(read_text(path), str(path), allow_empty=allow_empty)
