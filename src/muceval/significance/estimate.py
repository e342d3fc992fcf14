"""What a plan will cost on this machine (``significance --plan``), from short timed runs of
the kernels the run takes on a sample of its own work (only sampled pairs are built).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from muceval.significance.execute import LocalExecutor, approximate_batch, approximate_threads
from muceval.significance.kernels import (
    _GEMM_PAIRS,
    PairData,
    approximate_counts,
    exact_cost,
    exact_pvalue,
    takes_compiled,
)
from muceval.significance.plan import ExactJob, Plan
from muceval.significance.settings import SignificanceSettings

__all__ = ["PlanEstimate", "estimate"]

# Each exact part is timed for about this long (less when the part itself is shorter).
_CALIBRATION_SECONDS = 0.25
# A timed approximate call takes about this long (four or five calibrate it); rather up to
# _LONGEST_CALL_SECONDS at the run's shuffles than shorter at fewer, scaled, and up to
# _LONGEST_RUN_SECONDS when the call is the plan's whole approximate part.
_TIMED_SECONDS = 0.08
_LONGEST_CALL_SECONDS = 0.15
_LONGEST_RUN_SECONDS = 0.5
# At most this many pairs (more on many threads, fewer at many shuffles) stand for all the
# approximate pairs: only they are built.
_SAMPLED_PAIRS = 2048
# Exact jobs longer than this (by a rough 1.7 ns per cell) are not timed unless all are.
_LONGEST_TIMED_CELLS = 6e8
# The cells of this many jobs stand for all (exact_cost takes as long as a small job).
_COSTED_JOBS = 256


@dataclass(frozen=True)
class PlanEstimate:
    """What a plan will cost: jobs, work, and the time of its kernels on ``workers`` workers."""

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
        return {**{k: round(v, _DIGITS[k]) if k in _DIGITS else v
                   for k, v in asdict(self).items()}, "seconds": round(self.seconds, 2)}


_DIGITS = {"ns_per_pair_shuffle": 2, "ns_per_cell": 3, "us_per_job": 1, "exact_speedup": 2,
           "approximate_seconds": 2, "exact_seconds": 2}


def estimate(the_plan: Plan, pairs: Sequence[PairData], metrics: Sequence[str],
             settings: SignificanceSettings, workers: int, threads: int) -> PlanEstimate:
    """The plan's cost from timed runs of the kernels it will take, on this machine: the
    approximate pairs' on a sample of them, the exact jobs' fitted as a time per job plus a
    time per cell of :func:`exact_cost`; both shared by ``workers``."""
    assert settings.seed is not None, "the seed is drawn before the plan is estimated"
    approximate_seconds = _time_approximate(the_plan, pairs, metrics, settings, threads)
    pair_shuffles = len(the_plan.approximate_pairs) * settings.shuffles
    jobs = the_plan.exact_jobs
    spread = _spread(len(jobs), _COSTED_JOBS)
    # The costed jobs' pairs, built once for their costs and their timing (and no other).
    built = {k: pairs[k] for k in dict.fromkeys(jobs[i].pair for i in spread)}
    costs = np.array([exact_cost(built[jobs[i].pair], metrics[jobs[i].metric])
                      for i in spread])
    cells = float(costs.sum()) * len(jobs) / max(1, len(spread))
    per_job = ns_cell = exact_seconds = 0.0
    speedup = 1.0
    if len(jobs):
        per_job, ns_cell, speedup = _time_exact(jobs, built, metrics, settings, spread, costs,
                                                threads)
        serial = len(jobs) * per_job + cells * ns_cell / 1e9
        longest = per_job + float(costs.max()) * ns_cell / 1e9
        exact_seconds = max(longest, serial / speedup / max(1, workers))
    return PlanEstimate(len(pairs), len(the_plan.approximate_pairs), len(jobs), pair_shuffles,
                        cells, approximate_seconds * 1e9 / max(1, pair_shuffles), ns_cell,
                        per_job * 1e6, speedup, workers, threads,
                        approximate_seconds / max(1, workers), exact_seconds)


def _spread(count: int, most: int) -> np.ndarray:
    """At most ``most`` indices of ``range(count)``, evenly spread, both ends included."""
    return np.unique(np.linspace(0, count - 1, min(count, most)).round().astype(int))


def _time_approximate(the_plan: Plan, pairs: Sequence[PairData], metrics: Sequence[str],
                      settings: SignificanceSettings, threads: int) -> float:
    """Seconds of the plan's approximate pairs on one worker of ``threads`` threads."""
    chosen = the_plan.approximate_pairs
    shuffles = settings.shuffles
    if not chosen or shuffles <= 0:
        return 0.0
    batch = min(len(chosen), approximate_batch(shuffles))
    threads = approximate_threads(the_plan, pairs, metrics, settings, threads)
    # The run's first batch decides the path of all (the later ones find the kernels loaded,
    # or are no larger).
    compiled = takes_compiled((pairs[k] for k in chosen[:batch]), shuffles, len(metrics))
    # Compiled, a thread takes _GEMM_PAIRS pairs at a time: timed calls keep every thread
    # as busy as the run's batches do.
    step = _GEMM_PAIRS * max(1, threads) if compiled else 1
    # Few shuffles leave a call's fixed part a large share: more pairs then.
    most = min(_SAMPLED_PAIRS, max(512, (1 << 22) // shuffles))
    sample = [pairs[chosen[i]] for i in _spread(len(chosen), min(batch, max(4 * step, most)))]
    timer = _KernelTimer(sample, tuple(metrics), settings, threads, compiled)
    # A call on n pairs takes call + n·pair seconds at ``timed`` shuffles, in proportion.
    call, pair, timed = timer.cost(step, whole=len(sample) == len(chosen) == batch)
    return (-(-len(chosen) // batch) * (call * shuffles / timed)
            + len(chosen) * (pair * shuffles / timed))


@dataclass(frozen=True)
class _KernelTimer:
    """Timed calls of :func:`approximate_counts` on ``sample``, as the run makes them."""

    sample: list[PairData]
    metrics: tuple[str, ...]
    settings: SignificanceSettings
    threads: int
    compiled: bool

    def __call__(self, count: int, shuffles: int, repeat: int = 3,
                 before: tuple[float, ...] = ()) -> float:
        """The median of ``repeat`` calls on ``count`` pairs and of ``before`` (other work
        lengthens a call now and then; the run's long batches take its average)."""
        chosen = [self.sample[i] for i in _spread(len(self.sample), count)]
        times = list(before)
        for _ in range(repeat):
            started = time.perf_counter()
            approximate_counts(chosen, self.metrics, shuffles, self.settings.seed or 0,
                               self.settings.two_sided, threads=self.threads,
                               compiled=self.compiled)
            times.append(time.perf_counter() - started)
        return statistics.median(times)

    def cost(self, step: int, whole: bool) -> tuple[float, float, int]:
        """Calls on a quarter of the pairs and on all of them split a call's time into a
        part per call and a part per pair (seconds, and the shuffles timed), at the run's
        shuffles unless a call would be too long: then at fewer, to be scaled (erring long by
        the inputs' fixed part, a few per cent). A ``whole`` plan's sample in one batch is
        simply timed when short."""
        shuffles, size = self.settings.shuffles, len(self.sample)
        self(size, min(shuffles, 64), repeat=1)  # loads (or compiles) every kernel taken
        # Eight rounds of every thread at least: a handful of tasks would leave threads idle
        # at the end, which the run's batches of thousands of pairs do not.
        large, timed = min(size, 8 * step), min(shuffles, 512)
        run = whole and large == size
        longest = _LONGEST_RUN_SECONDS if run else _LONGEST_CALL_SECONDS
        seconds = self(large, timed, repeat=1)
        earlier = (0, 0.0)  # the previous call at these pairs (shuffles, seconds)
        # More work (shuffles first, then pairs) until a call is long enough to time; the
        # run's shuffles as soon as a call of them looks short enough, so that nothing is
        # scaled.
        while True:
            grow = _TIMED_SECONDS / max(seconds, 1e-6)
            slope = max((seconds - earlier[1]) / (timed - earlier[0]), seconds / timed / 8)
            if timed < shuffles and seconds + slope * (shuffles - timed) <= longest:
                earlier, timed = (timed, seconds), shuffles
            elif seconds >= _TIMED_SECONDS or (timed == shuffles and large == size):
                break
            elif timed < shuffles:
                earlier, timed = (timed, seconds), min(shuffles,
                                                       int(timed * min(4.0, max(2.0, grow))))
            else:
                large = min(size, max(large + step, int(large * min(8.0, max(2.0, grow)))
                                      // step * step))
            seconds = self(large, timed, repeat=1)
        if run and timed == shuffles:
            # The run itself, then: once when that is long, else the median of three.
            if seconds < _TIMED_SECONDS:
                seconds = self(large, timed, 2, before=(seconds,))
            return 0.0, seconds / large, timed
        # A quarter of the pairs, in whole rounds of every thread as in the run's batches.
        small = max(1, step * (large // 4 // step) if large >= 8 * step else large // 4)
        per_call, per_pair = _line(small, self(small, timed),
                                   large, self(large, timed, 2, before=(seconds,)))
        return per_call, per_pair, timed


def _line(x1: int, t1: float, x2: int, t2: float) -> tuple[float, float]:
    """Intercept and slope of the line through two points, neither negative."""
    if x2 > x1:
        slope = (t2 - t1) / (x2 - x1)
        if slope > 0 and t1 - x1 * slope >= 0:
            return t1 - x1 * slope, slope
    return 0.0, t2 / x2


def _time_exact(jobs: Sequence[ExactJob], built: dict[int, PairData], metrics: Sequence[str],
                settings: SignificanceSettings, spread: np.ndarray, costs: np.ndarray,
                threads: int) -> tuple[float, float, float]:
    """Seconds per job and nanoseconds per cell on one thread, and the pool's speed-up."""
    order = np.argsort(costs, kind="stable")

    def job(position: int) -> ExactJob:
        return jobs[int(spread[order[position]])]

    def run(position: int) -> float:
        chosen = job(position)
        started = time.perf_counter()
        exact_pvalue(built[chosen.pair], metrics[chosen.metric], settings.two_sided,
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
    # Too few jobs to keep every thread busy say nothing of the overlap: take it as full.
    speedup = float(threads)
    if threads > 1 and len(timed) >= 4 * threads:
        # Longest first, so that the pool's last job is short, as in the plan's many jobs.
        longest_first = [job(p) for p, _, _ in sorted(timed, key=lambda row: -row[2])]
        wall = _pool_seconds(longest_first, built, metrics, settings, threads)
        # Against the best the pool could do (a long job may keep a thread busy alone).
        best = max(total / threads, float(t.max()))
        speedup = min(float(threads), threads * best / wall)
    return per_job, per_cell * 1e9, speedup if threads > 1 else 1.0


def _pool_seconds(chosen: list[ExactJob], built: dict[int, PairData], metrics: Sequence[str],
                  settings: SignificanceSettings, threads: int) -> float:
    """Wall time of the executor's pool on these jobs, in this order."""
    index = {k: i for i, k in enumerate(dict.fromkeys(j.pair for j in chosen))}
    renumbered = tuple(ExactJob(index[j.pair], j.metric) for j in chosen)
    exact = np.zeros((len(index), len(metrics)), dtype=bool)
    for j in renumbered:
        exact[j.pair, j.metric] = True
    started = time.perf_counter()
    LocalExecutor(threads).run(Plan(exact, (), renumbered, 0), [built[k] for k in index],
                               metrics, settings)
    return time.perf_counter() - started
