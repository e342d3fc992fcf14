"""The parts of an HTML page: the one Jinja2 environment, number formats, figures, and the
protocol of a report's optional sections (:class:`ReportSection`).

>>> format_pct(0.35678), format_pct(None)
('35.68', 'n/a')
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import jinja2
from markupsafe import Markup, escape

from muceval.reporting.plots import inline_svg

__all__ = ["ANCHORS", "Page", "ReportSection", "environment", "figure_view", "format_p",
           "format_pct", "template_of"]

ANCHORS = ("summary", "region", "matrices", "groupings", "distributions", "slot-comparison",
           "classic-tests", "systems", "settings")


def format_pct(value: float | None, digits: int = 2) -> str:
    """A fraction as a percentage; ``n/a`` when undefined.

    >>> format_pct(0.5, 1)
    '50.0'
    """
    return "n/a" if value is None else f"{100 * value:.{digits}f}"


def format_p(p: float) -> str:
    """A p-value as the tables show it (four decimals, or ``<0.0001``).

    >>> format_p(0.1), format_p(0.00001)
    ('0.1000', '<0.0001')
    """
    return "<0.0001" if p < 0.0001 else f"{p:.4f}"


@functools.cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("muceval.reporting", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        undefined=jinja2.StrictUndefined,
    )
    env.filters["system"] = _system_filter
    env.filters["shown"] = _shown_filter
    return env


@jinja2.pass_context
def _shown_filter(context: Any, name: str) -> str:
    """``{{ name | shown }}``: the system as the page shows it, as plain text."""
    return str(context.get("names", {}).get(name, name))


@jinja2.pass_context
def _system_filter(context: Any, name: str) -> Markup:
    """``{{ name | system }}``: the system as the page shows it, the full name its tooltip."""
    shown = _shown_filter(context, name)
    if shown == name:
        return escape(name)
    return Markup('<span class="sys" title="{}">{}</span>').format(name, shown)


def figure_view(fig_id: str, svgs: Mapping[str, str], caption: str) -> dict[str, Any]:
    # The SVG is our own figures' markup (their texts escaped when written), not user text.
    return {"id": fig_id, "caption": caption, "svg": Markup(inline_svg(svgs[fig_id], f"{fig_id}-"))}


@dataclass(frozen=True)
class Page:
    """What a section needs to draw itself on a page."""

    svgs: Mapping[str, str]
    names: Mapping[str, str]
    png: bool = False

    def figure(self, fig_id: str, caption: str) -> dict[str, Any]:
        return figure_view(fig_id, self.svgs, caption)

    def render(self, template: str | jinja2.Template, **view: Any) -> Markup:
        """A template of the package (by name), or one of :func:`template_of`."""
        found = environment().get_template(template) if isinstance(template, str) else template
        return Markup(found.render(names=self.names, png=self.png, **view))


def template_of(text: str) -> jinja2.Template:
    """A section's own template, from its text, in the pages' one environment."""
    return environment().from_string(text)


@runtime_checkable
class ReportSection(Protocol):
    """One optional part of a report, placed ``after`` one of :data:`ANCHORS`."""

    id: str
    title: str
    after: str

    def to_dict(self) -> dict[str, Any]:
        """What ``report.json`` holds of it."""

    def figures(self) -> dict[str, Any]:
        """Its figures, keyed by figure id."""

    def files(self) -> dict[str, str]:
        """The data files it adds to the report's folder, name to text."""

    def html(self, page: Page) -> Markup:
        """The section as the page shows it: one ``<section id=...>``."""
