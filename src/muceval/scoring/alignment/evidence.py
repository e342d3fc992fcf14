"""Evidence per key/response pair: the slot calls of the 1992 mapping, made once per pair
with a trace, from which every criterion decides.

Slot flags:

* ``root`` – met only because the response names the root of the set hierarchy (ATTACK);
* ``common`` – met only by values at least as likely as the ``common`` chance threshold;
* ``set-word`` – met only by the restriction's word overlap on a bare set word across
  different fills (CIVILIAN: "PEASANTS" against CIVILIAN: "SOLDIERS");
* ``stripped`` – met only through premodifier stripping of unquoted text (``26 APR 89``,
  where ``2``-``9`` are premodifiers);
* ``history`` – credited by a judgement stored in the history.

Pair flags: ``type-root``, ``or-common``, ``or-set-word`` (the 1992 restriction holds, but
would not if the flagged slots did not count), ``stripped``, ``history``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from muceval.core.model import Configuration, Restriction
from muceval.core.tallies import Col, Tally
from muceval.scoring.alignment.chance import ChanceModel, atoms, bits, value_text
from muceval.scoring.muc1992.equality import LOC, CValue, ValueMatcher, iter_strings
from muceval.scoring.muc1992.mapping import (
    PairEvaluator,
    PreparedTemplate,
    overlap_verdict,
    pair_score,
)
from muceval.scoring.muc1992.rules import Trace

__all__ = ["EvidenceEvaluator", "PairEvidence", "SlotEvidence", "ValueMatch", "restriction_slots"]


@dataclass(frozen=True, slots=True)
class ValueMatch:
    """One credited agreement: how, at what credit, the values, and how informative."""

    how: str
    credit: str
    key: str
    response: str
    value: str
    """The agreed value (the response's, or its country, or the shared words)."""
    chance: float
    bits: float
    root: bool = False
    set_word: bool = False
    stripped: bool = False

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "how": self.how, "credit": self.credit, "key": self.key,
            "response": self.response, "value": self.value,
            "chance": round(self.chance, 6), "bits": round(self.bits, 4),
        }
        flags = [f for f, on in (("root", self.root), ("set-word", self.set_word),
                                 ("stripped", self.stripped)) if on]
        if flags:
            out["flags"] = flags
        return out


@dataclass(frozen=True, slots=True)
class SlotEvidence:
    """One slot of a pair: restriction verdict (if judged), pair-score tally, matches, flags."""

    slot_id: str
    verdict: str | None
    tally: Tally | None
    matches: tuple[ValueMatch, ...]
    overlap_matches: tuple[ValueMatch, ...]
    flags: tuple[str, ...]

    def credited(self, credit: str) -> bool:
        """Whether the slot matches at this credit (``overlap``, ``partial`` or ``full``)."""
        if credit == "overlap":
            return self.verdict == "match"
        if self.tally is None:
            return False
        if credit == "full":
            return self.tally.cor > 0
        return self.tally.cor + self.tally.par > 0

    def blank(self, credit: str) -> bool:
        """Nothing to compare: blank (or optional against blank) on both sides."""
        if credit == "overlap":
            return self.verdict == "null"
        return self.tally is not None and self.tally.non > 0

    def values(self, credit: str) -> tuple[ValueMatch, ...]:
        if credit == "overlap":
            return self.overlap_matches
        if credit == "full":
            return tuple(m for m in self.matches if m.credit == "full")
        return self.matches

    @property
    def bits(self) -> float:
        """The information of the slot's best agreement (0 without one)."""
        return max((m.bits for m in self.matches), default=0.0)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"slot": self.slot_id}
        if self.verdict is not None:
            out["restriction"] = self.verdict
        if self.tally is not None:
            t = self.tally
            out["tally"] = {"pos": t.pos, "act": t.act, "cor": t.cor, "par": t.par,
                            "inc": t.inc}
        if self.matches:
            out["matches"] = [m.to_dict() for m in self.matches]
        if self.overlap_matches and self.overlap_matches != self.matches:
            out["restriction_matches"] = [m.to_dict() for m in self.overlap_matches]
        if self.flags:
            out["flags"] = list(self.flags)
        return out


