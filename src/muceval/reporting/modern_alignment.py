"""The alignment view of the modern metrics (``muceval alignment`` with a modern key): GTT's
criterion credits a template pair whose incident types agree even when no role entity matches,
so it is tested against ``gtt-role-match``, over documents."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from muceval.core.signature import document_header
from muceval.reporting.alignment import AlignmentComparison, _r, criteria_comparison, print_flips
from muceval.reporting.outputs import csv_text, new_table, text_console
from muceval.scoring.modern import ratio_tallies
from muceval.scoring.modern.alignment import MODERN_CRITERIA, GttAlignmentAudit
from muceval.significance.ratios import compare_ratios
from muceval.significance.settings import SignificanceSettings

if TYPE_CHECKING:
    from muceval.scoring.modern import ModernScores
    from muceval.significance.result import SignificanceResult

__all__ = ["MODERN_ALIGNMENT_FORMAT", "compare_gtt_alignment", "modern_alignment_table",
           "modern_alignment_to_csv", "modern_alignment_to_dict", "modern_alignment_to_json"]

MODERN_ALIGNMENT_FORMAT = "muceval-modern-alignment"
FORMAT_VERSION = 1
DEFAULT, FLAG = "gtt", "gtt-role-match"
CRITERIA = (DEFAULT, FLAG)


def _scores(audit: GttAlignmentAudit, criterion: str) -> ModernScores:
    return audit.scores if criterion == DEFAULT else audit.strict


def compare_gtt_alignment(audits: Sequence[GttAlignmentAudit],
                          settings: SignificanceSettings | None = None) -> AlignmentComparison:
    """Each system's change of F from ``gtt`` to ``gtt-role-match`` tested, with the flips."""
    def test(rows: list[tuple[str, ModernScores]],
             chosen: SignificanceSettings) -> SignificanceResult:
        return compare_ratios(ratio_tallies([replace(s, system=n) for n, s in rows]), ("f1",),
                              chosen)

    return criteria_comparison({a.system: {c: _scores(a, c) for c in CRITERIA} for a in audits},
                               CRITERIA, DEFAULT, lambda s: s.overall.f1, test, settings)


def modern_alignment_to_dict(audits: Sequence[GttAlignmentAudit],
                             comparison: AlignmentComparison | None,
                             settings: Mapping[str, Any]) -> dict[str, Any]:
    """The audit as the ``muceval-modern-alignment`` document."""
    systems = []
    for a in audits:
        base = a.scores.overall.f1
        criteria: dict[str, dict[str, Any]] = {}
        for c in CRITERIA:
            counts = _scores(a, c).overall
            criteria[c] = {**counts.to_dict(), "delta_f1": _r(counts.f1 - base)}
            if comparison is not None:
                criteria[c]["p_value"], criteria[c]["rank"] = comparison.tested(a.system, c)
        systems.append({"system": a.system, "mapped_pairs": a.mapped,
                        "type_only_pairs": a.type_only,
                        "type_only_share": _r(a.share),
                        "criteria": criteria, "pairs": [p.to_dict() for p in a.pairs]})
    header = document_header(MODERN_ALIGNMENT_FORMAT, settings, FORMAT_VERSION)
    if comparison is not None:
        header["settings"]["significance"] = comparison.settings
    return {
        **header,
        "criteria": {name: c.to_dict() for name, c in MODERN_CRITERIA.items()},
        "default": DEFAULT,
        "flag": FLAG,
        "systems": systems,
        "comparisons": [] if comparison is None else [
            {"criterion": FLAG, "kendall_tau": comparison.kendall_tau.get(FLAG),
             "flips": [f.to_dict() for f in comparison.flips.get(FLAG, ())]}],
    }


