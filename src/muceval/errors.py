"""The errors muceval raises on purpose, and the problems found in user input."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

MAX_MESSAGE = 400
"""Longest message (and path) a :class:`Problem` shows."""


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an input file, and where it is.

    Readers raise problems together in an :class:`InputError` (:func:`validate_files` returns
    them). ``str()`` gives the ``path:line:column: message`` form editors can jump to. ``line``
    and ``column`` are 1-based, ``line`` None when the problem concerns the whole file,
    ``column`` None when unknown. A message or path over :data:`MAX_MESSAGE` characters is
    cut, saying how much was left out.

    Examples
    --------
    >>> from muceval import Problem
    >>> str(Problem("key.txt", 12, "unknown slot label 'FOO:'"))
    "key.txt:12: unknown slot label 'FOO:'"
    >>> str(Problem("key.txt", 12, "unparsable date", column=37))
    'key.txt:12:37: unparsable date'
    >>> str(Problem("key.txt", None, "is a folder, not a file"))
    'key.txt: is a folder, not a file'
    >>> len(str(Problem("big.txt", 1, "bad token " + "x" * 10**6)))
    439
    """

    path: str
    line: int | None
    message: str
    column: int | None = None

    def __post_init__(self) -> None:
        # A message quotes what it found; a 1 MB token must not become 1 MB of stderr. One
        # that is only a little long (two long paths) stays whole: cutting a few characters
        # would hide them for nothing.
        if (cut := len(self.message) - MAX_MESSAGE) > 200:
            object.__setattr__(self, "message",
                               f"{self.message[:MAX_MESSAGE]}... ({cut} more characters)")
        if len(self.path) > MAX_MESSAGE:
            object.__setattr__(self, "path", "..." + self.path[-MAX_MESSAGE:])

    def __str__(self) -> str:
        where = self.path
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return f"{where}: {self.message}"


class MucevalError(Exception):
    """Base class of the errors muceval raises on purpose.

    Its three kinds say where the fault lies: :class:`InputError`, :class:`UsageError` and
    :class:`OutputError`. Any other exception is a bug in muceval, not a user's mistake.

    Examples
    --------
    >>> import muceval
    >>> try:
    ...     muceval.bundled_configuration("muc9")
    ... except muceval.MucevalError as error:
    ...     print(type(error).__name__, "-", error)
    UsageError - no bundled configuration named 'muc9' (available: muc4)
    """


class InputError(MucevalError):
    """An input file (templates, configuration, history, report, tallies) is malformed.

    Every reader raises it with all the problems it found before it had to stop.

    Parameters
    ----------
    problems : Problem or iterable of Problem
        At least one (else a ValueError); kept as the tuple ``problems``, one a line in ``str()``.

    Examples
    --------
    >>> from muceval import InputError, Problem
    >>> error = InputError([Problem("key.txt", 3, "unknown slot label 'FOO:'"),
    ...                     Problem("key.txt", 9, "a template without a message id")])
    >>> print(error)
    key.txt:3: unknown slot label 'FOO:'
    key.txt:9: a template without a message id
    >>> [p.line for p in error.problems]
    [3, 9]

    Readers raise it for files they cannot read too:

    >>> import muceval
    >>> muceval.read_history("/nonexistent/history")
    Traceback (most recent call last):
    ...
    muceval.errors.InputError: /nonexistent/history: cannot read file: No such file or directory
    """

    def __init__(self, problems: Iterable[Problem] | Problem):
        if isinstance(problems, Problem):
            problems = (problems,)
        self.problems: tuple[Problem, ...] = tuple(problems)
        if not self.problems:
            raise ValueError("InputError needs at least one problem")
        super().__init__("\n".join(str(p) for p in self.problems))

    @classmethod
    def at(cls, path: str, line: int | None, message: str, column: int | None = None) -> InputError:
        """The error of one :class:`Problem` (the arguments are its fields).

        >>> str(InputError.at("h.lisp", 2, "unbalanced parenthesis", 7))
        'h.lisp:2:7: unbalanced parenthesis'
        """
        return cls(Problem(str(path), line, message, column))


class UsageError(MucevalError, ValueError):
    """The caller asked for what cannot work: a value out of range, or options that conflict.

    A ``ValueError`` too. The message starts with the parameter at fault (``mapping: ...``),
    which the command line shows as its flag (:meth:`naming`); ``message`` and ``parameter``
    are kept as given.

    Examples
    --------
    >>> from muceval import UsageError
    >>> str(UsageError("choose 'approximate' or 'auto'", parameter="method"))
    "method: choose 'approximate' or 'auto'"

    The library raises it when options are made, before any work is done:

    >>> import muceval
    >>> try:
    ...     muceval.ScoringOptions(mapping="best")
    ... except ValueError as error:
    ...     print(error.parameter, "|", error)
    mapping | mapping: 'best': choose 'greedy', 'optimal'
    """

    def __init__(self, message: str, parameter: str | None = None) -> None:
        self.message = message
        self.parameter = parameter
        super().__init__(f"{parameter}: {message}" if parameter else message)

    def naming(self, flag: str) -> UsageError:
        """The same error, its parameter shown as ``flag`` (the command line's name for it).

        >>> print(UsageError("at least 1 shuffle", parameter="shuffles").naming("--shuffles"))
        --shuffles: at least 1 shuffle
        """
        return UsageError(f"{flag}: {self.message}")


class MucevalWarning(UserWarning):
    """What a reader accepted but a user should know (a ``warnings`` category: the command
    line prints it as ``warning: ...`` on stderr)."""


class OutputError(MucevalError):
    """A file muceval was asked to write could not be written, or must not be overwritten.

    Every file muceval writes is written atomically (a temporary file renamed into place), so
    after an ``OutputError`` the target holds its old content or does not exist. An existing
    file that must not be overwritten (no ``--force``), or that is read-only, is refused.

    Examples
    --------
    >>> import muceval
    >>> from importlib.resources import files
    >>> history = muceval.read_history(files("muceval") / "data" / "example" / "history.lisp")
    >>> muceval.save_history(history, "/nonexistent/folder/history.lisp")
    Traceback (most recent call last):
    ...
    muceval.errors.OutputError: cannot write /nonexistent/folder/history.lisp: No such file \
or directory
    """
