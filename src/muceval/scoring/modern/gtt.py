"""The ``gtt`` metric: template matching as GTT's ``eval.py`` (Du, Rush & Cardie 2021) counts it.

The original enumerates every partial map of predicted to gold templates in
``itertools.product`` order and keeps the first of strictly greatest F1; muceval searches
depth-first in that order, skipping subtrees that cannot win, which never changes which map
wins, ties included (``tests/test_gtt_search.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from muceval.core.modern import ROLES, ModernTemplate
from muceval.scoring.modern.counts import Counts, normalize
from muceval.scoring.modern.matching import largest_matching

__all__ = ["GttTemplate", "best_map", "gold_templates", "mapped_pairs",
           "predicted_templates", "score_document"]

FIELDS = ("incident_type", *ROLES)


@dataclass(frozen=True)
class GttTemplate:
    """A template as the metric sees it: its type and, per role, sets of normalised mentions."""

    incident_type: str
    roles: tuple[tuple[frozenset[str], ...], ...]


def _projected(template: ModernTemplate,
               roles: tuple[str, ...]) -> tuple[tuple[tuple[str, ...], ...], ...]:
    """A template's entities per role of ``roles`` (a role it lacks: none)."""
    return template.roles if template.role_names == roles else tuple(
        template.role(r) for r in roles)


def gold_templates(templates: Sequence[ModernTemplate], roles: tuple[str, ...] = ROLES,
                   norm: Callable[[str], str] = normalize) -> list[GttTemplate]:
    """Gold templates: mentions normalised, empty entities and exact duplicates dropped."""
    return list(dict.fromkeys(GttTemplate(t.incident_type or "", tuple(
        tuple(frozenset(norm(m) for m in e) for e in entities if e)
        for entities in _projected(t, roles))) for t in templates))


def predicted_templates(templates: Sequence[ModernTemplate], roles: tuple[str, ...] = ROLES,
                        norm: Callable[[str], str] = normalize) -> list[GttTemplate]:
    """Predicted templates: mentions normalised; a type that is not a string reads as "attack"."""
    return [GttTemplate("attack" if t.incident_type is None else t.incident_type, tuple(
        tuple(frozenset(norm(m) for m in e) for e in entities)
        for entities in _projected(t, roles))) for t in templates]


def _role_counts(pred: GttTemplate, gold: GttTemplate) -> list[Counts]:
    """Per field of :data:`FIELDS`, the counts of a mapped pair whose types agree."""
    out = [Counts(1, 1, 1, 1)]
    for p_entities, g_entities in zip(pred.roles, gold.roles, strict=True):
        p_num = sum(1 for p in p_entities if any(p <= g for g in g_entities))
        r_num = sum(1 for g in g_entities if any(p <= g for p in p_entities))
        out.append(Counts(p_num, len(p_entities), r_num, len(g_entities)))
    return out


def _credited(pred: GttTemplate, gold: GttTemplate, role_match: bool) -> list[Counts] | None:
    """The counts of a pair that may be aligned, else None: the types must agree and, with
    ``role_match``, some role entity must match where either side has entities."""
    if pred.incident_type not in gold.incident_type:
        return None
    counts = _role_counts(pred, gold)
    if role_match and not any(c.p_num or c.r_num for c in counts[1:]) \
            and any(c.p_den or c.r_den for c in counts[1:]):
        return None
    return counts


def _alone(template: GttTemplate, predicted: bool) -> list[Counts]:
    """Per field, what an unmapped template adds to the denominators."""
    sizes = [1, *(len(entities) for entities in template.roles)]
    return [Counts(0, n, 0, 0) if predicted else Counts(0, 0, 0, n) for n in sizes]


def _f1(p_num: float, p_den: int, r_num: float, r_den: int) -> float:
    return Counts(p_num, p_den, r_num, r_den).f1


def _pair_gains(preds: Sequence[GttTemplate], golds: Sequence[GttTemplate],
                role_match: bool = False) -> list[list[tuple[int, int] | None]]:
    """(p_num, r_num) a mapped pair adds, or None (both unmapped): see :func:`_credited`."""
    return [[_gain(_credited(p, g, role_match)) for g in golds] for p in preds]


def _gain(counts: list[Counts] | None) -> tuple[int, int] | None:
    if counts is None:
        return None
    return int(sum(c.p_num for c in counts)), int(sum(c.r_num for c in counts))


