"""Figures: content (labels, one mark per system, geometry), determinism, inlining."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given
from hypothesis import strategies as st

from muceval.core.units import from_arrays
from muceval.reporting.plots import (
    error_bars_plot,
    evidence_plot,
    groups_plot,
    inline_svg,
    lanes,
    matrix_plot,
    region_plot,
    slug,
    to_png,
    to_svg,
)
from muceval.reporting.svgfig import Rect, SvgFigure, Text
from muceval.significance.engine import compare
from muceval.significance.settings import SignificanceSettings

SVG = "{http://www.w3.org/2000/svg}"


def _svg_ids(svg: str) -> list[str]:
    return [el.get("id") for el in ET.fromstring(svg).iter() if el.get("id")]


def _svg_texts(svg: str) -> list[str]:
    return ["".join(el.itertext()) for el in ET.fromstring(svg).iter(f"{SVG}text")]


REGIONS = [
    ("A", {"all-templates": (0.30, 0.40), "matched-only": (0.50, 0.70),
           "matched-missing": (0.32, 0.70), "matched-spurious": (0.50, 0.42)}),
    ("B x", {"all-templates": (0.10, 0.20), "matched-only": (0.20, 0.25),
             "matched-missing": (0.11, 0.25), "matched-spurious": (0.20, 0.21)}),
    ("C", {"all-templates": (0.60, 0.55), "matched-only": (None, None)}),
]  # fmt: skip


def _shapes(svg: str, tag: str) -> dict[str, dict[str, float]]:
    """The numeric attributes of the ``tag`` elements of ``svg`` that have an id, by id."""
    numeric = re.compile(r"-?\d+(\.\d+)?")
    return {el.get("id"): {k: float(v) for k, v in el.attrib.items() if numeric.fullmatch(v)}
            for el in ET.fromstring(svg).iter(f"{SVG}{tag}") if el.get("id")}


def test_region_plot_has_one_rectangle_and_one_point_per_system_spanning_the_manners() -> None:
    svg = to_svg(region_plot(REGIONS))
    texts = _svg_texts(svg)
    assert "Recall (%)" in texts and "Precision (%)" in texts
    assert "F=50" in texts  # iso-F curves are labelled, in percent as the axes
    rectangles = _shapes(svg, "rect")
    assert set(rectangles) == {f"region-{slug(n)}" for n, _ in REGIONS}
    points = _shapes(svg, "circle")
    assert set(points) == {f"point-{slug(n)}" for n, _ in REGIONS}
    # A spans recall 30–50 and precision 40–70; its official point (30, 40) is the lower left
    # corner; the plane is square, so both axes have one scale.
    a, dot = rectangles["region-A"], points["point-A"]
    assert a["width"] / a["height"] == pytest.approx(20 / 30)
    assert (dot["cx"], dot["cy"]) == pytest.approx((a["x"], a["y"] + a["height"]))
    scale = a["width"] / 20
    b = points[f"point-{slug('B x')}"]  # B x at (10, 20): 20 points left of A and 20 below, in percent
    assert (dot["cx"] - b["cx"], b["cy"] - dot["cy"]) == pytest.approx((20 * scale, 20 * scale))
    ids = _svg_ids(svg)
    for name, _ in REGIONS:
        assert ids.count(f"region-{slug(name)}") == 1
        assert ids.count(f"point-{slug(name)}") == 1


def test_many_systems_get_a_panel_each_with_the_others_faint_behind() -> None:
    """Issue 29: 17 translucent rectangles on one plane could not be told apart."""
    many = [(f"S{i}", {"all-templates": (0.1 + 0.04 * i, 0.6 - 0.02 * i),
                       "matched-only": (0.15 + 0.04 * i, 0.7 - 0.02 * i)}) for i in range(9)]
    svg = to_svg(region_plot(many))
    root = ET.fromstring(svg)
    # Each panel: its title, its system's rectangle, and the 8 others as one grey path of
    # closed rectangles (issue 30).
    assert [t for t in _svg_texts(svg) if t in {n for n, _ in many}] == [n for n, _ in many]
    ids = _svg_ids(svg)
    assert all(ids.count(f"region-{name}") == 1 and ids.count(f"point-{name}") == 1
               for name, _ in many)
    context = [p for p in root.iter(f"{SVG}path") if p.get("stroke") == "#999999"
               and p.get("fill") == "none" and "Z" in p.get("d")]
    assert len(context) == 9 and all(p.get("d").count("Z") == 8 for p in context)


def _result(method: str = "exact"):
    # A clearly better than C; B in between and close to both.
    counts = [
        [[4, 4, 4, 0]] * 8,
        [[4, 4, 3, 0]] * 6 + [[4, 4, 2, 0]] * 2,
        [[4, 4, 1, 0]] * 8,
    ]
    tallies = from_arrays(["A", "B", "C"], [f"m{i}" for i in range(8)], counts)
    return compare(tallies, metrics=["recall", "f1"],
                   settings=SignificanceSettings(method=method, seed=3, bootstrap=200))


def test_matrix_plot_shows_every_pair_with_its_p_value_and_significance() -> None:
    result = _result()
    svg = to_svg(matrix_plot(result, "recall"))
    order = result.ranking("recall")
    texts = ET.fromstring(svg).iter(f"{SVG}text")
    labels = [(t.text, t.get("transform")) for t in texts if t.text in order]
    # Row names down the left, column names rotated along the bottom, both in score order.
    assert [name for name, turn in labels if not turn] == order
    assert [name for name, turn in labels if turn] == order
    # Each cell's id is on its p-value (a plain SVG figure, issue 30).
    cells = {t.get("id"): t.text for t in ET.fromstring(svg).iter(f"{SVG}text")
             if (t.get("id") or "").startswith("cell-")}
    assert sorted(cells) == sorted(f"cell-{a}--{b}" for a in order for b in order if a != b)
    for a in order:
        for b in order:
            if a == b:
                continue
            c = result.comparison(a, b, "recall")
            p = c.p_adjusted
            shown = "<.001" if p < 0.001 else (f"{p:.3f}".lstrip("0") if p < 1 else "1.0")
            assert cells[f"cell-{a}--{b}"] == shown + ("*" if c.significant else "")
    assert any(result.comparison(a, b, "recall").significant for a in order for b in order if a != b)
    assert "column system" in _svg_texts(svg)
    significant = sum(result.comparison(a, b, "recall").significant
                      for a in order for b in order if a != b)
    frames = ET.fromstring(svg).findall(f".//{SVG}path[@stroke='#000000'][@stroke-width='1.6']")
    assert len(frames) == 1 and frames[0].get("d").count("M") == significant
    assert to_png(matrix_plot(result, "recall"))[:4] == b"\x89PNG"


def test_matrix_plot_of_approximate_results_shows_confidence_levels_below_one() -> None:
    """Issue 30: "c 1.00" in every cell of a clear leaderboard was noise; as in the table, a
    confidence is shown where it is below 1.000, and hatched below the required level."""
    # A and B close (p near α with 99 shuffles), C far below both.
    a, b = "4111144311223221331122432233134442233342", "4002233102222212320222322234224431141441"
    counts = [[[4, 4, int(x), 0] for x in a], [[4, 4, int(x), 0] for x in b], [[4, 4, 0, 0]] * 40]
    tallies = from_arrays(["A", "B", "C"], [f"m{i}" for i in range(40)], counts)
    result = compare(tallies, metrics=["recall"], settings=SignificanceSettings(
        method="approximate", shuffles=99, seed=3, bootstrap=0))
    svg = to_svg(matrix_plot(result, "recall"))
    confidences = sorted(t for t in _svg_texts(svg) if t.startswith("c "))
    close = result.comparison("A", "B", "recall")
    assert close.confidence < result.settings["confidence"]
    assert all(c.confidence >= 0.9995 for c in result.comparisons if {c.a, c.b} != {"A", "B"})
    assert confidences == [f"c {close.confidence:.3f}"] * 2  # A vs B and B vs A
    assert svg.count('fill="url(#hatch)"') == 2
    body = inline_svg(svg, "m-")  # the pattern stays resolvable inside a page
    assert body.count('fill="url(#m-hatch)"') == 2 and body.count('id="m-hatch"') == 1


def test_groups_plot_marks_each_system_at_its_score_and_draws_each_group() -> None:
    result = _result()
    svg = to_svg(groups_plot(result, "recall"))
    root = ET.fromstring(svg)
    assert "recall (%)" in _svg_texts(svg)
    order = result.ranking("recall")
    # The systems' names along the bottom (rotated), in score order: their x is each column.
    column = {t.text: float(t.get("x")) for t in root.iter(f"{SVG}text")
              if t.get("transform") and t.text in order}
    assert sorted(column, key=column.get) == order
    dots = {c.get("id"): c for c in root.iter(f"{SVG}circle") if c.get("id")}
    assert set(dots) == {f"score-{s}" for s in order}
    heights = [float(dots[f"score-{s}"].get("cy")) for s in order]
    assert heights == sorted(heights)  # best first, highest on the page
    for name in order:
        assert float(dots[f"score-{name}"].get("cx")) == pytest.approx(column[name], abs=0.01)
    # One row per letter of the compact letter display, from its first member to its last.
    groups = result.letter_groups["recall"]
    step = column[order[1]] - column[order[0]]
    drawn = {p.get("id"): p for p in root.iter(f"{SVG}path") if p.get("id")}
    assert set(drawn) == {f"group-{k}" for k in range(len(groups))}
    for k, group in enumerate(groups):
        xs = [float(v) for v in re.findall(r"[ML]([-\d.]+) ", drawn[f"group-{k}"].get("d"))]
        assert xs[0] == pytest.approx(column[group[0]] - 0.25 * step, abs=0.02)
        assert xs[1] == pytest.approx(column[group[-1]] + 0.25 * step, abs=0.02)
    texts = _svg_texts(svg)
    assert [t for t in texts if len(t) == 1 and t.islower()] == [
        chr(ord("a") + k) for k in range(len(groups))]
    for name in order:  # each score label ends with the system's letters
        assert any(t.endswith(" " + result.letters["recall"][name]) for t in texts)
    assert to_png(groups_plot(result, "recall"))[:4] == b"\x89PNG"


@given(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 5)), max_size=15))
def test_lanes_never_put_touching_runs_together(raw) -> None:
    runs = sorted((s, s + w) for s, w in raw)
    lane_of = lanes(runs)
    assert len(lane_of) == len(runs)
    for i in range(len(runs)):
        for j in range(i + 1, len(runs)):
            if lane_of[i] == lane_of[j]:
                (s1, e1), (s2, e2) = runs[i], runs[j]
                assert e1 < s2 or e2 < s1


def test_svg_is_deterministic_and_text_stays_text() -> None:
    first = to_svg(region_plot(REGIONS))
    second = to_svg(region_plot(REGIONS))
    assert first == second
    assert "<dc:date>" not in first
    assert to_png(region_plot(REGIONS))[:8] == b"\x89PNG\r\n\x1a\n"


def test_inline_svg_prefixes_ids_and_keeps_every_reference_resolvable() -> None:
    result = compare(from_arrays(["A", "B", "C"], [f"m{i}" for i in range(40)], [
        [[4, 4, int(x), 0] for x in "4111144311223221331122432233134442233342"],
        [[4, 4, int(x), 0] for x in "4002233102222212320222322234224431141441"],
        [[4, 4, 0, 0]] * 40]), metrics=["recall"], settings=SignificanceSettings(
        method="approximate", shuffles=99, seed=3, bootstrap=0))
    body = inline_svg(to_svg(matrix_plot(result, "recall")), "m-")  # hatched: a pattern
    assert body.startswith("<svg") and "<?xml" not in body
    ids = set(re.findall(r'\bid="([^"]+)"', body))
    assert ids and all(i.startswith("m-") for i in ids)
    references = re.findall(r"url\(#([^)]+)\)", body) + re.findall(r'href="#([^"]+)"', body)
    assert references and set(references) <= ids


def test_evidence_plot_draws_one_mark_per_pair() -> None:
    rows = [("A", [(1.0, True), (9.5, False), (3.2, True)]), ("B x", [(12.0, False)]),
            ("C", [])]
    svg = to_svg(evidence_plot(rows, "1992", "strict"))
    root = ET.fromstring(svg)
    groups = {el.get("id"): el for el in root.iter() if el.get("id")}
    for name, points in rows:
        for gid, want in ((f"flagged-{slug(name)}", sum(f for _, f in points)),
                          (f"pairs-{slug(name)}", sum(not f for _, f in points))):
            if gid.startswith("pairs-"):  # a group of dots
                marks = [el for el in groups[gid].iter() if el.tag == f"{SVG}circle"]
                assert len(marks) == want, gid
            else:  # one path, a cross (two strokes) per pair
                assert groups[gid].get("d").count("M") == 2 * want, gid
    texts = _svg_texts(svg)
    assert {"A", "B x", "C"} <= set(texts)
    assert any("refused by strict" in t for t in texts)
    assert to_svg(evidence_plot(rows, "1992", "strict")) == svg


def test_png_keeps_names_as_text_and_hatches_in_white() -> None:
    """Review of issue 30's figures: a PNG is replayed by matplotlib, which would read "$^$"
    in a name as (broken) mathtext; its hatching must be white, as the SVG's pattern."""
    import io

    from matplotlib.image import imread

    tallies = from_arrays(["run$^$1", "B"], ["m1", "m2"], [[[2, 2, 2, 0]] * 2, [[2, 2, 0, 0]] * 2])
    result = compare(tallies, ["recall"], SignificanceSettings(seed=1, bootstrap=0))
    assert to_png(matrix_plot(result, "recall"))[:4] == b"\x89PNG"
    assert to_png(groups_plot(result, "recall"))[:4] == b"\x89PNG"
    fig = SvgFigure(40, 40)
    fig.add(Rect(0, 0, 40, 40, fill="#000000", hatch=True))
    pixels = imread(io.BytesIO(to_png(fig)))[..., :3]
    assert pixels.max() > 0.9 and pixels.min() < 0.1  # white lines on black


