"""The alignment criteria of the modern scorers, stated explicitly, and GTT's audited.

GTT credits a pair's incident type even when none of its role entities matches; the audit
counts those pairs and scores under the stricter ``gtt-role-match``, so that the change of F
shows how much of a score rests on incident types alone.

>>> from muceval.core.modern import ModernDocument, ModernFile, ModernTemplate
>>> gold = ModernFile("g", "gtt-gold", (ModernDocument("TST3-MUC4-0001", (
...     ModernTemplate("attack", ((("shining path",),), (), (), (), ())),)),))
>>> pred = ModernFile("p", "gtt-pred", (ModernDocument("TST3-MUC4-0001", (
...     ModernTemplate("attack", ((("the army",),), (), (), (), ())),)),))
>>> audit = audit_gtt(gold, pred, "sys")
>>> audit.mapped, audit.type_only
(1, 1)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from muceval.core.modern import ModernFile
from muceval.scoring.modern import DocumentCounts, ModernOptions, ModernScores, score_modern
from muceval.scoring.modern import gtt as gtt_metric
from muceval.scoring.modern.counts import Counts

__all__ = ["MODERN_CRITERIA", "GttAlignmentAudit", "GttPair", "ModernCriterion", "audit_gtt"]


@dataclass(frozen=True)
class ModernCriterion:
    """The alignment a modern metric uses, in the terms of muceval's alignment layer."""

    name: str
    metric: str
    aligns: str
    restriction: str
    assignment: str
    cardinality: str
    credit: str

    def to_dict(self) -> dict[str, str]:
        return {k: v for k, v in asdict(self).items() if k != "name"}


MODERN_CRITERIA: Mapping[str, ModernCriterion] = {
    "gtt": ModernCriterion(
        "gtt", "gtt", "templates",
        "the predicted incident type is a substring of the gold incident type",
        "exhaustive: the first map, in itertools.product order, whose document F1 "
        "(incident type included) is strictly greatest",
        "1:1, partial", "the incident type (1 to each numerator) and every predicted entity "
        "whose mentions are a subset of a gold entity's, per role"),
    "gtt-role-match": ModernCriterion(
        "gtt-role-match", "gtt", "templates",
        "as gtt, and at least one role entity matches (no pair on the incident type alone)",
        "as gtt", "1:1, partial", "as gtt"),
    "ceaf-ree": ModernCriterion(
        "ceaf-ree", "ceaf-ree", "entities, per role (templates are merged first)",
        "none: any predicted and gold entity of the same role",
        "Kuhn-Munkres per document and role, maximising the summed similarity (phi)",
        "1:1, partial", "the similarity of each aligned entity pair (strict or prop)"),
    "ceaf-rme": ModernCriterion(
        "ceaf-rme", "ceaf-rme", "templates",
        "none: any two templates; mentions carry the incident type and role, so only templates "
        "of the same type can share credit",
        "Kuhn-Munkres per document over templates, maximising the summed similarity",
        "1:1, partial", "the similarity of the aligned templates' typed mentions (subset, phi3)"),
}


@dataclass(frozen=True)
class GttPair:
    """A template pair GTT's map credits: 1-based positions in the document's lists."""

    docid: str
    predicted: int
    gold: int
    predicted_type: str
    gold_type: str
    role_p_num: int
    role_p_den: int
    role_r_num: int
    role_r_den: int

    @property
    def type_only(self) -> bool:
        """Credited on the incident type alone: there are role entities, and none matches
        (two templates without any entity agree wholly, not on the type alone)."""
        return self.role_p_num == 0 and self.role_r_num == 0 \
            and self.role_p_den + self.role_r_den > 0

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "type_only": self.type_only}


@dataclass(frozen=True)
class GttAlignmentAudit:
    """One system's GTT alignment: the credited pairs, its ``gtt`` and ``gtt-role-match`` scores."""

    system: str
    pairs: tuple[GttPair, ...]
    scores: ModernScores
    strict: ModernScores

    @property
    def mapped(self) -> int:
        return len(self.pairs)

    @property
    def type_only(self) -> int:
        return sum(p.type_only for p in self.pairs)

    @property
    def share(self) -> float | None:
        return self.type_only / self.mapped if self.mapped else None


def audit_gtt(gold: ModernFile, pred: ModernFile, system: str | None = None,
              compat: bool = False) -> GttAlignmentAudit:
    """Audit GTT's alignment of ``pred`` against ``gold``: the pairs it credits (at the
    official map, tie-break included) and the scores under ``gtt-role-match``."""
    options = ModernOptions("gtt", compat=compat)
    scores = score_modern(gold, pred, options, system)
    preds = pred.by_id()
    pairs: list[GttPair] = []
    strict: list[DocumentCounts] = []
    for docid, document in gold.by_id().items():
        golds = gtt_metric.gold_templates(document.templates or ())
        predicted = preds.get(docid)
        templates = gtt_metric.predicted_templates(
            predicted.templates or () if predicted else ())
        for i, j, counts in gtt_metric.mapped_pairs(templates, golds):
            roles = sum(counts[1:], Counts())
            pairs.append(GttPair(docid, i + 1, j + 1, templates[i].incident_type,
                                 golds[j].incident_type, int(roles.p_num), roles.p_den,
                                 int(roles.r_num), roles.r_den))
        fields = gtt_metric.score_document(templates, golds, role_match=True)
        strict.append(DocumentCounts(docid, sum(fields.values(), Counts()), fields))
    return GttAlignmentAudit(scores.system, tuple(pairs), scores,
                             ModernScores(scores.system, options, tuple(strict)))
