"""Statuses, the history index and queries of the 1992 slot scoring (SCORER-SPEC §§6.4–6.8,
§12.3)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

from muceval.core import model
from muceval.core.model import History, HistoryEntry, Judgement
from muceval.scoring.muc1992.equality import CValue, ValueMatcher, canon
from muceval.scoring.muc1992.options import Unresolved

__all__ = [
    "AUTO_MATCH",
    "AUTO_PARTIAL",
    "COMPOSITE",
    "FAIL",
    "MATCH",
    "PARTIAL",
    "PLAIN",
    "AnswerCallback",
    "Credit",
    "HistoryIndex",
    "NewJudgement",
    "Query",
    "QueryAnswer",
    "QueryResolver",
    "Result",
    "stored_judgement",
    "JUDGED",
    "StoredJudgement",
    "Unresolved",
    "answer_entry",
]

# Match results (SCORER-SPEC §6.1/§6.4): see Result.
MATCH = "match"  # judged by a person: COR + ICR
PARTIAL = "partial"  # judged by a person: PAR + IPA
AUTO_MATCH = "auto-match"
AUTO_PARTIAL = "auto-partial"
PLAIN = "plain"  # plain equality: COR
COMPOSITE = "composite"  # the nested status of §6.5 that no branch recognises
FAIL = "fail"

Credit = tuple[str, list[int] | None]
"""A status and the indices of the credited key fills (None: every remaining fill)."""
Result = Credit | str | None
"""None (nothing), FAIL, or a :data:`Credit`."""

JUDGED = {
    Judgement.MATCH: MATCH,
    Judgement.PARTIAL: PARTIAL,
    Judgement.AUTO_PARTIAL: AUTO_PARTIAL,
}

@dataclass(frozen=True, slots=True)
class StoredJudgement:
    """One history entry in canonical form. ``judgement`` is ``FAIL`` or a status."""

    response: CValue
    judgement: str
    key: CValue


def stored_judgement(entry: HistoryEntry) -> StoredJudgement:
    if entry.judgement in (Judgement.FAIL, Judgement.NOMATCH):
        # nomatch never occurs in the 1992 histories we have; it gives no credit.
        return StoredJudgement(canon(entry.response), FAIL, None)
    return StoredJudgement(canon(entry.response), JUDGED[entry.judgement], canon(entry.key))


class HistoryIndex:
    """Recorded judgements, looked up as in SCORER-SPEC §12.3: the first entry (in file order)
    whose stored response value is ``equal`` to the looked-up value (on the key side) answers.

    >>> from muceval.core.model import Configuration, History, HistoryMessage, HistoryTemplate, HistorySlot
    >>> entry = HistoryEntry(model.Text('"LEADERS"'), Judgement.FAIL)
    >>> h = History(None, (HistoryMessage("M1", (HistoryTemplate("1", (HistorySlot("s", (entry,)),)),)),))
    >>> index = HistoryIndex(h, ValueMatcher(Configuration(slots=(), string_premodifiers=("the",))))
    >>> index.find("M1", "1", "s", '"THE LEADERS"').judgement
    'fail'
    """

    remembered: ClassVar[bool] = True
    """Whether what is worked out from the index may be remembered instead of looked up
    again (False where every look-up must happen: where they are recorded)."""

    def __init__(self, history: History | None, matcher: ValueMatcher):
        self._matcher = matcher
        self._entries: dict[tuple[str, str, str], list[StoredJudgement]] = {}
        self._cache: dict[tuple[str, str, str, CValue], StoredJudgement | None] = {}
        self.version = 0
        """How many judgements were added (:meth:`add`): what was worked out from the
        index before holds while it stays the same."""
        if history is not None:
            for message_id, template_id, slot_id, entry in history.entries():
                self._entries.setdefault((message_id, template_id, slot_id), []).append(
                    stored_judgement(entry)
                )

    def find(
        self, message_id: str, template_id: str, slot_id: str, value: CValue
    ) -> StoredJudgement | None:
        key = (message_id, template_id, slot_id, value)
        if key in self._cache:
            return self._cache[key]
        found = None
        for stored in self._entries.get(key[:3], ()):
            if self._matcher.equal(value, stored.response):
                found = stored
                break
        self._cache[key] = found
        return found

    def add(self, message_id: str, template_id: str, slot_id: str, stored: StoredJudgement) -> None:
        """Append a judgement; later look-ups see it."""
        self._entries.setdefault((message_id, template_id, slot_id), []).append(stored)
        self._cache.clear()
        self.version += 1


@dataclass(frozen=True, slots=True)
class Query:
    """A question the 1992 program would have put to the operator: the key fills ``offered``
    to the response value, and the ``rule`` (step of SCORER-SPEC §6) that left it open."""

    message_id: str
    key_template_id: str
    response_template_id: str | None
    slot_id: str
    response: model.Value
    offered: tuple[model.Value, ...]
    rule: str = field(default="", compare=False)


QueryAnswer = Judgement | tuple[Judgement, int] | None
"""An answer: a judgement (crediting the first offered key fill), or a judgement and
the index of the offered key fill it credits, or ``None`` for no answer (no credit)."""

AnswerCallback = Callable[[Query], QueryAnswer]


def answer_entry(query: Query, judgement: Judgement, which: int = 0) -> HistoryEntry:
    """The history entry that records ``judgement`` of ``query`` (crediting offered key fill
    ``which``): what the 1992 program wrote into the history after an operator's answer."""
    if not 0 <= which < len(query.offered):
        raise ValueError(
            f"answer names offered key fill {which}, but {len(query.offered)} were offered")
    judgement = Judgement(judgement)
    if judgement in (Judgement.FAIL, Judgement.NOMATCH):
        return HistoryEntry(query.response, Judgement.FAIL)
    return HistoryEntry(query.response, judgement, query.offered[which], has_key=True)


@dataclass(frozen=True, slots=True)
class NewJudgement:
    """A judgement given during the run (through the ``ask`` callback), for the history file."""

    message_id: str
    template_id: str
    slot_id: str
    entry: HistoryEntry


class QueryResolver:
    """Answers queries: from the history first, then by policy (incorrect, partial, correct) or
    by asking (the answers are added to the history index and kept as :class:`NewJudgement`).

    >>> QueryResolver("correct").unresolved
    'correct'
    """

    def __init__(
        self,
        unresolved: Unresolved = "incorrect",
        ask: AnswerCallback | None = None,
        on_judgement: Callable[[NewJudgement], None] | None = None,
        on_reuse: Callable[[Query], None] | None = None,
    ):
        if unresolved == "ask" and ask is None:
            raise ValueError("the 'ask' policy needs a callback")
        self.unresolved = unresolved
        self.ask = ask
        self.on_judgement = on_judgement
        # Told of every question the history answers (an adjudication page counts them).
        self.on_reuse = on_reuse
        self.new_judgements: list[NewJudgement] = []
        # Questions no recorded answer settled, given to the policy (or asked): a run that
        # scores them "incorrect" says how many, so that no one mistakes it for the official.
        self.unanswered = 0
