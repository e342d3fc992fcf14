"""Unit-tallies CSV: a long table ``system,unit,POS,ACT,COR,PAR`` with a header.

The simplest input of ``muceval significance``: any scorer's per-unit counts.
Missing (system, unit) rows are zeros; duplicates, non-integers, negative
numbers and COR + PAR above POS or ACT are errors naming file and line.

>>> (a,) = parse_unit_csv("system,unit,POS,ACT,COR,PAR\\nA,u1,2,1,1,0\\n")
>>> a.name, a.units["u1"]
('A', Tally(pos=2, act=1, cor=1, par=0, inc=0, icr=0, ipa=0, spu=0, mis=0, non=0, pie=0))
"""

from __future__ import annotations

import warnings
from pathlib import Path

from muceval.core.systems import ScoredSystem, unit_tallies
from muceval.core.tallies import Tally
from muceval.core.units import FIELDS, UnitTallies, check_counts
from muceval.errors import InputError, MucevalWarning, Problem
from muceval.formats.counts import parse_count
from muceval.formats.csvrows import csv_rows
from muceval.formats.files import read_text

__all__ = ["HEADER", "from_csv", "looks_like_unit_csv", "parse_unit_csv"]

HEADER: tuple[str, ...] = ("system", "unit", *FIELDS)
"""The header row (system and unit in lower case, the counts in upper case)."""


def looks_like_unit_csv(text: str, path: str = "") -> bool:
    """True for a ``.csv`` file or a text whose first non-blank line starts ``system,unit``.

    >>> looks_like_unit_csv("System, Unit, POS, ACT, COR, PAR\\n")
    True
    """
    if path.lower().endswith(".csv"):
        return True
    first = next((line for line in text.splitlines() if line.strip()), "")
    return first.replace(" ", "").lower().startswith("system,unit")


def _check_header(cells: list[str], path: str, line: int) -> None:
    header = [c.lower() for c in cells]
    if tuple(c if c in ("system", "unit") else c.upper() for c in header) != HEADER:
        raise InputError.at(
            path, line, f"header must be {','.join(HEADER)}, found {','.join(cells)}"
        )


def _counts(cells: list[str], path: str, line: int) -> Tally | Problem:
    values = []
    for name, cell in zip(FIELDS, cells, strict=True):
        try:
            value = parse_count(cell)
        except ValueError as bad:
            return Problem(path, line, f"{name}: {bad}")
        values.append(value)
    why = check_counts(values)
    if why is not None:
        return Problem(path, line, why)
    pos, act, cor, par = values
    return Tally(pos=pos, act=act, cor=cor, par=par)


def parse_unit_csv(text: str, path: str = "<string>") -> tuple[ScoredSystem, ...]:
    """Every system of a unit-tallies CSV text, in order of first appearance.

    All problems of the rows are collected and raised together as one
    :class:`InputError`; a wrong header stops at once.
    """
    problems: list[Problem] = []
    header_seen = False
    systems: dict[str, dict[str, Tally]] = {}
    first_line: dict[tuple[str, str], int] = {}
    for line, row in csv_rows(text, path):
        if not row or all(not cell.strip() for cell in row):
            continue
        cells = [cell.strip() for cell in row]
        if not header_seen:
            _check_header(cells, path, line)
            header_seen = True
            continue
        if len(cells) != len(HEADER):
            problems.append(
                Problem(path, line, f"expected {len(HEADER)} columns, found {len(cells)}")
            )
            continue
        system, unit = cells[0], cells[1]
        if not system or not unit:
            problems.append(Problem(path, line, "empty system or unit name"))
            continue
        tally = _counts(cells[2:], path, line)
        if isinstance(tally, Problem):
            problems.append(tally)
            continue
        key = (system, unit)
        if key in first_line:
            problems.append(
                Problem(
                    path,
                    line,
                    f"duplicate row for system {system!r}, unit {unit!r} "
                    f"(first on line {first_line[key]})",
                )
            )
            continue
        first_line[key] = line
        systems.setdefault(system, {})[unit] = tally
    if not header_seen:
        raise InputError.at(path, 1, f"empty CSV: expected the header {','.join(HEADER)}")
    if problems:
        raise InputError(problems)
    every_unit = {unit for units in systems.values() for unit in units}
    missing = sum(len(every_unit) - len(units) for units in systems.values())
    if missing:
        # The file's author defined its units; a row left out counts as zeros, said aloud.
        warnings.warn(f"{path}: {missing} row(s) missing (a system without a unit another "
                      "system of the file has): counted as zeros", MucevalWarning, stacklevel=2)
    return tuple(ScoredSystem(name, path, units, unit_level=None) for name, units in systems.items())


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
