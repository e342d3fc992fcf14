"""The CEAF metrics of GRIT (``ceaf-ree``, Du, Rush & Cardie 2021) and IterX (``ceaf-rme``,
Chen et al. 2023), counted as their official scorers count them.

Both align one-to-one by Kuhn–Munkres (``scipy.optimize.linear_sum_assignment``,
as the originals do, so that ties are broken the same way).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.optimize import linear_sum_assignment

from muceval.core.modern import ROLES, Entity, ModernTemplate, role_union
from muceval.scoring.modern.counts import Counts, normalize

__all__ = ["PHI_REE", "PHI_RME", "ree_document", "rme_document", "rme_gold", "role_union"]

PHI_REE = ("strict", "prop")
PHI_RME = ("subset", "phi3", "phi3-entities")


# ---------------------------------------------------------------------------
# CEAF-REE: role-filler entities, per role
# ---------------------------------------------------------------------------


def _similarity(pred: list[str], gold: list[str], phi: str) -> float:
    if phi == "strict":
        gold_set = set(gold)
        return 1.0 if all(m in gold_set for m in pred) else 0.0
    pred_set = set(pred)
    return sum(1 for m in gold if m in pred_set) / len(pred)


def _best_total(matrix: np.ndarray) -> float:
    if matrix.size == 0:
        return 0.0
    rows, cols = linear_sum_assignment(matrix, maximize=True)
    return float(matrix[rows, cols].sum())


def ree_document(pred: Sequence[Sequence[Entity]], gold: Sequence[Sequence[Entity]],
                 phi: str = "strict") -> dict[str, Counts]:
    """Per role, the CEAF-REE counts of one document (``pred``/``gold``: entities per role)."""
    out = {}
    for role, p_entities, g_entities in zip(ROLES, pred, gold, strict=True):
        p_norm = [[normalize(m) for m in e] for e in p_entities]
        g_norm = [[normalize(m) for m in e] for e in g_entities]
        matrix = np.array([[_similarity(p, g, phi) for g in g_norm] for p in p_norm],
                          dtype=float).reshape(len(p_norm), len(g_norm))
        total = _best_total(matrix)
        out[role] = Counts(total, len(p_norm), total, len(g_norm))
    return out


# ---------------------------------------------------------------------------
# CEAF-RME: role-filler mention entities, templates aligned
# ---------------------------------------------------------------------------

Mention = tuple[str, str, str]  # (incident type, role, normalised string)
TypedEntity = tuple[Mention, ...]  # in file order, repeated mentions kept

# IterX removes these characters from gold mentions before normalising them (which
# deletes them anyway: kept for fidelity, it changes nothing).
_GOLD_STRIPPED = str.maketrans("", "", "'\"\\-")


def rme_gold(templates: Sequence[ModernTemplate]) -> list[ModernTemplate]:
    """Gold templates as IterX reads GTT's gold (as GTT reads it), and then scores them.

    Mention strings only (the reader has dropped the offsets), the characters
    ``' " \\ -`` removed, entities without mentions dropped, a template that repeats
    an earlier one exactly dropped, and so is a template left without any entity
    (IterX scores only templates with entities, gold and predicted alike); file
    order is kept.

    >>> t = ModernTemplate("attack", ((("Shining-Path",), ()), (), (), (), ()))
    >>> [x.roles[0] for x in rme_gold([t, t, ModernTemplate("attack", ((),) * 5)])]
    [(('ShiningPath',),)]
    """
    out: list[ModernTemplate] = []
    for template in templates:
        roles = tuple(tuple(tuple(m.translate(_GOLD_STRIPPED) for m in entity)
                            for entity in entities if entity) for entities in template.roles)
        kept = ModernTemplate(template.incident_type, roles)
        if kept not in out:
            out.append(kept)
    return [t for t in out if any(t.roles)]


def _typed(template: ModernTemplate, label: str) -> list[TypedEntity]:
    """The entities of a template, their mentions typed by ``label`` and role."""
    return [tuple((label, role, normalize(m)) for m in entity)
            for role, entities in zip(ROLES, template.roles, strict=True) for entity in entities]


def _mention_count(entities: Sequence[TypedEntity]) -> int:
    return sum(len(e) for e in entities)


def _subset_scores(gold: Sequence[frozenset[Mention]],
                   pred: Sequence[TypedEntity]) -> tuple[int, int]:
    """phi-subset of a template pair: (predicted entities that share a mention with a gold
    entity, distinct gold entities they credit).

    A predicted entity credits one gold entity: the first, in the template's order, that
    holds the first of its mentions found in any gold entity. A gold entity that only a
    later mention, or only the same mention through an earlier gold entity, reaches is not
    credited (two gold entities that share a mention are credited once).
    """
    p_score = 0
    credited: set[int] = set()
    for entity in pred:
        target = next((k for m in entity for k, g in enumerate(gold) if m in g), None)
        if target is not None:
            p_score += 1
            credited.add(target)
    return p_score, len(credited)


def _phi3_score(gold: Sequence[frozenset[Mention]], pred: Sequence[TypedEntity]) -> int:
    """phi-3 of a template pair: the best one-to-one entity alignment, an aligned pair
    worth the predicted mentions (repeats counted) that are in the gold entity."""
    if not gold or not pred:
        return 0
    matrix = np.array([[sum(1 for m in p if m in g) for p in pred] for g in gold], dtype=float)
    return int(round(_best_total(matrix)))


def _split_rows(gold: Sequence[ModernTemplate],
                split: bool) -> list[tuple[int, list[TypedEntity]]]:
    """The rows of the alignment: ``(gold template, its typed entities)``; with ``split``,
    a template of several types (``"attack / bombing"``) gives one row per type."""
    rows: list[tuple[int, list[TypedEntity]]] = []
    for index, template in enumerate(gold):
        kind = template.incident_type or ""
        labels = [s.strip() for s in kind.split("/")] if split and "/" in kind else [kind]
        rows.extend((index, _typed(template, label)) for label in labels)
    return rows


def _keep_best_copies(rows: Sequence[tuple[int, list[TypedEntity]]], p_scores: np.ndarray,
                      r_scores: np.ndarray) -> None:
    """Of the copies of a split template keep the row of the largest score sum over all
    predicted templates (the first on ties); the other copies' scores become 0."""
    owners = [owner for owner, _ in rows]
    for owner in sorted(set(owners)):
        copies = [r for r, o in enumerate(owners) if o == owner]
        if len(copies) < 2:
            continue
        keep = copies[int(np.argmax(p_scores[copies].sum(axis=1)))]
        for r in copies:
            if r != keep:
                p_scores[r, :] = 0
                r_scores[r, :] = 0


