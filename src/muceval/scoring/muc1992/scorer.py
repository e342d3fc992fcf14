"""The scoring pipeline: key + response + configuration + history → one
:class:`~muceval.core.tallies.PairScore` per report section, in report order (§7.5).

>>> from muceval.core.model import Configuration, SlotSpec, SlotType, Template, TemplateFile, Slot, Text
>>> cfg = Configuration(slots=(SlotSpec("message-id", "0.", SlotType.MESSAGE_ID),
...     SlotSpec("template-id", "1.", SlotType.TEMPLATE_ID), SlotSpec("s", "2.", SlotType.STRING)))
>>> key = TemplateFile("key", (Template("M1", "1", False, (Slot("s", (Text('"X"'),)),)),))
>>> [p.total().cor for p in score_system(key, key, cfg, None).pairs]
[1]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from muceval.core.model import (
    Configuration,
    History,
    Template,
    TemplateFile,
    add_judgement,
)
from muceval.core.tallies import ZERO, FillCredit, PairScore, Tally, TemplateStatus
from muceval.scoring.muc1992.equality import ValueMatcher
from muceval.scoring.muc1992.judgements import (
    HistoryIndex,
    NewJudgement,
    QueryResolver,
)
from muceval.scoring.muc1992.mapping import (
    Pair,
    PairEvaluator,
    PairJudge,
    PreparedTemplate,
    greedy_mapping,
    history_mapping,
    optimal_mapping,
    prepare,
    replay_mapping,
    sort_templates,
)
from muceval.scoring.muc1992.options import AlignmentHook, ScoringOptions
from muceval.scoring.muc1992.slots import Ledger, SlotScorer

__all__ = [
    "AlignmentHook",
    "MessageInput",
    "Scorer",
    "ScoringOptions",
    "ScoringResult",
    "add_judgements",
    "score_system",
]

_TEMPLATE_ID_TALLY = {
    TemplateStatus.MATCHED: Tally(pos=1, act=1, cor=1),
    TemplateStatus.MISSING: Tally(pos=1, mis=1),
    TemplateStatus.SPURIOUS: Tally(act=1, spu=1),
    TemplateStatus.IRRELEVANT: Tally(non=1),
    TemplateStatus.IGNORED: ZERO,
}
# The lone template-id row the 1992 report prints for an optional key that no
# response template was mapped to (§10.4). It is never added to any total.
_OPTIONAL_ALONE = Tally(pos=1, mis=1)


MessageInput = tuple[str, list[PreparedTemplate], list[PreparedTemplate]]
"""One message to map: its id, its key and response templates in catalog order."""


CatalogEntry = tuple[str, PreparedTemplate | None, PreparedTemplate | None, TemplateStatus]
"""One entry of a system's catalog: message id, key and response template, status."""

@dataclass(frozen=True)
class ScoringResult:
    """The pair scores in report order, the judgements given through ``ask``, and how many
    questions no recorded answer settled (scored by the ``unresolved`` policy)."""

    pairs: tuple[PairScore, ...]
    new_judgements: tuple[NewJudgement, ...] = field(default=())
    unanswered: int = 0

    def __iter__(self) -> Iterator[PairScore]:
        return iter(self.pairs)

    def __len__(self) -> int:
        return len(self.pairs)


