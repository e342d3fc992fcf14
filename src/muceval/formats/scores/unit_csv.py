"""Unit-tallies CSV, any scorer's per-unit counts: a table ``system,unit,POS,ACT,COR,PAR``
with a header; missing (system, unit) rows are zeros.

>>> (a,) = parse_unit_csv("system,unit,POS,ACT,COR,PAR\\nA,u1,2,1,1,0\\n")
>>> a.name, a.units["u1"]
('A', Tally(pos=2, act=1, cor=1, par=0, inc=0, icr=0, ipa=0, spu=0, mis=0, non=0, pie=0))
"""

from __future__ import annotations

import warnings
from array import array
from pathlib import Path
from typing import TYPE_CHECKING

from muceval.core.systems import ArrayUnits, ScoredSystem, unit_tallies
from muceval.core.units import FIELDS, UnitTallies, check_counts
from muceval.errors import InputError, MucevalWarning, Problem
from muceval.formats.counts import parse_count
from muceval.formats.csvrows import csv_rows
from muceval.formats.files import read_text

if TYPE_CHECKING:
    import numpy as np

__all__ = ["HEADER", "from_csv", "parse_unit_csv"]

HEADER: tuple[str, ...] = ("system", "unit", *FIELDS)


def _check_header(cells: list[str], path: str, line: int) -> None:
    header = [c.lower() for c in cells]
    if tuple(c if c in ("system", "unit") else c.upper() for c in header) != HEADER:
        raise InputError.at(
            path, line, f"header must be {','.join(HEADER)}, found {','.join(cells)}"
        )


def _counts(cells: list[str], path: str, line: int) -> Problem:
    """Why one row's counts are not a MUC tally (the row is known to be wrong)."""
    values = []
    for name, cell in zip(FIELDS, cells, strict=True):
        try:
            values.append(parse_count(cell))
        except ValueError as bad:
            return Problem(path, line, f"{name}: {bad}")
    return Problem(path, line, check_counts(values) or "not a MUC tally")


class _Columns:
    """The rows as columns, counts converted at once: millions of rows stay a few arrays."""

    def __init__(self) -> None:
        self.systems: dict[str, int] = {}
        self.units: dict[str, int] = {}
        self.system = array("l")
        self.unit = array("l")
        self.line = array("l")
        self.cells: list[str] = []  # four count cells per row, stripped

    def add(self, system: str, unit: str, counts: list[str], line: int) -> None:
        self.system.append(self.systems.setdefault(system, len(self.systems)))
        self.unit.append(self.units.setdefault(unit, len(self.units)))
        self.line.append(line)
        self.cells.extend(counts)

    def counts(self, path: str, problems: list[Problem]) -> np.ndarray:
        """The ``rows × 4`` counts; a row that is no MUC tally adds its problem."""
        import numpy as np  # imported here: the registry's sniffer is imported for every file

        cells = self.cells
        if all(c.isascii() and c.isdigit() and len(c) < 10 for c in cells):
            counts = np.array(cells, dtype=np.int64).reshape(-1, 4)
            correct = counts[:, 2] + counts[:, 3]
            bad = np.flatnonzero((correct > counts[:, 0]) | (correct > counts[:, 1]))
        else:
            counts = np.zeros((len(self.line), 4), dtype=np.int64)
            bad = np.arange(len(self.line))
        for row in bad.tolist():
            problem = _counts(cells[4 * row: 4 * row + 4], path, self.line[row])
            if problem.message != "not a MUC tally":
                problems.append(problem)
            else:
                counts[row] = [parse_count(c) for c in cells[4 * row: 4 * row + 4]]
        return counts

    def duplicates(self, path: str, problems: list[Problem]) -> None:
        """A (system, unit) given twice is an error naming both lines."""
        import numpy as np

        key = np.array(self.system, dtype=np.int64) * max(1, len(self.units)) + np.array(
            self.unit, dtype=np.int64)
        order = np.argsort(key, kind="stable")
        repeated = np.flatnonzero(key[order][1:] == key[order][:-1]) + 1
        systems, units = list(self.systems), list(self.units)
        first: dict[int, int] = {}
        for k in repeated.tolist():
            row, earlier = int(order[k]), int(order[k - 1])
            first.setdefault(int(key[row]), self.line[earlier])
            problems.append(Problem(
                path, self.line[row],
                f"duplicate row for system {systems[self.system[row]]!r}, unit "
                f"{units[self.unit[row]]!r} (first on line {first[int(key[row])]})"))


def parse_unit_csv(text: str, path: str = "<string>") -> tuple[ScoredSystem, ...]:
    """Every system of a unit-tallies CSV text, in order of first appearance; the problems of
    all rows are raised together, in line order."""
    problems: list[Problem] = []
    columns = _Columns()
    header_seen = False
    for line, row in csv_rows(text, path):
        if not row or all(not cell.strip() for cell in row):
            continue
        if not header_seen:
            _check_header([cell.strip() for cell in row], path, line)
            header_seen = True
            continue
        if len(row) != len(HEADER):
            problems.append(
                Problem(path, line, f"expected {len(HEADER)} columns, found {len(row)}"))
            continue
        system, unit = row[0].strip(), row[1].strip()
        if not system or not unit:
            problems.append(Problem(path, line, "empty system or unit name"))
            continue
        columns.add(system, unit, [cell.strip() for cell in row[2:]], line)
    if not header_seen:
        raise InputError.at(path, 1, f"empty CSV: expected the header {','.join(HEADER)}")
    counts = columns.counts(path, problems)
    columns.duplicates(path, problems)
    if problems:
        raise InputError(sorted(problems, key=lambda p: p.line or 0))
    return _systems(columns, counts, path)


def _systems(columns: _Columns, counts: np.ndarray, path: str) -> tuple[ScoredSystem, ...]:
    import numpy as np

    names = list(columns.units)
    system = np.array(columns.system, dtype=np.int64)
    unit = np.array(columns.unit, dtype=np.int64)
    missing = len(columns.systems) * len(names) - len(system)
    if missing:
        # The file's author defined its units; a row left out counts as zeros, said aloud.
        warnings.warn(f"{path}: {missing} row(s) missing (a system without a unit another "
                      "system of the file has): counted as zeros", MucevalWarning, stacklevel=3)
    out = []
    for n, name in enumerate(columns.systems):
        mine = system == n
        out.append(ScoredSystem(name, path, ArrayUnits(names, unit[mine], counts[mine]),
                                unit_level=None))
    return tuple(out)


def from_csv(path: str | Path) -> UnitTallies:
    """Per-unit tallies from the unit-tallies CSV at ``path`` (header required).

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "tallies.csv")
    >>> _ = open(path, "w").write("system,unit,POS,ACT,COR,PAR\\nalpha,m1,2,2,1,0\\n"
    ...                           "beta,m1,2,1,1,0\\n")
    >>> from_csv(path).systems
    ('alpha', 'beta')
    """
    return unit_tallies(parse_unit_csv(read_text(path), str(path)))
