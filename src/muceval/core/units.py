"""Per-unit tallies of several systems: the input of the significance tests.

A *unit* is whatever a randomization test exchanges between two systems: a
message (MUC-4 practice) or a single response (response-level randomization,
Yeh 2000). For every system and unit we keep the four counts that recall,
precision and the F-measures need: POS, ACT, COR, PAR.

Loaders:

* :func:`from_reports` — 1992 score reports (one system per file). A message's
  tallies are the sums of the TOTAL rows of its template-pair sections
  (duplicated sections included, as the 1992 totals include them); sections
  without a TOTAL row (irrelevant, optional without a response) add nothing.
  The system name is the file name up to its first ``.``
  (``GE-CMU.tst3-pass1.nrad`` → ``GE-CMU``).
* :func:`from_csv` — a long CSV ``system,unit,POS,ACT,COR,PAR`` with a header.
* :func:`from_arrays` — for library callers.
* muceval's own scores (``muceval score --format json``): per message, the
  TOTAL of its ALL TEMPLATES accumulator; every system in the file.
* :func:`load_inputs` — what the CLI uses: dispatches every file to a loader
  (see :data:`LOADERS`) and merges the results.

Units missing for a system count as zeros; the unit set is the union over
systems, sorted, so that results do not depend on file order.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from muceval.errors import InputError, Problem, UsageError
from muceval.formats.files import read_text
from muceval.formats.muc.reports import ScoreReport, parse_report, read_report

__all__ = [
    "FIELDS",
    "UnitTallies",
    "from_arrays",
    "from_csv",
    "from_report_objects",
    "from_reports",
    "load_inputs",
    "LOADERS",
    "register_loader",
    "system_name",
]

FIELDS: tuple[str, ...] = ("POS", "ACT", "COR", "PAR")


@dataclass(frozen=True, eq=False)
class UnitTallies:
    """Counts of ``systems × units × (POS, ACT, COR, PAR)`` as a read-only int64 array.

    >>> t = from_arrays(["A", "B"], ["m1", "m2"], [[[2, 2, 1, 0], [1, 1, 1, 0]],
    ...                                           [[2, 1, 0, 1], [1, 0, 0, 0]]])
    >>> t.totals("A").tolist()
    [3, 3, 2, 0]
    """

    systems: tuple[str, ...]
    units: tuple[str, ...]
    counts: np.ndarray = field(repr=False)

    def __post_init__(self) -> None:
        counts = np.asarray(self.counts)
        if counts.shape != (len(self.systems), len(self.units), 4):
            raise ValueError(
                f"counts must have shape (systems, units, 4) = "
                f"{(len(self.systems), len(self.units), 4)}, got {counts.shape}"
            )
        if len(set(self.systems)) != len(self.systems):
            raise ValueError("system names must be unique")
        if len(set(self.units)) != len(self.units):
            raise ValueError("unit ids must be unique")
        counts = np.array(counts, dtype=np.int64, copy=True)
        counts.setflags(write=False)
        object.__setattr__(self, "counts", counts)

    def index(self, system: str) -> int:
        """Position of ``system``; :class:`UsageError` if it is unknown."""
        try:
            return self.systems.index(system)
        except ValueError:
            raise UsageError(
                f"unknown system {system!r} (known: {', '.join(self.systems)})"
            ) from None

    def system(self, name: str) -> np.ndarray:
        """The ``units × 4`` counts of one system."""
        return self.counts[self.index(name)]

    def totals(self, name: str | None = None) -> np.ndarray:
        """Summed (POS, ACT, COR, PAR) of one system, or ``systems × 4`` for all."""
        if name is None:
            return self.counts.sum(axis=1)
        return self.system(name).sum(axis=0)

    def select(self, systems: Sequence[str]) -> UnitTallies:
        """The same units restricted to (and ordered as) ``systems``."""
        rows = [self.index(s) for s in systems]
        return UnitTallies(tuple(systems), self.units, self.counts[rows])


def _check_counts(counts: np.ndarray) -> str | None:
    """Why a (…, 4) count array is not a valid set of MUC tallies, or None."""
    if (counts < 0).any():
        return "counts must not be negative"
    correct = counts[..., 2] + counts[..., 3]
    if (correct > counts[..., 0]).any():
        return "COR + PAR exceeds POS"
    if (correct > counts[..., 1]).any():
        return "COR + PAR exceeds ACT"
    return None


def from_arrays(
    systems: Sequence[str], units: Sequence[str], counts: Iterable | np.ndarray
) -> UnitTallies:
    """Build :class:`UnitTallies` from names and a ``systems × units × 4`` array.

    Counts must be non-negative with COR + PAR ≤ min(POS, ACT) in every unit,
    as in any MUC tally; otherwise :class:`ValueError`.

    >>> from_arrays(["A"], ["u"], [[[1, 1, 1, 0]]]).counts.shape
    (1, 1, 4)
    """
    array = np.asarray(counts)
    if array.size and not np.issubdtype(array.dtype, np.integer):
        if not np.all(np.equal(np.mod(array, 1), 0)):
            raise ValueError("counts must be integers")
    array = array.astype(np.int64)
    why = _check_counts(array)
    if why is not None:
        raise ValueError(why)
    return UnitTallies(tuple(str(s) for s in systems), tuple(str(u) for u in units), array)


def system_name(path: str | Path) -> str:
    """System name of a report file: its name up to the first ``.``.

    >>> system_name("/x/GE-CMU.tst3-pass1.nrad")
    'GE-CMU'
    """
    return Path(path).name.split(".", 1)[0]


def _merge(parts: Sequence[tuple[str, dict[str, np.ndarray], str]]) -> UnitTallies:
    """Merge per-system unit dicts ``(name, {unit: counts}, where)`` into one UnitTallies."""
    seen: dict[str, str] = {}
    for name, _, where in parts:
        if name in seen:
            raise InputError.at(where, None, f"system {name!r} also comes from {seen[name]}")
        seen[name] = where
    units = sorted({u for _, per_unit, _ in parts for u in per_unit})
    position = {u: i for i, u in enumerate(units)}
    counts = np.zeros((len(parts), len(units), 4), dtype=np.int64)
    for s, (_, per_unit, _) in enumerate(parts):
        for unit, values in per_unit.items():
            counts[s, position[unit]] = values
    return UnitTallies(tuple(name for name, _, _ in parts), tuple(units), counts)


def _report_units(report: ScoreReport) -> dict[str, np.ndarray]:
    per_unit: dict[str, np.ndarray] = {}
    for block in report.blocks:
        total = block.total()
        if total is None:
            continue
        t = total.tally
        values = np.array([t.pos, t.act, t.cor, t.par], dtype=np.int64)
        why = _check_counts(values)
        if why is not None:
            raise InputError.at(report.path, total.line, f"TOTAL row: {why}")
        per_unit[block.message_id] = per_unit.get(block.message_id, 0) + values
    # Messages whose sections all lack a TOTAL row still belong to the unit set.
    for message_id in report.message_ids():
        per_unit.setdefault(message_id, np.zeros(4, dtype=np.int64))
    return per_unit


def from_report_objects(
    reports: Sequence[ScoreReport], names: Sequence[str] | None = None
) -> UnitTallies:
    """Per-message tallies from parsed reports; names default to the file stems."""
    if names is None:
        names = [system_name(r.path) for r in reports]
    return _merge([(n, _report_units(r), r.path) for n, r in zip(names, reports, strict=True)])


def from_reports(paths: Sequence[str | Path]) -> UnitTallies:
    """Per-message tallies of the systems whose 1992 reports are at ``paths``.

    >>> from_reports([]).counts.shape
    (0, 0, 4)
    """
    return _merge([(system_name(p), _report_units(read_report(p)), str(p)) for p in paths])


# ---------------------------------------------------------------------------
# CSV
# ---------------------------------------------------------------------------

_CSV_HEADER = ("system", "unit", *FIELDS)


def parse_csv(text: str, path: str = "<string>") -> list[tuple[str, dict[str, np.ndarray], str]]:
    """Parse a long CSV into per-system unit dicts (used by :func:`from_csv`)."""
    reader = csv.reader(io.StringIO(text))
    problems: list[Problem] = []
    header: list[str] | None = None
    systems: dict[str, dict[str, np.ndarray]] = {}
    first_line: dict[tuple[str, str], int] = {}
    for row in reader:
        line = reader.line_num
        if not row or all(not cell.strip() for cell in row):
            continue
        cells = [cell.strip() for cell in row]
        if header is None:
            header = [c.lower() for c in cells]
            if tuple(c if c in ("system", "unit") else c.upper() for c in header) != _CSV_HEADER:
                raise InputError.at(
                    path,
                    line,
                    f"header must be {','.join(_CSV_HEADER)}, found {','.join(cells)}",
                )
            continue
        if len(cells) != len(_CSV_HEADER):
            problems.append(
                Problem(path, line, f"expected {len(_CSV_HEADER)} columns, found {len(cells)}")
            )
            continue
        system, unit = cells[0], cells[1]
        if not system or not unit:
            problems.append(Problem(path, line, "empty system or unit name"))
            continue
        values = []
        for name, cell in zip(FIELDS, cells[2:], strict=True):
            try:
                value = int(cell)
            except ValueError:
                problems.append(Problem(path, line, f"{name} is not an integer: {cell!r}"))
                break
            if value < 0:
                problems.append(Problem(path, line, f"{name} is negative: {value}"))
                break
            values.append(value)
        else:
            array = np.array(values, dtype=np.int64)
            why = _check_counts(array)
            if why is not None:
                problems.append(Problem(path, line, why))
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
            systems.setdefault(system, {})[unit] = array
    if header is None:
        raise InputError.at(path, 1, f"empty CSV: expected the header {','.join(_CSV_HEADER)}")
    if problems:
        raise InputError(problems)
    return [(name, per_unit, path) for name, per_unit in systems.items()]


def from_csv(path: str | Path) -> UnitTallies:
    """Per-unit tallies from a long CSV ``system,unit,POS,ACT,COR,PAR`` (header required).

    Missing (system, unit) rows are zeros; duplicates, non-integers, negative
    numbers and COR + PAR above POS or ACT are errors naming file and line.
    """
    return _merge(parse_csv(read_text(path), str(path)))


# ---------------------------------------------------------------------------
# Dispatch (the extension point for other input formats)
# ---------------------------------------------------------------------------

Loader = Callable[[str, str], list[tuple[str, dict[str, np.ndarray], str]]]
"""``loader(text, path)`` → list of ``(system name, {unit: counts}, path)``."""


def _load_report(text: str, path: str) -> list[tuple[str, dict[str, np.ndarray], str]]:
    return [(system_name(path), _report_units(parse_report(text, path)), path)]


def _looks_like_csv(text: str, path: str) -> bool:
    if path.lower().endswith(".csv"):
        return True
    first = next((line for line in text.splitlines() if line.strip()), "")
    return first.replace(" ", "").lower().startswith("system,unit")


def _looks_like_report(text: str, path: str) -> bool:
    first = next((line for line in text.splitlines() if line.strip()), "")
    return first.startswith("Configuration:") or "* * * TOTAL SLOT SCORES * * *" in text


def _looks_like_scores_json(text: str, path: str) -> bool:
    return path.lower().endswith(".json") or text.lstrip().startswith("{")


def _load_scores_json(text: str, path: str) -> list[tuple[str, dict[str, np.ndarray], str]]:
    """Per-message ALL TEMPLATES tallies of every system in a ``muceval score --format json`` file."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as bad:
        raise InputError.at(path, bad.lineno, f"not valid JSON: {bad.msg}", bad.colno) from None
    if not isinstance(doc, dict) or doc.get("format") != "muceval-scores":
        raise InputError.at(path, 1, "not a muceval scores file (JSON with format 'muceval-scores')")
    out = []
    for n, entry in enumerate(doc.get("systems") or []):
        try:
            name = str(entry["system"])
            units: dict[str, np.ndarray] = {}
            for message in entry["messages"]:
                rows = message["accumulators"]["all-templates"]
                total = next(r["tallies"] for r in rows if r.get("kind") == "total")
                counts = [total[f.lower()] for f in FIELDS]
                if not all(isinstance(c, int) and c >= 0 for c in counts):
                    raise ValueError("tallies must be non-negative integers")
                units[str(message["message_id"])] = np.array(counts, dtype=np.int64)
        except (KeyError, TypeError, StopIteration, ValueError) as bad:
            detail = f": {bad}" if isinstance(bad, ValueError) else ""
            raise InputError.at(
                path, None, f"system entry {n + 1} lacks per-message ALL TEMPLATES tallies{detail}"
            ) from None
        out.append((name, units, path))
    if not out:
        raise InputError.at(path, None, "no systems in this scores file")
    return out


