"""Running a :class:`~muceval.significance.plan.Plan`: the in-process executor."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from muceval.significance.kernels import (
    ExactResult,
    PairData,
    approximate_counts,
    exact_pvalue,
    numpy_work,
    worth_compiling_ns,
)
from muceval.significance.plan import ExactJob, Plan
from muceval.significance.settings import SignificanceSettings

__all__ = ["Executor", "LocalExecutor", "Outcomes", "approximate_batch", "approximate_threads"]

Progress = Callable[[int, int], None]


def approximate_threads(plan: Plan, pairs: Sequence[PairData], metrics: Sequence[str],
                        settings: SignificanceSettings, threads: int) -> int:
    """The threads the plan's approximate pairs run on: one for work of milliseconds, which a
    second thread would only wait for (45 ms instead of 3 on a busy machine)."""
    chosen = plan.approximate_pairs
    # The mean size of a few pairs: a plan of 1,000 systems builds no more to answer.
    sample = [len(pairs[k].diffs) for k in chosen[:_THREAD_SAMPLE]]
    units = sum(sample) / max(1, len(sample))
    work = len(chosen) * numpy_work(settings.shuffles, len(metrics), units)
    return threads if worth_compiling_ns(work) else 1


_THREAD_SAMPLE = 64


def approximate_batch(shuffles: int) -> int:
    """Approximate pairs per call of the kernel (about 2^25 pair-shuffles): the progress bar
    moves, and each batch's coins (shared by its pairs) stay a small part of the work."""
    return max(1, (1 << 25) // max(1, shuffles))


@dataclass(frozen=True)
class Outcomes:
    """``nge[k, m]`` for the approximate pairs; the exact result of every exact job."""

    nge: np.ndarray
    exact: dict[ExactJob, ExactResult]


class Executor(Protocol):
    """Runs a plan. ``source`` (the systems' reduced tallies and the two systems of each pair)
    lets an executor that ships work elsewhere send the tallies once."""

    def run(self, plan: Plan, pairs: Sequence[PairData], metrics: Sequence[str],
            settings: SignificanceSettings, progress: Progress | None = None,
            source: tuple[np.ndarray, Sequence[tuple[int, int]]] | None = None) -> Outcomes: ...


@dataclass(frozen=True)
class LocalExecutor:
    """The kernels on ``threads`` threads of this machine."""

    threads: int

    def run(self, plan: Plan, pairs: Sequence[PairData], metrics: Sequence[str],
            settings: SignificanceSettings, progress: Progress | None = None,
            source: tuple[np.ndarray, Sequence[tuple[int, int]]] | None = None) -> Outcomes:
        assert settings.seed is not None, "the seed is drawn before the plan runs"
        done = 0
        total = plan.work
        nge = np.zeros((len(pairs), len(metrics)), dtype=np.int64)
        batch = approximate_batch(settings.shuffles)
        approximate = list(plan.approximate_pairs)
        threads = approximate_threads(plan, pairs, metrics, settings, self.threads)
        for start in range(0, len(approximate), batch):
            chunk = approximate[start : start + batch]
            nge[chunk] = approximate_counts(
                [pairs[k] for k in chunk], tuple(metrics), settings.shuffles, settings.seed,
                settings.two_sided, threads=threads)
            done += len(chunk) * settings.shuffles
            if progress is not None:
                progress(done, total)
        exact: dict[ExactJob, ExactResult] = {}

        def enumerate_job(job: ExactJob) -> tuple[ExactJob, ExactResult]:
            return job, exact_pvalue(pairs[job.pair], metrics[job.metric], settings.two_sided,
                                     settings.exact_budget)

        with ThreadPoolExecutor(max_workers=max(1, self.threads)) as pool:
            for job, result in pool.map(enumerate_job, plan.exact_jobs):
                exact[job] = result
                done += max(1, settings.shuffles // 4)
                if progress is not None:
                    progress(done, total)
        return Outcomes(nge, exact)
