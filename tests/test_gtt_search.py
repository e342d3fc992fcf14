"""GTT's template-map search (issue 30): bounded, yet the original's first maximum, ties included."""

from __future__ import annotations

import itertools
from fractions import Fraction
from unittest.mock import patch

from hypothesis import given, settings
from hypothesis import strategies as st

from muceval.core.modern import ROLES
from muceval.scoring.modern import gtt
from muceval.scoring.modern.gtt import (
    GttTemplate,
    _f1,
    _f1_ceiling,
    _MapSearch,
    best_map,
)
from oracles import brute_force_map

Gains = list[list[tuple[int, int] | None]]


def _enumerate(gains: Gains, p_den: int, r_den: int, n_gold: int) -> tuple[int, ...]:
    """The original's enumeration on given pair gains (``brute_force_map`` without templates)."""
    best_f1, best = -1.0, tuple([-1] * len(gains))
    for candidate in itertools.product([*range(n_gold), -1], repeat=len(gains)):
        mapped = [j for j in candidate if j >= 0]
        if len(mapped) != len(set(mapped)):
            continue
        pairs = [gains[i][j] for i, j in enumerate(candidate) if j >= 0]
        p_num = sum(g[0] for g in pairs if g)
        r_num = sum(g[1] for g in pairs if g)
        f1 = _f1(p_num, p_den, r_num, r_den)
        if f1 > best_f1:
            best_f1, best = f1, candidate
    return best


@st.composite
def _documents(draw: st.DrawFn) -> tuple[list[GttTemplate], list[GttTemplate]]:
    """Predicted and gold templates with many ties: few mentions and types, repeated templates
    (drawn from a small pool), empty entities and empty templates."""
    mentions = st.sampled_from(["a", "b", "c"][:draw(st.integers(1, 3))])
    template = st.builds(
        GttTemplate,
        st.sampled_from(["attack", "bombing", "attack / bombing", ""]),
        st.tuples(*(st.lists(st.frozensets(mentions, max_size=2), max_size=2).map(tuple)
                    for _ in ROLES)))
    pool = draw(st.lists(template, min_size=1, max_size=3))
    either = st.one_of(st.sampled_from(pool), template)
    return (draw(st.lists(either, max_size=6)), draw(st.lists(either, max_size=5)))


@settings(max_examples=150, deadline=None)
@given(document=_documents(), role_match=st.booleans(), few_maps=st.sampled_from([0, 100]))
def test_the_search_keeps_the_first_maximum_of_the_enumeration(document, role_match,
                                                               few_maps) -> None:
    preds, golds = document
    with patch.object(gtt, "_FEW_MAPS", few_maps):
        found = best_map(preds, golds, role_match)
    assert found == brute_force_map(preds, golds, role_match)


def _exact_ties(most: int) -> list[tuple[int, int, tuple[int, int], tuple[int, int]]]:
    """``(p_den, r_den, numerators, numerators)``: two numerators of the same exact F1 whose
    float F1s differ (by one unit in the last place), for denominators up to ``most``."""
    out = []
    for p_den, r_den in itertools.product(range(1, most + 1), repeat=2):
        seen: dict[Fraction, list[tuple[int, int]]] = {}
        for p, r in itertools.product(range(1, p_den + 1), range(1, r_den + 1)):
            exact = Fraction(2 * p * r, p * r_den + r * p_den)
            out.extend((p_den, r_den, other, (p, r)) for other in seen.get(exact, [])
                       if _f1(other[0], p_den, other[1], r_den) != _f1(p, p_den, r, r_den))
            seen.setdefault(exact, []).append((p, r))
    return out


def _split(draw: st.DrawFn, total: int, parts: int) -> list[int]:
    cuts = sorted(draw(st.lists(st.integers(0, total), min_size=parts - 1, max_size=parts - 1)))
    return [b - a for a, b in zip([0, *cuts], [*cuts, total], strict=True)]


@st.composite
def _gains(draw: st.DrawFn) -> tuple[Gains, int, int, int]:
    """Pair gains straight from small numbers. Half the time two maps are planted whose totals
    have the same exact F1 but float F1s one unit in the last place apart: only the float
    comparison of the original decides between them."""
    n_pred, n_gold = draw(st.integers(0, 6)), draw(st.integers(0, 6))
    gain = st.one_of(st.none(), st.tuples(st.integers(0, 3), st.integers(0, 3)))
    if draw(st.booleans()) and n_pred and n_gold:
        p_den, r_den, *totals = draw(st.sampled_from(_TIES))
        gains = [[draw(st.sampled_from([None, (0, 0), (0, 1), (1, 0)])) for _ in range(n_gold)]
                 for _ in range(n_pred)]
        for p_num, r_num in draw(st.permutations(totals)):
            golds = draw(st.permutations(range(n_gold)))[:min(n_pred, n_gold)]
            shares = zip(_split(draw, p_num, len(golds)), _split(draw, r_num, len(golds)),
                         strict=True)
            for i, (j, share) in enumerate(zip(golds, shares, strict=True)):
                gains[i][j] = share
        return gains, p_den, r_den, n_gold
    gains = [[draw(gain) for _ in range(n_gold)] for _ in range(n_pred)]
    # Identical predictions (rows) or identical gold templates (columns): the symmetries the
    # search skips.
    symmetry = draw(st.sampled_from(["none", "rows", "columns"]))
    if symmetry == "rows" and gains:
        gains = [list(gains[0]) for _ in gains]
    elif symmetry == "columns" and n_gold:
        gains = [[row[0]] * n_gold for row in gains]
    return gains, draw(st.integers(1, 30)), draw(st.integers(1, 30)), n_gold


