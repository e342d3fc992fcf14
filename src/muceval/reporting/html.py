"""The HTML report: one self-contained page with tables, figures and the settings.

:func:`write_report` takes an :class:`~muceval.reporting.analysis.Analysis` and writes
to a folder:

* ``report.html`` — inline CSS, inline SVG figures and a few lines of inline
  JavaScript (table sorting); it needs no network and no other file;
* ``figures/`` — every figure as SVG and PNG;
* ``report.json`` (everything the page shows, :meth:`Analysis.to_dict`),
  ``significance.json`` / ``significance.csv`` (every comparison),
  ``summary.csv`` (ALL TEMPLATES per system) and ``slots.csv`` (slot and
  object rows per system).

The page marks what it shows so that programs (and the browser test) can
read it back: sections have ids (``summary``, ``region``, ``matrices``,
``groupings``, ``slot-comparison``, ``systems``, ``settings``), table cells
carry ``data-system`` / ``data-metric`` attributes and every figure sits in a
``<figure id="fig-…">``.

>>> from muceval.reporting.html import format_pct
>>> format_pct(0.35678), format_pct(None)
('35.68', 'n/a')
"""

from __future__ import annotations

import csv
import html
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from muceval.core.systems import MANNER_LABELS, Row, SystemScores
from muceval.errors import UsageError
from muceval.formats.files import write_atomic
from muceval.reporting.analysis import Analysis
from muceval.reporting.plots import (
    METRIC_TITLES,
    groups_plot,
    inline_svg,
    matrix_plot,
    region_plot,
    slug,
    to_png,
    to_svg,
)

__all__ = ["ReportFiles", "format_p", "format_pct", "render_html", "write_report"]

# The float attribute of SystemScores rows that holds each significance metric.
METRIC_FIELDS: dict[str, str] = {
    "recall": "recall",
    "precision": "precision",
    "f1": "f_pr",
    "f0.5": "f_2pr",
    "f2": "f_p2r",
}
_COUNT_COLUMNS = ("pos", "act", "cor", "par", "inc", "spu", "mis", "non")


