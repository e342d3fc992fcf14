"""Score N systems and test their differences: everything a report needs, in one object.

Three kinds of input give the same :class:`SystemScores` (the rows of one
system's summary) and the per-message :class:`~muceval.core.units.UnitTallies`
the significance tests need:

* scored responses — :func:`systems_from_pairs` summarises the pair scores
  of a scoring session (:func:`muceval.scoring.session.score_files`);
* 1992 score reports — :func:`systems_from_reports` (no PIE is printed, so
  the ALL TEMPLATES fallout is unavailable and per-row fallout is the
  printed integer percentage);
* muceval JSON scores (``muceval score --format json``) —
  :func:`systems_from_json`.

:func:`load_systems` recognises reports and JSON by content;
:func:`analyze` then runs :func:`muceval.significance.engine.compare` and returns an
:class:`Analysis`, whose :meth:`Analysis.to_dict` is the JSON behind the HTML
report.

>>> from muceval.core.units import from_arrays
>>> from muceval.core.tallies import Tally
>>> a = SystemScores.of_tally("A", "x", "arrays", Tally(pos=2, act=2, cor=2))
>>> a.all_templates.recall
1.0
"""

from __future__ import annotations

import json
import platform
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from muceval import __version__
from muceval.core.metrics import FloatScores, f_measures_1992, scores
from muceval.core.model import Configuration, DisplayType
from muceval.core.tallies import MANNERS, PairScore, SlotLayout, Tally, summarize
from muceval.core.units import UnitTallies, from_arrays, from_report_objects, system_name
from muceval.errors import InputError, UsageError
from muceval.formats.files import read_text
from muceval.formats.muc.reports import ScoreReport, parse_report, read_report
from muceval.significance.engine import METRICS, SignificanceResult, compare, parse_metrics

__all__ = [
    "MANNER_LABELS",
    "Analysis",
    "Row",
    "SystemScores",
    "analyze",
    "load_systems",
    "systems_from_json",
    "systems_from_pairs",
    "systems_from_reports",
]

MANNER_LABELS: dict[str, str] = {
    DisplayType.MATCHED_MISSING.value: "MATCHED/MISSING",
    DisplayType.MATCHED_SPURIOUS.value: "MATCHED/SPURIOUS",
    DisplayType.MATCHED_ONLY.value: "MATCHED ONLY",
    DisplayType.ALL_TEMPLATES.value: "ALL TEMPLATES",
}
"""Accumulator name (as in :class:`~muceval.core.model.DisplayType`) → the report's row label."""
_MANNER_OF_LABEL = {label: manner for manner, label in MANNER_LABELS.items()}
_FILL_ROWS = {"SET FILLS ONLY": "set-fills", "STRING FILLS ONLY": "string-fills"}


@dataclass(frozen=True)
class Row:
    """One labelled row of a summary with its tallies and unrounded measures.

    ``kind``: ``slot``, ``subtotal``, ``total`` (one of the four manners),
    ``set-fills`` or ``string-fills``. ``fallout`` is ``None`` where the 1992
    report prints no FAL column or (from a report) where it prints ``*``.

    >>> Row.of("s", "slot", Tally(pos=4, act=2, cor=1, par=1)).recall
    0.375
    """

    name: str
    kind: str
    tally: Tally
    recall: float | None
    precision: float | None
    overgeneration: float | None
    fallout: float | None
    f_pr: float | None
    f_2pr: float | None
    f_p2r: float | None

    @classmethod
    def of(cls, name: str, kind: str, tally: Tally, fallout: float | None = None) -> Row:
        f = FloatScores.of(tally)
        return cls(name, kind, tally, f.recall, f.precision, f.overgeneration, fallout,
                   f.f_pr, f.f_2pr, f.f_p2r)  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        return {
            "row": self.name,
            "kind": self.kind,
            "tallies": self.tally.as_dict(),
            **FloatScores.of(self.tally).as_dict(),
            "fallout": self.fallout,
        }


