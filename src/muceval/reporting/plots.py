"""Figures of a report: region of performance, significance matrices and groupings.

Every function returns a :class:`matplotlib.figure.Figure` built without
pyplot (no global state, safe in threads); :func:`to_svg` and :func:`to_png`
serialise it. SVG output is deterministic (fixed hash salt, no date) and keeps
text as ``<text>`` elements, so that labels can be read back from the file or
from a browser's DOM. Marks carry ids (``gid``) naming what they show:

* region of performance: ``region-<system>`` (rectangle) and ``point-<system>``;
* significance matrix: ``cell-<row>--<column>`` for every off-diagonal cell;
* significance groups: ``score-<system>`` and ``group-<k>``;
* alignment evidence: ``pairs-<system>`` and ``flagged-<system>`` (pairs aligned
  under the default criterion, the flagged ones apart);
* randomization distribution: ``shuffled`` (the histogram) and ``observed`` (the line);
* error categories: ``bar-<system>--<category>`` (one segment of a stacked bar);

with system names passed through :func:`slug`.

>>> from muceval.reporting.plots import region_plot, to_svg
>>> svg = to_svg(region_plot([("A", {"all-templates": (0.5, 0.6), "matched-only": (0.7, 0.8)})]))
>>> 'id="region-A"' in svg and "Recall (%)" in svg
True
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib

matplotlib.use("Agg")  # never open a window; must precede any backend use

import numpy as np  # noqa: E402
from matplotlib import colormaps  # noqa: E402
from matplotlib.colors import LogNorm  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from muceval.core.metrics import METRIC_LABELS  # noqa: E402
from muceval.significance.distribution import Distribution  # noqa: E402
from muceval.significance.engine import SignificanceResult  # noqa: E402
from muceval.significance.result import Comparison  # noqa: E402

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
_ALL = "all-templates"
_MANNERS = ("matched-missing", "matched-spurious", "matched-only", "all-templates")
_RC = {"svg.hashsalt": "muceval", "svg.fonttype": "none", "font.family": "DejaVu Sans"}


def slug(name: str) -> str:
    """A system name made safe for an SVG/HTML id.

    >>> slug("GE-CMU"), slug("my system/2")
    ('GE-CMU', 'my_system_2')
    """
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


def system_colors(names: Sequence[str]) -> dict[str, tuple[float, float, float, float]]:
    """One distinct colour per system (tab20 for up to 20 systems, then a continuous map).

    >>> len(system_colors(["A", "B"]))
    2
    """
    if len(names) <= 10:
        cmap, n = colormaps["tab10"], 10
        return {name: cmap(i / n + 0.5 / n) for i, name in enumerate(names)}
    if len(names) <= 20:
        cmap = colormaps["tab20"]
        return {name: cmap(i / 20 + 0.025) for i, name in enumerate(names)}
    cmap = colormaps["turbo"]
    return {name: cmap(i / max(1, len(names) - 1)) for i, name in enumerate(names)}


def to_svg(fig: Figure) -> str:
    """The figure as deterministic SVG text (text kept as text).

    >>> to_svg(Figure()).startswith("<?xml")
    True
    """
    buffer = io.StringIO()
    with matplotlib.rc_context(_RC):  # type: ignore[arg-type]  # rcParams keys are str here
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    return buffer.getvalue()


def to_png(fig: Figure, dpi: int = 110) -> bytes:
    """The figure as PNG bytes.

    >>> to_png(Figure(figsize=(1, 1)))[:4]
    b'\\x89PNG'
    """
    buffer = io.BytesIO()
    with matplotlib.rc_context(_RC):  # type: ignore[arg-type]  # rcParams keys are str here
        fig.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
    return buffer.getvalue()


_ID = re.compile(r'\bid="([^"]+)"')
_URL = re.compile(r"url\(#([^)]+)\)")
_HREF = re.compile(r'href="#([^"]+)"')


def inline_svg(svg: str, prefix: str) -> str:
    """SVG text ready to sit inside an HTML page: no XML prolog, every id prefixed.

    Several inline SVGs share one id space; the prefix keeps their clip paths
    and markers apart.

    >>> inline_svg('<?xml version="1.0"?>\\n<svg><g id="a" clip-path="url(#c)"/></svg>', "f-")
    '<svg><g id="f-a" clip-path="url(#f-c)"/></svg>'
    """
    start = svg.find("<svg")
    body = svg[start:] if start >= 0 else svg
    body = _ID.sub(lambda m: f'id="{prefix}{m.group(1)}"', body)
    body = _URL.sub(lambda m: f"url(#{prefix}{m.group(1)})", body)
    body = _HREF.sub(lambda m: f'href="#{prefix}{m.group(1)}"', body)
    return body.strip()


# ---------------------------------------------------------------------------
# Region of performance
# ---------------------------------------------------------------------------


SMALL_MULTIPLES_FROM = 7
"""From this many systems on, the region of performance is drawn one panel per system: more
translucent rectangles on one plane can no longer be told apart (issue 29)."""


def region_plot(
    regions: Sequence[tuple[str, Mapping[str, tuple[float | None, float | None]]]],
    iso_f: Sequence[float] = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
) -> Figure:
    """Each system's rectangle spanned by its four manners on the precision–recall plane.

    ``regions``: ``(system, {manner: (recall, precision)})`` with manners named
    as :class:`~muceval.core.model.DisplayType` values; undefined points are left
    out. The ALL TEMPLATES point (the official score) is marked with a dot.
    Dotted curves join the points of equal F (P&R), labelled in percent. From
    :data:`SMALL_MULTIPLES_FROM` systems on, each system gets a panel of its own, the others
    drawn faintly behind it.

    >>> fig = region_plot([("A", {"all-templates": (0.3, 0.4), "matched-only": (0.5, 0.7)})])
    >>> fig.axes[0].get_xlabel()
    'Recall (%)'
    """
    colors = system_colors(sorted(name for name, _ in regions))
    if len(regions) >= SMALL_MULTIPLES_FROM:
        return _region_panels(regions, iso_f)
    fig = Figure(figsize=(10.5, 7.5))
    ax = fig.add_axes((0.08, 0.08, 0.62, 0.86))
    _iso_f(ax, iso_f, labels=True)
    labelled: list[tuple[str, float, float]] = []
    for name, points in regions:
        if _region(ax, name, points, colors[name], highlight=True):
            labelled.append((name, *_official(points)))
        else:
            ax.plot([], [], "s", color=colors[name], label=name)
    _place_labels(ax, labelled)
    _region_axes(ax)
    ax.set_title("Region of performance (four manners; dot = ALL TEMPLATES)", pad=16)
    ax.legend(loc="upper left", bbox_to_anchor=(1.03, 1.0), fontsize=8, frameon=False,
              title="system", ncol=1 if len(regions) <= 24 else 2)  # fmt: skip
    return fig


def _region_panels(regions: Sequence[tuple[str, Mapping[str, tuple[float | None, float | None]]]],
                   iso_f: Sequence[float]) -> Figure:
    """One panel per system: its rectangle and dot in its colour, every other system's
    rectangle in faint grey behind it, so that each region can be read on its own."""
    from muceval.reporting.terminal import short_names

    short = short_names([name for name, _ in regions], limit=12)
    # One colour for the panel's system: the palette's greys would pass for the context.
    highlight = (0.12, 0.31, 0.47, 1.0)
    columns = 4 if len(regions) > 9 else 3
    rows = -(-len(regions) // columns)
    fig = Figure(figsize=(2.6 * columns, 2.7 * rows + 0.5))
    axes = fig.subplots(rows, columns, sharex=True, sharey=True, squeeze=False).ravel()
    for ax, (name, points) in zip(axes, regions, strict=False):
        _iso_f(ax, iso_f, labels=False)
        for other, other_points in regions:
            if other != name:
                _region(ax, other, other_points, (0.6, 0.6, 0.6, 0.5), highlight=False)
        _region(ax, name, points, highlight, highlight=True)
        _region_axes(ax, small=True)
        ax.set_title(short[name], fontsize=9)
    for ax in axes[len(regions):]:
        ax.set_visible(False)
    fig.suptitle("Region of performance, one system per panel (four manners; dot = ALL "
                 "TEMPLATES; dotted: F = 10, 20 ... 90)", fontsize=10)
    fig.tight_layout()
    return fig


def _official(points: Mapping[str, tuple[float | None, float | None]]) -> tuple[float, float]:
    recall, precision = points[_ALL]
    assert recall is not None and precision is not None
    return 100 * recall, 100 * precision


def _region(ax: Any, name: str, points: Mapping[str, tuple[float | None, float | None]],
            color: Any, highlight: bool) -> bool:
    """Draw one system's rectangle (and, highlighted, its ALL TEMPLATES dot, with ids);
    whether the dot was drawn."""
    pts = [(100 * rp[0], 100 * rp[1]) for m, rp in points.items()
           if m in _MANNERS and rp[0] is not None and rp[1] is not None]
    if pts:
        xs, ys = zip(*pts, strict=True)
        x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
        ax.add_patch(Rectangle(
            (x0, y0), max(x1 - x0, 0.2), max(y1 - y0, 0.2),
            facecolor=(*color[:3], 0.12 if highlight else 0.0), edgecolor=color,
            lw=1.6 if highlight else 0.5,
            gid=f"region-{slug(name)}" if highlight else None, zorder=2 if highlight else 1))
    at = points.get(_ALL)
    if not highlight or at is None or at[0] is None or at[1] is None:
        return False
    ax.plot([100 * at[0]], [100 * at[1]], "o", color=color, markeredgecolor="black",
            markersize=6, gid=f"point-{slug(name)}", zorder=4, label=name)
    return True


def _iso_f(ax: Any, iso_f: Sequence[float], labels: bool) -> None:
    """Dotted curves of equal F (P&R), labelled in percent where they leave the top."""
    r = np.linspace(0.0005, 1, 400)
    for f in iso_f:
        with np.errstate(divide="ignore", invalid="ignore"):
            p = f * r / (2 * r - f)
        keep = (2 * r > f) & (p <= 1) & (p >= 0)
        ax.plot(100 * r[keep], 100 * p[keep], ":", color="0.6", lw=0.8, zorder=1)
        if labels:  # where the curve leaves the top of the plot (P = 1 → R = F / (2 − F))
            ax.text(100 * f / (2 - f), 100.5, f"F={100 * f:.0f}", fontsize=7, color="0.45",
                    ha="center", va="bottom")


def _region_axes(ax: Any, small: bool = False) -> None:
    ax.set_xlim(0, 100)
    ax.set_ylim(0, 100)
    ax.set_xlabel("Recall (%)", fontsize=8 if small else None)
    ax.set_ylabel("Precision (%)", fontsize=8 if small else None)
    ax.set_aspect("equal")
    ax.grid(True, color="0.92", lw=0.6, zorder=0)
    if small:
        ax.tick_params(labelsize=7)


def _place_labels(ax: Any, points: Sequence[tuple[str, float, float]]) -> None:
    """Label each ALL TEMPLATES dot with its system's short name, moved down (with a leader
    line) until it overlaps no label placed before: 17 systems stay readable."""
    from muceval.reporting.terminal import short_names

    short = short_names([name for name, _, _ in points], limit=16)
    # Label sizes in data units of this 100 × 100 plot at fontsize 7 (about 4.7 pt per unit).
    char, height = 0.9, 2.4
    placed: list[tuple[float, float, float, float]] = []
    for name, x, y in sorted(points, key=lambda p: (-p[2], p[1])):
        text = short[name]
        width = char * len(text) + 1
        lx, ly = x + 0.8, y - 2.2
        while any(lx < bx1 and bx0 < lx + width and ly < by1 and by0 < ly + height
                  for bx0, by0, bx1, by1 in placed) and ly > -5:
            ly -= height * 0.8
        placed.append((lx, ly, lx + width, ly + height))
        moved = abs(ly - (y - 2.2)) > 1e-9
        ax.annotate(text, (x, y), xytext=(lx, ly), textcoords="data", fontsize=7,
                    color="0.15", zorder=5, va="bottom",
                    arrowprops={"arrowstyle": "-", "color": "0.55", "lw": 0.5,
                                "shrinkA": 0, "shrinkB": 3} if moved else None)


# ---------------------------------------------------------------------------
# Pairwise significance matrix
# ---------------------------------------------------------------------------


def _p_text(p: float) -> str:
    if p < 0.001:
        return "<.001"
    return f"{p:.3f}".lstrip("0") if p < 1 else "1.0"


def matrix_plot(result: SignificanceResult, metric: str, label: str | None = None) -> Figure:
    """Heat map of the pairwise p-values of one metric, systems in score order.

    A cell holds the (adjusted) p-value of row vs column; significant cells
    (p ≤ α and confidence ≥ the confidence level) have a black frame and a
    ``*``; approximate results show their confidence level below the p-value,
    and are hatched when that confidence is below the required level.

    >>> from muceval.core.units import from_arrays
    >>> from muceval.significance.engine import compare
    >>> from muceval.significance.settings import SignificanceSettings
    >>> t = from_arrays(["A", "B"], ["m"], [[[2, 2, 2, 0]], [[2, 2, 0, 0]]])
    >>> fig = matrix_plot(compare(t, ["recall"], SignificanceSettings(seed=1, bootstrap=0)), "recall")
    >>> fig.axes[0].get_xlabel()
    'column system'
    """
    order = result.matrix_order
    n = len(order)
    settings = result.settings
    alpha, needed = settings["alpha"], settings["confidence"]
    size = max(4.5, 0.6 * n + 2.0)
    fig = Figure(figsize=(size + 1.6, size + 0.6), layout="constrained")
    ax = fig.add_subplot()
    ax.set_aspect("equal")
    cmap = colormaps["viridis"]
    floor = 1.0 / (settings["shuffles"] + 1) if settings.get("shuffles") else 1e-4
    vmin = min(floor, 1e-3)
    norm = LogNorm(vmin=vmin, vmax=1.0)
    fontsize = 9.0 if n <= 12 else 7.8
    for i, row in enumerate(order):
        for j, col in enumerate(order):
            if i == j:
                ax.add_patch(Rectangle((j, i), 1, 1, facecolor="0.85", edgecolor="white"))
                continue
            c = result.comparison(row, col, metric)
            face = cmap(norm(max(c.p_adjusted, vmin)))
            _matrix_cell(ax, c, (i, j), face, needed, fontsize)
    _matrix_axes(ax, order)
    ax.set_title(
        f"{label or METRIC_TITLES.get(metric, metric)}: pairwise p-values "
        f"(* significant at α = {alpha:g}, confidence ≥ {needed:g})",
        fontsize=10,
    )
    for spine in ax.spines.values():
        spine.set_visible(False)
    _p_value_bar(fig, ax, norm, cmap, alpha, vmin)
    return fig


def _matrix_cell(ax: Any, c: Comparison, at: tuple[int, int], face: Any, needed: float,
                 fontsize: float) -> None:
    """Row ``i`` vs column ``j`` (``at``) of the matrix: the cell, filled with ``face``,
    its frame when significant, and its p-value (and confidence when approximate)."""
    i, j = at
    weak = c.method == "approximate" and c.confidence < needed
    ax.add_patch(
        Rectangle((j, i), 1, 1, facecolor=face, edgecolor="white", lw=0.8,
                  hatch="///" if weak else None, gid=f"cell-{slug(c.a)}--{slug(c.b)}")
    )  # fmt: skip
    if c.significant:
        ax.add_patch(Rectangle((j + 0.04, i + 0.04), 0.92, 0.92, fill=False,
                               edgecolor="black", lw=1.6))  # fmt: skip
    ink = "white" if sum(face[:3]) / 3 < 0.5 else "black"
    text = _p_text(c.p_adjusted) + ("*" if c.significant else "")
    approximate = c.method == "approximate"
    ax.text(j + 0.5, i + (0.4 if approximate else 0.5), text, ha="center", va="center",
            fontsize=fontsize, color=ink,
            fontweight="bold" if c.significant else "normal")  # fmt: skip
    if approximate:
        ax.text(j + 0.5, i + 0.72, f"c {c.confidence:.2f}", ha="center", va="center",
                fontsize=fontsize - 1.2, color=ink, alpha=0.85)  # fmt: skip


def _matrix_axes(ax: Any, order: Sequence[str]) -> None:
    """Limits, ticks and labels of an ``n × n`` matrix whose rows and columns are ``order``."""
    n = len(order)
    ax.set_xlim(0, n)
    ax.set_ylim(n, 0)
    ax.set_xticks(np.arange(n) + 0.5, order, rotation=90, fontsize=8)
    ax.set_yticks(np.arange(n) + 0.5, order, fontsize=8)
    ax.tick_params(length=0)
    ax.set_xlabel("column system")
    ax.set_ylabel("row system (by decreasing score)")


def _p_value_bar(fig: Figure, ax: Any, norm: LogNorm, cmap: Any, alpha: float,
                 vmin: float) -> None:
    """The colour bar of the p-values (``norm``: from ``vmin`` to 1), with a red line at
    ``alpha``."""
    from matplotlib.cm import ScalarMappable

    bar = fig.colorbar(ScalarMappable(norm=norm, cmap=cmap), ax=ax, shrink=0.75, pad=0.02)
    bar.set_label("p-value (log scale); red line: α")
    # Plain labels: the default 10^k labels go through mathtext, slow and harder to read.
    ticks = [t for t in (1e-4, 1e-3, 1e-2, 1e-1, 1.0) if t >= vmin]
    bar.set_ticks(ticks, labels=[f"{t:g}" for t in ticks])
    bar.ax.minorticks_off()
    bar.ax.axhline(alpha, color="red", lw=1.5)


# ---------------------------------------------------------------------------
# Significance groups
# ---------------------------------------------------------------------------


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


def groups_plot(result: SignificanceResult, metric: str, label: str | None = None) -> Figure:
    """Systems in score order with their scores, and the compact letter display underneath.

    Each row underneath is one letter: the systems marked on it are not
    significantly different from each other, and two systems that share no row
    are (:func:`~muceval.significance.groups.letter_groups`). A row may skip a
    system: its line is drawn thin, its members as round marks.

    >>> from muceval.core.units import from_arrays
    >>> from muceval.significance.engine import compare
    >>> from muceval.significance.settings import SignificanceSettings
    >>> t = from_arrays(["A", "B"], ["m"], [[[2, 2, 2, 0]], [[2, 2, 0, 0]]])
    >>> fig = groups_plot(compare(t, ["recall"], SignificanceSettings(seed=1, bootstrap=0)), "recall")
    >>> fig.axes[0].get_ylabel()
    'recall (%)'
    """
    from muceval.significance.groups import letter_display

    order = result.ranking(metric)
    n = len(order)
    position = {name: i for i, name in enumerate(order)}
    groups = (result.letter_groups or result.groups)[metric]
    members = [sorted(position[m] for m in g) for g in groups]
    lane_of = lanes([(m[0], m[-1]) for m in members])
    n_lanes = max(lane_of, default=0) + 1
    from muceval.reporting.terminal import short_names

    # What all names share (preds. ... .test) is left out of the ticks, and the margin below
    # fits the longest tick left (issue 29: "reds.t5-large-enc.test" was cut).
    ticks = short_names(order, limit=20)
    longest = max((len(t) for t in ticks.values()), default=1)
    width = max(6.0, 0.62 * n + 2.5)
    height = 5.2 + 0.22 * n_lanes + 0.07 * longest
    fig = Figure(figsize=(width, height))
    grid = fig.add_gridspec(2, 1, height_ratios=(3.2, 0.7 + 0.3 * n_lanes), hspace=0.08,
                            left=0.09, right=0.98, top=0.86,
                            bottom=min(0.45, (0.45 + 0.075 * longest) / height))
    ax = fig.add_subplot(grid[0])
    bars = fig.add_subplot(grid[1], sharex=ax)
    colors = system_colors(sorted(result.systems))
    values = [100 * result.scores[s][metric] for s in order]
    letters = result.letters.get(metric) or letter_display(order, groups)
    ax.plot(range(n), values, "-", color="0.8", lw=1, zorder=1)
    ci = result.system_ci
    for i, (name, v) in enumerate(zip(order, values, strict=True)):
        if ci is not None and metric in ci.get(name, {}):
            lo, hi = ci[name][metric]
            ax.plot([i, i], [100 * lo, 100 * hi], "-", color="0.55", lw=1.2, zorder=2)
        ax.plot([i], [v], "o", color=colors[name], markeredgecolor="black", markersize=8,
                gid=f"score-{slug(name)}", zorder=3)  # fmt: skip
        ax.annotate(f"{v:.2f} {letters.get(name, '')}", (i, v), xytext=(7, 5),
                    textcoords="offset points", ha="left", fontsize=7.5, zorder=4,
                    bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.8})  # fmt: skip
    top = max(values, default=1.0)
    highs = [100 * ci[s][metric][1] for s in order] if ci is not None else []
    ax.set_ylim(0, min(100.0, max([top, *highs]) * 1.15 + 2))
    label = label or METRIC_TITLES.get(metric, metric)
    ax.set_ylabel(f"{label} (%)")
    ax.set_title(
        f"{label}: letters (α = {result.settings['alpha']:g})\nsystems sharing a letter are "
        "not significantly different, systems with none in common are",
        fontsize=9,
    )
    ax.grid(True, axis="y", color="0.92")
    ax.tick_params(labelbottom=False)
    _letter_lanes(bars, members, lane_of, n_lanes)
    bars.set_xlim(-0.6, n - 0.4)
    bars.set_xticks(range(n), [ticks[name] for name in order], rotation=60, ha="right",
                    fontsize=8)
    bars.set_xlabel("system (by decreasing score)")
    return fig


def _letter_lanes(bars: Any, members: Sequence[Sequence[int]], lane_of: Sequence[int],
                  n_lanes: int) -> None:
    """One lane per letter under the scores: a thick bar over its systems, or a thin line
    with round marks where it skips a system."""
    from muceval.significance.groups import letter_name

    for k, (marks, lane) in enumerate(zip(members, lane_of, strict=True)):
        contiguous = marks[-1] - marks[0] + 1 == len(marks)
        bars.plot([marks[0] - 0.25, marks[-1] + 0.25], [lane, lane], "-", color="#1f4e79",
                  lw=5 if contiguous else 1.2, solid_capstyle="round", gid=f"group-{k}")
        if not contiguous:
            bars.plot(marks, [lane] * len(marks), "o", color="#1f4e79", markersize=7)
        bars.annotate(letter_name(k), (marks[0] - 0.35, lane), ha="right", va="center",
                      fontsize=7.5, color="#1f4e79")
    bars.set_ylim(n_lanes - 0.4, -0.6)
    bars.set_yticks([])
    for spine in ("left", "right", "top"):
        bars.spines[spine].set_visible(False)


# ---------------------------------------------------------------------------
# Alignment evidence
# ---------------------------------------------------------------------------


def evidence_plot(rows: Sequence[tuple[str, Sequence[tuple[float, bool]]]], default: str,
                  flag: str) -> Figure:
    """One strip per system: the evidence (bits) of each pair aligned under ``default``.

    ``rows``: ``(system, [(bits, flagged), ...])``. Flagged pairs (aligned under
    the default criterion, refused by the flag criterion) are red crosses
    (``flagged-<system>``), the others dots (``pairs-<system>``). A pair at
    few bits was aligned on values that match by chance often.

    >>> fig = evidence_plot([("A", [(1.0, True), (9.5, False)])], "1992", "strict")
    >>> fig.axes[0].get_xlabel()
    'evidence of the aligned pair (bits: −log2 of the chance of each slot match, summed)'
    """
    n = len(rows)
    fig = Figure(figsize=(10.5, 1.7 + 0.38 * max(n, 1)), layout="constrained")
    ax = fig.add_subplot()
    # A fixed jitter (not a random one): the same data draw the same figure.
    for i, (name, points) in enumerate(rows):
        jitter = 0.28 * np.sin(np.arange(len(points)) * 2.3999632)
        bits = np.array([b for b, _ in points], dtype=float)
        flagged = np.array([f for _, f in points], dtype=bool)
        ax.scatter(bits[~flagged], (i + jitter)[~flagged], s=14, color="#1f4e79", alpha=0.55,
                   linewidths=0, gid=f"pairs-{slug(name)}", zorder=2)
        ax.scatter(bits[flagged], (i + jitter)[flagged], s=42, color="#c62828", marker="x",
                   linewidths=1.6, gid=f"flagged-{slug(name)}", zorder=3)
    ax.set_yticks(range(n), [name for name, _ in rows], fontsize=8)
    ax.set_ylim(n - 0.5, -0.5)
    ax.set_xlim(left=0)
    ax.set_xlabel("evidence of the aligned pair (bits: −log2 of the chance of each slot "
                  "match, summed)")
    ax.set_title(f"Pairs aligned under {default}; red crosses are refused by {flag}",
                 fontsize=10)
    ax.grid(True, axis="x", color="0.92", zorder=0)
    return fig


def histogram_plot(distribution: Distribution, label: str) -> Figure:
    """Chinchor's Figure 1: the histogram of the shuffled differences (absolute, for a
    two-sided test) with the observed difference marked; the p-value is the share of the
    histogram at or beyond the line.

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
    fig = Figure(figsize=(5.2, 2.6))
    ax = fig.add_subplot()
    top = max(float(values.max(initial=0.0)), observed) or 1.0
    bins = np.linspace(float(values.min(initial=0.0)) if not two_sided else 0.0, top * 1.02, 41)
    ax.hist(values, bins=bins.tolist(), color="#9db4c8", edgecolor="white", linewidth=0.4)
    for patch in ax.patches:  # the bars, the only patches drawn so far
        patch.set_gid("shuffled")
    line = ax.axvline(observed, color="#b03a2e", linewidth=1.6)
    line.set_gid("observed")
    ax.set_xlabel(f"{'|Δ| ' if two_sided else 'Δ '}{label} between the shuffled systems "
                  "(points)")
    ax.set_ylabel("shuffles")
    ax.set_title(f"{distribution.a} − {distribution.b}: observed {observed:.2f}, "
                 f"p = {_p_text(distribution.p_value)}", fontsize=9)
    ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    return fig