class Scorer:
    """Scores response files against a key with one configuration, history and options.

    As the 1992 MUC-4 scorer did: per message, templates mapped (SCORER-SPEC §7), given a
    status (§8.1) and scored slot by slot (§6). Answers given through ``ask`` are added to the
    scorer's history index (not to ``history``): they serve its later :meth:`score` calls.

    Parameters
    ----------
    history : muceval.core.model.History or None, default None
        Recorded human judgements (:func:`read_history`).
    options : ScoringOptions or None, default None
        How to score; None: ``ScoringOptions()``.

    Examples
    --------

    >>> import muceval
    >>> from importlib.resources import files
    >>> from muceval.core.model import Judgement
    >>> example = files("muceval") / "data" / "example"
    >>> config = muceval.load_configuration(example / "config.toml")
    >>> key = muceval.read_templates(example / "key.txt", config)
    >>> alpha = muceval.read_templates(example / "alpha.txt", config)
    >>> history = muceval.read_history(example / "history.lisp")
    >>> result = muceval.Scorer(config, history).score(key, alpha)
    >>> first = result.pairs[0]
    >>> first.message_id, first.key_id, first.response_id, first.status.value
    ('DEMO-0001', '1', '1', 'matched')
    >>> first.slot("inc-type")
    Tally(pos=1, act=1, cor=1, par=0, inc=0, icr=0, ipa=0, spu=0, mis=0, non=0, pie=3)

    An operator who answers every question "partial": the answer about ``"PYLON"`` also
    decides the cross-reference to ``"PYLON"`` in the next slot, which is not asked:

    >>> def ask(query):
    ...     return Judgement.PARTIAL
    >>> options = muceval.ScoringOptions(unresolved="ask", ask=ask)
    >>> result = muceval.Scorer(config, history, options).score(key, alpha)
    >>> for judgement in result.new_judgements:
    ...     print(judgement.message_id, judgement.slot_id, judgement.entry.response)
    DEMO-0006 phys-tgt-id "PYLON"
    DEMO-0010 inc-date 21 APR 24
    """

    def __init__(
        self,
        config: Configuration,
        history: History | None = None,
        options: ScoringOptions | None = None,
    ):
        options = options or ScoringOptions()
        self.config = config
        self.options = options
        self.history = history
        self.matcher = ValueMatcher(config)
        self.index = HistoryIndex(history, self.matcher)
        self.slots = SlotScorer(config, history, self.matcher, self.index)
        scored = None if config.scored_slots is None else set(config.scored_slots)
        self.slot_ids = tuple(
            s.slot_id for s in config.content_slots if scored is None or s.slot_id in scored
        )
        self.evaluator = PairEvaluator(self.slots, config.restrict_map_slots, self.slot_ids)
        # A slot blank in key and response: noncommittal, whatever else (SlotScorer.score).
        self._blank = {s: Tally(non=1, pie=rules.cardinality)
                       for s, rules in self.slots.rules.items()}
        self._history_maps = (
            {mid: m.pairs for mid, m in history.mappings().items()}
            if history is not None and options.use_history_mappings
            else {}
        )
        self._selection = _selection(config)
        self._prepared: dict[int, PreparedTemplate] = {}

    def _prepare(self, template: Template) -> PreparedTemplate:
        cached = self._prepared.get(id(template))
        if cached is None or cached.template is not template:
            cached = prepare(template)
            self._prepared[id(template)] = cached
        return cached

    def judge_for(self, key: TemplateFile) -> tuple[PairJudge, str]:
        """The pair judge and assignment the options ask for (the 1992 restriction by default)."""
        hook = self.options.alignment
        if hook is None:
            return self.evaluator, self.options.mapping
        return hook.judge(self.evaluator, key), hook.assignment

    def map_message(
        self,
        message_id: str,
        keys: Sequence[PreparedTemplate],
        responses: Sequence[PreparedTemplate],
        judge: PairJudge | None = None,
        assignment: str | None = None,
    ) -> list[Pair]:
        """The ordered catalog entries of one message (§7.1–§7.4, §13.1)."""
        judge = judge or self.evaluator
        assignment = assignment or self.options.mapping
        manual = self.options.manual_mappings
        if manual is not None and message_id in manual:
            return replay_mapping(message_id, keys, responses, manual[message_id])
        if not keys or not responses:
            return [(k, None) for k in keys] + [(None, r) for r in responses]
        if message_id in self._history_maps:
            user = history_mapping(
                message_id, keys, responses, self._history_maps[message_id], judge
            )
            if user is not None:
                return user
        if assignment == "optimal":
            return optimal_mapping(message_id, keys, responses, judge)
        return greedy_mapping(message_id, keys, responses, judge)

    def messages(self, key: TemplateFile, response: TemplateFile) -> list[MessageInput]:
        """The messages to score, in report order, with their templates in catalog order."""
        keys_by_message = _group(self._prepare(t) for t in key.templates)
        responses_by_message = _group(self._prepare(t) for t in response.templates)
        message_ids = sorted(set(keys_by_message) | set(responses_by_message))
        if self._selection is not None:
            message_ids = [m for m in message_ids if m in self._selection]
        out: list[MessageInput] = []
        for message_id in message_ids:
            keys = sort_templates(keys_by_message.get(message_id, ()))
            if self._selection is not None and self._selection[message_id]:
                wanted = self._selection[message_id]
                keys = [k for k in keys if k.template_id in wanted]
            responses = sort_templates(responses_by_message.get(message_id, ()))
            out.append((message_id, keys, responses))
        return out

    def score(self, key: TemplateFile, response: TemplateFile) -> ScoringResult:
        """Score one system's response templates against the key: one
        :class:`~muceval.core.tallies.PairScore` per section of the 1992 report, in its order."""
        judge, assignment = self.judge_for(key)
        # The whole mapping is computed first, with the history as it is now (§7.3).
        catalog = [
            (message_id, keys, responses,
             self.map_message(message_id, keys, responses, judge, assignment))
            for message_id, keys, responses in self.messages(key, response)
        ]
        resolver = self.resolver()
        pairs: list[PairScore] = []
        for message_id, keys, responses, entries in catalog:
            pairs.extend(self.score_entries(message_id, keys, responses, entries, resolver))
        new = tuple(resolver.new_judgements) if resolver is not None else ()
        return ScoringResult(tuple(pairs), new, resolver.unanswered if resolver else 0)

    def catalog(self, key: TemplateFile, response: TemplateFile) -> list[CatalogEntry]:
        """Every catalog entry of one system with its status, as :meth:`score` gives them,
        without scoring a slot."""
        judge, assignment = self.judge_for(key)
        out: list[CatalogEntry] = []
        for message_id, keys, responses in self.messages(key, response):
            entries = self.map_message(message_id, keys, responses, judge, assignment)
            out.extend((message_id, k, r, status)
                       for k, r, status in self._statuses(keys, responses, entries))
        return out

    def resolver(self) -> QueryResolver | None:
        """A query resolver for the options (``None`` in batch mode)."""
        if not self.options.query_pass:
            return None
        return QueryResolver(self.options.unresolved, self.options.ask, self.options.on_judgement,
                             self.options.on_reuse)

    def score_entries(
        self,
        message_id: str,
        keys: Sequence[PreparedTemplate],
        responses: Sequence[PreparedTemplate],
        entries: Sequence[Pair],
        resolver: QueryResolver | None,
    ) -> list[PairScore]:
        """The pair scores of one message's catalog entries (§8.1 statuses, §6 slots)."""
        return [self._pair_score(message_id, k, r, status, resolver)
                for k, r, status in self._statuses(keys, responses, entries)]

    def _statuses(self, keys: Sequence[PreparedTemplate], responses: Sequence[PreparedTemplate],
                  entries: Sequence[Pair]) -> Iterator[tuple[PreparedTemplate | None,
                                                              PreparedTemplate | None,
                                                              TemplateStatus]]:
        """The catalog entries of one message with their status (§8.1, first matching row)."""
        first_key = keys[0] if keys else None
        optional_message = _optional_message(keys, responses)
        ignored = not self.config.score_irrelevant and all(k.irrelevant for k in keys)
        for k, r in entries:
            yield k, r, self._status(k, r, first_key, optional_message, ignored)

    @staticmethod
    def _status(k: PreparedTemplate | None, r: PreparedTemplate | None,
                first_key: PreparedTemplate | None, optional_message: bool,
                ignored: bool) -> TemplateStatus:
        if ignored:
            return TemplateStatus.IGNORED
        nokey = k is None or k.irrelevant
        noresp = r is None or r.irrelevant
        if nokey and noresp:
            return TemplateStatus.IRRELEVANT
        if noresp and k is not None and k.optional:
            if optional_message and k is first_key:
                return TemplateStatus.IRRELEVANT
            return TemplateStatus.OPTIONAL
        if nokey and r is not None and r.optional:
            return TemplateStatus.OPTIONAL
        if nokey:
            return TemplateStatus.SPURIOUS
        if noresp:
            return TemplateStatus.MISSING
        return TemplateStatus.MATCHED

    def _pair_score(
        self,
        message_id: str,
        k: PreparedTemplate | None,
        r: PreparedTemplate | None,
        status: TemplateStatus,
        resolver: QueryResolver | None,
    ) -> PairScore:
        key_id = k.template_id if k is not None else None
        response_id = r.template_id if r is not None else None

        def make(template_id: Tally, slots: Iterable[tuple[str, Tally]] = (),
                 fills: Iterable[FillCredit] = ()) -> PairScore:
            return PairScore(message_id, key_id, response_id, status, template_id, tuple(slots),
                             tuple(fills))

        if status in (TemplateStatus.IRRELEVANT, TemplateStatus.IGNORED):
            return make(_TEMPLATE_ID_TALLY[status])
        slot_ids = self.slot_ids_for(message_id, k)
        if status is TemplateStatus.OPTIONAL:
            if k is None or r is None:
                return make(_OPTIONAL_ALONE)
            # An optional key with a '*' response: a full section of zeros (§10.4).
            return make(ZERO, ((s, ZERO) for s in slot_ids))
        key_tid = k.template_id if k is not None else ""
        slots = []
        ledger: Ledger | None = [] if self.options.fills else None
        credits: list[FillCredit] = []
        for slot_id in slot_ids:
            key_fills = k.fills.get(slot_id, ()) if k is not None else ()
            response_fills = r.fills.get(slot_id, ()) if r is not None else ()
            if not key_fills and not response_fills:
                slots.append((slot_id, self._blank[slot_id]))  # the most common slot
                continue
            t = self.slots.score(message_id, key_tid, self.slots.rules[slot_id], key_fills,
                                 response_fills, response_tid=response_id, resolver=resolver,
                                 ledger=ledger)
            slots.append((slot_id, Tally(*t)))
            if ledger:
                credits.extend(self._credits(slot_id, ledger))
                ledger.clear()
        return make(_TEMPLATE_ID_TALLY[status], slots, credits)

    def _credits(self, slot_id: str, ledger: Ledger) -> Iterator[FillCredit]:
        identity = self.matcher.identity
        for kf, rf, pos, act, cor, par in ledger:
            yield FillCredit(slot_id, None if kf is None else identity(kf),
                             None if rf is None else identity(rf), pos, act, cor, par)

    def slot_ids_for(self, message_id: str, k: PreparedTemplate | None) -> tuple[str, ...]:
        """The slots scored in a pair of this message with key template ``k``."""
        if self._selection is None or k is None:
            return self.slot_ids
        wanted = self._selection.get(message_id, {}).get(k.template_id)
        if wanted is None:
            return self.slot_ids
        return tuple(s for s in self.slot_ids if s in wanted)


