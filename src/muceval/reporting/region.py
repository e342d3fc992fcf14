"""The region of performance: each system's four manners of counting unmapped templates on the
precision–recall plane."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from muceval.reporting.colours import system_colors
from muceval.reporting.names import display_names, short_names
from muceval.reporting.svgfig import (
    Dot,
    Lines,
    Rect,
    SvgFigure,
    Text,
    polyline,
    slug,
    text_width,
)

__all__ = ["SMALL_MULTIPLES_FROM", "region_plot"]

_ALL = "all-templates"
_MANNERS = ("matched-missing", "matched-spurious", "matched-only", "all-templates")

# From this many systems on, one panel per system: more translucent rectangles on one plane
# can no longer be told apart.
SMALL_MULTIPLES_FROM = 7


def region_plot(
    regions: Sequence[tuple[str, Mapping[str, tuple[float | None, float | None]]]],
    iso_f: Sequence[float] = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
) -> SvgFigure:
    """Each system's rectangle spanned by its four manners (``regions``: ``(system, {manner:
    (recall, precision)})``), its ALL TEMPLATES point a dot, with dotted curves of equal F.

    >>> fig = region_plot([("A", {"all-templates": (0.3, 0.4), "matched-only": (0.5, 0.7)})])
    >>> ">Recall (%)<" in fig.svg() and 'id="region-A"' in fig.svg()
    True
    """
    if len(regions) >= SMALL_MULTIPLES_FROM:
        return _region_panels(regions, iso_f)
    colors = system_colors(sorted(n for n, _ in regions))
    side = 0.86 * 7.5 * 72
    fig = SvgFigure(10.5 * 72, 7.5 * 72)
    plane = _Plane(0.08 * 10.5 * 72, 0.06 * 7.5 * 72, side)
    plane.grid(fig, iso_f, labels=True)
    shown = display_names(name for name, _ in regions)
    labelled: list[tuple[str, float, float]] = []
    for name, points in regions:
        if _region(fig, plane, name, points, colors[name]):
            labelled.append((name, *_official(points)))
    _place_labels(fig, plane, labelled, short_names(shown, limit=16))
    plane.axes(fig, ticks=(True, True), size=10)
    fig.add(Text(plane.x0 + side / 2, 14, "Region of performance (four manners; dot = ALL "
                 "TEMPLATES)", size=12))
    legend_x, legend_y = plane.x0 + side + 0.3 * 72, plane.y0 + 8
    fig.add(Text(legend_x, legend_y, "system", size=9, anchor="start"))
    for k, (name, _) in enumerate(regions):
        at = legend_y + 14 * (k + 1)
        fig.add(Rect(legend_x, at - 4, 8, 8, fill=colors[name]),
                Text(legend_x + 13, at, shown[name], size=8, anchor="start"))
    return fig


class _Plane:
    """A square precision–recall plane ``side`` points wide from ``(x0, y0)`` (top left)."""

    def __init__(self, x0: float, y0: float, side: float) -> None:
        self.x0, self.y0, self.side = x0, y0, side

    def at(self, recall: float, precision: float) -> tuple[float, float]:
        return (self.x0 + self.side * recall / 100,
                self.y0 + self.side * (1 - precision / 100))

    def grid(self, fig: SvgFigure, iso_f: Sequence[float], labels: bool) -> None:
        inner = (20, 40, 60, 80)
        fig.add(Lines(tuple(polyline([self.at(v, 0), self.at(v, 100)]) for v in inner)
                      + tuple(polyline([self.at(0, v), self.at(100, v)]) for v in inner),
                      stroke="#ebebeb", width=0.6))
        curves = []
        for f in iso_f:
            # The hyperbola (2R − f)(2P − f) = f², from P = 1 to R = 1 at even turns of its
            # tangent: 25 points draw it smoothly.
            end = np.log(2 / f - 1)
            turn = np.linspace(np.arctan(np.exp(-2 * end)), np.arctan(np.exp(2 * end)), 25)
            t = -0.5 * np.log(np.tan(turn))
            curves.append(polyline([self.at(r, p) for r, p in zip(
                (50 * f * (1 + np.exp(t))).tolist(), (50 * f * (1 + np.exp(-t))).tolist(),
                strict=True)]))
            if labels:  # where the curve leaves the top (P = 1 → R = F / (2 − F))
                x, y = self.at(100 * f / (2 - f), 100)
                fig.add(Text(x, y - 3, f"F={100 * f:.0f}", size=7, color="#737373",
                             middle=False))
        if curves:
            fig.add(Lines(tuple(curves), stroke="#999999", width=0.8, dash="1 1.6"))

    def axes(self, fig: SvgFigure, ticks: tuple[bool, bool], size: float) -> None:
        fig.add(Rect(self.x0, self.y0, self.side, self.side, stroke="#000000", width=0.8))
        at = range(0, 101, 20)
        small = size < 10
        marks = []
        if ticks[0]:
            for v in at:
                x, y = self.at(0, v)
                marks.append(polyline([(x, y), (x - 3.5, y)]))
                fig.add(Text(x - 5, y, str(v), size=size - 1 if small else size, anchor="end"))
        if ticks[1]:
            for v in at:
                x, y = self.at(v, 0)
                marks.append(polyline([(x, y), (x, y + 3.5)]))
                fig.add(Text(x, y + 10, str(v), size=size - 1 if small else size))
        if marks:
            fig.add(Lines(tuple(marks), width=0.8))
        # The axis labels beside the ticks only: small multiples name their outer axes.
        label = 8 if small else 10
        if ticks[1]:
            fig.add(Text(self.x0 + self.side / 2, self.y0 + self.side + (23 if small else 28),
                         "Recall (%)", size=label))
        if ticks[0]:
            fig.add(Text(self.x0 - (26 if small else 34), self.y0 + self.side / 2,
                         "Precision (%)", size=label, rotate=90))


def _region_panels(regions: Sequence[tuple[str, Mapping[str, tuple[float | None, float | None]]]],
                   iso_f: Sequence[float]) -> SvgFigure:
    short = short_names([name for name, _ in regions], limit=12)
    # One colour for the panel's system: the palette's greys would pass for the context.
    highlight = "#1f4f78"
    columns = 4 if len(regions) > 9 else 3
    rows = -(-len(regions) // columns)
    side, left, right, bottom, top, across, down = (72 * v for v in (
        2.0, 0.6, 0.15, 0.55, 0.75, 0.5, 0.55))
    fig = SvgFigure(left + columns * side + (columns - 1) * across + right,
                    bottom + rows * side + (rows - 1) * down + top)
    boxes = {name: _box(points) for name, points in regions}
    for k, (name, points) in enumerate(regions):
        row, column = divmod(k, columns)
        plane = _Plane(left + column * (side + across), top + row * (side + down), side)
        plane.grid(fig, iso_f, labels=False)
        others = [box for other, box in boxes.items() if other != name and box is not None]
        if others:
            fig.add(Lines(tuple(polyline([plane.at(x0, y0), plane.at(x1, y0), plane.at(x1, y1),
                                          plane.at(x0, y1)]) for x0, y0, x1, y1 in others),
                          stroke="#999999", width=0.5, closed=True))
        _region(fig, plane, name, points, highlight)
        plane.axes(fig, ticks=(column == 0, k + columns >= len(regions)), size=8)
        fig.add(Text(plane.x0 + side / 2, plane.y0 - 6, short[name], size=9, middle=False))
    fig.add(Text(fig.width / 2, 16, "Region of performance, one system per panel (four "
                 "manners; dot = ALL TEMPLATES; dotted: F = 10, 20 ... 90)", size=10))
    return fig


def _official(points: Mapping[str, tuple[float | None, float | None]]) -> tuple[float, float]:
    recall, precision = points[_ALL]
    assert recall is not None and precision is not None
    return 100 * recall, 100 * precision


def _box(points: Mapping[str, tuple[float | None, float | None]],
         ) -> tuple[float, float, float, float] | None:
    """The rectangle (x0, y0, x1, y1) in percent of a system's manners, at least 0.2 wide."""
    pts = [(100 * rp[0], 100 * rp[1]) for m, rp in points.items()
           if m in _MANNERS and rp[0] is not None and rp[1] is not None]
    if not pts:
        return None
    xs, ys = zip(*pts, strict=True)
    return min(xs), min(ys), max(max(xs), min(xs) + 0.2), max(max(ys), min(ys) + 0.2)


