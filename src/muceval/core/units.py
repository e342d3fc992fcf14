"""Per-unit tallies of several systems, the input of the significance tests: :class:`UnitTallies`
(read from files by :mod:`muceval.formats.scores`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from muceval.errors import UsageError

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "FIELDS",
    "MAX_COUNT",
    "RatioTallies",
    "UnitTallies",
    "check_counts",
    "from_arrays",
    "unshared_document",
]

FIELDS: tuple[str, ...] = ("POS", "ACT", "COR", "PAR")


@dataclass(frozen=True, eq=False)
class UnitTallies:
    """Counts of ``systems × units × (POS, ACT, COR, PAR)``: the input of :func:`compare`.

    A unit is what a randomization test exchanges between two systems: a message (MUC-4
    practice), a template or a single fill (response-level tests, Yeh 2000). Made by
    :func:`from_arrays` or read by :func:`load_inputs` / :func:`load_systems`.

    Attributes
    ----------
    systems, units : tuple of str
        The system names and the unit ids (message ids, for message units), each unique.
    counts : numpy.ndarray
        Shape ``(len(systems), len(units), 4)``, int64, read-only: POS, ACT, COR and PAR.
    level : {'message', 'template', 'fill'} or None, default None

    Raises
    ------
    ValueError
        If ``counts`` has another shape, or names or unit ids repeat.

    Examples
    --------
    >>> t = from_arrays(["A", "B"], ["m1", "m2"], [[[2, 2, 1, 0], [1, 1, 1, 0]],
    ...                                           [[2, 1, 0, 1], [1, 0, 0, 0]]])
    >>> t.totals("A").tolist()
    [3, 3, 2, 0]
    >>> t.system("B").tolist(), t.totals().tolist()
    ([[2, 1, 0, 1], [1, 0, 0, 0]], [[3, 3, 2, 0], [3, 1, 0, 1]])
    >>> t.select(["B"]).systems
    ('B',)
    """

    systems: tuple[str, ...]
    units: tuple[str, ...]
    counts: np.ndarray = field(repr=False)
    level: str | None = None
    """What one unit is, where the source says so."""

    def __post_init__(self) -> None:
        import numpy as np  # imported here: reading modern files needs no NumPy

        counts = np.asarray(self.counts)
        _check_shape(self.systems, self.units, counts)
        if len(set(self.units)) != len(self.units):
            raise ValueError("unit ids must be unique")
        counts = np.array(counts, dtype=np.int64, copy=True)
        counts.setflags(write=False)
        object.__setattr__(self, "counts", counts)

    def index(self, system: str) -> int:
        """Position of ``system``; :class:`UsageError` if it is unknown."""
        return _position(self.systems, system)

    def system(self, name: str) -> np.ndarray:
        """The ``units × 4`` counts of one system."""
        return cast("np.ndarray", self.counts[self.index(name)])

    def totals(self, name: str | None = None) -> np.ndarray:
        """Summed (POS, ACT, COR, PAR) of one system, or ``systems × 4`` for all."""
        return cast("np.ndarray", self.counts.sum(axis=1) if name is None
                    else self.system(name).sum(axis=0))

    def select(self, systems: Sequence[str]) -> UnitTallies:
        """The same units restricted to (and ordered as) ``systems``."""
        rows = [self.index(s) for s in systems]
        return UnitTallies(tuple(systems), self.units, self.counts[rows], self.level)


@dataclass(frozen=True, eq=False)
class RatioTallies:
    """Counts of ``systems × units × (p_num, p_den, r_num, r_den)``: units of the modern scorers.

    The modern MUC-4 scorers (:func:`score_modern`) count per document a precision
    ``p_num / p_den`` and a recall ``r_num / r_den`` whose numerators differ (not the MUC
    tallies' COR + PAR/2). :func:`compare_ratios` and :func:`compare_to_baseline` test them.

    Attributes
    ----------
    systems, units : tuple of str
        The system names, unique, and the unit (document) ids.
    counts : numpy.ndarray
        Shape ``(len(systems), len(units), 4)``, float64 (``prop`` similarity gives
        fractions), read-only: p_num, p_den, r_num, r_den.

    Raises
    ------
    ValueError
        If ``counts`` has another shape, a name repeats, a count is negative or a numerator
        exceeds its denominator.

    Examples
    --------
    >>> import numpy as np
    >>> t = RatioTallies(("A",), ("d1",), np.array([[[1, 2, 1, 3]]], dtype=float))
    >>> t.counts.shape
    (1, 1, 4)
    >>> RatioTallies(("A",), ("d1",), [[[3, 2, 1, 3]]])
    Traceback (most recent call last):
    ...
    ValueError: counts must be non-negative with numerators at most denominators
    """

    systems: tuple[str, ...]
    units: tuple[str, ...]
    counts: np.ndarray = field(repr=False)

    def __post_init__(self) -> None:
        import numpy as np

        counts = np.array(self.counts, dtype=np.float64, copy=True)
        _check_shape(self.systems, self.units, counts)
        if (counts < 0).any() or (counts[..., 0] > counts[..., 1] + 1e-9).any() or \
                (counts[..., 2] > counts[..., 3] + 1e-9).any():
            raise ValueError("counts must be non-negative with numerators at most denominators")
        counts.setflags(write=False)
        object.__setattr__(self, "counts", counts)

    def select(self, systems: Sequence[str]) -> RatioTallies:
        """The same units restricted to (and ordered as) ``systems``."""
        rows = [_position(self.systems, s) for s in systems]
        return RatioTallies(tuple(systems), self.units, self.counts[rows])


def _check_shape(systems: tuple[str, ...], units: tuple[str, ...], counts: np.ndarray) -> None:
    if counts.shape != (len(systems), len(units), 4):
        raise ValueError(f"counts must have shape (systems, units, 4) = "
                         f"{(len(systems), len(units), 4)}, got {counts.shape}")
    if len(set(systems)) != len(systems):
        raise ValueError("system names must be unique")


def _position(systems: tuple[str, ...], system: str) -> int:
    try:
        return systems.index(system)
    except ValueError:
        raise UsageError(f"unknown system {system!r} (known: {', '.join(systems)})") from None


MAX_COUNT = 2**31 - 1
"""The largest count of one tally cell muceval accepts: sums over units and systems
then stay exact in 64-bit integers and in the kernels' arithmetic."""


def unshared_document(systems: Mapping[str, Iterable[str]]) -> tuple[str, str, str] | None:
    """A document one system has and another lacks, as (system, document, the system
    lacking it), or None: a paired test would take a lacking system to have answered nothing.

    >>> unshared_document({"A": ["d1", "d2"], "B": ["d1"]})
    ('A', 'd2', 'B')
    >>> unshared_document({"A": ["d1"], "B": ["d1"]}) is None
    True
    """
    held = {name: set(documents) for name, documents in systems.items()}
    shared = set.intersection(*held.values()) if held else set()
    for name, documents in held.items():
        extra = sorted(documents - shared)
        if extra:
            lacking = next(other for other, theirs in held.items() if extra[0] not in theirs)
            return name, extra[0], lacking
    return None


def check_counts(counts: np.ndarray | Sequence[int]) -> str | None:
    """Why a ``(…, 4)`` array of (POS, ACT, COR, PAR) is not a valid set of MUC tallies, or None.

    >>> check_counts([2, 1, 1, 1])
    'COR + PAR exceeds ACT'
    >>> check_counts([[2, 2, 1, 1]]) is None
    True
    """
    # Four Python ints (a row of a file; an array's items are NumPy's): no NumPy needed.
    if len(counts) == 4 and all(type(c) is int for c in counts):
        return _check_one(*counts)
    import numpy as np

    if not isinstance(counts, np.ndarray) and any(int(c) > MAX_COUNT for c in np.ravel(counts)):
        return _TOO_LARGE
    counts = np.asarray(counts)
    if (counts < 0).any():
        return "counts must not be negative"
    if (counts > MAX_COUNT).any():
        return _TOO_LARGE
    correct = counts[..., 2] + counts[..., 3]
    if (correct > counts[..., 0]).any():
        return "COR + PAR exceeds POS"
    if (correct > counts[..., 1]).any():
        return "COR + PAR exceeds ACT"
    return None


_TOO_LARGE = f"a count exceeds {MAX_COUNT:,}: no tally of fills is that large"


def _check_one(pos: int, act: int, cor: int, par: int) -> str | None:
    """:func:`check_counts` of one tally: the readers call it once per row, where NumPy's
    per-call cost would dominate a file of millions of rows."""
    if min(pos, act, cor, par) < 0:
        return "counts must not be negative"
    if max(pos, act, cor, par) > MAX_COUNT:
        return _TOO_LARGE
    if cor + par > pos:
        return "COR + PAR exceeds POS"
    if cor + par > act:
        return "COR + PAR exceeds ACT"
    return None


def from_arrays(
    systems: Sequence[str], units: Sequence[str], counts: Iterable[Any] | np.ndarray,
    level: str | None = None,
) -> UnitTallies:
    """Build checked :class:`UnitTallies` from names and a ``systems × units × 4`` array.

    Parameters
    ----------
    systems, units : sequence of str
        Names and unit ids, each unique, in the order of the array's axes.
    counts : array_like
        Shape ``(len(systems), len(units), 4)``: POS, ACT, COR, PAR; whole numbers (``2.0``
        is accepted).
    level : {'message', 'template', 'fill'} or None, default None
        What one unit is, if known (reports and results name it).

    Raises
    ------
    ValueError
        If a count is not a whole number, is negative or exceeds 2³¹ − 1, if COR + PAR
        exceeds POS or ACT, if the shape does not fit the names, or if names repeat.

    Examples
    --------
    >>> import muceval
    >>> t = muceval.from_arrays(["A", "B"], ["m1", "m2"], [[[2, 2, 2, 0], [2, 2, 1, 0]],
    ...                                                   [[2, 2, 1, 0], [2, 1, 0, 0]]])
    >>> t.counts.shape, t.totals("A").tolist()
    ((2, 2, 4), [4, 4, 3, 0])
    >>> muceval.from_arrays(["A"], ["u"], [[[1, 0, 1, 0]]])
    Traceback (most recent call last):
    ...
    ValueError: COR + PAR exceeds ACT
    """
    import numpy as np

    array = np.asarray(counts)
    if (array.size and not np.issubdtype(array.dtype, np.integer)
            and not np.all(np.equal(np.mod(array, 1), 0))):
        raise ValueError("counts must be integers")
    array = array.astype(np.int64)
    if (why := check_counts(array)) is not None:
        raise ValueError(why)
    return UnitTallies(tuple(str(s) for s in systems), tuple(str(u) for u in units), array, level)
