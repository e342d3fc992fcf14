"""Checking input files: what kind each file is, what it holds, and every problem in it.

``muceval validate`` is a thin layer over :func:`validate_file`. A file's kind
is recognised from its content (not its name), so that the 1992 files with
their varied names (``key-tst3.v2``, ``BBN.tst3``, ``final-history-nrad.tst3``)
need no flags.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from muceval.core.model import Configuration, History, SlotType, TemplateFile
from muceval.errors import InputError, Problem
from muceval.formats.config import load_configuration, parse_configuration_toml
from muceval.formats.files import read_text
from muceval.formats.muc.history import parse_history
from muceval.formats.muc.reports import parse_report
from muceval.formats.muc.templates import parse_templates


class FileKind(str, Enum):
    TEMPLATES = "templates"
    CONFIGURATION = "configuration"
    SLOT_CONFIGURATION = "slot configuration"
    HISTORY = "history"
    REPORT = "score report"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class ValidationResult:
    """What :func:`validate_file` found in one file.

    ``counts`` are what the file holds (``{"messages": 100, "templates": 154, ...}``),
    in a display order; ``problems`` every problem found; ``warnings`` what the
    1992 scorer accepted but a user should know (values outside a slot's set,
    ignored lines, unreadable fills scored as ``<ERROR>``).
    """

    path: str
    kind: FileKind
    counts: dict[str, int] = field(default_factory=dict)
    problems: tuple[Problem, ...] = ()
    warnings: tuple[Problem, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems


_REPORT_HEADING = re.compile(r"^SLOT\s+POS ACT\|COR PAR INC\|", re.MULTILINE)
_LISP_FORM = re.compile(r"\(\s*(define-muc-configuration-options|define-muc-template-slots|setq)\b")


def detect_kind(text: str, path: str = "") -> FileKind:
    """Guess what a file is from its content.

    >>> detect_kind('((\"TST3-MUC4-0001\" (\"1\" (inc-date (\"1 JAN 90\" fail)))))')
    <FileKind.HISTORY: 'history'>
    """
    if path.endswith(".toml"):
        return FileKind.CONFIGURATION
    if _REPORT_HEADING.search(text):
        return FileKind.REPORT
    forms = {m.group(1) for m in _LISP_FORM.finditer(text)}
    if "define-muc-configuration-options" in forms:
        return FileKind.CONFIGURATION
    if "define-muc-template-slots" in forms:
        return FileKind.SLOT_CONFIGURATION
    stripped = _strip_lisp_comments(text).lstrip()
    if stripped.startswith("("):
        return FileKind.HISTORY
    if re.search(r"^\d+\.\s+\S", text, re.MULTILINE):
        return FileKind.TEMPLATES
    return FileKind.UNKNOWN


def _strip_lisp_comments(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(";"))


def validate_file(path: str | Path, config: Configuration) -> ValidationResult:
    """Read one file of any kind muceval knows and report what it holds and what is wrong.

    Template files are read with ``config`` (their slots are defined there).

    >>> from muceval.formats.config import bundled_configuration
    >>> result = validate_file("key-tst3.v2", bundled_configuration())  # doctest: +SKIP
    >>> result.counts["templates"]  # doctest: +SKIP
    154
    """
    name = str(path)
    try:
        text = read_text(path)
    except InputError as error:
        return ValidationResult(name, FileKind.UNKNOWN, problems=error.problems)
    if not text.strip():
        return ValidationResult(name, FileKind.UNKNOWN, problems=(Problem(name, 1, "empty file"),))
    kind = detect_kind(text, name)
    try:
        if kind is FileKind.TEMPLATES:
            result = parse_templates(text, config, name)
            return ValidationResult(
                name, kind, _template_counts(result.templates), result.problems, result.warnings
            )
        if kind is FileKind.CONFIGURATION:
            loaded = (
                parse_configuration_toml(text, name)
                if name.endswith(".toml")
                else load_configuration(name)
            )
            return ValidationResult(name, kind, _configuration_counts(loaded))
        if kind is FileKind.SLOT_CONFIGURATION:
            loaded = load_configuration(name)
            return ValidationResult(name, kind, _configuration_counts(loaded))
        if kind is FileKind.HISTORY:
            return ValidationResult(name, kind, _history_counts(parse_history(text, name)))
        if kind is FileKind.REPORT:
            report = parse_report(text, name)
            counts = {
                "messages": len({b.message_id for b in report.blocks}),
                "template pairs": len(report.blocks),
                "summary rows": len(report.summary),
            }
            return ValidationResult(name, kind, counts)
    except InputError as error:
        return ValidationResult(name, kind, problems=error.problems)
    return ValidationResult(
        name,
        kind,
        problems=(
            Problem(
                name,
                None,
                "not a file muceval knows: expected templates, a configuration, a history "
                "or a score report",
            ),
        ),
    )


def validate_files(paths: Iterable[str | Path], config: Configuration) -> list[ValidationResult]:
    return [validate_file(path, config) for path in paths]


def _template_counts(templates: TemplateFile) -> dict[str, int]:
    fills = sum(len(slot.fills) for t in templates.templates for slot in t.slots)
    return {
        "messages": len(templates.message_ids()),
        "templates": len(templates.templates),
        "irrelevant templates": sum(1 for t in templates.templates if t.irrelevant),
        "optional templates": sum(1 for t in templates.templates if t.optional),
        "fills": fills,
    }


def _configuration_counts(config: Configuration) -> dict[str, int]:
    return {
        "slots": len(config.slots),
        "set-fill slots": sum(1 for s in config.slots if s.type is SlotType.SET),
        "string-fill slots": sum(1 for s in config.slots if s.type is SlotType.STRING),
        "premodifiers": len(config.string_premodifiers),
        "subtotal rows": len(config.subtotal_rows),
    }


def _history_counts(history: History) -> dict[str, int]:
    counts = {"messages": len(history.messages), "judgements": 0}
    for _, _, _, entry in history.entries():
        counts["judgements"] += 1
        counts[entry.judgement.value] = counts.get(entry.judgement.value, 0) + 1
    counts["manual mappings"] = len(history.mappings())
    return counts