def _region(fig: SvgFigure, plane: _Plane, name: str,
            points: Mapping[str, tuple[float | None, float | None]], color: str) -> bool:
    box = _box(points)
    if box is not None:
        x0, y0, x1, y1 = box
        (left, top), (right, low) = plane.at(x0, y1), plane.at(x1, y0)
        fig.add(Rect(left, top, right - left, low - top, fill=color, opacity=0.12),
                Rect(left, top, right - left, low - top, stroke=color, width=1.6,
                     gid=f"region-{slug(name)}"))
    at = points.get(_ALL)
    if at is None or at[0] is None or at[1] is None:
        return False
    x, y = plane.at(100 * at[0], 100 * at[1])
    fig.add(Dot(x, y, 3, color, "#000000", 1, gid=f"point-{slug(name)}"))
    return True


def _place_labels(fig: SvgFigure, plane: _Plane, points: Sequence[tuple[str, float, float]],
                  short: Mapping[str, str]) -> None:
    """Label each dot, moved down (with a leader line) until it overlaps no other label."""
    unit = plane.side / 100  # points per percent
    height = 9.0
    placed: list[tuple[float, float, float, float]] = []
    leaders = []
    for name, recall, precision in sorted(points, key=lambda p: (-p[2], p[1])):
        text = short[name]
        width = text_width(text, 7) + 4
        x, y = plane.at(recall, precision)
        lx, ly = x + 0.8 * unit, y - 2.2 * unit - height  # the label's box, top left
        start = ly
        while any(lx < bx1 and bx0 < lx + width and ly < by1 and by0 < ly + height
                  for bx0, by0, bx1, by1 in placed) and ly < plane.y0 + plane.side + 20:
            ly += height * 0.8
        placed.append((lx, ly, lx + width, ly + height))
        if ly != start:
            leaders.append(polyline([(x, y), (lx, ly + height / 2)]))
        fig.add(Text(lx, ly + height / 2, text, size=7, anchor="start", color="#262626"))
    if leaders:
        fig.add(Lines(tuple(leaders), stroke="#8c8c8c", width=0.5))