def _denominators(preds: Sequence[GttTemplate], golds: Sequence[GttTemplate]) -> tuple[int, int]:
    p_den = sum(1 + sum(len(e) for e in p.roles) for p in preds)
    r_den = sum(1 + sum(len(e) for e in g.roles) for g in golds)
    return p_den, r_den


def best_map(preds: Sequence[GttTemplate], golds: Sequence[GttTemplate],
             role_match: bool = False) -> tuple[int, ...]:
    """The map the original keeps: ``map[i]`` is the gold template of prediction ``i`` (-1: none).

    ``role_match``: a stricter criterion, no pair on the incident type alone.

    >>> g = GttTemplate("attack", ((frozenset({"x"}),), (), (), (), ()))
    >>> best_map([g, g], [g])
    (0, -1)
    """
    p_den, r_den = _denominators(preds, golds)
    return _MapSearch(_pair_gains(preds, golds, role_match), p_den, r_den).run()


def _f1_ceiling(p_max: int, r_max: int, p_den: int, r_den: int) -> list[list[float]]:
    """``ceiling[p][r]``: the greatest float F1 of any ``p_num <= p``, ``r_num <= r``.

    Rounding makes the float F1 not quite monotone, so a bound on the numerators bounds it
    only through this maximum over every point below it, never through its corner alone. The
    table takes :meth:`Counts.f1`'s operations in its order, so its values are :func:`_f1`'s.
    """
    p = [k / p_den for k in range(p_max + 1)] if p_den else [0.0]
    r = [k / r_den for k in range(r_max + 1)] if r_den else [0.0]
    ceiling: list[list[float]] = []
    below = [0.0] * len(r)
    for pk in p:
        row, most = [], 0.0
        for rk, under in zip(r, below, strict=True):
            total = pk + rk
            most = max(most, under, 2 * pk * rk / total if total else 0.0)
            row.append(most)
        ceiling.append(row)
        below = row
    return ceiling


def _twins(items: Sequence[tuple[tuple[int, int], ...]]) -> list[int]:
    """Per item, the nearest earlier item equal to it, else -1."""
    last: dict[tuple[tuple[int, int], ...], int] = {}
    out = []
    for k, item in enumerate(items):
        out.append(last.get(item, -1))
        last[item] = k
    return out


def _matching(gains: list[list[tuple[int, int]]], first: int,
              cols: Sequence[int]) -> tuple[int, int]:
    """The most p_num, and separately r_num, the predictions from ``first`` on can add mapped
    to the gold templates ``cols``: gains are never negative, so leaving a prediction unmapped
    never beats a match and a matching of the smaller side is enough."""
    rows = [[row[j] for j in cols] for row in gains[first:]]
    if not rows or not rows[0]:
        return 0, 0
    if len(rows) == 1 or len(rows[0]) == 1:
        return (max(g[0] for row in rows for g in row), max(g[1] for row in rows for g in row))
    return (largest_matching([[g[0] for g in row] for row in rows]),
            largest_matching([[g[1] for g in row] for row in rows]))


_FEW_MAPS = 100  # up to this many candidate maps the search runs without bounds


