"""Significance of the differences between systems (Chinchor 1992; Yeh 2000).

For every pair of systems and every metric (recall, precision and the
F-measures f1 = P&R, f0.5 = 2P&R, f2 = P&2R, all in floating point from summed
tallies with COR + ½PAR in the numerator) :func:`compare` computes:

* a randomization p-value, stratified by unit (see :mod:`muceval.significance.kernels`
  for the coin semantics, the tie tolerance and the exact distribution):

  - *approximate*: ``(nge + 1) / (ns + 1)`` over ``ns`` shuffles (MUC-4: 9,999);
  - *exact*: ``count / 2^n`` over all exchanges of the n differing units;
  - *auto*: exact whenever its estimated cost is below the requested
    approximation's, per pair and metric;

* the **confidence level** of an approximate result (Chinchor 1992: the
  probability that the approximate test reaches the same decision at the
  cutoff α as the exact test would). With ``nge`` of ``ns`` shuffles at least
  as extreme, the unknown exact p has, under a uniform prior and the binomial
  model ``nge ~ Binomial(ns, p)``, the posterior ``Beta(nge + 1, ns − nge + 1)``.
  The approximate decision is "significant" iff ``p̂ ≤ α``; the confidence is
  the posterior probability that the exact p is on the same side:
  ``F(α)`` if significant, ``1 − F(α)`` otherwise, with F the Beta CDF.
  Exact results have confidence 1;

* classic tests for comparison: sign test, Wilcoxon signed-rank and
  matched-pair t on per-unit metric values (units where the metric is defined
  for both systems), and the tests that wrongly assume independence
  (two-sample t on the same values; χ² without Yates' correction on the 2×2
  table (credited, not credited) = (N, POS − N) for recall or (N, ACT − N) for
  precision, N = COR + ½PAR), plus the Pearson correlation of the two systems'
  per-unit values;
* paired bootstrap percentile intervals for each system's metrics and each
  difference (units resampled with replacement, the same draw for all systems);
* optional Holm or Benjamini–Hochberg adjustment across the pairs of a metric;
* **groupings**: systems sorted by score, maximal runs of consecutive systems
  none of which differ significantly (MUC-4 significance groupings), and a
  compact letter display. A pair counts as different when its (adjusted)
  p-value is ≤ α *and* its confidence is ≥ the confidence level (0.10 and 0.99
  by default); an approximate result that is not confident enough is treated
  as not significant.

>>> from muceval.core.units import from_arrays
>>> t = from_arrays(["A", "B"], ["m1", "m2", "m3"],
...                 [[[2, 2, 2, 0], [2, 2, 1, 0], [2, 2, 2, 0]],
...                  [[2, 2, 0, 0], [2, 2, 1, 0], [2, 2, 0, 0]]])
>>> r = compare(t, metrics=("recall",), method="exact")
>>> r.comparison("A", "B", "recall").p_value
0.5
"""

from __future__ import annotations

import csv
import io
import json
import secrets
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field

import numpy as np
from scipy import special, stats

from muceval.core.units import UnitTallies
from muceval.errors import UsageError
from muceval.significance.kernels import (
    _BLOCK_BITS,
    METRIC_COEFS,
    METRICS,
    PairData,
    approximate_counts,
    default_threads,
    exact_cost,
    exact_grid_cells,
    exact_pvalue,
    metric_value,
    metric_values,
    reduce_counts,
)

__all__ = [
    "METRICS",
    "METHODS",
    "ALTERNATIVES",
    "ADJUSTMENTS",
    "ClassicTests",
    "Comparison",
    "SignificanceResult",
    "compare",
    "confidence_level",
    "adjust_pvalues",
    "groupings",
    "letter_display",
    "classic_tests",
    "parse_metrics",
]

