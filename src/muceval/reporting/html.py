"""The HTML report: one self-contained page (no network), its figures and its data files.
Sections, table cells and figures carry ids, so that programs and the browser test can read
the page back.

>>> from muceval.reporting.html import format_pct
>>> format_pct(0.35678), format_pct(None)
('35.68', 'n/a')
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from muceval.core.heap import building
from muceval.core.metrics import MEASURE_NAMES, MEASURES, METRIC_IDS
from muceval.core.systems import MANNER_LABELS, Row, SystemScores
from muceval.errors import UsageError
from muceval.formats.files import write_files
from muceval.reporting.analysis import Analysis
from muceval.reporting.names import display_names
from muceval.reporting.options import ReportOptions
from muceval.reporting.outputs import csv_text
from muceval.reporting.plots import (
    METRIC_TITLES,
    groups_plot,
    histogram_plot,
    matrix_plot,
    region_plot,
    slug,
    to_png,
    to_svg,
)
from muceval.reporting.sections import (
    ANCHORS,
    Page,
    ReportSection,
    environment,
    figure_view,
    format_p,
    format_pct,
)
from muceval.significance.classic import CLASSIC_TESTS, PAIRED_TESTS, TEST_FIELDS
from muceval.significance.distribution import Distribution
from muceval.significance.result import SignificanceResult

if TYPE_CHECKING:
    from muceval.reporting.modern_report import ModernAnalysis

__all__ = ["ReportFiles", "format_p", "format_pct", "render_html", "write_report"]

_COUNT_COLUMNS = ("pos", "act", "cor", "par", "inc", "spu", "mis", "non")


@dataclass(frozen=True)
class ReportFiles:
    out_dir: Path
    html: Path
    json: Path
    figures: tuple[Path, ...]
    data: tuple[Path, ...]


def _regions(systems: Sequence[SystemScores],
             ) -> list[tuple[str, dict[str, tuple[float | None, float | None]]]]:
    out = []
    for s in systems:
        points = {manner: (row.recall, row.precision) for manner in MANNER_LABELS
                  if (row := s.manner(manner)) is not None}
        if not points:
            points["all-templates"] = (s.all_templates.recall, s.all_templates.precision)
        out.append((s.name, points))
    return out


def randomization_distributions(analysis: Analysis, asked: Sequence[tuple[str, str]] = (),
                                ) -> list[Distribution]:
    """The shuffled differences of neighbours in the ranking, and of the pairs ``asked``."""
    from muceval.significance.distribution import shuffled_differences

    order = analysis.significance.ranking(analysis.ranking_metric)
    metric = analysis.ranking_metric
    pairs = list(dict.fromkeys([*zip(order, order[1:], strict=False), *map(tuple, asked)]))
    return [shuffled_differences(analysis.tallies, a, b, metric, analysis.settings)
            for a, b in pairs]


def write_folder(out: Path, figures: Mapping[str, Any], data: Mapping[str, str],
                 page: Callable[[Mapping[str, str]], str], *, png: bool, overwrite: bool,
                 keep: Mapping[Any, str] | None) -> ReportFiles:
    """Write the figures, the data files and, last, ``report.html`` (``page`` of the SVGs)."""
    svgs: dict[str, str] = {}
    files: dict[Path, str | bytes] = {}
    for fig_id, fig in figures.items():
        svgs[fig_id] = to_svg(fig)
        files[out / "figures" / f"{fig_id}.svg"] = svgs[fig_id]
        if png:
            files[out / "figures" / f"{fig_id}.png"] = to_png(fig)
    figure_paths = tuple(files)
    data_paths = tuple(out / name for name in data)
    files.update(zip(data_paths, data.values(), strict=True))
    html_path = out / "report.html"
    files[html_path] = page(svgs)
    write_files(files, overwrite=overwrite, keep=keep, folder=out, last=html_path)
    return ReportFiles(out, html_path, out / "report.json", figure_paths, data_paths)


def build_figures(analysis: Analysis,
                  distributions: Sequence[Distribution] = ()) -> dict[str, Any]:
    """Every figure of the report, keyed by figure id.

    >>> import muceval
    >>> from importlib.resources import files
    >>> example = files("muceval") / "data" / "example"
    >>> config = muceval.load_configuration(example / "config.toml")
    >>> from muceval.reporting.analysis import systems_from_pairs
    >>> session = muceval.score_files(config, example / "key.txt",
    ...                               [example / "alpha.txt", example / "gamma.txt"])
    >>> systems, tallies = systems_from_pairs(session.systems, config)
    >>> a = muceval.analyze(systems, tallies, metrics="f1", settings=muceval.SignificanceSettings(
    ...     method="exact", bootstrap=0))
    >>> sorted(build_figures(a))
    ['groups-f1', 'matrix-f1', 'region']
    """
    shown = display_names(s.name for s in analysis.systems)
    figures: dict[str, Any] = {"region": region_plot(_regions(analysis.ranked))}
    for metric in analysis.significance.metrics:
        figures[f"matrix-{metric}"] = matrix_plot(analysis.significance, metric)
        figures[f"groups-{metric}"] = groups_plot(analysis.significance, metric)
    for d in distributions:
        figures[_histogram_id(d)] = histogram_plot(d, METRIC_TITLES.get(d.metric, d.metric),
                                                   shown)
    for section in analysis.sections:
        figures.update(section.figures())
    return figures


# Python computes what the page shows, the templates hold the markup, and autoescaping
# escapes every name.
_SUMMARY_COLUMNS = tuple((m.id, m.label[:1].upper() + m.label[1:]) for m in MEASURES)
_TITLES = {"summary": "Summary", "region": "Region of performance",
           "matrices": "Significance matrices", "groupings": "Significance groupings",
           "distributions": "Randomization distributions",
           "slot-comparison": "Per-slot comparison", "classic-tests": "Classic tests",
           "systems": "Per-system tables", "settings": "Settings"}


def _contents(sections: Sequence[ReportSection], shown: Mapping[str, bool],
              ) -> list[tuple[str, str]]:
    out = []
    for anchor in ANCHORS:
        if shown.get(anchor, True):
            out.append((anchor, _TITLES[anchor]))
        out += [(s.id, s.title) for s in sections if s.after == anchor]
    return out


def _placed(sections: Sequence[ReportSection], page: Page) -> dict[str, list[Markup]]:
    placed: dict[str, list[Markup]] = {anchor: [] for anchor in ANCHORS}
    for section in sections:
        placed[section.after].append(section.html(page))
    return placed


def _metric_cell(value: float | None, ci: tuple[float, float] | None, system: str,
                 metric: str) -> dict[str, Any]:
    return {"system": system, "metric": metric, "text": format_pct(value),
            "sort": None if value is None else repr(value),
            "ci": None if ci is None else f"{format_pct(ci[0])}–{format_pct(ci[1])}"}


def _summary_view(analysis: Analysis) -> dict[str, Any]:
    sig = analysis.significance
    ci_all = sig.system_ci or {}
    ranking_metric = sig.ranking_metric
    rows = []
    for rank, name in enumerate(sig.ranking(ranking_metric), start=1):
        s = analysis.system(name)
        row = s.all_templates
        cells = [_metric_cell(row.value(m), ci_all.get(name, {}).get(m), name, m)
                 for m, _ in _SUMMARY_COLUMNS]
        cells.append(_metric_cell(row.overgeneration, None, name, "overgeneration"))
        cells.append(_metric_cell(s.fallout, None, name, "fallout"))
        f92 = s.f_1992[0] if s.f_1992 is not None else None
        rows.append({"rank": rank, "name": name, "cells": cells,
                     "f1992": "n/a" if f92 is None else f"{f92:.2f}",
                     "f1992_sort": f92 if f92 is not None else -1,
                     "letters": sig.letters.get(ranking_metric, {}).get(name, "")})
    level = sig.settings.get("ci_level", 0.95)
    ci_note = (f"Small grey numbers are {100 * level:g}% paired-bootstrap confidence intervals "
               f"({sig.settings.get('bootstrap')} resamples of the messages)." if sig.system_ci
               else "No bootstrap intervals were computed.")
    return {"columns": _SUMMARY_COLUMNS, "rows": rows, "ci_note": ci_note,
            "ranking_label": METRIC_TITLES.get(ranking_metric, ranking_metric)}


def matrix_rows(sig: SignificanceResult, metric: str) -> list[dict[str, Any]]:
    order = sig.matrix_order
    rows = []
    for a in order:
        cells: list[dict[str, Any] | None] = []
        for b in order:
            if a == b:
                cells.append(None)
                continue
            c = sig.comparison(a, b, metric)
            classes = ["sig"] if c.significant else []
            if c.method == "approximate" and c.confidence < sig.settings["confidence"]:
                classes.append("weak")
            conf = f"{c.confidence:.3f}" if c.method == "approximate" else "exact"
            cells.append({
                "a": a, "b": b, "p": repr(c.p_adjusted), "confidence": repr(c.confidence),
                "significant": str(c.significant).lower(), "classes": " ".join(classes),
                "title": f"{a} vs {b}: difference "
                         f"{100 * (sig.scores[a][metric] - sig.scores[b][metric]):+.2f}, "
                         f"p = {c.p_adjusted:.6g} ({c.method}), confidence {conf}",
                "text": format_p(c.p_adjusted) + ("*" if c.significant else ""),
                # A confidence of 1.000 is every approximate cell of a clear leaderboard:
                # shown, it is noise; the title keeps it.
                "note": ("exact" if c.method != "approximate" else
                         "" if c.confidence >= 0.9995 else f"c {conf}"),
            })  # fmt: skip
        rows.append({"name": a, "score": format_pct(sig.scores[a][metric]), "cells": cells})
    return rows


def matrices_view(sig: SignificanceResult, svgs: Mapping[str, str], prefix: str = "",
                  titles: Mapping[str, str] = METRIC_TITLES) -> dict[str, Any]:
    s = sig.settings
    blocks = [{"metric": m, "label": titles.get(m, m), "order": sig.matrix_order,
               "figure": figure_view(f"{prefix}matrix-{m}", svgs,
                                     f"Pairwise p-values for {titles.get(m, m)}."),
               "rows": matrix_rows(sig, m)} for m in sig.metrics]
    method = (f"approximate randomization with {s['shuffles']:,} shuffles"
              if s["method"] == "approximate" else f"{s['method']} randomization")
    return {"method": method, "alternative": s["alternative"], "alpha": f"{s['alpha']:g}",
            "confidence": f"{s['confidence']:g}", "blocks": blocks}


def groupings_view(sig: SignificanceResult, svgs: Mapping[str, str], prefix: str = "",
                   titles: Mapping[str, str] = METRIC_TITLES) -> list[dict[str, Any]]:
    return [{"metric": m, "label": titles.get(m, m), "groups": (sig.letter_groups or sig.groups)[m],
             "figure": figure_view(f"{prefix}groups-{m}", svgs,
                               f"Significance groups for {titles.get(m, m)}.")}
            for m in sig.metrics]


def _slots_view(analysis: Analysis) -> dict[str, Any] | None:
    sig = analysis.significance
    order = sig.ranking(sig.ranking_metric)
    names = list(dict.fromkeys(row.name for s in analysis.systems
                               for row in (*s.slots, *s.objects)
                               if row.kind in ("slot", "subtotal")))
    if not names:
        return None
    lookup = {s.name: {r.name: r for r in (*s.slots, *s.objects)} for s in analysis.systems}
    rows = []
    for slot in names:
        cells = []
        for name in order:
            found = lookup[name].get(slot)
            if found is None:
                cells.append({"system": name, "missing": True})
                continue
            f = found.f_pr
            cells.append({"system": name, "missing": False,
                          "shade": None if f is None else f"{0.08 + 0.5 * f:.2f}",
                          "recall": format_pct(found.recall, 1),
                          "precision": format_pct(found.precision, 1)})
        subtotal = any(getattr(lookup[n].get(slot), "kind", "") == "subtotal" for n in order)
        rows.append({"slot": slot, "kind": "subtotal" if subtotal else "slot", "cells": cells})
    return {"order": order, "rows": rows}


def classic_view(sig: SignificanceResult) -> list[dict[str, Any]]:
    out = []
    for metric in sig.metrics:
        rows = []
        for c in sig.comparisons:
            if c.metric != metric or c.classic is None:
                continue
            tests = [(t, getattr(c.classic, TEST_FIELDS[t])) for t in CLASSIC_TESTS]
            factor = c.classic.yeh_factor
            rows.append({
                "a": c.a, "b": c.b, "difference": f"{100 * c.difference:+.2f}",
                "p": format_p(c.p_adjusted), "significant": c.significant,
                "tests": [{"test": t, "text": "n/a" if v is None else format_p(v),
                           "value": "" if v is None else repr(v),
                           "independent": t not in PAIRED_TESTS} for t, v in tests],
                "r": "n/a" if c.classic.correlation is None else f"{c.classic.correlation:.2f}",
                "factor": "n/a" if factor is None else f"{factor:.2f}"})
        if rows:
            first = next(c.classic for c in sig.comparisons
                         if c.metric == metric and c.classic is not None)
            note = (f"n/a where {first.reason}." if first.reason else
                    "" if first.of == "the metric" else
                    f"The tests of per-unit values test {first.of}, not the metric.")
            out.append({"metric": metric, "label": METRIC_TITLES.get(metric, metric),
                        "rows": rows, "tests": list(CLASSIC_TESTS), "note": note,
                        "independent": [t not in PAIRED_TESTS for t in CLASSIC_TESTS]})
    return out


def _tally_view(rows: Sequence[Row], system: str, kind: str) -> dict[str, Any]:
    return {"system": system, "kind": kind, "columns": [c.upper() for c in _COUNT_COLUMNS],
            "rows": [{"name": r.name, "kind": r.kind,
                      "counts": [getattr(r.tally, c) for c in _COUNT_COLUMNS],
                      "measures": [(m, format_pct(r.value(m))) for m in (
                          "recall", "precision", "overgeneration", "fallout", "f1")]}
                     for r in rows]}  # fmt: skip


def _settings_view(analysis: Analysis) -> list[tuple[str, str]]:
    s = analysis.recorded()
    labels = {"systems": "systems",
              "units": f"units ({s['unit']}s)" if s.get("unit") else "units",
              "method": "method", "shuffles": "shuffles", "seed": "seed",
              "alternative": "alternative", "alpha": "significance cutoff (alpha)",
              "confidence": "confidence level", "adjust": "multiple-comparison adjustment",
              "bootstrap": "bootstrap resamples", "ci_level": "interval level"}
    items = [(label, str(s.get(key))) for key, label in labels.items()]
    items.append(("metrics", ", ".join(s.get("metrics", []))))
    for key, value in (s.get("inputs") or {}).items():
        items.append((key, ", ".join(map(_setting_text, value)) if isinstance(value, list | tuple)
                      else _setting_text(value)))
    for package, version in (s.get("versions") or {}).items():
        items.append((f"version of {package}", version))
    return items


def _setting_text(value: object) -> str:
    """A recorded input as a reader needs it: yes/no, and a file by its absolute path (the page
    is read elsewhere than where the command ran)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    text = str(value)
    return os.path.abspath(text) if os.path.isfile(text) else text


