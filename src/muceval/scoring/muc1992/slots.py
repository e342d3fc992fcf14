"""Slot scoring as the 1992 MUC-4 scorer did it (SCORER-SPEC §§4–6); a slot's tallies are
a list of 11 integers in the order of :data:`muceval.core.tallies.TALLY_FIELDS`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from muceval.core.model import Configuration, History, Judgement
from muceval.core.tallies import Col
from muceval.scoring.muc1992.equality import (
    ALLOF,
    LOC,
    CValue,
    ValueMatcher,
    allowable,
    is_optional,
    is_xref,
    to_model,
    unwrap_optional,
    xref_part,
)
from muceval.scoring.muc1992.judgements import (
    AUTO_MATCH,
    AUTO_PARTIAL,
    COMPOSITE,
    FAIL,
    JUDGED,
    MATCH,
    PARTIAL,
    PLAIN,
    AnswerCallback,
    Credit,
    HistoryIndex,
    NewJudgement,
    Query,
    QueryAnswer,
    QueryResolver,
    Result,
    StoredJudgement,
    Unresolved,
    answer_entry,
    stored_judgement,
)
from muceval.scoring.muc1992.rules import Ledger, SlotRules, Trace, slot_rules

__all__ = [
    "AnswerCallback",
    "HistoryIndex",
    "NewJudgement",
    "Query",
    "QueryAnswer",
    "QueryResolver",
    "SlotRules",
    "Ledger",
    "SlotScorer",
    "StoredJudgement",
    "Unresolved",
    "slot_rules",
]

# Plain ints in the hot loops, from the one declaration of the columns.
POS, ACT, COR, PAR, INC, ICR, IPA, SPU, MIS, NON, PIE = (int(c) for c in Col)

_QUERY = "query"  # set_fill: value right, tag wrong (§6.6)
_EXACT = "exact"
_ABORT = "abort"

# Why a fill was left to the operator (Query.rule): the step of SCORER-SPEC §6.
_RULE_LOOKUP = "§6.4 look-up: answered from the history"
_RULE_SINGLE = ("§6.1 single-valued slot: the response fill equals no key fill, and no rule or "
                "history entry decides it")
_RULE_SET = ("§6.1/§6.6 set fill: the value agrees but its cross-reference tag does not, and "
             "no history entry decides it")
_RULE_MULTI = ("§6.2 step D, the query pass: a fill of a multi-valued slot that the automatic "
               "steps left uncredited")
_RULE_MULTI_SET = ("§6.2 step D / §6.6: a set fill of a multi-valued slot whose tag does not "
                   "agree with the key's")
_BLOCKED: Credit = ("blocked", None)  # stage 1 ended the look-up without a result

_FULL = frozenset({PLAIN, AUTO_MATCH, MATCH, COMPOSITE})
_POLICY_STATUS = {"partial": PARTIAL, "correct": MATCH}
# The columns a credited fill counts in. Any other status (plain, or the composite status no
# branch recognises) counts in COR alone in §6.1, in COR and ICR in §6.2 step B.
_CREDIT_COLUMNS = {AUTO_PARTIAL: (PAR,), AUTO_MATCH: (COR,), PARTIAL: (PAR, IPA),
                   MATCH: (COR, ICR)}


@dataclass(slots=True)
class _Ctx:
    message_id: str
    key_tid: str
    response_tid: str | None
    rules: SlotRules
    resolver: QueryResolver | None
    overlap: bool
    trace: Trace | None = None
    ledger: Ledger | None = None
    # Whether the scoring reached a point where a resolver, had there been one, would
    # have been asked: the tally then depends on the resolver.
    open: bool = field(default=False, init=False)

    def note(self, how: str, status: str, k: CValue, r: CValue) -> None:
        if self.trace is not None:
            self.trace.append((how, "full" if status in _FULL else "partial", k, r))


def _apply(tally: list[int], status: str, n: int) -> None:
    """Step B of §6.2: count ``n`` credited key fills with ``status``."""
    tally[POS] += n
    tally[ACT] += n
    for column in _CREDIT_COLUMNS.get(status, (COR, ICR)):
        tally[column] += n


def _positions(members: Iterable[CValue],
               find: Callable[[CValue], int | None]) -> list[int] | None:
    """The distinct positions ``find`` gives the members, in order; None if one has none."""
    out: list[int] = []
    for member in members:
        found = find(member)
        if found is None:
            return None
        if found not in out:
            out.append(found)
    return out


def _ledger_leftovers(ledger: Ledger, before: list[int], after: list[int], K: list[CValue],
                      Rs: list[CValue]) -> None:
    """Step E's counts fill by fill, by the convention of :data:`Ledger`."""
    inc = after[INC] - before[INC]
    mis = after[MIS] - before[MIS]
    spu = after[SPU] - before[SPU]
    keys = [k for k in K if not is_optional(k)] + [k for k in K if is_optional(k)]
    responses = [r for r in Rs if not is_optional(r)] + [r for r in Rs if is_optional(r)]
    for i in range(inc):
        ledger.append((keys[i], responses[i], 1, 1, 0, 0))
    for k in keys[inc:inc + mis]:
        ledger.append((k, None, 1, 0, 0, 0))
    for r in responses[inc:inc + spu]:
        ledger.append((None, r, 0, 1, 0, 0))


