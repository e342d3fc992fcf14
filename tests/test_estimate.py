"""significance --plan's estimate (muceval.significance.estimate): what it counts is the plan's.

How close its seconds come to a run is a speed claim, measured in benchmarks/plan_estimates.py.
"""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

from muceval.core.units import from_arrays
from muceval.errors import UsageError
from muceval.significance import estimate as estimate_module
from muceval.significance import execute as execute_module
from muceval.significance import plan as plan_module
from muceval.significance.engine import SystemPairs, prepare
from muceval.significance.estimate import _SAMPLED_PAIRS, _spread, estimate
from muceval.significance.execute import LocalExecutor, approximate_batch
from muceval.significance.kernels import (
    METRICS,
    ExactResult,
    PairData,
    _canonical,
    _lattice,
    exact_cost,
    exact_grid_cells,
    exact_grid_cells_many,
    reduce_counts,
    takes_compiled,
)
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


# The calibration's path, its work and its arithmetic, with the kernels replaced by spies (no
# kernel runs, no clock is read for an assertion).

COMPILED = "muceval.significance.compiled"


class _Spy:
    """Stands for approximate_counts: records each call's path (compiled or NumPy, as
    approximate_counts would resolve it), threads and metrics, and the number of pairs;
    ``clock``, when given, advances by ``cost(pairs, shuffles)`` seconds per call."""

    def __init__(self, clock: list[float] | None = None, cost=None) -> None:
        self.paths: list[tuple[bool, int | None, tuple[str, ...], bool]] = []
        self.sizes: list[int] = []
        self.clock, self.cost = clock, cost

    def __call__(self, pairs, metrics, shuffles, seed, two_sided=True, threads=None,
                 chunk=1 << 14, compiled=None):
        path = takes_compiled(pairs, shuffles, len(metrics)) if compiled is None else compiled
        self.paths.append((path, threads, tuple(metrics), two_sided))
        self.sizes.append(len(pairs))
        if self.clock is not None:
            self.clock[0] += self.cost(len(pairs), shuffles)
        return np.zeros((len(pairs), len(metrics)), dtype=np.int64)


@pytest.mark.parametrize("systems,shuffles,loaded,compiled,threads", [
    (4, 99, False, False, 1),      # too little work to repay loading numba: the NumPy path
    (60, 9_999, False, True, 3),   # enough: compiled, on every thread
    (4, 99, True, True, 1),        # numba loaded already: compiled, on one thread for so little
])
def test_the_calibration_takes_the_runs_path(monkeypatch: pytest.MonkeyPatch, systems: int,
                                             shuffles: int, loaded: bool,
                                             compiled: bool, threads: int) -> None:
    if loaded:
        monkeypatch.setitem(sys.modules, COMPILED,
                            sys.modules.get(COMPILED, types.ModuleType(COMPILED)))
    else:
        monkeypatch.delitem(sys.modules, COMPILED, raising=False)
    calibration, run = _Spy(), _Spy()
    monkeypatch.setattr(estimate_module, "approximate_counts", calibration)
    monkeypatch.setattr(execute_module, "approximate_counts", run)
    prepared = prepare(_tallies(systems, 14), ["f1", "recall"],
                       SignificanceSettings(seed=1, shuffles=shuffles))
    estimate(prepared.plan, prepared.pairs, prepared.metrics, prepared.settings, 1, 3)
    LocalExecutor(3).run(prepared.plan, list(prepared.pairs), prepared.metrics,
                         prepared.settings)
    assert set(calibration.paths) == set(run.paths) == {(compiled, threads, ("f1", "recall"),
                                                         True)}


