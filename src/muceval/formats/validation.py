"""Checking input files: what kind each file is, what it holds, and every problem in it.

``muceval validate`` is a thin layer over :func:`validate_file`. What a file
is, and how it is read, is the file registry's business
(:data:`muceval.formats.registry.INPUTS`): a file's kind is recognised from its
content, so that the 1992 files with their varied names need no flags.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from muceval.core.model import Configuration
from muceval.errors import InputError, Problem
from muceval.formats.files import read_text
from muceval.formats.registry import INPUTS, ReadOptions

UNKNOWN = "unknown"
"""The kind of a file that could not be read or recognised."""


@dataclass(frozen=True)
class ValidationResult:
    """What :func:`validate_file` found in one file.

    ``kind`` is the label of the file's kind (``"templates"``, ``"history"``,
    …, or :data:`UNKNOWN`). ``counts`` are what the file holds
    (``{"messages": 100, "templates": 154, ...}``), in a display order;
    ``problems`` every problem found; ``warnings`` what the 1992 scorer
    accepted but a user should know (values outside a slot's set, ignored
    lines, unreadable fills scored as ``<ERROR>``).
    """

    path: str
    kind: str
    counts: dict[str, int] = field(default_factory=dict)
    problems: tuple[Problem, ...] = ()
    warnings: tuple[Problem, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems


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
        return ValidationResult(name, UNKNOWN, problems=error.problems)
    if not text.strip():
        return ValidationResult(name, UNKNOWN, problems=(Problem(name, 1, "empty file"),))
    kind = INPUTS.detect(text, name)
    if kind is None:
        return ValidationResult(name, UNKNOWN, problems=INPUTS.unknown(name).problems)
    try:
        loaded = kind.load(text, name, ReadOptions(config))
    except InputError as error:
        return ValidationResult(name, kind.label, problems=error.problems)
    return ValidationResult(name, kind.label, loaded.counts, loaded.problems, loaded.warnings)


def validate_files(paths: Iterable[str | Path], config: Configuration) -> list[ValidationResult]:
    return [validate_file(path, config) for path in paths]