def rme_document(pred: Sequence[ModernTemplate], gold: Sequence[ModernTemplate],
                 phi: str = "subset") -> Counts:
    """The CEAF-RME counts of one document (no per-role breakdown in this metric).

    ``gold`` is read as :func:`rme_gold` says; predicted templates without entities
    are dropped, repeated ones are not. Gold templates are rows, predicted ones
    columns of a score matrix aligned one-to-one by Kuhn-Munkres; a gold template of
    several types is split into one row per type when anything is predicted, and
    after a first alignment only its best copy keeps its scores. ``phi``:
    ``'subset'`` (entities), ``'phi3'`` (mentions; the recall denominator counts
    the mentions of every copy) or ``'phi3-entities'`` (as ``'phi3'``, the recall
    denominator in gold entities, as IterX's released per-document files count it).
    """
    golds = rme_gold(gold)
    pred_entities = [_typed(t, t.incident_type or "") for t in pred if any(t.roles)]
    rows = _split_rows(golds, split=bool(pred_entities))
    gold_entities = sum(len(_typed(t, "")) for t in golds)
    if phi == "subset":
        p_den, r_den = sum(len(e) for e in pred_entities), gold_entities
    else:
        p_den = sum(_mention_count(e) for e in pred_entities)
        r_den = sum(_mention_count(e) for _, e in rows) if phi == "phi3" else gold_entities
    if not rows or not pred_entities:
        return Counts(0, p_den, 0, r_den)
    p_scores = np.zeros((len(rows), len(pred_entities)))
    r_scores = np.zeros_like(p_scores)
    for r, (_, entities) in enumerate(rows):
        g = [frozenset(e) for e in entities]
        for c, p in enumerate(pred_entities):
            if phi == "subset":
                p_scores[r, c], r_scores[r, c] = _subset_scores(g, p)
            else:
                p_scores[r, c] = r_scores[r, c] = _phi3_score(g, p)
    if len(rows) > len(golds):
        _keep_best_copies(rows, p_scores, r_scores)
    assigned_rows, assigned_cols = linear_sum_assignment(-p_scores)
    p_num = float(p_scores[assigned_rows, assigned_cols].sum())
    r_num = float(r_scores[assigned_rows, assigned_cols].sum())
    return Counts(p_num, p_den, r_num, r_den)
