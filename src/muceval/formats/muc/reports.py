"""Reader of the fixed-width score reports that the 1992 MUC-4 scorer prints (SCORER-SPEC §10).

Sections are kept in file order with duplicates: the official LSI and SRI reports hold
duplicated sections that were counted in their totals (SCORER-SPEC §13.3).

>>> report = parse_report(_EXAMPLE)
>>> report.summary_row("ALL TEMPLATES").tally.cor, report.f_measures
(1, None)
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from muceval.core.tallies import Tally
from muceval.core.units import MAX_COUNT
from muceval.errors import InputError
from muceval.formats.counts import parse_count
from muceval.formats.files import read_text

__all__ = ["ReportRow", "ReportBlock", "ScoreReport", "parse_report", "read_report", "TAGS"]

TAGS: frozenset[str] = frozenset({"", "missing", "spurious", "optional", "irrelevant", "ignored"})
"""Section tags: ``''`` for a matched pair, otherwise the word printed in brackets."""

_NONE = "<NONE>"
_SUMMARY_MARK = "* * * TOTAL SLOT SCORES * * *"

_ID_LINE = re.compile(
    r"^(?P<msg>\S+)\s+key:\s+(?P<key>\S+)\s+response:\s+(?P<resp>\S+)"
    r"\s*(?:\[(?P<tag>[^\]]*)\])?\s*$"
)
_HEADING = re.compile(
    r"^SLOT\s+POS\s+ACT\|COR\s+PAR\s+INC\|ICR\s+IPA\|SPU\s+MIS\s+NON\|REC\s+PRE\s+OVG(\s+FAL)?\s*$"
)
_RULE_LINE = re.compile(r"^-{5,}[-+]*\s*$")
# The name is everything before the first "number number|" group; names never
# contain that pattern, and every printed number is followed by a space or '|',
# so wide numbers (1092) never run into their neighbours.
_ROW = re.compile(r"^(?P<name>\S.*?)\s+(?P<cols>\d+\s+\d+\|.*)$")
# The columns of the common row: ASCII digits, '*' only among the percentages. Any other row
# is read token by token (_parse_row), with the message that names what is wrong.
_N = r"([0-9]{1,12})"
_M = r"([0-9]{1,12}|\*)"
_PLAIN_COLS = re.compile(
    rf"{_N}\s+{_N}\|\s*{_N}\s+{_N}\s+{_N}\s*\|\s*{_N}\s+{_N}\s*\|\s*{_N}\s+{_N}\s+{_N}"
    rf"\s*\|\s*{_M}\s+{_M}\s+{_M}(?:\s+{_M})?\s*")
_F_HEADING = re.compile(r"^\s*P&R\s+2P&R\s+P&2R\s*$")
_F_LINE = re.compile(r"^F-MEASURES\s+(?P<a>\S+)\s+(?P<b>\S+)\s+(?P<c>\S+)\s*$")
_F_NONE = re.compile(r"^F-MEASURES not available\b.*$")

# Count columns of a row, in print order, grouped as the '|' separators group them.
_GROUPS: tuple[tuple[str, ...], ...] = (
    ("pos", "act"),
    ("cor", "par", "inc"),
    ("icr", "ipa"),
    ("spu", "mis", "non"),
)


class ReportRow(NamedTuple):
    """One tally row of a report (a named tuple, not a dataclass: a report holds tens of
    thousands and a tuple is built in a third of the time).

    ``tally`` holds the printed counts (``pie`` is never printed: 0); ``rec``, ``pre``, ``ovg``
    and ``fal`` the printed percentages, ``None`` for ``*`` or an absent column.

    >>> row = parse_report(_EXAMPLE).summary_row("ALL TEMPLATES")
    >>> (row.tally.pos, row.rec, row.fal, row.has_fal)
    (4, 25, None, False)
    """

    name: str
    tally: Tally
    rec: int | None
    pre: int | None
    ovg: int | None
    fal: int | None
    has_fal: bool
    line: int


@dataclass(frozen=True)
class ReportBlock:
    """One key/response template-pair section of a report; ``key_id``/``response_id`` are
    ``None`` where it prints ``<NONE>``, ``tag`` is one of :data:`TAGS`. Irrelevant sections
    have no rows; optional sections without a response have only the template-id row."""

    message_id: str
    key_id: str | None
    response_id: str | None
    tag: str
    rows: tuple[ReportRow, ...]
    line: int

    def row(self, name: str) -> ReportRow:
        """The first row called ``name``; ``KeyError`` if there is none."""
        for row in self.rows:
            if row.name == name:
                return row
        raise KeyError(name)

    def total(self) -> ReportRow | None:
        """The ``TOTAL`` row (sum of the scored slots), or ``None`` if the section has none."""
        return next((row for row in self.rows if row.name == "TOTAL"), None)


@dataclass(frozen=True)
class ScoreReport:
    """A whole 1992 score report: ``header`` holds the non-blank lines before the first
    section; ``f_measures`` the printed (P&R, 2P&R, P&2R), or ``None`` if not available."""

    path: str
    header: tuple[str, ...]
    blocks: tuple[ReportBlock, ...]
    summary: tuple[ReportRow, ...]
    f_measures: tuple[float, float, float] | None

    def summary_row(self, name: str) -> ReportRow:
        """The summary row called ``name`` (e.g. ``"ALL TEMPLATES"``); ``KeyError`` if absent."""
        for row in self.summary:
            if row.name == name:
                return row
        raise KeyError(name)

    def message_ids(self) -> tuple[str, ...]:
        """Message ids of the sections, in order of first appearance."""
        return tuple(dict.fromkeys(block.message_id for block in self.blocks))


def _parse_int(token: str, path: str, line: int, what: str) -> int | None:
    if token == "*":
        return None
    try:
        return parse_count(token)
    except ValueError as bad:
        raise InputError.at(path, line, f"{what}: expected a number or '*': {bad}") from None


def _plain_int(token: str) -> int | None:
    """The common case, without building a message: a short run of ASCII digits."""
    if len(token) <= 12 and token.isdigit() and token.isascii():
        value = int(token)
        if value <= MAX_COUNT:
            return value
    return None


def _plain_row(name: str, cols: str, line: int) -> ReportRow | None:
    """The common row in one match (a report holds tens of thousands), or None."""
    plain = _PLAIN_COLS.fullmatch(cols)
    if plain is None:
        return None
    values = plain.groups()
    numbers = [int(v) for v in values[:10]]
    measures = [None if v is None or v == "*" else int(v) for v in values[10:]]
    if max(numbers) > MAX_COUNT or any(m is not None and m > MAX_COUNT for m in measures):
        return None
    return ReportRow(name, _tally(*numbers), measures[0], measures[1], measures[2],
                     measures[3], values[13] is not None, line)


@functools.lru_cache(maxsize=1 << 14)
def _tally(*numbers: int) -> Tally:
    # Tallies are immutable and rows repeat (most slots of most templates hold a few small
    # counts): one object per distinct row is built once, not once per row.
    return Tally(*numbers)


def _parse_row(text: str, path: str, line: int) -> ReportRow:
    match = _ROW.match(text)
    if match is None:
        raise InputError.at(path, line, f"not a tally row: {text.strip()!r}")
    name = match.group("name").strip()
    fast = _plain_row(name, match.group("cols"), line)
    if fast is not None:
        return fast
    groups = match.group("cols").split("|")
    if len(groups) != 5:
        raise InputError.at(
            path, line, f"tally row {name!r} has {len(groups) - 1} '|' separators, expected 4"
        )
    counts: dict[str, int] = {}
    for fields, group in zip(_GROUPS, groups[:4], strict=True):
        tokens = group.split()
        if len(tokens) != len(fields):
            raise InputError.at(
                path,
                line,
                f"tally row {name!r}: expected {len(fields)} numbers for "
                f"{'/'.join(f.upper() for f in fields)}, found {len(tokens)}",
            )
        for field_name, token in zip(fields, tokens, strict=True):
            value = _plain_int(token)
            if value is None:
                value = _parse_int(token, path, line, f"tally row {name!r}, {field_name.upper()}")
            # '*' in a count column only occurs in the TEXT FILTERING row (PAR..IPA).
            counts[field_name] = 0 if value is None else value
    measures = groups[4].split()
    if len(measures) not in (3, 4):
        raise InputError.at(
            path,
            line,
            f"tally row {name!r}: expected REC PRE OVG [FAL], found {len(measures)} values",
        )
    rec, pre, ovg = (
        _parse_int(tok, path, line, f"tally row {name!r}, {label}")
        for tok, label in zip(measures[:3], ("REC", "PRE", "OVG"), strict=True)
    )
    has_fal = len(measures) == 4
    fal = _parse_int(measures[3], path, line, f"tally row {name!r}, FAL") if has_fal else None
    return ReportRow(name, Tally(**counts), rec, pre, ovg, fal, has_fal, line)


def _parse_f(token: str, path: str, line: int) -> float:
    try:
        return float(token)
    except ValueError:
        raise InputError.at(path, line, f"F-MEASURES: not a number: {token!r}") from None


def parse_report(text: str, path: str = "<string>") -> ScoreReport:
    """Parse the text of a 1992 score report; malformed input raises :class:`InputError`.

    >>> parse_report(_EXAMPLE).f_measures is None
    True
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    parser = _ReportParser(path)
    # A report repeats a few hundred distinct lines thousands of times (most slots of most
    # templates print the same small counts), so each distinct line is read once: the memo
    # holds its plain-row fields, _BLANK or _RULE, or None for any other line, which the
    # states then read.
    kinds: dict[str, object] = {}
    for number, raw in enumerate(lines, start=1):
        kind = kinds.get(raw)
        if kind is None and raw not in kinds:
            kind = kinds[raw] = _kind(raw)
        if kind is _BLANK or (kind is _RULE and parser.state in ("block", "summary")):
            continue  # both read as nothing here, whatever the state
        if kind is not None and kind is not _RULE and parser.takes_rows():
            parser.add(_new_row((*kind, number)))  # type: ignore[misc]
            continue
        raw = raw.rstrip("\r")
        form_feed = raw.startswith("\f")
        line = raw.lstrip("\f").expandtabs(8)
        if "\f" in line:
            raise InputError.at(path, number, "form feed in the middle of a line")
        parser.feed(number, line, form_feed)
    return parser.finish(len(lines) if lines else None)


