"""Method ``auto`` is one rule (plan.decide_method) for every test that chooses between exact and
approximate: the decisions of its callers are those each made on its own before."""

from __future__ import annotations

import numpy as np
import pytest

from muceval.core.responses import PairResponses, Response
from muceval.core.units import RatioTallies
from muceval.errors import UsageError
from muceval.significance import plan as planning
from muceval.significance.counts import paired_count_tests
from muceval.significance.kernels import PairData, exact_cost, exact_grid_cells, reduce_counts
from muceval.significance.ratios import compare_ratios
from muceval.significance.responses import randomize_responses
from muceval.significance.settings import SignificanceSettings

METHODS = ("exact", "approximate", "auto")


def _former_auto(pair: PairData, metrics: list[str], shuffles: int) -> list[bool]:
    """plan._auto as it was written before the rule was shared."""
    blocks = -(-len(pair.diffs) // planning._BLOCK_BITS)
    approx_cost = shuffles * (planning._SHUFFLE_METRIC_COST + (
        planning._SHUFFLE_BLOCK_COST * blocks + planning._SHUFFLE_FIXED_COST) / len(metrics))
    return [exact_cost(pair, m) * planning._EXACT_CELL_COST <= approx_cost
            and exact_grid_cells(pair, m) <= planning.MAX_EXACT_CELLS for m in metrics]


def _pair(rng: np.random.Generator, units: int, top: int) -> PairData:
    def system() -> np.ndarray:
        pos, act = rng.integers(0, top, units), rng.integers(0, top, units)
        cor = rng.integers(0, np.minimum(pos, act) + 1)
        return np.stack([pos, act, cor, np.zeros(units, dtype=np.int64)], axis=1)

    return PairData.of(reduce_counts(system()), reduce_counts(system()))


@pytest.mark.parametrize("units", [1, 4, 12, 30, 80])
@pytest.mark.parametrize("shuffles", [1, 99, 9999, 1_000_000])
@pytest.mark.parametrize("cells", [None, 400])
def test_the_plan_decides_as_before(units, shuffles, cells, monkeypatch):
    if cells is not None:  # grids that do not fit in memory, though cheaper
        monkeypatch.setattr(planning, "MAX_EXACT_CELLS", cells)
    rng = np.random.default_rng(units * 7 + shuffles)
    pairs = [_pair(rng, units, top) for top in (2, 5, 40) for _ in range(3)]
    metrics = ["recall", "precision", "f1", "f0.5"]
    for method in METHODS[1:] if cells else METHODS:  # exact refuses what does not fit
        chosen = SignificanceSettings(method=method, shuffles=shuffles, seed=1)
        found = planning.plan(pairs, metrics, chosen, [("A", "B")] * len(pairs)).exact
        expected = (np.ones_like(found) if method == "exact" else np.zeros_like(found)
                    if method == "approximate"
                    else np.array([_former_auto(p, metrics, shuffles) for p in pairs]))
        assert np.array_equal(found, expected), method


@pytest.mark.parametrize("differing", [0, 1, 2, 7, 20, 21, 25])
def test_modern_counts_decide_as_before(differing):
    counts = np.ones((2, 25, 4))
    counts[1, :differing, 1] = 2  # the second system predicts more in the first documents
    tallies = RatioTallies(("A", "B"), tuple(f"d{i}" for i in range(25)), counts)
    for method in METHODS:
        chosen = SignificanceSettings(method=method, shuffles=99, seed=1, bootstrap=0)
        if method == "exact" and differing > 20:
            with pytest.raises(UsageError, match="at most 20"):
                compare_ratios(tallies, ["precision"], chosen)
            continue
        (c,) = compare_ratios(tallies, ["precision"], chosen).comparisons
        exact = method == "exact" or (method == "auto" and differing <= 20)
        assert c.method == ("exact" if exact else "approximate"), method


@pytest.mark.parametrize("differing", [0, 1, 20, 21, 40])
def test_error_counts_decide_as_before(differing):
    first = np.zeros((45, 1), dtype=np.int64)
    second = first.copy()
    second[:differing] = 1
    for method in METHODS:  # the counts' tests take auto, whatever the settings say
        (t,) = paired_count_tests(first, second, SignificanceSettings(method=method, seed=1,
                                                                      shuffles=99))
        assert t.method == ("exact" if differing <= 20 else "approximate"), method


@pytest.mark.parametrize("n", [0, 1, 3, 20, 21, 30])
def test_responses_decide_as_before(n):
    units = PairResponses("A", "B", np.array([[2, 0, 0, 0], [2, 0, 0, 0]]),
                          tuple(Response(f"M#key:1#s{i}", "X", "a") for i in range(n)),
                          np.array([[0, 1, 1, 0]] * n).reshape(n, 4), ())
    for method in METHODS:
        chosen = SignificanceSettings(method=method, shuffles=99, seed=1)
        if method == "exact" and n > 20:
            with pytest.raises(UsageError, match="at most 2"):
                randomize_responses(units, ["recall"], chosen)
            continue
        (t,) = randomize_responses(units, ["recall"], chosen)
        exact = method == "exact" or (method == "auto" and n <= 20)
        assert t.method == ("exact" if exact else "approximate"), method
