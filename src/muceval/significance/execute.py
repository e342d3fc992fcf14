"""Running a :class:`~muceval.significance.plan.Plan`: the in-process executor.

An executor takes the plan and the pairs' data and returns, per approximate
pair and metric, the number of shuffles at least as extreme as observed, and
per exact job its :class:`~muceval.significance.kernels.ExactResult`. The
in-process one runs the compiled kernels on this machine's threads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from muceval.significance.kernels import ExactResult, PairData, approximate_counts, exact_pvalue
from muceval.significance.plan import ExactJob, Plan
from muceval.significance.settings import SignificanceSettings

__all__ = ["Executor", "LocalExecutor", "Outcomes", "approximate_batch"]

Progress = Callable[[int, int], None]


def approximate_batch(shuffles: int) -> int:
    """Approximate pairs per call of the kernel in :class:`LocalExecutor` (about 2^25
    pair-shuffles): the progress bar moves, and each batch's coins (generated once per
    batch, shared by its pairs) stay a small part of the work. The estimate of a plan
    calibrates on batches of this size too."""
    return max(1, (1 << 25) // max(1, shuffles))


@dataclass(frozen=True)
class Outcomes:
    """``nge[k, m]`` for the approximate pairs; the exact result of every exact job."""

    nge: np.ndarray
    exact: dict[ExactJob, ExactResult]


class Executor(Protocol):
    """Runs a plan. ``source`` (the systems' reduced unit tallies and the two systems of each
    pair) lets an executor that ships work elsewhere send the tallies once, not every pair."""

    def run(self, plan: Plan, pairs: Sequence[PairData], metrics: Sequence[str],
            settings: SignificanceSettings, progress: Progress | None = None,
            source: tuple[np.ndarray, Sequence[tuple[int, int]]] | None = None) -> Outcomes: ...


@dataclass(frozen=True)
class LocalExecutor:
    """The compiled kernels on ``threads`` threads of this machine (None: all of them)."""

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
        for start in range(0, len(approximate), batch):
            chunk = approximate[start : start + batch]
            nge[chunk] = approximate_counts(
                [pairs[k] for k in chunk], tuple(metrics), settings.shuffles, settings.seed,
                settings.two_sided, threads=self.threads)
            done += len(chunk) * settings.shuffles
            if progress is not None:
                progress(done, total)
        exact: dict[ExactJob, ExactResult] = {}

        def enumerate_job(job: ExactJob) -> tuple[ExactJob, ExactResult]:
            return job, exact_pvalue(pairs[job.pair], metrics[job.metric], settings.two_sided,
                                     settings.exact_budget)

        if plan.exact_jobs:
            with ThreadPoolExecutor(max_workers=max(1, self.threads)) as pool:
                for job, result in pool.map(enumerate_job, plan.exact_jobs):
                    exact[job] = result
                    done += max(1, settings.shuffles // 4)
                    if progress is not None:
                        progress(done, total)
        return Outcomes(nge, exact)