def test_the_exact_calibration_takes_the_runs_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, set[tuple[str, bool, float]]] = {"calibration": set(), "run": set()}
    executors: list[int] = []

    def spy(where: str):
        def exact(pair, metric, two_sided=True, budget=0.0):
            seen[where].add((metric, two_sided, budget))
            return ExactResult(1.0, 0.0, 1)
        return exact

    class Pool(LocalExecutor):
        def run(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            executors.append(self.threads)
            return super().run(*args, **kwargs)

    monkeypatch.setattr(estimate_module, "exact_pvalue", spy("calibration"))
    monkeypatch.setattr(estimate_module, "LocalExecutor", Pool)
    settings = SignificanceSettings(seed=1, method="exact", alternative="one-sided",
                                    exact_budget=1e-6)
    prepared = prepare(_tallies(8, 12), ["f0.5"], settings)
    estimate(prepared.plan, prepared.pairs, prepared.metrics, prepared.settings, 1, 2)
    monkeypatch.setattr(execute_module, "exact_pvalue", spy("run"))
    LocalExecutor(2).run(prepared.plan, list(prepared.pairs), prepared.metrics,
                         prepared.settings)
    assert seen["calibration"] == seen["run"] == {("f0.5", False, 1e-6)}
    assert executors == [2]  # the overlap is measured on the run's threads


def test_planning_builds_a_bounded_sample_of_the_pairs(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[int] = []
    original = SystemPairs.__getitem__

    def counted(self, k):  # type: ignore[no-untyped-def]
        built.append(k)
        return original(self, k)

    def refused(self):  # type: ignore[no-untyped-def]
        raise AssertionError("planning an approximate run iterates over every pair")

    monkeypatch.setattr(SystemPairs, "__getitem__", counted)
    monkeypatch.setattr(SystemPairs, "__iter__", refused)
    monkeypatch.setitem(sys.modules, COMPILED,
                        sys.modules.get(COMPILED, types.ModuleType(COMPILED)))
    spy = _Spy()
    monkeypatch.setattr(estimate_module, "approximate_counts", spy)
    prepared = prepare(_tallies(130, 10), ["f1"], SignificanceSettings(seed=1, shuffles=999))
    assert built == []  # the plan of an approximate run reads no pair
    found = estimate(prepared.plan, prepared.pairs, prepared.metrics, prepared.settings, 1, 2)
    assert found.approximate_pairs == len(prepared.pairs) == 8385
    # The calibration's sample, and the few pairs that size the work for the threads.
    from muceval.significance.execute import _THREAD_SAMPLE

    assert len(set(built)) <= _SAMPLED_PAIRS + _THREAD_SAMPLE
    assert max(spy.sizes) <= _SAMPLED_PAIRS


@pytest.mark.parametrize("systems,shuffles,high", [
    (78, 999, 1.0), (78, 9_999, 1.0), (78, 1_000_000, 1.01),
    (10, 9_999, 1.0),  # the whole plan in one call: that call
])
def test_the_calibration_recovers_a_kernels_cost(monkeypatch: pytest.MonkeyPatch, systems: int,
                                                 shuffles: int, high: float) -> None:
    # A kernel that takes 0.1 µs per shuffle per call (its coins), 30 µs per pair and 15 ns
    # per pair-shuffle: the estimate is that of the run's batches, in pairs and in shuffles;
    # timed at the run's shuffles, exactly; at a million, timed at fewer and scaled, a little
    # long (the 30 µs per pair are scaled too).
    clock = [0.0]
    spy = _Spy(clock, lambda n, s: 1e-7 * s + n * (3e-5 + 1.5e-8 * s))
    monkeypatch.setattr(estimate_module, "approximate_counts", spy)
    monkeypatch.setattr(estimate_module, "time",
                        types.SimpleNamespace(perf_counter=lambda: clock[0]))
    prepared = prepare(_tallies(systems, 14), ["f1"],
                       SignificanceSettings(seed=1, shuffles=shuffles))
    found = estimate(prepared.plan, prepared.pairs, prepared.metrics, prepared.settings, 1, 2)
    pairs = len(prepared.plan.approximate_pairs)
    batches = -(-pairs // approximate_batch(shuffles))
    expected = batches * 1e-7 * shuffles + pairs * (3e-5 + 1.5e-8 * shuffles)
    assert expected * (1 - 1e-9) <= found.approximate_seconds <= expected * high * (1 + 1e-9)
    assert max(spy.sizes) <= _SAMPLED_PAIRS


def test_system_pairs_are_those_of_pair_data() -> None:
    reduced = reduce_counts(_tallies(7, 9).counts)
    reduced[2] = reduced[5]  # a pair without a differing unit
    pairs = SystemPairs(reduced)
    expected = [PairData.of(reduced[a], reduced[b]) for a, b in pairs.index_pairs()]
    assert pairs.index_pairs() == [(a, b) for a in range(7) for b in range(a + 1, 7)]
    for found in (list(pairs), [pairs[k] for k in range(len(pairs))], pairs[:]):
        assert len(found) == len(expected) == 21
        for got, want in zip(found, expected, strict=True):
            for name in ("diffs", "total_x", "total_y"):
                a, b = getattr(got, name), getattr(want, name)
                assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)


def _grid_of_canonical_shifts(pair: PairData, metric: str) -> int:
    """The grid exact_pvalue allocates, from its own canonical shifts."""
    shifts, _, _ = _lattice(pair, metric)
    if not len(shifts):
        return 1
    unique, counts, _, _, _ = _canonical(shifts)
    return ((int((unique[:, 0] * counts).sum()) + 1)
            * (int((np.abs(unique[:, 1]) * counts).sum()) + 1))


def test_grid_cells_are_those_of_the_canonical_shifts() -> None:
    rng = np.random.default_rng(5)
    pairs = []
    for trial in range(300):
        units = int(rng.integers(0, 25))
        x = rng.integers(0, 9, size=(units, 3)) * int(rng.integers(1, 4))
        y = x.copy() if trial % 5 == 0 else rng.integers(0, 9, size=(units, 3))
        y[: units // 3] += 2 * rng.integers(-2, 3, size=(units // 3, 3))
        pairs.append(PairData.of(x, y))
    for metric in METRICS:
        expected = [_grid_of_canonical_shifts(p, metric) for p in pairs]
        assert [exact_grid_cells(p, metric) for p in pairs] == expected
        assert exact_grid_cells_many(pairs, metric).tolist() == expected


@pytest.mark.parametrize("method", ["exact", "auto"])
def test_the_plan_of_built_pairs_and_of_pairs_built_on_demand_agree(method: str) -> None:
    tallies = _tallies(9, 13)
    settings = SignificanceSettings(seed=1, shuffles=999, method=method)
    prepared = prepare(tallies, ["f1", "precision"], settings)
    reference = plan_module.plan(list(prepared.pairs), prepared.metrics, settings,
                                 [("a", "b")] * len(prepared.pairs))
    assert np.array_equal(prepared.plan.exact, reference.exact)
    assert prepared.plan.exact_jobs == reference.exact_jobs
    assert prepared.plan.approximate_pairs == reference.approximate_pairs


def test_method_exact_names_the_first_pair_whose_grid_does_not_fit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    tallies = _tallies(12, 13)
    pairs = SystemPairs(reduce_counts(tallies.counts))
    metrics = ["recall", "f0.5"]
    cells = [[exact_grid_cells(p, m) for m in metrics] for p in pairs]
    limit = sorted(c for row in cells for c in row)[-5]  # a few grids are larger
    k, m = next((k, m) for k, row in enumerate(cells) for m, c in enumerate(row) if c > limit)
    monkeypatch.setattr(plan_module, "MAX_EXACT_CELLS", limit)
    monkeypatch.setattr(plan_module, "_CHECKED_PAIRS", 7)  # the pair in a later block
    a, b = pairs.index_pairs()[k]
    with pytest.raises(UsageError, match=rf"of S{a} vs S{b} \({metrics[m]}\) needs a grid of "
                                         rf"about {cells[k][m]} cells"):
        prepare(tallies, metrics, SignificanceSettings(seed=1, method="exact"))
