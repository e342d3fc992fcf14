"""The CEAF metrics of GRIT (``ceaf-ree``) and IterX (``ceaf-rme``), counted as their official
scorers count them: aligned by SciPy's Kuhn–Munkres, as the originals, so ties break alike."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from muceval.core.modern import ROLES, Entity, ModernTemplate, role_union
from muceval.scoring.modern.counts import Counts, normalize
from muceval.scoring.modern.matching import assignment, largest_matching

__all__ = ["PHI_REE", "PHI_RME", "group_substrings", "grouped", "ree_document", "rme_document",
           "rme_gold", "role_union", "token_similarity"]

PHI_REE = ("strict", "prop")
PHI_RME = ("subset", "phi3", "phi3-entities", "phi-a")


def _similarity(pred: list[str], gold: list[str], phi: str) -> float:
    if phi == "strict":
        gold_set = set(gold)
        return 1.0 if all(m in gold_set for m in pred) else 0.0
    pred_set = set(pred)
    return sum(1 for m in gold if m in pred_set) / len(pred)


def _best_total(matrix: np.ndarray, phi: str) -> float:
    if matrix.size == 0:
        return 0.0
    if phi == "strict":
        # 0/1 similarities: every optimal alignment sums to the same whole number.
        return float(largest_matching(matrix.astype(np.int64)))
    rows, cols = assignment(matrix, maximize=True)
    return float(matrix[rows, cols].sum())


def ree_document(pred: Sequence[Sequence[Entity]], gold: Sequence[Sequence[Entity]],
                 phi: str = "strict", roles: tuple[str, ...] = ROLES,
                 norm: Callable[[str], str] = normalize) -> dict[str, Counts]:
    """Per role of ``roles``, the CEAF-REE counts of one document."""
    out = {}
    for role, p_entities, g_entities in zip(roles, pred, gold, strict=True):
        p_norm = [[norm(m) for m in e] for e in p_entities]
        g_norm = [[norm(m) for m in e] for e in g_entities]
        matrix = np.array([[_similarity(p, g, phi) for g in g_norm] for p in p_norm],
                          dtype=float).reshape(len(p_norm), len(g_norm))
        total = _best_total(matrix, phi)
        out[role] = Counts(total, len(p_norm), total, len(g_norm))
    return out


Mention = tuple[str, str, str]  # (incident type, role, normalised string)
TypedEntity = tuple[Mention, ...]  # in file order, repeated mentions kept

# IterX removes these characters from gold mentions before normalising them (which
# deletes them anyway: kept for fidelity, it changes nothing).
_GOLD_STRIPPED = str.maketrans("", "", "'\"\\-")


def rme_gold(templates: Sequence[ModernTemplate], sanitise: bool = True) -> list[ModernTemplate]:
    """Gold templates as IterX reads GTT's gold (as GTT reads it), and then scores them.

    The characters ``' " \\ -`` removed; empty entities, repeated templates and templates
    without any entity (IterX scores none) dropped; file order kept.

    >>> t = ModernTemplate("attack", ((("Shining-Path",), ()), (), (), (), ()))
    >>> [x.roles[0] for x in rme_gold([t, t, ModernTemplate("attack", ((),) * 5)])]
    [(('ShiningPath',),)]
    """
    strip = _GOLD_STRIPPED if sanitise else {}
    kept = dict.fromkeys(ModernTemplate(t.incident_type, tuple(
        tuple(tuple(m.translate(strip) for m in entity) for entity in entities if entity)
        for entities in t.roles), t.role_names) for t in templates)
    return [t for t in kept if any(t.roles)]


def _typed(template: ModernTemplate, label: str,
           norm: Callable[[str], str] = normalize) -> list[TypedEntity]:
    """The entities of a template, their mentions typed by ``label`` and role."""
    return [tuple((label, role, norm(m)) for m in entity)
            for role, entities in template.named_roles() for entity in entities]


def group_substrings(strings: Sequence[str]) -> list[list[str]]:
    """A role's predicted strings as FAMuS's pipeline groups them into entities.

    Shortest first, each string joins the group of the first longer string that contains it.
    FAMuS's pipeline takes strings of one length in the order of a Python set, which varies
    with string hashing: muceval's answer order gives one of the pipeline's results.

    >>> group_substrings(["Paris", "the city of Paris", "Paris", "city", "Lyon"])
    [['the city of Paris', 'city', 'Paris'], ['Lyon']]
    """
    unique = list(dict.fromkeys(strings))
    order = sorted(unique, key=len)
    groups = {s: [s] for s in unique}
    for i, shorter in enumerate(order):
        for longer in order[i + 1:]:
            if shorter in longer:
                groups[longer].extend(groups.pop(shorter))
                break
    return list(groups.values())


def grouped(template: ModernTemplate) -> ModernTemplate:
    """A predicted template with each role's fillers grouped by :func:`group_substrings` (FAMuS's
    pipeline reads one string per filler: an entity's first mention)."""
    return ModernTemplate(template.incident_type, tuple(
        tuple(tuple(g) for g in group_substrings([e[0] for e in entities if e]))
        for entities in template.roles), template.role_names)


