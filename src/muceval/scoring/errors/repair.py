"""The repair pass (the original's ``-at``): each error's transformation applied to a copy of
the predictions, giving the document analysed again ("After Transformation")."""

from __future__ import annotations

from dataclasses import dataclass

from muceval.scoring.errors.align import (
    Entry,
    GoldTemplate,
    PairAlignment,
    PredictedTemplate,
    Prepared,
)
from muceval.scoring.errors.count import Counted, Verdict
from muceval.scoring.errors.model import (
    DUPLICATE,
    DUPLICATE_PARTIAL,
    SPURIOUS_FILLER,
    WITHIN,
    WITHIN_PARTIAL,
    WRONG_BOTH,
    WRONG_BOTH_PARTIAL,
    WRONG_TEMPLATE,
    WRONG_TEMPLATE_PARTIAL,
    Transformation,
)

__all__ = ["repair_document"]

ALTER_SPAN = "Alter_Span"
ALTER_ROLE = "Alter_Role"
CROSS = "Remove_Cross_Template_Spurious_Role_Filler"
INTRODUCE_FILLER = "Introduce_Missing_Role_Filler"
INTRODUCE_TEMPLATE = "Introduce_Missing_Template"
REMOVE_TEMPLATE = "Remove_Spurious_Template"

# The transformation each class of an unaligned filler implies.
CHAINS: dict[str, tuple[str, ...]] = {
    DUPLICATE: ("Remove_Duplicate_Role_Filler",),
    DUPLICATE_PARTIAL: (ALTER_SPAN, "Remove_Duplicate_Role_Filler"),
    WITHIN: (ALTER_ROLE,),
    WITHIN_PARTIAL: (ALTER_SPAN, ALTER_ROLE),
    WRONG_TEMPLATE: (CROSS,),
    WRONG_TEMPLATE_PARTIAL: (ALTER_SPAN, CROSS),
    WRONG_BOTH: (ALTER_ROLE, CROSS),
    WRONG_BOTH_PARTIAL: (ALTER_SPAN, ALTER_ROLE, CROSS),
    SPURIOUS_FILLER: ("Remove_Unrelated_Spurious_Role_Filler",),
}


@dataclass(frozen=True)
class _Edit:
    """One transformation and what it acts on."""

    kept: Transformation
    role: int = 0
    target: int = 0
    destination: int | None = None  # cross-template: the gold template the filler belongs to


def _edit(entry: int, verdict: Verdict, role: int, mention: str,
          roles: tuple[str, ...]) -> _Edit:
    names = CHAINS[verdict.category]
    partial = ALTER_SPAN in names
    target = verdict.role if verdict.role is not None and ALTER_ROLE in names else role
    value = verdict.mention if partial else mention
    return _Edit(Transformation(entry, names, roles[role], mention, value, roles[target]),
                 role, target, verdict.gold)


def _pair_edits(document: Prepared, e: int, p: int, g: int, pair: PairAlignment,
                verdicts: dict[tuple[int, int, int], Verdict],
                cancelled: set[tuple[int, int, int]]) -> list[_Edit]:
    """A pair's transformations in the original's order: roles, then alignment entries; the
    role changes then moved to the front, the latest first."""
    edits: list[_Edit] = []
    gold = document.gold[g]
    roles = document.roles
    for r, aligned in enumerate(pair.roles):
        for i, mention in enumerate(document.predicted[p].roles[r]):
            j = aligned.choices[i]
            if j is None:
                edits.append(_edit(e, verdicts[e, r, i], r, mention, roles))
            elif 0 < aligned.values[i] < 1:
                value = gold.roles[r][j][aligned.best[i]]
                edits.append(_Edit(Transformation(e, (ALTER_SPAN,), roles[r], mention,
                                                  value, roles[r]), r, r))
        for j in aligned.leftover:
            if (e, r, j) not in cancelled:
                first = gold.roles[r][j][0]
                edits.append(_Edit(Transformation(e, (INTRODUCE_FILLER,), roles[r], None,
                                                  first, roles[r]), r, r))
    role_changes = ((ALTER_ROLE,), (ALTER_SPAN, ALTER_ROLE))
    front = [edit for edit in edits if edit.kept.names in role_changes]
    return front[::-1] + [edit for edit in edits if edit.kept.names not in role_changes]


@dataclass
class _Tables:
    """Keyed by predicted-template content (identical templates share the last pair's entry):
    the unaligned gold mentions per role, and the unaligned mentions that are no role errors."""

    pool: dict[PredictedTemplate, list[list[str]]]
    spurious: dict[PredictedTemplate, list[str]]


