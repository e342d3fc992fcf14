"""Problems found in user input, and the exception that carries them.

Every reader reports a problem with the file, the line (1-based) and, when it
is known, the column, so that a user can go straight to the spot. Readers that
can go on after a problem (``muceval validate``) collect all of them; the
others raise :class:`InputError` with everything found so far.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

MAX_MESSAGE = 400
"""Longest message (and path) a problem shows; longer ones are cut, saying how much."""


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an input file.

    >>> str(Problem("key.txt", 12, "unknown slot label 'FOO:'"))
    "key.txt:12: unknown slot label 'FOO:'"
    >>> len(str(Problem("big.txt", 1, "bad token " + "x" * 10**6)))
    439
    """

    path: str
    line: int | None
    message: str
    column: int | None = None

    def __post_init__(self) -> None:
        # A message quotes what it found; a 1 MB token must not become 1 MB of stderr.
        if len(self.message) > MAX_MESSAGE:
            cut = len(self.message) - MAX_MESSAGE
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
    """Base class of the errors muceval raises on purpose."""


class InputError(MucevalError):
    """An input file (templates, configuration, history, report, tallies) is malformed.

    ``problems`` holds every problem found; ``str()`` lists them one a line.
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
        return cls(Problem(str(path), line, message, column))


class UsageError(MucevalError, ValueError):
    """The caller combined options or arguments that cannot work together, or gave a value
    outside its range (a ``ValueError`` too, as for any bad argument).

    ``parameter`` names the library's parameter at fault; the command line shows its flag
    instead (``--method`` for ``method``), so that each speaks its user's language.

    >>> str(UsageError("choose 'approximate' or 'auto'", parameter="method"))
    "method: choose 'approximate' or 'auto'"
    """

    def __init__(self, message: str, parameter: str | None = None) -> None:
        self.message = message
        self.parameter = parameter
        super().__init__(f"{parameter}: {message}" if parameter else message)

    def naming(self, flag: str) -> UsageError:
        """The same error, its parameter shown as ``flag``."""
        return UsageError(f"{flag}: {self.message}")


class OutputError(MucevalError):
    """A file muceval was asked to write could not be written, or must not be overwritten."""
