"""Counting a chosen alignment: rows, categories, Error Score; classifying the unaligned
predicted fillers; cancelling missing fillers that a role error accounts for."""

from __future__ import annotations

from collections.abc import Sequence, Sized
from dataclasses import dataclass, field

from muceval.scoring.errors.align import Entry, PairAlignment, Prepared
from muceval.scoring.errors.model import (
    ALL_CATEGORIES,
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
    TYPE_ROW,
    WITHIN,
    WITHIN_PARTIAL,
    RowCounts,
)
from muceval.scoring.errors.spans import nearest

__all__ = ["TYPE_ROW", "Counted", "Unaligned", "Verdict", "count_document"]


@dataclass(frozen=True)
class Unaligned:
    """A predicted mention left unaligned in a pair: its entry, template, role and position."""

    entry: int
    template: int
    role: int
    index: int
    mention: str


@dataclass(frozen=True)
class Missing:
    """A gold entity left unaligned in a pair."""

    entry: int
    role: int
    gold: int
    entity: int


@dataclass(frozen=True)
class Verdict:
    """The class of an unaligned mention and, if not spurious, the gold mention found."""

    category: str
    gold: int | None = None
    role: int | None = None
    mention: str | None = None


@dataclass
class Counted:
    """The counters of one document, and what the repair needs."""

    roles: tuple[str, ...]
    counts: dict[str, list[int]] = field(init=False)
    categories: dict[str, dict[str, int]] = field(init=False)
    cancelled: dict[str, int] = field(init=False)
    score: float = 0.0
    partial: bool = False
    unaligned: list[Unaligned] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)
    missing: list[Missing] = field(default_factory=list)
    cancelled_records: set[Missing] = field(default_factory=set)

    def __post_init__(self) -> None:
        rows = (TYPE_ROW, *self.roles)
        self.counts = {r: [0, 0, 0] for r in rows}
        self.categories = {r: dict.fromkeys(ALL_CATEGORIES, 0) for r in rows}
        self.cancelled = dict.fromkeys(rows, 0)

    def add(self, row: str, num: int = 0, p_den: int = 0, r_den: int = 0) -> None:
        counts = self.counts[row]
        counts[0] += num
        counts[1] += p_den
        counts[2] += r_den

    def mark(self, row: str, category: str, n: int = 1) -> None:
        self.categories[row][category] += n

    def rows(self) -> tuple[RowCounts, ...]:
        rows = [RowCounts(self.counts[r][0], self.counts[r][1], self.counts[r][2],
                          tuple(self.categories[r][c] for c in ALL_CATEGORIES),
                          self.cancelled[r]) for r in (TYPE_ROW, *self.roles)]
        return (sum(rows, RowCounts()), *rows)


def _unpaired(document: Prepared, gold: bool, roles: Sequence[Sized], counted: Counted) -> None:
    """Count a missing gold (``gold``) or spurious predicted template and all its fillers."""
    template, filler = ((MISSING_TEMPLATE, MISSING_TEMPLATE_FILLER) if gold
                        else (SPURIOUS_TEMPLATE, SPURIOUS_TEMPLATE_FILLER))
    rows = [(TYPE_ROW, 1, template)]
    rows += [(role, len(found), filler) for role, found in zip(document.roles, roles, strict=True)]
    for row, n, category in rows:
        counted.add(row, p_den=0 if gold else n, r_den=n if gold else 0)
        counted.mark(row, category, n)
    counted.score += 1 + sum(len(fillers) for fillers in roles)


