"""Das et al.'s error categories for 1992 MUC-4 templates: the 1992 scorer maps and judges,
this module sorts its verdicts into the categories (docs/error-analysis.md, "1992 templates").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from muceval.core.model import Configuration
from muceval.core.modern import ROLE_SLOTS
from muceval.core.tallies import FillCredit, PairScore, TemplateStatus
from muceval.errors import InputError, Problem, UsageError
from muceval.formats.muc.history import read_history
from muceval.scoring.errors.count import TYPE_ROW, Counted
from muceval.scoring.errors.model import (
    DAS_ROLES,
    GENERAL_SPURIOUS,
    INCORRECT_TYPE,
    LEVELS,
    MISSING_FILLER,
    MISSING_TEMPLATE,
    MISSING_TEMPLATE_FILLER,
    SPAN_ERROR,
    SPURIOUS_FILLER,
    SPURIOUS_TEMPLATE,
    SPURIOUS_TEMPLATE_FILLER,
    DocumentErrors,
    ErrorOptions,
    Mode,
    SystemErrors,
)
from muceval.scoring.errors.result import ErrorAnalysis
from muceval.scoring.muc1992.equality import CValue, ValueMatcher
from muceval.scoring.muc1992.judgements import MATCH, PARTIAL, HistoryIndex
from muceval.scoring.muc1992.mapping import PreparedTemplate
from muceval.scoring.muc1992.scorer import CatalogEntry, Scorer, ScoringOptions
from muceval.scoring.session import SessionResult, read_template_file, score_files

__all__ = ["ROLE_SLOTS", "TYPE_SLOT", "analyse_1992_files", "analyse_1992_session", "analyse_1992_system",
           "fill_verdict"]

TYPE_SLOT = "inc-type"  # the slot of the incident_type row

_ROLE_OF = {slot: role for role in DAS_ROLES for slot in ROLE_SLOTS[role]}
_UNMAPPED = (TemplateStatus.MISSING, TemplateStatus.SPURIOUS)
# An unmapped template's category, its fills' category and the verdict of those fills.
_UNMAPPED_CATEGORIES = {
    TemplateStatus.MISSING: (MISSING_TEMPLATE, MISSING_TEMPLATE_FILLER, "MIS"),
    TemplateStatus.SPURIOUS: (SPURIOUS_TEMPLATE, SPURIOUS_TEMPLATE_FILLER, "SPU")}
_DROPPED: dict[str, tuple[TemplateStatus, ...]] = {
    "all": (), "msp": (TemplateStatus.MISSING,), "mmi": (TemplateStatus.SPURIOUS,),
    "mat": _UNMAPPED}


def fill_verdict(credit: FillCredit) -> str:
    """The 1992 verdict of one fill credit: ``COR``, ``PAR``, ``INC``, ``MIS`` or ``SPU``.

    >>> fill_verdict(FillCredit("s", '"A"', '"B"', 1, 1, 0, 0))
    'INC'
    """
    if credit.cor:
        return "COR"
    if credit.par:
        return "PAR"
    if credit.pos and credit.act:
        return "INC"
    return "MIS" if credit.pos else "SPU"


@dataclass(frozen=True)
class _Context:
    matcher: ValueMatcher
    index: HistoryIndex
    slots: tuple[str, ...]  # the string slots of the configuration, in its order
    dropped: tuple[TemplateStatus, ...]


@dataclass(frozen=True)
class _Pair:
    """A matched entry and its message's relevant key templates."""

    message_id: str
    score: PairScore
    key: PreparedTemplate
    response: PreparedTemplate
    keys: tuple[PreparedTemplate, ...]


def _match(ctx: _Context, pair: _Pair, key: PreparedTemplate, slot: str,
           candidates: Sequence[CValue], response: CValue) -> int:
    """2: ``response`` equals one of ``candidates`` (or a MATCH is recorded); 1: a PARTIAL
    judgement is recorded against one; 0: neither."""
    if any(ctx.matcher.equal(k, response) for k in candidates):
        return 2
    stored = ctx.index.find(pair.message_id, key.template_id, slot, response)
    if stored is None or stored.judgement not in (MATCH, PARTIAL) \
            or not any(ctx.matcher.equal(k, stored.key) for k in candidates):
        return 0
    return 2 if stored.judgement == MATCH else 1


