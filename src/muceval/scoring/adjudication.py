"""Adjudication (``muceval adjudicate``): the 1992 operator's session held open, its
questions answered one at a time into the history, each answer scoring again what it changes.

>>> from importlib.resources import files
>>> import shutil, tempfile, os
>>> example = files("muceval") / "data" / "example"
>>> folder = tempfile.mkdtemp()
>>> _ = shutil.copy(example / "history.lisp", os.path.join(folder, "history.lisp"))
>>> from muceval.formats.config import load_configuration
>>> config = load_configuration(example / "config.toml")
>>> with Adjudication(config, example / "key.txt", [example / "delta.txt"],
...                   os.path.join(folder, "history.lisp")) as session:
...     first = session.questions[0]
...     print(first.slot_id, first.response, "for", first.offered[0])
...     _ = session.answer(first.id, "incorrect")
...     len(session.answered), first in session.questions
perp-org-id "POLICE" for "RED DAWN FRONT"
(1, False)
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import chain
from pathlib import Path
from types import TracebackType

from muceval.core.model import (
    Configuration,
    DisplayType,
    History,
    Judgement,
    Template,
    TemplateFile,
    Value,
)
from muceval.core.tallies import PairScore, Tally, manners_of, sum_tallies
from muceval.errors import InputError, Problem, UsageError
from muceval.formats.files import read_text, system_names, write_atomic
from muceval.formats.muc.history import parse_history
from muceval.formats.muc.mappings import (
    format_mapping_file,
    read_mapping_file,
    sidecar_mapping_path,
)
from muceval.formats.muc.store import HistoryStore
from muceval.scoring.muc1992.equality import CValue, ValueMatcher, canon
from muceval.scoring.muc1992.judgements import (
    HistoryIndex,
    Query,
    QueryAnswer,
    StoredJudgement,
    answer_entry,
)
from muceval.scoring.muc1992.options import MappingKind, ScoringOptions
from muceval.scoring.muc1992.scorer import MessageInput, Scorer
from muceval.scoring.session import check_pairing, read_template_file

__all__ = ["ANSWERS", "Adjudication", "Answer", "Question"]

ANSWERS: Mapping[str, Judgement] = {
    "correct": Judgement.MATCH, "partial": Judgement.PARTIAL, "incorrect": Judgement.FAIL}
"""The operator's answers, as the page and the terminal prompt name them."""

ManualPairs = list[tuple[str | None, str | None]]
QuestionKey = tuple[str, str, str, str]
Lookup = tuple[str, str, str]
"""A history look-up: message, key template, slot (the history files answers under them)."""


@dataclass(frozen=True)
class Question:
    """One open question (one per message, key template, slot and response value, however
    many ``systems`` put it); ``number``, its place in the 1992 order, lasts the session."""

    id: str
    number: int
    message_id: str
    key_template_id: str
    slot_id: str
    response: Value
    offered: tuple[Value, ...]
    rule: str
    systems: tuple[tuple[str, str | None], ...]

    @property
    def query(self) -> Query:
        return Query(self.message_id, self.key_template_id, self.systems[0][1], self.slot_id,
                     self.response, self.offered, self.rule)


@dataclass(frozen=True)
class Answer:
    """An answer given in this session: the question as it stood, the judgement, the key fill."""

    question: Question
    answer: str
    which: int


def _question_key(query: Query) -> QuestionKey:
    # The history answers a question by message, key template, slot and response value.
    return (query.message_id, query.key_template_id, query.slot_id, repr(query.response))


def _question_id(key: QuestionKey) -> str:
    return hashlib.sha1("\x1f".join(key).encode()).hexdigest()[:12]


@dataclass(frozen=True)
class _Scored:
    """One system's scoring of one message: an answer scores again only the messages that
    looked up what it was recorded under."""

    pairs: tuple[PairScore, ...]
    total: Tally
    asked: tuple[Query, ...]
    reused: frozenset[QuestionKey]
    looked_up: frozenset[Lookup]


@dataclass
class _Collector:
    """What the scoring of the message at hand asks and finds answered (the scorer's
    callbacks are fixed when it is made, the message changes)."""

    asked: list[Query] = field(default_factory=list)
    reused: set[QuestionKey] = field(default_factory=set)


