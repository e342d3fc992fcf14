"""Scores of the modern metrics as JSON, CSV and tables (``muceval score --metric ...``); the
per-document counts are the units of the significance tests."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from muceval.core.signature import signature
from muceval.formats.scores.modern import FORMAT_VERSION, MODERN_FORMAT
from muceval.reporting.outputs import csv_text, new_table, text_console
from muceval.scoring.modern import ModernScores
from muceval.version import __version__

if TYPE_CHECKING:
    from muceval.scoring.modern.files import ModernRun

__all__ = ["MODERN_FORMAT", "modern_scores_table", "modern_scores_to_csv", "modern_scores_to_json"]

CSV_COLUMNS = ("metric", "phi", "system", "scope", "name", "p_num", "p_den", "r_num", "r_den",
               "precision", "recall", "f1")


def _system_json(scores: ModernScores) -> dict[str, Any]:
    return {
        "system": scores.system,
        "overall": scores.overall.to_dict(),
        "roles": {role: counts.to_dict() for role, counts in scores.roles.items()},
        "types": {kind: counts.to_dict() for kind, counts in scores.types.items()},
        "documents": [{"docid": d.docid, "p_num": d.overall.p_num, "p_den": d.overall.p_den,
                       "r_num": d.overall.r_num, "r_den": d.overall.r_den}
                      for d in scores.documents],
        "warnings": [str(w) for w in scores.warnings],
        **({"parse": scores.parse_to_dict()} if scores.parse is not None else {}),
    }


def modern_scores_to_json(results: Sequence[Sequence[ModernScores]],
                          settings: Mapping[str, Any] | None = None) -> str:
    """``results``: per metric, the scores of every system."""
    doc = {
        "format": MODERN_FORMAT,
        "format_version": FORMAT_VERSION,
        "muceval": __version__,
        "signature": signature(settings or {}),
        "settings": dict(settings or {}),
        "results": [{"metric": systems[0].options.metric,
                     "options": systems[0].options.to_dict(),
                     "systems": [_system_json(s) for s in systems]}
                    for systems in results if systems],
    }
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False) + "\n"


def modern_scores_to_csv(results: Sequence[Sequence[ModernScores]]) -> str:
    """One row per metric, system and scope (``strict``: the overall counts of raw answers read
    strictly, beside the lenient ones)."""
    lines: list[Sequence[object]] = [CSV_COLUMNS]
    for systems in results:
        for s in systems:
            head = [s.options.metric, s.options.phi or "", s.system]
            rows = [("overall", "", s.overall),
                    *((("strict", "", s.strict),) if s.strict is not None else ()),
                    *(("role", r, c) for r, c in s.roles.items()),
                    *(("type", t, c) for t, c in s.types.items()),
                    *(("document", d.docid, d.overall) for d in s.documents)]
            lines += [[*head, scope, name, c.p_num, c.p_den, c.r_num, c.r_den, c.precision,
                       c.recall, c.f1] for scope, name, c in rows]
    return csv_text(lines)


def modern_scores_table(run: ModernRun, terminal: bool) -> str:
    """Each scorer's table, best first, printed on the terminal or returned as text."""
    console = text_console(120, terminal)
    for systems in run.scores:
        if not systems:
            continue
        options = systems[0].options
        label = options.metric + (f" (phi {options.phi})" if options.phi else "")
        if options.event_n is not None:
            label += f" (event-n {options.event_n}: {options.event_n_buckets})"
        table = new_table(f"{label}: reproduces {options.reproduces}", ("system",),
                          ("P", "R", "F1", "p_num/p_den", "r_num/r_den"))
        for s in sorted(systems, key=lambda s: -s.overall.f1):
            c = s.overall
            table.add_row(s.system, f"{100 * c.precision:.2f}", f"{100 * c.recall:.2f}",
                          f"{100 * c.f1:.2f}", f"{c.p_num:g}/{c.p_den}", f"{c.r_num:g}/{c.r_den}")
        console.print(table)
        if options.metric == "ceaf-ree" and run.layout == "gtt-gold" and run.schema == "muc4":
            console.print("  gold extracts: the per-role union of the GTT gold templates "
                          "(GRIT's own gold differs in a dozen documents)")
    for line in run.skipped:
        console.print(f"  not scored: {line}")
    _print_parses(run, console)
    return "" if terminal else console.export_text()


def _print_parses(run: ModernRun, console: Any) -> None:
    systems = next((s for s in run.scores if s), ())
    read = [s for s in systems if s.parse is not None]
    if not read:
        return
    lenient = any(s.strict is not None for s in read)
    table = new_table(f"raw answers read {read[0].parse}"
                      + (" (F1 under the first scorer; strict: as FAMuS's pipeline reads them)"
                         if lenient else " (as FAMuS's pipeline reads them)"),
                      ("system", "what reading met"),
                      ("F1 strict", "F1 lenient") if lenient else ())
    for s in read:
        met = ", ".join(f"{kind} ×{n}" for kind, n in s.note_counts().items()) or "nothing"
        extra = (f"{100 * s.strict.f1:.2f}", f"{100 * s.overall.f1:.2f}") \
            if lenient and s.strict is not None else ()
        table.add_row(s.system, met, *extra)
    console.print(table)
