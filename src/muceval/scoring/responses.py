"""Yeh's response-level units for one pair of systems (Yeh 2000, section 3): what moves, the
groups and the held responses are described in docs/significance-units.md."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal, cast

import numpy as np

from muceval.core.model import Configuration, History, TemplateFile
from muceval.core.responses import PairResponses, Response, ResponseGroup
from muceval.core.tallies import TemplateStatus
from muceval.errors import Problem, UsageError
from muceval.scoring.muc1992.equality import CValue
from muceval.scoring.muc1992.scorer import CatalogEntry, Scorer, ScoringOptions

__all__ = ["MAX_GROUP", "baseline_units", "response_units"]

MAX_GROUP = 16
"""The most exchangeable responses one slot may hold (2^16 rescorings of the slot)."""

_SCORED = (TemplateStatus.MATCHED, TemplateStatus.MISSING)


def response_units(config: Configuration, key: TemplateFile, a: TemplateFile, b: TemplateFile,
                   names: tuple[str, str] = ("a", "b"), *, history: History | None = None,
                   options: ScoringOptions | None = None) -> PairResponses:
    """The response-level units of systems ``a`` and ``b`` scored against ``key``; refused
    when a slot holds more than :data:`MAX_GROUP` competing responses, or with 'ask'."""
    options = options or ScoringOptions()
    if options.unresolved == "ask":
        raise UsageError("response units are made without asking: answer the questions first "
                         "(score with 'ask'), then use the history", parameter="unresolved")
    scorer = Scorer(config, history, options)
    slots = {"a": _instances(scorer, key, a), "b": _instances(scorer, key, b)}
    rescore = _Rescorer(scorer)
    base = np.zeros((2, 4), dtype=np.int64)
    singles: list[Response] = []
    contributions: list[np.ndarray] = []
    groups: list[ResponseGroup] = []
    held = 0
    for where in sorted(set(slots["a"]) | set(slots["b"])):
        first, second = slots["a"].get(where), slots["b"].get(where)
        if "#spurious#" in where:  # a message without spurious templates has empty slots
            first = first or replace(cast(_Instance, second), fills=())
            second = second or replace(first, fills=())
        if first is None or second is None or first.key_fills != second.key_fills:
            # Held with its system: giving it to the other would change the status of an
            # optional key template only one system matched. Each side scored as it is.
            for side, instance in enumerate((first, second)):
                if instance is not None:
                    base[side] += rescore(instance, instance.fills)
                    held += len(instance.fills)
            continue
        _units(where, first, second, rescore, base, singles, contributions, groups)
    units = PairResponses(names[0], names[1], base, tuple(singles),
                          np.array(contributions, dtype=np.int64).reshape(-1, 4), tuple(groups),
                          held)
    _check(units, scorer, key, (a, b))
    return units


def _check(units: PairResponses, scorer: Scorer, key: TemplateFile,
           systems: tuple[TemplateFile, TemplateFile]) -> None:
    """The units of the systems as they are must sum to the scorer's tallies."""
    from muceval.core.tallies import summarize

    for side, system in enumerate(systems):
        total = summarize(scorer.score(key, system).pairs, scorer.config).all_templates.total
        expected = np.array([total.pos, total.act, total.cor, total.par])
        if not np.array_equal(units.observed[side], expected):
            raise ValueError(f"the response units of {units.a if side == 0 else units.b} sum to "
                             f"{units.observed[side].tolist()}, the scorer gives "
                             f"{expected.tolist()}")


@dataclass(frozen=True)
class _Instance:
    """One scored slot of one system: a key template's slot, or a message's spurious slot."""

    message_id: str
    key_tid: str
    response_tid: str | None
    slot_id: str
    key_fills: tuple[CValue, ...]
    fills: tuple[CValue, ...]


def _instances(scorer: Scorer, key: TemplateFile,
               response: TemplateFile) -> dict[str, _Instance]:
    """Every scored slot of one system, by where it is; the spurious templates of a message
    pool their fills per slot."""
    out: dict[str, _Instance] = {}
    entry: CatalogEntry
    for entry in scorer.catalog(key, response):
        message_id, k, r, status = entry
        if status is TemplateStatus.SPURIOUS and r is not None:
            for slot_id in scorer.slot_ids:
                where = f"{message_id}#spurious#{slot_id}"
                before = out.get(where)
                fills = (before.fills if before else ()) + r.fills.get(slot_id, ())
                out[where] = _Instance(message_id, "", None, slot_id, (), fills)
        elif status in _SCORED and k is not None:
            for slot_id in scorer.slot_ids_for(message_id, k):
                where = f"{message_id}#key:{k.template_id}#{slot_id}"
                if where in out:  # a key template replayed twice by a manual mapping
                    where += f"#{sum(w.startswith(where) for w in out) + 1}"
                out[where] = _Instance(message_id, k.template_id,
                                       None if r is None else r.template_id, slot_id,
                                       k.fills.get(slot_id, ()),
                                       r.fills.get(slot_id, ()) if r is not None else ())
    return out