class _RecordingIndex(HistoryIndex):
    """The history index, noting every look-up: the only way the scoring of a message (its
    mapping included) reads the history."""

    remembered = False

    def __init__(self, history: History | None, matcher: ValueMatcher) -> None:
        super().__init__(history, matcher)
        self.matcher = matcher
        self.looked_up: set[Lookup] = set()

    def find(self, message_id: str, template_id: str, slot_id: str,
             value: CValue) -> StoredJudgement | None:
        self.looked_up.add((message_id, template_id, slot_id))
        return super().find(message_id, template_id, slot_id, value)


def _all_templates(pairs: Sequence[PairScore]) -> Tally:
    """The ALL TEMPLATES total of some catalog entries, as :func:`summarize` adds them
    (:func:`~muceval.core.tallies.all_templates_total` adds tally by tally: slower)."""
    return sum_tallies(t for p in pairs if DisplayType.ALL_TEMPLATES in manners_of(p.status)
                       for _, t in p.slots)


def _use_index(scorer: Scorer, index: HistoryIndex) -> None:
    # The scorer reads the history through its slot scorer, which its mapping's pair
    # evaluator shares: both must see the one index that records the look-ups.
    scorer.index = index
    scorer.slots.history = index


class Adjudication:
    """The open questions of ``responses`` against ``key``, answered into ``history_path``
    (a context manager: the history is locked against other sessions while it is open)."""

    def __init__(self, config: Configuration, key_path: str | Path,
                 response_paths: Sequence[str | Path], history_path: str | Path, *,
                 names: Mapping[str, str] | None = None, mapping: MappingKind = "greedy") -> None:
        paths = [str(p) for p in response_paths]
        if not paths:
            raise UsageError("give at least one response file to adjudicate")
        self.config = config
        self.history_path = str(history_path)
        self.mapping = mapping
        self.warnings: list[Problem] = []
        # The readers' warnings (often many a file), apart: a command sums them up in a line.
        self.file_warnings: list[Problem] = []
        self.key = read_template_file(key_path, config, self.file_warnings)
        self.names = system_names(paths, names)
        for name in self.names:
            if Path(name).name != name or name.startswith("."):
                raise UsageError(f"system name {name!r} cannot name a mapping file; rename it "
                                 "with --name FILE=NAME")
        self.paths = dict(zip(self.names, paths, strict=True))
        self.responses: dict[str, TemplateFile] = {
            n: read_template_file(p, config, self.file_warnings) for n, p in self.paths.items()}
        for response in self.responses.values():
            self.warnings.extend(check_pairing(self.key, response))
        self.store = HistoryStore(self.history_path, None)
        self.manual: dict[str, dict[str, ManualPairs]] = {}
        self.questions: list[Question] = []
        self.reused = 0
        self.pairs: dict[str, tuple[PairScore, ...]] = {}
        self.open_per_system: dict[str, int] = {}
        self.answered: list[Answer] = []
        # Each system's ALL TEMPLATES total as it stands, and when the session started.
        self.totals: dict[str, Tally] = {}
        self.initial_totals: dict[str, Tally] = {}
        # Counts the changes of the scores: a page computes its views of them again only
        # when it has moved.
        self.version = 0
        # A question's number, by its key, from the first time the session saw it.
        self._numbers: dict[QuestionKey, int] = {}
        self._start_index: HistoryIndex | None = None
        # Per system, per message in report order: its scoring, and what to score it again.
        self._scored: dict[str, dict[str, _Scored]] = {}
        self._messages: dict[str, dict[str, MessageInput]] = {}
        self._scorers: dict[str, Scorer] = {}
        self._index = _RecordingIndex(None, ValueMatcher(config))
        self._collector = _Collector()

    def __enter__(self) -> Adjudication:
        self.store.__enter__()
        try:
            history: History | None = None
            text: str | None = None
            if Path(self.history_path).exists():
                text = read_text(self.history_path)
                history = parse_history(text, self.history_path)
            self.store.start_from(history or History(self.history_path, ()), text)
            for name in self.names:
                sidecar = sidecar_mapping_path(self.history_path, name)
                if sidecar.is_file():
                    self.manual[name] = {m: list(p) for m, p in read_mapping_file(sidecar).items()}
            self._start_index = HistoryIndex(self.store.history, ValueMatcher(self.config))
            self.refresh()
            self.initial_totals = dict(self.totals)
        except BaseException:
            self.store.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.store.__exit__(kind, error, traceback)

    @property
    def total(self) -> int:
        """How many questions the session has numbered: open, answered, or settled by another
        answer (so that no number is above it)."""
        return len(self._numbers)

    def refresh(self) -> None:
        """Score every system anew, message by message; collect the open questions."""
        self._index = _RecordingIndex(self.store.history, ValueMatcher(self.config))
        shared = self._new_scorer(None)
        self._scorers = {name: self._new_scorer(self.manual[name]) if self.manual.get(name)
                         else shared for name in self.names}
        for name in self.names:
            scorer = self._scorers[name]
            self._messages[name] = {m[0]: m for m in scorer.messages(self.key,
                                                                    self.responses[name])}
            self._scored[name] = {message_id: self._score_message(scorer, message)
                                  for message_id, message in self._messages[name].items()}
            self.totals[name] = sum_tallies(s.total for s in self._scored[name].values())
            self._join(name)
        self._gather()

    def _new_scorer(self, manual: Mapping[str, ManualPairs] | None) -> Scorer:
        options = ScoringOptions(unresolved="ask", ask=self._ask, on_reuse=self._on_reuse,
                                 mapping=self.mapping, manual_mappings=manual or None)
        scorer = Scorer(self.config, self.store.history, options)
        _use_index(scorer, self._index)
        return scorer

    def _ask(self, query: Query) -> QueryAnswer:
        self._collector.asked.append(query)
        return None  # no answer yet: no credit, nothing recorded

    def _on_reuse(self, query: Query) -> None:
        # Only the history the session started from counts: an answer given in this session
        # is counted as answered, not again as reused (however many questions it settles).
        index = self._start_index
        if index is not None and index.find(query.message_id, query.key_template_id,
                                            query.slot_id, canon(query.response)) is not None:
            self._collector.reused.add(_question_key(query))

    def _score_message(self, scorer: Scorer, message: MessageInput) -> _Scored:
        """One system's message, as :meth:`Scorer.score` scores it (no answer is given while
        scoring, so that the history is the same for every message)."""
        message_id, keys, responses = message
        self._collector = collector = _Collector()
        looked_up: set[Lookup] = set()
        self._index.looked_up = looked_up
        entries = scorer.map_message(message_id, keys, responses)
        pairs = tuple(scorer.score_entries(message_id, keys, responses, entries,
                                           scorer.resolver()))
        return _Scored(pairs, _all_templates(pairs), tuple(collector.asked),
                       frozenset(collector.reused), frozenset(looked_up))

    def _join(self, name: str) -> None:
        self.pairs[name] = tuple(chain.from_iterable(s.pairs for s in self._scored[name].values()))

    def _gather(self) -> None:
        found: dict[QuestionKey, Question] = {}
        reused: set[QuestionKey] = set()
        for name in self.names:
            keys: set[QuestionKey] = set()
            for scored in self._scored[name].values():
                reused |= scored.reused
                keys.update(self._collect(name, q, found) for q in scored.asked)
            self.open_per_system[name] = len(keys)
        self.questions = list(found.values())
        self.reused = len(reused)
        self.version += 1

    def _rescore(self, stale: Iterable[tuple[str, str]]) -> None:
        """Score again the (system, message) pairs of ``stale`` only."""
        changed = []
        for name, message_id in stale:
            old = self._scored[name][message_id]
            new = self._score_message(self._scorers[name], self._messages[name][message_id])
            self._scored[name][message_id] = new
            self.totals[name] = self.totals[name] - old.total + new.total
            changed.append(name)
        for name in dict.fromkeys(changed):
            self._join(name)
        self._gather()

    def _history_changed(self, lookup: Lookup) -> None:
        """After an answer recorded or taken back under ``lookup``: score again the messages
        whose scoring looked it up."""
        message_id = lookup[0]
        stale = [(name, message_id) for name in self.names
                 if (scored := self._scored[name].get(message_id)) is not None
                 and lookup in scored.looked_up]
        self._index = _RecordingIndex(self.store.history, self._index.matcher)
        for scorer in {id(s): s for s in self._scorers.values()}.values():
            _use_index(scorer, self._index)
        self._rescore(stale)

    def message_totals(self, system: str) -> dict[str, Tally]:
        """The ALL TEMPLATES total of each message of ``system`` as it stands, in report order."""
        return {m: s.total for m, s in self._scored[self._system(system)].items()}

    def _collect(self, name: str, query: Query,
                 found: dict[QuestionKey, Question]) -> QuestionKey:
        key = _question_key(query)
        if key not in found:
            number = self._numbers.setdefault(key, len(self._numbers) + 1)
            found[key] = Question(_question_id(key), number, query.message_id,
                                  query.key_template_id, query.slot_id, query.response,
                                  query.offered, query.rule, ())
        question = found[key]
        if all(s != name for s, _ in question.systems):
            found[key] = replace(question, systems=(
                *question.systems, (name, query.response_template_id)))
        return key

    def question(self, question_id: str) -> Question:
        for question in self.questions:
            if question.id == question_id:
                return question
        raise UsageError(f"no open question {question_id} (answered already, or the scores "
                         "changed)")

    def answer(self, question_id: str, answer: str, which: int = 0) -> Question:
        """Store the answer to an open question in the history (saved before this returns),
        and score again. ``which`` is the offered key fill credited (correct, partial)."""
        if answer not in ANSWERS:
            raise UsageError(f"answer {answer!r}: choose from {', '.join(ANSWERS)}")
        question = self.question(question_id)
        if not 0 <= which < max(len(question.offered), 1):
            raise UsageError(f"key fill {which + 1} was not offered ({len(question.offered)} were)")
        entry = answer_entry(question.query, ANSWERS[answer], which)
        self.store.record(question.message_id, question.key_template_id, question.slot_id, entry)
        self.answered.append(Answer(question, answer, which))
        self._history_changed((question.message_id, question.key_template_id, question.slot_id))
        return question

    def undo(self) -> Answer:
        """Take back the last answer of this session (the history as it was before it)."""
        if not self.answered:
            raise UsageError("nothing to undo: no answer given in this session")
        message_id, template_id, slot_id, _ = self.store.undo()
        last = self.answered.pop()
        self._history_changed((message_id, template_id, slot_id))
        return last

    def templates(self, system: str, message_id: str) -> tuple[list[Template], list[Template]]:
        """The key templates and the system's response templates of a message."""
        self._system(system)
        return ([t for t in self.key.templates if t.message_id == message_id],
                [t for t in self.responses[system].templates if t.message_id == message_id])

    def mapping_of(self, system: str, message_id: str) -> list[PairScore]:
        """The catalog entries of a message as the system is scored now."""
        scored = self._scored[self._system(system)].get(message_id)
        return [] if scored is None else list(scored.pairs)

    def is_manual(self, system: str, message_id: str) -> bool:
        return message_id in self.manual.get(system, {})

    def remap(self, system: str, message_id: str,
              pairs: Sequence[tuple[str | None, str | None]] | None) -> None:
        """Map a message's templates by hand for one system (``None``: back to the automatic
        mapping), in the system's mapping file next to the history, and score it again."""
        self._system(system)
        keys, responses = self.templates(system, message_id)
        if pairs is not None:
            self._check_pairs(message_id, pairs, [t.template_id for t in keys],
                              [t.template_id for t in responses])
        chosen = dict(self.manual.get(system, {}))
        if pairs is None:
            chosen.pop(message_id, None)
        else:
            chosen[message_id] = list(pairs)
        path = sidecar_mapping_path(self.history_path, system)
        path.parent.mkdir(exist_ok=True)
        write_atomic(path, format_mapping_file(
            chosen, f"manual mappings of {system} (muceval adjudicate); used by muceval score "
                    f"with the history {Path(self.history_path).name}"))
        self.manual[system] = chosen
        # The system's own scorer: the mapping is one of its options.
        self._scorers[system] = self._new_scorer(chosen)
        if message_id in self._scored[system]:
            self._rescore([(system, message_id)])
        else:
            self._gather()

    @staticmethod
    def _check_pairs(message_id: str, pairs: Sequence[tuple[str | None, str | None]],
                     keys: Sequence[str], responses: Sequence[str]) -> None:
        problems = []
        if any(k is None and r is None for k, r in pairs):
            problems.append("a pair needs a key or a response template")
        for side, n, known in (("key", 0, keys), ("response", 1, responses)):
            used = [t for t in (pair[n] for pair in pairs) if t is not None]
            for t in used:
                if t not in known:
                    problems.append(f"{message_id} has no {side} template {t}")
            for t in known:
                if used.count(t) != 1:
                    problems.append(f"{side} template {t} of {message_id} must appear exactly "
                                    f"once (it appears {used.count(t)} times)")
        if problems:
            raise InputError(Problem("<manual mapping>", None, p) for p in problems)

    def _system(self, system: str) -> str:
        if system not in self.responses:
            raise UsageError(f"no system {system!r}; the systems are {', '.join(self.names)}")
        return system
