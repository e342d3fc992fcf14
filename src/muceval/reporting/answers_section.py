"""The report's section on raw answers of language models: how they were read, what reading
them met, and (read leniently) the strict scores beside the lenient ones."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from muceval.reporting.sections import Page, format_pct
from muceval.scoring.modern import ModernScores

__all__ = ["AnswersSection", "answers_section"]


@dataclass(frozen=True)
class AnswersSection:
    """Per system, the scores of every scorer (label and the systems' scores)."""

    scorers: tuple[tuple[str, tuple[ModernScores, ...]], ...]
    id = "answers"
    title = "Raw answers"
    after = "summary"

    def _systems(self) -> list[ModernScores]:
        first = self.scorers[0][1] if self.scorers else ()
        return [s for s in first if s.parse is not None]

    def to_dict(self) -> dict[str, Any]:
        out = []
        for system in self._systems():
            entry = {"system": system.system, **(system.parse_to_dict(examples=5) or {})}
            entry["strict"] = {label: next(s.strict.to_dict() for s in scores
                                           if s.system == system.system and s.strict)
                               for label, scores in self.scorers
                               if any(s.system == system.system and s.strict for s in scores)}
            out.append(entry)
        return {"systems": out}

    def figures(self) -> dict[str, Any]:
        return {}

    def files(self) -> dict[str, str]:
        return {}

    def html(self, page: Page) -> Markup:
        def pct(counts: Any) -> dict[str, str]:
            return {k: format_pct(getattr(counts, k)) for k in ("precision", "recall", "f1")}

        systems: list[dict[str, Any]] = []
        modes: set[str] = set()
        for system in self._systems():
            parse = system.parse_to_dict(examples=5) or {}
            strict = [{"label": label, "strict": pct(s.strict), "lenient": pct(s.overall)}
                      for label, scores in self.scorers for s in scores
                      if s.system == system.system and s.strict is not None]
            modes.add(system.parse or "")
            systems.append({"system": system.system, "mode": system.parse,
                            "notes": [{"kind": kind, **found}
                                      for kind, found in parse.get("notes", {}).items()],
                            "strict": strict})
        return page.render("sections/answers.html.j2", systems=systems,
                           modes=", ".join(sorted(modes)))


def answers_section(scorers: Sequence[tuple[str, Sequence[ModernScores]]],
                    ) -> AnswersSection | None:
    section = AnswersSection(tuple((label, tuple(systems)) for label, systems in scorers))
    return section if section._systems() else None