METHODS = ("approximate", "exact", "auto")
ALTERNATIVES = ("two-sided", "one-sided")
ADJUSTMENTS = ("none", "holm", "bh")
METRIC_LABELS = {
    "recall": "recall",
    "precision": "precision",
    "f1": "F P&R",
    "f0.5": "F 2P&R",
    "f2": "F P&2R",
}
# Beyond this many grid cells an exact distribution needs too much memory.
MAX_EXACT_CELLS = 300_000_000
# Cost model of --method auto, in nanoseconds measured on the TST3 data: one
# estimated exact grid cell; per shuffle, one table gather (8 units), one metric,
# and a fixed part (coins, decoding).
_EXACT_CELL_COST = 1.7
_SHUFFLE_BLOCK_COST = 1.1
_SHUFFLE_METRIC_COST = 1.5
_SHUFFLE_FIXED_COST = 2.0
_EXACT_BUDGET = 0.0  # exact by default; pruning is opt-in (compare(exact_budget=...))


def parse_metrics(text: str | Sequence[str]) -> tuple[str, ...]:
    """Metric names from ``"recall,f1"`` or a sequence; :class:`UsageError` if unknown.

    >>> parse_metrics("recall, f0.5")
    ('recall', 'f0.5')
    """
    names = [m.strip() for m in text.split(",")] if isinstance(text, str) else list(text)
    names = [m for m in names if m]
    unknown = [m for m in names if m not in METRIC_COEFS]
    if unknown or not names:
        raise UsageError(
            f"unknown metric(s) {', '.join(unknown) or '(none given)'}; choose from {', '.join(METRICS)}"
        )
    return tuple(dict.fromkeys(names))


def confidence_level(nge: int, shuffles: int, alpha: float) -> float:
    """Posterior probability that the exact test makes the same decision at ``alpha``.

    ``p̂ = (nge + 1) / (shuffles + 1)``; decision "significant" iff ``p̂ ≤ alpha``.
    Exact p ~ Beta(nge + 1, shuffles − nge + 1) (uniform prior, binomial model).

    >>> round(confidence_level(0, 9999, 0.1), 6)
    1.0
    >>> round(confidence_level(999, 9999, 0.1), 2)
    0.5
    """
    cdf = float(stats.beta.cdf(alpha, nge + 1, shuffles - nge + 1))
    significant = (nge + 1) / (shuffles + 1) <= alpha
    return cdf if significant else 1.0 - cdf


def adjust_pvalues(pvalues: Sequence[float], method: str) -> list[float]:
    """Holm (step-down) or Benjamini–Hochberg adjusted p-values, in input order.

    >>> [round(p, 3) for p in adjust_pvalues([0.01, 0.04, 0.03], "holm")]
    [0.03, 0.06, 0.06]
    >>> [round(p, 3) for p in adjust_pvalues([0.01, 0.04, 0.03], "bh")]
    [0.03, 0.04, 0.04]
    """
    p = np.asarray(pvalues, dtype=np.float64)
    n = len(p)
    if method == "none" or n == 0:
        return p.tolist()
    order = np.argsort(p, kind="stable")
    adjusted = np.empty(n)
    if method == "holm":
        running = 0.0
        for rank, i in enumerate(order):
            running = max(running, min(1.0, (n - rank) * p[i]))
            adjusted[i] = running
    elif method == "bh":
        running = 1.0
        for rank in range(n - 1, -1, -1):
            i = order[rank]
            running = min(running, n * p[i] / (rank + 1))
            adjusted[i] = min(1.0, running)
    else:
        raise UsageError(f"unknown adjustment {method!r}; choose from {', '.join(ADJUSTMENTS)}")
    return adjusted.tolist()


def groupings(order: Sequence[str], different: Callable[[str, str], bool]) -> list[list[str]]:
    """Maximal runs of consecutive systems (in ``order``) with no significant difference inside.

    >>> diff = lambda a, b: {a, b} == {"A", "C"}
    >>> groupings(["A", "B", "C"], diff)
    [['A', 'B'], ['B', 'C']]
    """
    runs: list[list[str]] = []
    n = len(order)
    last_end = -1
    end = 0
    for start in range(n):
        end = max(end, start)
        while end + 1 < n and all(
            not different(order[k], order[end + 1]) for k in range(start, end + 1)
        ):
            end += 1
        if end > last_end:
            runs.append(list(order[start : end + 1]))
            last_end = end
    return runs