@dataclass(frozen=True, slots=True)
class PairEvidence:
    """Everything known about one key/response pair of a message."""

    message_id: str
    key_id: str
    response_id: str
    slots: Mapping[str, SlotEvidence]
    pair_score: int
    restriction_1992: bool
    flags: tuple[str, ...]

    def slot(self, slot_id: str) -> SlotEvidence | None:
        return self.slots.get(slot_id)

    def verdict(self, slot_id: str) -> str:
        s = self.slots.get(slot_id)
        return "null" if s is None or s.verdict is None else s.verdict

    @property
    def matching_slots(self) -> tuple[str, ...]:
        return tuple(s.slot_id for s in self.slots.values() if s.credited("partial"))

    @property
    def bits(self) -> float:
        return sum(s.bits for s in self.slots.values() if s.credited("partial"))

    def to_dict(self) -> dict[str, Any]:
        return {
            "message": self.message_id, "key": self.key_id, "response": self.response_id,
            "pair_score": self.pair_score, "restriction_1992": self.restriction_1992,
            "evidence_bits": round(self.bits, 4), "flags": list(self.flags),
            "matching_slots": list(self.matching_slots),
            "slots": [s.to_dict() for s in self.slots.values()
                      if s.verdict == "match" or s.matches or s.flags],
        }


def restriction_slots(expr: Restriction | None) -> tuple[str, ...]:
    """The slot ids an and/or restriction names, in order."""
    if expr is None:
        return ()
    out: list[str] = []
    for op in expr.operands:
        out.extend(restriction_slots(op) if isinstance(op, Restriction) else (op,))
    return tuple(dict.fromkeys(out))


def _roots(config: Configuration) -> dict[str, frozenset[str]]:
    return {s.slot_id: frozenset(n.value.upper() for n in s.set_values if n.children)
            for s in config.content_slots if s.set_values}


def _set_words(config: Configuration, matcher: ValueMatcher) -> dict[str, frozenset[str]]:
    out = {}
    for s in config.content_slots:
        words: set[str] = set()
        for root in s.set_values:
            for node in root.walk():
                words |= matcher.words(node.value.upper())
        out[s.slot_id] = frozenset(words)
    return out


