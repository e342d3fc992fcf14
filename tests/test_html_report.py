"""The HTML report and the analysis behind it, on the bundled example (no browser needed)."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from muceval.cli import main
from muceval.core.systems import SystemScores
from muceval.core.tallies import Tally
from muceval.core.units import from_arrays
from muceval.formats.config import load_configuration
from muceval.formats.registry import load_systems
from muceval.formats.scores.json import scores_to_json
from muceval.reporting.analysis import analyze, systems_from_pairs
from muceval.reporting.demo import EXAMPLE_SYSTEMS, example_dir
from muceval.reporting.html import format_p, render_html, write_report
from muceval.reporting.muc1992 import format_report
from muceval.reporting.options import ReportOptions
from muceval.scoring.session import score_files
from muceval.significance.settings import SignificanceSettings

# ---------------------------------------------------------------------------
# A small DOM for reading pages back (also used by the browser test)
# ---------------------------------------------------------------------------

_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
         "track", "wbr"}  # fmt: skip


class Node:
    def __init__(self, tag: str, attrs: dict[str, str], parent: Node | None) -> None:
        self.tag, self.attrs, self.parent = tag, attrs, parent
        self.children: list[Node | str] = []

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def iter(self):
        yield self
        for c in self.children:
            if isinstance(c, Node):
                yield from c.iter()

    def find_all(self, tag: str | None = None, **attrs: str | bool) -> list[Node]:
        """Elements by tag and attributes (``True``: present; ``class_``: one of the classes)."""
        out = []
        for node in self.iter():
            if tag is not None and node.tag != tag:
                continue
            ok = True
            for name, want in attrs.items():
                if name == "class_":
                    ok = ok and want in node.attrs.get("class", "").split()
                    continue
                name = name.replace("_", "-")
                have = node.attrs.get(name)
                ok = ok and (have is not None if want is True else have == want)
            if ok:
                out.append(node)
        return out

    def find(self, tag: str | None = None, **attrs: str | bool) -> Node:
        found = self.find_all(tag, **attrs)
        assert found, f"no <{tag}> with {attrs}"
        return found[0]


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {}, None)
        self.current = self.root

    def handle_starttag(self, tag, attrs):
        node = Node(tag, {k: v or "" for k, v in attrs}, self.current)
        self.current.children.append(node)
        if tag not in _VOID:
            self.current = node

    def handle_startendtag(self, tag, attrs):
        self.current.children.append(Node(tag, {k: v or "" for k, v in attrs}, self.current))

    def handle_endtag(self, tag):
        node = self.current
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.current = node.parent

    def handle_data(self, data):
        self.current.children.append(data)


def parse_html(text: str) -> Node:
    builder = _Builder()
    builder.feed(text)
    builder.close()
    return builder.root


# ---------------------------------------------------------------------------
# Checks shared with the browser test: the page shows what the JSON holds
# ---------------------------------------------------------------------------

SECTIONS = ("summary", "region", "matrices", "groupings", "slot-comparison", "systems", "settings")


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.2f}"


def check_page_matches_json(dom: Node, data: dict) -> None:
    """Every section, table and figure is present and every number equals the JSON."""
    for section in SECTIONS:
        assert dom.find_all("section", id=section), section
    systems = {s["system"]: s for s in data["systems"]}
    sig = data["significance"]
    metrics = sig["settings"]["metrics"]

    # Summary table: one row per system, the numbers of report.json.
    table = dom.find("table", id="summary-table")
    rows = table.find("tbody").find_all("tr")
    assert sorted(r.attrs["data-system"] for r in rows) == sorted(systems)
    keys = {"recall": "recall", "precision": "precision", "f1": "f1", "f0.5": "f0.5", "f2": "f2",
            "overgeneration": "overgeneration"}  # fmt: skip
    for row in rows:
        name = row.attrs["data-system"]
        for metric, key in keys.items():
            cell = row.find("td", data_metric=metric)
            shown = cell.find("span", class_="v").text()
            assert shown == _pct(systems[name]["all_templates"][key]), (name, metric)
            ci = (sig["system_ci"] or {}).get(name, {}).get(metric)
            if ci is not None:
                assert cell.find("span", class_="ci").text() == f"{_pct(ci[0])}–{_pct(ci[1])}"
        fallout = row.find("td", data_metric="fallout").text()
        assert fallout == _pct(systems[name]["fallout"])
    # Ranked by F P&R.
    order = [r.attrs["data-system"] for r in rows]
    assert order == sorted(systems, key=lambda s: (-sig["systems"][s]["f1"], s))

    # Figures: inline SVG with labels and one mark per system.
    region = dom.find("figure", id="fig-region").find("svg")
    texts = [t.text() for t in region.find_all("text")]
    assert "Recall (%)" in texts and "Precision (%)" in texts
    ids = [n.attrs["id"] for n in region.iter() if "id" in n.attrs]
    for name in systems:
        assert ids.count(f"region-region-{_slug(name)}") == 1, name
        assert ids.count(f"region-point-{_slug(name)}") == 1, name

    comparisons = {(c["a"], c["b"], c["metric"]): c for c in sig["comparisons"]}
    for metric in metrics:
        # Matrix: figure cells and the table, p-values and significance as in the JSON.
        svg = dom.find("figure", id=f"fig-matrix-{metric}").find("svg")
        cells = [n for n in svg.iter() if n.attrs.get("id", "").startswith(f"matrix-{metric}-cell-")]
        assert len(cells) == len(systems) * (len(systems) - 1)
        table = dom.find("table", class_="matrix", data_metric=metric)
        seen = 0
        for td in table.find_all("td", data_a=True):
            a, b = td.attrs["data-a"], td.attrs["data-b"]
            c = comparisons.get((a, b, metric)) or comparisons[(b, a, metric)]
            text = "".join(x for x in td.children if isinstance(x, str))
            assert text == format_p(c["p_adjusted"]) + ("*" if c["significant"] else ""), (a, b)
            assert td.attrs["data-significant"] == str(c["significant"]).lower()
            assert float(td.attrs["data-p"]) == c["p_adjusted"]
            seen += 1
        assert seen == len(systems) * (len(systems) - 1)
        # Groupings: figure bars and the list, as in the JSON.
        groups = sig["letter_groups"][metric]
        svg = dom.find("figure", id=f"fig-groups-{metric}").find("svg")
        bars = [n for n in svg.iter() if n.attrs.get("id", "").startswith(f"groups-{metric}-group-")]
        assert len(bars) == len(groups)
        marks = [n for n in svg.iter() if n.attrs.get("id", "").startswith(f"groups-{metric}-score-")]
        assert len(marks) == len(systems)
        # Each system's score is labelled with its letters (the compact letter display).
        labels = {t.text().strip() for t in svg.iter() if t.tag == "text"}
        for name in systems:
            score = f"{100 * sig['systems'][name][metric]:.2f}"
            assert f"{score} {sig['letters'][metric][name]}" in labels, (metric, name)
        items = dom.find("ol", class_="groups", data_metric=metric).find_all("li")
        # Each system shown as the page shows names, the full name its tooltip (issue 29).
        assert [[span.attrs.get("title") or span.text() for span in li.find_all("span")]
                or li.text().split(", ") for li in items] == groups

    # Per-system tables: every slot row of every system.
    for name, s in systems.items():
        block = dom.find("div", class_="system-block", data_system=name)
        slots = block.find("table", data_table="slots").find("tbody").find_all("tr")
        assert [r.attrs["data-row"] for r in slots] == [r["row"] for r in s["slots"]]
        for tr, row in zip(slots, s["slots"], strict=True):
            assert tr.find("td", data_metric="recall").text() == _pct(row["recall"])
    # Classic tests: every pair's p-values of every test, r and Yeh's factor.
    classic = [c for c in sig["comparisons"] if c.get("classic")]
    if classic:
        assert dom.find("a", href="#classic-tests")
    for c in classic:
        table = dom.find("table", class_="classic", data_metric=c["metric"])
        row = table.find("tr", data_a=c["a"], data_b=c["b"])
        for test, field in (("paired-t", "paired_t"), ("sign", "sign"), ("wilcoxon", "wilcoxon"),
                            ("two-sample-t", "two_sample_t"), ("binomial", "binomial"),
                            ("chi2", "chi2")):
            value = c["classic"][field]
            cell = row.find("td", data_test=test)
            assert cell.attrs["data-p"] == ("" if value is None else repr(value)), test
        r = c["classic"]["correlation"]
        assert row.find("td", data_metric="correlation").text() == (
            "n/a" if r is None else f"{r:.2f}")
    # Settings.
    seed = dom.find("dd", data_setting="seed").text()
    assert seed == str(sig["settings"]["seed"])


def _slug(name: str) -> str:
    from muceval.reporting.plots import slug

    return slug(name)


# ---------------------------------------------------------------------------
# Fixtures
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def example():
    source = example_dir()
    config = load_configuration(source / "config.toml")
    results = score_files(config, source / "key.txt",
                          [source / f"{n}.txt" for n in EXAMPLE_SYSTEMS],
                          history_path=source / "history.lisp").systems
    return config, results


@pytest.fixture(scope="module")
def written(example, tmp_path_factory):
    config, results = example
    systems, tallies = systems_from_pairs(results, config)
    analysis = analyze(systems, tallies,
                       settings=SignificanceSettings(shuffles=999, seed=7, bootstrap=200))
    out = tmp_path_factory.mktemp("report")
    return analysis, write_report(analysis, out, ReportOptions(png=True))


# ---------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------


def test_report_files_are_written(written) -> None:
    analysis, files = written
    assert files.html.name == "report.html" and files.html.is_file()
    names = {p.name for p in files.figures}
    for metric in analysis.significance.metrics:
        for kind in ("matrix", "groups"):
            assert {f"{kind}-{metric}.svg", f"{kind}-{metric}.png"} <= names
    assert {"region.svg", "region.png"} <= names
    assert {p.name for p in files.data} >= {"report.json", "significance.json", "significance.csv",
                                            "summary.csv", "slots.csv"}  # fmt: skip
    assert json.loads(files.json.read_text())["format"] == "muceval-report"


def test_page_shows_the_numbers_of_the_json(written) -> None:
    _, files = written
    check_page_matches_json(parse_html(files.html.read_text()), json.loads(files.json.read_text()))


def test_page_is_self_contained(written) -> None:
    _, files = written
    dom = parse_html(files.html.read_text())
    for node in dom.iter():
        for attr in ("src", "href"):
            value = node.attrs.get(attr, "")
            assert not value.startswith(("http:", "https:", "//")), value
        if node.tag == "link":
            raise AssertionError("external stylesheet")
    # Figures are inline, not references to the figure files.
    assert not dom.find_all("img")
    # The region, a matrix and a groups figure per metric, a distribution per neighbours.
    analysis = written[0]
    neighbours = len(analysis.systems) - 1
    assert len(dom.find_all("svg")) == 1 + 2 * len(analysis.significance.metrics) + neighbours


def test_significance_json_matches_the_analysis(written) -> None:
    analysis, files = written
    data = json.loads((files.out_dir / "significance.json").read_text())
    assert data["groups"] == analysis.significance.groups
    # The significance works on the same totals the summary shows.
    for s in analysis.systems:
        assert data["systems"][s.name]["recall"] == pytest.approx(s.all_templates.recall)
        assert data["systems"][s.name]["f1"] == pytest.approx(s.all_templates.f_pr)


def test_reports_and_json_scores_give_the_same_systems_as_scoring(example, tmp_path) -> None:
    config, results = example
    from_pairs, tallies = systems_from_pairs(results, config)
    paths = []
    for name, pairs in results.items():
        path = tmp_path / f"{name}.report"
        path.write_text(format_report(pairs, config), encoding="latin-1")
        paths.append(path)
    from_reports, report_tallies = load_systems(paths, config)
    json_path = tmp_path / "scores.json"
    json_path.write_text(scores_to_json(results, config))
    from_json, json_tallies = load_systems([json_path])
    for other, other_tallies in ((from_reports, report_tallies), (from_json, json_tallies)):
        assert [s.name for s in other] == [s.name for s in from_pairs]
        assert other_tallies.units == tallies.units
        assert np.array_equal(other_tallies.counts, tallies.counts)
        for a, b in zip(from_pairs, other, strict=True):
            assert a.all_templates.tally.as_tuple()[:10] == b.all_templates.tally.as_tuple()[:10]
            assert [r.name for r in a.slots] == [r.name for r in b.slots]
            assert [r.name for r in a.objects] == [r.name for r in b.objects]
            assert [(r.name, r.recall) for r in a.manners] == [(r.name, r.recall) for r in b.manners]
    # One fallout per system: the SET FILLS ONLY row's. A report prints it as a whole percent.
    assert [s.fallout for s in from_json] == [s.fallout for s in from_pairs]
    assert any(s.fallout is not None for s in from_pairs)
    for a, b in zip(from_pairs, from_reports, strict=True):
        set_row = next(r for r in a.objects if r.kind == "set-fills")
        assert a.fallout == set_row.fallout
        assert a.fallout is not None and b.fallout is not None
        assert abs(a.fallout - b.fallout) <= 0.005


def test_names_are_escaped_in_the_page() -> None:
    tallies = from_arrays(["<b>x</b>", "y&z"], ["m1", "m2"],
                          [[[2, 2, 2, 0], [2, 2, 1, 0]], [[2, 2, 1, 0], [2, 2, 0, 0]]])  # fmt: skip
    systems = [SystemScores.of_tally(n, n, "arrays", Tally(*map(int, tallies.totals(n))))
               for n in tallies.systems]  # fmt: skip
    analysis = analyze(systems, tallies, metrics="recall",
                       settings=SignificanceSettings(method="exact", bootstrap=0))
    from muceval.reporting.html import build_figures
    from muceval.reporting.plots import to_svg

    page = render_html(analysis, {k: to_svg(f) for k, f in build_figures(analysis).items()})
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page
    dom = parse_html(page)
    assert {r.attrs["data-system"] for r in dom.find("table", id="summary-table").find_all("tr", data_system=True)} == {"<b>x</b>", "y&z"}


def test_script_names_and_titles_are_text_not_markup() -> None:
    hostile = ["<script>alert(1)</script>", 'A & "B"', "$x^2$"]
    tallies = from_arrays(hostile, ["m1", "m2"],
                          [[[2, 2, 2, 0], [2, 2, 1, 0]], [[2, 2, 1, 0], [2, 2, 0, 0]],
                           [[2, 2, 0, 0], [2, 2, 0, 0]]])  # fmt: skip
    systems = [SystemScores.of_tally(n, n, "arrays", Tally(*map(int, tallies.totals(n))))
               for n in tallies.systems]  # fmt: skip
    analysis = analyze(systems, tallies, metrics="recall",
                       settings=SignificanceSettings(method="exact", bootstrap=0))
    from muceval.reporting.html import build_figures
    from muceval.reporting.plots import to_svg

    svgs = {k: to_svg(f) for k, f in build_figures(analysis).items()}
    # Names are drawn as text, not parsed as matplotlib math (which draws glyphs instead).
    assert ">$x^2$<" in svgs["groups-recall"]
    page = render_html(analysis, svgs, title="<b>bold</b> & co")
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<b>bold</b>" not in page and "&lt;b&gt;bold&lt;/b&gt; &amp; co" in page
    assert page.count("<script>") == 1  # the page's own script only
    dom = parse_html(page)
    names = {r.attrs["data-system"] for r in dom.find("table", id="summary-table")
             .find_all("tr", data_system=True)}  # fmt: skip
    assert names == set(hostile)


def test_templates_are_packaged() -> None:
    from importlib.resources import files

    templates = files("muceval.reporting") / "templates"
    for name in ("base.html.j2", "report.html.j2", "macros.html.j2", "report.css", "report.js"):
        assert (templates / name).is_file(), name


def test_report_command_on_the_bundled_example(tmp_path, capsys) -> None:
    out = tmp_path / "r"
    code = main(["report", "--example", "--out", str(out), "--shuffles", "499", "--seed", "5",
                 "--bootstrap", "100", "--no-png", "--format", "json"])  # fmt: skip
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    assert Path(printed["html"]).is_file()
    assert not list((out / "figures").glob("*.png"))
    assert '.png"' not in (out / "report.html").read_text()  # no link to a figure not written
    data = json.loads((out / "report.json").read_text())
    assert data["settings"]["seed"] == 5 and data["settings"]["shuffles"] == 499
    assert [s["system"] for s in data["systems"]] == list(EXAMPLE_SYSTEMS)
    assert (out / "scores.json").is_file()


def write_reports(example, folder) -> list[str]:
    """The bundled example's systems as 1992 score reports in ``folder``."""
    config, results = example
    paths = []
    for name, pairs in results.items():
        path = folder / f"{name}.report"
        path.write_text(format_report(pairs, config), encoding="latin-1")
        paths.append(str(path))
    return paths