@dataclass(frozen=True)
class SystemScores:
    """The summary of one system: ALL TEMPLATES, the four manners, slot and object rows.

    ``source`` names where it came from (file or system), ``origin`` is
    ``scored``, ``report``, ``json`` or ``arrays``. ``fallout`` is the ALL
    TEMPLATES fallout of the set-fill slots (``None`` when PIE is unknown).
    ``f_1992`` holds the F-measures as the 1992 report prints them.
    """

    name: str
    source: str
    origin: str
    all_templates: Row
    manners: tuple[Row, ...] = ()
    slots: tuple[Row, ...] = ()
    objects: tuple[Row, ...] = ()
    fallout: float | None = None
    f_1992: tuple[float, float, float] | None = None

    @classmethod
    def of_tally(cls, name: str, source: str, origin: str, total: Tally) -> SystemScores:
        """A system known only by its ALL TEMPLATES tally."""
        s = scores(total)
        return cls(name, source, origin, Row.of("ALL TEMPLATES", "total", total),
                   f_1992=f_measures_1992(s.rec, s.pre))  # fmt: skip

    def manner(self, accumulator: str) -> Row | None:
        """The total row of one manner (``"matched-only"`` …), or ``None`` if unknown."""
        label = MANNER_LABELS[accumulator]
        return next((r for r in self.manners if r.name == label), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": self.name,
            "source": self.source,
            "origin": self.origin,
            "all_templates": self.all_templates.to_dict(),
            "fallout": self.fallout,
            "f_1992": (
                None if self.f_1992 is None
                else dict(zip(("P&R", "2P&R", "P&2R"), self.f_1992, strict=True))
            ),
            "manners": {_MANNER_OF_LABEL[r.name]: r.to_dict() for r in self.manners},
            "slots": [r.to_dict() for r in self.slots],
            "objects": [r.to_dict() for r in self.objects],
        }


# ---------------------------------------------------------------------------
# Scored responses
# ---------------------------------------------------------------------------


def _fallout_of(tally: Tally) -> float | None:
    return FloatScores.of(tally).fallout


def systems_from_pairs(
    results: Mapping[str, Sequence[PairScore]],
    config: Configuration,
    sources: Mapping[str, str] | None = None,
) -> tuple[list[SystemScores], UnitTallies]:
    """Summaries and per-message tallies (ALL TEMPLATES totals) of scored systems.

    The rows mirror the 1992 summary: slot and subtotal rows from the display
    accumulator, the four manners, SET/STRING FILLS ONLY from MATCHED/MISSING.

    >>> systems, tallies = systems_from_pairs({}, cfg)  # doctest: +SKIP
    """
    systems: list[SystemScores] = []
    per_unit: list[dict[str, Tally]] = []
    for name, pairs in results.items():
        summary = summarize(pairs, config)
        set_slots = set(summary.layout.set_slots)
        accs = summary.accumulators
        at = accs.all_templates.total
        s = scores(at)
        slots = tuple(
            Row.of(n, "slot", t, _fallout_of(t) if n in set_slots else None)
            for n, t in summary.display.slots
        )
        subtotals = tuple(Row.of(n, "subtotal", t) for n, t in summary.display.subtotals)
        manners = tuple(Row.of(MANNER_LABELS[m.value], "total", accs.get(m).total) for m in MANNERS)
        mm = accs.matched_missing
        fills = (
            Row.of("SET FILLS ONLY", "set-fills", mm.set_fills, _fallout_of(mm.set_fills)),
            Row.of("STRING FILLS ONLY", "string-fills", mm.string_fills),
        )
        systems.append(
            SystemScores(
                name=name,
                source=(sources or {}).get(name, name),
                origin="scored",
                all_templates=Row.of("ALL TEMPLATES", "total", at),
                manners=manners,
                slots=slots,
                objects=subtotals + manners + fills,
                fallout=_fallout_of(accs.all_templates.set_fills),
                f_1992=f_measures_1992(s.rec, s.pre),
            )
        )
        per_unit.append({m.message_id: m.accumulators.all_templates.total for m in summary.messages})
    return systems, _tallies_of(systems, per_unit)