_TIES = _exact_ties(12)


@settings(max_examples=300, deadline=None)
@given(case=_gains(), few_maps=st.sampled_from([0, 100]))
def test_the_search_keeps_the_first_maximum_on_any_gains(case, few_maps) -> None:
    gains, p_den, r_den, n_gold = case
    # With no threshold, even the smallest cases go through the bounds.
    with patch.object(gtt, "_FEW_MAPS", few_maps):
        found = _MapSearch(gains, p_den, r_den).run()
    assert found == _enumerate(gains, p_den, r_den, n_gold)


def test_a_tie_of_exact_f1_is_decided_by_the_float_f1_as_in_the_original() -> None:
    # Two maps reach the exact F1 2/9: (4, 6) first, (5, 5) later, whose float F1 is one unit
    # in the last place greater. The original keeps the later; pruning exact ties would not.
    def role(*entities: str) -> tuple[frozenset[str], ...]:
        return tuple(frozenset(e) for e in entities)

    def t(kind: str, *roles: tuple[frozenset[str], ...]) -> GttTemplate:
        return GttTemplate(kind, roles)

    preds = [t("bombing", role("ab"), (), role("d"), (), ()),
             t("attack", role("bd"), role("cd", "a"), (), (), role("ab", "ab")),
             t("bombing", (), role("c", "ab"), role("bc", "cd"), role("ab", "bd", "ad"), role("bd"))]
    golds = [t("attack", role("bd", "a", "a"), role("ac"), role("d", "b", "ab"), (),
               role("bd", "b", "cd")),
             t("bombing", role("bd", "c"), (), (), (), role("c", "bd", "d")),
             t("attack", (), role("ad", "ac", "ad"), role("c"), role("a", "b", "b"), role("d", "b"))]
    assert _f1(5, 18, 5, 27) > _f1(4, 18, 6, 27)
    assert best_map(preds, golds) == brute_force_map(preds, golds) == (2, 0, 1)


@given(p_max=st.integers(0, 90), r_max=st.integers(0, 90), p_den=st.integers(0, 120),
       r_den=st.integers(0, 120))
def test_the_ceiling_is_the_greatest_float_f1_below_each_point(p_max, r_max, p_den,
                                                                r_den) -> None:
    p_max, r_max = min(p_max, p_den), min(r_max, r_den)
    ceiling = _f1_ceiling(p_max, r_max, p_den, r_den)
    below = [-1.0] * (r_max + 1)
    for p in range(p_max + 1):
        left = -1.0
        for r in range(r_max + 1):
            left = max(left, below[r], _f1(p, p_den, r, r_den))
            below[r] = left
            assert ceiling[p][r] == left


def test_twelve_identical_templates_are_mapped_without_enumerating() -> None:
    # 13**12 candidate maps: the enumeration would take more than a year.
    same = GttTemplate("attack", ((frozenset({"x"}),), (), (frozenset({"y"}),), (), ()))
    other = [GttTemplate("attack", ((frozenset({m}),), (), (frozenset({"y", m}),), (), ()))
             for m in "abcdefghijk"]
    assert best_map([same] * 12, [same] * 12) == tuple(range(12))
    assert best_map([same] * 12, [*other, same]) == tuple(range(12))
    assert best_map([same] * 12, [same] * 10) == (*range(10), -1, -1)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 9), st.integers(1, 9), st.data())
def test_the_bound_is_the_largest_matching_sum_on_any_gains(rows, cols, data) -> None:
    """The best alignment's sum (GTT's search bound, phi-3, strict CEAF-REE), over subsets
    for small documents, is the sum Kuhn–Munkres finds."""
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    from muceval.scoring.modern.ceaf import largest_matching

    weights = np.array(data.draw(st.lists(st.lists(st.integers(0, 9), min_size=cols,
                                                   max_size=cols),
                                          min_size=rows, max_size=rows)))
    chosen_rows, chosen = linear_sum_assignment(weights, maximize=True)
    assert largest_matching(weights) == int(weights[chosen_rows, chosen].sum())