def test_report_command_from_reports_prints_a_table(example, tmp_path, capsys) -> None:
    paths = write_reports(example, tmp_path)
    code = main(["report", *paths, "--out", str(tmp_path / "r"), "--shuffles", "199",
                 "--seed", "1", "--bootstrap", "0", "--metrics", "f1", "--no-png"])  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out
    assert "report written to" in out
    for name in EXAMPLE_SYSTEMS:
        assert name in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["report", "--out", "{tmp}"], "give INPUT files"),
        (["report", "--key", "{tmp}/k.txt", "a.txt"], "k.txt"),
        (["report", "{tmp}/nowhere.report", "{tmp}/b.report"], "nowhere.report"),
        (["report", "{bad}", "{bad}"], "bad.report: not a file muceval knows"),
    ],
)
def test_report_command_errors_name_the_problem(args, message, tmp_path, capsys) -> None:
    bad = tmp_path / "bad.report"
    bad.write_text("this is not a report\n")
    args = [a.replace("{tmp}", str(tmp_path)).replace("{bad}", str(bad)) for a in args]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_same_analysis_gives_the_same_files(tmp_path) -> None:
    tallies = from_arrays(["A", "B", "C"], ["m1", "m2", "m3"],
                          [[[2, 2, 2, 0], [2, 2, 1, 0], [3, 1, 1, 0]],
                           [[2, 2, 1, 0], [2, 2, 0, 0], [3, 2, 1, 0]],
                           [[2, 0, 0, 0], [2, 2, 0, 0], [3, 3, 0, 0]]])  # fmt: skip
    systems = [SystemScores.of_tally(n, n, "arrays", Tally(*map(int, tallies.totals(n))))
               for n in tallies.systems]  # fmt: skip
    first = write_report(analyze(systems, tallies, metrics="recall,f1",
                                 settings=SignificanceSettings(
                                     seed=3, shuffles=199, bootstrap=50)), tmp_path / "1")  # fmt: skip
    second = write_report(analyze(systems, tallies, metrics="recall,f1",
                                  settings=SignificanceSettings(
                                      seed=3, shuffles=199, bootstrap=50)), tmp_path / "2")  # fmt: skip
    for a, b in zip((first.html, *first.figures, *first.data),
                    (second.html, *second.figures, *second.data), strict=True):  # fmt: skip
        assert a.read_bytes() == b.read_bytes(), a.name