def _letter(k: int) -> str:
    alphabet = "abcdefghijklmnopqrstuvwxyz"
    out = ""
    k += 1
    while k:
        k, r = divmod(k - 1, 26)
        out = alphabet[r] + out
    return out


def letter_display(order: Sequence[str], runs: Sequence[Sequence[str]]) -> dict[str, str]:
    """Compact letter display: systems sharing a letter are not significantly different.

    >>> letter_display(["A", "B", "C"], [["A", "B"], ["B", "C"]])
    {'A': 'a', 'B': 'ab', 'C': 'b'}
    """
    letters = {name: "" for name in order}
    for k, run in enumerate(runs):
        for name in run:
            letters[name] += _letter(k)
    return letters


@dataclass(frozen=True)
class ClassicTests:
    """Classic tests of one pair and metric on per-unit values (``None``: not applicable)."""

    units: int
    correlation: float | None
    sign: float | None
    wilcoxon: float | None
    paired_t: float | None
    two_sample_t: float | None
    chi2: float | None


def _finite(x: float) -> float | None:
    x = float(x)
    return x if np.isfinite(x) else None


def _tail(z: float, alt: str, upper: Callable[[float], float]) -> float:
    """p-value of statistic ``z`` from its upper-tail function (symmetric distribution)."""
    if alt == "two-sided":
        return min(1.0, 2.0 * upper(abs(z)))
    return upper(z) if alt == "greater" else upper(-z)