_CATEGORY_PALETTE = (
    "#6a3d9a", "#ff7f00", "#fdbf6f", "#e31a1c", "#fb9a99", "#b15928", "#ffff99", "#a6761d",
    "#e6ab02", "#d95f02", "#1f78b4", "#33a02c", "#b2df8a", "#a6cee3", "#666666", "#cab2d6",
    "#17becf")


def category_colors(categories: Sequence[str]) -> dict[str, str]:
    """One colour per error category, by its place in ``categories`` (give the full list of
    categories, so that a category has the same colour in every figure).

    >>> category_colors(["Span_Error", "Missing_Template"])["Missing_Template"]
    '#ff7f00'
    """
    return {c: _CATEGORY_PALETTE[i % len(_CATEGORY_PALETTE)] for i, c in enumerate(categories)}


def error_bars_plot(rows: Sequence[tuple[str, Mapping[str, int]]], categories: Sequence[str],
                    colors: Mapping[str, str]) -> Figure:
    """One horizontal bar per system (the first on top), stacked over ``categories`` (their
    counts), with a legend. Bars carry ``bar-<system>--<category>`` ids.

    >>> fig = error_bars_plot([("A", {"x": 2, "y": 1}), ("B", {"x": 0, "y": 4})], ["x", "y"],
    ...                       {"x": "#000000", "y": "#ffffff"})
    >>> 'id="bar-A--x"' in to_svg(fig)
    True
    """
    fig = Figure(figsize=(9.0, 1.6 + 0.3 * len(rows)))
    ax = fig.add_subplot()
    at = np.arange(len(rows))[::-1]
    left = np.zeros(len(rows))
    for category in categories:
        widths = np.array([counts.get(category, 0) for _, counts in rows], dtype=float)
        bars = ax.barh(at, widths, left=left, color=colors[category], edgecolor="white",
                       linewidth=0.3, label=category, height=0.7)
        for (name, _), bar in zip(rows, bars.patches, strict=True):
            bar.set_gid(f"bar-{slug(name)}--{slug(category)}")
        left += widths
    ax.set_yticks(at.tolist(), [name for name, _ in rows], fontsize=8)
    ax.set_xlabel("errors (count)")
    ax.spines[["top", "right"]].set_visible(False)
    ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    return fig