class _Rescorer:
    """The slot scorer's POS, ACT, COR and PAR for some responses in one scored slot."""

    def __init__(self, scorer: Scorer):
        self.scorer = scorer
        self.resolver = scorer.resolver()

    def __call__(self, instance: _Instance, fills: Sequence[CValue]) -> np.ndarray:
        tally = self.scorer.slots.score(
            instance.message_id, instance.key_tid, self.scorer.slots.rules[instance.slot_id],
            instance.key_fills, list(fills), response_tid=instance.response_tid,
            resolver=self.resolver)
        return np.array(tally[:4], dtype=np.int64)


def _units(where: str, first: _Instance, second: _Instance, rescore: _Rescorer,
           base: np.ndarray, singles: list[Response], contributions: list[np.ndarray],
           groups: list[ResponseGroup]) -> None:
    """Split one slot of both systems into what never moves and its exchangeable responses."""
    identity = rescore.scorer.matcher.identity
    only = _exchangeable(first.fills, second.fills, identity)
    if not only:
        base[0] += rescore(first, first.fills)
        base[1] += rescore(second, second.fills)
        return
    if len(only) > MAX_GROUP:
        raise UsageError(f"{where}: {len(only)} responses only one system produced in one slot; "
                         f"response units take at most {MAX_GROUP} (2^{MAX_GROUP} rescorings)")
    outcomes = _outcomes(first, second, only, rescore)
    responses = tuple(Response(where, identity(first.fills[i] if owner == "a"
                                               else second.fills[i]), owner)
                      for owner, i in only)
    k = len(only)
    steps = outcomes[[1 << j for j in range(k)], 0] - outcomes[0, 0]
    full = (1 << k) - 1
    if _additive(outcomes[:, 0], steps) and _additive(outcomes[full ^ np.arange(1 << k), 1],
                                                       steps):
        base[0] += outcomes[0, 0]  # nothing exchangeable received: the shared responses alone
        base[1] += outcomes[full, 1]
        singles.extend(responses)
        contributions.extend(steps)
    else:
        groups.append(ResponseGroup(responses, outcomes))


def _exchangeable(first: Sequence[CValue], second: Sequence[CValue],
                  identity: Callable[[CValue], str]) -> list[tuple[Literal["a", "b"], int]]:
    """The responses not produced alike by both (a multiset difference by normal form): the
    owner and the position in the owner's fills."""
    left: dict[str, list[int]] = {}
    for i, fill in enumerate(second):
        left.setdefault(identity(fill), []).append(i)
    only: list[tuple[Literal["a", "b"], int]] = []
    for i, fill in enumerate(first):
        same = left.get(identity(fill))
        if same:
            same.pop(0)
        else:
            only.append(("a", i))
    only.extend(sorted(("b", i) for same in left.values() for i in same))
    return only


def _outcomes(first: _Instance, second: _Instance, only: Sequence[tuple[str, int]],
              rescore: _Rescorer) -> np.ndarray:
    """The tallies of both pseudo-systems under every assignment (bit j: response j to the
    first). What one receives comes after its own fills, in their order: the systems as they
    are then score as they did."""
    k = len(only)
    out = np.empty((1 << k, 2, 4), dtype=np.int64)
    own = {"a": first.fills, "b": second.fills}
    for i in range(1 << k):
        with_first = {only[j] for j in range(k) if i >> j & 1}
        for side, (instance, owner) in enumerate(((first, "a"), (second, "b"))):
            # Side 0 receives the responses whose bit is set, side 1 the others.
            received = {r for r in only if (r in with_first) == (side == 0)}
            kept = [f for n, f in enumerate(instance.fills)
                    if (owner, n) not in only or (owner, n) in received]
            given = [own[o][n] for o, n in only if o != owner and (o, n) in received]
            out[i, side] = rescore(instance, [*kept, *given])
    return out


def _additive(outcomes: np.ndarray, steps: np.ndarray) -> bool:
    """Whether each outcome (by the responses received, bit j: response j) is the empty one
    plus the contributions of what it receives."""
    k = len(steps)
    bits = (np.arange(1 << k)[:, None] >> np.arange(k)) & 1
    expected = outcomes[0] + bits @ steps
    return bool(np.array_equal(outcomes, expected))


def baseline_units(config: Configuration, key_path: str | Path,
                   response_paths: Sequence[str | Path], *,
                   history_path: str | Path | None = None, names: Mapping[str, str] | None = None,
                   options: ScoringOptions | None = None,
                   ) -> tuple[list[PairResponses], tuple[Problem, ...]]:
    """Read the files and make the response units of the first system (the baseline) with
    each of the others; with the readers' warnings."""
    from muceval.formats.muc.history import read_history
    from muceval.scoring.session import read_systems

    warnings: list[Problem] = []
    key, systems = read_systems(config, key_path, response_paths, names, warnings)
    history = None if history_path is None else read_history(history_path)
    chosen = list(systems)
    units = [response_units(config, key, systems[chosen[0]], systems[name], (chosen[0], name),
                            history=history, options=options)
             for name in chosen[1:]]
    return units, tuple(warnings)