class SlotScorer:
    """The slot scoring procedures of SCORER-SPEC §6 for one configuration and history.

    It remembers the tallies it worked out, so it is not for two threads at once (the
    adjudication page scores under a lock, with an index that turns remembering off).

    >>> from muceval.core.model import SlotSpec, SlotType
    >>> config = Configuration(slots=(SlotSpec("s", "1. S", SlotType.STRING),))
    >>> scorer = SlotScorer(config, None)
    >>> scorer.score("M", "1", scorer.rules["s"], ('"A"',), ('"A"', '"B"'))
    [1, 2, 1, 0, 0, 0, 0, 1, 0, 0, 0]
    """

    def __init__(
        self,
        config: Configuration,
        history: History | None,
        matcher: ValueMatcher | None = None,
        index: HistoryIndex | None = None,
    ):
        self.matcher = matcher or ValueMatcher(config)
        self.history = index or HistoryIndex(history, self.matcher)
        self.rules = {spec.slot_id: slot_rules(spec) for spec in config.content_slots}
        self._eq = self.matcher.equal
        self._memo: dict[tuple[Any, ...], tuple[tuple[int, ...], bool]] = {}
        self._memo_of: HistoryIndex | None = None
        self._memo_version = 0

    def score(
        self,
        message_id: str,
        key_tid: str,
        rules: SlotRules,
        key_fills: Sequence[CValue],
        response_fills: Sequence[CValue],
        *,
        response_tid: str | None = None,
        resolver: QueryResolver | None = None,
        overlap: bool = False,
        trace: Trace | None = None,
        ledger: Ledger | None = None,
    ) -> list[int]:
        """Tallies of one slot (§5): ``overlap`` is the mapping restriction's mode (word overlap
        counts, §7.2); without a ``resolver``, batch mode (no queries). ``trace`` receives what
        was credited, ``ledger`` the credit of every fill (not with ``overlap``); neither
        changes the tallies."""
        if not key_fills and not response_fills:
            # Both blank: noncommittal (the most common case by far).
            return [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, rules.cardinality]
        if trace is not None or ledger is not None or not self.history.remembered or (
                resolver is not None and (resolver.unresolved == "ask"
                                          or resolver.on_reuse is not None)):
            return self._score(_Ctx(message_id, key_tid, response_tid, rules, resolver,
                                    overlap, trace, ledger), key_fills, response_fills)
        # The mapping scores a slot of a key template against each response, and then the
        # pair it chose again, and systems give the same fills: one tally per message, key
        # template, slot, mode and fills. A tally that put no question to a resolver (it
        # recorded nothing, asked no one) stands for every resolver; one that did stands
        # only for batch mode. Judgements added to the history empty the memo.
        if self._memo_of is not self.history or self._memo_version != self.history.version:
            self._memo.clear()
            self._memo_of, self._memo_version = self.history, self.history.version
        key = (message_id, key_tid, rules.slot_id, overlap, tuple(key_fills),
               tuple(response_fills))
        known = self._memo.get(key)
        if known is not None and (known[1] or resolver is None):
            return list(known[0])
        ctx = _Ctx(message_id, key_tid, response_tid, rules, resolver, overlap)
        tally = self._score(ctx, key_fills, response_fills)
        if resolver is None or not ctx.open:
            self._memo[key] = (tuple(tally), not ctx.open)
        return tally

    def _score(self, ctx: _Ctx, key_fills: Sequence[CValue],
               response_fills: Sequence[CValue]) -> list[int]:
        if len(key_fills) <= 1 and len(response_fills) <= 1:
            k = key_fills[0] if key_fills else None
            r = response_fills[0] if response_fills else None
            return self._single(ctx, k, r)
        return self._multi(ctx, list(key_fills), list(response_fills))

    def _single(self, ctx: _Ctx, k: CValue, r: CValue) -> list[int]:
        """§6.1: a single-valued slot (at most one fill on each side)."""
        rules = ctx.rules
        kopt = is_optional(k)
        ropt = is_optional(r)
        k1 = unwrap_optional(k)
        r1 = unwrap_optional(r)
        status: str | None = None
        if self._eq(k1, r1):
            status = PLAIN
            if ctx.trace is not None and k1 is not None:
                ctx.note("equal", PLAIN, k1, r1)
        elif k1 is not None and r1 is not None:
            res = self._lookup(ctx, [k1], r1)
            if res is None:
                if rules.is_set:
                    res = self._set_fill(ctx, k1, r1)
                    if res == _QUERY:
                        ctx.open = True
                        res = self._query(ctx, [k1], r1, rule=_RULE_SET) \
                            if ctx.resolver else None
                    elif res is not None:
                        ctx.note("set-fill", res, k1, r1)
                elif rules.is_string and ctx.overlap:
                    if self.matcher.words(k1) & self.matcher.words(r1):
                        res = PLAIN
                        ctx.note("words", AUTO_PARTIAL, (k1,), r1)
                else:
                    ctx.open = True
                    if ctx.resolver is not None:
                        res = self._query(ctx, [k], r, rule=_RULE_SINGLE)
            status = res[0] if isinstance(res, tuple) else res

        t = [0] * 11
        kblank = k is None
        rblank = r is None
        if (kblank and rblank) or (kopt and rblank) or (ropt and kblank):
            t[NON] = 1
        elif status == FAIL:
            t[INC] = 1
        elif status is not None:
            for column in _CREDIT_COLUMNS.get(status, (COR,)):
                t[column] = 1
        elif kblank:
            t[SPU] = 1
        elif rblank:
            t[MIS] = 1
        else:
            t[INC] = 1
        t[ACT] = 1 if (not rblank and not (ropt and kblank)) else 0
        t[POS] = 1 if (not kblank and not (kopt and t[ACT] == 0)) else 0
        if rules.is_set:
            t[PIE] = rules.cardinality - (0 if kopt and t[ACT] == 0 else allowable(k))
        if ctx.ledger is not None and (t[POS] or t[ACT]):
            ctx.ledger.append((k, r if t[ACT] else None, t[POS], t[ACT], t[COR], t[PAR]))
        return t

    def _multi(self, ctx: _Ctx, K: list[CValue], R: list[CValue]) -> list[int]:
        """§6.2: a multi-valued slot, steps A to E."""
        rules = ctx.rules
        t = [0] * 11
        paired: list[CValue] = []
        failed: list[CValue] = []
        K, R = self._exact_pass(ctx, t, K, R, paired)

        # Step B: automatic and history look-up, response fills in order.
        if K and R:
            still: list[CValue] = []
            for r in R:
                res = self._lookup(ctx, K, r)
                if res is None:
                    still.append(r)
                elif isinstance(res, tuple):
                    K = self._credit(ctx, t, res, K, paired, r)
                else:
                    failed.append(r)
            R = still

        # Step C: only for the mapping restriction.
        if ctx.overlap:
            if K and R:
                words = self.matcher.words
                key_words = set().union(*(words(k) for k in K))
                overlapping = [r for r in R if key_words & words(r)]
                if overlapping:
                    t[PAR] += 1
                    for r in overlapping:
                        ctx.note("words", AUTO_PARTIAL, tuple(K), r)
            return t

        # Step D: the query pass (interactive scoring only).
        ctx.open = ctx.open or bool(K and R)
        if ctx.resolver is not None and K and R:
            still = []
            for r in R:
                if rules.is_set:
                    res = self._multi_set_fill(ctx, K, r)
                else:
                    offered = self._offered(ctx, K, r)
                    res = self._query(ctx, [K[i] for i in offered], r, offered, _RULE_MULTI)
                if isinstance(res, tuple):
                    K = self._credit(ctx, t, res, K, paired, r)
                elif res is None and not rules.is_set:
                    still.append(r)
                else:  # a fail, or a set fill left uncredited
                    failed.append(r)
            R = still

        # Step E: leftovers.
        if K or R or failed:
            if ctx.ledger is None:
                self._leftovers(t, K, R + failed, paired)
            else:
                before = t[:]
                self._leftovers(t, K, R + failed, paired)
                _ledger_leftovers(ctx.ledger, before, t, K, R + failed)

        if rules.is_set:
            if not paired:
                t[PIE] = rules.cardinality
            else:
                t[PIE] = sum(rules.cardinality - allowable(f) for f in paired)
        return t

    def _exact_pass(self, ctx: _Ctx, t: list[int], K: list[CValue], R: list[CValue],
                    paired: list[CValue]) -> tuple[list[CValue], list[CValue]]:
        """Step A of §6.2: key fills in order, each with the first equal response fill; returns
        the fills left on both sides. Response fills keep their '?' markers:
        ``score-trivial-matches`` (score.el) compares them as written, so a marked fill equals
        an unstructured key fill (rules 1 and 5 of §3.1) but never a cross-reference, location
        or range, and is left to the look-up, which reads a marked cross-reference through
        ``xref-p``."""
        eq = self._eq
        R = list(R)
        rest: list[CValue] = []
        for k in K:
            for j, r in enumerate(R):
                if eq(k, r):
                    t[POS] += 1
                    t[ACT] += 1
                    t[COR] += 1
                    del R[j]
                    paired.append(k)
                    if ctx.ledger is not None:
                        ctx.ledger.append((k, r, 1, 1, 1, 0))
                    if ctx.trace is not None:
                        ctx.note("equal", PLAIN, k, r)
                    break
            else:
                rest.append(k)
        return rest, R

    @staticmethod
    def _credit(ctx: _Ctx, t: list[int], res: Credit, K: list[CValue], paired: list[CValue],
                r: CValue) -> list[CValue]:
        status, credited = res
        chosen = set(range(len(K)) if credited is None else credited)
        _apply(t, status, len(chosen) if credited is None else len(credited))
        if ctx.ledger is not None:
            full = int(status not in (AUTO_PARTIAL, PARTIAL))  # as _apply counts it
            for i in (sorted(chosen) if credited is None else credited):
                ctx.ledger.append((K[i], r, 1, 1, full, 1 - full))
        paired.extend(K[i] for i in sorted(chosen))
        return [k for i, k in enumerate(K) if i not in chosen]

    @staticmethod
    def _leftovers(t: list[int], K: list[CValue], Rs: list[CValue], paired: list[CValue]) -> None:
        nk = len(K)
        ns = len(Rs)
        required = [k for k in K if not is_optional(k)]
        kreq = len(required)
        paired.extend(required)
        kopt = nk - kreq
        sopt = sum(1 for r in Rs if is_optional(r))
        cancel = min(kopt, sopt)
        nk -= cancel
        ns -= cancel
        sopt -= cancel
        if sopt == 0:
            t[ACT] += ns
            if nk < ns:
                t[POS] += nk
                t[INC] += nk
                t[SPU] += ns - nk
            elif ns <= kreq:
                t[POS] += kreq
                t[INC] += ns
                t[MIS] += kreq - ns
            else:
                t[POS] += ns
                t[INC] += ns
                first_optional = next(k for k in K if is_optional(k))
                # 1992 adds the same optional fill repeatedly (a bug kept for PIE).
                paired.extend([first_optional] * (ns - kreq))
        else:  # optional response fills: never in MUC-4 data (§6.2, [C])
            sreq = ns - sopt
            t[POS] += nk
            if ns < nk:
                t[ACT] += ns
                t[INC] += ns
                t[MIS] += nk - ns
            elif nk <= sreq:
                t[ACT] += sreq
                t[INC] += nk
                t[SPU] += sreq - nk
            else:
                t[ACT] += nk
                t[INC] += nk

    def _lookup(self, ctx: _Ctx, K: list[CValue], r: CValue) -> Result:
        """§6.4: the automatic and history look-up of response fill ``r``."""
        eq = self._eq
        rules = ctx.rules
        rx = xref_part(r)
        if rx is not None:
            # xref-p, xref-val and xref-tag (defs.el) look through a '?' marker.
            res = self._xref_stage(ctx, K, rx)
            if res is _BLOCKED:
                # Treated like a null status: the response fill goes to the failed
                # list and is not offered to the query pass.
                return FAIL
            if res is not None:
                if ctx.trace is not None and isinstance(res, tuple):
                    ctx.note("xref", res[0], K[res[1][0]] if res[1] else K[0], r)
                return res

        stored = self.history.find(ctx.message_id, ctx.key_tid, rules.slot_id, r)
        if stored is not None:
            if stored.judgement == FAIL:
                self._reused(ctx, K, r)
                return FAIL
            sk = stored.key
            members = sk[1] if type(sk) is tuple and sk[0] == ALLOF else None
            if members is not None or len(K) > 1:
                credited = _positions((sk,) if members is None else members, lambda member: next(
                    (i for i, k in enumerate(K) if eq(k, member)), None))
                if credited is not None:
                    for i in credited:
                        ctx.note("history", stored.judgement, K[i], r)
                    self._reused(ctx, K, r)
                    return (stored.judgement, credited)
            elif eq(K[0] if K else None, sk):
                if K:
                    ctx.note("history", stored.judgement, K[0], r)
                self._reused(ctx, K, r)
                return (stored.judgement, None)

        named = len(K) > 1
        if rules.is_location and (type(r) is str or (type(r) is tuple and r[0] == LOC)):
            for i, k in enumerate(K):
                if self.matcher.country_partial(k, r):
                    ctx.note("country", AUTO_PARTIAL, k, r)
                    return (AUTO_PARTIAL, [i] if named else None)
        if rules.hierarchical and type(r) is str:
            for i, k in enumerate(K):
                if self.matcher.ancestor(rules.slot_id, r, k):
                    ctx.note("general", AUTO_PARTIAL, k, r)
                    return (AUTO_PARTIAL, [i] if named else None)
        return None

    def _xref_stage(self, ctx: _Ctx, K: list[CValue], r: tuple[Any, ...]) -> Result:
        """Stage 1 of §6.4 with the combination table of §6.5."""
        rules = ctx.rules
        rvalue = r[1]
        C = self._corresponding(ctx, K, r[2])
        if not C:
            return None
        kT, tag_status, _ = C[-1]

        value_status: str | None = None
        kV = -1
        # find-corresponding-xref-values conses the fills up, so find-matching-keyval
        # scans them last first: among equal values the last fill is credited.
        for i, _, kvalue in reversed(C):
            if self._eq(kvalue, rvalue):
                value_status, kV = AUTO_MATCH, i
                break
        if value_status is None and rules.hierarchical:
            for i, _, kvalue in reversed(C):
                if self.matcher.ancestor(rules.slot_id, rvalue, kvalue):
                    value_status, kV = AUTO_PARTIAL, i
                    break
        if value_status is None and rules.is_location:
            for i, _, kvalue in reversed(C):
                if self.matcher.country_partial(kvalue, rvalue):
                    value_status, kV = AUTO_PARTIAL, i
                    break
        if value_status is None:
            # 1992 attaches the corresponding fills to the (empty) combination
            # whenever they are fewer than the key fills; that non-empty result
            # with a null status ends the look-up without any credit.
            return _BLOCKED if len(C) < len(K) else None

        if len(C) > 1:
            if tag_status == _EXACT:
                return (value_status, [kV])
            return (COMPOSITE, [kT])
        if tag_status == _EXACT:
            status = COMPOSITE if value_status == AUTO_MATCH else AUTO_PARTIAL
        elif tag_status == MATCH:
            status = value_status
        else:
            status = AUTO_PARTIAL
        return (status, [kT] if len(K) > 1 else None)

    def _corresponding(self, ctx: _Ctx, K: list[CValue],
                       tag: CValue) -> list[tuple[int, str, CValue]] | None:
        """(index, how its tag corresponds, value) of the key fills whose tag corresponds to
        ``tag``; ``None`` when a history fail aborts."""
        out = []
        for i, k in enumerate(K):
            kx = xref_part(k)
            if kx is None:
                continue
            how = self._corresponds(ctx, kx[2], tag)
            if how == _ABORT:
                return None
            if how is not None:
                out.append((i, how, kx[1]))
        return out

    def _corresponds(self, ctx: _Ctx, key_tag: CValue, tag: CValue) -> str | None:
        """§6.5: ``exact``, a history judgement, ``_ABORT`` (a history fail) or ``None``."""
        if self._eq(key_tag, tag):
            return _EXACT
        for slot_id in ctx.rules.xref:
            stored = self.history.find(ctx.message_id, ctx.key_tid, slot_id, tag)
            if stored is None:
                continue
            if stored.judgement == FAIL:
                return _ABORT
            htag = stored.key
            members = htag[1] if type(htag) is tuple and htag[0] == ALLOF else (htag,)
            # The stored tag is on the key side of the comparison.
            if any(self._eq(h, key_tag) for h in members):
                return MATCH if stored.judgement == MATCH else PARTIAL
        return None

    def _set_fill(self, ctx: _Ctx, k: CValue, r: CValue) -> str | None:
        """§6.6 set-fill scoring of a tagged key fill: a status, ``_QUERY`` or ``None``."""
        if is_xref(k):
            kv = k[1]
        elif is_optional(k) and is_xref(k[1]):
            kv = k[1]  # the 1992 quirk: the "value" of an optional xref is the whole xref
        else:
            return None
        for rv in (r[1], r) if is_xref(r) else (r,):
            if self._eq(kv, rv):
                return _QUERY if is_xref(r) else AUTO_PARTIAL
            if self.matcher.ancestor(ctx.rules.slot_id, rv, kv):
                return AUTO_PARTIAL
        return None

    def _multi_set_fill(self, ctx: _Ctx, K: list[CValue], r: CValue) -> Result:
        """Step D for set fills: choose a key fill and auto-score it (§6.6)."""
        if not K:
            return None
        eq = self._eq
        ancestor = self.matcher.ancestor
        slot_id = ctx.rules.slot_id
        chosen = next(
            (i for i, k in enumerate(K) if (is_xref(k) and eq(k[1], r)) or eq(k, r)), None
        )
        if chosen is None:
            chosen = next(
                (
                    i
                    for i, k in enumerate(K)
                    if (is_xref(k) and ancestor(slot_id, r, k[1])) or ancestor(slot_id, r, k)
                ),
                0,
            )
        m = self._set_fill(ctx, K[chosen], r)
        if m == _QUERY:
            answer = self._query(ctx, [K[chosen]], r, rule=_RULE_MULTI_SET)
            m = answer[0] if isinstance(answer, tuple) else answer
        if m is None or m == FAIL:
            if chosen != 0:
                # 1992 loses the chosen fill from the key list here ([C], never in TST3).
                del K[chosen]
            return m
        return (m, [chosen])

    def _offered(self, ctx: _Ctx, K: list[CValue], r: CValue) -> list[int]:
        """§6.8: key fills offered for a step-D query: those whose tag corresponds, else all."""
        rx = xref_part(r)
        C = None if rx is None else self._corresponding(ctx, K, rx[2])
        return [i for i, _, _ in C] if C else list(range(len(K)))

    def _query(
        self,
        ctx: _Ctx,
        fills: list[CValue],
        r: CValue,
        positions: list[int] | None = None,
        rule: str = "",
    ) -> Result:
        """Answer a query on the offered key ``fills`` from the history, else by the resolver's
        policy; a result names fills by their ``positions`` (by default their indices), or,
        for a single offered fill, is a bare status."""
        if positions is None:
            positions = list(range(len(fills)))
        if not fills:
            return None
        rules = ctx.rules
        stored = self.history.find(ctx.message_id, ctx.key_tid, rules.slot_id, r)
        chosen: list[int] | None = None
        status: str | None = None
        if stored is not None:
            if stored.judgement == FAIL:
                self._reused(ctx, fills, r)
                return FAIL
            status = stored.judgement
            sk = stored.key
            chosen = _positions(sk[1] if type(sk) is tuple and sk[0] == ALLOF else (sk,),
                                lambda member: self._offered_match(fills, member))
        if chosen is None or status is None:
            answer = self._unresolved(ctx, fills, r, rule)
            if not isinstance(answer, tuple):
                return answer
            status, chosen = answer
            assert chosen is not None
        else:
            self._reused(ctx, fills, r)
        if len(fills) == 1:
            return (status, None)
        return (status, [positions[j] for j in chosen])

    def _offered_match(self, fills: list[CValue], stored_key: CValue) -> int | None:
        for j, fill in enumerate(fills):
            if fill == stored_key:
                return j
        bare = unwrap_optional(stored_key)
        for j, fill in enumerate(fills):
            if self._eq(unwrap_optional(fill), bare):
                return j
        return None

    def _reused(self, ctx: _Ctx, fills: list[CValue], r: CValue) -> None:
        """Tell the resolver's ``on_reuse`` that the history answered a question."""
        if ctx.resolver is not None and ctx.resolver.on_reuse is not None:
            ctx.resolver.on_reuse(self._question(ctx, fills, r, _RULE_LOOKUP))

    @staticmethod
    def _question(ctx: _Ctx, fills: list[CValue], r: CValue, rule: str) -> Query:
        return Query(
            message_id=ctx.message_id,
            key_template_id=ctx.key_tid,
            response_template_id=ctx.response_tid,
            slot_id=ctx.rules.slot_id,
            response=to_model(r),
            offered=tuple(to_model(f) for f in fills),
            rule=rule,
        )

    def _unresolved(self, ctx: _Ctx, fills: list[CValue], r: CValue, rule: str = "") -> Result:
        resolver = ctx.resolver
        assert resolver is not None, "queries are put only when a resolver is given"
        resolver.unanswered += 1
        if resolver.unresolved == "incorrect":
            return None
        if resolver.unresolved in _POLICY_STATUS:
            return (_POLICY_STATUS[resolver.unresolved], [0])
        query = self._question(ctx, fills, r, rule)
        assert resolver.ask is not None, "QueryResolver refuses the ask policy without a callback"
        answer = resolver.ask(query)
        if answer is None:
            return None
        judgement, which = answer if isinstance(answer, tuple) else (answer, 0)
        entry = answer_entry(query, judgement, which)
        result: Result = FAIL if entry.judgement == Judgement.FAIL \
            else (JUDGED[Judgement(judgement)], [which])
        self.history.add(ctx.message_id, ctx.key_tid, ctx.rules.slot_id, stored_judgement(entry))
        recorded = NewJudgement(ctx.message_id, ctx.key_tid, ctx.rules.slot_id, entry)
        resolver.new_judgements.append(recorded)
        if resolver.on_judgement is not None:
            resolver.on_judgement(recorded)
        return result