def _histogram_id(d: Distribution) -> str:
    return f"histogram-{slug(d.a)}--{slug(d.b)}"


def _distributions_view(distributions: Sequence[Distribution], svgs: Mapping[str, str],
                        names: Mapping[str, str]) -> list[dict[str, Any]]:
    return [{"a": d.a, "b": d.b, "metric": d.metric, "p": format_p(d.p_value),
             "figure": figure_view(_histogram_id(d), svgs,
                               f"{names.get(d.a, d.a)} − {names.get(d.b, d.b)}, "
                               f"{METRIC_TITLES.get(d.metric, d.metric)}: "
                               f"{d.nge:,} of {d.shuffles:,} shuffles at least as far out "
                               f"as the observed difference.")}
            for d in distributions]


def render_html(analysis: Analysis, svgs: Mapping[str, str], title: str | None = None,
                png: bool = True, distributions: Sequence[Distribution] = ()) -> str:
    """The whole page as a string, from the analysis and the SVG text of every figure.

    >>> import muceval
    >>> from importlib.resources import files
    >>> example = files("muceval") / "data" / "example"
    >>> config = muceval.load_configuration(example / "config.toml")
    >>> from muceval.reporting.analysis import systems_from_pairs
    >>> from muceval.reporting.plots import to_svg
    >>> session = muceval.score_files(config, example / "key.txt",
    ...                               [example / "alpha.txt", example / "gamma.txt"])
    >>> systems, tallies = systems_from_pairs(session.systems, config)
    >>> a = muceval.analyze(systems, tallies, metrics="f1", settings=muceval.SignificanceSettings(
    ...     method="exact", bootstrap=0))
    >>> svgs = {name: to_svg(figure) for name, figure in build_figures(a).items()}
    >>> render_html(a, svgs, png=False).startswith("<!DOCTYPE html>")
    True
    """
    sig = analysis.significance
    classic = classic_view(sig)
    names = display_names(s.name for s in analysis.systems)
    return environment().get_template("report.html.j2").render(
        title=title or f"muceval report: {len(analysis.systems)} systems", png=png,
        names=names, version=dict(analysis.provenance.versions).get("muceval", ""),
        systems_count=len(analysis.systems), units=sig.settings["units"],
        method=sig.settings["method"], seed=sig.settings["seed"],
        toc=_contents(analysis.sections, {"classic-tests": bool(classic),
                                          "distributions": bool(distributions)}),
        placed=_placed(analysis.sections, Page(svgs, names, png)),
        summary=_summary_view(analysis),
        region=figure_view("region", svgs, "Region of performance of every system."),
        matrices=matrices_view(sig, svgs), groupings=groupings_view(sig, svgs),
        slots=_slots_view(analysis),
        classic=classic,
        distributions=_distributions_view(distributions, svgs, names),
        systems=[{"name": s.name, "slug": slug(s.name), "origin": s.origin, "source": s.source,
                  "slots": _tally_view(s.slots, s.name, "slots"),
                  "objects": _tally_view(s.objects, s.name, "objects")}
                 for s in analysis.ranked],
        settings=_settings_view(analysis),
    ) + "\n"