class _MapSearch:
    """Depth-first search of the maps in the original's order, keeping its first maximum.

    The bound (:func:`_matching` read through :func:`_f1_ceiling`) and the best F1 are floats
    that :func:`_f1` computes, so the decision is exact, ties a last bit apart included.
    """

    def __init__(self, gains: Sequence[Sequence[tuple[int, int] | None]],
                 p_den: int, r_den: int) -> None:
        self.n_pred, self.n_gold = len(gains), len(gains[0]) if gains else 0
        # On a few maps (most documents) bounding costs more than the maps it would skip.
        self.bounded = (self.n_gold + 1) ** self.n_pred > _FEW_MAPS
        self.p_den, self.r_den = p_den, r_den
        # A pair that may not be aligned adds nothing, like a pair that adds (0, 0).
        self.p_gain = [[g[0] if g else 0 for g in row] for row in gains]
        self.r_gain = [[g[1] if g else 0 for g in row] for row in gains]
        self.twin_pred, self.twin_gold = [-1] * self.n_pred, [-1] * self.n_gold
        self.rest_p: list[int] = []
        self.rest_r: list[int] = []
        self.gains: list[list[tuple[int, int]]] = []
        if self.bounded:
            self.gains = [list(zip(p, r, strict=True)) for p, r in zip(self.p_gain, self.r_gain,
                                                                       strict=True)]
            pairs = self.gains
            self.twin_pred = _twins([tuple(row) for row in pairs])
            self.twin_gold = _twins([tuple(row[j] for row in pairs) for j in range(self.n_gold)])
            # The cheap bound, tried first: each remaining prediction's best gold, used or not.
            self.rest_p = [sum(max(row, default=0) for row in self.p_gain[i:])
                           for i in range(self.n_pred + 1)]
            self.rest_r = [sum(max(row, default=0) for row in self.r_gain[i:])
                           for i in range(self.n_pred + 1)]
        self.matchings: dict[tuple[int, int], tuple[int, int]] = {}
        self.seen: set[tuple[int, int, int, int]] = set()
        self.ceiling: list[list[float]] = []
        self.caps = (0, 0)
        self.choice = [-1] * self.n_pred
        self.used = 0
        self.best_f1 = -1.0
        self.best = tuple(self.choice)

    def run(self) -> tuple[int, ...]:
        self._visit(0, 0, 0)
        return self.best

    def _visit(self, i: int, p_num: int, r_num: int) -> None:
        if i == self.n_pred:
            f1 = _f1(p_num, self.p_den, r_num, self.r_den)
            if f1 > self.best_f1:
                self.best_f1, self.best = f1, tuple(self.choice)
            return
        if self.bounded:
            # An earlier prefix with the same golds used and the same counts has, for each
            # completion of this one, an earlier map of the same counts.
            state = (i, self.used, p_num, r_num)
            if state in self.seen or self.best_f1 >= 0 and self._beaten(i, p_num, r_num):
                return
            self.seen.add(state)
        # Of two equal predictions the later takes a later gold (or none), and of two equal
        # gold templates the earlier is taken first: else swapping them gives the same counts
        # earlier in the order.
        twin = self.twin_pred[i]
        first = 0 if twin < 0 else self.choice[twin] + 1 if self.choice[twin] >= 0 else self.n_gold
        for j in range(first, self.n_gold):
            twin = self.twin_gold[j]
            if self.used >> j & 1 or (twin >= 0 and not self.used >> twin & 1):
                continue
            self.choice[i] = j
            self.used |= 1 << j
            self._visit(i + 1, p_num + self.p_gain[i][j], r_num + self.r_gain[i][j])
            self.used &= ~(1 << j)
        self.choice[i] = -1
        self._visit(i + 1, p_num, r_num)

    def _beaten(self, i: int, p_num: int, r_num: int) -> bool:
        """Whether no completion of the current prefix can beat the best F1 found so far."""
        if not self.ceiling:
            self.caps = _matching(self.gains, 0, range(self.n_gold))
            self.ceiling = _f1_ceiling(*self.caps, self.p_den, self.r_den)
        if self._ceiling(p_num + self.rest_p[i], r_num + self.rest_r[i]) <= self.best_f1:
            return True
        key = (i, self.used)
        if key not in self.matchings:
            free = [j for j in range(self.n_gold) if not self.used >> j & 1]
            self.matchings[key] = _matching(self.gains, i, free)
        more_p, more_r = self.matchings[key]
        return self._ceiling(p_num + more_p, r_num + more_r) <= self.best_f1

    def _ceiling(self, p_num: int, r_num: int) -> float:
        # No map exceeds the whole document's matchings: clipping keeps the table small.
        return self.ceiling[min(p_num, self.caps[0])][min(r_num, self.caps[1])]


def mapped_pairs(preds: Sequence[GttTemplate], golds: Sequence[GttTemplate],
                 role_match: bool = False) -> list[tuple[int, int, list[Counts]]]:
    """The pairs that earn credit at the best map: ``(prediction, gold, counts per field)``."""
    mapping = best_map(preds, golds, role_match)
    out = []
    for i, j in enumerate(mapping):
        counts = _credited(preds[i], golds[j], role_match) if j >= 0 else None
        if counts is not None:
            out.append((i, j, counts))
    return out


def score_document(preds: Sequence[GttTemplate], golds: Sequence[GttTemplate],
                   role_match: bool = False,
                   fields: tuple[str, ...] = FIELDS) -> dict[str, Counts]:
    """Per field of ``fields``, the counts of one document at the best map (:func:`best_map`)."""
    credited = {i: (j, counts) for i, j, counts in mapped_pairs(preds, golds, role_match)}
    mapped_gold = {j for j, _ in credited.values()}
    parts = [credited[i][1] if i in credited else _alone(p, predicted=True)
             for i, p in enumerate(preds)]
    parts += [_alone(g, predicted=False) for j, g in enumerate(golds) if j not in mapped_gold]
    return {name: sum((part[k] for part in parts), Counts()) for k, name in enumerate(fields)}