def classic_tests(
    a: np.ndarray, b: np.ndarray, metric: str, alternative: str = "two-sided"
) -> ClassicTests:
    """Classic paired and (wrongly) independent tests for one pair and metric.

    ``a``/``b``: ``units × 4`` counts (POS, ACT, COR, PAR). Per-unit values are the
    metric of each unit's own tallies; units where either denominator is 0 are
    left out. One-sided tests look in the direction of the observed difference.
    Formulas (written out because scipy.stats' per-call overhead dominates with
    hundreds of pairs; the tests check them against scipy.stats):

    * sign test: exact binomial on the non-zero differences;
    * Wilcoxon signed-rank: normal approximation with tie correction, zero
      differences dropped, no continuity correction;
    * matched-pair t and two-sample (pooled-variance Student) t;
    * χ² (1 df, no Yates) on the (credited, not credited) table of recall or precision.

    >>> a = np.array([[2, 2, 2, 0]] * 6); b = np.array([[2, 2, 0, 0]] * 6)
    >>> round(classic_tests(a, b, "recall").sign, 4)
    0.0312
    """
    alpha, gamma, _ = METRIC_COEFS[metric]
    ra, rb = reduce_counts(a), reduce_counts(b)
    va_den = alpha * ra[:, 0] + gamma * ra[:, 1]
    vb_den = alpha * rb[:, 0] + gamma * rb[:, 1]
    keep = (va_den > 0) & (vb_den > 0)
    va = metric_values(ra[keep], metric)
    vb = metric_values(rb[keep], metric)
    ta, tb = ra.sum(0), rb.sum(0)
    observed = metric_value(*ta, metric) - metric_value(*tb, metric)
    alt = alternative if alternative == "two-sided" else ("greater" if observed >= 0 else "less")
    n = int(keep.sum())
    d = va - vb
    nonzero = d[d != 0]
    normal_upper = lambda z: float(special.ndtr(-z))  # noqa: E731
    correlation = sign = wilcoxon = paired_t = two_sample_t = chi2 = None
    if n >= 2 and np.std(va) > 0 and np.std(vb) > 0:
        correlation = _finite(np.corrcoef(va, vb)[0, 1])
    if n:
        m = len(nonzero)
        if m:
            k = int((nonzero > 0).sum())
            below = float(special.bdtr(k, m, 0.5))  # P(K <= k)
            above = float(special.bdtrc(k - 1, m, 0.5)) if k > 0 else 1.0  # P(K >= k)
            if alt == "two-sided":
                sign = min(1.0, 2.0 * min(below, above))
            else:
                sign = above if alt == "greater" else below
            ranks = stats.rankdata(np.abs(nonzero))
            w_plus = float(ranks[nonzero > 0].sum())
            _, ties = np.unique(np.abs(nonzero), return_counts=True)
            var = m * (m + 1) * (2 * m + 1) / 24.0 - float((ties**3 - ties).sum()) / 48.0
            if var > 0:
                z = (w_plus - m * (m + 1) / 4.0) / np.sqrt(var)
                wilcoxon = _tail(z, alt, normal_upper)
        else:
            sign = wilcoxon = 1.0
        if n >= 2:
            sd = float(np.std(d, ddof=1))
            mean = float(np.mean(d))
            if sd > 1e-12 * max(1.0, abs(mean)):
                t = mean / (sd / np.sqrt(n))
                paired_t = _tail(t, alt, lambda x: float(special.stdtr(n - 1, -x)))
            else:
                paired_t = 1.0 if mean == 0 else 0.0
            pooled = ((n - 1) * np.var(va, ddof=1) + (n - 1) * np.var(vb, ddof=1)) / (2 * n - 2)
            gap = float(np.mean(va) - np.mean(vb))
            if pooled > 1e-24:
                t = gap / np.sqrt(pooled * 2.0 / n)
                two_sample_t = _tail(t, alt, lambda x: float(special.stdtr(2 * n - 2, -x)))
            else:
                two_sample_t = 1.0 if gap == 0 else 0.0
    if metric in ("recall", "precision"):
        col = 0 if metric == "recall" else 1
        na, nb = ta[2] / 2.0, tb[2] / 2.0
        table = np.array([[na, ta[col] - na], [nb, tb[col] - nb]], dtype=np.float64)
        rows, cols = table.sum(1), table.sum(0)
        if np.all(rows > 0) and np.all(cols > 0):
            expected = np.outer(rows, cols) / table.sum()
            statistic = float(((table - expected) ** 2 / expected).sum())
            chi2 = float(special.chdtrc(1, statistic))
    return ClassicTests(n, correlation, sign, wilcoxon, paired_t, two_sample_t, chi2)


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

    def to_dict(self) -> dict:
        out = asdict(self)
        out["ci"] = list(self.ci) if self.ci is not None else None
        return out


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
    _index: dict = field(default_factory=dict, repr=False, compare=False)

    def comparison(self, a: str, b: str, metric: str) -> Comparison:
        """The comparison of ``a`` and ``b`` (either order) for ``metric``."""
        if not self._index:
            for c in self.comparisons:
                self._index[(c.a, c.b, c.metric)] = c
        found = self._index.get((a, b, metric)) or self._index.get((b, a, metric))
        if found is None:
            raise KeyError((a, b, metric))
        return found

    def ranking(self, metric: str) -> list[str]:
        """Systems by decreasing score (ties by name)."""
        return sorted(self.systems, key=lambda s: (-self.scores[s][metric], s))

    def to_dict(self) -> dict:
        return {
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
        }

    def to_json(self, indent: int | None = 2) -> str:
        """JSON with at least ``systems``, ``comparisons`` and ``groups``."""
        return json.dumps(self.to_dict(), indent=indent)

    def to_csv(self) -> str:
        """One row per comparison."""
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        header = [
            "metric", "a", "b", "value_a", "value_b", "difference", "p_value", "p_adjusted",
            "method", "shuffles", "confidence", "error_bound", "significant", "alternative",
            "units", "ci_low", "ci_high", "correlation", "sign", "wilcoxon", "paired_t",
            "two_sample_t", "chi2",
        ]  # fmt: skip
        writer.writerow(header)
        for c in self.comparisons:
            classic = c.classic
            row = [
                c.metric, c.a, c.b, c.value_a, c.value_b, c.difference, c.p_value, c.p_adjusted,
                c.method, c.shuffles if c.shuffles is not None else "", c.confidence,
                c.error_bound, int(c.significant), c.alternative, c.units,
                c.ci[0] if c.ci else "", c.ci[1] if c.ci else "",
            ]  # fmt: skip
            for name in ("correlation", "sign", "wilcoxon", "paired_t", "two_sample_t", "chi2"):
                value = getattr(classic, name) if classic is not None else None
                row.append("" if value is None else value)
            writer.writerow(row)
        return buffer.getvalue()

    def render(self, console) -> None:
        """Readable pairwise matrices, one per metric, on a rich console."""
        from rich.table import Table

        settings = self.settings
        console.print(
            f"[bold]{len(self.systems)} systems, {settings['units']} units[/bold] — "
            f"method {settings['method']}, {settings['alternative']}, α = {settings['alpha']}, "
            f"confidence {settings['confidence']}, seed {settings['seed']}"
        )
        for metric in self.metrics:
            order = self.ranking(metric)
            table = Table(
                title=f"{METRIC_LABELS[metric]}: p-values (* = significant)",
                show_lines=False,
                title_justify="left",
            )
            table.add_column("system")
            table.add_column("score", justify="right")
            table.add_column("groups")
            for name in order:
                table.add_column(name[:8], justify="right")
            for row_name in order:
                cells = []
                for col_name in order:
                    if col_name == row_name:
                        cells.append("—")
                        continue
                    c = self.comparison(row_name, col_name, metric)
                    p = c.p_adjusted
                    text = f"{p:.3f}" if p >= 0.001 else f"{p:.0e}"
                    cells.append(f"[bold]{text}*[/bold]" if c.significant else text)
                table.add_row(
                    row_name,
                    f"{100 * self.scores[row_name][metric]:.2f}",
                    self.letters[metric][row_name],
                    *cells,
                )
            console.print(table)