def _subcategory(ctx: _Context, pair: _Pair, slot: str, response: CValue) -> str:
    """The sub-category of a spurious (or incorrect) response fill of ``slot``."""
    identity = ctx.matcher.identity
    credited = {c.key for c in pair.score.fills if c.slot_id == slot and (c.cor or c.par)}
    same = [k for k in pair.key.fills.get(slot, ()) if identity(k) in credited]
    others = [s for s in ctx.slots if s != slot]
    elsewhere = [k for k in pair.keys if k is not pair.key]
    # Within a level any match decides: the order of slots and templates tried does not matter.
    levels: tuple[list[tuple[PreparedTemplate, str, Sequence[CValue]]], ...] = (
        [(pair.key, slot, same)],
        [(pair.key, s, pair.key.fills.get(s, ())) for s in others],
        [(k, slot, k.fills.get(slot, ())) for k in elsewhere],
        [(k, s, k.fills.get(s, ())) for k in elsewhere for s in others])
    for (exact, partial), tests in zip(LEVELS, levels, strict=True):
        found = max((_match(ctx, pair, k, s, fills, response) for k, s, fills in tests
                     if fills), default=0)
        if found:
            return exact if found == 2 else partial
    return SPURIOUS_FILLER


def _response_value(ctx: _Context, template: PreparedTemplate, credit: FillCredit) -> CValue:
    """The response fill a credit names (by its normal form)."""
    return next((value for value in template.fills.get(credit.slot_id, ())
                 if ctx.matcher.identity(value) == credit.response), credit.response)


def _pair_fill(ctx: _Context, pair: _Pair, credit: FillCredit, counted: Counted) -> None:
    role, verdict = _ROLE_OF[credit.slot_id], fill_verdict(credit)
    if verdict == "PAR":
        counted.mark(role, SPAN_ERROR)
        counted.score += 0.5
        counted.partial = True
    if verdict in ("MIS", "INC"):
        counted.mark(role, MISSING_FILLER)
        counted.score += 1
    if verdict in ("SPU", "INC"):
        counted.mark(role, GENERAL_SPURIOUS)
        counted.mark(role, _subcategory(ctx, pair, credit.slot_id,
                                        _response_value(ctx, pair.response, credit)))
        counted.score += 1


def _entry(ctx: _Context, score: PairScore, pair: _Pair | None, counted: Counted) -> None:
    """Count one matched, missing or spurious catalog entry."""
    unmapped = _UNMAPPED_CATEGORIES.get(score.status)
    if unmapped is not None:
        counted.mark(TYPE_ROW, unmapped[0])
        counted.score += 1
    for credit in score.fills:
        if credit.slot_id == TYPE_SLOT:
            counted.add(TYPE_ROW, credit.cor, credit.act, credit.pos)
            if pair is not None and fill_verdict(credit) in ("PAR", "INC"):
                counted.mark(TYPE_ROW, INCORRECT_TYPE)
        elif credit.slot_id in _ROLE_OF:
            role = _ROLE_OF[credit.slot_id]
            counted.add(role, credit.cor, credit.act, credit.pos)
            if pair is not None:
                _pair_fill(ctx, pair, credit, counted)
            elif unmapped is not None and fill_verdict(credit) == unmapped[2]:
                counted.mark(role, unmapped[1])
                counted.score += 1


def _message(ctx: _Context, message_id: str,
             entries: Sequence[tuple[PairScore, CatalogEntry]]) -> DocumentErrors:
    """The analysis of one message (its catalog entries in order)."""
    # Each relevant template once (by identity), in catalog order.
    keys = list({id(k): k for _, (_, k, _, _) in entries
                 if k is not None and not k.irrelevant}.values())
    responses = list({id(r): r for _, (_, _, r, _) in entries
                      if r is not None and not r.irrelevant}.values())
    counted = Counted(DAS_ROLES)
    alignment: list[tuple[int | None, int | None]] = []
    for score, (_, k, r, status) in entries:
        if status is not TemplateStatus.MATCHED and status not in _UNMAPPED:
            continue
        alignment.append((_position(responses, r), _position(keys, k)))
        if status in ctx.dropped:
            continue
        pair = None
        if status is TemplateStatus.MATCHED and k is not None and r is not None:
            pair = _Pair(message_id, score, k, r, tuple(keys))
        _entry(ctx, score, pair, counted)
    return DocumentErrors(message_id, counted.rows(), counted.score, counted.partial,
                          tuple(alignment))