def _pair(document: Prepared, e: int, p: int, g: int, pair: PairAlignment,
          counted: Counted) -> None:
    counted.add(TYPE_ROW, int(pair.type_equal), 1, 1)
    if not pair.type_equal:
        counted.mark(TYPE_ROW, INCORRECT_TYPE)
    for r, (role, aligned) in enumerate(zip(document.roles, pair.roles, strict=True)):
        for i, mention in enumerate(document.predicted[p].roles[r]):
            if aligned.choices[i] is None:
                counted.add(role, p_den=1)
                counted.mark(role, GENERAL_SPURIOUS)
                counted.unaligned.append(Unaligned(e, p, r, i, mention))
                continue
            value = aligned.values[i]
            counted.add(role, int(value == 0), 1, 1)
            if 0 < value < 1:
                counted.mark(role, SPAN_ERROR)
                counted.partial = True
        for j in aligned.leftover:
            counted.add(role, r_den=1)
            counted.mark(role, MISSING_FILLER)
            counted.missing.append(Missing(e, r, g, j))
    counted.score += pair.score


def count_document(document: Prepared, entries: tuple[Entry, ...],
                   pairs: dict[tuple[int, int], PairAlignment], mode: str) -> Counted:
    """Every counter of a document under its chosen alignment."""
    counted = Counted(document.roles)
    for e, (p, g) in enumerate(entries):
        if p is None and g is not None:
            if mode not in ("msp", "mat"):
                _unpaired(document, True, document.gold[g].roles, counted)
        elif g is None and p is not None:
            if mode not in ("mmi", "mat"):
                _unpaired(document, False, document.predicted[p].roles, counted)
        elif p is not None and g is not None:
            _pair(document, e, p, g, pairs[p, g], counted)
    for record in counted.unaligned:
        counted.verdicts.append(_classify(document, entries, record, counted))
    _cancel(document, counted)
    return counted


def _listing(document: Prepared, golds: list[int], role_first: bool,
             ) -> list[tuple[int, int, str]]:
    """Every gold mention of ``golds`` as (template, role, string): per template then role,
    or (``role_first``) per role then template; then entity and mention."""
    if role_first:
        order = [(g, r) for r in range(len(document.roles)) for g in golds]
    else:
        order = [(g, r) for g in golds for r in range(len(document.roles))]
    return [(g, r, mention) for g, r in order
            for entity in document.gold[g].roles[r] for mention in entity]


def _settle(document: Prepared, g: int, record: Unaligned) -> Verdict | None:
    """Steps 2 and 3: the own gold template (every role at once), then the others."""
    span = document.find(record.mention)
    for own, level in ((True, 0), (False, 2)):
        golds = [g] if own else [h for h, gold in enumerate(document.gold)
                                 if gold != document.gold[g]]
        listing = _listing(document, golds, not own)
        value, k = nearest(span, (mention for _, _, mention in listing), document.find)
        if value < 1:
            return Verdict(LEVELS[level + (listing[k][1] != record.role)][value != 0],
                           *listing[k])
    return None


def _classify(document: Prepared, entries: tuple[Entry, ...], record: Unaligned,
              counted: Counted) -> Verdict:
    """Walk the pairs whose predicted template equals the mention's in content; the first that
    settles it decides; each that does not counts a Spurious_Role_Filler."""
    role = document.roles[record.role]
    template = document.predicted[record.template]
    for p, g in entries:
        if p is None or document.predicted[p] != template:
            continue
        settled = None if g is None else _settle(document, g, record)
        if settled is not None:
            counted.mark(role, settled.category)
            return settled
        counted.mark(role, SPURIOUS_FILLER)
    return Verdict(SPURIOUS_FILLER)


def _cancel(document: Prepared, counted: Counted) -> None:
    """A role error cancels every missing filler of its target role whose entity's first
    mention is the filler (or, partial, the gold mention it matched)."""
    keys: set[tuple[int | None, str | None]] = set()
    for record, verdict in zip(counted.unaligned, counted.verdicts, strict=True):
        if verdict.category == WITHIN:
            keys.add((verdict.role, record.mention))
        elif verdict.category == WITHIN_PARTIAL:
            keys.add((verdict.role, verdict.mention))
    if not keys:
        return
    for missing in counted.missing:
        first = document.gold[missing.gold].roles[missing.role][missing.entity][0]
        if (missing.role, first) in keys:
            role = document.roles[missing.role]
            counted.mark(role, MISSING_FILLER, -1)
            counted.cancelled[role] += 1
            counted.cancelled_records.add(missing)
