"""Judging pairs by a named criterion, from their evidence, and plugging a criterion into the
1992 scorer (:class:`CriterionHook`).

>>> from muceval.core.alignment import MinPairScore, Criterion
>>> Criterion("x", require=(MinPairScore(50),)).describe()
'1992 restriction, greedy; require min-pair-score 50'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from muceval.core.alignment import (
    AllOf,
    AnyOf,
    ChanceSettings,
    Condition,
    Criterion,
    MinEvidenceBits,
    MinMatchingSlots,
    MinPairScore,
    Not,
    SlotMatch,
    ValueTest,
)
from muceval.core.model import Configuration, Restriction, TemplateFile
from muceval.errors import UsageError
from muceval.scoring.alignment.chance import ChanceModel
from muceval.scoring.alignment.evidence import (
    EvidenceEvaluator,
    PairEvidence,
    SlotEvidence,
    restriction_slots,
)
from muceval.scoring.muc1992.mapping import PairEvaluator, PreparedTemplate, restriction_holds

__all__ = ["CriterionHook", "CriterionJudge", "evidence_evaluator", "holds", "overlap_slots", "parse_criteria"]


def _value_ok(s: SlotEvidence, test: ValueTest) -> bool:
    if not s.credited(test.credit):
        return False
    if test.max_chance is None and test.min_bits is None:
        return True
    return any((test.max_chance is None or m.chance <= test.max_chance)
               and (test.min_bits is None or m.bits >= test.min_bits)
               for m in s.values(test.credit))


def _blank(ev: PairEvidence, slot_id: str, credit: str) -> bool:
    s = ev.slot(slot_id)
    return s is None or s.blank(credit)


def _slot_ok(ev: PairEvidence, slot_id: str, test: ValueTest) -> bool:
    s = ev.slot(slot_id)
    return s is not None and _value_ok(s, test)


def holds(condition: Condition, ev: PairEvidence) -> bool:
    """Whether a condition holds for a pair."""
    if isinstance(condition, SlotMatch):
        # As in the 1992 restriction's or-clause, slots blank on both sides neither
        # help nor block: they are left out, and a condition on blanks alone holds.
        named = [s for s in condition.slots if not _blank(ev, s, condition.test.credit)]
        if not named:
            return True
        results = (_slot_ok(ev, s, condition.test) for s in named)
        return all(results) if condition.quantifier == "all" else any(results)
    if isinstance(condition, MinMatchingSlots):
        slots = condition.slots if condition.slots is not None else tuple(ev.slots)
        return sum(1 for s in slots if _slot_ok(ev, s, condition.test)) >= condition.count
    if isinstance(condition, MinEvidenceBits):
        slots = condition.slots if condition.slots is not None else tuple(ev.slots)
        total = 0.0  # added in order: sum() of floats rounds otherwise from Python 3.12 on
        for slot_id in slots:
            s = ev.slot(slot_id)
            if s is not None and s.credited("partial"):
                total += s.bits
        return total >= condition.bits
    if isinstance(condition, MinPairScore):
        return ev.pair_score >= condition.score
    if isinstance(condition, AllOf):
        return all(holds(c, ev) for c in condition.conditions)
    if isinstance(condition, AnyOf):
        return any(holds(c, ev) for c in condition.conditions)
    assert isinstance(condition, Not)
    return not holds(condition.condition, ev)


def _conditions(conditions: Iterable[Condition]) -> Iterable[Condition]:
    for c in conditions:
        yield c
        if isinstance(c, AllOf | AnyOf):
            yield from _conditions(c.conditions)
        elif isinstance(c, Not):
            yield from _conditions((c.condition,))


def overlap_slots(criteria: Iterable[Criterion]) -> tuple[str, ...]:
    """Slots the criteria judge in the restriction's mode (own restrictions, ``credit = "overlap"``)."""
    out: list[str] = []
    for criterion in criteria:
        if isinstance(criterion.restriction, Restriction):
            out.extend(restriction_slots(criterion.restriction))
        for c in _conditions(criterion.require):
            if isinstance(c, SlotMatch | MinMatchingSlots) and c.test.credit == "overlap":
                out.extend(c.slots or ())
    return tuple(dict.fromkeys(out))


