"""What a terminal shows of a significance analysis, as rich tables."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from muceval.core.measures import F_MEASURES
from muceval.errors import UsageError
from muceval.reporting.names import display_names, short_names
from muceval.reporting.outputs import new_table
from muceval.significance.baseline import BaselineResult
from muceval.significance.classic import CLASSIC, CLASSIC_TESTS, PAIRED_TESTS, TEST_FIELDS
from muceval.significance.result import SignificanceResult, metric_label

if TYPE_CHECKING:
    from rich.table import Table

    from muceval.core.metrics import FloatScores
    from muceval.core.model import Configuration
    from muceval.core.tallies import PairScore

__all__ = ["render_baseline", "render_classic_tests", "render_error_changes", "render_error_pairs",
           "render_significance", "scores_table",
           "summary_table"]


def render_significance(result: SignificanceResult, console: Any,
                        matrix: bool | None = None) -> None:
    """A ranked table, then the p-value matrices when they fit (``matrix`` None) or when asked;
    no number is elided."""
    settings = result.settings
    console.print(
        f"[bold]{len(result.systems)} systems, {settings['units']} "
        f"{settings['unit'] + ' ' if settings.get('unit') else ''}units[/bold] — "
        f"method {settings['method']}, {settings['alternative']}, α = {settings['alpha']}, "
        f"confidence {settings['confidence']}, seed {settings['seed']}"
    )
    primary = result.ranking_metric
    order = result.ranking(primary)
    short = short_names(order)
    width = console.width or 80
    if _ranked_width(short, result.metrics) <= width:
        console.print(_ranked_table(result, order, short, result.metrics, primary))
    else:
        # One table per metric, each ranked by its own metric (so that "Δ next" is never
        # negative and the letters read top to bottom).
        for metric in result.metrics:
            console.print(_ranked_table(result, result.ranking(metric), short, (metric,),
                                        metric))
    p_kind = "p" if settings.get("adjust", "none") == "none" else "adjusted p"
    console.print("Systems sharing a letter are not significantly different, systems with "
                  "no letter in common are" + (
                      f"; * = significant ({p_kind} ≤ α and, for an approximate test, "
                      f"confidence ≥ {settings['confidence']}: the probability, under a "
                      "uniform prior on the exact p, that the exact test decides the same); "
                      f"? = {p_kind} ≤ α without that confidence (more --shuffles decide it). "
                      "A pair's test exchanges the units where its two systems differ: their "
                      "number is each comparison's 'units' in JSON and CSV."
                      if result.comparisons else "."))
    if result.letters_from_runs:
        console.print(f"({', '.join(result.letters_from_runs)}: too many overlapping sets of "
                      "non-different systems for letters; these are the MUC-4 groupings, runs "
                      "of neighbours, where no shared letter need not mean a difference.)")
    if result.comparisons:
        show = matrix if matrix is not None else _matrix_width(short) <= width
        if show:
            for metric in result.metrics:
                console.print(_matrix(result, order, short, metric))
        elif matrix is None and len(order) > 2:
            console.print("(the p-value matrices are wider than the terminal: --matrix prints "
                          "them, --format csv lists every pair)")
    print_signature(settings, console)


def _cell(result: SignificanceResult, a: str, b: str, metric: str) -> str:
    """A p-value, ``*`` when significant, ``?`` when p ≤ α without the confidence."""
    c = result.comparison(a, b, metric)
    p = c.p_adjusted
    text = f"{p:.3f}" if p >= 0.001 else "<0.001"
    if c.significant:
        return f"{text}*"
    return f"{text}?" if p <= result.settings["alpha"] else text


def _ranked_table(result: SignificanceResult, order: list[str], short: dict[str, str],
                  metrics: Sequence[str], primary: str) -> Any:
    label = result.label(primary)
    pairs = bool(result.comparisons)
    heads = [result.label(metric) for metric in metrics]
    if pairs:
        heads += [f"Δ next ({label})" if len(metrics) > 1 else "Δ next", "p next"]
    table = new_table("scores (%) and groups" if len(metrics) > 1 else label, ("system",),
                      heads, no_wrap=True, title_justify="left", show_edge=False,
                      pad_edge=False)
    for i, name in enumerate(order):
        cells = [f"{100 * result.scores[name][m]:.2f} {result.letters[m][name]}" for m in metrics]
        if pairs and i + 1 < len(order):
            below = order[i + 1]
            diff = result.scores[name][primary] - result.scores[below][primary]
            cells += [f"{100 * diff:+.2f}", _cell(result, name, below, primary)]
        elif pairs:
            cells += ["", ""]
        table.add_row(short[name], *cells)
    return table


def _matrix(result: SignificanceResult, order: list[str], short: dict[str, str],
            metric: str) -> Any:
    adjusted = result.settings.get("adjust", "none") != "none"
    kind = f"{result.settings['adjust']}-adjusted p-values" if adjusted else "p-values"
    table = new_table(f"{result.label(metric)}: {kind} (* = significant)", ("system",),
                      [short[name] for name in order], no_wrap=True, title_justify="left",
                      show_edge=False, pad_edge=False)
    for row in order:
        table.add_row(short[row], *("—" if col == row else _cell(result, row, col, metric)
                                    for col in order))
    return table


def render_classic_tests(result: SignificanceResult, console: Any,
                         tests: Sequence[str] = PAIRED_TESTS,
                         metrics: Sequence[str] | None = None) -> None:
    """Per pair, the randomization p beside the chosen classic tests, r and Yeh's factor."""
    unknown = [t for t in tests if t not in CLASSIC_TESTS]
    if unknown:
        raise UsageError(f"unknown test(s) {', '.join(unknown)}", parameter="tests")
    short = short_names(result.systems)
    heads = {t.id: t.head for t in CLASSIC}

    def p_text(value: float | None) -> str:
        return "n/a" if value is None else "<.001" if value < 0.001 else f"{value:.3f}"

    for metric in metrics or result.metrics:
        rows = [c for c in result.comparisons if c.metric == metric]
        if not rows or all(c.classic is None for c in rows):
            continue
        of = next((c.classic.of for c in rows if c.classic is not None), "the metric")
        table = new_table(f"{result.label(metric)}: classic tests beside randomization "
                          "(p-values; r: correlation of the systems' per-unit values)"
                          + ("" if of == "the metric" else f"; the tests of per-unit values "
                             f"test {of}, not {result.label(metric)}"),
                          ("a", "b"), ("Δ %", "rand.", *(heads[t] for t in tests), "r",
                                       "Yeh ×"),
                          no_wrap=True, title_justify="left", show_edge=False, pad_edge=False)
        for c in rows:
            classic = c.classic
            values = [getattr(classic, TEST_FIELDS[t]) if classic else None for t in tests]
            r = classic.correlation if classic else None
            factor = classic.yeh_factor if classic else None
            table.add_row(short[c.a], short[c.b], f"{100 * c.difference:+.2f}",
                          p_text(c.p_adjusted), *(p_text(v) for v in values),
                          "n/a" if r is None else f"{r:.2f}",
                          "n/a" if factor is None else f"{factor:.2f}")
        # Every number in full, even when the terminal is narrow: wider rather than cut.
        width = console.width
        console.width = max(width or 80, 44 + 10 * (len(tests) + 4))
        try:
            console.print(table)
        finally:
            console.width = width
        reason = next((c.classic.reason for c in rows if c.classic and c.classic.reason), None)
        if reason:
            console.print(f"{result.label(metric)}: n/a where {reason} (--unit-means).")
    _classic_notes(result, console, tests)