def _tallies_of(systems: Sequence[SystemScores], per_unit: Sequence[Mapping[str, Tally]]) -> UnitTallies:
    units = sorted({u for d in per_unit for u in d})
    counts = np.zeros((len(systems), len(units), 4), dtype=np.int64)
    position = {u: i for i, u in enumerate(units)}
    for s, d in enumerate(per_unit):
        for unit, t in d.items():
            counts[s, position[unit]] = (t.pos, t.act, t.cor, t.par)
    return from_arrays([s.name for s in systems], units, counts)


# ---------------------------------------------------------------------------
# 1992 reports
# ---------------------------------------------------------------------------


def _report_system(report: ScoreReport, name: str, subtotal_names: set[str] | None) -> SystemScores:
    def is_subtotal(row_name: str) -> bool:
        # Without a configuration the 1992 row names are all we have; the MUC
        # object subtotals are the only rows named "<object>-total".
        if subtotal_names is not None:
            return row_name in subtotal_names
        return row_name.endswith("-total")

    slots: list[Row] = []
    subtotals: list[Row] = []
    manners: list[Row] = []
    fills: list[Row] = []
    for r in report.summary:
        fal = None if not r.has_fal or r.fal is None else r.fal / 100
        if r.name == "template-id":
            continue
        if r.name in _MANNER_OF_LABEL:
            manners.append(Row.of(r.name, "total", r.tally))
        elif r.name in _FILL_ROWS:
            fills.append(Row.of(r.name, _FILL_ROWS[r.name], r.tally, fal))
        elif is_subtotal(r.name):
            subtotals.append(Row.of(r.name, "subtotal", r.tally))
        else:
            slots.append(Row.of(r.name, "slot", r.tally, fal))
    try:
        at = report.summary_row("ALL TEMPLATES")
    except KeyError:
        raise InputError.at(report.path, None, "the summary has no ALL TEMPLATES row") from None
    order = {label: i for i, label in enumerate(_MANNER_OF_LABEL)}
    manners.sort(key=lambda r: order[r.name])
    return SystemScores(
        name=name,
        source=report.path,
        origin="report",
        all_templates=Row.of("ALL TEMPLATES", "total", at.tally),
        manners=tuple(manners),
        slots=tuple(slots),
        objects=tuple(subtotals + manners + fills),
        fallout=None,
        f_1992=report.f_measures,
    )


def systems_from_reports(
    paths: Sequence[str | Path], config: Configuration | None = None
) -> tuple[list[SystemScores], UnitTallies]:
    """Summaries and per-message tallies from 1992 score reports (one system per file).

    ``config`` (optional) tells subtotal rows from slot rows; without it a
    row named ``…-total`` is taken as an object subtotal.

    >>> systems_from_reports(["BBN.tst3-pass1.nrad"])  # doctest: +SKIP
    """
    reports = [read_report(p) for p in paths]
    return _from_reports(reports, config)


def _from_reports(
    reports: Sequence[ScoreReport], config: Configuration | None
) -> tuple[list[SystemScores], UnitTallies]:
    names = [system_name(r.path) for r in reports]
    subtotal_names = (
        {row.name for row in SlotLayout.of(config).subtotals} if config is not None else None
    )
    systems = [_report_system(r, n, subtotal_names) for r, n in zip(reports, names, strict=True)]
    return systems, from_report_objects(reports, names)


# ---------------------------------------------------------------------------
# muceval JSON scores
# ---------------------------------------------------------------------------