_BLANK = object()
_RULE = object()
_new_row = ReportRow._make


def _kind(raw: str) -> object:
    """What a line without its number is: _BLANK, _RULE, the fields of a plain tally row but
    its line number, or None for any other line. A line with a form feed is always None: it
    may close a section first."""
    if "\f" in raw:
        return None
    line = raw.rstrip("\r").expandtabs(8)
    if not line.strip():
        return _BLANK
    if _RULE_LINE.match(line):
        return _RULE
    match = _ROW.match(line)
    row = None if match is None else _plain_row(match.group("name").strip(), match.group("cols"), 0)
    return None if row is None else row[:-1]  # all but the line number


@dataclass
class _OpenBlock:
    message_id: str
    key_id: str | None
    response_id: str | None
    tag: str
    line: int
    rows: list[ReportRow] = field(default_factory=list)


class _ReportParser:
    """The states of a report: header, template blocks, summary, end (after the F-measures)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.header: list[str] = []
        self.blocks: list[ReportBlock] = []
        self.summary: list[ReportRow] = []
        self.f_measures: tuple[float, float, float] | None = None
        self.seen_f = False
        self.state = "header"
        self.current: _OpenBlock | None = None
        self.heading = False  # the SLOT heading of the open section was seen

    def close_block(self) -> None:
        c = self.current
        if c is not None:
            self.blocks.append(
                ReportBlock(c.message_id, c.key_id, c.response_id, c.tag, tuple(c.rows), c.line)
            )
        self.current = None
        self.heading = False

    def feed(self, number: int, line: str, form_feed: bool) -> None:
        if form_feed and self.state == "block":
            self.close_block()
        stripped = line.strip()
        if self.state == "end":
            if stripped:
                raise InputError.at(self.path, number, f"text after the F-measures: {stripped!r}")
            return
        if not stripped:
            return
        if stripped == _SUMMARY_MARK:
            if self.state == "summary":
                raise InputError.at(self.path, number, "second TOTAL SLOT SCORES summary")
            self.close_block()
            self.state = "summary"
            return
        id_match = _ID_LINE.match(line)
        if id_match is not None:
            self._open_block(number, id_match)
        elif self.state == "header":
            if _HEADING.match(line) or _ROW.match(line) or _RULE_LINE.match(line):
                raise InputError.at(
                    self.path, number, "tally rows before any template section or summary"
                )
            self.header.append(stripped)
        elif _HEADING.match(line):
            if self.heading:
                raise InputError.at(self.path, number, "repeated SLOT heading")
            self.heading = True
        elif _RULE_LINE.match(line):
            return
        elif not (self.state == "summary" and self._f_line(number, line, stripped)):
            self._row(number, line, stripped)

    def takes_rows(self) -> bool:
        """Whether a plain tally row goes here (after the SLOT heading of a section or of the
        summary). No other kind of line can be one (an id line has no '|', a heading no number,
        a rule and the F-measures neither), so it is read before the checks for other kinds."""
        return self.heading and (self.current is not None or self.state == "summary")

    def add(self, row: ReportRow) -> None:
        (self.summary if self.current is None else self.current.rows).append(row)

    def _open_block(self, number: int, id_match: re.Match[str]) -> None:
        if self.state == "summary":
            raise InputError.at(self.path, number, "template section after the summary")
        tag = (id_match.group("tag") or "").strip()
        if tag not in TAGS:
            raise InputError.at(self.path, number, f"unknown section tag [{tag}]")
        self.close_block()
        key, resp = id_match.group("key"), id_match.group("resp")
        self.current = _OpenBlock(
            id_match.group("msg"), None if key == _NONE else key, None if resp == _NONE else resp,
            tag, number,
        )  # fmt: skip
        self.state = "block"

    def _f_line(self, number: int, line: str, stripped: str) -> bool:
        """Whether ``line`` is the F-MEASURES heading or line (read into ``f_measures``)."""
        if _F_HEADING.match(line):
            return True
        if not _F_NONE.match(stripped):
            f_match = _F_LINE.match(stripped)
            if f_match is None:
                return False
            a, b, c = (_parse_f(f_match.group(g), self.path, number) for g in "abc")
            self.f_measures = (a, b, c)
        self.seen_f = True
        self.state = "end"
        return True

    def _row(self, number: int, line: str, stripped: str) -> None:
        if self.state == "block" and self.current is None:
            raise InputError.at(self.path, number, f"text outside a template section: {stripped!r}")
        if not self.heading:
            raise InputError.at(
                self.path, number, f"expected the SLOT heading before tally rows, found {stripped!r}"
            )
        self.add(_parse_row(line, self.path, number))

    def finish(self, last: int | None) -> ScoreReport:
        if self.state in ("header", "block"):
            if not self.blocks and self.current is None and not self.header:
                raise InputError.at(self.path, last, "empty report")
            raise InputError.at(self.path, last, "report ends before the TOTAL SLOT SCORES summary")
        if not self.seen_f:
            raise InputError.at(self.path, last, "report ends before the F-MEASURES line")
        if not self.summary:
            raise InputError.at(self.path, last, "the summary has no tally rows")
        return ScoreReport(
            self.path, tuple(self.header), tuple(self.blocks), tuple(self.summary), self.f_measures
        )


def read_report(path: str | Path) -> ScoreReport:
    """Read a score report as the 1992 MUC-4 scorer printed it (the official MUC-4 reports and
    those :func:`format_report` writes, in Latin-1 or UTF-8).

    Returns
    -------
    muceval.formats.muc.reports.ScoreReport
        Every tally row of every key/response section (``blocks``, in file order, duplicated
        sections kept), the ``summary`` rows and the ``f_measures``; a row's ``tally`` holds the
        printed counts, its ``rec``, ``pre``, ``ovg``, ``fal`` the percentages.

    Raises
    ------
    InputError
        If the file cannot be read or is not a complete report, naming file and line.

    Examples
    --------
    A report of the bundled example, written and read back:

    >>> import muceval, tempfile
    >>> from importlib.resources import files
    >>> from pathlib import Path
    >>> example = files("muceval") / "data" / "example"
    >>> config = muceval.load_configuration(example / "config.toml")
    >>> key = muceval.read_templates(example / "key.txt", config)
    >>> pairs = muceval.Scorer(config).score(key, key).pairs  # the key as its own response
    >>> path = Path(tempfile.mkdtemp(), "key.report")
    >>> _ = path.write_text(muceval.format_report(pairs, config))
    >>> report = muceval.read_report(path)
    >>> row = report.summary_row("ALL TEMPLATES")
    >>> row.tally.pos == row.tally.cor, row.rec, row.pre, report.f_measures
    (True, 100, 100, (100.0, 100.0, 100.0))

    The smallest report: a summary with one row, and F-measures not available.

    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".report", delete=False) as f:
    ...     _ = f.write(_EXAMPLE)
    >>> read_report(f.name).summary_row("ALL TEMPLATES").tally.pos
    4
    >>> os.unlink(f.name)
    """
    return parse_report(read_text(path), str(path))


_EXAMPLE = """Configuration: config.el

Report of all-templates scores

 * * * TOTAL SLOT SCORES * * *

SLOT                  POS ACT|COR PAR INC|ICR IPA|SPU MIS NON|REC PRE OVG FAL
-----------------------------+-----------+-------+-----------+---------------
ALL TEMPLATES           4   2|  1   0   0|  0   0|  1   3   0| 25  50  50
F-MEASURES not available, Recall or Precision Nil
"""
