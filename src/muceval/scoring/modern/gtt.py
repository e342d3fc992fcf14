"""The ``gtt`` metric: template matching as GTT's ``eval.py`` (Du, Rush & Cardie 2021) counts it.

Per document, every one-to-one partial map from predicted to gold templates is a
candidate; the original enumerates them all in ``itertools.product`` order (the
last predicted template varying fastest, "unmapped" tried last) and keeps the
first whose document F1 is strictly greater than the best so far. muceval finds
the same map without enumerating every one: a depth-first search in that same
order that skips a subtree when even its best completion cannot beat the best F1
found so far. Skipping never changes which map wins (the subtree holds no map
strictly better), so the counts are the original's, ties included
(``tests/test_modern.py`` checks it against the full enumeration).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from muceval.core.modern import ROLES, ModernTemplate
from muceval.scoring.modern.counts import Counts, normalize

__all__ = ["GttTemplate", "best_map", "brute_force_map", "gold_templates", "mapped_pairs",
           "predicted_templates", "score_document"]

FIELDS = ("incident_type", *ROLES)
"""The rows of the per-role breakdown: the incident type, then the five roles."""

# A bound may exceed the true best by a rounding error: keep exploring such subtrees.
_SLACK = 1e-12


@dataclass(frozen=True)
class GttTemplate:
    """A template as the metric sees it: its type and, per role, sets of normalised mentions."""

    incident_type: str
    roles: tuple[tuple[frozenset[str], ...], ...]


def gold_templates(templates: Sequence[ModernTemplate]) -> list[GttTemplate]:
    """Gold templates: mentions normalised, empty entities dropped, exact duplicates dropped."""
    out: list[GttTemplate] = []
    for t in templates:
        g = GttTemplate(t.incident_type or "", tuple(
            tuple(frozenset(normalize(m) for m in e) for e in entities if e)
            for entities in t.roles))
        if g not in out:
            out.append(g)
    return out


def predicted_templates(templates: Sequence[ModernTemplate]) -> list[GttTemplate]:
    """Predicted templates: mentions normalised; a type that is not a string reads as "attack"."""
    return [GttTemplate("attack" if t.incident_type is None else t.incident_type, tuple(
        tuple(frozenset(normalize(m) for m in e) for e in entities) for entities in t.roles))
        for t in templates]


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
    """(p_num, r_num) a mapped pair adds, or None when the pair may not be aligned (then both
    count as unmapped): see :func:`_credited`."""
    gains: list[list[tuple[int, int] | None]] = []
    for p in preds:
        row: list[tuple[int, int] | None] = []
        for g in golds:
            counts = _credited(p, g, role_match)
            row.append(None if counts is None else (int(sum(c.p_num for c in counts)),
                                                    int(sum(c.r_num for c in counts))))
        gains.append(row)
    return gains


def _denominators(preds: Sequence[GttTemplate], golds: Sequence[GttTemplate]) -> tuple[int, int]:
    p_den = sum(1 + sum(len(e) for e in p.roles) for p in preds)
    r_den = sum(1 + sum(len(e) for e in g.roles) for g in golds)
    return p_den, r_den


def best_map(preds: Sequence[GttTemplate], golds: Sequence[GttTemplate],
             role_match: bool = False) -> tuple[int, ...]:
    """The map the original keeps: ``map[i]`` is the gold template of prediction ``i`` (-1: none).

    ``role_match`` states a stricter criterion than the original's: a pair may be
    aligned only when some role entity matches, not on the incident type alone.

    >>> g = GttTemplate("attack", ((frozenset({"x"}),), (), (), (), ()))
    >>> best_map([g, g], [g])
    (0, -1)
    """
    n_pred, n_gold = len(preds), len(golds)
    gains = _pair_gains(preds, golds, role_match)
    p_den, r_den = _denominators(preds, golds)
    # The most the predictions from i on can still add (each on its own, a bound).
    rest_p = [0] * (n_pred + 1)
    rest_r = [0] * (n_pred + 1)
    for i in range(n_pred - 1, -1, -1):
        options = [g for g in gains[i] if g is not None]
        rest_p[i] = rest_p[i + 1] + max((g[0] for g in options), default=0)
        rest_r[i] = rest_r[i + 1] + max((g[1] for g in options), default=0)
    best_f1 = -1.0
    best: tuple[int, ...] = tuple([-1] * n_pred)
    choice = [-1] * n_pred
    used = [False] * n_gold
    choices = [*range(n_gold), -1]

    def search(i: int, p_num: int, r_num: int) -> None:
        nonlocal best_f1, best
        if i == n_pred:
            f1 = _f1(p_num, p_den, r_num, r_den)
            if f1 > best_f1:
                best_f1, best = f1, tuple(choice)
            return
        if _f1(p_num + rest_p[i], p_den, r_num + rest_r[i], r_den) < best_f1 - _SLACK:
            return
        for j in choices:
            if j >= 0 and used[j]:
                continue
            gain = gains[i][j] if j >= 0 else None
            choice[i] = j
            if j >= 0:
                used[j] = True
            search(i + 1, p_num + (gain[0] if gain else 0), r_num + (gain[1] if gain else 0))
            if j >= 0:
                used[j] = False
        choice[i] = -1

    search(0, 0, 0)
    return best


def brute_force_map(preds: Sequence[GttTemplate], golds: Sequence[GttTemplate],
                    role_match: bool = False) -> tuple[int, ...]:
    """The original's exhaustive enumeration (for tests: exponential in the predictions)."""
    import itertools

    gains = _pair_gains(preds, golds, role_match)
    p_den, r_den = _denominators(preds, golds)
    best_f1, best = -1.0, tuple([-1] * len(preds))
    for candidate in itertools.product([*range(len(golds)), -1], repeat=len(preds)):
        mapped = [j for j in candidate if j >= 0]
        if len(mapped) != len(set(mapped)):
            continue
        p_num = r_num = 0
        for i, j in enumerate(candidate):
            gain = gains[i][j] if j >= 0 else None
            if gain is not None:
                p_num += gain[0]
                r_num += gain[1]
        f1 = _f1(p_num, p_den, r_num, r_den)
        if f1 > best_f1:
            best_f1, best = f1, candidate
    return best


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
                   role_match: bool = False) -> dict[str, Counts]:
    """Per field of :data:`FIELDS`, the counts of one document at the original's map (with
    ``role_match``: at the best map of the stricter criterion, see :func:`best_map`)."""
    credited = {i: (j, counts) for i, j, counts in mapped_pairs(preds, golds, role_match)}
    totals = [Counts() for _ in FIELDS]
    mapped_gold: set[int] = set()
    for i, p in enumerate(preds):
        if i in credited:
            j, parts = credited[i]
            mapped_gold.add(j)
        else:
            parts = _alone(p, predicted=True)
        totals = [a + b for a, b in zip(totals, parts, strict=True)]
    for j, g in enumerate(golds):
        if j not in mapped_gold:
            totals = [a + b for a, b in zip(totals, _alone(g, predicted=False), strict=True)]
    return dict(zip(FIELDS, totals, strict=True))