def _json_tally(row: Mapping[str, Any], path: str) -> Tally:
    try:
        return Tally(**{k: int(v) for k, v in row["tallies"].items()})
    except (KeyError, TypeError, ValueError, AttributeError):
        raise InputError.at(path, None, f"row {row.get('row')!r}: no valid 'tallies'") from None


def _json_total(rows: Sequence[Mapping[str, Any]], path: str) -> Tally:
    for row in rows:
        if row.get("kind") == "total":
            return _json_tally(row, path)
    raise InputError.at(path, None, "an accumulator without its total row")


def _json_systems(doc: Any, path: str) -> list[tuple[SystemScores, dict[str, Tally]]]:
    if not isinstance(doc, dict) or doc.get("format") != "muceval-scores":
        raise InputError.at(path, 1, "not a muceval scores JSON file (format 'muceval-scores')")
    out = []
    all_key = DisplayType.ALL_TEMPLATES.value
    for entry in doc.get("systems", []):
        try:
            name = str(entry["system"])
            summary = entry["summary"]
            accs = summary["accumulators"]
            report_rows = summary["report_rows"]
            messages = entry["messages"]
        except (KeyError, TypeError):
            raise InputError.at(path, None, "a system entry lacks system/summary/messages") from None
        slots: list[Row] = []
        subtotals: list[Row] = []
        manners: list[Row] = []
        fills: list[Row] = []
        for row in report_rows:
            tally = _json_tally(row, path)
            kind = row.get("kind")
            fal = (row.get("measures") or {}).get("fallout")
            if kind == "slot":
                slots.append(Row.of(row["row"], "slot", tally, fal))
            elif kind == "subtotal":
                subtotals.append(Row.of(row["row"], "subtotal", tally))
            elif kind == "total":
                manners.append(Row.of(row["row"], "total", tally))
            elif kind in ("set-fills", "string-fills"):
                fills.append(Row.of(row["row"], kind, tally, fal))
        all_rows = accs.get(all_key)
        if not all_rows:
            raise InputError.at(path, None, f"system {name!r}: no {all_key} accumulator")
        at = _json_total(all_rows, path)
        set_row = next((r for r in all_rows if r.get("kind") == "set-fills"), None)
        s = scores(at)
        system = SystemScores(
            name=name,
            source=path,
            origin="json",
            all_templates=Row.of("ALL TEMPLATES", "total", at),
            manners=tuple(manners),
            slots=tuple(slots),
            objects=tuple(subtotals + manners + fills),
            fallout=_fallout_of(_json_tally(set_row, path)) if set_row else None,
            f_1992=f_measures_1992(s.rec, s.pre),
        )
        per_unit = {
            str(m["message_id"]): _json_total(m["accumulators"][all_key], path) for m in messages
        }
        out.append((system, per_unit))
    return out


def systems_from_json(paths: Sequence[str | Path]) -> tuple[list[SystemScores], UnitTallies]:
    """Summaries and per-message tallies from muceval JSON scores files.

    >>> systems_from_json(["scores.json"])  # doctest: +SKIP
    """
    found: list[tuple[SystemScores, dict[str, Tally]]] = []
    for p in paths:
        found.extend(_json_systems(_parse_json(read_text(p), str(p)), str(p)))
    return _merge_found(found)


