"""The classic tests beside randomization: paired (sign, Wilcoxon, matched-pair t) and those
that wrongly assume independence (two-sample t, binomial z, χ²), which understate significance
for correlated systems (Yeh 2000: r ≈ 0.3–0.8 on MUC data; :func:`understatement`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from functools import cached_property

import numpy as np
from scipy import special

from muceval.significance.kernels import (
    METRIC_COEFS,
    metric_values,
    reduce_counts,
)


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
    binomial: float | None = None
    of: str = "the metric"
    """What the tests of per-unit values test: ``'the metric'`` (recall: a mean over key
    items), or ``'the mean per-unit value'`` (precision and F, asked for)."""
    reason: str | None = None
    """Why the tests of per-unit values and Yeh's factor are n/a, where they are."""
    yeh_factor: float | None = None
    """Yeh's √(1/(1 − r)) (:func:`understatement`), where it applies (recall, or asked)."""


@dataclass(frozen=True)
class ClassicTest:
    """One classic test: command-line name (``--tests``), terminal column head, field of
    :class:`ClassicTests`, and what computes its p-values for a block of pairs (NaN where n/a).

    >>> [(t.id, t.field) for t in CLASSIC if t.paired]
    [('paired-t', 'paired_t'), ('sign', 'sign'), ('wilcoxon', 'wilcoxon')]
    """

    id: str
    head: str
    field: str
    paired: bool
    per_unit: bool
    p_values: Callable[[_Pairs], np.ndarray]


CLASSIC_FIELDS = tuple(f.name for f in fields(ClassicTests) if f.name not in ("units", "of",
                                                                               "reason"))


@dataclass(frozen=True, eq=False)
class ClassicColumns:
    """:class:`ClassicTests` of many pairs of one metric as arrays (NaN where n/a)."""

    units: np.ndarray
    values: dict[str, np.ndarray]
    of: str = "the metric"
    reason: str | None = None

    def __len__(self) -> int:
        return len(self.units)

    def row(self, k: int) -> ClassicTests:
        values = {name: float(v[k]) for name, v in self.values.items()}
        return ClassicTests(int(self.units[k]), of=self.of, reason=self.reason,
                            **{name: None if v != v else v for name, v in values.items()})

    def rows(self) -> list[ClassicTests]:
        columns = [[None if v != v else v for v in self.values[name].tolist()]
                   for name in CLASSIC_FIELDS]
        return [ClassicTests(u, of=self.of, reason=self.reason,
                             **dict(zip(CLASSIC_FIELDS, found, strict=True)))
                for u, *found in zip(self.units.tolist(), *columns, strict=True)]

    @staticmethod
    def concatenate(parts: Sequence[ClassicColumns]) -> ClassicColumns:
        first = parts[0]
        return ClassicColumns(np.concatenate([p.units for p in parts]),
                              {name: np.concatenate([p.values[name] for p in parts])
                               for name in CLASSIC_FIELDS}, first.of, first.reason)


def understatement(correlation: float | None) -> float | None:
    """Yeh's factor √(1/(1 − r)): how much a test that assumes independence understates the
    statistic of a difference between systems correlated by ``r``.

    >>> round(understatement(0.5), 3)
    1.414
    """
    if correlation is None or not 0 <= correlation < 1:
        return None
    return float(np.sqrt(1.0 / (1.0 - correlation)))


def classic_tests(
    a: np.ndarray, b: np.ndarray, metric: str, alternative: str = "two-sided"
) -> ClassicTests:
    """Classic paired and (wrongly) independent tests of two systems' ``units × 4`` counts.

    Per-unit values are the metric of each unit's own tallies, where both denominators are
    positive; one-sided tests look in the observed direction. The formulas are written out
    (scipy.stats' per-call overhead dominates with hundreds of pairs; the tests check them
    against it): Wilcoxon by the normal approximation with tie correction and no continuity
    correction, a pooled-variance two-sample t, χ² without Yates, a pooled two-proportion z.

    >>> a = np.array([[2, 2, 2, 0]] * 6); b = np.array([[2, 2, 0, 0]] * 6)
    >>> round(classic_tests(a, b, "recall").sign, 4)
    0.0312
    """
    return _classic_columns(np.stack([a, b]), [(0, 1)], metric, alternative).row(0)


