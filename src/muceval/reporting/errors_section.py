"""The Errors section of a report: Das et al. (2022)'s error categories of every system, and
which counts changed for real between neighbours in the report's ranking."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from markupsafe import Markup

from muceval.errors import UsageError
from muceval.reporting.error_changes import error_changes_to_csv
from muceval.reporting.plots import category_colors, error_bars_plot, slug
from muceval.reporting.sections import Page
from muceval.scoring.errors import ErrorAnalysis
from muceval.scoring.errors.model import ALL_CATEGORIES, GENERAL_SPURIOUS
from muceval.significance.error_counts import ErrorChange, changes_between
from muceval.significance.settings import SignificanceSettings

__all__ = ["FIGURE", "ErrorSection", "error_section"]

FIGURE = "errors-categories"


@dataclass(frozen=True)
class ErrorSection:
    """The error analysis of a report's systems, in its ranking, with the neighbours' tests."""

    analysis: ErrorAnalysis
    order: tuple[str, ...]
    ranked_by: str
    changes: tuple[ErrorChange, ...]
    alpha: float
    adjust: str = "none"
    id = "errors"
    title = "Errors"
    after = "distributions"

    @property
    def stacked(self) -> tuple[str, ...]:
        """The categories the bars stack: ``General_Spurious_Role_Filler`` is (nearly) the sum of
        its nine sub-categories, so the bars draw those, never both."""
        return tuple(c for c in self.analysis.options.categories if c != GENERAL_SPURIOUS)

    def to_dict(self) -> dict[str, Any]:
        systems = {s.system: s for s in self.analysis.systems}
        categories = self.analysis.options.categories
        return {"settings": self.analysis.settings, "ranked_by": self.ranked_by,
                "order": list(self.order), "alpha": self.alpha, "adjust": self.adjust,
                "systems": [{"system": name,
                             "error_score": systems[name].before_totals.error_score,
                             "categories": {c: systems[name].before_totals.total.category(c)
                                            for c in categories}} for name in self.order],
                "neighbours": [asdict(c) for c in self.changes]}

    def figures(self) -> dict[str, Any]:
        systems = {s.system: s for s in self.analysis.systems}
        rows = [(name, {c: systems[name].before_totals.total.category(c) for c in self.stacked})
                for name in self.order]
        return {FIGURE: error_bars_plot(rows, self.stacked, category_colors(ALL_CATEGORIES))}

    def files(self) -> dict[str, str]:
        return {"errors.json": self.analysis.to_json(), "errors.csv": self.analysis.to_csv(),
                "error-changes.csv": error_changes_to_csv(self.changes)}

    def html(self, page: Page) -> Markup:
        return page.render("sections/errors.html.j2", e=self.view(page.figure(
            FIGURE, "Error categories of every system, best first; every document's counts "
            "are in errors.json and errors.csv.")))

    def view(self, figure: Mapping[str, Any]) -> dict[str, Any]:
        systems = {s.system: s for s in self.analysis.systems}
        categories = self.analysis.options.categories
        colors = category_colors(ALL_CATEGORIES)
        totals = [{"category": c, "color": colors[c], "parent": c == GENERAL_SPURIOUS,
                   "counts": [systems[n].before_totals.total.category(c) for n in self.order]}
                  for c in categories]
        rows = self.analysis.rows
        # The longer side runs down the page: MUC-4's seven rows are columns, the hundreds
        # of roles of an open schema (FAMuS's frames) are lines.
        transposed = len(rows) > len(categories)
        roles = [{"system": n, "slug": slug(n), "rows": list(rows), "transposed": transposed,
                  "categories": [{"category": c, "counts": [row.category(c) for row in
                                                            systems[n].before_totals.rows]}
                                 for c in categories],
                  "lines": [{"row": name, "counts": [row.category(c) for c in categories]}
                            for name, row in zip(rows, systems[n].before_totals.rows,
                                                 strict=True)] if transposed else []}
                 for n in self.order]
        return {"systems": list(self.order),
                "ranked_by": self.ranked_by,
                "scores": [_score(systems[n].before_totals.error_score) for n in self.order],
                "totals": totals, "roles": roles, "categories": list(categories),
                "figure": figure,
                "neighbours": self._neighbours(), "alpha": self.alpha,
                "adjust": self.adjust, "tests": len(self.changes),
                "by_chance": round(len(self.changes) * self.alpha, 1),
                "documents": len({d.docid for s in self.analysis.systems for d in s.documents}),
                "settings": self.analysis.settings}

    def _neighbours(self) -> list[dict[str, Any]]:
        out = []
        for upper, lower in zip(self.order, self.order[1:], strict=False):
            found = [c for c in self.changes if (c.baseline, c.candidate) == (upper, lower)]
            out.append({"upper": upper, "lower": lower,
                        "significant": [asdict(c) for c in found if c.significant(self.alpha)],
                        "tested": len(found)})
        return out


def _score(value: float) -> str:
    """The Error Score, whole or to two decimals (a partial span costs a fraction)."""
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.2f}"


def error_section(analysis: ErrorAnalysis, order: Sequence[str], ranked_by: str,
                  settings: SignificanceSettings) -> ErrorSection:
    """The section, each neighbour in ``order`` tested against the one ranked above it."""
    names = [s.system for s in analysis.systems]
    if sorted(order) != sorted(names):
        raise UsageError(f"the ranking ({', '.join(order)}) and the error analysis "
                         f"({', '.join(names)}) are not of the same systems")
    settings = settings.with_seed()
    changes = changes_between(analysis.counts(), list(zip(order, order[1:], strict=False)),
                              settings)
    return ErrorSection(analysis, tuple(order), ranked_by, tuple(changes), settings.alpha,
                        settings.adjust)