def _position(templates: list[PreparedTemplate], template: PreparedTemplate | None,
              ) -> int | None:
    return next((i for i, t in enumerate(templates) if t is template), None)


def analyse_1992_system(scorer: Scorer, pairs: Sequence[PairScore],
                        catalog: Sequence[CatalogEntry], name: str, mode: Mode = "all",
                        path: str = "") -> SystemErrors:
    """The error categories of one system from its pair scores (with fills) and its catalog."""
    _check(pairs, catalog, path)
    slots = tuple(s.slot_id for s in scorer.config.content_slots if s.slot_id in _ROLE_OF)
    ctx = _Context(scorer.matcher, scorer.index, slots, _DROPPED[mode])
    messages: dict[str, list[tuple[PairScore, CatalogEntry]]] = {}
    for score, entry in zip(pairs, catalog, strict=True):
        messages.setdefault(entry[0], []).append((score, entry))
    documents = tuple(_message(ctx, m, entries) for m, entries in messages.items())
    return SystemErrors(name, ErrorOptions(mode=mode, types="any"), documents)


def _check(pairs: Sequence[PairScore], catalog: Sequence[CatalogEntry], path: str) -> None:
    same = len(pairs) == len(catalog) and all(
        p.message_id == m and p.status is s
        and p.key_id == (None if k is None else k.template_id)
        and p.response_id == (None if r is None else r.template_id)
        for p, (m, k, r, s) in zip(pairs, catalog, strict=False))
    if not same:
        raise InputError.at(path, None, "the 1992 error analysis needs the 1992 template "
                            "mapping: the pairs scored are not those the 1992 mapping gives "
                            "(another alignment criterion in the configuration?)")
    if any(p.slots and not p.fills for p in pairs if p.status is TemplateStatus.MATCHED):
        raise InputError.at(path, None, "pair scores without their fills: score with "
                            "ScoringOptions(fills=True)")


def analyse_1992_files(config: Configuration, key_path: str | Path,
                       response_paths: Sequence[str | Path], *,
                       history_path: str | Path | None = None, query_pass: bool = True,
                       mode: Mode = "all", names: Mapping[str, str] | None = None,
                       ) -> ErrorAnalysis:
    """Das et al.'s error categories of 1992 response files, scored as ``muceval score`` does."""
    if not any(s.slot_id in _ROLE_OF or s.slot_id == TYPE_SLOT for s in config.content_slots):
        raise UsageError("the configuration has none of the MUC-4 string slots "
                         f"({', '.join(_ROLE_OF)}) nor {TYPE_SLOT}", parameter="config")
    if not response_paths:
        raise UsageError("give at least one response file", parameter="predictions")
    paths = [str(p) for p in response_paths]
    options = ScoringOptions(query_pass=query_pass, fills=True)
    session = score_files(config, key_path, paths, options=options, history_path=history_path,
                          names=names)
    return analyse_1992_session(config, key_path, paths, session, history_path=history_path,
                                mode=mode, names=names)


def analyse_1992_session(config: Configuration, key_path: str | Path,
                         response_paths: Sequence[str | Path], session: SessionResult, *,
                         history_path: str | Path | None = None, mode: Mode = "all",
                         names: Mapping[str, str] | None = None) -> ErrorAnalysis:
    """:func:`analyse_1992_files` of responses already scored by :func:`score_files` with
    ``ScoringOptions(fills=True)`` and the 1992 template mapping, so that a report scores once.
    """
    paths = [str(p) for p in response_paths]
    query_pass = session.options.query_pass if session.options is not None else True
    unused: list[Problem] = []
    key = read_template_file(key_path, config, unused)
    history = None if history_path is None else read_history(history_path)
    scorer = Scorer(config, history, ScoringOptions(query_pass=query_pass))
    systems = []
    for n, ((name, pairs), path) in enumerate(zip(session.systems.items(), paths, strict=True)):
        catalog = scorer.catalog(key, read_template_file(path, config, unused))
        system = analyse_1992_system(scorer, pairs, catalog, name, mode, path)
        systems.append(replace(system, warnings=session.warnings if n == 0 else ()))
    extra = {"layout": "muc-1992", "configuration": config.source, "query_pass": query_pass,
             "history": None if history_path is None else str(history_path)}
    return ErrorAnalysis(str(key_path), tuple(paths), ErrorOptions(mode=mode, types="any"),
                         tuple(systems), dict(names or {}), extra)
