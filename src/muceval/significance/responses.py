"""Yeh's randomization over responses (Yeh 2000, section 3): each response only one of two
systems produced goes to either pseudo-system by a fair coin (:mod:`muceval.core.responses`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from muceval.core.responses import PairResponses
from muceval.errors import UsageError
from muceval.significance.baseline import BaselineComparison, BaselineResult, verdict
from muceval.significance.kernels import (
    METRIC_COEFS,
    count_extreme,
    metric_values,
    reduce_counts,
    totals_value,
)
from muceval.significance.kernels import drawn_words as _drawn
from muceval.significance.kernels import enumerated_words as _enumerated
from muceval.significance.plan import MAX_EXACT_UNITS, Decided, decide_method
from muceval.significance.settings import SignificanceSettings

__all__ = ["YEH_SHUFFLES", "ResponseTest", "compare_responses", "randomize_responses",
           "sign_test"]

YEH_SHUFFLES = 1 << 20
"""Yeh's number of random assignments beyond the bound."""


COMPILE_FROM = 1 << 15
"""From this many assignments on, the compiled loop counts them."""


@dataclass(frozen=True)
class ResponseTest:
    """The randomization test of one metric over responses; ``second_p_value``: the
    approximate test run again with ``seed + 1`` (Yeh's check)."""

    metric: str
    difference: float
    p_value: float
    method: Decided
    n: int
    assignments: int
    nge: int
    second_p_value: float | None = None


def randomize_responses(units: PairResponses, metrics: Sequence[str],
                        settings: SignificanceSettings) -> list[ResponseTest]:
    """Test the difference first − second of each metric by randomization over responses;
    ``'exact'`` is refused beyond :data:`~muceval.significance.plan.MAX_EXACT_UNITS`
    responses (Yeh's bound).

    Two responses only the first system produced, each correct against its own key fill:

    >>> import numpy as np
    >>> from muceval.core.responses import PairResponses, Response
    >>> units = PairResponses("A", "B", np.array([[2, 0, 0, 0], [2, 0, 0, 0]]),
    ...     (Response("M#key:1#s", "X", "a"), Response("M#key:1#t", "Y", "a")),
    ...     np.array([[0, 1, 1, 0], [0, 1, 1, 0]]), ())
    >>> [(t.metric, t.p_value, t.method) for t in randomize_responses(units, ["recall"],
    ...     SignificanceSettings(method="auto"))]
    [('recall', 0.5, 'exact')]
    """
    method = decide_method(settings.method, units.n <= MAX_EXACT_UNITS)
    if method == "exact" and units.n > MAX_EXACT_UNITS:
        raise UsageError(f"{units.n} responses: the exact test enumerates at most 2^"
                         f"{MAX_EXACT_UNITS} assignments; use method 'auto' or 'approximate'",
                         parameter="method")
    observed = reduce_counts(units.observed)
    differences = [totals_value(observed[0], m) - totals_value(observed[1], m) for m in metrics]
    two_sided = settings.two_sided
    if method == "exact":
        total = 1 << units.n
        nge = _count(units, metrics, differences, two_sided, _enumerated(units.n), total)
        return [ResponseTest(m, d, float(c / total), "exact", units.n, total, int(c))
                for m, d, c in zip(metrics, differences, nge, strict=True)]
    if settings.seed is None:
        raise UsageError("the approximate test needs a seed", parameter="seed")
    runs = [_count(units, metrics, differences, two_sided,
                   _drawn(units.n, settings.shuffles, seed), settings.shuffles)
            for seed in (settings.seed, settings.seed + 1)]
    shuffles = settings.shuffles
    return [ResponseTest(m, d, float((c + 1) / (shuffles + 1)), "approximate", units.n,
                         shuffles, int(c), float((again + 1) / (shuffles + 1)))
            for m, d, c, again in zip(metrics, differences, runs[0], runs[1], strict=True)]


