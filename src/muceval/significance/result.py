"""What a significance analysis found: one :class:`Comparison` per pair and metric, and the
:class:`SignificanceResult` that holds them with scores, groups and settings."""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from muceval.core.metrics import METRIC_LABELS
from muceval.core.signature import signature
from muceval.significance.classic import (
    CLASSIC_TESTS,
    PAIRED_TESTS,
    TEST_FIELDS,
    ClassicTests,
    understatement,
)

_RATIO_LABELS = {"precision": "P", "recall": "R", "f1": "F1"}


@dataclass(frozen=True)
class Comparison:
    """The result of one pair (a, b) and one metric; ``difference`` = value_a − value_b."""

    a: str
    b: str
    metric: str
    value_a: float
    value_b: float
    difference: float
    p_value: float
    method: str
    shuffles: int | None
    nge: int | None
    confidence: float
    error_bound: float
    alternative: str
    p_adjusted: float
    significant: bool
    units: int
    ci: tuple[float, float] | None = None
    classic: ClassicTests | None = None

    def mirrored(self) -> Comparison:
        """The same comparison seen from ``b``: b − a, its interval negated. p-values, tests
        and decisions stay (two-sided, or one-sided in the observed direction: both
        symmetric)."""
        return replace(self, a=self.b, b=self.a, value_a=self.value_b, value_b=self.value_a,
                       difference=-self.difference,
                       ci=(-self.ci[1], -self.ci[0]) if self.ci is not None else None)

    def to_dict(self) -> dict:
        # A copy of the instance dict rather than dataclasses.asdict: a leaderboard has
        # millions of these. The fields keep their declared order (ci and classic last).
        out = dict(self.__dict__)
        out["ci"] = list(self.ci) if self.ci is not None else None
        classic = self.classic
        out["classic"] = None if classic is None else dict(classic.__dict__)
        return out




CSV_HEADER: tuple[str, ...] = (
    "metric", "a", "b", "value_a", "value_b", "difference", "p_value", "p_adjusted",
    "method", "shuffles", "confidence", "error_bound", "significant", "alternative",
    "units", "ci_low", "ci_high", "correlation", "sign", "wilcoxon", "paired_t",
    "two_sample_t", "chi2", "binomial",
)  # fmt: skip
"""The columns of the pairwise table (``significance --format csv``, ``--pairs``)."""

_CLASSIC_COLUMNS = ("correlation", "sign", "wilcoxon", "paired_t", "two_sample_t", "chi2",
                    "binomial")


def csv_row(*, metric: str, a: str, b: str, value_a: float, value_b: float, p_value: float,
            p_adjusted: float, method: str, shuffles: int | None, confidence: float,
            error_bound: float, significant: bool, alternative: str, units: int,
            ci: tuple[float, float] | None, classic: ClassicTests | None) -> list[Any]:
    """One comparison as a row of :data:`CSV_HEADER` (the one place that lays it out)."""
    row: list[Any] = [
        metric, a, b, value_a, value_b, value_a - value_b, p_value, p_adjusted, method,
        shuffles if shuffles is not None else "", confidence, error_bound, int(significant),
        alternative, units, ci[0] if ci else "", ci[1] if ci else "",
    ]
    for name in _CLASSIC_COLUMNS:
        value = getattr(classic, name) if classic is not None else None
        row.append("" if value is None else value)
    return row


