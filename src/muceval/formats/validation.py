"""Checking input files (``muceval validate``): what kind each file is (one of
:data:`muceval.formats.registry.INPUTS`), what it holds, and every problem in it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from muceval.core.model import Configuration
from muceval.errors import InputError, Problem
from muceval.formats.files import read_text
from muceval.formats.registry import INPUTS, ReadOptions

UNKNOWN = "unknown"  # the kind of a file that could not be read or recognised


@dataclass(frozen=True)
class ValidationResult:
    """What :func:`validate_file` found in one file (see :func:`validate_files`)."""

    path: str
    kind: str
    counts: dict[str, int] = field(default_factory=dict)
    problems: tuple[Problem, ...] = ()
    warnings: tuple[Problem, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems


def validate_file(path: str | Path, config: Configuration,
                  schema: str | None = None) -> ValidationResult:
    """One result of :func:`validate_files` (``schema``: of modern files; None: their layout's).

    >>> import muceval
    >>> from importlib.resources import files
    >>> example = files("muceval") / "data" / "example"
    >>> config = muceval.load_configuration(example / "config.toml")
    >>> validate_file(example / "key.txt", config).counts["templates"]
    12
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
        loaded = kind.load(text, name, ReadOptions(config, schema))
    except InputError as error:
        return ValidationResult(name, kind.label, problems=error.problems)
    return ValidationResult(name, kind.label, loaded.counts, loaded.problems, loaded.warnings)


def validate_files(paths: Iterable[str | Path], config: Configuration,
                   schema: str | None = None) -> list[ValidationResult]:
    """Check files of any kind muceval reads: what each is, what it holds, what is wrong.

    A file's kind is recognised from its content. Unlike the readers, this never raises for a
    bad file: every problem and warning goes into the result (what ``muceval validate`` prints).

    Parameters
    ----------
    paths : iterable of str or pathlib.Path
    config : muceval.core.model.Configuration
        The configuration template files are read with.

    Returns
    -------
    list of muceval.formats.validation.ValidationResult
        One result per path, in order: ``kind`` (``"unknown"`` if it cannot be read or
        recognised), ``counts`` (what the file holds), ``problems`` (what makes it unusable),
        ``warnings`` (what the 1992 scorer accepted but a user should know) and ``ok``.

    Examples
    --------
    >>> import muceval
    >>> from importlib.resources import files
    >>> example = files("muceval") / "data" / "example"
    >>> config = muceval.load_configuration(example / "config.toml")
    >>> results = muceval.validate_files([example / "key.txt", example / "history.lisp",
    ...                                   "/nonexistent/alpha.txt"], config)
    >>> [(r.kind, r.ok) for r in results]
    [('templates', True), ('history', True), ('unknown', False)]
    >>> results[0].counts["templates"], results[1].counts["judgements"]
    (12, 18)
    >>> print(results[2].problems[0])
    /nonexistent/alpha.txt: cannot read file: No such file or directory
    """
    return [validate_file(path, config, schema) for path in paths]