def test_demo_writes_the_html_report(tmp_path) -> None:
    from muceval.reporting.demo import run_demo

    result = run_demo(tmp_path)
    assert result.report_path == tmp_path / "report" / "report.html"
    data = json.loads((tmp_path / "report" / "report.json").read_text())
    by_name = {s["system"]: s for s in data["systems"]}
    for system in result.systems:
        assert by_name[system.name]["all_templates"]["f1"] == pytest.approx(system.all_templates.f_pr)
    check_page_matches_json(parse_html(result.report_path.read_text()), data)


# ---------------------------------------------------------------------------
# The Alignment section (report --alignment)
# ---------------------------------------------------------------------------


def check_alignment_matches_json(dom: Node, doc: dict) -> None:
    """The Alignment section shows the numbers of report.json's ``alignment`` part."""
    section = dom.find("section", id="alignment")
    assert dom.find("a", href="#alignment")
    alpha = doc["settings"]["significance"]["alpha"]
    table = section.find("table", id="alignment-scores")
    rows = {r.attrs["data-system"]: r for r in table.find("tbody").find_all("tr")}
    assert sorted(rows) == sorted(s["system"] for s in doc["systems"])
    for s in doc["systems"]:
        for criterion, values in s["criteria"].items():
            cells = {c.attrs["data-metric"]: c for c in rows[s["system"]].find_all(
                "td", data_criterion=criterion)}
            assert cells["f1"].text() == _pct(values["f1"])
            if criterion == doc["default"]:
                assert cells["recall"].text() == _pct(values["recall"])
                assert cells["mapped_pairs"].text() == str(values["mapped_pairs"])
                continue
            assert cells["delta_f1"].text() == f"{100 * values['delta_f1']:+.2f}"
            p = values["p_value"]
            assert cells["p_value"].text().rstrip("*") == format_p(p)
            assert ("sig" in cells["p_value"].attrs.get("class", "")) == (p <= alpha)
            assert cells["rank"].text() == str(values["rank"])
    flagged = sorted((s["system"], p["message"], str(p["key"]), str(p["response"]))
                     for s in doc["systems"] for p in s["pairs"] if p["flagged"])
    if flagged:
        shown = section.find("table", id="alignment-flagged").find("tbody").find_all("tr")
        assert sorted((r.attrs["data-system"], r.attrs["data-message"], r.attrs["data-key"],
                       r.attrs["data-response"]) for r in shown) == flagged
    else:
        assert section.find_all(id="alignment-flagged-none")
    removal = {r.attrs["data-system"]: r for r in section.find(
        "table", id="alignment-removal").find("tbody").find_all("tr")}
    for s in doc["systems"]:
        if s["removal"]:
            shown = removal[s["system"]].find("td", data_metric="anomalies").text()
            assert int(shown) == sum(r["anomaly"] for r in s["removal"])
    for comparison in doc["comparisons"]:
        caption = section.find("p", data_comparison=comparison["criterion"])
        assert caption.find("span", data_metric="flips").text() == str(len(comparison["flips"]))