@dataclass(frozen=True)
class SignificanceResult:
    """Everything :func:`compare` found; ``to_json()`` is the machine-readable form."""

    systems: tuple[str, ...]
    metrics: tuple[str, ...]
    scores: dict[str, dict[str, float]]
    comparisons: tuple[Comparison, ...]
    groups: dict[str, list[list[str]]]
    letters: dict[str, dict[str, str]]
    settings: dict
    system_ci: dict[str, dict[str, tuple[float, float]]] | None = None
    letter_groups: dict[str, list[list[str]]] | None = None
    _index: dict = field(default_factory=dict, repr=False, compare=False)

    def comparison(self, a: str, b: str, metric: str) -> Comparison:
        """The comparison of ``a`` with ``b`` for ``metric``: ``difference`` is a − b, whichever
        order the analysis took them in."""
        if not self._index:
            for c in self.comparisons:
                self._index[(c.a, c.b, c.metric)] = c
        found = self._index.get((a, b, metric))
        if found is not None:
            return found
        found = self._index.get((b, a, metric))
        if found is None:
            raise KeyError((a, b, metric))
        return found.mirrored()

    def label(self, metric: str) -> str:
        """How a metric is named: the MUC names for MUC tallies; P, R and F1 for the modern
        scorers' counts (``settings["ratio"]``)."""
        if self.settings.get("ratio"):
            return _RATIO_LABELS.get(metric, metric)
        return METRIC_LABELS.get(metric, metric)

    def ranking(self, metric: str) -> list[str]:
        """Systems by decreasing score (ties by name)."""
        return sorted(self.systems, key=lambda s: (-self.scores[s][metric], s))

    def to_dict(self) -> dict:
        from muceval.version import __version__

        return {
            "format": "muceval-significance",
            "format_version": 1,
            "muceval": __version__,
            "signature": signature(self.settings),
            "settings": self.settings,
            "systems": self.scores,
            "system_ci": (
                {s: {m: list(ci) for m, ci in v.items()} for s, v in self.system_ci.items()}
                if self.system_ci is not None
                else None
            ),
            "comparisons": [c.to_dict() for c in self.comparisons],
            "groups": self.groups,
            "letters": self.letters,
            "letter_groups": self.letter_groups,
        }

    def to_json(self, indent: int | None = 2) -> str:
        """JSON with at least ``systems``, ``comparisons`` and ``groups``; with ``indent``, one
        comparison per line (written by the C encoder: an indented dump of many comparisons
        would take Python's own, many times slower)."""
        doc = self.to_dict()
        if indent is None:
            return json.dumps(doc)
        comparisons = doc.pop("comparisons")
        head = json.dumps(doc, indent=indent)
        pad = " " * indent
        # All comparisons in one call of the C encoder, then one per line: every comparison
        # starts with its key "a", and the text '}, {"a": ' cannot occur inside a JSON
        # string (its quote would be escaped) nor between nested values (no nested object
        # has a key "a"), so it marks exactly the boundaries.
        rows = json.dumps(comparisons)[1:-1].replace('}, {"a": ', '},\n' + pad * 2 + '{"a": ')
        return (head[:-2] + f',\n{pad}"comparisons": ['
                + (f"\n{pad * 2}{rows}\n{pad}" if rows else "") + "]\n}")

    def to_csv(self) -> str:
        """One row per comparison (columns :data:`CSV_HEADER`)."""
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(CSV_HEADER)
        for c in self.comparisons:
            writer.writerow(csv_row(
                metric=c.metric, a=c.a, b=c.b, value_a=c.value_a, value_b=c.value_b,
                p_value=c.p_value, p_adjusted=c.p_adjusted, method=c.method,
                shuffles=c.shuffles, confidence=c.confidence, error_bound=c.error_bound,
                significant=c.significant, alternative=c.alternative, units=c.units, ci=c.ci,
                classic=c.classic))
        return buffer.getvalue()

    def render(self, console: Any, matrix: bool | None = None) -> None:
        """The result for a terminal: a ranked table (scores, groups, the difference and p to the
        next system), then the p-value matrices when they fit the console (``matrix`` None) or
        when asked (True). Rows are in the same order for every metric; no number is elided.
        A summary without comparisons (``significance --pairs``) shows scores and letters."""
        settings = self.settings
        console.print(
            f"[bold]{len(self.systems)} systems, {settings['units']} "
            f"{settings['unit'] + ' ' if settings.get('unit') else ''}units[/bold] — "
            f"method {settings['method']}, {settings['alternative']}, α = {settings['alpha']}, "
            f"confidence {settings['confidence']}, seed {settings['seed']}"
        )
        primary = "f1" if "f1" in self.metrics else self.metrics[0]
        order = self.ranking(primary)
        short = short_names(order)
        width = console.width or 80
        if _ranked_width(short, self.metrics) <= width:
            console.print(self._ranked_table(order, short, self.metrics, primary))
        else:
            for metric in self.metrics:
                console.print(self._ranked_table(order, short, (metric,), metric))
        console.print("Systems sharing a letter are not significantly different, systems with "
                      "no letter in common are" + ("; * = significant (adjusted p ≤ α and "
                                                   "confident enough)." if self.comparisons
                                                   else "."))
        if not self.comparisons:
            return
        show = matrix if matrix is not None else _matrix_width(short) <= width
        if show:
            for metric in self.metrics:
                console.print(self._matrix(order, short, metric))
        elif matrix is None and len(order) > 2:
            console.print("(the p-value matrices are wider than the terminal: --matrix prints "
                          "them, --format csv lists every pair)")

    def _cell(self, a: str, b: str, metric: str) -> str:
        c = self.comparison(a, b, metric)
        p = c.p_adjusted
        text = f"{p:.3f}" if p >= 0.001 else f"{p:.0e}"
        return f"{text}*" if c.significant else text

    def _ranked_table(self, order: list[str], short: dict[str, str], metrics: Sequence[str],
                      primary: str) -> Any:
        from rich.table import Table

        label = self.label(primary)
        table = Table(title=("scores (%) and groups" if len(metrics) > 1 else label),
                      title_justify="left", show_edge=False, pad_edge=False)
        table.add_column("system", no_wrap=True)
        for metric in metrics:
            table.add_column(self.label(metric), justify="right", no_wrap=True)
        pairs = bool(self.comparisons)
        if pairs:
            table.add_column(f"Δ next ({label})" if len(metrics) > 1 else "Δ next",
                             justify="right", no_wrap=True)
            table.add_column("p next", justify="right", no_wrap=True)
        for i, name in enumerate(order):
            cells = [f"{100 * self.scores[name][m]:.2f} {self.letters[m][name]}" for m in metrics]
            if not pairs:
                pass
            elif i + 1 < len(order):
                below = order[i + 1]
                diff = self.scores[name][primary] - self.scores[below][primary]
                cells += [f"{100 * diff:+.2f}", self._cell(name, below, primary)]
            else:
                cells += ["", ""]
            table.add_row(short[name], *cells)
        return table

    def _matrix(self, order: list[str], short: dict[str, str], metric: str) -> Any:
        from rich.table import Table

        table = Table(title=f"{self.label(metric)}: adjusted p-values (* = significant)",
                      title_justify="left", show_edge=False, pad_edge=False)
        table.add_column("system", no_wrap=True)
        for name in order:
            table.add_column(short[name], justify="right", no_wrap=True)
        for row in order:
            table.add_row(short[row], *("—" if col == row else self._cell(row, col, metric)
                                        for col in order))
        return table


    def classic_disagreements(self, metric: str = "recall") -> list[Comparison]:
        """Pairs whose randomization decision (p ≤ α) differs from the sign test's: Yeh's
        check for recall, where both apply."""
        alpha = self.settings["alpha"]
        return [c for c in self.comparisons if c.metric == metric and c.classic is not None
                and c.classic.sign is not None
                and (c.p_adjusted <= alpha) != (c.classic.sign <= alpha)]

    def render_tests(self, console: Any, tests: Sequence[str] = PAIRED_TESTS,
                     metrics: Sequence[str] | None = None) -> None:
        """The classic tests as a view: per pair, the randomization p, the chosen tests and the
        correlation r of the systems' per-unit values, with Yeh's factor."""
        from rich.table import Table

        unknown = [t for t in tests if t not in CLASSIC_TESTS]
        if unknown:
            raise ValueError(f"unknown test(s) {', '.join(unknown)}")
        short = short_names(self.systems)
        heads = {"paired-t": "pair t", "sign": "sign", "wilcoxon": "wilcox",
                 "two-sample-t": "2-smp t", "binomial": "binom", "chi2": "χ²"}

        def p_text(value: float | None) -> str:
            return "n/a" if value is None else "<.001" if value < 0.001 else f"{value:.3f}"

        for metric in metrics or self.metrics:
            rows = [c for c in self.comparisons if c.metric == metric]
            if not rows or all(c.classic is None for c in rows):
                continue
            table = Table(title=f"{self.label(metric)}: classic tests beside randomization "
                          "(p-values; r: correlation of the systems' per-unit values)",
                          title_justify="left", show_edge=False, pad_edge=False)
            for head in ("a", "b", "Δ %", "rand.", *(heads[t] for t in tests), "r",
                         "Yeh ×"):
                table.add_column(head, justify="left" if head in ("a", "b") else "right",
                                 no_wrap=True)
            for c in rows:
                classic = c.classic
                values = [getattr(classic, TEST_FIELDS[t]) if classic else None for t in tests]
                r = classic.correlation if classic else None
                factor = understatement(r)
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
        independent = [t for t in tests if t not in PAIRED_TESTS]
        console.print(
            "Paired tests (paired-t, sign, wilcoxon) and randomization compare the systems unit "
            "by unit. " + (f"{', '.join(independent)} assume(s) the systems independent; "
                           if independent else "Two-sample t, binomial and χ² assume the "
                           "systems independent; ") +
            "systems on one test set are positively correlated (r), so those tests understate "
            "significance by about √(1/(1−r)), the column Yeh × (Yeh 2000).")
        if "recall" in self.metrics:
            disagree = self.classic_disagreements("recall")
            console.print(f"Recall: randomization and the sign test agree on every pair at "
                          f"α = {self.settings['alpha']}." if not disagree else
                          f"Recall: randomization and the sign test disagree on {len(disagree)} "
                          "pair(s): " + ", ".join(f"{c.a}/{c.b}" for c in disagree))


