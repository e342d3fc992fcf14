"""Benchmark of the significance engine on the 17 official MUC-4 TST3 reports.

Runs all 136 pairs × 5 metrics × 2^20 shuffles with the compiled kernel and
compares the cost per pair-shuffle with (a) a plain NumPy implementation (one
pair at a time, coin matrix times difference matrix; the same coins) and
(b) ``scipy.stats.permutation_test`` on one pair; then times the exact test
of every pair for recall and precision, and for the F-measures.

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
    approximate_counts_numpy,
    default_threads,
    exact_pvalue,
    metric_values,
    reduce_counts,
)
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

    # The plain NumPy baseline: one pair at a time, a 0/1 coin matrix times the
    # difference matrix (BLAS), then the five metrics of both pseudo-systems.
    numpy_shuffles = 1 << 16
    rng = np.random.default_rng(1)
    pair = pairs[0]
    d = pair.diffs.astype(np.float64)
    start = time.perf_counter()
    plain_counts = np.zeros(len(METRICS), dtype=np.int64)
    for _ in range(0, numpy_shuffles, 1 << 14):
        flips = rng.integers(0, 2, size=(1 << 14, len(d))).astype(np.float64)
        s = (flips @ d).astype(np.int64)
        for m, metric in enumerate(METRICS):
            observed = metric_values(pair.total_x, metric) - metric_values(pair.total_y, metric)
            diff = metric_values(pair.total_x - s, metric) - metric_values(pair.total_y + s, metric)
            plain_counts[m] += np.count_nonzero(np.abs(diff) >= abs(observed) * (1 - 1e-9))
    per_numpy = (time.perf_counter() - start) / numpy_shuffles
    print(f"plain NumPy, one pair, 2^16 shuffles: {per_numpy * 1e9:.0f} ns per pair-shuffle "
          f"-> speed-up {per_numpy / per_fast:.0f}x")  # fmt: skip
    reference = approximate_counts_numpy(pair, METRICS, 1 << 12, seed=1)
    check = approximate_counts([pair], METRICS, 1 << 12, seed=1, compiled=True)[0]
    assert reference.tolist() == check.tolist(), "NumPy reference and kernel disagree"
    print("  (kernel counts equal the same-coin NumPy reference)")

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

    start = time.perf_counter()
    for metric in METRICS:
        stats.permutation_test(
            (x.T, y.T), statistic_for(metric), permutation_type="samples",
            vectorized=True, n_resamples=scipy_resamples, axis=-1, random_state=1,
        )  # fmt: skip
    per_scipy = (time.perf_counter() - start) / scipy_resamples
    print(f"scipy.stats.permutation_test, one pair, 5 metrics, 2^12 resamples: "
          f"{per_scipy * 1e9:.0f} ns per pair-shuffle -> speed-up {per_scipy / per_fast:.0f}x")  # fmt: skip

    sacrebleu_ar(x, y, per_fast)

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


def sacrebleu_ar(x: np.ndarray, y: np.ndarray, per_fast: float) -> None:
    """sacrebleu's paired approximate randomization on one pair, five metrics, with a
    metric object that gives it the per-unit (POS, ACT, N2) counts."""
    try:
        from sacrebleu.significance import Result, _paired_ar_test
    except ImportError:
        print("sacrebleu paired AR: skipped (pip install 'muceval[bench]' installs sacrebleu)")
        return

    class Counts:
        """What _paired_ar_test asks of a metric: per-segment statistics and a score."""

        def __init__(self, metric: str, rows: np.ndarray) -> None:
            self.metric, self.rows = metric, rows

        def _extract_corpus_statistics(self, hypotheses, references):
            return self.rows.astype(np.float64)

        def _aggregate_and_compute(self, stats_):
            total = np.asarray(stats_).reshape(-1, 3).sum(axis=0)

            class Score:
                score = float(metric_values(total, self.metric))

            return Score()

    samples = 1 << 10
    start = time.perf_counter()
    for metric in METRICS:
        baseline = Counts(metric, x)
        info = {metric: (x.astype(np.float64), Result(
            baseline._aggregate_and_compute(x).score, None))}
        _paired_ar_test(info, "B", [""] * len(y), None, {metric: Counts(metric, y)},
                        n_samples=samples, seed=1)
    per_sacrebleu = (time.perf_counter() - start) / samples
    print(f"sacrebleu paired AR, one pair, 5 metrics, 2^10 trials: {per_sacrebleu * 1e9:.0f} ns "
          f"per pair-shuffle -> speed-up {per_sacrebleu / per_fast:.0f}x")


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
