"""Template mapping: which key template is scored against which response template
(SCORER-SPEC §7): the 1992 greedy mapping, an optimal assignment, or manual mappings, among
the pairs that satisfy the configured restriction (§7.2)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from muceval.core.model import IRRELEVANT_ID, ManualMappings, Restriction, Template
from muceval.errors import InputError, Problem
from muceval.scoring.muc1992.equality import CValue, canon
from muceval.scoring.muc1992.rules import Trace
from muceval.scoring.muc1992.slots import COR, NON, PAR, POS, SlotScorer

__all__ = [
    "ManualMappings",
    "PairEvaluator",
    "PairJudge",
    "PreparedTemplate",
    "greedy_mapping",
    "history_mapping",
    "optimal_mapping",
    "overlap_verdict",
    "pair_score",
    "prepare",
    "replay_mapping",
    "restriction_holds",
    "sort_templates",
]


Pair = tuple["PreparedTemplate | None", "PreparedTemplate | None"]


@dataclass(frozen=True, slots=True)
class PreparedTemplate:
    """A template with its fills in canonical form (see :mod:`muceval.scoring.muc1992.equality`)."""

    template: Template
    fills: Mapping[str, tuple[CValue, ...]]

    @property
    def template_id(self) -> str:
        return self.template.template_id

    @property
    def irrelevant(self) -> bool:
        return self.template.template_id == IRRELEVANT_ID

    @property
    def optional(self) -> bool:
        return self.template.optional


def prepare(template: Template) -> PreparedTemplate:
    """Canonicalise every slot of a template once.

    >>> from muceval.core.model import Slot, Text
    >>> t = Template("M", "1", False, (Slot("s", (Text("bombing"),)),))
    >>> prepare(t).fills["s"]
    ('BOMBING',)
    """
    return PreparedTemplate(
        template, {slot.slot_id: tuple(canon(v) for v in slot.fills) for slot in template.slots}
    )


def sort_templates(templates: Iterable[PreparedTemplate]) -> list[PreparedTemplate]:
    """Catalog order within a message: template id as a plain string, stable (§7.1)."""
    return sorted(templates, key=lambda t: t.template_id)


def _percent(cor: int, par: int, pos: int) -> int:
    """The 1992 percentage (SCORER-SPEC §9.1): truncate to tenths, then round half to even."""
    permil = (500 * (2 * cor + par)) // pos
    q, r = divmod(permil, 10)
    if r > 5 or (r == 5 and q % 2 == 1):
        return q + 1
    return q


class PairEvaluator:
    """Restriction verdicts and pair scores of key/response pairs, from a :class:`SlotScorer`
    in mapping mode (history used, no queries)."""

    def __init__(
        self, scorer: SlotScorer, restriction: Restriction | None, slot_ids: Sequence[str]
    ):
        self.scorer = scorer
        self.restriction = restriction
        self.slot_ids = tuple(slot_ids)

    def allowed(self, message_id: str, key: PreparedTemplate, response: PreparedTemplate) -> bool:
        """§7.2: whether the pair satisfies the restriction (always, if either side is ``*``)."""
        if self.restriction is None or key.irrelevant or response.irrelevant:
            return True
        verdicts: dict[str, str] = {}

        def verdict(slot_id: str) -> str:
            if slot_id not in verdicts:
                # Blank on both sides: noncommittal, hence null, without scoring.
                blank = not key.fills.get(slot_id) and not response.fills.get(slot_id)
                verdicts[slot_id] = "null" if blank else overlap_verdict(
                    self.slot_tally(message_id, key, response, slot_id, overlap=True))
            return verdicts[slot_id]

        return restriction_holds(self.restriction, verdict)

    def slot_tally(
        self, message_id: str, key: PreparedTemplate, response: PreparedTemplate, slot_id: str,
        *, overlap: bool = False, trace: Trace | None = None,
    ) -> list[int]:
        """One slot of a pair in mapping mode (history used, no queries): as the pair score
        scores it, or with ``overlap`` as the restriction does (word overlap counts)."""
        return self.scorer.score(
            message_id,
            key.template_id,
            self.scorer.rules[slot_id],
            key.fills.get(slot_id, ()),
            response.fills.get(slot_id, ()),
            response_tid=response.template_id,
            overlap=overlap,
            trace=trace,
        )

    def score(self, message_id: str, key: PreparedTemplate, response: PreparedTemplate) -> int:
        """§7.3 pair score: the recall percentage of the pair, 100 if nothing is possible."""
        kf, rf = key.fills, response.fills
        # A slot blank on both sides is noncommittal, which the pair score leaves out.
        return pair_score(self.slot_tally(message_id, key, response, s) for s in self.slot_ids
                          if kf.get(s) or rf.get(s))


def overlap_verdict(tally: Sequence[int]) -> str:
    """A restriction slot's verdict from its tally: ``null`` (nothing to compare), ``match``, ``no``."""
    if tally[NON]:
        return "null"
    return "match" if tally[COR] or tally[PAR] else "no"


def restriction_holds(expr: Restriction, verdict: Callable[[str], str]) -> bool:
    """§7.2: an and/or restriction over slot verdicts (``match``, ``no``, ``null``)."""
    results = [
        restriction_holds(op, verdict) if isinstance(op, Restriction) else verdict(op) == "match"
        for op in expr.operands
    ]
    if expr.op == "and":
        return all(results)
    if any(results):
        return True
    # "or" also holds when every operand is null (nothing to compare at all).
    return all(not isinstance(op, Restriction) and verdict(op) == "null" for op in expr.operands)