def _tails(z: np.ndarray, alt: np.ndarray,
           upper: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """p-values of statistics ``z`` from their upper-tail function, in direction ``alt``."""
    two = np.minimum(1.0, 2.0 * upper(np.abs(z)))
    return np.where(alt == 0, two, np.where(alt > 0, upper(z), upper(-z)))


def _none(values: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """``values`` where valid and finite, NaN (n/a) elsewhere."""
    return np.where(valid & np.isfinite(values), values, np.nan)


NOT_MEANS = ("precision and F are not means of per-unit values, so tests of those values "
             "answer another question (Yeh 2000 applies them to recall); asked for, they are "
             "tests of the mean per-unit value")


def classic_tests_many(counts: np.ndarray, pairs: Sequence[tuple[int, int]], metric: str,
                       alternative: str = "two-sided",
                       unit_means: bool = False) -> list[ClassicTests]:
    """:func:`classic_tests` of every pair ``(a, b)`` of ``counts`` (systems × units × 4); for
    precision and F, those of per-unit values are n/a unless ``unit_means``."""
    return classic_columns(counts, pairs, metric, alternative, unit_means).rows()


def classic_columns(counts: np.ndarray, pairs: Sequence[tuple[int, int]] | np.ndarray,
                    metric: str, alternative: str = "two-sided",
                    unit_means: bool = False) -> ClassicColumns:
    """:func:`classic_tests_many` as :class:`ClassicColumns` (``pairs`` may be an array)."""
    if metric == "recall" or unit_means:
        of = "the metric" if metric == "recall" else "the mean per-unit value"
        return _classic_columns(counts, pairs, metric, alternative, (of, None))
    # Not computed at all, rather than computed and dropped: at hundreds of systems the
    # tests of per-unit values are most of a run's classic tests.
    return _classic_columns(counts, pairs, metric, alternative, ("the metric", NOT_MEANS))


_Kind = tuple[str, str | None]  # what the tests of per-unit values test, and why n/a (or None)


def _classic_columns(counts: np.ndarray, pairs: Sequence[tuple[int, int]] | np.ndarray,
                     metric: str, alternative: str, kind: _Kind | None = None) -> ClassicColumns:
    alpha, gamma, _ = METRIC_COEFS[metric]
    reduced = reduce_counts(counts)
    den = alpha * reduced[..., 0] + gamma * reduced[..., 1]
    values = metric_values(reduced, metric)
    totals = reduced.sum(axis=1)
    n_units = counts.shape[1]
    index = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    # Blocks of about 2 MB per (pairs × units) array: within the caches, where 16 MB blocks
    # spent a fifth of the time waiting for memory.
    block = max(1, (1 << 18) // max(1, n_units))
    parts = [_block(index[start:start + block, 0], index[start:start + block, 1], den, values,
                    totals, metric, alternative, kind)
             for start in range(0, max(1, len(index)), block)]
    return ClassicColumns.concatenate(parts)


class _Pairs:
    """A block of pairs as the tests read it (``alt``: 0 two-sided, 1 greater, −1 less)."""

    def __init__(self, ia: np.ndarray, ib: np.ndarray, den: np.ndarray, values: np.ndarray,
                 totals: np.ndarray, metric: str, alternative: str) -> None:
        self.metric, self.totals_a, self.totals_b = metric, totals[ia], totals[ib]
        self.keep = keep = (den[ia] > 0) & (den[ib] > 0)
        self.va, self.vb = va, vb = np.where(keep, values[ia], 0.0), np.where(keep, values[ib], 0.0)
        self.n = n = keep.sum(axis=1)
        observed = metric_values(self.totals_a, metric) - metric_values(self.totals_b, metric)
        self.alt = (np.zeros(len(ia)) if alternative == "two-sided"
                    else np.where(observed >= 0, 1, -1))
        safe_n = np.maximum(n, 1)
        self.mean_a, self.mean_b = va.sum(1) / safe_n, vb.sum(1) / safe_n
        self.ca = np.where(keep, va - self.mean_a[:, None], 0.0)
        self.cb = np.where(keep, vb - self.mean_b[:, None], 0.0)
        self.ss_a, self.ss_b = (self.ca * self.ca).sum(1), (self.cb * self.cb).sum(1)

    @cached_property
    def differences(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The kept units' differences (0 elsewhere), where they are not 0, and how many."""
        d = self.va - self.vb
        nz = self.keep & (d != 0)
        return d, nz, nz.sum(axis=1)

    @cached_property
    def proportions(self) -> tuple[np.ndarray, np.ndarray]:
        """χ² and the two-proportion z test on the credited share of recall or precision."""
        if self.metric not in ("recall", "precision"):
            return np.full(len(self.n), np.nan), np.full(len(self.n), np.nan)
        ta, tb = self.totals_a, self.totals_b
        col = 0 if self.metric == "recall" else 1
        na, nb = ta[:, 2] / 2.0, tb[:, 2] / 2.0
        table = np.stack([np.stack([na, ta[:, col] - na], 1), np.stack([nb, tb[:, col] - nb], 1)],
                         1).astype(np.float64)
        rows, cols = table.sum(2), table.sum(1)
        ok = np.all(rows > 0, axis=1) & np.all(cols > 0, axis=1)
        total = table.sum((1, 2))
        with np.errstate(divide="ignore", invalid="ignore"):
            expected = rows[:, :, None] * cols[:, None, :] / total[:, None, None]
            statistic = ((table - expected) ** 2 / expected).sum((1, 2))
            chi2 = special.chdtrc(1, statistic)
            pa, pb = table[:, 0, 0] / rows[:, 0], table[:, 1, 0] / rows[:, 1]
            pooled = cols[:, 0] / total
            se = np.sqrt(pooled * (1 - pooled) * (1 / rows[:, 0] + 1 / rows[:, 1]))
            z = (pa - pb) / np.where(se > 0, se, 1.0)
            binomial = np.where(se > 0, _tails(z, self.alt, lambda x: special.ndtr(-x)),
                                np.where(pa == pb, 1.0, 0.0))
        return _none(chi2, ok), _none(binomial, ok)


def _block(ia: np.ndarray, ib: np.ndarray, den: np.ndarray, values: np.ndarray,
           totals: np.ndarray, metric: str, alternative: str,
           kind: _Kind | None) -> ClassicColumns:
    """The tests of one block of pairs; ``kind`` None: every test, without Yeh's factor."""
    pairs = _Pairs(ia, ib, den, values, totals, metric, alternative)
    nothing = np.full(len(ia), np.nan)
    per_unit = kind is None or kind[1] is None
    with np.errstate(divide="ignore", invalid="ignore"):
        found = {"correlation": (r := _correlation(pairs))}
        found |= {t.field: t.p_values(pairs) if per_unit or not t.per_unit else nothing
                  for t in CLASSIC}
        # understatement(r), for every r at once: n/a outside 0 ≤ r < 1 (NaN fails both).
        found["yeh_factor"] = (np.where((r >= 0) & (r < 1), np.sqrt(1.0 / (1.0 - r)), np.nan)
                               if kind is not None and kind[1] is None else nothing)
    of, reason = ("the metric", None) if kind is None else kind
    return ClassicColumns(pairs.n.astype(np.int64), {f: found[f] for f in CLASSIC_FIELDS}, of,
                          reason)


def _correlation(p: _Pairs) -> np.ndarray:
    """Pearson r where both systems vary, as np.corrcoef computes it."""
    safe_n = np.maximum(p.n, 1)
    r = (p.ca * p.cb).sum(1) / np.sqrt(p.ss_a * p.ss_b)
    std_ok = (p.n >= 2) & (np.sqrt(p.ss_a / safe_n) > 0) & (np.sqrt(p.ss_b / safe_n) > 0)
    return _none(np.clip(r, -1.0, 1.0), std_ok)


def _sign_test(p: _Pairs) -> np.ndarray:
    d, nz, m = p.differences
    k = (nz & (d > 0)).sum(1)
    below = special.bdtr(k, m, 0.5)
    above = np.where(k > 0, special.bdtrc(k - 1, m, 0.5), 1.0)
    sign_p = np.where(p.alt == 0, np.minimum(1.0, 2.0 * np.minimum(below, above)),
                      np.where(p.alt > 0, above, below))
    return _none(np.where(m == 0, 1.0, sign_p), p.n > 0)


def _wilcoxon(p: _Pairs) -> np.ndarray:
    d, nz, m = p.differences
    # Ranks of |d| among the non-zero differences (others ranked last).
    absd = np.where(nz, np.abs(d), np.inf)
    ranks = _average_ranks(absd)
    w_plus = np.where(nz & (d > 0), ranks, 0.0).sum(1)
    # Σ(t³ − t) over tie groups, from the average ranks' sum of squares.
    squares = np.where(nz, ranks * ranks, 0.0).sum(1)
    ties = 12.0 * (m * (m + 1) * (2 * m + 1) / 6.0 - squares)
    var = m * (m + 1) * (2 * m + 1) / 24.0 - ties / 48.0
    z = (w_plus - m * (m + 1) / 4.0) / np.sqrt(np.where(var > 0, var, 1.0))
    found = np.where(m == 0, 1.0, _tails(z, p.alt, lambda x: special.ndtr(-x)))
    return _none(found, (p.n > 0) & ((m == 0) | (var > 0)))


def _average_ranks(values: np.ndarray) -> np.ndarray:
    """``scipy.stats.rankdata(values, axis=1)`` without importing scipy.stats (half a second
    of every run that writes JSON)."""
    rows, n = values.shape
    order = np.argsort(values, axis=1, kind="stable")
    ordered = np.take_along_axis(values, order, axis=1)
    starts = np.ones((rows, n), dtype=bool)
    starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    group = np.cumsum(starts, axis=1) - 1 + (np.arange(rows) * n)[:, None]
    position = np.broadcast_to(np.arange(1, n + 1, dtype=np.float64), (rows, n))
    average = (np.bincount(group.ravel(), weights=position.ravel(), minlength=rows * n)
               / np.maximum(np.bincount(group.ravel(), minlength=rows * n), 1))
    ranks = np.empty((rows, n), dtype=np.float64)
    np.put_along_axis(ranks, order, average[group], axis=1)
    return ranks


def _paired_t(p: _Pairs) -> np.ndarray:
    d, n = p.differences[0], p.n
    safe_n = np.maximum(n, 1)
    mean_d = d.sum(1) / safe_n
    cd = np.where(p.keep, d - mean_d[:, None], 0.0)
    sd = np.sqrt((cd * cd).sum(1) / np.maximum(n - 1, 1))
    big = sd > 1e-12 * np.maximum(1.0, np.abs(mean_d))
    t = mean_d / np.where(big, sd / np.sqrt(safe_n), 1.0)
    return _none(np.where(big, _tails(t, p.alt, lambda x: special.stdtr(np.maximum(n - 1, 1),
                                                                        -x)),
                          np.where(mean_d == 0, 1.0, 0.0)), n >= 2)


def _two_sample_t(p: _Pairs) -> np.ndarray:
    gap, n = p.mean_a - p.mean_b, p.n
    pooled = (p.ss_a + p.ss_b) / np.maximum(2 * n - 2, 1)
    spread = pooled > 1e-24
    t2 = gap / np.sqrt(np.where(spread, pooled, 1.0) * 2.0 / np.maximum(n, 1))
    return _none(np.where(spread, _tails(t2, p.alt, lambda x: special.stdtr(
        np.maximum(2 * n - 2, 1), -x)), np.where(gap == 0, 1.0, 0.0)), n >= 2)


CLASSIC = (
    ClassicTest("paired-t", "pair t", "paired_t", True, True, _paired_t),
    ClassicTest("sign", "sign", "sign", True, True, _sign_test),
    ClassicTest("wilcoxon", "wilcox", "wilcoxon", True, True, _wilcoxon),
    ClassicTest("two-sample-t", "2-smp t", "two_sample_t", False, True, _two_sample_t),
    ClassicTest("binomial", "binom", "binomial", False, False, lambda p: p.proportions[1]),
    ClassicTest("chi2", "χ²", "chi2", False, False, lambda p: p.proportions[0]),
)
"""The classic tests, in the order the terminal and the report show them."""
CLASSIC_TESTS = tuple(t.id for t in CLASSIC)
PAIRED_TESTS = tuple(t.id for t in CLASSIC if t.paired)
"""The tests that do not assume independence (the default view)."""
TEST_FIELDS = {t.id: t.field for t in CLASSIC}
CSV_CLASSIC = tuple(f for f in CLASSIC_FIELDS if f == "correlation" or f in TEST_FIELDS.values())
"""The fields of :class:`ClassicTests` in the pairwise table's CSV, in its order."""
