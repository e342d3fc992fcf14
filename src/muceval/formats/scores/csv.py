"""muceval's scores as CSV (``muceval score --format csv``): one long table of every tally row.

:func:`parse_scores_csv` reads back only the per-message ALL TEMPLATES tallies (what the
significance tests need): the CSV carries no display type, so a report's summary needs JSON.

>>> from muceval.core.model import Configuration, SlotSpec, SlotType
>>> from muceval.core.tallies import PairScore, Tally, TemplateStatus
>>> cfg = Configuration(slots=(SlotSpec("message-id", "0.", SlotType.MESSAGE_ID),
...     SlotSpec("template-id", "1.", SlotType.TEMPLATE_ID), SlotSpec("s", "2.", SlotType.STRING)))
>>> hit = PairScore("M-1", "1", "1", TemplateStatus.MATCHED, Tally(1, 1, 1), (("s", Tally(1, 1, 1)),))
>>> scores_to_csv({"X": [hit]}, cfg).splitlines()[0].split(",")[:4]
['format_version', 'system', 'scope', 'message_id']
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from muceval.core.metrics import F_MEASURES, MEASURE_NAMES, FloatScores, f_measures_1992
from muceval.core.model import Configuration, DisplayType
from muceval.core.systems import ScoredSystem, units_disagree
from muceval.core.tallies import MANNERS, TALLY_FIELDS, PairScore, Summary, Tally, summarize
from muceval.core.units import check_counts
from muceval.errors import InputError, Problem
from muceval.formats.counts import parse_count
from muceval.formats.csvrows import csv_records
from muceval.formats.files import check_choice
from muceval.formats.scores.json import DETAILS
from muceval.formats.scores.rows import (
    FORMAT_VERSION,
    TallyRow,
    accumulator_rows,
    pair_rows,
    scores_for,
    systems_of,
    text_filtering_row,
)

__all__ = ["CSV_COLUMNS", "parse_scores_csv", "scores_to_csv"]

_F_1992 = tuple(f"{m.id}_1992" for m in F_MEASURES if m.name_1992)

CSV_COLUMNS: tuple[str, ...] = (
    "format_version",
    "system",
    "scope",
    "message_id",
    "key_id",
    "response_id",
    "status",
    "accumulator",
    "row",
    "kind",
    *TALLY_FIELDS,
    "rec",
    "pre",
    "ovg",
    "fal",
    *MEASURE_NAMES,
    *_F_1992,
)


def _csv_cells(row: TallyRow, *, f_report: bool) -> dict[str, Any]:
    s = scores_for(row)
    f = FloatScores.of(row.tally)
    cells: dict[str, Any] = {
        "accumulator": row.accumulator or "",
        "row": row.name,
        "kind": row.kind,
        **row.tally.as_dict(),
        "rec": s.rec,
        "pre": s.pre,
        "ovg": s.ovg,
        "fal": s.fal,
        **f.as_dict(),
        "fallout": f.fallout if row.fal else None,
    }
    if f_report:
        values = f_measures_1992(s.rec, s.pre)
        if values is not None:
            cells.update(zip(_F_1992, values, strict=True))
    return {
        k: "" if v is None else (repr(v) if isinstance(v, float) else v) for k, v in cells.items()
    }


def scores_to_csv(
    systems: Mapping[str, Sequence[PairScore]],
    config: Configuration,
    *,
    config_label: str | None = None,
    detail: str = "summary",
) -> str:
    """The tally rows of every system as one long CSV table (columns :data:`CSV_COLUMNS`).

    ``scope`` is ``pair``, ``message`` (``status`` holds its TEXT FILTERING cell) or
    ``summary``. ``rec``..``fal`` are the 1992 integers (empty for ``*``), ``recall``..``f_p2r``
    unrounded fractions, and ``f_*_1992`` the printed F-measures, on ALL TEMPLATES total rows
    only. ``detail="summary"`` writes, per message, only the ALL TEMPLATES total.

    >>> from muceval.core.model import Configuration, SlotSpec, SlotType
    >>> from muceval.core.tallies import PairScore, Tally, TemplateStatus
    >>> cfg = Configuration(slots=(SlotSpec("message-id", "0.", SlotType.MESSAGE_ID),
    ...     SlotSpec("template-id", "1.", SlotType.TEMPLATE_ID), SlotSpec("s", "2.", SlotType.STRING)))
    >>> hit = PairScore("M-1", "1", "1", TemplateStatus.MATCHED, Tally(1, 1, 1), (("s", Tally(2, 2, 1, 1)),))
    >>> rows = list(csv.DictReader(io.StringIO(scores_to_csv({"X": [hit]}, cfg, detail="pairs"))))
    >>> [(r["scope"], r["row"]) for r in rows[:3]]
    [('pair', 'template-id'), ('pair', 's'), ('pair', 'TOTAL')]
    """
    del config_label  # the CSV carries no configuration header
    check_choice(detail, DETAILS, "detail")
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for name, pairs in systems_of(systems).items():
        base = {"format_version": FORMAT_VERSION, "system": name}
        for row, scope, extra, f_report in _rows(pairs, summarize(pairs, config), detail):
            writer.writerow({**base, "scope": scope, **extra, **_csv_cells(row, f_report=f_report)})
    return buffer.getvalue()


def _rows(pairs: Sequence[PairScore], summary: Summary, detail: str,
          ) -> Iterator[tuple[TallyRow, str, dict[str, Any], bool]]:
    """One system's rows with their scope, their other cells and whether they have F-measures."""
    for p in pairs if detail == "pairs" else ():
        ids = {
            "message_id": p.message_id,
            "key_id": "" if p.key_id is None else p.key_id,
            "response_id": "" if p.response_id is None else p.response_id,
            "status": p.status.value,
        }
        for row in pair_rows(p, summary):
            yield row, "pair", ids, False
    for m in summary.messages:
        extra = {"message_id": m.message_id, "status": m.relevance.value}
        for manner in MANNERS if detail != "summary" else (DisplayType.ALL_TEMPLATES,):
            for row in accumulator_rows(m.accumulators.get(manner), manner, summary):
                if detail != "summary" or _is_all_total(row):
                    yield row, "message", extra, _is_all_total(row)
    for manner in MANNERS:
        for row in accumulator_rows(summary.accumulators.get(manner), manner, summary):
            yield row, "summary", {}, _is_all_total(row)
    yield text_filtering_row(summary.text_filtering), "summary", {}, False


