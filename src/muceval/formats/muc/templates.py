"""Reading and writing MUC template files (answer keys and system responses) in the 1992 layout
(SCORER-SPEC §2): ``parse(write(t)) == t``. What the 1992 program accepted without complaint is
only a warning, so that every official file reads cleanly."""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from muceval.core.model import (
    Alternatives,
    BlankMarker,
    Configuration,
    CrossRef,
    OptionalValue,
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
from muceval.formats.muc.fills import (
    ERROR_VALUE,
    NO_FILL_MARKERS,
    format_value,
    parse_fill,
    parse_value_line,
)

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

# Written values start at column 36 as in the official keys (the longest MUC-4 label has 33
# characters), at least two spaces after any label.
_MIN_VALUE_COLUMN = 35
_LABEL_GAP = 2


@dataclass(frozen=True, slots=True)
class ParseResult:
    """Templates read from one file; ``problems`` make the file unusable as it is,
    ``warnings`` are oddities the 1992 scorer accepted silently."""

    templates: TemplateFile
    problems: tuple[Problem, ...]
    warnings: tuple[Problem, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems


def _set_values(fill: Value) -> list[Text]:
    """The texts of a set fill that must be members of the set (not the xref tags)."""
    if isinstance(fill, OptionalValue):
        fill = fill.value
    if isinstance(fill, CrossRef):
        fill = fill.value
    options = fill.options if isinstance(fill, Alternatives) else (fill,)
    return [option for option in options if isinstance(option, Text)]


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
        fill, blank, err_col, message, recoverable = parse_value_line(value, slot_type)
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
        outside: list[int] = []  # lines of text in no template
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
            elif not line.startswith(";") and any(c.isalnum() for c in line):
                outside.append(number)  # separators ("* * *") and blank lines are not text
        if current:
            templates.append(self.template(current))
        if templates:
            self.outside(outside, lines)
        else:  # no_templates says what the file is
            self.no_templates(lines)
        self.duplicates(templates)
        return ParseResult(
            TemplateFile(self.path, tuple(templates)), _in_file_order(self.problems), _in_file_order(self.warnings)
        )

    def outside(self, numbers: list[int], lines: list[str]) -> None:
        """Text in no template (before the first header, after a template's end): the 1992
        program skipped it; said once per run of such lines, as it may be a cut template."""
        for _, run in itertools.groupby(enumerate(numbers), lambda pair: pair[1] - pair[0]):
            start, *rest = (number for _, number in run)
            self.warning(start, f"{len(rest) + 1} line(s) of text outside any template, from "
                         f"{lines[start - 1].strip()[:40]!r}: skipped, as the 1992 program did")

    def no_templates(self, lines: list[str]) -> None:
        # An empty file (or comments only) is what a system that found nothing writes (the 1992
        # program scored every key template missing); other headerless text is no template file.
        if all(not line.strip() or line.startswith(";") for line in lines):
            self.warning(None, "no templates (an empty response: every key template is missing)")
        else:
            self.problem(
                None,
                "no templates: no line matches the template header "
                f"{self.config.template_header_regexp!r}",
            )

    def duplicates(self, templates: list[Template]) -> None:
        # `cat key key` or a pasted template would be scored twice without a word; no MUC file
        # repeats a message or a template id.
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
        found = [(number, bad) for number, line in enumerate(lines, 1)
                 if (bad := _CONTROL.search(line)) is not None]
        for number, bad in found[:_MAX_CONTROL_PROBLEMS]:
            self.problem(number, f"control character {ord(bad.group()):#04x}: binary data in a "
                         "template file?", bad.start() + 1)
        if len(found) > _MAX_CONTROL_PROBLEMS:
            self.problem(None, f"{len(found)} lines with control characters in all")

    def template(self, lines: list[tuple[int, str]]) -> Template:
        header_line = lines[0][0]
        regions = self.slot_regions(lines)
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

    def slot_regions(self, lines: list[tuple[int, str]]) -> dict[str, list[tuple[int, int, str]]]:
        """The lines of each slot of a template, by label: (line number, column of the value, value)."""
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
                self.unlabelled(number, line)
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
        return regions

    def unlabelled(self, number: int, line: str) -> None:
        """Warn that a line neither indented nor labelled is skipped; a comment is skipped silently."""
        if line[:1] == ";":
            return  # a comment (SCORER-SPEC §2.1)
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
        if value in NO_FILL_MARKERS:
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
        if qualifier is not None and qualifier.strip().upper() != "OPTIONAL":
            self.problem(
                number,
                f"bad template id qualifier ({qualifier.strip()}): only (OPTIONAL) is allowed",
                column + m.start(2),
            )
            return ident, False
        return ident, qualifier is not None

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
    """Read an answer-key or response file in the 1992 template layout.

    The file is cut into templates at the configuration's template-header lines and into
    slots at its slot labels; each fill is parsed with the grammar of its slot's type. The
    file may be UTF-8 or Latin-1. What the 1992 program accepted without complaint (a slot out
    of order, a set fill outside its set) is allowed; :func:`validate_files` lists it.

    Raises
    ------
    InputError
        If the file cannot be read, or listing every problem in it (an unknown slot label,
        a missing slot, an unparsable fill...), each with file, line and column.

    Examples
    --------
    >>> import muceval
    >>> from importlib.resources import files
    >>> example = files("muceval") / "data" / "example"
    >>> config = muceval.load_configuration(example / "config.toml")
    >>> key = muceval.read_templates(example / "key.txt", config)
    >>> len(key.templates), len(key.message_ids())
    (12, 10)
    >>> first = key.templates[0]
    >>> first.message_id, first.template_id, first.fills("inc-type")
    ('DEMO-0001', '1', (Text(raw='BOMBING'),))
    """
    result = parse_templates(read_text(path), config, str(path))
    if result.problems:
        raise InputError(result.problems)
    return result.templates


def format_template(template: Template, config: Configuration) -> str:
    """One template in the 1992 layout (no trailing blank line)."""
    longest = max((len(spec.label) for spec in config.slots), default=0)
    column = max(_MIN_VALUE_COLUMN, longest + _LABEL_GAP)
    pad = " " * column
    out: list[str] = []
    for spec in config.slots:
        label = spec.label.ljust(column)
        if spec.type is SlotType.MESSAGE_ID:
            # Without a comment, the blank after the id goes with the rstrip below.
            texts = [f"{template.message_id} {template.message_comment}"]
        elif spec.type is SlotType.TEMPLATE_ID:
            texts = [template.template_id + (" (OPTIONAL)" if template.optional else "")]
        else:
            slot = template.slot(spec.slot_id)
            marker = slot.marker.value if slot.marker is not None else BlankMarker.EMPTY.value
            texts = [format_value(fill, spec.type) for fill in slot.fills] or [marker]
        out.extend(((label if n == 0 else pad) + text).rstrip() for n, text in enumerate(texts))
    return "\n".join(out)


def write_templates(templates: Iterable[Template], config: Configuration) -> str:
    """A whole template file: templates in order, separated by one blank line.

    >>> write_templates([], Configuration(slots=()))
    ''
    """
    return "".join(format_template(t, config) + "\n\n" for t in templates).removesuffix("\n")
