"""The Alignment section of a report, drawn from the ``muceval-alignment`` document."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from muceval.reporting.alignment import (
    AlignmentComparison,
    alignment_to_dict,
    signed_pct,
)
from muceval.reporting.sections import Page, format_p, format_pct
from muceval.scoring.alignment.audit import AlignmentAudit

__all__ = ["AlignmentSection"]


@dataclass(frozen=True)
class AlignmentSection:
    """The audit of the criteria, each change of F tested with the report's own settings."""

    audit: AlignmentAudit
    comparison: AlignmentComparison | None
    recorded: tuple[tuple[str, Any], ...]
    id = "alignment"
    title = "Alignment"
    after = "slot-comparison"

    @functools.cached_property
    def document(self) -> dict[str, Any]:
        return alignment_to_dict(self.audit, self.comparison, dict(self.recorded))

    def to_dict(self) -> dict[str, Any]:
        return self.document

    def files(self) -> dict[str, str]:
        return {"alignment.json": json.dumps(self.document, ensure_ascii=False,
                                             separators=(",", ":")) + "\n"}

    def _mapped(self) -> list[tuple[str, list[tuple[float, bool]]]]:
        doc = self.document
        return [(s["system"], [(p["evidence_bits"], p["flagged"]) for p in s["pairs"]
                               if p["verdicts"].get(doc["default"]) == "mapped"])
                for s in doc["systems"]]

    def figures(self) -> dict[str, Any]:
        from muceval.reporting.plots import evidence_plot

        mapped = self._mapped()
        if not any(pairs for _, pairs in mapped):
            return {}
        return {"alignment-evidence": evidence_plot(mapped, self.document["default"],
                                                    self.document["flag"])}

    def html(self, page: Page) -> Markup:
        return page.render("sections/alignment.html.j2",
                           alignment=_alignment_view(self.document, page))


def _alignment_view(doc: Mapping[str, Any], page: Page) -> dict[str, Any]:
    default, flag = doc["default"], doc["flag"]
    scored = [c for c in doc["criteria"] if doc["criteria"][c].get("cardinality", "1:1") == "1:1"]
    criteria = [{"name": name, "describe": d["describe"],
                 "role": ", ".join(r for r, n in (("default", default), ("flag", flag))
                                   if n == name)} for name, d in doc["criteria"].items()]
    significance = doc["settings"].get("significance", {})
    alpha = significance.get("alpha", 0.10)
    columns = _alignment_columns(scored, default)
    flagged = [{"system": s["system"], **p} for s in doc["systems"] for p in s["pairs"]
               if p["flagged"]]
    removal, anomalies = _removal_view(doc["systems"], scored)
    return {
        "default": default, "flag": flag, "criteria": criteria, "scored": scored,
        "alpha": f"{alpha:g}",
        "columns": columns, "rows": _alignment_rows(doc["systems"], columns, alpha),
        "comparisons": _criteria_comparisons(doc["comparisons"]),
        "shuffles": significance.get("shuffles"),
        "figure": (page.figure("alignment-evidence", "Evidence of every aligned pair.")
                   if "alignment-evidence" in page.svgs else None),
        "flagged": flagged, "removal": removal, "anomalies": anomalies,
        "calibration": _calibration_view(doc["calibration"]),
    }


def _alignment_columns(scored: Sequence[str], default: str) -> list[tuple[str, str, str]]:
    columns: list[tuple[str, str, str]] = []
    for c in scored:
        heads = ((("recall", "R"), ("precision", "P"), ("f1", "F"), ("mapped_pairs", "pairs"))
                 if c == default else (("f1", "F"), ("delta_f1", "ΔF"), ("p_value", "p"),
                                       ("rank", "rank")))
        columns += [(c, m, f"{c} {h}") for m, h in heads]
    return columns


def _alignment_text(metric: str, value: Any) -> str:
    if metric in ("recall", "precision", "f1"):
        return format_pct(value)
    if metric == "delta_f1":
        return signed_pct(value)
    if metric == "p_value":
        return "" if value is None else format_p(value)
    return "" if value is None else str(value)


def _alignment_rows(systems: Sequence[Mapping[str, Any]], columns: Sequence[tuple[str, str, str]],
                    alpha: float) -> list[dict[str, Any]]:
    rows = []
    for s in systems:
        cells = []
        for c, metric, _ in columns:
            v = s["criteria"][c].get(metric)
            significant = metric == "p_value" and v is not None and v <= alpha
            cells.append({"criterion": c, "metric": metric, "text": _alignment_text(metric, v),
                          "sort": "" if v is None else repr(v), "significant": significant})
        rows.append({"system": s["system"], "cells": cells})
    return rows


def _removal_view(systems: Sequence[Mapping[str, Any]],
                  scored: Sequence[str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    removal = []
    anomalies = []
    for s in systems:
        records = s["removal"]
        if not records:
            continue
        removal.append({"system": s["system"], "templates": len(records),
                        "raises": [sum(1 for r in records if (r["deltas"][c]["f1"] or 0) > 0)
                                   for c in scored],
                        "anomalies": sum(r["anomaly"] for r in records)})
        anomalies += [{"system": s["system"], **r,
                       "df": [signed_pct(r["deltas"][c]["f1"]) for c in scored]}
                      for r in records if r["anomaly"]]
    return removal, anomalies


def _calibration_view(calibration: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [{"criterion": c["criterion"],
             "same": f"{format_pct(c['same_message']['share'])}% of "
                     f"{c['same_message']['pairs']}",
             "other": f"{format_pct(c['other_messages']['share'])}% of "
                      f"{c['other_messages']['pairs']}"
                      + (" (sample)" if c["other_messages"]["sampled"] else "")}
            for c in calibration]


def _criteria_comparisons(comparisons: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [{"criterion": c["criterion"],
             "tau": "n/a" if c["kendall_tau"] is None else f"{c['kendall_tau']:.3f}",
             "flips": [{**f, "p_default": format_p(f["p_default"]),
                        "p_value": format_p(f["p_value"])} for f in c["flips"]]}
            for c in comparisons]