class EvidenceEvaluator:
    """Evidence of key/response pairs, computed once per pair and kept; ``overlap_slots`` are
    judged in the restriction's mode besides the 1992 restriction's."""

    def __init__(self, evaluator: PairEvaluator, chance: ChanceModel, config: Configuration,
                 overlap_slots: Iterable[str] = (), common: float = 0.25):
        self.evaluator = evaluator
        self.chance = chance
        self.config = config
        self.common = common
        self.matcher = evaluator.scorer.matcher
        self._exact = ValueMatcher(replace(config, string_premodifiers=()))
        self.restriction = config.restrict_map_slots
        self.overlap_slots = tuple(dict.fromkeys((*restriction_slots(self.restriction),
                                                  *overlap_slots)))
        self._roots = _roots(config)
        self._set_words = _set_words(config, self.matcher)
        self._types = {s.slot_id: s.type for s in config.content_slots}
        self._cache: dict[tuple[str, int, int], tuple[Any, Any, PairEvidence]] = {}

    def evidence(self, message_id: str, key: PreparedTemplate,
                 response: PreparedTemplate) -> PairEvidence:
        token = (message_id, id(key), id(response))
        hit = self._cache.get(token)
        if hit is not None and hit[0] is key and hit[1] is response:
            return hit[2]
        found = self._compute(message_id, key, response)
        self._cache[token] = (key, response, found)
        return found

    def _compute(self, message_id: str, key: PreparedTemplate,
                 response: PreparedTemplate) -> PairEvidence:
        ev = self.evaluator
        verdicts: dict[str, str] = {}
        overlap_traces: dict[str, Trace] = {}
        for slot_id in self.overlap_slots:
            trace: Trace = []
            verdicts[slot_id] = overlap_verdict(
                ev.slot_tally(message_id, key, response, slot_id, overlap=True, trace=trace))
            overlap_traces[slot_id] = trace
        tallies: dict[str, list[int]] = {}
        traces: dict[str, Trace] = {}
        for slot_id in ev.slot_ids:
            trace = []
            tallies[slot_id] = ev.slot_tally(message_id, key, response, slot_id, trace=trace)
            traces[slot_id] = trace
        slots: dict[str, SlotEvidence] = {}
        for slot_id in dict.fromkeys((*self.overlap_slots, *ev.slot_ids)):
            tally = tallies.get(slot_id)
            matches = tuple(self._match(slot_id, e) for e in traces.get(slot_id, ()))
            overlap = tuple(self._match(slot_id, e) for e in overlap_traces.get(slot_id, ()))
            verdict = verdicts.get(slot_id)
            slots[slot_id] = SlotEvidence(
                slot_id, verdict, None if tally is None else Tally(*tally), matches, overlap,
                self._slot_flags(verdict, tally, matches, overlap))
        holds = self._holds(slots, ())
        return PairEvidence(message_id, key.template_id, response.template_id, slots,
                            pair_score(tallies.values()), holds, self._pair_flags(slots, holds))

    def _match(self, slot_id: str, event: tuple[str, str, CValue, CValue]) -> ValueMatch:
        how, credit, k, r = event
        kind = self._types[slot_id]
        if how == "words":
            assert isinstance(k, tuple)  # the key fills left, for a word overlap
            shared = frozenset(set().union(*(self.matcher.words(x) for x in k))
                               & self.matcher.words(r))
            chance = self.chance.words_chance(slot_id, shared)
            set_word = bool(shared) and shared <= self._set_words.get(slot_id, frozenset())
            return ValueMatch(how, credit, " / ".join(value_text(x, kind) for x in k),
                              value_text(r, kind),
                              " ".join(sorted(shared)), chance, bits(chance), set_word=set_word)
        agreed = atoms(r)
        value: CValue = agreed[0] if len(agreed) == 1 else r
        if how == "country":
            value = r if type(r) is str else r[1][0] if type(r) is tuple and r[0] == LOC else r
        chance = min((self.chance.chance(slot_id, a) for a in atoms(value)), default=1.0)
        root = how == "general" and value in self._roots.get(slot_id, ())
        stripped = (how == "equal" and not self._exact.equal(k, r)
                    and not any(s.startswith('"') for s in iter_strings(r)))
        return ValueMatch(how, credit, value_text(k, kind), value_text(r, kind),
                          value_text(value, kind),
                          chance, bits(chance), root=root, stripped=stripped)

    def _slot_flags(self, verdict: str | None, tally: list[int] | None,
                    matches: tuple[ValueMatch, ...],
                    overlap: tuple[ValueMatch, ...]) -> tuple[str, ...]:
        flags = []
        judged = overlap if verdict == "match" and overlap else matches
        if judged:
            if all(m.root for m in judged):
                flags.append("root")
            if all(m.chance >= self.common for m in judged):
                flags.append("common")
            if all(m.set_word for m in judged):
                flags.append("set-word")
        if matches and all(m.stripped for m in matches):
            flags.append("stripped")
        if tally is not None and (tally[Col.ICR] or tally[Col.IPA]):
            flags.append("history")
        return tuple(flags)

    def _holds(self, slots: Mapping[str, SlotEvidence], weak: Sequence[str]) -> bool:
        """The 1992 restriction, with slots of its or-clauses that carry a flag in ``weak``
        counted as no match."""
        if self.restriction is None:
            return True

        def verdict(slot_id: str, in_or: bool) -> str:
            s = slots.get(slot_id)
            if s is None or s.verdict is None:
                return "null"
            if in_or and s.verdict == "match" and any(f in s.flags for f in weak):
                return "no"
            return s.verdict

        def walk(expr: Restriction) -> bool:
            # The semantics of mapping.restriction_holds, with or-operands weakened.
            in_or = expr.op == "or"
            results = [walk(op) if isinstance(op, Restriction) else verdict(op, in_or) == "match"
                       for op in expr.operands]
            all_null = all(not isinstance(op, Restriction) and verdict(op, in_or) == "null"
                           for op in expr.operands)
            return all(results) if expr.op == "and" else any(results) or all_null

        return walk(self.restriction)

    def _pair_flags(self, slots: Mapping[str, SlotEvidence], holds: bool) -> tuple[str, ...]:
        flags = []
        if holds:
            if any("root" in slots[s].flags and slots[s].verdict == "match"
                   for s in restriction_slots(self.restriction) if s in slots):
                flags.append("type-root")
            if not self._holds(slots, ("common",)):
                flags.append("or-common")
            if not self._holds(slots, ("set-word",)):
                flags.append("or-set-word")
        flags += [f for f in ("stripped", "history") if any(f in s.flags for s in slots.values())]
        return tuple(flags)