def _parse_json(text: str, path: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError.at(path, error.lineno, f"invalid JSON: {error.msg}") from None


def _merge_found(
    found: Sequence[tuple[SystemScores, dict[str, Tally]]],
) -> tuple[list[SystemScores], UnitTallies]:
    seen: dict[str, str] = {}
    for system, _ in found:
        if system.name in seen:
            raise InputError.at(
                system.source, None, f"system {system.name!r} also comes from {seen[system.name]}"
            )
        seen[system.name] = system.source
    systems = [s for s, _ in found]
    return systems, _tallies_of(systems, [u for _, u in found])


def load_systems(
    paths: Sequence[str | Path], config: Configuration | None = None
) -> tuple[list[SystemScores], UnitTallies]:
    """Load 1992 score reports and/or muceval JSON scores, recognised by content.

    >>> load_systems(["BBN.tst3-pass1.nrad", "scores.json"])  # doctest: +SKIP
    """
    if not paths:
        raise UsageError("no input files")
    found: list[tuple[SystemScores, dict[str, Tally]]] = []
    for raw in paths:
        path = str(raw)
        text = read_text(path)
        if text.lstrip().startswith("{"):
            found.extend(_json_systems(_parse_json(text, path), path))
            continue
        report = parse_report(text, path)
        systems, tallies = _from_reports([report], config)
        per_unit = {
            u: Tally(pos=int(c[0]), act=int(c[1]), cor=int(c[2]), par=int(c[3]))
            for u, c in zip(tallies.units, tallies.counts[0], strict=True)
        }
        found.append((systems[0], per_unit))
    return _merge_found(found)


# ---------------------------------------------------------------------------
# The analysis
# ---------------------------------------------------------------------------


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {"muceval": __version__, "python": platform.python_version()}
    for package in ("numpy", "scipy", "numba", "matplotlib", "click"):
        try:
            out[package] = version(package)
        except PackageNotFoundError:  # pragma: no cover - declared dependencies
            out[package] = "not installed"
    return out


@dataclass(frozen=True)
class Analysis:
    """Scores of every system, their significance, and the settings that produced them."""

    systems: tuple[SystemScores, ...]
    tallies: UnitTallies = field(repr=False)
    significance: SignificanceResult
    settings: dict[str, Any]

    def system(self, name: str) -> SystemScores:
        for s in self.systems:
            if s.name == name:
                return s
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        """The machine-readable report: ``settings``, ``systems`` and ``significance``."""
        return {
            "format": "muceval-report",
            "format_version": 1,
            "settings": self.settings,
            "systems": [s.to_dict() for s in self.systems],
            "significance": self.significance.to_dict(),
        }

    def to_json(self, indent: int | None = 1) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False) + "\n"


def analyze(
    systems: Sequence[SystemScores],
    tallies: UnitTallies,
    *,
    metrics: str | Sequence[str] = METRICS,
    method: str = "approximate",
    shuffles: int = 9_999,
    seed: int | None = None,
    alternative: str = "two-sided",
    alpha: float = 0.10,
    confidence: float = 0.99,
    adjust: str = "none",
    bootstrap: int = 1_000,
    threads: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    inputs: Mapping[str, Any] | None = None,
) -> Analysis:
    """Run the significance analysis on the systems and collect everything for a report.

    ``inputs`` (e.g. key, configuration, history, files) is recorded in the
    settings so that the report says what produced it.

    >>> from muceval.core.tallies import Tally
    >>> t = from_arrays(["A", "B"], ["m1", "m2"], [[[2, 2, 2, 0], [2, 2, 1, 0]],
    ...                                           [[2, 2, 1, 0], [2, 2, 0, 0]]])
    >>> s = [SystemScores.of_tally(n, n, "arrays", Tally(*map(int, t.totals(n))))
    ...      for n in t.systems]
    >>> a = analyze(s, t, method="exact", bootstrap=0)
    >>> a.significance.comparison("A", "B", "recall").p_value
    0.5
    """
    if [s.name for s in systems] != list(tallies.systems):
        raise ValueError("systems and tallies must list the same systems in the same order")
    result = compare(
        tallies, metrics=parse_metrics(metrics), method=method, shuffles=shuffles, seed=seed,
        alternative=alternative, alpha=alpha, confidence=confidence, adjust=adjust,
        bootstrap=bootstrap, threads=threads, progress=progress,
    )  # fmt: skip
    settings = {
        **result.settings,
        "systems": len(systems),
        "inputs": dict(inputs or {}),
        "versions": _versions(),
    }
    return Analysis(tuple(systems), tallies, result, settings)