def modern_alignment_to_csv(audits: Sequence[GttAlignmentAudit],
                            comparison: AlignmentComparison | None, view: str = "scores") -> str:
    """``scores``: one row per system and criterion; ``pairs``: one per credited pair."""
    if view == "pairs":
        return csv_text([("system", "docid", "predicted", "gold", "predicted_type", "gold_type",
                          "role_p_num", "role_p_den", "role_r_num", "role_r_den", "type_only"),
                         *([a.system, pair.docid, pair.predicted, pair.gold,
                            pair.predicted_type, pair.gold_type, pair.role_p_num,
                            pair.role_p_den, pair.role_r_num, pair.role_r_den,
                            int(pair.type_only)] for a in audits for pair in a.pairs)])
    rows: list[Sequence[object]] = [
        ("system", "criterion", "p_num", "p_den", "r_num", "r_den", "precision", "recall", "f1",
         "delta_f1", "p_value", "rank", "mapped_pairs", "type_only_pairs")]
    for a in audits:
        for c in CRITERIA:
            counts = _scores(a, c).overall
            p, rank = comparison.tested(a.system, c) if comparison else (None, None)
            rows.append([a.system, c, f"{counts.p_num:g}", counts.p_den, f"{counts.r_num:g}",
                         counts.r_den, _r(counts.precision), _r(counts.recall), _r(counts.f1),
                         _r(counts.f1 - a.scores.overall.f1), "" if p is None else p,
                         "" if rank is None else rank, a.mapped, a.type_only])
    return csv_text(rows)


def modern_alignment_table(audits: Sequence[GttAlignmentAudit],
                           comparison: AlignmentComparison | None, pairs: bool = False,
                           terminal: bool = False, width: int = 140) -> str:
    """The audit as rich tables (exported as text unless printing to a terminal)."""
    console = text_console(width, terminal, markup=False, highlight=False)
    console.print("Criteria:")
    for name, c in MODERN_CRITERIA.items():
        role = " (default)" if name == DEFAULT else " (flag)" if name == FLAG else ""
        console.print(f"  {name}{role}: aligns {c.aligns}; may align when {c.restriction}; "
                      f"chosen by {c.assignment}; {c.cardinality}")
    table = new_table(f"GTT's alignment: pairs credited on the incident type alone, and F "
                      f"under {FLAG} (%)", ("system",),
                      ("pairs", "type only", "share", f"{DEFAULT} F", f"{FLAG} F", "ΔF", "p",
                       "rank"))
    for a in audits:
        f0, f1 = a.scores.overall.f1, a.strict.overall.f1
        p, rank = comparison.tested(a.system, FLAG) if comparison else (None, None)
        table.add_row(a.system, str(a.mapped), str(a.type_only),
                      "-" if a.share is None else f"{100 * a.share:.1f}%", f"{100 * f0:.2f}",
                      f"{100 * f1:.2f}", f"{100 * (f1 - f0):+.2f}",
                      "" if p is None else f"{p:.4f}", "" if rank is None else str(rank))
    console.print(table)
    if comparison is not None and len(audits) >= 2:
        print_flips(console, comparison, FLAG, DEFAULT)
    if pairs:
        from rich.table import Table

        listing = Table(title="Pairs credited on the incident type alone")
        for head in ("system", "document", "predicted", "gold", "type", "gold type",
                     "predicted entities", "gold entities"):
            listing.add_column(head, justify="left" if head in ("system", "document", "type",
                                                                "gold type") else "right")
        for a in audits:
            for pair in a.pairs:
                if pair.type_only:
                    listing.add_row(a.system, pair.docid, str(pair.predicted), str(pair.gold),
                                    pair.predicted_type, pair.gold_type, str(pair.role_p_den),
                                    str(pair.role_r_den))
        console.print(listing)
    return "" if terminal else console.export_text()


def modern_alignment_to_json(audits: Sequence[GttAlignmentAudit],
                             comparison: AlignmentComparison | None,
                             settings: Mapping[str, Any]) -> str:
    return json.dumps(modern_alignment_to_dict(audits, comparison, settings), indent=1,
                      ensure_ascii=False) + "\n"
