"""Significance for the modern scorers' per-document ``(p_num, p_den, r_num, r_den)``, whose
precision and recall have numerators of their own (GTT's: 343 and 344 on its own predictions).

>>> from muceval.core.units import RatioTallies
>>> t = RatioTallies(("A", "B"), ("d1", "d2", "d3"),
...     np.array([[[1, 1, 1, 1]] * 3, [[0, 1, 0, 1]] * 3], dtype=float))
>>> r = compare_ratios(t, ("f1",), SignificanceSettings(method="exact", bootstrap=0))
>>> r.comparison("A", "B", "f1").p_value
0.25
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from muceval.core.units import RatioTallies
from muceval.errors import UsageError
from muceval.significance.assemble import RawColumns, RawTest, assemble
from muceval.significance.bootstrap import bootstrap_intervals, system_intervals
from muceval.significance.groups import confidence_level
from muceval.significance.kernels import coin_bits, count_extreme, drawn_words, enumerated_words
from muceval.significance.plan import MAX_EXACT_UNITS, Decided, decide_method
from muceval.significance.result import SignificanceResult
from muceval.significance.settings import SignificanceSettings, known_metrics

__all__ = ["RATIO_METRICS", "compare_ratios", "ratio_values"]

RATIO_METRICS = ("precision", "recall", "f1")


def ratio_values(sums: np.ndarray, metric: str) -> np.ndarray:
    """Precision, recall or F1 of ``(..., 4)`` summed ``(p_num, p_den, r_num, r_den)``
    (0 where a numerator is 0, as the official scorers print it)."""
    p_num, p_den, r_num, r_den = (sums[..., i] for i in range(4))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(p_num == 0, 0.0, p_num / np.where(p_den == 0, 1, p_den))
        r = np.where(r_num == 0, 0.0, r_num / np.where(r_den == 0, 1, r_den))
        if metric == "precision":
            return p
        if metric == "recall":
            return r
        return np.where(p + r == 0, 0.0, 2 * p * r / np.where(p + r == 0, 1, p + r))


def _pvalue(x_units: np.ndarray, y_units: np.ndarray, metric: str, settings: SignificanceSettings,
            method: Decided) -> RawTest:
    diffs = (y_units - x_units)
    diffs = diffs[np.any(diffs != 0, axis=1)]
    x, y = x_units.sum(0), y_units.sum(0)
    observed = float(ratio_values(x, metric) - ratio_values(y, metric))
    n = len(diffs)
    if method == "exact":
        chunks = enumerated_words(n)
    else:
        assert settings.seed is not None
        chunks = drawn_words(n, settings.shuffles, settings.seed)
    nge = 0
    for words in chunks:
        moved = coin_bits(words, n).astype(np.float64) @ diffs
        d = ratio_values(x + moved, metric) - ratio_values(y - moved, metric)
        nge += count_extreme(d, observed, settings.two_sided)
    if method == "exact":
        return RawTest(nge / (1 << n), "exact", None, None, 1.0, 0.0)
    return RawTest((nge + 1) / (settings.shuffles + 1), "approximate", settings.shuffles, nge,
                   confidence_level(nge, settings.shuffles, settings.alpha), 0.0)


def compare_ratios(
    tallies: RatioTallies,
    metrics: Sequence[str] = RATIO_METRICS,
    settings: SignificanceSettings | None = None,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> SignificanceResult:
    """Test every pair of systems on every metric, for the modern scorers' per-document counts.

    As :func:`compare`, for :class:`RatioTallies` (GTT, CEAF-REE, CEAF-RME), stratified by
    document, without classic tests. A metric is 0 where its numerator is 0, as the official
    scorers print it.

    Parameters
    ----------
    tallies : RatioTallies
        At least two systems' per-document (p_num, p_den, r_num, r_den).
    metrics : sequence of str, default ('precision', 'recall', 'f1')
    settings : SignificanceSettings or None, default None
        None: ``SignificanceSettings()``. ``method='exact'`` enumerates the 2^n exchanges of
        the n documents where a pair differs, for n at most 20; ``'auto'`` where n is.
    progress : callable or None, default None
        Called as ``progress(done, total)`` after each pair.

    Returns
    -------
    SignificanceResult
        Its ``settings`` record ``ratio=True``: the metrics are labelled P, R and F1.

    Raises
    ------
    UsageError
        If a metric is unknown, there are fewer than two systems, or ``method='exact'`` and
        a pair differs in more than 20 documents.

    Examples
    --------
    >>> import muceval
    >>> t = muceval.RatioTallies(("A", "B"), ("d1", "d2", "d3"),
    ...                          [[[1, 1, 1, 1]] * 3, [[0, 1, 0, 1]] * 3])
    >>> settings = muceval.SignificanceSettings(method="exact", bootstrap=0)
    >>> result = muceval.compare_ratios(t, ["f1"], settings)
    >>> c = result.comparison("A", "B", "f1")
    >>> c.value_a, c.value_b, c.p_value, result.label("f1")
    (1.0, 0.0, 0.25, 'F1')
    """
    chosen = (settings or SignificanceSettings()).with_seed()
    metrics = known_metrics(metrics, RATIO_METRICS, " for these scores")
    names = tallies.systems
    if len(names) < 2:
        raise UsageError("significance needs at least two systems")
    counts = tallies.counts
    totals = counts.sum(axis=1)
    scores = {s: {m: float(ratio_values(totals[i], m)) for m in metrics}
              for i, s in enumerate(names)}
    index_pairs = [(a, b) for a in range(len(names)) for b in range(a + 1, len(names))]
    raw = []
    differing = [int(np.any(counts[a] != counts[b], axis=1).sum()) for a, b in index_pairs]
    for k, (a, b) in enumerate(index_pairs):
        if chosen.method == "exact" and differing[k] > MAX_EXACT_UNITS:
            raise UsageError(f"exact randomization of {names[a]} vs {names[b]}: {differing[k]} "
                             f"documents differ (at most {MAX_EXACT_UNITS}); choose "
                             "'approximate' or 'auto'", parameter="method")
        method = decide_method(chosen.method, differing[k] <= MAX_EXACT_UNITS)
        raw.append([_pvalue(counts[a], counts[b], m, chosen, method) for m in metrics])
        if progress is not None:
            progress(k + 1, len(index_pairs))
    system_ci = pair_ci = None
    if chosen.bootstrap > 0:
        sys_ci, pair_ci = bootstrap_intervals(counts, metrics, index_pairs, chosen.bootstrap,
                                              chosen.ci_level, chosen.seed, ratio_values,
                                              batch=1000)
        system_ci = system_intervals(sys_ci, names, metrics)
    index = np.array(index_pairs, dtype=np.int64).reshape(-1, 2)
    found = assemble(names, metrics, scores, index[:, 0], index[:, 1],
                     RawColumns.of_tests(raw, len(metrics)), chosen, np.array(differing),
                     pair_ci)
    recorded = chosen.recorded(len(tallies.units), metrics, ratio=True)
    return SignificanceResult(names, metrics, scores, found.comparisons, found.groups,
                              found.letters, recorded, system_ci,
                              letter_groups=found.letter_groups)