def format_pct(value: float | None, digits: int = 2) -> str:
    """A fraction as a percentage with ``digits`` decimals; ``n/a`` when undefined.

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


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


@dataclass(frozen=True)
class Figures:
    """SVG text of every figure, keyed by figure id (``region``, ``matrix-f1``, ``groups-f1`` …)."""

    svg: dict[str, str]


@dataclass(frozen=True)
class ReportFiles:
    """Paths written by :func:`write_report`."""

    out_dir: Path
    html: Path
    json: Path
    figures: tuple[Path, ...]
    data: tuple[Path, ...]


# ---------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------


def _regions(systems: Sequence[SystemScores]):
    out = []
    for s in systems:
        points = {}
        for manner in MANNER_LABELS:
            row = s.manner(manner)
            if row is not None:
                points[manner] = (row.recall, row.precision)
        if not points:
            points["all-templates"] = (s.all_templates.recall, s.all_templates.precision)
        out.append((s.name, points))
    return out


def build_figures(analysis: Analysis) -> dict[str, Any]:
    """Every figure of the report as matplotlib figures, keyed by figure id.

    >>> sorted(build_figures(a))[:2]  # doctest: +SKIP
    ['groups-f0.5', 'groups-f1']
    """
    figures: dict[str, Any] = {"region": region_plot(_regions(analysis.systems))}
    for metric in analysis.significance.metrics:
        figures[f"matrix-{metric}"] = matrix_plot(analysis.significance, metric)
        figures[f"groups-{metric}"] = groups_plot(analysis.significance, metric)
    return figures


# ---------------------------------------------------------------------------
# HTML
# ---------------------------------------------------------------------------

_CSS = """
:root { --ink: #1d2733; --muted: #5b6775; --line: #d7dde4; --head: #eef2f6; --accent: #1f4e79; }
* { box-sizing: border-box; }
body { font-family: "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; color: var(--ink);
       margin: 0 auto; max-width: 1320px; padding: 1.2rem 2rem 3rem; line-height: 1.4; }
h1 { font-size: 1.7rem; margin: 0.2rem 0 0.3rem; color: var(--accent); }
h2 { font-size: 1.3rem; margin: 2.2rem 0 0.4rem; border-bottom: 2px solid var(--accent);
     padding-bottom: 0.2rem; }
h3 { font-size: 1.05rem; margin: 1.4rem 0 0.3rem; }
p.caption { color: var(--muted); margin: 0.2rem 0 0.8rem; max-width: 62rem; font-size: 0.93rem; }
nav ul { list-style: none; padding: 0; margin: 0.6rem 0; display: flex; flex-wrap: wrap; gap: 0.4rem; }
nav a { display: inline-block; padding: 0.2rem 0.6rem; border: 1px solid var(--line);
        border-radius: 4px; text-decoration: none; color: var(--accent); font-size: 0.9rem; }
table { border-collapse: collapse; font-size: 0.82rem; margin: 0.3rem 0 0.8rem; }
th, td { border: 1px solid var(--line); padding: 0.18rem 0.45rem; text-align: right;
         white-space: nowrap; }
th { background: var(--head); font-weight: 600; }
td.name, th.name { text-align: left; }
table.sortable th { cursor: pointer; user-select: none; }
table.sortable th[aria-sort="ascending"]::after { content: " \\25B2"; font-size: 0.7em; }
table.sortable th[aria-sort="descending"]::after { content: " \\25BC"; font-size: 0.7em; }
span.ci { display: block; color: var(--muted); font-size: 0.72rem; }
td.sig { font-weight: 700; background: #fde7c8; }
td.diag { background: #eee; }
td.weak { background: repeating-linear-gradient(45deg, #fff, #fff 4px, #eee 4px, #eee 8px); }
figure { margin: 0.4rem 0 1rem; }
figure svg { max-width: 100%; height: auto; }
.scroll { overflow-x: auto; }
details { margin: 0.3rem 0 0.8rem; }
summary { cursor: pointer; color: var(--accent); }
dl.settings { display: grid; grid-template-columns: max-content 1fr; gap: 0.15rem 1rem; font-size: 0.88rem; }
dl.settings dt { font-weight: 600; }
dl.settings dd { margin: 0; font-family: "DejaVu Sans Mono", monospace; word-break: break-all; }
ol.groups li { margin: 0.1rem 0; }
.system-block { border-top: 1px solid var(--line); margin-top: 1rem; }
"""

# Sorting: click a header; cells sort by data-sort (numeric when possible).
_JS = """
document.querySelectorAll('table.sortable').forEach(function (table) {
  table.querySelectorAll('thead th').forEach(function (th, col) {
    th.addEventListener('click', function () {
      var body = table.tBodies[0];
      var asc = th.getAttribute('aria-sort') !== 'ascending';
      table.querySelectorAll('thead th').forEach(function (h) { h.removeAttribute('aria-sort'); });
      th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
      var key = function (row) {
        var cell = row.cells[col];
        var v = cell.getAttribute('data-sort');
        if (v === null) { v = cell.textContent.trim(); }
        var n = parseFloat(v);
        return isNaN(n) ? v.toLowerCase() : n;
      };
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        if (typeof x !== typeof y) { x = String(x); y = String(y); }
        return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1);
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
// Lets a test see, in the rendered DOM, that the script ran to the end.
document.documentElement.setAttribute('data-script', 'ready');
"""


def _metric_cell(value: float | None, ci: tuple[float, float] | None, system: str,
                 metric: str) -> str:  # fmt: skip
    sort = "" if value is None else f' data-sort="{value!r}"'
    inner = f'<span class="v">{format_pct(value)}</span>'
    if ci is not None:
        inner += f'<span class="ci">{format_pct(ci[0])}–{format_pct(ci[1])}</span>'
    return f'<td data-system="{_e(system)}" data-metric="{_e(metric)}"{sort}>{inner}</td>'


def _summary_section(analysis: Analysis) -> str:
    sig = analysis.significance
    ci_all = sig.system_ci or {}
    ranking_metric = "f1" if "f1" in sig.metrics else sig.metrics[0]
    order = sig.ranking(ranking_metric)
    columns = [("recall", "Recall"), ("precision", "Precision"), ("f1", "F P&R"),
               ("f0.5", "F 2P&R"), ("f2", "F P&2R")]  # fmt: skip
    head = ['<th class="name">rank</th>', '<th class="name">system</th>']
    head += [f'<th data-metric="{m}">{label}</th>' for m, label in columns]
    head += ['<th data-metric="overgeneration">Overgen.</th>', '<th data-metric="fallout">Fallout</th>',
             '<th data-metric="f1-1992">F P&amp;R 1992</th>',
             f'<th class="name">groups ({_e(METRIC_TITLES.get(ranking_metric, ranking_metric))})</th>']  # fmt: skip
    rows = []
    for rank, name in enumerate(order, start=1):
        s = analysis.system(name)
        row = s.all_templates
        cells = [f'<td class="name" data-sort="{rank}">{rank}</td>',
                 f'<td class="name" data-system="{_e(name)}">{_e(name)}</td>']  # fmt: skip
        for metric, _ in columns:
            ci = ci_all.get(name, {}).get(metric)
            cells.append(_metric_cell(getattr(row, METRIC_FIELDS[metric]), ci, name, metric))
        cells.append(_metric_cell(row.overgeneration, None, name, "overgeneration"))
        cells.append(_metric_cell(s.fallout, None, name, "fallout"))
        f92 = s.f_1992[0] if s.f_1992 is not None else None
        cells.append(
            f'<td data-system="{_e(name)}" data-metric="f1-1992" '
            f'data-sort="{f92 if f92 is not None else -1}">{"n/a" if f92 is None else f"{f92:.2f}"}</td>'
        )
        letters = sig.letters.get(ranking_metric, {}).get(name, "")
        cells.append(f'<td class="name" data-system="{_e(name)}" data-metric="letters">{_e(letters)}</td>')
        rows.append(f'<tr data-system="{_e(name)}">{"".join(cells)}</tr>')
    level = sig.settings.get("ci_level", 0.95)
    ci_note = (
        f"Small grey numbers are {100 * level:g}% paired-bootstrap confidence intervals "
        f"({sig.settings.get('bootstrap')} resamples of the messages)."
        if sig.system_ci
        else "No bootstrap intervals were computed."
    )
    return f"""
<section id="summary">
<h2>Summary of all systems</h2>
<p class="caption">ALL TEMPLATES scores (the official MUC score) of every system, in percent,
ranked by {_e(METRIC_TITLES.get(ranking_metric, ranking_metric))}. Higher recall means more of the
answer key was found; higher precision means fewer wrong fills; the F-measures combine both
(P&amp;R equal weight, 2P&amp;R favours precision, P&amp;2R favours recall). Overgeneration is the
share of spurious fills; fallout (set-fill slots only) needs the count of possible wrong fills and
is n/a for 1992 score reports. {ci_note} Systems sharing a group letter are not significantly
different. Click a column heading to sort.</p>
<div class="scroll"><table id="summary-table" class="sortable">
<thead><tr>{"".join(head)}</tr></thead>
<tbody>
{chr(10).join(rows)}
</tbody></table></div>
</section>"""


def _figure(fig_id: str, svgs: Mapping[str, str], caption: str) -> str:
    svg = inline_svg(svgs[fig_id], f"{fig_id}-")
    return (
        f'<figure id="fig-{_e(fig_id)}" data-figure="{_e(fig_id)}">{svg}'
        f'<figcaption class="caption">{caption} '
        f'(also as <a href="figures/{_e(fig_id)}.svg">SVG</a> and '
        f'<a href="figures/{_e(fig_id)}.png">PNG</a>)</figcaption></figure>'
    )


def _region_section(svgs: Mapping[str, str]) -> str:
    return f"""
<section id="region">
<h2>Region of performance</h2>
<p class="caption">Each coloured rectangle is one system's region of performance: the smallest box
holding its four (recall, precision) points — MATCHED ONLY (best case: unmatched templates ignored),
MATCHED/MISSING, MATCHED/SPURIOUS and ALL TEMPLATES (worst case, the official score, shown as a
dot). A small box means the score hardly depends on how unmatched templates are counted. Dotted
curves join points of equal F (P&amp;R); further up and right is better.</p>
{_figure("region", svgs, "Region of performance of every system.")}
</section>"""


def _matrix_table(analysis: Analysis, metric: str) -> str:
    sig = analysis.significance
    order = sig.ranking(metric)
    head = '<th class="name">system</th><th>score</th>' + "".join(
        f'<th data-system="{_e(n)}">{_e(n)}</th>' for n in order
    )
    rows = []
    for a in order:
        cells = [f'<td class="name">{_e(a)}</td>',
                 f'<td data-metric="{_e(metric)}">{format_pct(sig.scores[a][metric])}</td>']  # fmt: skip
        for b in order:
            if a == b:
                cells.append('<td class="diag">—</td>')
                continue
            c = sig.comparison(a, b, metric)
            classes = ["sig"] if c.significant else []
            if c.method == "approximate" and c.confidence < sig.settings["confidence"]:
                classes.append("weak")
            conf = f"{c.confidence:.3f}" if c.method == "approximate" else "exact"
            title = (f"{a} vs {b}: difference {100 * (sig.scores[a][metric] - sig.scores[b][metric]):+.2f}, "
                     f"p = {c.p_adjusted:.6g} ({c.method}), confidence {conf}")  # fmt: skip
            cls = f' class="{" ".join(classes)}"' if classes else ""
            cells.append(
                f'<td{cls} data-a="{_e(a)}" data-b="{_e(b)}" data-p="{c.p_adjusted!r}" '
                f'data-significant="{str(c.significant).lower()}" '
                f'data-confidence="{c.confidence!r}" title="{_e(title)}">'
                f'{format_p(c.p_adjusted)}{"*" if c.significant else ""}'
                f'<span class="ci">{"c " + conf if c.method == "approximate" else "exact"}</span></td>'
            )
        rows.append(f'<tr data-system="{_e(a)}">{"".join(cells)}</tr>')
    return (
        f'<div class="scroll"><table class="matrix" data-metric="{_e(metric)}">'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def _matrices_section(analysis: Analysis, svgs: Mapping[str, str]) -> str:
    sig = analysis.significance
    s = sig.settings
    method = (
        f"approximate randomization with {s['shuffles']:,} shuffles"
        if s["method"] == "approximate"
        else f"{s['method']} randomization"
    )
    parts = [f"""
<section id="matrices">
<h2>Pairwise significance matrices</h2>
<p class="caption">For every pair of systems and every metric: the probability (p-value, by
{_e(method)}, stratified by message, {_e(s['alternative'])}) of a difference at least as large as the
observed one if the two systems were really equally good. Systems are in score order. Darker cells
are smaller p-values. A framed cell with * is a significant difference: p ≤ {s['alpha']:g} and, for
approximate results, a confidence level ≥ {s['confidence']:g} (the probability that the exact test
would reach the same decision; shown under each p-value). Hatched cells are approximate results not
confident enough to decide. The table below each figure holds the same numbers.</p>"""]
    for metric in sig.metrics:
        label = METRIC_TITLES.get(metric, metric)
        parts.append(
            f'<div class="metric-block" id="matrix-{_e(metric)}" data-metric="{_e(metric)}">'
            f"<h3>{_e(label)}</h3>"
            f'{_figure(f"matrix-{metric}", svgs, f"Pairwise p-values for {_e(label)}.")}'
            f"<details><summary>{_e(label)}: p-values and confidence levels as a table</summary>"
            f"{_matrix_table(analysis, metric)}</details></div>"
        )
    parts.append("</section>")
    return "\n".join(parts)


def _groupings_section(analysis: Analysis, svgs: Mapping[str, str]) -> str:
    sig = analysis.significance
    parts = [f"""
<section id="groupings">
<h2>Significance groupings</h2>
<p class="caption">Systems from best to worst on each metric, with their scores (percent; grey
whiskers are bootstrap confidence intervals). Each bar underneath spans a group of neighbouring
systems none of which differ significantly from each other (α = {sig.settings['alpha']:g}); a system
can belong to several groups. Two systems with no bar in common are significantly different.</p>"""]
    for metric in sig.metrics:
        label = METRIC_TITLES.get(metric, metric)
        items = "".join(
            f'<li data-group="{k}">{_e(", ".join(g))}</li>' for k, g in enumerate(sig.groups[metric])
        )
        parts.append(
            f'<div class="metric-block" id="groups-{_e(metric)}" data-metric="{_e(metric)}">'
            f"<h3>{_e(label)}</h3>"
            f'{_figure(f"groups-{metric}", svgs, f"Significance groups for {_e(label)}.")}'
            f'<details><summary>{_e(label)}: groups as a list</summary>'
            f'<ol class="groups" data-metric="{_e(metric)}">{items}</ol></details></div>'
        )
    parts.append("</section>")
    return "\n".join(parts)


def _slot_comparison_section(analysis: Analysis) -> str:
    sig = analysis.significance
    order = sig.ranking("f1" if "f1" in sig.metrics else sig.metrics[0])
    slot_names: list[str] = []
    for s in analysis.systems:
        for row in (*s.slots, *s.objects):
            if row.name not in slot_names and row.kind in ("slot", "subtotal"):
                slot_names.append(row.name)
    if not slot_names:
        return ""
    head = '<th class="name">slot</th>' + "".join(
        f'<th data-system="{_e(n)}">{_e(n)}</th>' for n in order
    )
    lookup = {
        s.name: {r.name: r for r in (*s.slots, *s.objects)} for s in analysis.systems
    }
    rows = []
    for slot in slot_names:
        cells = [f'<td class="name">{_e(slot)}</td>']
        for name in order:
            r = lookup[name].get(slot)
            if r is None:
                cells.append(f'<td data-system="{_e(name)}">n/a</td>')
                continue
            f = r.f_pr
            shade = "" if f is None else f' style="background: rgba(46, 125, 50, {0.08 + 0.5 * f:.2f})"'
            cells.append(
                f'<td data-system="{_e(name)}" data-slot="{_e(slot)}"{shade}>'
                f'<span class="r" data-metric="recall">{format_pct(r.recall, 1)}</span> / '
                f'<span class="p" data-metric="precision">{format_pct(r.precision, 1)}</span></td>'
            )
        kind = "subtotal" if any(
            lookup[n].get(slot) is not None and lookup[n][slot].kind == "subtotal" for n in order
        ) else "slot"
        rows.append(f'<tr data-slot="{_e(slot)}" data-kind="{kind}">{"".join(cells)}</tr>')
    return f"""
<section id="slot-comparison">
<h2>Per-slot comparison across systems</h2>
<p class="caption">Recall / precision (percent) of every slot and object subtotal for every system,
systems in the order of the summary. Greener cells have a higher F (P&amp;R). Slots where all
systems are weak are the hard parts of the task; n/a means the key or the responses never fill the
slot.</p>
<div class="scroll"><table id="slot-table">
<thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>
</section>"""


def _tally_table(rows: Sequence[Row], system: str, table_kind: str) -> str:
    head = '<th class="name">row</th>' + "".join(f"<th>{c.upper()}</th>" for c in _COUNT_COLUMNS)
    head += "<th>REC</th><th>PRE</th><th>OVG</th><th>FAL</th><th>F P&amp;R</th>"
    body = []
    for r in rows:
        t = r.tally
        counts = "".join(f"<td>{getattr(t, c)}</td>" for c in _COUNT_COLUMNS)
        measures = "".join(
            f'<td data-metric="{m}">{format_pct(v)}</td>'
            for m, v in (("recall", r.recall), ("precision", r.precision),
                         ("overgeneration", r.overgeneration), ("fallout", r.fallout),
                         ("f1", r.f_pr))  # fmt: skip
        )
        body.append(
            f'<tr data-row="{_e(r.name)}" data-kind="{_e(r.kind)}"><td class="name">{_e(r.name)}</td>'
            f"{counts}{measures}</tr>"
        )
    return (
        f'<div class="scroll"><table class="tally sortable" data-system="{_e(system)}" '
        f'data-table="{table_kind}"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody>'
        "</table></div>"
    )


def _systems_section(analysis: Analysis) -> str:
    parts = ["""
<section id="systems">
<h2>Per-system tables</h2>
<p class="caption">The rows of each system's summary as the 1992 scorer printed them: counts of
possible (POS) and actual (ACT) fills, correct, partial, incorrect, spurious, missing and
non-committal ones, then recall, precision, overgeneration and fallout in percent. The first table
has one row per slot; the second the object subtotals, the four manners of counting unmatched
templates and the set-fill and string-fill totals. Tables can be sorted by clicking a heading.</p>"""]
    for i, s in enumerate(analysis.systems):
        parts.append(
            f'<div class="system-block" id="system-{slug(s.name)}" data-system="{_e(s.name)}">'
            f"<h3>{_e(s.name)}</h3><p class=\"caption\">From {_e(s.origin)} input "
            f"<code>{_e(s.source)}</code>.</p>"
            f"<details{' open' if i == 0 else ''}><summary>{_e(s.name)}: per-slot and per-object tables</summary>"
            f"<h4>Per slot</h4>{_tally_table(s.slots, s.name, 'slots')}"
            f"<h4>Per object and in total</h4>{_tally_table(s.objects, s.name, 'objects')}"
            "</details></div>"
        )
    parts.append("</section>")
    return "\n".join(parts)


def _settings_section(analysis: Analysis) -> str:
    s = analysis.settings
    items: list[tuple[str, str]] = [
        ("systems", str(s.get("systems"))),
        ("units (messages)", str(s.get("units"))),
        ("method", str(s.get("method"))),
        ("shuffles", str(s.get("shuffles"))),
        ("seed", str(s.get("seed"))),
        ("alternative", str(s.get("alternative"))),
        ("significance cutoff (alpha)", str(s.get("alpha"))),
        ("confidence level", str(s.get("confidence"))),
        ("multiple-comparison adjustment", str(s.get("adjust"))),
        ("bootstrap resamples", str(s.get("bootstrap"))),
        ("interval level", str(s.get("ci_level"))),
        ("metrics", ", ".join(s.get("metrics", []))),
    ]
    for key, value in (s.get("inputs") or {}).items():
        text = ", ".join(map(str, value)) if isinstance(value, list | tuple) else str(value)
        items.append((key, text))
    for package, version in (s.get("versions") or {}).items():
        items.append((f"version of {package}", version))
    body = "".join(
        f'<dt>{_e(k)}</dt><dd data-setting="{_e(k)}">{_e(v)}</dd>' for k, v in items
    )
    return f"""
<section id="settings">
<h2>Settings</h2>
<p class="caption">Everything that produced this report. Running muceval again with the same
inputs, configuration and seed gives the same numbers; <code>report.json</code> next to this page
holds all of them.</p>
<dl class="settings">{body}</dl>
</section>"""


def render_html(analysis: Analysis, svgs: Mapping[str, str], title: str | None = None) -> str:
    """The whole page as a string, from the analysis and the SVG text of every figure.

    >>> render_html(a, svgs).startswith("<!DOCTYPE html>")  # doctest: +SKIP
    True
    """
    sig = analysis.significance
    title = title or f"muceval report: {len(analysis.systems)} systems"
    toc = [("summary", "Summary"), ("region", "Region of performance"),
           ("matrices", "Significance matrices"), ("groupings", "Significance groupings"),
           ("slot-comparison", "Per-slot comparison"), ("systems", "Per-system tables"),
           ("settings", "Settings")]  # fmt: skip
    nav = "".join(f'<li><a href="#{k}">{_e(v)}</a></li>' for k, v in toc)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="generator" content="muceval {_e(analysis.settings.get('versions', {}).get('muceval', ''))}">
<title>{_e(title)}</title>
<style>{_CSS}</style>
</head>
<body>
<header>
<h1>{_e(title)}</h1>
<p class="caption">{len(analysis.systems)} systems scored on {sig.settings['units']} messages;
significance by {_e(sig.settings['method'])} randomization (seed {_e(sig.settings['seed'])}).
Numbers are percentages unless said otherwise.</p>
<nav><ul>{nav}</ul></nav>
</header>
<main>
{_summary_section(analysis)}
{_region_section(svgs)}
{_matrices_section(analysis, svgs)}
{_groupings_section(analysis, svgs)}
{_slot_comparison_section(analysis)}
{_systems_section(analysis)}
{_settings_section(analysis)}
</main>
<script>{_JS}</script>
</body>
</html>
"""


# ---------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------


def _summary_csv(analysis: Analysis) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    ci = analysis.significance.system_ci or {}
    metrics = list(METRIC_FIELDS)
    header = ["system", "origin", "pos", "act", "cor", "par", *metrics, "overgeneration",
              "fallout", "f1_1992"]  # fmt: skip
    header += [f"{m}_ci_{end}" for m in metrics for end in ("low", "high")]
    writer.writerow(header)
    for s in analysis.systems:
        r = s.all_templates
        row: list[Any] = [s.name, s.origin, r.tally.pos, r.tally.act, r.tally.cor, r.tally.par]
        row += [getattr(r, METRIC_FIELDS[m]) for m in metrics]
        row += [r.overgeneration, s.fallout, s.f_1992[0] if s.f_1992 else None]
        for m in metrics:
            pair = ci.get(s.name, {}).get(m)
            row += list(pair) if pair else [None, None]
        writer.writerow(["" if v is None else v for v in row])
    return buffer.getvalue()


def _slots_csv(analysis: Analysis) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["system", "table", "row", "kind", *_COUNT_COLUMNS, "recall", "precision",
                     "overgeneration", "fallout", "f1", "f0.5", "f2"])  # fmt: skip
    for s in analysis.systems:
        for table, rows in (("slots", s.slots), ("objects", s.objects)):
            for r in rows:
                values = [r.recall, r.precision, r.overgeneration, r.fallout, r.f_pr, r.f_2pr,
                          r.f_p2r]  # fmt: skip
                writer.writerow([s.name, table, r.name, r.kind,
                                 *(getattr(r.tally, c) for c in _COUNT_COLUMNS),
                                 *("" if v is None else v for v in values)])  # fmt: skip
    return buffer.getvalue()


def write_report(
    analysis: Analysis,
    out_dir: str | Path,
    *,
    title: str | None = None,
    png: bool = True,
    extra_files: Mapping[str, str] | None = None,
) -> ReportFiles:
    """Write ``report.html``, the figures (SVG, and PNG unless ``png`` is False) and the data.

    ``extra_files`` maps further file names to their text (e.g. ``scores.json``).

    >>> files = write_report(analyze(systems, tallies, seed=1), "out")  # doctest: +SKIP
    >>> files.html.name  # doctest: +SKIP
    'report.html'
    """
    from matplotlib.figure import Figure

    out = Path(out_dir)
    try:
        (out / "figures").mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"cannot create {out / 'figures'}: {error.strerror or error}") from None
    svgs: dict[str, str] = {}
    figure_paths: list[Path] = []
    for fig_id, fig in build_figures(analysis).items():
        assert isinstance(fig, Figure)
        svgs[fig_id] = to_svg(fig)
        path = out / "figures" / f"{fig_id}.svg"
        write_atomic(path, svgs[fig_id])
        figure_paths.append(path)
        if png:
            path = out / "figures" / f"{fig_id}.png"
            write_atomic(path, to_png(fig))
            figure_paths.append(path)
    data: dict[str, str] = {
        "report.json": analysis.to_json(),
        "significance.json": analysis.significance.to_json() + "\n",
        "significance.csv": analysis.significance.to_csv(),
        "summary.csv": _summary_csv(analysis),
        "slots.csv": _slots_csv(analysis),
        **(extra_files or {}),
    }
    data_paths = []
    for name, text in data.items():
        write_atomic(out / name, text)
        data_paths.append(out / name)
    html_path = out / "report.html"
    write_atomic(html_path, render_html(analysis, svgs, title))
    return ReportFiles(out, html_path, out / "report.json", tuple(figure_paths), tuple(data_paths))