def _summary_csv(analysis: Analysis) -> str:
    ci = analysis.significance.system_ci or {}
    metrics = list(METRIC_IDS)
    header = ["system", "origin", "pos", "act", "cor", "par", *metrics, "overgeneration",
              "fallout", "f1_1992"]  # fmt: skip
    header += [f"{m}_ci_{end}" for m in metrics for end in ("low", "high")]
    rows: list[list[Any]] = [header]
    for s in analysis.systems:
        r = s.all_templates
        row: list[Any] = [s.name, s.origin, r.tally.pos, r.tally.act, r.tally.cor, r.tally.par]
        row += [r.value(m) for m in metrics]
        row += [r.overgeneration, s.fallout, s.f_1992[0] if s.f_1992 else None]
        for m in metrics:
            pair = ci.get(s.name, {}).get(m)
            row += list(pair) if pair else [None, None]
        rows.append(["" if v is None else v for v in row])
    return csv_text(rows)


def _slots_rows(analysis: Analysis) -> Iterator[list[Any]]:
    yield ["system", "table", "row", "kind", *_COUNT_COLUMNS, *MEASURE_NAMES]
    for s in analysis.systems:
        for table, rows in (("slots", s.slots), ("objects", s.objects)):
            for r in rows:
                values = [r.value(m) for m in MEASURE_NAMES]
                yield [s.name, table, r.name, r.kind,
                       *(getattr(r.tally, c) for c in _COUNT_COLUMNS),
                       *("" if v is None else v for v in values)]