def test_inline_svg_leaves_the_text_of_labels_alone() -> None:
    fig = SvgFigure(40, 40)
    fig.add(Text(1, 1, 'a id="zz" url(#k) href="#h"', gid="label"))
    body = inline_svg(fig.svg(), "P-")
    assert 'id="P-label"' in body and '>a id="zz" url(#k) href="#h"<' in body


def test_error_bars_leave_room_for_every_category_of_the_legend() -> None:
    categories = [f"Category_{k}" for k in range(16)]
    fig = error_bars_plot([("A", {c: 1 for c in categories})], categories,
                          {c: "#336699" for c in categories})
    lowest = max(m.y for m in fig.marks if isinstance(m, Text) and m.text in categories)
    assert lowest + 6 <= fig.height


def test_the_colour_tables_are_matplotlibs_maps() -> None:
    # The report's colours were matplotlib's maps: the tables must pick what they picked,
    # to the byte of every figure, at the edges of the entries too.
    from matplotlib import colormaps

    from muceval.reporting.colours import TAB10, TAB20, TURBO, VIRIDIS, pick

    def hex_of(rgba) -> str:
        return "#" + "".join(f"{round(255 * c):02x}" for c in rgba[:3])

    for name, table in (("viridis", VIRIDIS), ("turbo", TURBO), ("tab10", TAB10),
                        ("tab20", TAB20)):
        cmap = colormaps[name]
        assert len(table) == cmap.N
        edges = [k / cmap.N for k in range(cmap.N + 1)]
        xs = [0.0, 1.0, *edges, *(x + 1e-12 for x in edges[:-1]), *(x - 1e-12 for x in edges[1:]),
              *(k / 997 for k in range(998))]
        assert [pick(table, x) for x in xs] == [hex_of(cmap(x)) for x in xs], name