def test_report_alignment_section_shows_the_audit(tmp_path, capsys) -> None:
    """The bundled example: a strict criterion flags weak pairs and shows Kehler's anomaly."""
    out = tmp_path / "r"
    assert main(["report", "--example", "--alignment", "1992,strict", "--out", str(out),
                 "--shuffles", "999", "--seed", "3", "--bootstrap", "0", "--no-png",
                 "--format", "json"]) == 0  # fmt: skip
    data = json.loads((out / "report.json").read_text())
    doc = data["alignment"]
    assert doc["default"] == "1992" and doc["flag"] == "strict"
    assert doc["settings"]["significance"]["seed"] == 3
    assert json.loads((out / "alignment.json").read_text()) == doc
    assert any(r["anomaly"] for s in doc["systems"] for r in s["removal"])
    html = (out / "report.html").read_text()
    dom = parse_html(html)
    check_page_matches_json(dom, data)
    check_alignment_matches_json(dom, doc)
    # The evidence figure marks the flagged pairs of each system that has some.
    for s in doc["systems"]:
        if any(p["flagged"] for p in s["pairs"]):
            assert f'id="alignment-evidence-flagged-{s["system"]}"' in html


def test_report_alignment_compare_takes_the_configuration_list(tmp_path) -> None:
    out = tmp_path / "r"
    assert main(["report", "--example", "--alignment", "compare", "--out", str(out),
                 "--shuffles", "99", "--seed", "3", "--bootstrap", "0", "--no-png",
                 "--format", "json"]) == 0  # fmt: skip
    doc = json.loads((out / "report.json").read_text())["alignment"]
    assert doc["settings"]["criteria"] == ["1992", "strict"]