def _tables(document: Prepared, entries: tuple[Entry, ...],
            pairs: dict[tuple[int, int], PairAlignment], counted: Counted) -> _Tables:
    pool: dict[PredictedTemplate, list[list[str]]] = {}
    spurious: dict[PredictedTemplate, list[str]] = {}
    for e, (p, g) in enumerate(entries):
        if p is None or g is None:
            continue
        template = document.predicted[p]
        pool[template] = [[m for j in aligned.leftover for m in document.gold[g].roles[r][j]]
                          for r, aligned in enumerate(pairs[p, g].roles)]
        spurious[template] = [
            record.mention for record, verdict in zip(counted.unaligned, counted.verdicts,
                                                      strict=True)
            if record.entry == e and verdict.category not in (WITHIN, WITHIN_PARTIAL)]
    return _Tables(pool, spurious)


def _apply(edit: _Edit, e: int, work: dict[int, list[list[str]]], document: Prepared,
           entries: tuple[Entry, ...], tables: _Tables) -> None:
    """One transformation on the working copies (a failed look-up changes nothing, as in the original)."""
    kept = edit.kept
    own = work[e]
    names = kept.names
    value = kept.value or ""
    if names == (ALTER_SPAN,):
        role = own[edit.role]
        if kept.mention in role:
            if value in role:
                role.remove(kept.mention or "")
            else:
                role[role.index(kept.mention or "")] = value
    elif names == (INTRODUCE_FILLER,):
        if value not in own[edit.role]:
            own[edit.role].append(value)
    else:
        if kept.mention in own[edit.role]:
            own[edit.role].remove(kept.mention)
        if names[-1] == ALTER_ROLE:
            p = entries[e][0]
            assert p is not None
            template = document.predicted[p]
            if value in tables.pool[template][edit.target] and value not in own[edit.target]:
                own[edit.target].append(value)
        elif names[-1] == CROSS:
            _move_across(edit, work, document, entries, tables)


def _move_across(edit: _Edit, work: dict[int, list[list[str]]], document: Prepared,
                 entries: tuple[Entry, ...], tables: _Tables) -> None:
    """Add the filler to the predicted template paired with the gold template it belongs to,
    if that template misses it and has spurious fillers of its own, none of them this one."""
    assert edit.destination is not None
    destination = document.gold[edit.destination]
    where = next(e for e, (_, g) in enumerate(entries)
                 if g is not None and document.gold[g] == destination)
    p = entries[where][0]
    if p is None or where not in work:
        return
    template = document.predicted[p]
    value = edit.kept.value or ""
    checked = edit.kept.mention if ALTER_ROLE in edit.kept.names else value
    spurious = tables.spurious.get(template, [])
    if (value in tables.pool[template][edit.target] and spurious and checked not in spurious
            and value not in work[where][edit.target]):
        work[where][edit.target].append(value)


def repair_document(document: Prepared, entries: tuple[Entry, ...],
                    pairs: dict[tuple[int, int], PairAlignment], counted: Counted,
                    ) -> tuple[Prepared, tuple[Transformation, ...]]:
    """The transformations kept for a document, in the original's order, and the document
    they make: repaired predictions against gold templates, both in alignment order."""
    verdicts = {(r.entry, r.role, r.index): v
                for r, v in zip(counted.unaligned, counted.verdicts, strict=True)}
    cancelled = {(m.entry, m.role, m.entity) for m in counted.cancelled_records}
    tables = _tables(document, entries, pairs, counted)
    work: dict[int, list[list[str]]] = {}
    plan: list[tuple[int, list[_Edit]]] = []
    kept: list[Transformation] = []
    for e, (p, g) in enumerate(entries):
        if p is not None and g is not None:
            work[e] = [list(role) for role in document.predicted[p].roles]
            plan.append((e, _pair_edits(document, e, p, g, pairs[p, g], verdicts, cancelled)))
        elif p is None and g is not None:
            kept.append(Transformation(e, (INTRODUCE_TEMPLATE,)))
        elif p is not None:
            kept.append(Transformation(e, (REMOVE_TEMPLATE,)))
    for e, edits in plan:
        for edit in edits:
            _apply(edit, e, work, document, entries, tables)
            kept.append(edit.kept)
    return _repaired(document, entries, work), tuple(sorted(kept, key=lambda t: t.entry))


def _repaired(document: Prepared, entries: tuple[Entry, ...],
              work: dict[int, list[list[str]]]) -> Prepared:
    predicted: list[PredictedTemplate] = []
    gold: list[GoldTemplate] = []
    for e, (p, g) in enumerate(entries):
        if g is not None:
            gold.append(document.gold[g])
        if p is not None and g is not None:
            kind = document.predicted[p].kind
            predicted.append(PredictedTemplate(kind, tuple(tuple(role) for role in work[e])))
        elif g is not None:
            template = document.gold[g]
            predicted.append(PredictedTemplate(template.kind, tuple(
                tuple(entity[0] for entity in role) for role in template.roles)))
    return Prepared(document.docid, tuple(predicted), tuple(gold), document.find,
                    document.roles)
