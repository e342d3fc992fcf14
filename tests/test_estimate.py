"""significance --plan's estimate (muceval.significance.estimate): what it counts is the plan's.

How close its seconds come to a run is a speed claim, measured in benchmarks/plan_estimates.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from muceval.core.units import from_arrays
from muceval.significance.engine import prepare
from muceval.significance.estimate import _spread, estimate
from muceval.significance.kernels import exact_cost
from muceval.significance.settings import SignificanceSettings


def _tallies(systems: int, units: int, seed: int = 3):
    rng = np.random.default_rng(seed)
    pos = rng.integers(1, 6, size=units)
    counts = []
    for _ in range(systems):
        act = np.maximum(1, pos + rng.integers(-1, 2, size=units))
        cor = np.minimum(act, rng.binomial(pos, 0.5))
        counts.append(np.stack([pos, act, cor, np.zeros(units, dtype=int)], 1).tolist())
    return from_arrays([f"S{i}" for i in range(systems)], [f"u{i}" for i in range(units)],
                       counts)


@pytest.mark.parametrize("method", ["approximate", "exact", "auto"])
def test_the_estimate_counts_the_plans_work(method: str) -> None:
    prepared = prepare(_tallies(5, 14), ["f1", "recall"],
                       SignificanceSettings(seed=1, shuffles=499, method=method))
    found = estimate(prepared.plan, prepared.pairs, prepared.metrics, prepared.settings, 1, 2)
    plan = prepared.plan
    assert (found.pairs, found.approximate_pairs, found.exact_jobs) == (
        10, len(plan.approximate_pairs), len(plan.exact_jobs))
    assert found.pair_shuffles == len(plan.approximate_pairs) * 499
    assert found.exact_cells == pytest.approx(sum(
        exact_cost(prepared.pairs[j.pair], prepared.metrics[j.metric]) for j in plan.exact_jobs))
    assert (found.approximate_seconds > 0) == bool(plan.approximate_pairs)
    assert (found.exact_seconds > 0) == bool(plan.exact_jobs)
    assert 0 < found.exact_speedup <= 2.0  # measured on two threads, at most 2
    assert found.seconds == pytest.approx(found.approximate_seconds + found.exact_seconds)
    assert set(found.to_dict()) >= {"seconds", "approximate_seconds", "exact_seconds",
                                    "ns_per_pair_shuffle", "ns_per_cell", "us_per_job"}


def test_workers_share_the_work() -> None:
    prepared = prepare(_tallies(6, 14), ["f1"], SignificanceSettings(seed=1, method="exact"))
    one = estimate(prepared.plan, prepared.pairs, prepared.metrics, prepared.settings, 1, 1)
    four = estimate(prepared.plan, prepared.pairs, prepared.metrics, prepared.settings, 4, 1)
    # Four one-thread workers: a quarter of the serial time, but never less than the longest job.
    longest = four.us_per_job / 1e6 + max(
        exact_cost(prepared.pairs[j.pair], "f1") for j in prepared.plan.exact_jobs
    ) * four.ns_per_cell / 1e9
    serial = (four.exact_jobs * four.us_per_job / 1e6 + four.exact_cells * four.ns_per_cell / 1e9)
    assert four.exact_seconds == pytest.approx(max(longest, serial / 4))
    assert one.workers == 1 and four.workers == 4


@pytest.mark.parametrize("count,most", [(0, 5), (1, 5), (3, 5), (10, 4), (4096, 64)])
def test_spread_keeps_the_ends_and_at_most_most(count: int, most: int) -> None:
    picked = _spread(count, most)
    assert len(picked) == min(count, most) and len(set(picked.tolist())) == len(picked)
    if count:
        assert picked[0] == 0 and picked[-1] == count - 1