LOADERS: list[tuple[str, Callable[[str, str], bool], Loader]] = [
    ("csv", _looks_like_csv, parse_csv),
    ("1992 report", _looks_like_report, _load_report),
    ("muceval scores JSON", _looks_like_scores_json, _load_scores_json),
]
"""``(format name, recognise(text, path), load(text, path))`` tried in order.

Further formats can be added with :func:`register_loader`.
"""


def register_loader(
    name: str, recognise: Callable[[str, str], bool], load: Loader, first: bool = True
) -> None:
    """Add an input format for :func:`load_inputs` (tried before the built-ins if ``first``)."""
    entry = (name, recognise, load)
    if first:
        LOADERS.insert(0, entry)
    else:
        LOADERS.append(entry)


def load_inputs(paths: Sequence[str | Path]) -> UnitTallies:
    """Load every file (reports and/or CSVs) and merge them into one :class:`UnitTallies`.

    A system may come from only one file; the unit set is the union.
    """
    if not paths:
        raise UsageError("no input files")
    parts: list[tuple[str, dict[str, np.ndarray], str]] = []
    for raw_path in paths:
        path = str(raw_path)
        text = read_text(path)
        for _, recognise, load in LOADERS:
            if recognise(text, path):
                parts.extend(load(text, path))
                break
        else:
            formats = ", ".join(name for name, _, _ in LOADERS)
            raise InputError.at(path, 1, f"unrecognised input format (expected one of: {formats})")
    return _merge(parts)