def _bootstrap(
    reduced: np.ndarray,
    metrics: tuple[str, ...],
    pairs: list[tuple[int, int]],
    samples: int,
    level: float,
    seed: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile intervals: (systems × metrics × 2), (pairs × metrics × 2)."""
    n_systems, n_units, _ = reduced.shape
    rng = np.random.default_rng(seed)
    values = np.empty((len(metrics), n_systems, samples))
    batch = max(1, min(samples, 20_000_000 // max(1, n_units * 8)))
    for start in range(0, samples, batch):
        stop = min(samples, start + batch)
        idx = rng.integers(0, n_units, size=(stop - start, n_units))
        weights = np.zeros((stop - start, n_units), dtype=np.int64)
        np.add.at(weights, (np.arange(stop - start)[:, None], idx), 1)
        sums = np.einsum("bu,suk->sbk", weights, reduced)
        for m, metric in enumerate(metrics):
            values[m, :, start:stop] = metric_values(sums, metric)
    lo, hi = (1 - level) / 2, (1 + level) / 2
    system_ci = np.quantile(values, [lo, hi], axis=2).transpose(2, 1, 0)
    pair_ci = np.empty((len(pairs), len(metrics), 2))
    for k, (a, b) in enumerate(pairs):
        pair_ci[k] = np.quantile(values[:, a] - values[:, b], [lo, hi], axis=1).T
    return system_ci, pair_ci


def compare(
    tallies: UnitTallies,
    metrics: Sequence[str] = METRICS,
    method: str = "approximate",
    shuffles: int = 9_999,
    seed: int | None = None,
    alternative: str = "two-sided",
    alpha: float = 0.10,
    confidence: float = 0.99,
    adjust: str = "none",
    bootstrap: int = 1_000,
    ci_level: float = 0.95,
    classic: bool = True,
    threads: int | None = None,
    exact_budget: float = _EXACT_BUDGET,
    progress: Callable[[int, int], None] | None = None,
) -> SignificanceResult:
    """Compare every pair of systems on every metric.

    ``seed`` None draws one (reported in ``settings``). ``bootstrap`` 0 skips the
    intervals; ``classic`` False skips the classic tests. ``progress(done, total)``
    is called as the randomization work advances.

    >>> from muceval.core.units import from_arrays
    >>> t = from_arrays(["A", "B"], ["m"], [[[1, 1, 1, 0]], [[1, 1, 1, 0]]])
    >>> compare(t, metrics=["f1"], seed=1).comparison("A", "B", "f1").p_value
    1.0
    """
    metrics = parse_metrics(metrics)
    if method not in METHODS:
        raise UsageError(f"unknown method {method!r}; choose from {', '.join(METHODS)}")
    if alternative not in ALTERNATIVES:
        raise UsageError(
            f"unknown alternative {alternative!r}; choose from {', '.join(ALTERNATIVES)}"
        )
    if adjust not in ADJUSTMENTS:
        raise UsageError(f"unknown adjustment {adjust!r}; choose from {', '.join(ADJUSTMENTS)}")
    if shuffles < 1 and method != "exact":
        raise UsageError("the number of shuffles must be at least 1")
    if not 0 < alpha < 1 or not 0 < confidence < 1 or not 0 < ci_level < 1:
        raise UsageError(
            "alpha, confidence and the interval level must lie strictly between 0 and 1"
        )
    if len(tallies.systems) < 2:
        raise UsageError("significance needs at least two systems")
    if seed is None:
        seed = secrets.randbits(63)
    two_sided = alternative == "two-sided"
    threads = threads or default_threads()

    reduced = reduce_counts(tallies.counts)
    names = tallies.systems
    totals = reduced.sum(axis=1)
    scores = {s: {m: metric_value(*totals[i], m) for m in metrics} for i, s in enumerate(names)}
    index_pairs = [(a, b) for a in range(len(names)) for b in range(a + 1, len(names))]
    pairs = [PairData.of(reduced[a], reduced[b]) for a, b in index_pairs]

    # Decide, per pair and metric, whether to enumerate exactly.
    use_exact = np.zeros((len(pairs), len(metrics)), dtype=bool)
    for k, pair in enumerate(pairs):
        blocks = -(-len(pair.diffs) // _BLOCK_BITS)
        # Marginal cost of one more metric in the shared shuffles.
        approx_cost = shuffles * (
            _SHUFFLE_METRIC_COST
            + (_SHUFFLE_BLOCK_COST * blocks + _SHUFFLE_FIXED_COST) / len(metrics)
        )
        for m, metric in enumerate(metrics):
            if method == "exact":
                use_exact[k, m] = True
            elif method == "auto":
                use_exact[k, m] = (
                    exact_cost(pair, metric) * _EXACT_CELL_COST <= approx_cost
                    and exact_grid_cells(pair, metric) <= MAX_EXACT_CELLS
                )
    if method == "exact":
        for k, pair in enumerate(pairs):
            for metric in metrics:
                cells = exact_grid_cells(pair, metric)
                if cells > MAX_EXACT_CELLS:
                    a, b = index_pairs[k]
                    raise UsageError(
                        f"exact randomization of {names[a]} vs {names[b]} ({metric}) needs a grid "
                        f"of about {cells:.0f} cells; use --method approximate or auto"
                    )

    approx_pairs = [k for k in range(len(pairs)) if not use_exact[k].all()]
    exact_jobs = [(k, m) for k in range(len(pairs)) for m in range(len(metrics)) if use_exact[k, m]]
    total_work = len(approx_pairs) * shuffles + len(exact_jobs) * max(1, shuffles // 4)
    done = 0

    nge = np.zeros((len(pairs), len(metrics)), dtype=np.int64)
    batch = max(1, (1 << 22) // max(1, shuffles))
    for start in range(0, len(approx_pairs), batch):
        chunk = approx_pairs[start : start + batch]
        nge[chunk] = approximate_counts(
            [pairs[k] for k in chunk], metrics, shuffles, seed, two_sided, threads=threads
        )
        done += len(chunk) * shuffles
        if progress is not None:
            progress(done, total_work)

    exact: dict[tuple[int, int], object] = {}

    def run(job: tuple[int, int]):
        k, m = job
        return job, exact_pvalue(pairs[k], metrics[m], two_sided, exact_budget)

    if exact_jobs:
        with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
            for job, result in pool.map(run, exact_jobs):
                exact[job] = result
                done += max(1, shuffles // 4)
                if progress is not None:
                    progress(done, total_work)

    system_ci = pair_ci = None
    if bootstrap > 0:
        sys_ci, pair_ci = _bootstrap(reduced, metrics, index_pairs, bootstrap, ci_level, seed)
        system_ci = {
            s: {m: (float(sys_ci[i, j, 0]), float(sys_ci[i, j, 1])) for j, m in enumerate(metrics)}
            for i, s in enumerate(names)
        }

    raw: list[list[dict]] = [[{} for _ in metrics] for _ in pairs]
    for k in range(len(pairs)):
        for m in range(len(metrics)):
            if use_exact[k, m]:
                result = exact[(k, m)]
                entry = dict(
                    p_value=result.p_value, method="exact", shuffles=None, nge=None,
                    confidence=1.0, error_bound=result.error_bound,
                )  # fmt: skip
            else:
                count = int(nge[k, m])
                p = (count + 1) / (shuffles + 1)
                entry = dict(
                    p_value=p, method="approximate", shuffles=shuffles, nge=count,
                    confidence=confidence_level(count, shuffles, alpha), error_bound=0.0,
                )  # fmt: skip
            raw[k][m] = entry

    comparisons: list[Comparison] = []
    adjusted = np.empty((len(pairs), len(metrics)))
    for m in range(len(metrics)):
        adjusted[:, m] = adjust_pvalues([raw[k][m]["p_value"] for k in range(len(pairs))], adjust)
    different: dict[str, set[frozenset[str]]] = {metric: set() for metric in metrics}
    for k, (a, b) in enumerate(index_pairs):
        for m, metric in enumerate(metrics):
            entry = raw[k][m]
            significant = bool(adjusted[k, m] <= alpha and entry["confidence"] >= confidence)
            if significant:
                different[metric].add(frozenset((names[a], names[b])))
            comparisons.append(
                Comparison(
                    a=names[a],
                    b=names[b],
                    metric=metric,
                    value_a=scores[names[a]][metric],
                    value_b=scores[names[b]][metric],
                    difference=scores[names[a]][metric] - scores[names[b]][metric],
                    alternative=alternative,
                    p_adjusted=float(adjusted[k, m]),
                    significant=significant,
                    units=len(pairs[k].diffs),
                    ci=(
                        (float(pair_ci[k, m, 0]), float(pair_ci[k, m, 1]))
                        if pair_ci is not None
                        else None
                    ),
                    classic=(
                        classic_tests(tallies.counts[a], tallies.counts[b], metric, alternative)
                        if classic
                        else None
                    ),
                    **entry,
                )
            )

    groups: dict[str, list[list[str]]] = {}
    letters: dict[str, dict[str, str]] = {}
    for metric in metrics:
        order = sorted(names, key=lambda s, metric=metric: (-scores[s][metric], s))
        runs = groupings(order, lambda x, y, metric=metric: frozenset((x, y)) in different[metric])
        groups[metric] = runs
        letters[metric] = letter_display(order, runs)

    settings = {
        "method": method,
        "shuffles": shuffles,
        "seed": seed,
        "alternative": alternative,
        "alpha": alpha,
        "confidence": confidence,
        "adjust": adjust,
        "bootstrap": bootstrap,
        "ci_level": ci_level,
        "units": len(tallies.units),
        "metrics": list(metrics),
    }
    return SignificanceResult(
        systems=names,
        metrics=metrics,
        scores=scores,
        comparisons=tuple(comparisons),
        groups=groups,
        letters=letters,
        settings=settings,
        system_ci=system_ci,
    )