def short_names(names: Sequence[str], limit: int = 12) -> dict[str, str]:
    """Names of at most ``limit`` characters, kept distinct: what all names share at the start
    and the end (``preds.`` … ``.test``) is left out first, then the rest is cut with ``…``."""
    names = list(names)
    if len(names) > 1 and max(len(n) for n in names) > limit:
        start = _at_separator(os.path.commonprefix(names))
        end = _at_separator(os.path.commonprefix([n[::-1] for n in names]))
        cores = [n[start: len(n) - end] for n in names]
        if all(cores) and len(set(cores)) == len(cores):
            names_core = dict(zip(names, cores, strict=True))
        else:
            names_core = {n: n for n in names}
    else:
        names_core = {n: n for n in names}
    out: dict[str, str] = {}
    used: set[str] = set()
    for name in names:
        core = names_core[name]
        short = core if len(core) <= limit else core[: limit - 1] + "…"
        n = 2
        while short in used:
            short = f"{core[: limit - 2 - len(str(n))]}…{n}"
            n += 1
        used.add(short)
        out[name] = short
    return out


def _at_separator(shared: str) -> int:
    """The length of ``shared`` up to and including its last separator (``.``, ``_``, ``-``)."""
    cut = max(shared.rfind(c) for c in "._- ")
    return cut + 1


def _ranked_width(short: dict[str, str], metrics: Sequence[str]) -> int:
    name = max((len(s) for s in short.values()), default=6)
    return name + 3 + len(metrics) * 14 + 2 * 10 + 12


def _matrix_width(short: dict[str, str]) -> int:
    name = max((len(s) for s in short.values()), default=6)
    return name + 3 + len(short) * (max(8, name) + 3)