class CriterionJudge:
    """A :class:`~muceval.scoring.muc1992.mapping.PairJudge` for one criterion."""

    def __init__(self, criterion: Criterion, evidence: EvidenceEvaluator):
        self.criterion = criterion
        self.evidence = evidence

    def admits(self, ev: PairEvidence) -> bool:
        """The criterion's verdict on a pair of relevant templates."""
        restriction = self.criterion.restriction
        if restriction == "1992":
            ok = ev.restriction_1992
        elif isinstance(restriction, Restriction):
            ok = restriction_holds(restriction, ev.verdict)
        else:
            ok = True
        return ok and all(holds(c, ev) for c in self.criterion.require)

    def allowed(self, message_id: str, key: PreparedTemplate, response: PreparedTemplate) -> bool:
        # An irrelevant template ('*') carries nothing to judge: 1992 always allows it.
        if key.irrelevant or response.irrelevant:
            return True
        return self.admits(self.evidence.evidence(message_id, key, response))

    def score(self, message_id: str, key: PreparedTemplate, response: PreparedTemplate) -> int:
        if key.irrelevant or response.irrelevant:
            return self.evidence.evaluator.score(message_id, key, response)
        return self.evidence.evidence(message_id, key, response).pair_score


def evidence_evaluator(evaluator: PairEvaluator, config: Configuration, key: TemplateFile,
                       chance_keys: Sequence[TemplateFile], chance: ChanceSettings,
                       criteria: Iterable[Criterion]) -> EvidenceEvaluator:
    """An evidence evaluator for the criteria, with chances from ``chance_keys`` when given,
    else from ``key``."""
    templates = [t for k in chance_keys or (key,) for t in k.templates]
    model = ChanceModel(templates, config, evaluator.scorer.matcher)
    return EvidenceEvaluator(evaluator, model, config, overlap_slots(criteria), chance.common)


class CriterionHook:
    """Score with a named criterion (an :class:`~muceval.scoring.muc1992.scorer.AlignmentHook`)."""

    def __init__(self, criterion: Criterion, config: Configuration,
                 chance: ChanceSettings | None = None,
                 chance_keys: Sequence[TemplateFile] = ()):
        if criterion.cardinality != "1:1":
            raise UsageError(f"alignment criterion {criterion.name!r} is N:1: it lists split "
                             "events in `muceval alignment` but cannot score")
        self.criterion = criterion
        self.config = config
        self.chance = chance or ChanceSettings()
        self.chance_keys = tuple(chance_keys)
        self._judges: dict[int, tuple[TemplateFile, CriterionJudge]] = {}

    @property
    def assignment(self) -> str:
        return self.criterion.assignment

    def judge(self, evaluator: PairEvaluator, key: TemplateFile) -> CriterionJudge:
        cached = self._judges.get(id(key))
        if cached is not None and cached[0] is key:
            return cached[1]
        judge = CriterionJudge(self.criterion, evidence_evaluator(
            evaluator, self.config, key, self.chance_keys, self.chance, (self.criterion,)))
        self._judges[id(key)] = (key, judge)
        return judge


def parse_criteria(text: str | None, config: Configuration) -> list[str] | None:
    """Comma-separated criterion names, checked against the configuration; None if not given.

    >>> from muceval.formats.config import bundled_configuration
    >>> parse_criteria("1992, any-slot", bundled_configuration())
    ['1992', 'any-slot']
    """
    from muceval.core.alignment import AlignmentSettings

    if text is None:
        return None
    chosen = [c.strip() for c in text.split(",") if c.strip()]
    if not chosen:
        raise UsageError("name at least one alignment criterion")
    settings = config.alignment or AlignmentSettings()
    for name in chosen:
        settings.criterion(name)
    return chosen