def pair_score(tallies: Iterable[Sequence[int]]) -> int:
    """§7.3: the 1992 recall percentage of a pair's slot tallies (noncommittal slots left out)."""
    cor = par = pos = 0
    for t in tallies:
        if not t[NON]:
            cor += t[COR]
            par += t[PAR]
            pos += t[POS]
    return 100 if pos == 0 else _percent(cor, par, pos)


class PairJudge(Protocol):
    """What a mapping asks of a pair: is it allowed, and what is its score."""

    def allowed(self, message_id: str, key: PreparedTemplate, response: PreparedTemplate) -> bool:
        ...

    def score(self, message_id: str, key: PreparedTemplate, response: PreparedTemplate) -> int:
        ...


def _finish(
    keys: Sequence[PreparedTemplate], responses: Sequence[PreparedTemplate], chosen: dict[int, int]
) -> list[Pair]:
    used = set(chosen.values())
    out: list[Pair] = [
        (key, responses[chosen[i]] if i in chosen else None) for i, key in enumerate(keys)
    ]
    out.extend((None, r) for j, r in enumerate(responses) if j not in used)
    return out


def _candidates(
    message_id: str,
    keys: Sequence[PreparedTemplate],
    responses: Sequence[PreparedTemplate],
    evaluator: PairJudge,
) -> list[tuple[int, int, int]]:
    return [(evaluator.score(message_id, key, response), i, j)
            for i, key in enumerate(keys) for j, response in enumerate(responses)
            if evaluator.allowed(message_id, key, response)]


def greedy_mapping(
    message_id: str,
    keys: Sequence[PreparedTemplate],
    responses: Sequence[PreparedTemplate],
    evaluator: PairJudge,
) -> list[Pair]:
    """The 1992 mapping of one message (§7.3): keys in order, then unused responses; allowed
    pairs are taken by decreasing pair score, pairs scoring 0 too."""
    candidates = _candidates(message_id, keys, responses, evaluator)
    candidates.sort(key=lambda c: -c[0])  # stable: ties stay in key-major order
    chosen: dict[int, int] = {}
    used: set[int] = set()
    for _, i, j in candidates:
        if i not in chosen and j not in used:
            chosen[i] = j
            used.add(j)
    return _finish(keys, responses, chosen)


def optimal_mapping(
    message_id: str,
    keys: Sequence[PreparedTemplate],
    responses: Sequence[PreparedTemplate],
    evaluator: PairJudge,
) -> list[Pair]:
    """The mapping of one message with the greatest total pair score, then the most pairs."""
    candidates = _candidates(message_id, keys, responses, evaluator)
    if not candidates:
        return _finish(keys, responses, {})
    # Weight = score scaled so that one point of score outweighs any number of
    # extra pairs, plus one so that a zero-score allowed pair beats no pair.
    scale = min(len(keys), len(responses)) + 1
    # Imported here: scipy.optimize costs every run 0.3 s, and only --mapping optimal needs it.
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    weights = np.zeros((len(keys), len(responses)), dtype=np.int64)
    for score, i, j in candidates:
        weights[i, j] = score * scale + 1

    rows, cols = linear_sum_assignment(weights, maximize=True)
    chosen = {int(i): int(j) for i, j in zip(rows, cols, strict=True) if weights[i, j] > 0}
    return _finish(keys, responses, chosen)


def _take(templates: list[PreparedTemplate], template_id: str) -> PreparedTemplate | None:
    for n, t in enumerate(templates):
        if t.template_id == template_id:
            return templates.pop(n)
    return None


def replay_mapping(
    message_id: str,
    keys: Sequence[PreparedTemplate],
    responses: Sequence[PreparedTemplate],
    pairs: Sequence[tuple[str | None, str | None]],
) -> list[Pair]:
    """Use the given pairs in the given order (§13.1 replay), bypassing the restriction; a
    pair may repeat. Templates no pair mentions are not scored at all, as with a 1992 user
    mapping whose pair was dropped (the official NYU report leaves out such a pair)."""
    by_id = {side: {t.template_id: t for t in templates}
             for side, templates in (("key", keys), ("response", responses))}
    out: list[Pair] = []
    problems = []

    def find(side: str, template_id: str | None) -> PreparedTemplate | None:
        found = None if template_id is None else by_id[side].get(template_id)
        if template_id is not None and found is None:
            problems.append(f"message {message_id}: no {side} template {template_id!r}")
        return found

    for key_id, response_id in pairs:
        key, response = find("key", key_id), find("response", response_id)
        if key is not None or response is not None:
            out.append((key, response))
    if problems:
        raise InputError(Problem("<manual mappings>", None, p) for p in problems)
    return out


def history_mapping(
    message_id: str,
    keys: Sequence[PreparedTemplate],
    responses: Sequence[PreparedTemplate],
    pairs: Sequence[tuple[str | None, str | None]],
    evaluator: PairJudge,
) -> list[Pair] | None:
    """A 1992 user mapping (``":MAP"`` history entry, §7.4), or ``None`` if it is discarded:
    a pair naming no existing template is dropped, one that fails the restriction too (its
    templates are then not scored); a template not mentioned discards the whole mapping."""
    key_pool = list(keys)
    response_pool = list(responses)
    out: list[Pair] = []
    for key_id, response_id in pairs:
        key = _take(key_pool, key_id) if key_id is not None else None
        response = _take(response_pool, response_id) if response_id is not None else None
        if key is None and response is None:
            continue
        if key is not None and response is not None and not evaluator.allowed(
                message_id, key, response):
            continue
        out.append((key, response))
    if key_pool or response_pool:
        return None
    return out
