"""muceval's scores as JSON (``muceval score --format json``): the writer and the one reader.

>>> from muceval.core.model import Configuration, SlotSpec, SlotType
>>> from muceval.core.tallies import PairScore, Tally, TemplateStatus
>>> cfg = Configuration(slots=(SlotSpec("message-id", "0.", SlotType.MESSAGE_ID),
...     SlotSpec("template-id", "1.", SlotType.TEMPLATE_ID), SlotSpec("s", "2.", SlotType.STRING)))
>>> hit = PairScore("M-1", "1", "1", TemplateStatus.MATCHED, Tally(1, 1, 1), (("s", Tally(2, 2, 1, 1)),))
>>> (system,) = parse_scores_json(scores_to_json({"X": [hit]}, cfg))
>>> system.name, system.units["M-1"].cor, system.summary.all_templates.recall
('X', 1, 0.75)
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from muceval.core.metrics import F_MEASURES, F_WEIGHTS, FloatScores, f_measures_1992, scores
from muceval.core.model import Configuration, DisplayType
from muceval.core.signature import signature
from muceval.core.systems import Row, ScoredSystem, SystemScores, units_disagree
from muceval.core.tallies import (
    MANNERS,
    TALLY_FIELDS,
    Accumulators,
    PairScore,
    SlotLayout,
    Summary,
    Tally,
    summarize,
)
from muceval.core.unit_levels import UNIT_LEVELS, units_of
from muceval.core.units import check_counts
from muceval.errors import InputError
from muceval.formats.files import check_choice, check_format_version, parse_json, read_text
from muceval.formats.scores.rows import (
    FORMAT_VERSION,
    TallyRow,
    accumulator_rows,
    configuration_label,
    pair_rows,
    report_rows,
    scores_for,
    summary_of,
    systems_of,
    text_filtering_row,
)
from muceval.version import __version__

__all__ = ["DETAILS", "FORMAT_NAME", "parse_scores_json", "read_scores_json", "scores_to_json"]

FORMAT_NAME = "muceval-scores"

_ALL = DisplayType.ALL_TEMPLATES.value

def _row_json(row: TallyRow) -> dict[str, Any]:
    s = scores_for(row)
    f = FloatScores.of(row.tally)
    return {
        "row": row.name,
        "kind": row.kind,
        "accumulator": row.accumulator,
        "tallies": row.tally.as_dict(),
        "report": {"rec": s.rec, "pre": s.pre, "ovg": s.ovg, "fal": s.fal},
        "measures": {**f.as_dict(), "fallout": f.fallout if row.fal else None},
    }


def _f_json(total: Tally) -> dict[str, Any]:
    s = scores(total)
    f = FloatScores.of(total)
    report = f_measures_1992(s.rec, s.pre)
    return {
        "report": None
        if report is None
        else {label: v for (label, _, _), v in zip(F_WEIGHTS, report, strict=True)},
        "float": {m.name_1992: f.value(m.id) for m in F_MEASURES if m.name_1992},
    }


def _accumulators_json(accs: Accumulators, summary: Summary) -> dict[str, Any]:
    return {
        "accumulators": {
            m.value: [_row_json(r) for r in accumulator_rows(accs.get(m), m, summary)]
            for m in MANNERS
        },
        "f_measures": _f_json(accs.all_templates.total),
    }


# How much a scores file holds: the summary (with the per-unit ALL TEMPLATES totals, what
# significance needs), plus every message's rows, plus every pair's.
DETAILS = ("summary", "messages", "pairs")


def scores_to_json(
    systems: Mapping[str, Sequence[PairScore]],
    config: Configuration,
    *,
    config_label: str | None = None,
    detail: str = "summary",
    settings: Mapping[str, Any] | None = None,
    indent: int | None = None,
    unit: str = "message",
) -> str:
    """The scores of every system as JSON (schema ``muceval-scores``, :data:`FORMAT_VERSION`).

    ``systems`` maps a system name to its catalog entries in report order; ``unit='fill'``
    needs pairs scored with ``ScoringOptions(fills=True)``. Each system has its ``summary``
    and, per unit, the ALL TEMPLATES ``[POS, ACT, COR, PAR]``. A row's ``report`` holds the
    1992 integers (``null`` for ``*`` or an unprinted column), its ``measures`` the fractions;
    the F-measures' ``report`` comes from the rounded ALL TEMPLATES recall and precision.

    >>> from muceval.core.model import Configuration, SlotSpec, SlotType
    >>> from muceval.core.tallies import PairScore, Tally, TemplateStatus
    >>> cfg = Configuration(slots=(SlotSpec("message-id", "0.", SlotType.MESSAGE_ID),
    ...     SlotSpec("template-id", "1.", SlotType.TEMPLATE_ID), SlotSpec("s", "2.", SlotType.STRING)))
    >>> hit = PairScore("M-1", "1", "1", TemplateStatus.MATCHED, Tally(1, 1, 1), (("s", Tally(2, 2, 1, 1)),))
    >>> doc = json.loads(scores_to_json({"X": [hit]}, cfg))
    >>> doc["systems"][0]["summary"]["f_measures"]["report"], doc["systems"][0]["units"]
    ({'P&R': 75.0, '2P&R': 75.0, 'P&2R': 75.0}, {'M-1': [2, 2, 1, 1]})
    """
    check_choice(detail, DETAILS, "detail")
    check_choice(unit, UNIT_LEVELS, "unit")
    label = configuration_label(config) if config_label is None else config_label
    layout = SlotLayout.of(config)
    classes = {**dict.fromkeys(layout.string_slots, "string"),
               **dict.fromkeys(layout.set_slots, "set")}
    out_systems = [_system_json(name, pairs, config, detail, unit)
                   for name, pairs in systems_of(systems).items()]
    doc = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "muceval": __version__,
        "signature": signature({**(settings or {}), "detail": detail, "unit": unit}),
        "detail": detail,
        "unit": unit,
        "settings": dict(settings or {}),
        "configuration": label,
        "display_type": config.display_type.value,
        "slots": [{"slot": sid, "class": classes.get(sid, "other")} for sid in layout.slot_ids],
        "subtotal_rows": {r.name: list(r.slot_ids) for r in layout.subtotals},
        "systems": out_systems,
    }
    separators = (",", ":") if indent is None else None
    return json.dumps(doc, indent=indent, separators=separators, ensure_ascii=False) + "\n"


def _system_json(
    name: str, pairs: Sequence[PairScore], config: Configuration, detail: str, unit: str
) -> dict[str, Any]:
    summary = summarize(pairs, config)
    tf = summary.text_filtering
    set_fills = summary.accumulators.matched_missing.set_fills
    units = summary.message_totals if unit == "message" else units_of(pairs, config, unit)
    entry: dict[str, Any] = {
        "system": name,
        "summary": {
            **_accumulators_json(summary.accumulators, summary),
            "report_rows": [_row_json(r) for r in report_rows(summary)],
            "fallout": FloatScores.of(set_fills).fallout,
            "text_filtering": {
                "a": tf.a, "b": tf.b, "c": tf.c, "d": tf.d,
                "row": _row_json(text_filtering_row(tf)),
            },
        },
        "units": {u: list(t.as_tuple()[:4]) for u, t in units.items()},
    }  # fmt: skip
    if detail in ("messages", "pairs"):
        entry["messages"] = [
            {
                "message_id": m.message_id,
                "text_filtering": m.relevance.value,
                **_accumulators_json(m.accumulators, summary),
            }
            for m in summary.messages
        ]
    if detail == "pairs":
        entry["pairs"] = [
            {
                "message_id": p.message_id,
                "key_id": p.key_id,
                "response_id": p.response_id,
                "status": p.status.value,
                "rows": [_row_json(r) for r in pair_rows(p, summary)],
            }
            for p in pairs
        ]
    return entry


def read_scores_json(path: str | Path) -> tuple[ScoredSystem, ...]:
    """Every system of the muceval scores JSON file at ``path`` (see :func:`parse_scores_json`)."""
    return parse_scores_json(read_text(path), str(path))


def parse_scores_json(text: str, path: str = "<string>") -> tuple[ScoredSystem, ...]:
    """Every system of a muceval scores JSON text, in file order, with its summary."""
    doc = parse_json(text, path)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT_NAME:
        raise InputError.at(path, 1, f"not a muceval scores file (JSON with format {FORMAT_NAME!r})")
    check_format_version(doc, FORMAT_VERSION, FORMAT_NAME, path,
                         " (score the responses again)")
    entries = doc.get("systems")
    if not isinstance(entries, list) or not entries:
        raise InputError.at(path, None, "no systems in this scores file")
    level = doc.get("unit", "message")
    if level not in UNIT_LEVELS:
        raise InputError.at(path, None, f"unknown unit {level!r} (this muceval reads "
                            f"{', '.join(UNIT_LEVELS)})")
    return tuple(_read_system(entry, n, path, level)
                 for n, entry in enumerate(entries, start=1))


class _Malformed(Exception):
    """Something in one system entry is not as :func:`scores_to_json` writes it."""


def _tally(row: Any) -> Tally:
    values = row["tallies"]
    if not isinstance(values, Mapping) or not set(values) <= set(TALLY_FIELDS):
        raise _Malformed(f"row {row.get('row')!r}: 'tallies' must map {', '.join(TALLY_FIELDS)}")
    if not all(type(v) is int and v >= 0 for v in values.values()):
        raise _Malformed(f"row {row.get('row')!r}: tallies must be non-negative integers")
    tally = Tally(**values)
    why = check_counts([tally.pos, tally.act, tally.cor, tally.par])
    if why is not None:
        raise _Malformed(f"row {row.get('row')!r}: {why}")
    return tally


def _unit(unit: str, counts: Any) -> Tally:
    if not (isinstance(counts, list) and len(counts) == 4
            and all(type(v) is int and v >= 0 for v in counts)):
        raise _Malformed(f"unit {unit!r}: expected [POS, ACT, COR, PAR] as non-negative integers")
    why = check_counts(counts)
    if why is not None:
        raise _Malformed(f"unit {unit!r}: {why}")
    return Tally(*counts)  # POS, ACT, COR, PAR


def _total(rows: Sequence[Any]) -> Tally:
    for row in rows:
        if row.get("kind") == "total":
            return _tally(row)
    raise _Malformed("an accumulator without its total row")


def _read_system(entry: Any, n: int, path: str, level: str) -> ScoredSystem:
    lacks = f"system entry {n} lacks its per-message ALL TEMPLATES tallies (units)"
    try:
        name = str(entry["system"])
        if "units" in entry:
            units = {str(unit): _unit(unit, counts) for unit, counts in entry["units"].items()}
        else:  # written before format version 2: from the per-message rows
            units = {str(m["message_id"]): _total(m["accumulators"][_ALL]) for m in entry["messages"]}
        lacks = f"system {name!r} lacks a valid summary (report rows, ALL TEMPLATES)"
        summary = _read_summary(entry["summary"], name, path)
    except (KeyError, TypeError, AttributeError, _Malformed) as bad:
        detail = f": {bad}" if isinstance(bad, _Malformed) else ""
        raise InputError.at(path, None, lacks + detail) from None
    why = units_disagree(units, summary.all_templates.tally)
    if why is not None:
        raise InputError.at(path, None, f"system {name!r}: {why}: the file was cut or edited")
    return ScoredSystem(name, path, units, summary, level)


def _read_summary(summary: Any, name: str, path: str) -> SystemScores:
    rows: dict[str, list[Row]] = {"slot": [], "subtotal": [], "total": [], "fills": []}
    for row in summary["report_rows"]:
        kind = row.get("kind")
        fal = (row.get("measures") or {}).get("fallout")
        if kind in ("slot", "subtotal", "total"):
            rows[kind].append(Row.of(row["row"], kind, _tally(row), fal if kind == "slot" else None))
        elif kind in ("set-fills", "string-fills"):
            rows["fills"].append(Row.of(row["row"], kind, _tally(row), fal))
    at = _total(summary["accumulators"][_ALL])
    s = scores(at)
    return summary_of(name, path, "json", at, rows, f_measures_1992(s.rec, s.pre))
