"""The HTML report of modern MUC-4 predictions: every scorer side by side (rankings change
between GTT's, GRIT's and IterX's scorers), each with its pairwise tests."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from muceval.core.signature import document_header
from muceval.errors import UsageError
from muceval.reporting.errors_section import ErrorSection
from muceval.reporting.html import ReportFiles, groupings_view, matrices_view, write_folder
from muceval.reporting.names import display_names
from muceval.reporting.plots import groups_plot, matrix_plot
from muceval.reporting.sections import Page, ReportSection, environment, format_pct
from muceval.scoring.modern import ModernScores, ratio_tallies
from muceval.significance.ratios import RATIO_METRICS, compare_ratios
from muceval.significance.result import SignificanceResult
from muceval.significance.settings import SignificanceSettings
from muceval.version import __version__

__all__ = ["MODERN_REPORT_FORMAT", "ModernAnalysis", "ScorerResult", "analyze_modern",
           "write_modern_report"]

MODERN_REPORT_FORMAT = "muceval-modern-report"
TITLES = {"precision": "Precision", "recall": "Recall", "f1": "F1"}


@dataclass(frozen=True)
class ScorerResult:
    """One scorer's scores of every system it can score, and their significance."""

    metric: str
    label: str
    reproduces: str
    systems: tuple[ModernScores, ...]
    significance: SignificanceResult | None
    caveats: tuple[str, ...] = ()
    # With the similarity when the report holds the metric twice (FAMuS's phi3 and phi-a).
    anchor: str = ""

    def __post_init__(self) -> None:
        if not self.anchor:
            object.__setattr__(self, "anchor", self.metric)

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "label": self.label, "reproduces": self.reproduces,
                "caveats": list(self.caveats),
                "options": self.systems[0].options.to_dict() if self.systems else {},
                "systems": [{"system": s.system, "overall": s.overall.to_dict(),
                             "roles": {r: c.to_dict() for r, c in s.roles.items()}}
                            for s in self.systems],
                "significance": (self.significance.to_dict()
                                 if self.significance is not None else None)}


@dataclass(frozen=True)
class ModernAnalysis:
    """Every modern scorer's scores of every system, their significance and the sections."""

    scorers: tuple[ScorerResult, ...]
    settings: SignificanceSettings
    inputs: tuple[tuple[str, Any], ...] = ()
    sections: tuple[ReportSection, ...] = ()

    def recorded(self) -> dict[str, Any]:
        return {**self.settings.to_json(), "inputs": dict(self.inputs)}

    @property
    def errors(self) -> ErrorSection | None:
        return cast("ErrorSection | None", next(
            (s for s in self.sections if s.id == "errors"), None))

    def to_dict(self) -> dict[str, Any]:
        out = {**document_header(MODERN_REPORT_FORMAT, self.recorded()),
               "scorers": [s.to_dict() for s in self.scorers]}
        out.update((section.id, section.to_dict()) for section in self.sections)
        return out

    @property
    def ranking(self) -> tuple[str, tuple[str, ...]]:
        names = {s.system for r in self.scorers for s in r.systems}
        for r in self.scorers:
            if r.significance is not None and len(r.systems) == len(names):
                return f"{r.label} F1", tuple(r.significance.ranking("f1"))
        raise UsageError("no scorer scores every system: the systems cannot be ranked")


def analyze_modern(results: Sequence[Sequence[ModernScores]], settings: SignificanceSettings,
                   inputs: dict[str, Any] | None = None,
                   progress: Callable[[int, int], None] | None = None) -> ModernAnalysis:
    """Test every pair of systems under each scorer (one seed for all of them)."""
    chosen = settings.with_seed()
    scorers = []
    metrics = [systems[0].options.metric for systems in results if systems]
    for systems in results:
        if not systems:
            continue
        options = systems[0].options
        label = options.label
        anchor = f"{options.metric}-{options.phi}" if metrics.count(options.metric) > 1 \
            else options.metric
        sig = compare_ratios(ratio_tallies(systems), RATIO_METRICS, chosen, progress=progress) \
            if len(systems) >= 2 else None
        scorers.append(ScorerResult(options.metric, label, options.reproduces, tuple(systems),
                                    sig, _caveats(systems, (inputs or {}).get("gold layout"),
                                                  (inputs or {}).get("schema", "muc4")),
                                    anchor))
    if not scorers:
        raise UsageError("no scorer could score these predictions")
    return ModernAnalysis(tuple(scorers), chosen, tuple((inputs or {}).items()))


_DENOMINATORS = {
    "ceaf-rme": "the gold templates with two incident types are split per type, and which copy "
                "each system's alignment keeps decides what is counted",
}


