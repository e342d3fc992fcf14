"""Benchmark of the significance engine on the 17 official MUC-4 TST3 reports.

Runs all 136 pairs × 5 metrics × 2^20 shuffles with the compiled kernel (and F1
alone) and compares the cost per pair-shuffle with honest baselines measured in the
same run: (a) NumPy vectorised over pairs (one float32 matrix product of the coins
and every pair's differences per chunk, each metric vectorised), for 5 metrics and
for F1; (b) ``scipy.stats.permutation_test`` on one pair, per metric (F1), against
muceval's F1 alone; (c) sacrebleu's paired approximate randomization through a lean
adapter, per metric (F1). Then times the exact test of every pair for recall and
precision, and for the F-measures.

Usage: ``python benchmarks/significance.py [SHARED_DIR] [--skip-exact-f]``
(SHARED_DIR defaults to ``../shared`` beside the repository or ``$MUCEVAL_SHARED``).
Not a test: it prints figures.
"""

from __future__ import annotations

import itertools
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from scipy import stats

from muceval.formats.scores.reports import from_reports
from muceval.significance.engine import compare
from muceval.significance.kernels import (
    METRICS,
    PairData,
    approximate_counts,
    default_threads,
    exact_pvalue,
    metric_values,
    reduce_counts,
)
from muceval.significance.numpy_counts import approximate_counts_numpy
from muceval.significance.settings import SignificanceSettings

SHUFFLES = 1 << 20


def shared_dir(argv: list[str]) -> Path:
    args = [a for a in argv if not a.startswith("--")]
    if args:
        return Path(args[0])
    env = os.environ.get("MUCEVAL_SHARED")
    return Path(env) if env else Path(__file__).resolve().parent.parent.parent / "shared"


