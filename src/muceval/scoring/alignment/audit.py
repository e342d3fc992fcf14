"""The alignment audit: several criteria side by side, the evidence of every pair, what
removing each response template would do, and a calibration from the key alone."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypedDict, Unpack

import numpy as np

from muceval.core.alignment import AlignmentSettings, Criterion
from muceval.core.metrics import FloatScores, precision, recall
from muceval.core.model import Configuration, History, TemplateFile
from muceval.core.tallies import PairScore, Tally, all_templates_total
from muceval.errors import UsageError
from muceval.scoring.alignment.chance import SlotEntropy
from muceval.scoring.alignment.criteria import CriterionJudge, evidence_evaluator
from muceval.scoring.alignment.evidence import EvidenceEvaluator, PairEvidence
from muceval.scoring.muc1992.judgements import QueryResolver
from muceval.scoring.muc1992.mapping import Pair, PreparedTemplate, prepare
from muceval.scoring.muc1992.scorer import MessageInput, Scorer, ScoringOptions

__all__ = [
    "AlignmentAudit",
    "AuditParts",
    "Calibration",
    "CriterionScore",
    "PairRecord",
    "RemovalRecord",
    "SplitEvent",
    "SystemAudit",
    "audit_alignment",
]

CALIBRATION_SAMPLE = 5_000
"""Pairs of key templates from different messages drawn for the calibration (fixed seed)."""


Metrics = tuple[float | None, float | None, float | None]
"""Recall, precision and F (None where undefined)."""


def _metrics(tally: Tally) -> Metrics:
    scores = FloatScores.of(tally)  # F as the tests compute it (metric_of_counts)
    return scores.recall, scores.precision, scores.f_pr


def _minus(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


@dataclass(frozen=True)
class CriterionScore:
    """One system under one criterion: ALL TEMPLATES tally, per-message tallies, mapped pairs."""

    criterion: str
    tally: Tally
    mapped_pairs: int
    units: Mapping[str, Tally] = field(repr=False)

    @property
    def recall(self) -> float | None:
        return recall(self.tally)

    @property
    def precision(self) -> float | None:
        return precision(self.tally)

    @property
    def f1(self) -> float | None:
        return FloatScores.of(self.tally).f_pr


@dataclass(frozen=True)
class PairRecord:
    """A key/response pair that some criterion maps, or that the criteria judge differently:
    ``verdicts`` per criterion (``mapped``, ``allowed`` but not chosen, or ``refused``);
    ``flagged``: mapped under the default criterion and refused by the flag criterion."""

    system: str
    evidence: PairEvidence
    verdicts: Mapping[str, str]
    flagged: bool


@dataclass(frozen=True)
class RemovalRecord:
    """What removing one response template (its message re-mapped) changes: ``deltas`` per
    criterion, (ΔR, ΔP, ΔF); ``anomaly`` (Kehler's): removal lowers F under the default
    criterion and raises it under the flag criterion."""

    system: str
    message_id: str
    response_id: str
    key_id: str | None
    deltas: Mapping[str, Metrics]
    anomaly: bool


@dataclass(frozen=True)
class SplitEvent:
    """Under an N:1 criterion, several response templates whose best key template is one."""

    system: str
    criterion: str
    message_id: str
    key_id: str
    response_ids: tuple[str, ...]


@dataclass(frozen=True)
class Calibration:
    """Share of pairs of *different* key templates a criterion would align (key alone)."""

    criterion: str
    same_message_pairs: int
    same_message_aligned: int
    other_message_pairs: int
    other_message_aligned: int
    other_message_sampled: bool

    @property
    def same_message_share(self) -> float | None:
        n = self.same_message_pairs
        return self.same_message_aligned / n if n else None

    @property
    def other_message_share(self) -> float | None:
        n = self.other_message_pairs
        return self.other_message_aligned / n if n else None


@dataclass(frozen=True)
class SystemAudit:
    system: str
    scores: Mapping[str, CriterionScore]
    pairs: tuple[PairRecord, ...] = ()
    removal: tuple[RemovalRecord, ...] = ()
    splits: tuple[SplitEvent, ...] = ()


@dataclass(frozen=True)
class AlignmentAudit:
    """Everything ``muceval alignment`` shows; ``criteria`` in display order, default first."""

    settings: AlignmentSettings
    criteria: tuple[Criterion, ...]
    default: str
    flag: str
    systems: tuple[SystemAudit, ...]
    query_pass: bool
    calibration: tuple[Calibration, ...] = ()
    entropy: tuple[SlotEntropy, ...] = ()

    @property
    def scored(self) -> tuple[str, ...]:
        """The criteria that score (1:1), in display order."""
        return tuple(c.name for c in self.criteria if c.cardinality == "1:1")


class _Auditor:
    def __init__(self, scorer: Scorer, evidence: EvidenceEvaluator,
                 criteria: Sequence[Criterion], default: str, flag: str):
        self.scorer = scorer
        self.evidence = evidence
        self.judges = {c.name: CriterionJudge(c, evidence) for c in criteria}
        self.criteria = {c.name: c for c in criteria}
        self.scored = [c.name for c in criteria if c.cardinality == "1:1"]
        self.default, self.flag = default, flag
        # A message mapped the same way under two criteria is scored once.
        self._scored: dict[tuple[str, tuple[int, ...], tuple[tuple[int, int], ...]],
                           list[PairScore]] = {}
        self.resolver: QueryResolver | None = scorer.resolver()

    def unit(self, name: str, message: MessageInput) -> tuple[Tally, list[Pair]]:
        """A message's ALL TEMPLATES total and catalog entries under one criterion."""
        message_id, keys, responses = message
        entries = self.scorer.map_message(message_id, keys, responses, self.judges[name],
                                          self.criteria[name].assignment)
        token = (message_id, tuple(id(r) for r in responses),
                 tuple((id(k), id(r)) for k, r in entries))
        scores = self._scored.get(token)
        if scores is None:
            scores = self.scorer.score_entries(message_id, keys, responses, entries,
                                               self.resolver)
            self._scored[token] = scores
        return all_templates_total(scores), entries


def _relevant(k: PreparedTemplate | None, r: PreparedTemplate | None) -> bool:
    return k is not None and r is not None and not k.irrelevant and not r.irrelevant


def _mapped(entries: Sequence[Pair]) -> set[tuple[int, int]]:
    return {(id(k), id(r)) for k, r in entries if _relevant(k, r)}


def _system(name: str, response: TemplateFile, key: TemplateFile, auditor: _Auditor,
            split_criteria: Sequence[str], want_pairs: bool, want_removal: bool) -> SystemAudit:
    scored = auditor.scored
    messages = auditor.scorer.messages(key, response)
    units: dict[str, dict[str, Tally]] = {c: {} for c in scored}
    entries: dict[str, dict[str, list[Pair]]] = {c: {} for c in scored}
    for message in messages:
        for c in scored:
            units[c][message[0]], entries[c][message[0]] = auditor.unit(c, message)
    totals = {c: Tally.total(units[c].values()) for c in scored}
    scores = {c: CriterionScore(c, totals[c], sum(len(_mapped(e)) for e in entries[c].values()),
                                units[c]) for c in scored}
    pairs = _pair_records(name, messages, auditor, entries) if want_pairs else ()
    removal = _removal(name, messages, auditor, units, entries, totals) if want_removal else ()
    splits = tuple(s for c in split_criteria for s in _splits(name, c, messages, auditor))
    return SystemAudit(name, scores, pairs, removal, splits)


def _pair_records(system: str, messages: Sequence[MessageInput], auditor: _Auditor,
                  entries: Mapping[str, Mapping[str, list[Pair]]]) -> tuple[PairRecord, ...]:
    scored, default, flag = auditor.scored, auditor.default, auditor.flag
    out = []
    for message in messages:
        message_id, keys, responses = message
        mapped = {c: _mapped(entries[c][message_id]) for c in scored}
        for k in keys:
            for r in responses:
                if not _relevant(k, r):
                    continue
                ev = auditor.evidence.evidence(message_id, k, r)
                verdicts = {c: "mapped" if (id(k), id(r)) in mapped[c]
                            else "allowed" if auditor.judges[c].admits(ev) else "refused"
                            for c in scored}
                states = set(verdicts.values())
                if "mapped" not in states and len(states) == 1:
                    continue
                flagged = verdicts.get(default) == "mapped" and not auditor.judges[flag].admits(ev)
                out.append(PairRecord(system, ev, verdicts, flagged))
    return tuple(out)


def _removal(system: str, messages: Sequence[MessageInput], auditor: _Auditor,
             units: Mapping[str, Mapping[str, Tally]],
             entries: Mapping[str, Mapping[str, list[Pair]]],
             totals: Mapping[str, Tally]) -> tuple[RemovalRecord, ...]:
    scored, default, flag = auditor.scored, auditor.default, auditor.flag
    before = {c: _metrics(totals[c]) for c in scored}
    out = []
    for message in messages:
        message_id, keys, responses = message
        key_of = {id(r): k.template_id for k, r in entries[default][message_id]
                  if k is not None and r is not None and _relevant(k, r)}
        candidates = {id(r) for c in scored for k, r in entries[c][message_id] if _relevant(k, r)}
        for n, r in enumerate(responses):
            if id(r) not in candidates:
                continue
            smaller: MessageInput = (message_id, keys, responses[:n] + responses[n + 1:])
            deltas: dict[str, Metrics] = {}
            for c in scored:
                unit, _ = auditor.unit(c, smaller)
                after = _metrics(totals[c] - units[c][message_id] + unit)
                r0, p0, f0 = before[c]
                deltas[c] = (_minus(after[0], r0), _minus(after[1], p0), _minus(after[2], f0))
            d_default, d_flag = deltas[default][2], deltas[flag][2]
            anomaly = (d_default is not None and d_flag is not None
                       and d_default < -1e-12 and d_flag > 1e-12)
            out.append(RemovalRecord(system, message_id, r.template_id, key_of.get(id(r)),
                                     deltas, anomaly))
    return tuple(out)


def _splits(system: str, criterion: str, messages: Sequence[MessageInput],
            auditor: _Auditor) -> list[SplitEvent]:
    judge = auditor.judges[criterion]
    out: list[SplitEvent] = []
    for message_id, keys, responses in messages:
        best: dict[str, list[str]] = {}
        for r in responses:
            if r.irrelevant:
                continue
            allowed = [(judge.score(message_id, k, r), -i, k) for i, k in enumerate(keys)
                       if not k.irrelevant and judge.allowed(message_id, k, r)]
            if allowed:
                best.setdefault(max(allowed, key=lambda a: a[:2])[2].template_id,
                                []).append(r.template_id)
        out.extend(SplitEvent(system, criterion, message_id, k, tuple(rs))
                   for k, rs in best.items() if len(rs) > 1)
    return out


def _calibration(key: TemplateFile, auditor: _Auditor) -> list[Calibration]:
    prepared = [prepare(t) for t in key.templates if not t.irrelevant]
    same = [(a, b) for a in prepared for b in prepared
            if a is not b and a.template.message_id == b.template.message_id]
    other = [(a, b) for a in prepared for b in prepared
             if a.template.message_id != b.template.message_id]
    sampled = len(other) > CALIBRATION_SAMPLE
    if sampled:
        chosen = np.random.default_rng(0).choice(len(other), CALIBRATION_SAMPLE, replace=False)
        other = [other[n] for n in sorted(chosen)]

    def aligned(judge: CriterionJudge,
                pairs: list[tuple[PreparedTemplate, PreparedTemplate]]) -> int:
        return sum(1 for a, b in pairs
                   if judge.admits(auditor.evidence.evidence(a.template.message_id, a, b)))

    return [Calibration(name, len(same), aligned(auditor.judges[name], same), len(other),
                        aligned(auditor.judges[name], other), sampled) for name in auditor.scored]


class AuditParts(TypedDict, total=False):
    """The audits :func:`audit_alignment` adds to the scores, each off unless asked for:
    ``pairs`` (:class:`PairRecord`), ``removal`` (:class:`RemovalRecord`), ``calibrate``
    (:class:`Calibration`), ``entropy`` (:class:`SlotEntropy`)."""

    pairs: bool
    removal: bool
    calibrate: bool
    entropy: bool


def audit_alignment(
    config: Configuration,
    key: TemplateFile,
    responses: Mapping[str, TemplateFile],
    *,
    history: History | None = None,
    settings: AlignmentSettings | None = None,
    criteria: Sequence[str] | None = None,
    query_pass: bool = True,
    chance_keys: Sequence[TemplateFile] = (),
    progress: Callable[[int, int], None] | None = None,
    **parts: Unpack[AuditParts],
) -> AlignmentAudit:
    """Score every system under each criterion (by default the settings' ``compared`` ones,
    the default criterion first, the flag criterion added), with the audits asked for
    (:class:`AuditParts`); unanswered queries give no credit.

    >>> import muceval
    >>> from importlib.resources import files
    >>> example = files("muceval") / "data" / "example"
    >>> config = muceval.load_configuration(example / "config.toml")
    >>> key = muceval.read_templates(example / "key.txt", config)
    >>> alpha = muceval.read_templates(example / "alpha.txt", config)
    >>> audit = audit_alignment(config, key, {"alpha": alpha}, pairs=True)
    >>> audit.default, list(audit.scored)[:1]
    ('1992', ['1992'])
    """
    settings = settings or config.alignment or AlignmentSettings()
    names = list(criteria) if criteria else list(settings.compared)
    default = settings.default
    flag = settings.flag or next((n for n in names if n != default), settings.flag_criterion)
    wanted = list(dict.fromkeys([default, *names, flag]))
    chosen = tuple(settings.criterion(n) for n in wanted)
    if settings.criterion(default).cardinality != "1:1":
        raise UsageError(f"the default alignment criterion {default!r} is N:1: it cannot score")
    if settings.criterion(flag).cardinality != "1:1":
        flag = default
    scorer = Scorer(config, history, ScoringOptions(query_pass=query_pass))
    evidence = evidence_evaluator(scorer.evaluator, config, key, chance_keys, settings.chance,
                                  chosen)
    auditor = _Auditor(scorer, evidence, chosen, default, flag)
    splits = [c.name for c in chosen if c.cardinality != "1:1"]
    systems = []
    for n, (name, response) in enumerate(responses.items()):
        systems.append(_system(name, response, key, auditor, splits, parts.get("pairs", False),
                               parts.get("removal", False)))
        if progress is not None:
            progress(n + 1, len(responses))
    calibration = tuple(_calibration(key, auditor)) if parts.get("calibrate") else ()
    table = tuple(evidence.chance.entropy()) if parts.get("entropy") else ()
    return AlignmentAudit(settings, chosen, default, flag, tuple(systems), query_pass,
                          calibration, table)
