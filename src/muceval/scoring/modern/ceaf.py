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

__all__ = ["PHI_REE", "PHI_RME", "ree_document", "rme_document", "role_union"]

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


def _entities(template: ModernTemplate, label: str) -> list[frozenset[Mention]]:
    return [frozenset((label, role, normalize(m)) for m in entity)
            for role, entities in zip(ROLES, template.roles, strict=True) for entity in entities]


def _mention_count(entities: list[frozenset[Mention]]) -> int:
    return sum(len(e) for e in entities)


def _subset_scores(gold: list[frozenset[Mention]], pred: list[frozenset[Mention]]) -> tuple[int, int]:
    """(predicted entities that share a mention with some gold entity, gold entities so hit)."""
    p_score = sum(1 for p in pred if any(p & g for g in gold))
    r_score = sum(1 for g in gold if any(p & g for p in pred))
    return p_score, r_score


def _phi3_score(gold: list[frozenset[Mention]], pred: list[frozenset[Mention]]) -> int:
    if not gold or not pred:
        return 0
    matrix = np.array([[len(p & g) for p in pred] for g in gold], dtype=float)
    return int(round(_best_total(matrix)))


def rme_document(pred: Sequence[ModernTemplate], gold: Sequence[ModernTemplate],
                 phi: str = "subset") -> Counts:
    """The CEAF-RME counts of one document (no per-role breakdown in this metric)."""
    pred = [t for t in pred if any(t.roles)]  # empty predicted templates are dropped
    pred_entities = [_entities(t, t.incident_type or "") for t in pred]
    # A gold template of several types becomes one row per type, when there is
    # anything to align it with; the best row is chosen after a first assignment.
    rows: list[tuple[int, list[frozenset[Mention]]]] = []
    for index, template in enumerate(gold):
        kind = template.incident_type or ""
        labels = [s.strip() for s in kind.split("/")] if pred and "/" in kind else [kind]
        rows.extend((index, _entities(template, label)) for label in labels)
    if phi == "subset":
        p_den = sum(len(e) for e in pred_entities)
        r_den = sum(len(_entities(t, "")) for t in gold)
    else:
        p_den = sum(_mention_count(e) for e in pred_entities)
        # phi3 counts the mentions of every row (a split template counts once per type);
        # phi3-entities counts their entities, which is what IterX's released files show.
        r_den = sum(_mention_count(e) if phi == "phi3" else len(e) for _, e in rows)
    if not rows or not pred_entities:
        return Counts(0, p_den, 0, r_den)
    p_scores = np.zeros((len(rows), len(pred_entities)))
    r_scores = np.zeros_like(p_scores)
    for r, (_, g) in enumerate(rows):
        for c, p in enumerate(pred_entities):
            if phi == "subset":
                p_scores[r, c], r_scores[r, c] = _subset_scores(g, p)
            else:
                p_scores[r, c] = r_scores[r, c] = _phi3_score(g, p)
    assigned_rows, assigned_cols = linear_sum_assignment(-p_scores)
    if len(rows) > len(gold):
        assigned = np.zeros(len(rows))
        assigned[assigned_rows] = p_scores[assigned_rows, assigned_cols]
        for index in range(len(gold)):
            copies = [r for r, (owner, _) in enumerate(rows) if owner == index]
            if len(copies) > 1:
                keep = max(copies, key=lambda r: (assigned[r], -r))
                for r in copies:
                    if r != keep:
                        p_scores[r, :] = 0
                        r_scores[r, :] = 0
        assigned_rows, assigned_cols = linear_sum_assignment(-p_scores)
    p_num = float(p_scores[assigned_rows, assigned_cols].sum())
    r_num = float(r_scores[assigned_rows, assigned_cols].sum())
    return Counts(p_num, p_den, r_num, r_den)