def _group(templates: Iterable[PreparedTemplate]) -> dict[str, list[PreparedTemplate]]:
    out: dict[str, list[PreparedTemplate]] = {}
    for t in templates:
        out.setdefault(t.template.message_id, []).append(t)
    return out


def _optional_message(
    keys: Sequence[PreparedTemplate], responses: Sequence[PreparedTemplate]
) -> bool:
    """Every template irrelevant or optional, and at least one optional (§8.1)."""
    everything = list(keys) + list(responses)
    return all(t.irrelevant or t.optional for t in everything) and any(
        t.optional for t in everything
    )


def _selection(config: Configuration) -> dict[str, dict[str, tuple[str, ...] | None]] | None:
    """``:scored-templates`` as message id → {template id → slot ids or None}; {} = all."""
    if config.scored_templates is None:
        return None
    return {sel.message_id: dict(sel.templates) for sel in config.scored_templates}


def score_system(
    key: TemplateFile,
    response: TemplateFile,
    config: Configuration,
    history: History | None = None,
    options: ScoringOptions | None = None,
) -> ScoringResult:
    """Score one system's response file against the key (see :class:`Scorer`)."""
    return Scorer(config, history, options).score(key, response)


def add_judgements(history: History | None, new: Sequence[NewJudgement]) -> History:
    """A history with ``new`` judgements appended (to their message and key template).

    >>> add_judgements(None, []).messages
    ()
    """
    result = history if history is not None else History(None, ())
    for judgement in new:
        result = add_judgement(
            result, judgement.message_id, judgement.template_id, judgement.slot_id, judgement.entry
        )
    return result
