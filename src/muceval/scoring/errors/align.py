"""Alignment of one document: fillers within each role of a template pair, optimised on their
own, then templates, whose search takes those optima as the values of its pairs."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from muceval.core.modern import Entity, ModernTemplate
from muceval.scoring.errors.model import DAS_ROLES
from muceval.scoring.errors.search import Assignment, Choices, Option
from muceval.scoring.errors.spans import SpanFinder, nearest

__all__ = ["GoldTemplate", "PairAlignment", "PredictedTemplate", "Prepared", "RoleAlignment",
           "align_document", "prepare"]

Solver = Callable[[Choices], Assignment]


@dataclass(frozen=True)
class PredictedTemplate:
    """A predicted template: per role its mentions, entity grouping lost as in the original."""

    kind: str | None
    roles: tuple[tuple[str, ...], ...]

    @property
    def mentions(self) -> int:
        return sum(len(role) for role in self.roles)


@dataclass(frozen=True)
class GoldTemplate:
    """A gold template: per role (the document's ``roles`` order) its entities."""

    kind: str | None
    roles: tuple[tuple[Entity, ...], ...]

    @property
    def entities(self) -> int:
        return sum(len(role) for role in self.roles)


@dataclass(eq=False)
class Prepared:
    """One document ready for the analysis; ``find`` gives the span of a mention string."""

    docid: str
    predicted: tuple[PredictedTemplate, ...]
    gold: tuple[GoldTemplate, ...]
    find: SpanFinder
    roles: tuple[str, ...] = DAS_ROLES
    roles_cache: dict[tuple[tuple[str, ...], tuple[Entity, ...]], RoleAlignment] = field(
        default_factory=dict)


def _sorted(template: ModernTemplate) -> ModernTemplate:
    return ModernTemplate(template.incident_type, tuple(
        tuple(sorted(tuple(sorted(entity)) for entity in role)) for role in template.roles),
        template.role_names)


def _template_key(template: ModernTemplate,
                  ) -> tuple[bool, str, tuple[tuple[str, tuple[Entity, ...]], ...]]:
    # Role names are part of the key: templates of open schemas differ in them.
    return (template.incident_type is None, template.incident_type or "",
            template.named_roles())


def prepare(docid: str, text: str, predicted: Iterable[ModernTemplate],
            gold: Iterable[ModernTemplate], canonical: bool = False,
            roles: tuple[str, ...] = DAS_ROLES) -> tuple[Prepared, int]:
    """A document in the analysis's terms, and the number of empty gold entities left out
    (the original crashes on them); ``canonical`` sorts mentions, entities and templates first.
    """
    predicted, gold = list(predicted), list(gold)
    if canonical:
        predicted = sorted((_sorted(t) for t in predicted), key=_template_key)
        gold = sorted((_sorted(t) for t in gold), key=_template_key)
    gold_roles = [tuple(t.role(r) for r in roles) for t in gold]
    empty = sum(1 for own in gold_roles for role in own for entity in role if not entity)
    preds = tuple(PredictedTemplate(t.incident_type, tuple(
        tuple(m for entity in t.role(r) for m in entity) for r in roles)) for t in predicted)
    golds = tuple(GoldTemplate(t.incident_type, tuple(
        tuple(entity for entity in role if entity) for role in own))
        for t, own in zip(gold, gold_roles, strict=True))
    return Prepared(docid, preds, golds, SpanFinder(text), roles), empty


@dataclass(frozen=True)
class RoleAlignment:
    """The fillers of one role of a template pair: per predicted mention its entity (or None),
    the pair's SCS and the index of the entity's first mention reaching it."""

    choices: tuple[int | None, ...]
    values: tuple[float, ...]
    best: tuple[int, ...]
    leftover: tuple[int, ...]
    gain: int
    score: float


@dataclass(frozen=True)
class PairAlignment:
    """A template pair: its roles, whether the types are equal, its credited units and score."""

    roles: tuple[RoleAlignment, ...]
    type_equal: bool
    gain: int
    score: float


def align_role(mentions: tuple[str, ...], entities: tuple[Entity, ...], find: SpanFinder,
               solve: Solver) -> RoleAlignment:
    """The original's filler alignment of one role: a mention may take an entity whose
    closest mention has an SCS below 1; best first on exact pairs, then on the role score."""
    options: list[tuple[Option, ...]] = []
    closest: list[dict[int, tuple[float, int]]] = []
    for mention in mentions:
        span = find(mention)
        near = {j: nearest(span, entity, find) for j, entity in enumerate(entities)}
        near = {j: found for j, found in near.items() if found[0] < 1}
        closest.append(near)
        options.append(tuple(Option(j, value, 1 if value == 0 else 0)
                             for j, (value, _) in near.items()))
    found = solve(Choices((1.0,) * len(mentions), (1.0,) * len(entities), tuple(options),
                          len(mentions), len(entities)))
    used = {j for j in found.choices if j is not None}
    return RoleAlignment(
        found.choices,
        tuple(1.0 if j is None else closest[i][j][0] for i, j in enumerate(found.choices)),
        tuple(0 if j is None else closest[i][j][1] for i, j in enumerate(found.choices)),
        tuple(j for j in range(len(entities)) if j not in used), found.gain, found.score)


def align_pair(document: Prepared, predicted: PredictedTemplate, gold: GoldTemplate,
               solve: Solver) -> PairAlignment:
    """Every role of a template pair aligned; the score summed as the original sums it."""
    roles = []
    for mentions, entities in zip(predicted.roles, gold.roles, strict=True):
        key = (mentions, entities)
        if key not in document.roles_cache:
            document.roles_cache[key] = align_role(mentions, entities, document.find, solve)
        roles.append(document.roles_cache[key])
    equal = predicted.kind == gold.kind
    # Added one by one, as the original adds them: sum() of floats rounds otherwise from
    # Python 3.12 on, and the score's text is an output.
    score = 0.0 if equal else 1.0
    for role in roles:
        score += role.score
    return PairAlignment(tuple(roles), equal, int(equal) + sum(r.gain for r in roles), score)


Entry = tuple[int | None, int | None]  # predicted and gold template indices (None: unpaired)


def align_document(document: Prepared, types: str, solve: Solver,
                   ) -> tuple[tuple[Entry, ...], dict[tuple[int, int], PairAlignment]]:
    """The original's template alignment: the entries, left-over gold last, and the pairs'."""
    preds, golds = document.predicted, document.gold
    pairs: dict[tuple[int, int], PairAlignment] = {}
    options: list[tuple[Option, ...]] = []
    for p, predicted in enumerate(preds):
        row = []
        for g, gold in enumerate(golds):
            if types == "any" or predicted.kind == gold.kind:
                pairs[p, g] = align_pair(document, predicted, gold, solve)
                row.append(Option(g, pairs[p, g].score, pairs[p, g].gain))
        options.append(tuple(row))
    found = solve(Choices(tuple(float(1 + t.mentions) for t in preds),
                          tuple(float(1 + t.entities) for t in golds), tuple(options),
                          len(preds) + sum(t.mentions for t in preds),
                          len(golds) + sum(t.entities for t in golds)))
    used = {g for g in found.choices if g is not None}
    entries: list[Entry] = list(enumerate(found.choices))
    entries += [(None, g) for g in range(len(golds)) if g not in used]
    return tuple(entries), {(p, g): pairs[p, g] for p, g in entries
                            if p is not None and g is not None}