def _byte_tables(contributions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per byte of the coin words, the (POS, ACT, N2) its set bits give to the first
    pseudo-system (a look-up per eight singles), and the sum of all."""
    reduced = reduce_counts(contributions) if len(contributions) else np.zeros((0, 3), np.int64)
    n_bytes = -(-len(reduced) // 8)
    padded = np.zeros((n_bytes * 8, 3), dtype=np.int64)
    padded[:len(reduced)] = reduced
    bits = (np.arange(256)[:, None] >> np.arange(8)) & 1
    tables: np.ndarray = np.einsum("vb,nbc->nvc", bits, padded.reshape(n_bytes, 8, 3))
    return tables, tables[:, 255].sum(axis=0)


def _bits(words: np.ndarray, start: int, width: int) -> np.ndarray:
    """The ``width`` coin bits from bit ``start`` on, as an integer per shuffle."""
    out = np.zeros(len(words), dtype=np.int64)
    for j in range(width):
        position = start + j
        bit = (words[:, position // 64] >> np.uint64(position % 64)) & np.uint64(1)
        out |= bit.astype(np.int64) << j
    return out


def _count(units: PairResponses, metrics: Sequence[str], differences: Sequence[float],
           two_sided: bool, assignments: Iterator[np.ndarray], total: int) -> np.ndarray:
    """How many assignments are at least as extreme, per metric."""
    if total >= COMPILE_FROM:
        return _count_compiled(units, metrics, differences, two_sided, assignments)
    return _count_numpy(units, metrics, differences, two_sided, assignments)


def _count_compiled(units: PairResponses, metrics: Sequence[str], differences: Sequence[float],
                    two_sided: bool, assignments: Iterator[np.ndarray]) -> np.ndarray:
    from muceval.significance.compiled import response_counts

    tables, every = _byte_tables(units.contributions)
    widths = [len(g.responses) for g in units.groups]
    starts = len(units.singles) + np.concatenate([[0], np.cumsum(widths)[:-1]]).astype(np.int64)
    rows = np.concatenate([[0], np.cumsum([1 << w for w in widths])[:-1]]).astype(np.int64)
    groups = np.stack([starts, np.array(widths, dtype=np.int64), rows], axis=1) if widths \
        else np.zeros((0, 3), dtype=np.int64)
    outcomes = (np.concatenate([reduce_counts(g.outcomes) for g in units.groups])
                if units.groups else np.zeros((0, 2, 3), dtype=np.int64))
    coefs = np.array([METRIC_COEFS[m] for m in metrics], dtype=np.float64)
    counts = np.zeros(len(metrics), dtype=np.int64)
    for words in assignments:
        counts += response_counts(np.ascontiguousarray(words), tables, every,
                                  reduce_counts(units.base), groups, outcomes, coefs,
                                  np.array(differences, dtype=np.float64), two_sided)
    return counts


def _count_numpy(units: PairResponses, metrics: Sequence[str], differences: Sequence[float],
                 two_sided: bool, assignments: Iterator[np.ndarray]) -> np.ndarray:
    tables, every = _byte_tables(units.contributions)
    base = reduce_counts(units.base)
    outcomes = [reduce_counts(g.outcomes) for g in units.groups]
    counts = np.zeros(len(metrics), dtype=np.int64)
    for words in assignments:
        as_bytes = words.view(np.uint8)[:, :len(tables)]
        received = tables[np.arange(len(tables)), as_bytes].sum(axis=1)
        first = base[0] + received
        second = base[1] + every - received
        start = len(units.singles)
        for group, table in zip(units.groups, outcomes, strict=True):
            index = _bits(words, start, len(group.responses))
            first += table[index, 0]
            second += table[index, 1]
            start += len(group.responses)
        for m, (metric, observed) in enumerate(zip(metrics, differences, strict=True)):
            diff = metric_values(first, metric) - metric_values(second, metric)
            counts[m] += count_extreme(diff, observed, two_sided)
    return counts


def sign_test(units: PairResponses) -> float:
    """Yeh's check: the two-sided sign test of recall over the exchangeable responses (and
    groups), each a win for the system whose recall numerator it raises (recall is a mean
    over key items: the two should broadly agree)."""
    from scipy.stats import binomtest

    gains = [2 * int(c[2]) + int(c[3]) for c in units.contributions]
    wins = sum(1 for r, g in zip(units.singles, gains, strict=True) if g > 0 and r.owner == "a")
    losses = sum(1 for r, g in zip(units.singles, gains, strict=True) if g > 0 and r.owner == "b")
    for group in units.groups:
        observed = reduce_counts(group.outcomes[group.observed])
        swapped = reduce_counts(group.outcomes[(1 << len(group.responses)) - 1
                                               - group.observed])
        edge = int(observed[0, 2] - observed[1, 2]) - int(swapped[0, 2] - swapped[1, 2])
        wins += edge > 0
        losses += edge < 0
    if wins + losses == 0:
        return 1.0
    return float(binomtest(wins, wins + losses, 0.5).pvalue)


def compare_responses(units: Sequence[PairResponses], metrics: Sequence[str],
                      settings: SignificanceSettings) -> BaselineResult:
    """Candidates (each pair's second system) against the baseline (their shared first) by
    randomization over responses, as :func:`~muceval.significance.baseline.compare_to_baseline`
    gives it, with Yeh's checks (the sign test; a second seed). No interval: the bootstrap is
    over units, and responses are not sampled."""
    from muceval.significance.groups import confidence_level, decisions

    if not units or len({u.a for u in units}) != 1:
        raise UsageError("give pairs of the baseline (first) with each candidate (second)")
    settings = settings.with_seed()
    tests = [randomize_responses(u, metrics, settings) for u in units]
    p_raw = np.array([[t.p_value for t in row] for row in tests])
    confident = np.array([[1.0 if t.method == "exact" else
                           confidence_level(t.nge, t.assignments, settings.alpha)
                           for t in row] for row in tests])
    adjusted, decided = decisions(p_raw, confident, settings)
    comparisons = []
    for k, (pair, row) in enumerate(zip(units, tests, strict=True)):
        totals = reduce_counts(pair.observed)
        signs = sign_test(pair) if "recall" in metrics else None
        for m, test in enumerate(row):
            checks = {} if test.second_p_value is None else {"second_seed_p": test.second_p_value}
            if test.metric == "recall" and signs is not None:
                checks["sign_test_p"] = signs
            significant = bool(decided[k, m])
            comparisons.append(BaselineComparison(
                pair.b, test.metric, totals_value(totals[0], test.metric),
                totals_value(totals[1], test.metric), -test.difference, None,
                float(adjusted[k, m]), test.method, significant,
                verdict(-test.difference, significant), checks))
    # "units": the exchangeable responses of each candidate's pair (2^units assignments).
    recorded = settings.recorded(max(u.n for u in units), metrics, "response",
                                 responses={u.b: u.n for u in units},
                                 held={u.b: u.held for u in units})
    return BaselineResult(units[0].a, tuple(u.b for u in units), tuple(comparisons), recorded)