def _caveats(systems: Sequence[ModernScores], gold_layout: str | None,
             schema: str = "muc4") -> tuple[str, ...]:
    out = []
    metric = systems[0].options.metric
    if metric == "ceaf-ree" and gold_layout == "gtt-gold" and schema == "muc4":
        out.append("The gold extracts are the per-role union of the GTT gold templates; "
                   "GRIT's own gold file differs in a dozen documents, so GRIT's published "
                   "figures are reproduced against grit/test.json, not against this key.")
    denominators = sorted({s.overall.r_den for s in systems})
    if len(denominators) > 1:
        why = _DENOMINATORS.get(metric, "the scorer counts the gold as each system's "
                                "alignment reads it")
        out.append(f"The recall denominators differ between systems ({denominators[0]}–"
                   f"{denominators[-1]}): {why}.")
    return tuple(out)


def _side_by_side(analysis: ModernAnalysis) -> dict[str, Any]:
    names = list(dict.fromkeys(s.system for r in analysis.scorers for s in r.systems))
    rows = []
    for name in names:
        cells = []
        for r in analysis.scorers:
            found = next((s for s in r.systems if s.system == name), None)
            rank = (r.significance.ranking("f1").index(name) + 1
                    if r.significance is not None and found is not None else None)
            cells.append(None if found is None else {
                "metric": r.metric, "precision": format_pct(found.overall.precision),
                "recall": format_pct(found.overall.recall), "f1": format_pct(found.overall.f1),
                "rank": rank, "letters": (r.significance.letters["f1"][name]
                                          if r.significance is not None else "")})
        rows.append({"system": name, "cells": cells})
    return {"scorers": analysis.scorers, "rows": rows}


def _scorer_view(r: ScorerResult, svgs: Mapping[str, str]) -> dict[str, Any]:
    return {
        "metric": r.metric, "anchor": r.anchor, "label": r.label, "reproduces": r.reproduces,
        "caveats": r.caveats,
        "systems": [{"system": s.system, **{k: format_pct(getattr(s.overall, k))
                                           for k in ("precision", "recall", "f1")},
                     "counts": f"{s.overall.p_num:g}/{s.overall.p_den} · "
                               f"{s.overall.r_num:g}/{s.overall.r_den}"}
                    for s in sorted(r.systems, key=lambda s: -s.overall.f1)],
        "matrices": matrices_view(r.significance, svgs, f"{r.anchor}-", TITLES)
        if r.significance is not None else None,
        "groupings": groupings_view(r.significance, svgs, f"{r.anchor}-", TITLES)
        if r.significance is not None else None,
    }


def _default_title(analysis: ModernAnalysis) -> str:
    schema = dict(analysis.inputs).get("schema")
    return "muceval report: modern MUC-4 scorers" if schema is None else \
        f"muceval report: {schema} templates"


def write_modern_report(analysis: ModernAnalysis, out_dir: str | Path, *,
                        title: str | None = None, png: bool = False, overwrite: bool = False,
                        keep: Mapping[Any, str] | None = None) -> ReportFiles:
    """:func:`~muceval.reporting.html.write_report` for modern predictions."""
    figures = {f"{r.anchor}-{kind}-{metric}": plot(r.significance, metric,
                                                   f"{r.label}: {TITLES[metric]}")
               for r in analysis.scorers if r.significance is not None
               for metric in r.significance.metrics
               for kind, plot in (("matrix", matrix_plot), ("groups", groups_plot))}
    for section in analysis.sections:
        figures.update(section.figures())
    data = {"report.json": json.dumps(analysis.to_dict(), indent=1, ensure_ascii=False) + "\n"}
    for section in analysis.sections:
        data.update(section.files())
    return write_folder(Path(out_dir), figures, data,
                        lambda svgs: _page(analysis, svgs, title, png), png=png,
                        overwrite=overwrite, keep=keep)


def _page(analysis: ModernAnalysis, svgs: Mapping[str, str], title: str | None,
          png: bool) -> str:
    s = analysis.recorded()
    names = display_names(s.system for r in analysis.scorers for s in r.systems)
    return environment().get_template("modern_report.html.j2").render(
        version=__version__, title=title or _default_title(analysis), png=png,
        names=names,
        side=_side_by_side(analysis), scorers=[_scorer_view(r, svgs) for r in analysis.scorers],
        seed=s.get("seed"),
        sections=analysis.sections, placed=[section.html(Page(svgs, names, png))
                                            for section in analysis.sections],
        shuffles=s.get("shuffles"), method=s.get("method"), alpha=s.get("alpha"),
        documents=max((len(x.documents) for r in analysis.scorers for x in r.systems),
                      default=0),
        settings=[(k, json.dumps(v) if not isinstance(v, str) else v) for k, v in s.items()],
    ) + "\n"
