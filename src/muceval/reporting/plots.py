"""The figures of a report, as SVG. Text stays ``<text>`` and marks carry ids naming what they
show (``cell-<row>--<column>``, ``score-<system>``...), so that tests and a browser's DOM can
read them back.

>>> from muceval.reporting.plots import region_plot, to_svg
>>> svg = to_svg(region_plot([("A", {"all-templates": (0.5, 0.6), "matched-only": (0.7, 0.8)})]))
>>> 'id="region-A"' in svg and "Recall (%)" in svg
True
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from muceval.core.metrics import METRIC_LABELS
from muceval.reporting.colours import VIRIDIS, pick, system_colors
from muceval.reporting.names import display_names, short_names
from muceval.reporting.region import region_plot
from muceval.reporting.svgfig import (
    Dot,
    Group,
    Lines,
    Rect,
    SvgFigure,
    Text,
    nice_ticks,
    polyline,
    slug,
    text_width,
)
from muceval.significance.distribution import Distribution
from muceval.significance.engine import SignificanceResult
from muceval.significance.result import Comparison

__all__ = [
    "METRIC_TITLES",
    "category_colors",
    "error_bars_plot",
    "evidence_plot",
    "groups_plot",
    "histogram_plot",
    "inline_svg",
    "lanes",
    "matrix_plot",
    "region_plot",
    "slug",
    "system_colors",
    "to_png",
    "to_svg",
]

METRIC_TITLES: dict[str, str] = dict(METRIC_LABELS)


def to_svg(fig: SvgFigure) -> str:
    """The figure as deterministic SVG text (text kept as text, coordinates to 0.01 pt).

    >>> to_svg(SvgFigure(10, 10)).startswith("<?xml")
    True
    """
    return fig.svg()


def to_png(fig: SvgFigure, dpi: int = 110) -> bytes:
    """The figure as PNG bytes (its marks replayed on matplotlib).

    >>> to_png(SvgFigure(72, 72))[:4]
    b'\\x89PNG'
    """
    return fig.png(dpi)


_TAG = re.compile(r"<[^>]+>")
_ID = re.compile(r'\bid="([^"]+)"')
_URL = re.compile(r"url\(#([^)]+)\)")
_HREF = re.compile(r'href="#([^"]+)"')


def inline_svg(svg: str, prefix: str) -> str:
    """SVG text for inside an HTML page: no XML prolog, every id prefixed (the page's inline
    SVGs share one id space).

    >>> inline_svg('<?xml version="1.0"?>\\n<svg><g id="a" clip-path="url(#c)"/></svg>', "f-")
    '<svg><g id="f-a" clip-path="url(#f-c)"/></svg>'
    """
    start = svg.find("<svg")
    body = svg[start:] if start >= 0 else svg

    def prefixed(tag: re.Match[str]) -> str:
        text = _ID.sub(lambda m: f'id="{prefix}{m.group(1)}"', tag.group())
        text = _URL.sub(lambda m: f"url(#{prefix}{m.group(1)})", text)
        return _HREF.sub(lambda m: f'href="#{prefix}{m.group(1)}"', text)

    # Inside tags only: a system name in a label may read id="x" or url(#x) itself.
    return _TAG.sub(prefixed, body).strip()


def matrix_plot(result: SignificanceResult, metric: str,
                label: str | None = None) -> SvgFigure:
    """Heat map of the pairwise p-values of one metric, systems in score order.

    Significant cells have a black frame and a ``*``; approximate results show their
    confidence below the p-value when it is below 1.000, and are hatched when it is below
    the required level.

    >>> from muceval.core.units import from_arrays
    >>> from muceval.significance.engine import compare
    >>> from muceval.significance.settings import SignificanceSettings
    >>> t = from_arrays(["A", "B"], ["m"], [[[2, 2, 2, 0]], [[2, 2, 0, 0]]])
    >>> fig = matrix_plot(compare(t, ["recall"], SignificanceSettings(seed=1, bootstrap=0)), "recall")
    >>> 'id="cell-A--B"' in fig.svg() and ">column system<" in fig.svg()
    True
    """
    order = result.matrix_order
    n = len(order)
    settings = result.settings
    alpha, needed = settings["alpha"], settings["confidence"]
    title = (f"{label or METRIC_TITLES.get(metric, metric)}: pairwise p-values "
             f"(* significant at α = {alpha:g}, confidence ≥ {needed:g})")
    shown = display_names(order)
    side = 72 * max(3.6, 0.64 * n)
    cell = side / max(n, 1)
    names = max((text_width(shown[o], 8) for o in order), default=0.0)
    left = top_names = 0.55 * 72 + names
    right, top = 1.45 * 72, 0.45 * 72
    lines = [title]
    if text_width(title, 10) / 2 > min(left, right) + side / 2 - 7:
        lines = title.replace(" (", "\n(", 1).split("\n")
        top += 12
    fig = SvgFigure(left + side + right, top + side + top_names)
    for k, line in enumerate(lines):
        fig.add(Text(left + side / 2, top - 8 - 12 * (len(lines) - 1 - k), line, size=10))
    vmin = min(1.0 / (settings["shuffles"] + 1) if settings.get("shuffles") else 1e-4, 1e-3)
    color = _p_colors(vmin)
    cells = [[None if row == col else result.comparison(row, col, metric) for col in order]
             for row in order]
    # The numbers grow with their cells: a page scales a wide matrix down to its column,
    # where a fixed 7.8 pt became unreadable (17 systems at 800 px).
    size = 9.0 if n <= 12 else min(11.0, max(7.8, 0.23 * cell))
    faces = [["#d9d9d9" if c is None else color(c.p_adjusted) for c in line_]
             for line_ in cells]
    for i, line_ in enumerate(cells):
        for j, c in enumerate(line_):
            weak = c is not None and c.method == "approximate" and c.confidence < needed
            fig.add(Rect(left + j * cell, top + i * cell, cell, cell, fill=faces[i][j],
                         hatch=weak))
    _matrix_marks(fig, cells, (left, top), cell)
    for i, line_ in enumerate(cells):
        for j, c in enumerate(line_):
            if c is not None:
                _matrix_text(fig, c, (left + (j + 0.5) * cell, top + i * cell), cell,
                             faces[i][j], size)
    for k, name in enumerate(order):
        fig.add(Text(left - 4, top + (k + 0.5) * cell, shown[name], size=8, anchor="end"),
                Text(left + (k + 0.5) * cell, top + side + 4, shown[name], size=8,
                     anchor="end", rotate=90))
    fig.add(Text(left + side / 2, top + side + names + 4 + 0.2 * 72, "column system", size=10),
            Text(left - names - 4 - 0.2 * 72, top + side / 2,
                 "row system (by decreasing score)", size=10, rotate=90))
    _p_value_bar(fig, (left + side + 0.2 * 72, top + 0.125 * side, 0.2 * 72, 0.75 * side),
                 vmin, alpha, color)
    return fig


def _matrix_marks(fig: SvgFigure, cells: Sequence[Sequence[Comparison | None]],
                  corner: tuple[float, float], cell: float) -> None:
    left, top = corner
    side = cell * len(cells)
    grid = [polyline([(left, top + k * cell), (left + side, top + k * cell)])
            for k in range(len(cells) + 1)]
    grid += [polyline([(left + k * cell, top), (left + k * cell, top + side)])
             for k in range(len(cells) + 1)]
    fig.add(Lines(tuple(grid), stroke="#ffffff", width=0.8))
    inset = 0.04 * cell
    frames = [polyline([(left + j * cell + inset, top + i * cell + inset),
                        (left + (j + 1) * cell - inset, top + i * cell + inset),
                        (left + (j + 1) * cell - inset, top + (i + 1) * cell - inset),
                        (left + j * cell + inset, top + (i + 1) * cell - inset)])
              for i, line in enumerate(cells) for j, c in enumerate(line)
              if c is not None and c.significant]
    if frames:
        fig.add(Lines(tuple(frames), stroke="#000000", width=1.6, closed=True))


def _p_colors(vmin: float) -> Callable[[float], str]:
    span = -math.log10(vmin)

    def color(p: float) -> str:
        position = 1.0 + math.log10(max(p, vmin)) / span
        return pick(VIRIDIS, min(1.0, max(0.0, position)))

    return color


def _p_text(p: float) -> str:
    if p < 0.001:
        return "<.001"
    return f"{p:.3f}".lstrip("0") if p < 1 else "1.0"


def _matrix_text(fig: SvgFigure, c: Comparison, at: tuple[float, float], cell: float,
                 face: str, size: float) -> None:
    """The p-value of a cell (``at``: its horizontal centre and top), and its confidence."""
    x, y = at
    dark = sum(int(face[k:k + 2], 16) for k in (1, 3, 5)) / (3 * 255) < 0.5
    ink = "#ffffff" if dark else "#000000"
    text = _p_text(c.p_adjusted) + ("*" if c.significant else "")
    confidence = c.method == "approximate" and c.confidence < 0.9995
    fig.add(Text(x, y + (0.4 if confidence else 0.5) * cell, text, size=size, color=ink,
                 bold=c.significant, gid=f"cell-{slug(c.a)}--{slug(c.b)}"))
    if confidence:
        fig.add(Text(x, y + 0.72 * cell, f"c {c.confidence:.3f}", size=size - 1.2, color=ink,
                     opacity=0.85))


def _p_value_bar(fig: SvgFigure, box: tuple[float, float, float, float], vmin: float,
                 alpha: float, color: Callable[[float], str]) -> None:
    x, y, w, h = box
    steps = 64
    span = -math.log10(vmin)
    for k in range(steps):  # top (p = 1) to bottom (p = vmin)
        p = 10 ** (-span * (k + 0.5) / steps)
        fig.add(Rect(x, y + k * h / steps, w, h / steps + 0.3, fill=color(p)))

    def at(p: float) -> float:
        return y + h * (-math.log10(p)) / span

    fig.add(Rect(x, y, w, h, stroke="#000000", width=0.8))
    for t in (1e-4, 1e-3, 1e-2, 1e-1, 1.0):
        if t >= vmin:
            fig.add(Lines((polyline([(x + w, at(t)), (x + w + 3.5, at(t))]),), width=0.8),
                    Text(x + w + 6, at(t), f"{t:g}", size=10, anchor="start"))
    fig.add(Lines((polyline([(x, at(alpha)), (x + w, at(alpha))]),), stroke="#ff0000",
                  width=1.5, gid="alpha"),
            Text(x + w + 52, y + h / 2, "p-value (log scale); red line: α", size=10,
                 rotate=90))


def lanes(runs: Sequence[Sequence[int]]) -> list[int]:
    """Lane of each run (first, last position) so that runs in one lane do not touch.

    >>> lanes([(0, 1), (1, 2), (3, 3), (2, 4)])
    [0, 1, 0, 2]
    """
    ends: list[int] = []
    out = []
    for start, end in runs:
        for k, last in enumerate(ends):
            if last < start:
                ends[k] = end
                out.append(k)
                break
        else:
            ends.append(end)
            out.append(len(ends) - 1)
    return out


def groups_plot(result: SignificanceResult, metric: str,
                label: str | None = None) -> SvgFigure:
    """Systems in score order with their scores, and the compact letter display underneath
    (:func:`~muceval.significance.groups.letter_groups`): one row per letter, drawn thin with
    round marks where it skips a system.

    >>> from muceval.core.units import from_arrays
    >>> from muceval.significance.engine import compare
    >>> from muceval.significance.settings import SignificanceSettings
    >>> t = from_arrays(["A", "B"], ["m"], [[[2, 2, 2, 0]], [[2, 2, 0, 0]]])
    >>> fig = groups_plot(compare(t, ["recall"], SignificanceSettings(seed=1, bootstrap=0)), "recall")
    >>> ">recall (%)<" in fig.svg() and 'id="score-A"' in fig.svg()
    True
    """
    from muceval.significance.groups import letter_display

    order = result.ranking(metric)
    n = len(order)
    position = {name: i for i, name in enumerate(order)}
    groups = (result.letter_groups or result.groups)[metric]
    members = [sorted(position[m] for m in g) for g in groups]
    lane_of = lanes([(m[0], m[-1]) for m in members])
    n_lanes = max(lane_of, default=0) + 1
    # What all names share (preds. ... .test) is left out of the ticks, and the margin below
    # fits the longest tick left (so that no name, such as "reds.t5-large-enc.test", is cut).
    ticks = short_names(order, limit=20)
    longest = max((text_width(t, 8) for t in ticks.values()), default=8.0)
    left, right, top = 0.85 * 72, 0.5 * 72, 0.62 * 72
    plot_h, gap, lane_h = 3.0 * 72, 0.1 * 72, 0.3 * 72
    lanes_h = (0.4 + n_lanes) * lane_h
    bottom = 10 + longest * math.sin(math.radians(60)) + 0.45 * 72
    width = 72 * max(6.0, 0.62 * n + 2.5)
    fig = SvgFigure(width, top + plot_h + gap + lanes_h + bottom)
    plot_w = width - left - right

    def x(i: float) -> float:
        return left + (i + 0.6) * plot_w / max(n, 1)

    cell = plot_w / max(n, 1)
    label = label or METRIC_TITLES.get(metric, metric)
    fig.add(Text(left + plot_w / 2, top - 22, f"{label}: letters "
                 f"(α = {result.settings['alpha']:g})", size=9),
            Text(left + plot_w / 2, top - 9, "systems sharing a letter are not significantly "
                 "different, systems with none in common are", size=9))
    letters = result.letters.get(metric) or letter_display(order, groups)
    columns = [x(i) for i in range(n)]
    _scores_panel(fig, result, order, metric, (left, top, plot_w, plot_h), columns, letters,
                  f"{label} (%)")
    lanes_top = top + plot_h + gap
    _letter_lanes(fig, members, lane_of, columns,
                  [lanes_top + (lane + 0.6) * lane_h for lane in range(n_lanes)], cell)
    base = lanes_top + lanes_h
    fig.add(Lines((polyline([(left, base), (left + plot_w, base)]),), width=0.8))
    fig.add(*(Text(x(i), base + 6, ticks[name], size=8, anchor="end", rotate=60)
              for i, name in enumerate(order)))
    fig.add(Text(left + plot_w / 2, fig.height - 0.2 * 72, "system (by decreasing score)",
                 size=10))
    return fig


def _scores_panel(fig: SvgFigure, result: SignificanceResult, order: Sequence[str],
                  metric: str, box: tuple[float, float, float, float], xs: Sequence[float],
                  letters: Mapping[str, str], label: str) -> None:
    left, top, width, height = box
    values = [100 * result.scores[s][metric] for s in order]
    ci = result.system_ci
    highs = [100 * ci[s][metric][1] for s in order if ci is not None and metric in ci.get(s, {})]
    ymax = min(100.0, max([max(values, default=1.0), *highs]) * 1.15 + 2)

    def y(v: float) -> float:
        return top + height * (1 - v / ymax)

    ticks = nice_ticks(0, ymax)
    fig.add(Lines(tuple(polyline([(left, y(t)), (left + width, y(t))]) for t in ticks),
                  stroke="#ebebeb", width=0.8),
            Rect(left, top, width, height, stroke="#000000", width=0.8),
            Lines(tuple(polyline([(left, y(t)), (left - 3.5, y(t))]) for t in ticks),
                  width=0.8),
            *(Text(left - 6, y(t), f"{t:g}", size=10, anchor="end") for t in ticks),
            Text(left - 0.6 * 72, top + height / 2, label, size=10, rotate=90))
    if len(order) > 1:
        fig.add(Lines((polyline(list(zip(xs, map(y, values), strict=True))),),
                      stroke="#cccccc", width=1))
    colors = system_colors(sorted(result.systems))
    for x, name, v in zip(xs, order, values, strict=True):
        if ci is not None and metric in ci.get(name, {}):
            lo, hi = ci[name][metric]
            fig.add(Lines((polyline([(x, y(100 * lo)), (x, y(100 * hi))]),),
                          stroke="#8c8c8c", width=1.2))
        fig.add(Dot(x, y(v), 4, colors[name], "#000000", 1, gid=f"score-{slug(name)}"))
        note = f"{v:.2f} {letters.get(name, '')}"
        fig.add(Rect(x + 6, y(v) - 10.5, text_width(note, 7.5) + 2, 11, fill="#ffffff",
                     opacity=0.8),
                Text(x + 7, y(v) - 5, note, size=7.5, anchor="start"))


def _letter_lanes(fig: SvgFigure, members: Sequence[Sequence[int]], lane_of: Sequence[int],
                  xs: Sequence[float], ys: Sequence[float], cell: float) -> None:
    from muceval.significance.groups import letter_name

    for k, (marks, lane) in enumerate(zip(members, lane_of, strict=True)):
        at = ys[lane]
        contiguous = marks[-1] - marks[0] + 1 == len(marks)
        fig.add(Lines((polyline([(xs[marks[0]] - 0.25 * cell, at),
                                 (xs[marks[-1]] + 0.25 * cell, at)]),),
                      stroke="#1f4e79", width=5 if contiguous else 1.2, round=True,
                      gid=f"group-{k}"))
        if not contiguous:
            fig.add(*(Dot(xs[m], at, 3.5, "#1f4e79") for m in marks))
        fig.add(Text(xs[marks[0]] - 0.35 * cell, at, letter_name(k), size=7.5, anchor="end",
                     color="#1f4e79"))


def evidence_plot(rows: Sequence[tuple[str, Sequence[tuple[float, bool]]]], default: str,
                  flag: str) -> SvgFigure:
    """One strip per system: the evidence (bits) of each pair aligned under ``default``, those
    refused by ``flag`` as red crosses.

    >>> fig = evidence_plot([("A", [(1.0, True), (9.5, False)])], "1992", "strict")
    >>> 'id="flagged-A"' in fig.svg() and "evidence of the aligned pair" in fig.svg()
    True
    """
    n = len(rows)
    shown = display_names(name for name, _ in rows)
    names = max((text_width(shown[name], 8) for name, _ in rows), default=0.0)
    fig = SvgFigure(10.5 * 72, (1.7 + 0.38 * max(n, 1)) * 72)
    x0, x1, y0, y1 = names + 16, fig.width - 16, 28.0, fig.height - 44
    row = (y1 - y0) / max(n, 1)
    top = max((b for _, points in rows for b, _ in points), default=1.0) * 1.05 or 1.0

    def x(bits: float) -> float:
        return x0 + (x1 - x0) * bits / top

    ticks = nice_ticks(0, top, 8)
    fig.add(Lines(tuple(polyline([(x(t), y0), (x(t), y1)]) for t in ticks), stroke="#ebebeb",
                  width=0.8))
    for i, (name, points) in enumerate(rows):
        # A fixed jitter (not a random one): the same data draw the same figure.
        jitter = (0.28 * np.sin(np.arange(len(points)) * 2.3999632)).tolist()
        centre = y0 + (i + 0.5) * row
        placed = [(x(b), centre + j * row, f) for (b, f), j in zip(points, jitter, strict=True)]
        fig.add(Group(f"pairs-{slug(name)}", tuple(
            Dot(px, py, 1.9, "#1f4e79", opacity=0.55) for px, py, f in placed if not f)))
        crosses = [polyline(segment) for px, py, f in placed if f
                   for segment in (((px - 3, py - 3), (px + 3, py + 3)),
                                   ((px - 3, py + 3), (px + 3, py - 3)))]
        fig.add(Lines(tuple(crosses), stroke="#c62828", width=1.6, gid=f"flagged-{slug(name)}"),
                Text(x0 - 6, centre, shown[name], size=8, anchor="end"))
    _axes(fig, (x0, y0, x1, y1), [(x(t), f"{t:g}") for t in ticks], [])
    fig.add(Text((x0 + x1) / 2, y1 + 30, "evidence of the aligned pair (bits: −log2 of the "
                 "chance of each slot match, summed)", size=10),
            Text((x0 + x1) / 2, 14, f"Pairs aligned under {default}; red crosses are refused "
                 f"by {flag}", size=10))
    return fig


def histogram_plot(distribution: Distribution, label: str,
                   names: Mapping[str, str] | None = None) -> SvgFigure:
    """Chinchor's Figure 1: the histogram of the shuffled differences (absolute, for a
    two-sided test) with the observed difference marked; ``names``: how systems are shown.

    >>> from muceval.core.units import from_arrays
    >>> from muceval.significance.distribution import shuffled_differences
    >>> from muceval.significance.settings import SignificanceSettings
    >>> t = from_arrays(["A", "B"], ["m1", "m2", "m3"], [[[2, 2, 2, 0]] * 3, [[2, 2, 1, 0]] * 3])
    >>> d = shuffled_differences(t, "A", "B", "recall", SignificanceSettings(shuffles=99, seed=1))
    >>> 'id="observed"' in to_svg(histogram_plot(d, "recall"))
    True
    """
    two_sided = distribution.two_sided
    values = 100 * (np.abs(distribution.differences) if two_sided else distribution.differences)
    observed = 100 * (abs(distribution.observed) if two_sided else distribution.observed)
    top = max(float(values.max(initial=0.0)), observed) or 1.0
    bins = np.linspace(float(values.min(initial=0.0)) if not two_sided else 0.0, top * 1.02, 41)
    counts, edges = np.histogram(values, bins=bins)
    fig = SvgFigure(5.2 * 72, 2.6 * 72)
    x0, x1, y0, y1 = 0.75 * 72, fig.width - 0.156 * 72, 0.35 * 72, fig.height - 0.55 * 72
    low, high = float(edges[0]), float(edges[-1])
    most = max(1, int(counts.max(initial=0)))
    ceiling = 1.05 * most

    def x(v: float) -> float:
        return x0 + (x1 - x0) * (v - low) / ((high - low) or 1.0)

    def y(c: float) -> float:
        return y1 - (y1 - y0) * c / ceiling

    outline = [(x(low), y(0))]
    for k, c in enumerate(counts.tolist()):
        outline += [(x(float(edges[k])), y(c)), (x(float(edges[k + 1])), y(c))]
    outline.append((x(high), y(0)))
    fig.add(Lines((polyline(outline),), stroke=None, fill="#9db4c8", closed=True,
                  gid="shuffled"))
    gaps = np.minimum(counts[:-1], counts[1:]).tolist()
    fig.add(Lines(tuple(polyline([(x(float(e)), y(0)), (x(float(e)), y(g))])
                        for e, g in zip(edges[1:-1].tolist(), gaps, strict=True) if g),
                  stroke="#ffffff", width=0.4))
    fig.add(Lines((polyline([(x(observed), y0), (x(observed), y1)]),), stroke="#b03a2e",
                  width=1.6, gid="observed"))
    _axes(fig, (x0, y0, x1, y1),
          [(x(t), f"{t:g}") for t in nice_ticks(low, high)],
          [(y(t), f"{t:g}") for t in nice_ticks(0, ceiling) if t == int(t)])
    fig.add(Text((x0 + x1) / 2, y1 + 0.42 * 72,
                 f"{'|Δ| ' if two_sided else 'Δ '}{label} between the shuffled systems (points)",
                 size=10),
            Text(x0 - 0.55 * 72, (y0 + y1) / 2, "shuffles", size=10, rotate=90))
    shown = names or {}
    a, b = shown.get(distribution.a, distribution.a), shown.get(distribution.b, distribution.b)
    fig.add(Text((x0 + x1) / 2, y0 - 7, f"{a} − {b}: observed {observed:.2f}, "
                 f"p = {_p_text(distribution.p_value)}", size=9, middle=False))
    return fig


def _axes(fig: SvgFigure, box: tuple[float, float, float, float],
          xticks: Sequence[tuple[float, str]], yticks: Sequence[tuple[float, str]]) -> None:
    x0, y0, x1, y1 = box
    marks = [polyline([(x0, y0), (x0, y1), (x1, y1)])]
    marks += [polyline([(at, y1), (at, y1 + 3.5)]) for at, _ in xticks]
    marks += [polyline([(x0, at), (x0 - 3.5, at)]) for at, _ in yticks]
    fig.add(Lines(tuple(marks), width=0.8))
    fig.add(*(Text(at, y1 + 12, text, size=10) for at, text in xticks))
    fig.add(*(Text(x0 - 6, at, text, size=10, anchor="end") for at, text in yticks))


_CATEGORY_PALETTE = (
    "#6a3d9a", "#ff7f00", "#fdbf6f", "#e31a1c", "#fb9a99", "#b15928", "#ffff99", "#a6761d",
    "#e6ab02", "#d95f02", "#1f78b4", "#33a02c", "#b2df8a", "#a6cee3", "#666666", "#cab2d6",
    "#17becf")


def category_colors(categories: Sequence[str]) -> dict[str, str]:
    """One colour per error category, by its place in the full list ``categories`` (the same
    colour in every figure).

    >>> category_colors(["Span_Error", "Missing_Template"])["Missing_Template"]
    '#ff7f00'
    """
    return {c: _CATEGORY_PALETTE[i % len(_CATEGORY_PALETTE)] for i, c in enumerate(categories)}


def error_bars_plot(rows: Sequence[tuple[str, Mapping[str, int]]], categories: Sequence[str],
                    colors: Mapping[str, str]) -> SvgFigure:
    """One horizontal bar per system (the first on top), stacked over ``categories``, with a
    legend.

    >>> fig = error_bars_plot([("A", {"x": 2, "y": 1}), ("B", {"x": 0, "y": 4})], ["x", "y"],
    ...                       {"x": "#000000", "y": "#ffffff"})
    >>> 'id="bar-A--x"' in to_svg(fig)
    True
    """
    shown = display_names(name for name, _ in rows)
    names = max((text_width(shown[name], 8) for name, _ in rows), default=0.0)
    legend = max((text_width(c, 7) for c in categories), default=0.0) + 22
    fig = SvgFigure(9.0 * 72 + legend, max((1.6 + 0.3 * len(rows)) * 72,
                                           12 + 11 * len(categories) + 20))
    x0, x1, y0, y1 = names + 16, fig.width - legend - 16, 12.0, fig.height - 44
    row = (y1 - y0) / max(len(rows), 1)
    most = max((sum(counts.get(c, 0) for c in categories) for _, counts in rows), default=0)
    top = most * 1.05 or 1.0

    def x(count: float) -> float:
        return x0 + (x1 - x0) * count / top

    for i, (name, counts) in enumerate(rows):
        y, done = y0 + (i + 0.15) * row, 0
        for category in categories:
            count = counts.get(category, 0)
            if count:
                fig.add(Rect(x(done), y, x(done + count) - x(done), 0.7 * row,
                             fill=colors[category], stroke="#ffffff", width=0.3,
                             gid=f"bar-{slug(name)}--{slug(category)}"))
            done += count
        fig.add(Text(x0 - 6, y + 0.35 * row, shown[name], size=8, anchor="end"))
    _axes(fig, (x0, y0, x1, y1), [(x(t), f"{t:g}") for t in nice_ticks(0, top, 8)], [])
    fig.add(Text((x0 + x1) / 2, y1 + 30, "errors (count)", size=10))
    for k, category in enumerate(categories):
        at = y0 + 6 + 11 * k
        fig.add(Rect(x1 + 16, at - 3.5, 12, 7, fill=colors[category]),
                Text(x1 + 32, at, category, size=7, anchor="start"))
    return fig
