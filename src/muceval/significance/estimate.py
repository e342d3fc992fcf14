"""What a plan will cost on this machine (``significance --plan``), from short timed runs.

The kernels a run takes are timed on a sample of its own work, the way the run takes them:
the approximate kernel that :func:`~muceval.significance.kernels.approximate_counts` chooses
for the run's batches, on the run's threads; exact jobs one at a time (how their time splits
into a part per job and a part per lattice cell) and then through the executor's thread pool
(how they overlap there). ``benchmarks/plan_estimates.py`` prints estimate beside measurement.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from muceval.significance.execute import LocalExecutor
from muceval.significance.kernels import (
    PairData,
    approximate_counts,
    exact_cost,
    exact_pvalue,
    takes_compiled,
)
from muceval.significance.plan import Plan
from muceval.significance.settings import SignificanceSettings

__all__ = ["PlanEstimate", "estimate"]

# Each part is timed for about this long (less when the part itself is shorter).
_CALIBRATION_SECONDS = 0.25
# Exact jobs longer than this (by a rough 1.7 ns per cell) are not timed unless all are.
_LONGEST_TIMED_CELLS = 6e8
# The cells of this many jobs, spread over the plan, stand for all of them (exact_cost takes
# about as long as a small job).
_COSTED_JOBS = 4096


@dataclass(frozen=True)
class PlanEstimate:
    """What a plan will cost: jobs, work, and the time of its randomization (the kernels only)
    on ``workers`` workers of ``threads`` threads each."""

    pairs: int
    approximate_pairs: int
    exact_jobs: int
    pair_shuffles: int
    exact_cells: float
    ns_per_pair_shuffle: float
    ns_per_cell: float
    us_per_job: float
    exact_speedup: float
    workers: int
    threads: int
    approximate_seconds: float
    exact_seconds: float

    @property
    def seconds(self) -> float:
        return self.approximate_seconds + self.exact_seconds

    def to_dict(self) -> dict[str, float | int]:
        return {"pairs": self.pairs, "approximate_pairs": self.approximate_pairs,
                "exact_jobs": self.exact_jobs, "pair_shuffles": self.pair_shuffles,
                "exact_cells": self.exact_cells,
                "ns_per_pair_shuffle": round(self.ns_per_pair_shuffle, 2),
                "ns_per_cell": round(self.ns_per_cell, 3),
                "us_per_job": round(self.us_per_job, 1),
                "exact_speedup": round(self.exact_speedup, 2),
                "workers": self.workers, "threads": self.threads,
                "approximate_seconds": round(self.approximate_seconds, 2),
                "exact_seconds": round(self.exact_seconds, 2), "seconds": round(self.seconds, 2)}


def estimate(the_plan: Plan, pairs: Sequence[PairData], metrics: Sequence[str],
             settings: SignificanceSettings, workers: int, threads: int) -> PlanEstimate:
    """The plan's cost from timed runs of the kernels it will take, on this machine.

    Approximate pairs: the kernel that :func:`approximate_counts` chooses for a batch of the
    plan (compiled or NumPy) on ``threads`` threads, timed on pairs spread over the plan (after
    a run that loads it) on ever more work until a run takes a quarter of a second; its time per
    pair-shuffle times the plan's pair-shuffles, shared by ``workers``. Exact jobs: the smallest
    and those around the median enumerated one at a time, fitted as a time per job plus a time
    per lattice cell of :func:`exact_cost`, then again through the executor's pool of
    ``threads`` threads, which gives how much they overlap; shared by ``workers``, and never
    shorter than the longest job.
    """
    assert settings.seed is not None, "the seed is drawn before the plan is estimated"
    ns_shuffle = _time_approximate(the_plan, pairs, metrics, settings, threads)
    pair_shuffles = len(the_plan.approximate_pairs) * settings.shuffles
    jobs = the_plan.exact_jobs
    spread = _spread(len(jobs), _COSTED_JOBS)
    costs = np.array([exact_cost(pairs[jobs[i].pair], metrics[jobs[i].metric])
                      for i in spread])
    cells = float(costs.sum()) * len(jobs) / max(1, len(spread))
    per_job = ns_cell = 0.0
    speedup = 1.0
    exact_seconds = 0.0
    if len(jobs):
        per_job, ns_cell, speedup = _time_exact(the_plan, pairs, metrics, settings, spread,
                                                costs, threads)
        serial = len(jobs) * per_job + cells * ns_cell / 1e9
        longest = per_job + float(costs.max()) * ns_cell / 1e9
        exact_seconds = max(longest, serial / speedup / max(1, workers))
    return PlanEstimate(len(pairs), len(the_plan.approximate_pairs), len(jobs), pair_shuffles,
                        cells, ns_shuffle, ns_cell, per_job * 1e6, speedup, workers, threads,
                        pair_shuffles * ns_shuffle / 1e9 / max(1, workers), exact_seconds)


def _spread(count: int, most: int) -> np.ndarray:
    """At most ``most`` indices of ``range(count)``, evenly spread, first and last included."""
    return np.unique(np.linspace(0, count - 1, min(count, most)).round().astype(int))


def _time_approximate(the_plan: Plan, pairs: Sequence[PairData], metrics: Sequence[str],
                      settings: SignificanceSettings, threads: int) -> float:
    """Nanoseconds per pair-shuffle of the approximate kernel the run takes (0 without pairs)."""
    chosen = the_plan.approximate_pairs
    if not chosen:
        return 0.0
    # The executor's batches are of about 2^25 pair-shuffles: the first decides the kernel.
    batch = [pairs[k] for k in chosen[: max(1, (1 << 25) // max(1, settings.shuffles))]]
    compiled = takes_compiled(batch, settings.shuffles)
    sample = [pairs[chosen[i]] for i in _spread(len(chosen), 512)]

    def elapsed(count: int, shuffles: int) -> float:
        started = time.perf_counter()
        approximate_counts(sample[:count], tuple(metrics), shuffles, settings.seed or 0,
                           settings.two_sided, threads=threads, compiled=compiled)
        return time.perf_counter() - started

    count, shuffles = min(len(sample), 16), min(settings.shuffles, 512)
    elapsed(count, shuffles)  # loads (or compiles) the kernel
    # Ever more work (shuffles first, then pairs) until a run is long enough for the fixed
    # cost of a call to weigh on the rate as little as in the run's large batches.
    while True:
        seconds = elapsed(count, shuffles)
        if (seconds >= _CALIBRATION_SECONDS
                or (shuffles == settings.shuffles and count == len(sample))):
            return seconds * 1e9 / (count * shuffles)
        grow = min(8.0, max(2.0, _CALIBRATION_SECONDS / max(seconds, 1e-6)))
        if shuffles < settings.shuffles:
            shuffles = min(settings.shuffles, int(shuffles * grow))
        else:
            count = min(len(sample), int(count * grow))


def _time_exact(the_plan: Plan, pairs: Sequence[PairData], metrics: Sequence[str],
                settings: SignificanceSettings, spread: np.ndarray, costs: np.ndarray,
                threads: int) -> tuple[float, float, float]:
    """Seconds per job and nanoseconds per lattice cell of the exact enumeration on one
    thread, and the speed-up of the executor's pool of ``threads`` threads over one thread
    (``costs``: the cells of the jobs at ``spread``)."""
    jobs = the_plan.exact_jobs
    order = np.argsort(costs, kind="stable")

    def job(position: int) -> int:
        return int(spread[order[position]])

    def run(position: int) -> float:
        chosen = jobs[job(position)]
        started = time.perf_counter()
        exact_pvalue(pairs[chosen.pair], metrics[chosen.metric], settings.two_sided,
                     settings.exact_budget)
        return time.perf_counter() - started

    run(0)  # loads the kernel
    # The eight smallest jobs, then from the median outwards (the larger neighbour first),
    # none very long unless all are, until enough time is measured.
    short = int(np.searchsorted(costs[order], _LONGEST_TIMED_CELLS, side="right")) or 1
    middle = short // 2
    around = [middle + (i + 1) // 2 if i % 2 else middle - i // 2 for i in range(2 * short)]
    picks = list(dict.fromkeys([*range(min(8, short)), *(p for p in around if 0 <= p < short)]))
    timed: list[tuple[int, float, float]] = []
    total = 0.0
    for position in picks:
        seconds = run(position)
        timed.append((position, max(1.0, float(costs[order[position]])), seconds))
        total += seconds
        if total >= _CALIBRATION_SECONDS and len(timed) >= 2:
            break
    _, x, t = (np.array(column) for column in zip(*timed, strict=True))
    fitted = np.linalg.lstsq(np.stack([np.ones_like(x), x], axis=1), t, rcond=None)[0]
    per_job, per_cell = float(fitted[0]), float(fitted[1])
    if per_cell <= 0:  # jobs all alike: a time per job only
        per_job, per_cell = float(t.mean()), 0.0
    elif per_job < 0:
        per_job, per_cell = 0.0, float(t.sum() / x.sum())
    speedup = 1.0
    if threads > 1:
        # Too few jobs to keep every thread busy say nothing of the overlap: take it as full.
        speedup = float(threads)
        if len(timed) >= 4 * threads:
            # Longest first, so that the pool's last job is short: the plan's many jobs keep
            # the threads busy to the end, a handful in their own order would not.
            longest_first = sorted(timed, key=lambda row: -row[2])
            sample = Plan(the_plan.exact, (), tuple(jobs[job(p)] for p, _, _ in longest_first),
                          0)
            started = time.perf_counter()
            LocalExecutor(threads).run(sample, pairs, metrics, settings)
            wall = time.perf_counter() - started
            # Against the best the pool could do with these jobs (a long one may keep a
            # thread busy alone), not against a perfect share.
            best = max(total / threads, float(t.max()))
            speedup = min(float(threads), threads * best / wall)
    return per_job, per_cell * 1e9, speedup