def main(argv: list[str]) -> int:
    reports = sorted((shared_dir(argv) / "muc4" / "tst3" / "official-scores").glob("*.nrad"))
    if len(reports) != 17:
        print(f"expected 17 official reports, found {len(reports)}", file=sys.stderr)
        return 1
    tallies = from_reports(reports)
    reduced = reduce_counts(tallies.counts)
    index_pairs = list(itertools.combinations(range(len(tallies.systems)), 2))
    pairs = [PairData.of(reduced[a], reduced[b]) for a, b in index_pairs]
    threads = default_threads()
    print(f"{len(tallies.systems)} systems, {len(pairs)} pairs, {len(tallies.units)} units, "
          f"{threads} threads")  # fmt: skip

    approximate_counts(pairs[:2], METRICS, 1000, seed=0)  # compile (cached after the first run)
    exact_pvalue(pairs[0], "recall")

    start = time.perf_counter()
    counts = approximate_counts(pairs, METRICS, SHUFFLES, seed=1)
    fast = time.perf_counter() - start
    per_fast = fast / (len(pairs) * SHUFFLES)
    print(f"approximate, all pairs × 5 metrics × 2^20 shuffles: {fast:.2f} s "
          f"({per_fast * 1e9:.1f} ns per pair-shuffle)")  # fmt: skip

    start = time.perf_counter()
    compare(tallies, settings=SignificanceSettings(shuffles=SHUFFLES, seed=1, bootstrap=1000))
    print(f"full compare() incl. classic tests and 1,000 bootstrap samples: "
          f"{time.perf_counter() - start:.2f} s")  # fmt: skip

    start = time.perf_counter()
    approximate_counts(pairs, ("f1",), SHUFFLES, seed=1)
    per_fast_f1 = (time.perf_counter() - start) / (len(pairs) * SHUFFLES)
    print(f"approximate, all pairs, F1 alone, 2^20 shuffles: {per_fast_f1 * 1e9:.1f} ns per "
          "pair-shuffle")

    # NumPy at its best: every pair at once, one float32 matrix product of the coins and all
    # pairs' differences per chunk of shuffles, then each metric vectorised over pairs.
    numpy_shuffles = 1 << 16
    for metric_list, per_ours in ((METRICS, per_fast), (("f1",), per_fast_f1)):
        start = time.perf_counter()
        vector_counts = numpy_all_pairs(reduced, index_pairs, metric_list, numpy_shuffles)
        per_numpy = (time.perf_counter() - start) / (len(pairs) * numpy_shuffles)
        print(f"NumPy vectorised over pairs, {len(metric_list)} metric(s), 2^16 shuffles: "
              f"{per_numpy * 1e9:.1f} ns per pair-shuffle -> muceval {per_numpy / per_ours:.1f}x "
              "faster")
    kernel_p = (counts + 1) / (SHUFFLES + 1)
    numpy_p = (numpy_all_pairs(reduced, index_pairs, METRICS, numpy_shuffles) + 1) / (
        numpy_shuffles + 1)
    worst = float(np.max(np.abs(kernel_p - numpy_p)))
    assert worst < 0.02, f"the NumPy baseline disagrees with the kernel ({worst:.4f})"
    print(f"  (its p-values within {worst:.4f} of the kernel's: other coins, same test)")
    del vector_counts
    reference = approximate_counts_numpy(pairs[0], METRICS, 1 << 12, seed=1)
    check = approximate_counts([pairs[0]], METRICS, 1 << 12, seed=1, compiled=True)[0]
    assert reference.tolist() == check.tolist(), "NumPy reference and kernel disagree"
    print("  (kernel counts equal the same-coin NumPy reference of one pair)")

    a, b = index_pairs[0]
    x, y = reduced[a], reduced[b]
    scipy_resamples = 1 << 12

    def statistic_for(metric):
        # Samples along ``axis``, the three counts on the axis before it: sum the samples,
        # then the metric of (POS, ACT, N2) per resample (one value per resample).
        def statistic(xs, ys, axis):
            sx = np.moveaxis(xs, axis, -1).sum(axis=-1)
            sy = np.moveaxis(ys, axis, -1).sum(axis=-1)
            return metric_values(sx, metric) - metric_values(sy, metric)

        return statistic

    probe = statistic_for("f1")(np.stack([x.T] * 7), np.stack([y.T] * 7), -1)
    assert probe.shape == (7,), "the scipy statistic must give one value per resample"

    # scipy tests one statistic per run: compared per metric, with muceval's F1 alone.
    start = time.perf_counter()
    stats.permutation_test(
        (x.T, y.T), statistic_for("f1"), permutation_type="samples",
        vectorized=True, n_resamples=scipy_resamples, axis=-1, random_state=1,
    )  # fmt: skip
    per_scipy = (time.perf_counter() - start) / scipy_resamples
    print(f"scipy.stats.permutation_test, one pair, F1, 2^12 resamples: "
          f"{per_scipy * 1e9:.0f} ns per pair-shuffle -> muceval (F1 alone) "
          f"{per_scipy / per_fast_f1:.0f}x faster")  # fmt: skip

    sacrebleu_ar(x, y, per_fast_f1)

    def exact_all(metric_list):
        jobs = [(p, m) for p in pairs for m in metric_list]
        start = time.perf_counter()
        with ThreadPoolExecutor(threads) as pool:
            results = list(pool.map(lambda job: exact_pvalue(job[0], job[1]), jobs))
        return time.perf_counter() - start, results

    elapsed, results = exact_all(("recall", "precision"))
    approx_p = (counts + 1) / (SHUFFLES + 1)
    worst = max(abs(r.p_value - approx_p[k // 2, k % 2]) for k, r in enumerate(results))
    print(f"exact, all pairs, recall + precision: {elapsed:.2f} s "
          f"(max |exact - approximate| = {worst:.4f})")  # fmt: skip
    json_output()
    if "--skip-exact-f" not in argv:
        for metric in ("f1", "f0.5", "f2"):
            elapsed, results = exact_all((metric,))
            cells = max(r.cells for r in results)
            print(f"exact, all pairs, {metric}: {elapsed:.2f} s (largest grid {cells:,} cells)")
    return 0


class _Score:
    """The score object sacrebleu reads (``.score``), made once, not a class per call."""

    __slots__ = ("score",)

    def __init__(self, score: float) -> None:
        self.score = score


class _LeanCounts:
    """The least a metric must do for sacrebleu's ``_paired_ar_test``: hand over per-unit
    (POS, ACT, N2) rows and score their sum."""

    def __init__(self, metric: str, rows: np.ndarray) -> None:
        self.metric, self.rows = metric, rows.astype(np.float64)

    def _extract_corpus_statistics(self, hypotheses, references):
        return self.rows

    def _aggregate_and_compute(self, stats_):
        total = np.asarray(stats_).reshape(-1, 3).sum(axis=0)
        return _Score(float(metric_values(total, self.metric)))


def sacrebleu_ar(x: np.ndarray, y: np.ndarray, per_fast_f1: float) -> None:
    """sacrebleu's paired approximate randomization on one pair and one metric (F1), through
    a lean adapter, against muceval's F1 alone."""
    try:
        from sacrebleu.significance import Result, _paired_ar_test
    except ImportError:
        print("sacrebleu paired AR: skipped (pip install 'muceval[bench]' installs sacrebleu)")
        return

    samples = 1 << 10
    baseline = _LeanCounts("f1", x)
    info = {"f1": (baseline.rows, Result(baseline._aggregate_and_compute(x).score, None))}
    start = time.perf_counter()
    _paired_ar_test(info, "B", [""] * len(y), None, {"f1": _LeanCounts("f1", y)},
                    n_samples=samples, seed=1)
    per_sacrebleu = (time.perf_counter() - start) / samples
    print(f"sacrebleu paired AR (lean adapter), one pair, F1, 2^10 trials: "
          f"{per_sacrebleu * 1e9:.0f} ns per pair-shuffle -> muceval (F1 alone) "
          f"{per_sacrebleu / per_fast_f1:.0f}x faster")


def numpy_all_pairs(reduced: np.ndarray, index_pairs: list[tuple[int, int]],
                    metrics: tuple[str, ...], shuffles: int, chunk: int = 1 << 13) -> np.ndarray:
    """Two-sided counts of every pair and metric, NumPy vectorised over pairs (the baseline):
    ``pairs × metrics``."""
    from muceval.significance.kernels import METRIC_COEFS, REL_TOL, coins

    x = reduced[[a for a, _ in index_pairs]].astype(np.float32)
    y = reduced[[b for _, b in index_pairs]].astype(np.float32)
    n_pairs, n_units = x.shape[0], x.shape[1]
    d = (x - y).transpose(1, 0, 2).reshape(n_units, n_pairs * 3)
    tx, ty = x.sum(axis=1), y.sum(axis=1)

    def value(t: np.ndarray, metric: str) -> np.ndarray:
        alpha, gamma, kappa = METRIC_COEFS[metric]
        den = alpha * t[..., 0] + gamma * t[..., 1]
        return np.divide(kappa * t[..., 2], den, out=np.zeros_like(den), where=den > 0)

    limits = [np.abs(value(tx, m) - value(ty, m)) * (1 - REL_TOL) for m in metrics]
    out = np.zeros((n_pairs, len(metrics)), dtype=np.int64)
    for start in range(0, shuffles, chunk):
        flips = coins(1, start, min(shuffles, start + chunk), n_units).astype(np.float32)
        moved = (flips @ d).reshape(-1, n_pairs, 3)
        for k, metric in enumerate(metrics):
            diff = value(tx - moved, metric) - value(ty + moved, metric)
            out[:, k] += np.count_nonzero(np.abs(diff) >= limits[k], axis=0)
    return out


def json_output() -> None:
    """The JSON of a leaderboard-sized result (120 synthetic systems, 35,700 comparisons)
    against the plain indented ``json.dumps`` of ``dataclasses.asdict`` (the former way)."""
    import dataclasses
    import json

    from common import synthetic_tallies

    tallies = synthetic_tallies(120, 100)
    result = compare(tallies, settings=SignificanceSettings(shuffles=999, seed=1, bootstrap=0))
    start = time.perf_counter()
    text = result.to_json()
    ours = time.perf_counter() - start
    start = time.perf_counter()
    doc = {**result.to_dict(), "comparisons": [
        {**dataclasses.asdict(c), "ci": None} for c in result.comparisons]}
    plain = json.dumps(doc, indent=2)
    baseline = time.perf_counter() - start
    assert json.loads(text)["comparisons"] == json.loads(plain)["comparisons"]
    print(f"JSON of {len(result.comparisons):,} comparisons: {ours:.2f} s, {len(text) / 1e6:.1f} MB "
          f"(indented json.dumps of dataclasses.asdict: {baseline:.2f} s, "
          f"{baseline / ours:.1f}×)")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