def token_similarity(gold: str, pred: str) -> float:
    """FAMuS's ``phi-a`` similarity of two mentions: one minus their token edit distance
    (substitutions 2; lower-cased, whitespace tokens) over the sum of their lengths in tokens.

    >>> token_similarity("the old mayor", "The mayor"), token_similarity("", "")
    (0.8, 1.0)
    """
    if gold == "" and pred == "":
        return 1.0
    a, b = gold.lower().split(), pred.lower().split()
    total = len(a) + len(b)
    if total == 0:
        return 1.0  # two strings of spaces: FAMuS's code divides by zero here
    # With substitutions at 2, the edit distance is total − 2·LCS.
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b, start=1):
            current.append(previous[j - 1] + 1 if x == y else max(previous[j], current[j - 1]))
        previous = current
    distance = float(total - 2 * previous[-1])
    return 1 - distance / total


def _phi_a(gold: Sequence[Mention], pred: Sequence[Mention]) -> float:
    return max((token_similarity(g[2], p[2]) for g in gold for p in pred if g[:2] == p[:2]),
               default=0.0)


def _mention_count(entities: Sequence[TypedEntity]) -> int:
    return sum(len(e) for e in entities)


def _subset_scores(gold: Sequence[frozenset[Mention]],
                   pred: Sequence[TypedEntity]) -> tuple[int, int]:
    """phi-subset of a template pair: (predicted entities that share a mention with a gold
    entity, distinct gold entities they credit).

    A predicted entity credits only the first gold entity, in the template's order, holding
    the first of its mentions found in any (two gold entities sharing it are credited once).
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
    """phi-3 of a template pair: an aligned entity pair is worth its shared mentions (repeated)."""
    if not gold or not pred:
        return 0
    matrix = np.array([[sum(1 for m in p if m in g) for p in pred] for g in gold],
                      dtype=np.int64)
    return largest_matching(matrix)


def _phi_a_score(gold: Sequence[frozenset[Mention]], pred: Sequence[TypedEntity]) -> float:
    """phi-a of a template pair: an aligned entity pair is worth the best
    :func:`token_similarity` of its mentions (summed in gold order, as FAMuS's scorer sums)."""
    if not gold or not pred:
        return 0.0
    matrix = np.array([[_phi_a(tuple(g), p) for p in pred] for g in gold], dtype=float)
    rows, cols = assignment(-matrix)
    return float(sum(matrix[rows, cols].tolist()))


def _split_rows(gold: Sequence[ModernTemplate], split: bool,
                norm: Callable[[str], str] = normalize) -> list[tuple[int, list[TypedEntity]]]:
    """The rows ``(gold template, typed entities)``; with ``split``, one per type of a template."""
    rows: list[tuple[int, list[TypedEntity]]] = []
    for index, template in enumerate(gold):
        kind = template.incident_type or ""
        labels = [s.strip() for s in kind.split("/")] if split and "/" in kind else [kind]
        rows.extend((index, _typed(template, label, norm)) for label in labels)
    return rows


def _keep_best_copies(rows: Sequence[tuple[int, list[TypedEntity]]], p_scores: np.ndarray,
                      r_scores: np.ndarray) -> None:
    """Of the copies of a split template keep the row of the largest score sum (the first)."""
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
                 phi: str = "subset", norm: Callable[[str], str] = normalize,
                 sanitise_gold: bool = True) -> Counts:
    """The CEAF-RME counts of one document (no per-role breakdown in this metric).

    Predicted templates without entities are dropped, repeated ones are not. A gold template
    of several types is split into one row per type when anything is predicted, only its best
    copy keeping its scores; with ``'phi3'`` recall counts the mentions of every copy.
    ``'phi-a'`` is worth at most 1 an entity, so entities of several mentions keep even the
    key below 100%.
    """
    golds = rme_gold(gold, sanitise_gold)
    pred_entities = [_typed(t, t.incident_type or "", norm) for t in pred if any(t.roles)]
    rows = _split_rows(golds, split=bool(pred_entities), norm=norm)
    gold_entities = sum(len(_typed(t, "")) for t in golds)
    if phi == "subset":
        p_den, r_den = sum(len(e) for e in pred_entities), gold_entities
    else:
        p_den = sum(_mention_count(e) for e in pred_entities)
        r_den = sum(_mention_count(e) for _, e in rows) if phi != "phi3-entities" \
            else gold_entities
    if not rows or not pred_entities:
        return Counts(0, p_den, 0, r_den)
    p_scores = np.zeros((len(rows), len(pred_entities)))
    r_scores = np.zeros_like(p_scores)
    for r, (_, entities) in enumerate(rows):
        g = [frozenset(e) for e in entities]
        for c, p in enumerate(pred_entities):
            if phi == "subset":
                p_scores[r, c], r_scores[r, c] = _subset_scores(g, p)
            elif phi == "phi-a":
                p_scores[r, c] = r_scores[r, c] = _phi_a_score(g, p)
            else:
                p_scores[r, c] = r_scores[r, c] = _phi3_score(g, p)
    if len(rows) > len(golds):
        _keep_best_copies(rows, p_scores, r_scores)
    assigned_rows, assigned_cols = assignment(-p_scores)
    if phi == "phi-a":  # summed in row order, as FAMuS's scorer sums it
        total = float(sum(p_scores[assigned_rows, assigned_cols].tolist()))
        return Counts(total, p_den, total, r_den)
    p_num = float(p_scores[assigned_rows, assigned_cols].sum())
    r_num = float(r_scores[assigned_rows, assigned_cols].sum())
    return Counts(p_num, p_den, r_num, r_den)