def _classic_notes(result: SignificanceResult, console: Any, tests: Sequence[str]) -> None:
    independent = [t for t in tests if t not in PAIRED_TESTS]
    console.print(
        "Paired tests (paired-t, sign, wilcoxon) and randomization compare the systems unit "
        "by unit. " + (f"{', '.join(independent)} assume(s) the systems independent; "
                       if independent else "Two-sample t, binomial and χ² assume the "
                       "systems independent; ") +
        "systems on one test set are positively correlated (r), so those tests understate "
        "significance by about √(1/(1−r)), the column Yeh × (Yeh 2000).")
    if "recall" in result.metrics:
        disagree = result.classic_disagreements("recall")
        console.print(f"Recall: randomization and the sign test agree on every pair at "
                      f"α = {result.settings['alpha']}." if not disagree else
                      f"Recall: randomization and the sign test disagree on {len(disagree)} "
                      "pair(s): " + ", ".join(f"{c.a}/{c.b}" for c in disagree))


def render_baseline(result: BaselineResult, console: Any) -> None:
    """A compact table per candidate (scores and differences in points)."""
    from rich import box
    from rich.table import Table

    level = f"{result.settings['ci_level'] * 100:.0f}%"
    shown = display_names([result.baseline, *result.candidates])  # as significance shows them
    for candidate in result.candidates:
        rows = [c for c in result.comparisons if c.candidate == candidate]
        table = Table(title=f"{shown[candidate]} (candidate) against {shown[result.baseline]} "
                      "(baseline), %",
                      title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
        for column in ("metric", "base", "cand", "diff", f"{level} CI of diff", "p",
                       "verdict"):
            numeric = column not in ("metric", "verdict")
            table.add_column(column, justify="right" if numeric else "left", no_wrap=True)
        for c in rows:
            interval = f"{100 * c.ci[0]:+.2f} {100 * c.ci[1]:+.2f}" if c.ci else "-"
            table.add_row(metric_label(c.metric, result.settings), f"{100 * c.baseline:.2f}",
                          f"{100 * c.candidate_score:.2f}",
                          f"{100 * c.difference:+.2f}", interval, _p_text(c.p_value),
                          c.verdict)
        console.print(table)
        checks = _yeh_checks(rows)
        if checks:
            console.print(checks)
    methods = sorted({c.method for c in result.comparisons})
    settings = result.settings
    if settings.get("unit") == "response":
        over = ("randomization over the responses only one system produced (Yeh 2000; "
                f"{', '.join(f'{n:,} for {name}' for name, n in settings['responses'].items())}; ")
    else:
        over = f"paired randomization over {settings['units']} units ("
    console.print(f"{over}{', '.join(methods)}); significant: p ≤ {settings['alpha']}; "
                  f"seed {settings['seed']}")
    print_signature(settings, console)


def print_signature(settings: Mapping[str, Any], console: Any) -> None:
    """The one line that says how a result was made (the JSON's ``signature``)."""
    from muceval.core.signature import signature

    console.print(f"signature: {signature(settings)}", highlight=False, soft_wrap=True)


def _yeh_checks(rows: Sequence[Any]) -> str:
    parts = [f"{metric_label(c.metric, {})} p {_p_text(c.p_value)} against the "
             f"sign test {_p_text(c.checks['sign_test_p'])}"
             for c in rows if c.checks and "sign_test_p" in c.checks]
    again = [f"{metric_label(c.metric, {})} {_p_text(c.checks['second_seed_p'])}"
             for c in rows if c.checks and "second_seed_p" in c.checks]
    if again:
        parts.append("another seed: " + ", ".join(again))
    return "Yeh's checks: " + "; ".join(parts) if parts else ""


def _p_text(p: float) -> str:
    return f"{p:.4f}" if p >= 0.0001 else f"{p:.1e}"


def _ranked_width(short: dict[str, str], metrics: Sequence[str]) -> int:
    name = max((len(s) for s in short.values()), default=6)
    return name + 3 + len(metrics) * 14 + 2 * 10 + 12


def _matrix_width(short: dict[str, str]) -> int:
    name = max((len(s) for s in short.values()), default=6)
    return name + 3 + len(short) * (max(8, name) + 3)


def _pc(value: float | None) -> str:
    return "*" if value is None else f"{100 * value:.2f}"


def scores_table(title: str, systems: Mapping[str, FloatScores],
                 regions: Mapping[str, Sequence[FloatScores]] | None = None) -> Table:
    """A rich table of systems, best first; ``regions`` adds the range of the four manners."""
    caption = ("region REC x PRE: the lowest and highest recall and precision over the four "
               "ways of counting unmapped templates (matched only, matched/missing, "
               "matched/spurious, all templates)") if regions else None
    columns = ["REC", "PRE", "OVG", *(m.label for m in F_MEASURES)]
    if regions:
        columns.append("region REC x PRE")
    table = new_table(title, ("system",), columns, caption=caption, caption_justify="left")
    shown = display_names(systems)
    for name, a in sorted(systems.items(), key=lambda item: -(item[1].f_pr or 0.0)):
        row = [shown[name], _pc(a.recall), _pc(a.precision), _pc(a.overgeneration),
               *(_pc(v) for v in a.f)]
        if regions:
            row.append(_region(regions[name]))
        table.add_row(*row)
    return table


def _region(points: Iterable[FloatScores]) -> str:
    def span(values: Iterable[float | None]) -> str:
        percents = [round(100 * v) for v in values if v is not None]
        return f"{min(percents)}-{max(percents)}" if percents else "*"

    return f"{span(p.recall for p in points)} x {span(p.precision for p in points)}"


def summary_table(results: Mapping[str, Sequence[PairScore]], config: Configuration) -> Any:
    """The ALL TEMPLATES row of each system, with its region of performance (a rich table)."""
    from muceval.core.metrics import float_scores
    from muceval.core.tallies import summarize

    summaries = {name: summarize(pairs, config).accumulators for name, pairs in results.items()}
    return scores_table(
        "ALL TEMPLATES (%)",
        {name: float_scores(acc.all_templates.total) for name, acc in summaries.items()},
        {name: [float_scores(getattr(acc, m).total) for m in
                ("matched_only", "matched_missing", "matched_spurious", "all_templates")]
         for name, acc in summaries.items()},
    )


def render_error_changes(changes: Sequence[Any], console: Any, alpha: float,
                         seed: int | None, adjust: str = "none") -> None:
    """Per pair (candidate against baseline), the error categories' counts and p-values."""
    for baseline, candidate in dict.fromkeys((c.baseline, c.candidate) for c in changes):
        table = new_table(f"{candidate} against {baseline} (baseline): error counts",
                          ("category",), ("base", "cand", "Δ", "p", "documents"),
                          overflow="fold", title_justify="left")
        for c in changes:
            if (c.baseline, c.candidate) == (baseline, candidate):
                table.add_row(c.category, str(c.baseline_count), str(c.candidate_count),
                              f"{c.difference:+d}", _p_cell(c, alpha, adjust),
                              str(c.documents))
        console.print(table)
    console.print(_error_legend(alpha, seed, adjust))


def _p_cell(change: Any, alpha: float, adjust: str) -> str:
    mark = "*" if change.adjusted_p_value <= alpha else ""
    if adjust == "none":
        return f"{change.p_value:.4f}{mark}"
    return f"{change.p_value:.4f} ({change.adjusted_p_value:.4f}){mark}"


def _error_legend(alpha: float, seed: int | None, adjust: str) -> str:
    adjusted = "" if adjust == "none" else f" after {adjust} adjustment (in parentheses)"
    return (f"error counts: paired randomization over documents; * = p ≤ {alpha}{adjusted} "
            f"(seed {seed})")


def render_error_pairs(changes: Sequence[Any], console: Any, alpha: float,
                       seed: int | None, adjust: str = "none") -> None:
    """Only the significant changes of every pair (all of them would run to thousands of
    lines: JSON and CSV hold them)."""
    from rich.table import Table

    shown = sorted((c for c in changes if c.significant(alpha)),
                   key=lambda c: (c.category, c.adjusted_p_value))
    pairs = len({(c.baseline, c.candidate) for c in changes})
    table = Table(title=f"error counts that differ at p ≤ {alpha}: {len(shown)} of "
                  f"{len(changes)} tests ({pairs} pairs)", title_justify="left")
    # The terminal's one rule (display names), cut only to what the width leaves two columns
    # of names beside the category, counts and p (about 70 characters).
    short = short_names(list(dict.fromkeys(n for c in changes for n in (c.baseline,
                                                                       c.candidate))),
                        limit=max(12, (console.width - 70) // 2))
    for column in ("category", "system", "count", "other", "count ", "Δ", "p"):
        table.add_column(column, justify="left" if column in ("category", "system", "other")
                         else "right", overflow="fold")
    for c in shown:
        table.add_row(c.category, short[c.baseline], str(c.baseline_count), short[c.candidate],
                      str(c.candidate_count), f"{c.difference:+d}", _p_cell(c, alpha, adjust))
    console.print(table)
    console.print(_error_legend(alpha, seed, adjust) + "; every test: --format json or csv")