@building()
def write_report(
    analysis: Analysis | ModernAnalysis,
    out_dir: str | Path,
    options: ReportOptions | None = None,
    *,
    extra_files: Mapping[str, str] | None = None,
    keep: Mapping[Any, str] | None = None,
) -> ReportFiles:
    """Write the HTML report of an analysis, its figures and its data to a folder.

    ``report.html`` beside ``figures/`` (SVG, and PNG when asked), ``report.json``
    (everything the page shows), ``significance.json`` and ``.csv`` (every comparison),
    ``summary.csv`` and ``slots.csv``, each written atomically.

    Parameters
    ----------
    analysis : Analysis or ModernAnalysis
        What to report (:func:`~muceval.pipelines.report.build_report`, or :func:`analyze`).
    options : ReportOptions or None, default None
        None: the defaults. Asking for a section the analysis does not hold is refused.
    extra_files : mapping of str to str or None, default None
        Further files to write into the folder, name to text.
    keep : mapping of path to str, or None
        Files never to replace (the inputs of the report), each with what it is.

    Returns
    -------
    muceval.reporting.html.ReportFiles
        The paths written.

    Raises
    ------
    UsageError
        If the folder cannot be created, or ``options`` ask for a section the analysis does
        not hold.
    OutputError
        If a file cannot be written, or exists (and ``overwrite`` is False), or is in ``keep``.

    Examples
    --------
    >>> import muceval, tempfile
    >>> from importlib.resources import files
    >>> from muceval.reporting.analysis import systems_from_pairs
    >>> example = files("muceval") / "data" / "example"
    >>> config = muceval.load_configuration(example / "config.toml")
    >>> session = muceval.score_files(config, example / "key.txt",
    ...                               [example / "alpha.txt", example / "gamma.txt"],
    ...                               history_path=example / "history.lisp")
    >>> systems, tallies = systems_from_pairs(session.systems, config)
    >>> settings = muceval.SignificanceSettings(method="exact", bootstrap=0)
    >>> analysis = muceval.analyze(systems, tallies, metrics="f1", settings=settings)
    >>> from muceval.reporting.options import ReportOptions
    >>> written = muceval.write_report(analysis, tempfile.mkdtemp(),
    ...                                ReportOptions(title="alpha and gamma"))
    >>> written.html.name, sorted(path.name for path in written.figures)
    ('report.html', ['groups-f1.svg', 'histogram-alpha--gamma.svg', 'matrix-f1.svg', 'region.svg'])
    >>> "alpha and gamma" in written.html.read_text()
    True
    """
    options = options or ReportOptions()
    if not isinstance(analysis, Analysis):
        from muceval.reporting.modern_report import write_modern_report

        if options.alignment is not None or options.histograms:
            raise UsageError("a report of modern predictions has no Alignment section and no "
                             "histograms", parameter="options")
        if options.errors and analysis.errors is None:
            raise UsageError("the analysis has no Errors section", parameter="errors")
        return write_modern_report(analysis, out_dir, title=options.title, png=options.png,
                                   overwrite=options.overwrite, keep=keep)
    for asked, held, name in ((options.errors, analysis.errors, "errors"),
                              (options.alignment is not None, analysis.alignment, "alignment")):
        if asked and held is None:
            raise UsageError(f"the analysis has no {name.title()} section: build it with "
                             f"build_report(..., options=ReportOptions({name}=...)); "
                             "write_report writes what the analysis holds", parameter=name)
    distributions = randomization_distributions(analysis, options.histograms)
    data: dict[str, str] = {
        "report.json": analysis.to_json(),
        "significance.json": analysis.significance.to_json() + "\n",
        "significance.csv": analysis.significance.to_csv(),
        "summary.csv": _summary_csv(analysis),
        "slots.csv": csv_text(_slots_rows(analysis)),
        **analysis.data_files(),
        **(extra_files or {}),
    }
    return write_folder(
        Path(out_dir), build_figures(analysis, distributions), data,
        lambda svgs: render_html(analysis, svgs, options.title, options.png, distributions),
        png=options.png, overwrite=options.overwrite, keep=keep)
