"""Figures written as plain SVG, in points from the top left corner; a PNG replays the marks
on matplotlib. Not drawn through matplotlib: a 17-system matrix took a third of a second, and
importing it most of a second.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

__all__ = ["Dot", "Group", "Lines", "Rect", "SvgFigure", "Text", "nice_ticks", "polyline",
           "slug", "text_width"]

FONT = "'DejaVu Sans', Verdana, sans-serif"

# Advance widths of DejaVu Sans for the printable ASCII characters, in thousandths of an em
# (read from the font with matplotlib's FreeType wrapper); other characters count as 0.64 em.
_WIDTHS = (
    318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636,
    636, 636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698,
    770, 631, 575, 775, 752, 295, 295, 656, 557, 863, 748, 787, 603, 787, 695, 635, 611, 732,
    684, 989, 685, 611, 685, 390, 337, 390, 838, 500, 500, 613, 635, 550, 635, 615, 352, 635,
    634, 278, 279, 579, 278, 974, 634, 611, 635, 635, 412, 521, 392, 634, 592, 818, 592, 592,
    525, 637, 337, 636, 838)


def text_width(text: str, size: float) -> float:
    """The width in points of ``text`` set at ``size`` points in DejaVu Sans.

    >>> round(text_width("0.05", 10), 1)
    22.3
    """
    return size * sum(_WIDTHS[ord(c) - 32] if 32 <= ord(c) < 127 else 640 for c in text) / 1000


@dataclass(frozen=True)
class Rect:
    """A rectangle from ``(x, y)`` (top left), ``w`` wide and ``h`` high."""

    x: float
    y: float
    w: float
    h: float
    fill: str = "none"
    stroke: str | None = None
    width: float = 0.0
    gid: str | None = None
    hatch: bool = False
    """Hatched with white diagonal lines over ``fill``."""
    opacity: float = 1.0


@dataclass(frozen=True)
class Dot:
    """A disc of radius ``r`` centred on ``(x, y)``."""

    x: float
    y: float
    r: float
    fill: str
    stroke: str | None = None
    width: float = 0.0
    gid: str | None = None
    opacity: float = 1.0


@dataclass(frozen=True)
class Text:
    """``text`` at ``(x, y)``; ``middle`` centres it on ``y`` (else its baseline)."""

    x: float
    y: float
    text: str
    size: float = 8.0
    anchor: str = "middle"
    middle: bool = True
    rotate: float = 0.0
    color: str = "#000000"
    bold: bool = False
    gid: str | None = None
    opacity: float = 1.0


@dataclass(frozen=True)
class Lines:
    """Polylines (each a sequence of points) in one mark; ``closed`` closes and fills each."""

    lines: tuple[tuple[tuple[float, float], ...], ...]
    stroke: str | None = "#000000"
    width: float = 1.0
    fill: str = "none"
    closed: bool = False
    gid: str | None = None
    dash: str | None = None
    round: bool = False
    """Round line ends."""


@dataclass(frozen=True)
class Group:
    """Marks under one id (``<g id=…>``), e.g. every dot of one system."""

    gid: str
    marks: tuple[Rect | Text | Lines | Dot, ...]


Mark = Rect | Text | Lines | Dot | Group


@dataclass
class SvgFigure:
    """A figure ``width`` × ``height`` points, its marks drawn in the order added."""

    width: float
    height: float
    marks: list[Mark] = field(default_factory=list)

    def add(self, *marks: Mark) -> None:
        self.marks.extend(marks)

    def svg(self) -> str:
        """The figure as SVG text: deterministic, coordinates to 0.01 pt, text as text."""
        parts = ['<?xml version="1.0" encoding="utf-8" standalone="no"?>\n',
                 f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(self.width)}pt" '
                 f'height="{_n(self.height)}pt" viewBox="0 0 {_n(self.width)} '
                 f'{_n(self.height)}" version="1.1">\n']
        if any(isinstance(m, Rect) and m.hatch for m in self.marks):
            parts.append('<defs><pattern id="hatch" patternUnits="userSpaceOnUse" width="6" '
                         'height="6"><path d="M-1 1 L1 -1 M0 6 L6 0 M5 7 L7 5" '
                         'stroke="#ffffff" stroke-width="1"/></pattern></defs>\n')
        parts.append(f'<g style="font-family: {FONT}">\n')
        parts += [_svg(m) for m in self.marks]
        parts.append("</g>\n</svg>\n")
        return "".join(parts)

    def _repr_svg_(self) -> str:
        """The figure as a notebook draws it inline: the SVG element, without the prolog."""
        text = self.svg()
        return text[text.index("<svg"):]

    def save(self, path: str | Path, dpi: float = 100) -> Path:
        """Write the figure to ``path``: SVG, or PNG for a name ending in ``.png``."""
        from muceval.formats.files import write_atomic

        return write_atomic(path, self.png(dpi) if str(path).lower().endswith(".png")
                            else self.svg())

    def png(self, dpi: float = 100) -> bytes:
        """The figure as PNG, its marks replayed on a matplotlib figure."""
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib.figure import Figure
        from matplotlib.patches import Circle, Polygon, Rectangle

        fig = Figure(figsize=(self.width / 72, self.height / 72))
        ax = fig.add_axes((0, 0, 1, 1))
        ax.set_xlim(0, self.width)
        ax.set_ylim(self.height, 0)
        ax.set_axis_off()
        marks = [child for m in self.marks
                 for child in (m.marks if isinstance(m, Group) else (m,))]
        for m in marks:
            if isinstance(m, Rect):
                ax.add_patch(Rectangle((m.x, m.y), m.w, m.h, facecolor=m.fill,
                                       edgecolor=m.stroke or "none", lw=m.width,
                                       alpha=m.opacity))
                if m.hatch:  # white lines over the fill, as the SVG's pattern
                    ax.add_patch(Rectangle((m.x, m.y), m.w, m.h, facecolor="none",
                                           edgecolor="#ffffff", lw=0, hatch="///"))
            elif isinstance(m, Dot):
                ax.add_patch(Circle((m.x, m.y), m.r, facecolor=m.fill,
                                    edgecolor=m.stroke or "none", lw=m.width,
                                    alpha=m.opacity))
            elif isinstance(m, Lines):
                for line in m.lines:
                    if m.closed:
                        ax.add_patch(Polygon(line, closed=True, facecolor=m.fill,
                                             edgecolor=m.stroke or "none", lw=m.width))
                    else:
                        xs, ys = zip(*line, strict=True)
                        ax.plot(xs, ys, color=m.stroke or "none", lw=m.width,
                                linestyle=(0, (3, 2)) if m.dash else "-",
                                solid_capstyle="round" if m.round else "butt")
            else:
                ax.text(m.x, m.y, m.text, fontsize=m.size, color=m.color, alpha=m.opacity,
                        ha={"start": "left", "middle": "center", "end": "right"}[m.anchor],
                        va="center" if m.middle else "baseline", rotation=m.rotate,
                        rotation_mode="anchor", fontweight="bold" if m.bold else "normal",
                        family="DejaVu Sans", parse_math=False)
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=dpi)
        return buffer.getvalue()


_SAFE = re.compile(r"[A-Za-z0-9_.]+(-[A-Za-z0-9_.]+)*")
# A safe name that ends as a hashed id does is hashed too: it cannot be another name's id.
_HASHED = re.compile(r"-x[0-9a-f]{10}$")


def slug(name: str) -> str:
    """A system name as an SVG/HTML id and a file name: the name itself where safe, else its
    safe characters and a hash of the whole name. No id holds ``--``, which joins the two
    systems of a pair's id.

    >>> slug("GE-CMU"), slug("my system/2")
    ('GE-CMU', 'my_system_2-x476fc77c83')
    """
    if _SAFE.fullmatch(name) and not _HASHED.search(name):
        return name
    import hashlib

    base = re.sub(r"-+", "-", re.sub(r"[^A-Za-z0-9_.-]", "_", name)).strip("-") or "_"
    return f"{base}-x{hashlib.sha1(name.encode('utf-8', 'surrogatepass')).hexdigest()[:10]}"


def _n(value: float) -> str:
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _id(gid: str | None) -> str:
    return f' id="{escape(gid)}"' if gid else ""


def _paint(m: Rect | Dot) -> str:
    opacity = f' fill-opacity="{_n(m.opacity)}"' if m.opacity != 1 else ""
    stroke = f' stroke="{m.stroke}" stroke-width="{_n(m.width)}"' if m.stroke and m.width else ""
    return opacity + stroke


def _svg(m: Mark) -> str:
    if isinstance(m, Group):
        return f'<g{_id(m.gid)}>\n' + "".join(_svg(child) for child in m.marks) + "</g>\n"
    if isinstance(m, Rect):
        box = f'x="{_n(m.x)}" y="{_n(m.y)}" width="{_n(m.w)}" height="{_n(m.h)}"'
        rect = f'<rect{_id(m.gid)} {box} fill="{m.fill}"{_paint(m)}/>\n'
        return rect + (f'<rect {box} fill="url(#hatch)"/>\n' if m.hatch else "")
    if isinstance(m, Lines):
        d = " ".join("M" + " L".join(f"{_n(x)} {_n(y)}" for x, y in line)
                     + (" Z" if m.closed else "") for line in m.lines if line)
        stroke = (f' stroke="{m.stroke}" stroke-width="{_n(m.width)}"' if m.stroke else "")
        dash = f' stroke-dasharray="{m.dash}"' if m.dash else ""
        cap = ' stroke-linecap="round"' if m.round else ""
        return f'<path{_id(m.gid)} d="{d}" fill="{m.fill}"{stroke}{dash}{cap}/>\n'
    if isinstance(m, Dot):
        return (f'<circle{_id(m.gid)} cx="{_n(m.x)}" cy="{_n(m.y)}" r="{_n(m.r)}" '
                f'fill="{m.fill}"{_paint(m)}/>\n')
    style = [f"font-size: {_n(m.size)}px"]
    if m.anchor != "start":
        style.append(f"text-anchor: {m.anchor}")
    if m.middle:
        style.append("dominant-baseline: central")
    if m.bold:
        style.append("font-weight: bold")
    attributes = f'x="{_n(m.x)}" y="{_n(m.y)}"'
    if m.rotate:
        attributes += f' transform="rotate({_n(-m.rotate)} {_n(m.x)} {_n(m.y)})"'
    if m.color != "#000000":
        attributes += f' fill="{m.color}"'
    if m.opacity != 1:
        attributes += f' opacity="{_n(m.opacity)}"'
    return (f'<text{_id(m.gid)} {attributes} style="{"; ".join(style)}">'
            f"{escape(m.text, quote=False)}</text>\n")


def nice_ticks(low: float, high: float, most: int = 6) -> list[float]:
    """Round tick values from ``low`` to ``high`` (steps of 1, 2, 2.5 or 5 times a power of
    ten), at most ``most`` of them.

    >>> nice_ticks(0, 17.3)
    [0.0, 5.0, 10.0, 15.0]
    >>> nice_ticks(0, float("inf"))
    [0]
    """
    import math

    span = high - low
    if not math.isfinite(span) or span <= 0:  # nothing to divide (or an infinite axis)
        return [low] if math.isfinite(low) else []
    for step in sorted(m * 10.0 ** e for e in range(math.floor(math.log10(span)) - 2,
                                                       math.floor(math.log10(span)) + 2)
                       for m in (1, 2, 2.5, 5)):
        first = math.ceil(low / step - 1e-9)
        count = math.floor(high / step + 1e-9) - first + 1
        if count <= most:
            return [round((first + k) * step, 10) for k in range(count)]
    return [low, high]


def polyline(points: Sequence[tuple[float, float]]) -> tuple[tuple[float, float], ...]:
    return tuple((float(x), float(y)) for x, y in points)