def test_report_without_alignment_has_no_section(tmp_path) -> None:
    out = tmp_path / "r"
    assert main(["report", "--example", "--out", str(out), "--shuffles", "99", "--seed", "3",
                 "--bootstrap", "0", "--no-png", "--format", "json"]) == 0  # fmt: skip
    assert "alignment" not in json.loads((out / "report.json").read_text())
    dom = parse_html((out / "report.html").read_text())
    assert not dom.find_all("section", id="alignment")
    assert not dom.find_all("a", href="#alignment")


@pytest.mark.parametrize(
    "args, message",
    [
        (["--alignment", "1992,strict", "{reports}"], "need responses scored with --key"),
        (["--alignment", "1992,nosuch", "--example"], "nosuch"),
        (["--alignment", ",", "--example"], "name at least one alignment criterion"),
    ],
)
def test_report_alignment_errors(args, message, example, tmp_path, capsys) -> None:
    paths = write_reports(example, tmp_path)
    expanded = [p for a in args for p in (paths if a == "{reports}" else [a])]
    assert main(["report", *expanded, "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "r").exists()


def test_report_replaces_an_earlier_report_only_with_force_and_an_input_never(tmp_path,
                                                                              capsys) -> None:
    # report --out overwrote existing files and its own inputs without a word (issue 27).
    import shutil

    from muceval.cli import main
    from muceval.reporting.demo import example_files

    example = example_files()
    out = tmp_path / "r"
    out.mkdir()
    response = out / "scores.json"  # a response file under a name the report itself writes
    shutil.copy(example.responses[0], response)
    args = ["report", "--key", example.key, "--config", example.config, str(response),
            example.responses[1], "--seed", "1", "--shuffles", "99", "--bootstrap", "0",
            "--metrics", "recall", "--out"]
    assert main([*args, str(out), "--force"]) == 2
    assert "scores.json is the input this command reads" in capsys.readouterr().err
    assert response.read_bytes() == Path(example.responses[0]).read_bytes()
    assert not (out / "report.html").exists()  # nothing written: every target checked first
    other = tmp_path / "r2"
    assert main([*args, str(other)]) == 0
    written = (other / "report.html").read_bytes()
    capsys.readouterr()
    assert main([*args, str(other)]) == 2
    assert "holds a report already" in capsys.readouterr().err
    assert (other / "report.html").read_bytes() == written
    assert main([*args, str(other), "--force"]) == 0


def test_randomization_distributions_are_those_of_the_p_values(written) -> None:
    """Chinchor's Figure 1 (issue 26): for each pair of neighbours, the histogram of the very
    shuffles behind the approximate p-value; its count beyond the line is the test's nge."""
    from muceval.reporting.html import randomization_distributions

    analysis, files = written
    sig = analysis.significance
    order = sig.ranking("f1")
    found = randomization_distributions(analysis, [(order[-1], order[0])])
    assert [(d.a, d.b) for d in found] == [*zip(order, order[1:], strict=False), (order[-1], order[0])]
    for d in found:
        c = sig.comparison(d.a, d.b, "f1")
        if c.method == "approximate":
            assert (d.nge, d.p_value) == (c.nge, c.p_value)
    page = files.html.read_text()
    assert 'id="distributions"' in page and page.count('observed"') == len(order) - 1
    assert (files.out_dir / "figures" / f"histogram-{order[0]}--{order[1]}.svg").exists()


def test_every_matrix_lists_the_systems_in_one_order(written) -> None:
    """Issue 29: each metric's matrix had its own order, so a pair's cell moved between them."""
    analysis, files = written
    page = files.html.read_text()
    orders = []
    for metric in analysis.significance.metrics:
        table = page.split(f'<table class="matrix" data-metric="{metric}">', 1)[1]
        table = table.split("</table>", 1)[0]
        orders.append([chunk.split('"', 1)[0] for chunk in table.split('<tr data-system="')[1:]])
    assert orders[0] == analysis.significance.ranking("f1") and all(o == orders[0] for o in orders)


def test_the_per_system_tables_and_the_region_follow_the_ranking(tmp_path) -> None:
    # They were in file-name order while everything else on the page is ranked.
    import re

    from muceval.pipelines.report import report_from_responses
    from muceval.reporting.demo import example_dir
    from muceval.reporting.html import write_report
    from muceval.significance.settings import SignificanceSettings

    ex = example_dir()
    analysis = report_from_responses(ex / "key.txt", [ex / f"{n}.txt" for n in (
        "gamma", "alpha", "beta")], config=ex / "config.toml",
        settings=SignificanceSettings(seed=1, shuffles=99, bootstrap=0))
    sig = analysis.significance
    ranking = sig.ranking(sig.ranking_metric)
    assert [s.name for s in analysis.ranked] == ranking != ["gamma", "alpha", "beta"]
    files = write_report(analysis, tmp_path / "r")
    page = files.html.read_text()
    blocks = re.findall(r'class="system-block" id="system-[^"]*" data-system="([^"]+)"', page)
    assert blocks == ranking