def _is_all_total(row: TallyRow) -> bool:
    return row.kind == "total" and row.accumulator == DisplayType.ALL_TEMPLATES.value


def _unit_tally(row: dict[str, str], path: str, line: int) -> Tally:
    values = {}
    for f in TALLY_FIELDS:  # every row has every column: the header was checked
        try:
            values[f] = parse_count(row[f])
        except ValueError as bad:
            raise InputError.at(path, line, f"{f}: {bad}") from None
    tally = Tally(**values)
    why = check_counts([tally.pos, tally.act, tally.cor, tally.par])
    if why is not None:
        raise InputError.at(path, line, why)
    return tally


def parse_scores_csv(text: str, path: str = "<string>") -> tuple[ScoredSystem, ...]:
    """Per-message ALL TEMPLATES tallies of every system of a :func:`scores_to_csv` text (the
    systems' ``summary`` is ``None``).

    >>> from muceval.core.model import Configuration, SlotSpec, SlotType
    >>> from muceval.core.tallies import PairScore, TemplateStatus
    >>> cfg = Configuration(slots=(SlotSpec("message-id", "0.", SlotType.MESSAGE_ID),
    ...     SlotSpec("template-id", "1.", SlotType.TEMPLATE_ID), SlotSpec("s", "2.", SlotType.STRING)))
    >>> hit = PairScore("M-1", "1", "1", TemplateStatus.MATCHED, Tally(1, 1, 1), (("s", Tally(1, 1, 1)),))
    >>> (x,) = parse_scores_csv(scores_to_csv({"X": [hit]}, cfg))
    >>> x.name, x.units["M-1"].cor
    ('X', 1)
    """
    header, records = csv_records(text, path)
    missing = [c for c in CSV_COLUMNS if c not in header]
    if missing:
        raise InputError.at(path, 1, f"not a muceval scores CSV: no column {missing[0]!r}")
    systems: dict[str, dict[str, Tally]] = {}
    # Each system's summary ALL TEMPLATES row, and where it is: the message rows must sum to it.
    totals: dict[str, tuple[int, Tally]] = {}
    lines: dict[tuple[str, str], int] = {}
    problems: list[Problem] = []
    for line, row in records:
        systems.setdefault(row["system"], {})
        if (row["accumulator"] != DisplayType.ALL_TEMPLATES.value or row["kind"] != "total"
                or row["scope"] not in ("message", "summary")):
            continue
        try:
            tally = _unit_tally(row, path, line)
        except InputError as bad:
            problems.extend(bad.problems)
            continue
        if row["scope"] == "summary":
            totals[row["system"]] = (line, tally)
            continue
        unit = (row["system"], row["message_id"])
        if unit in lines:
            problems.append(Problem(path, line, f"message {unit[1]} of system {unit[0]!r} is "
                                    f"given twice (first on line {lines[unit]})"))
            continue
        lines[unit] = line
        systems[row["system"]][row["message_id"]] = tally
    for name, units in systems.items():
        if name not in totals:
            problems.append(Problem(path, None, f"system {name!r} has no summary ALL TEMPLATES "
                                    "row: the file was cut, or is not as muceval writes it"))
            continue
        line, total = totals[name]
        why = units_disagree(units, total)
        if why is not None:
            problems.append(Problem(path, line, f"system {name!r}: {why}: the file was cut "
                                    "or edited"))
    if problems:
        raise InputError(problems)
    if not systems:
        raise InputError.at(path, None, "no systems in this scores file")
    return tuple(ScoredSystem(name, path, units) for name, units in systems.items())
