"""Slot tallies, the eleven counts the 1992 scorer keeps for every scored slot, and their sums:
rows, template totals, subtotals and the four summary accumulators."""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum, IntEnum, StrEnum
from functools import cached_property
from typing import TYPE_CHECKING, cast

from muceval.core.model import IRRELEVANT_ID, Configuration, DisplayType, SubtotalRow

if TYPE_CHECKING:
    import numpy as np


class Col(IntEnum):
    """Positions of the tally columns in a slot's list of 11 counts."""

    POS = 0
    ACT = 1
    COR = 2
    PAR = 3
    INC = 4
    ICR = 5
    IPA = 6
    SPU = 7
    MIS = 8
    NON = 9
    PIE = 10


TALLY_FIELDS: tuple[str, ...] = tuple(column.name.lower() for column in Col)

_COUNTS = operator.attrgetter(*TALLY_FIELDS)
"""A tally's counts in column order, read in one call (sums of tallies are on hot paths)."""


@dataclass(frozen=True, slots=True)
class Tally:
    """The eleven counts the 1992 scorer keeps for a slot (or a sum of slots), in its column order.

    Every fill gets one category: correct, partial, incorrect (key and response filled, not
    matching), missing (key filled, response empty), spurious (response filled, key empty) or
    noncommittal (both empty). Tallies add up (``+``, :meth:`total`); :func:`float_scores`
    derives the measures.

    Attributes
    ----------
    pos, act : int, default 0
        Possible (COR + PAR + INC + MIS) and actual (COR + PAR + INC + SPU) fills.
    cor, par, inc, spu, mis, non : int, default 0
        The fills of each category (COR with ICR, PAR with IPA; a partial earns half credit).
    icr, ipa : int, default 0
        Fills judged correct and partially correct by a person (now or in the history).
    pie : int, default 0
        Possible incorrect elements, the fallout denominator (set-fill slots only).

    Examples
    --------
    >>> from muceval import Tally, float_scores
    >>> Tally(pos=1, act=1, cor=1) + Tally(pos=1, mis=1)
    Tally(pos=2, act=1, cor=1, par=0, inc=0, icr=0, ipa=0, spu=0, mis=1, non=0, pie=0)
    >>> total = Tally.total([Tally(pos=2, act=2, cor=1, par=1), Tally(pos=2, act=1, inc=1, mis=1)])
    >>> total.pos, total.act, float_scores(total).recall
    (4, 3, 0.375)
    """

    pos: int = 0
    act: int = 0
    cor: int = 0
    par: int = 0
    inc: int = 0
    icr: int = 0
    ipa: int = 0
    spu: int = 0
    mis: int = 0
    non: int = 0
    pie: int = 0

    def __add__(self, other: Tally) -> Tally:
        if not isinstance(other, Tally):
            return NotImplemented
        return Tally(*map(operator.add, _COUNTS(self), _COUNTS(other)))

    def __sub__(self, other: Tally) -> Tally:
        """What is left when ``other``, a part of this tally, is taken out."""
        if not isinstance(other, Tally):
            return NotImplemented
        return Tally(*map(operator.sub, _COUNTS(self), _COUNTS(other)))

    def __reduce__(self) -> tuple[type[Tally], tuple[int, ...]]:
        # Pickled as its counts: half the time of the dataclass's field-by-field state, for
        # the pair scores a forked process sends back.
        return Tally, _COUNTS(self)

    def as_tuple(self) -> tuple[int, ...]:
        """The eleven counts in column order."""
        counts: tuple[int, ...] = _COUNTS(self)
        return counts

    def as_dict(self) -> dict[str, int]:
        """The counts by their lower-case names, in column order."""
        return {name: getattr(self, name) for name in TALLY_FIELDS}

    @classmethod
    def total(cls, tallies: Iterable[Tally]) -> Tally:
        """The sum of ``tallies``: :func:`sum_tallies`."""
        return sum_tallies(tallies)


ZERO = Tally()


def _named(rows: Iterable[tuple[str, Tally]], name: str) -> Tally:
    for row, tally in rows:
        if row == name:
            return tally
    raise KeyError(name)


class TemplateStatus(str, Enum):
    """How a catalog entry (key/response pair) was treated (SCORER-SPEC §8.1)."""

    MATCHED = "matched"
    MISSING = "missing"
    SPURIOUS = "spurious"
    OPTIONAL = "optional"
    IRRELEVANT = "irrelevant"
    IGNORED = "ignored"


@dataclass(frozen=True, slots=True)
class FillCredit:
    """What one key fill, or one response fill credited against none, added to a slot's tally.

    Recorded for the fill units when asked (``ScoringOptions.fills``); fills are in the
    scorer's normal form, ``key`` None for a spurious ``response``.
    """

    slot_id: str
    key: str | None
    response: str | None
    pos: int
    act: int
    cor: int
    par: int


@dataclass(frozen=True, slots=True)
class PairScore:
    """The tallies of one key/response pairing: one section of the 1992 report.

    :meth:`Scorer.score` gives one per catalog entry (a mapped pair, an unmapped key or
    response template), in report order; :func:`summarize` adds them up by their status.

    Attributes
    ----------
    message_id : str
    key_id, response_id : str or None
        The template ids: None where the report prints ``<NONE>``, ``'*'`` if irrelevant.
    status : TemplateStatus
        ``optional``: an optional template left unmatched (it counts nowhere); ``irrelevant``:
        nothing relevant on either side (NON 1 in the template-id row, for ALL TEMPLATES
        only); ``ignored``: an irrelevant message the configuration does not score.
    template_id : Tally
        The template-id row, which never enters a total.
    slots : tuple of (str, Tally), default ()
        Each content slot's tally in configuration order; empty if not scored slot by slot.
    fills : tuple of FillCredit, default ()
        Every scored fill's credit, when asked for.

    Examples
    --------
    >>> import muceval
    >>> from importlib.resources import files
    >>> example = files("muceval") / "data" / "example"
    >>> config = muceval.load_configuration(example / "config.toml")
    >>> key = muceval.read_templates(example / "key.txt", config)
    >>> gamma = muceval.read_templates(example / "gamma.txt", config)
    >>> pairs = muceval.Scorer(config).score(key, gamma).pairs
    >>> [(p.message_id, p.key_id, p.response_id, p.status.value) for p in pairs[:3]]
    [('DEMO-0001', '1', '1', 'matched'), ('DEMO-0002', '*', '*', 'irrelevant'), \
('DEMO-0003', '1', '1', 'matched')]
    >>> pairs[0].scored, pairs[1].scored
    (True, False)
    >>> pairs[0].slot("hum-tgt-desc")  # the key has a description, gamma gave none
    Tally(pos=1, act=0, cor=0, par=0, inc=0, icr=0, ipa=0, spu=0, mis=1, non=0, pie=0)
    """

    message_id: str
    key_id: str | None
    response_id: str | None
    status: TemplateStatus
    template_id: Tally
    slots: tuple[tuple[str, Tally], ...] = ()
    fills: tuple[FillCredit, ...] = ()

    @property
    def scored(self) -> bool:
        return bool(self.slots)

    def slot(self, slot_id: str) -> Tally:
        """The tally of one content slot; ``KeyError`` if the entry does not score it."""
        return _named(self.slots, slot_id)

    def total(self) -> Tally:
        """Sum over the content slots (the template-id row never enters totals)."""
        return Tally.total(t for _, t in self.slots)


# Which of the four manners of treating unmapped templates receive an entry of a given status
# (§8.4): irrelevant entries only add their template-id tallies (NON 1) to ALL TEMPLATES.
_MANNERS_OF_STATUS: dict[TemplateStatus, tuple[DisplayType, ...]] = {
    TemplateStatus.MATCHED: (DisplayType.MATCHED_ONLY, DisplayType.MATCHED_MISSING,
                             DisplayType.MATCHED_SPURIOUS, DisplayType.ALL_TEMPLATES),
    TemplateStatus.MISSING: (DisplayType.MATCHED_MISSING, DisplayType.ALL_TEMPLATES),
    TemplateStatus.SPURIOUS: (DisplayType.MATCHED_SPURIOUS, DisplayType.ALL_TEMPLATES),
    TemplateStatus.IRRELEVANT: (DisplayType.ALL_TEMPLATES,),
    TemplateStatus.OPTIONAL: (),
    TemplateStatus.IGNORED: (),
}

MANNERS: tuple[DisplayType, ...] = (
    DisplayType.MATCHED_MISSING,
    DisplayType.MATCHED_SPURIOUS,
    DisplayType.MATCHED_ONLY,
    DisplayType.ALL_TEMPLATES,
)
"""The four manners in the order of the report's summary-total rows."""


def manners_of(status: TemplateStatus) -> tuple[DisplayType, ...]:
    """The accumulators that an entry with ``status`` is added to (§8.4).

    >>> [m.value for m in manners_of(TemplateStatus.MISSING)]
    ['matched-missing', 'all-templates']
    """
    return _MANNERS_OF_STATUS[status]


@dataclass(frozen=True, slots=True)
class SlotLayout:
    """Which rows a summary has (the scored content slots in report order, the subtotals of
    their scored members), read once from the configuration.

    >>> from muceval.core.model import Configuration, SlotSpec, SlotType
    >>> cfg = Configuration(slots=(SlotSpec("message-id", "0.", SlotType.MESSAGE_ID),
    ...     SlotSpec("template-id", "1.", SlotType.TEMPLATE_ID), SlotSpec("t", "2.", SlotType.SET)))
    >>> SlotLayout.of(cfg).set_slots
    ('t',)
    """

    slot_ids: tuple[str, ...]
    subtotals: tuple[SubtotalRow, ...]
    set_slots: tuple[str, ...]
    string_slots: tuple[str, ...]

    @classmethod
    def of(cls, config: Configuration) -> SlotLayout:
        scored = None if config.scored_slots is None else set(config.scored_slots)
        specs = [s for s in config.content_slots if scored is None or s.slot_id in scored]
        ids = tuple(s.slot_id for s in specs)
        known = set(ids)
        return cls(
            slot_ids=ids,
            subtotals=tuple(
                SubtotalRow(row.name, tuple(sid for sid in row.slot_ids if sid in known))
                for row in config.subtotal_rows
            ),
            set_slots=tuple(s.slot_id for s in specs if s.is_set_fill),
            string_slots=tuple(s.slot_id for s in specs if s.is_string_fill),
        )


@dataclass(frozen=True, slots=True)
class Accumulator:
    """Tallies summed over the entries of one manner (§8.4), row by row: ``total`` sums the
    content slots (never the template-id row, §8.3)."""

    template_id: Tally
    slots: tuple[tuple[str, Tally], ...]
    subtotals: tuple[tuple[str, Tally], ...]
    total: Tally
    set_fills: Tally
    string_fills: Tally
    entries: int = 0

    def slot(self, slot_id: str) -> Tally:
        return _named(self.slots, slot_id)

    def subtotal(self, name: str) -> Tally:
        return _named(self.subtotals, name)


@dataclass(frozen=True, slots=True)
class Accumulators:
    """The four accumulators MATCHED ONLY, MATCHED/MISSING, MATCHED/SPURIOUS, ALL TEMPLATES."""

    matched_only: Accumulator
    matched_missing: Accumulator
    matched_spurious: Accumulator
    all_templates: Accumulator

    def get(self, manner: DisplayType) -> Accumulator:
        return cast(Accumulator, getattr(self, manner.name.lower()))


def sum_tallies(tallies: Iterable[Tally]) -> Tally:
    """The column sums of ``tallies`` (all zeros for none).

    >>> sum_tallies([Tally(pos=1, cor=1), Tally(pos=2, mis=2)])
    Tally(pos=3, act=0, cor=1, par=0, inc=0, icr=0, ipa=0, spu=0, mis=2, non=0, pie=0)
    """
    return Tally(*map(sum, zip(*map(_COUNTS, tallies), strict=True)))


def _pair_matrix(pairs: Sequence[PairScore], layout: SlotLayout) -> np.ndarray:
    """All tallies of ``pairs`` as an array (pairs, template id + the layout's slots, 11).

    Every accumulator sums masked slices of it: a Python loop over (pair, slot, column) made
    summaries the slowest part of scoring.
    """
    import numpy as np  # imported here: scoring modern files needs no NumPy

    index = {sid: n + 1 for n, sid in enumerate(layout.slot_ids)}
    width = 1 + len(layout.slot_ids)
    size = len(TALLY_FIELDS)
    flat = [0] * (len(pairs) * width * size)
    for p, pair in enumerate(pairs):
        base = p * width * size
        flat[base : base + size] = _COUNTS(pair.template_id)
        for name, tally in pair.slots:
            row = index.get(name)
            if row is None:
                raise ValueError(
                    f"{pair.message_id}: slot {name!r} of key {pair.key_id} / response "
                    f"{pair.response_id} is not a scored slot of the configuration"
                )
            at = base + row * size
            flat[at : at + size] = _COUNTS(tally)
    return np.array(flat, dtype=np.int64).reshape(len(pairs), width, size)


def _derived_rows(layout: SlotLayout) -> np.ndarray:
    """0/1 matrix mapping (template id, slots...) rows to (subtotals..., total, set, string)."""
    import numpy as np
    position = {sid: n + 1 for n, sid in enumerate(layout.slot_ids)}
    groups = [row.slot_ids for row in layout.subtotals]
    groups += [layout.slot_ids, layout.set_slots, layout.string_slots]
    matrix = np.zeros((len(groups), 1 + len(layout.slot_ids)), dtype=np.int64)
    for g, slot_ids in enumerate(groups):
        for sid in slot_ids:
            matrix[g, position[sid]] = 1
    return matrix


def _freeze(sums: np.ndarray, layout: SlotLayout, entries: int, derived: np.ndarray) -> Accumulator:
    """An :class:`Accumulator` from summed rows (template id, then the layout's slots)."""
    rows = sums.tolist()
    *subtotals, total, set_fills, string_fills = (derived @ sums).tolist()
    return Accumulator(
        template_id=Tally(*rows[0]),
        slots=tuple((sid, Tally(*rows[n + 1])) for n, sid in enumerate(layout.slot_ids)),
        subtotals=tuple(
            (row.name, Tally(*values)) for row, values in zip(layout.subtotals, subtotals, strict=True)
        ),
        total=Tally(*total),
        set_fills=Tally(*set_fills),
        string_fills=Tally(*string_fills),
        entries=entries,
    )


def _accumulate_matrix(matrix: np.ndarray, statuses: Sequence[TemplateStatus],
                       layout: SlotLayout, derived: np.ndarray) -> Accumulators:
    import numpy as np

    frozen = {}
    for manner in MANNERS:
        mask = np.fromiter((manner in manners_of(s) for s in statuses), bool, len(statuses))
        frozen[manner.name.lower()] = _freeze(matrix[mask].sum(axis=0), layout, int(mask.sum()),
                                              derived)
    return Accumulators(**frozen)


def all_templates_total(pairs: Iterable[PairScore]) -> Tally:
    """The ALL TEMPLATES total of some catalog entries (as :func:`summarize` adds them).

    >>> hit = PairScore("M", "1", "1", TemplateStatus.MATCHED, Tally(1, 1, 1), (("s", Tally(1, 1, 1)),))
    >>> all_templates_total([hit, hit]).cor
    2
    """
    return Tally.total(p.total() for p in pairs
                       if DisplayType.ALL_TEMPLATES in _MANNERS_OF_STATUS[p.status])


class Relevance(StrEnum):
    """A message's cell of the TEXT FILTERING contingency table (§11)."""

    BOTH = "a"  # key relevant, response relevant
    RESPONSE_ONLY = "b"  # response relevant, key not
    KEY_ONLY = "c"  # key relevant, response not
    NEITHER = "d"


def _relevant(template_id: str | None) -> bool:
    return template_id is not None and template_id != IRRELEVANT_ID


def message_relevance(entries: Sequence[PairScore]) -> Relevance:
    """Fold one message's catalog entries into its TEXT FILTERING cell (§11).

    A key is optional when its entry is ``optional``, or ``irrelevant`` with a relevant key id
    (an optional message); a matched optional key gives the same cell as a non-optional one.

    >>> miss = PairScore("M", "1", None, TemplateStatus.MISSING, Tally(pos=1, mis=1))
    >>> message_relevance([miss]).value
    'c'
    """
    key_rel: str | None = None
    resp_rel = False
    for index, pair in enumerate(entries):
        if _relevant(pair.key_id):
            optional = pair.status in (TemplateStatus.OPTIONAL, TemplateStatus.IRRELEVANT)
            key_rel = "opt" if optional and (index == 0 or key_rel == "opt") else "t"
        resp_rel = resp_rel or _relevant(pair.response_id)
    if resp_rel:
        return Relevance.BOTH if key_rel else Relevance.RESPONSE_ONLY
    return Relevance.KEY_ONLY if key_rel == "t" else Relevance.NEITHER


@dataclass(frozen=True, slots=True)
class TextFiltering:
    """Counts of the relevance contingency table over messages (§11).

    >>> TextFiltering(a=8, b=2, c=5, d=2).tally()
    Tally(pos=13, act=10, cor=8, par=0, inc=0, icr=0, ipa=0, spu=2, mis=5, non=2, pie=0)
    """

    a: int = 0
    b: int = 0
    c: int = 0
    d: int = 0

    def tally(self) -> Tally:
        return Tally(
            pos=self.a + self.c,
            act=self.a + self.b,
            cor=self.a,
            spu=self.b,
            mis=self.c,
            non=self.d,
        )

    @classmethod
    def count(cls, cells: Iterable[Relevance]) -> TextFiltering:
        counts = dict.fromkeys("abcd", 0)
        for cell in cells:
            counts[cell.value] += 1
        return cls(**counts)


@dataclass(frozen=True, slots=True)
class MessageSummary:
    """The accumulators of one message and its TEXT FILTERING cell."""

    message_id: str
    accumulators: Accumulators
    relevance: Relevance
    entries: int


@dataclass(frozen=True)
class Summary:
    """Everything the summary part of a report needs (§8.4, §11); :attr:`messages` is computed
    when first asked for (most reports never need it)."""

    layout: SlotLayout
    display_type: DisplayType
    accumulators: Accumulators
    text_filtering: TextFiltering
    _pairs: tuple[PairScore, ...] = field(repr=False, compare=False)
    _matrix: np.ndarray = field(repr=False, compare=False)
    _by_message: tuple[tuple[str, tuple[int, ...]], ...] = field(repr=False, compare=False)

    @cached_property
    def messages(self) -> tuple[MessageSummary, ...]:
        derived = _derived_rows(self.layout)
        return tuple(
            MessageSummary(
                message_id=mid,
                accumulators=_accumulate_matrix(
                    self._matrix[list(rows)],
                    [self._pairs[n].status for n in rows],
                    self.layout,
                    derived,
                ),
                relevance=message_relevance([self._pairs[n] for n in rows]),
                entries=len(rows),
            )
            for mid, rows in self._by_message
        )

    @cached_property
    def message_totals(self) -> dict[str, Tally]:
        """Each message's ALL TEMPLATES total, for the significance tests and ``scores.json``:
        summed directly, without :attr:`messages`' slot tallies (1.6 s of a 17-system report)."""
        import numpy as np

        total = _derived_rows(self.layout)[len(self.layout.subtotals)]
        counted = np.fromiter((DisplayType.ALL_TEMPLATES in manners_of(p.status)
                               for p in self._pairs), bool, len(self._pairs))
        per_entry = np.einsum("s,psf->pf", total, self._matrix) * counted[:, None]
        return {mid: Tally(*per_entry[list(rows)].sum(axis=0).tolist())
                for mid, rows in self._by_message}

    @property
    def display(self) -> Accumulator:
        """The accumulator for per-slot and subtotal rows (``:display-type``)."""
        return self.accumulators.get(self.display_type)

    @property
    def all_templates(self) -> Accumulator:
        return self.accumulators.all_templates

    @property
    def matched_missing(self) -> Accumulator:
        return self.accumulators.matched_missing


def summarize(pairs: Iterable[PairScore], config: Configuration) -> Summary:
    """Accumulate a system's catalog entries (in report order) as the 1992 summary did.

    Each entry is added to the manners its status belongs to: MATCHED ONLY, MATCHED/MISSING
    (with missing templates), MATCHED/SPURIOUS (with spurious ones) and ALL TEMPLATES (all:
    the official score). ``pairs`` are as :meth:`Scorer.score` gives them, ``config`` the
    configuration they were scored with.

    Returns
    -------
    muceval.core.tallies.Summary
        ``accumulators`` (the four manners, each an :class:`Accumulator` with ``total``,
        ``slot(id)``, ``subtotal(name)``, ``set_fills`` and ``string_fills``;
        ``all_templates`` and ``matched_missing`` directly), ``display`` (the manner the display type shows per
        slot), ``text_filtering`` (:class:`TextFiltering`) and ``messages`` (per message).

    Raises
    ------
    ValueError
        If an entry scores a slot that is not a scored slot of ``config``.

    Examples
    --------
    >>> import muceval
    >>> from importlib.resources import files
    >>> example = files("muceval") / "data" / "example"
    >>> config = muceval.load_configuration(example / "config.toml")
    >>> key = muceval.read_templates(example / "key.txt", config)
    >>> gamma = muceval.read_templates(example / "gamma.txt", config)
    >>> summary = muceval.summarize(muceval.Scorer(config).score(key, gamma), config)
    >>> total = summary.all_templates.total
    >>> total.pos, total.act, total.cor, total.par, total.mis
    (80, 35, 29, 4, 45)
    >>> summary.accumulators.matched_only.total.pos, summary.text_filtering
    (61, TextFiltering(a=5, b=0, c=1, d=4))
    >>> summary.all_templates.subtotal("inc-total").pos
    28

    On entries made by hand:

    >>> from muceval.core.model import Configuration, SlotSpec, SlotType
    >>> cfg = Configuration(slots=(SlotSpec("message-id", "0.", SlotType.MESSAGE_ID),
    ...     SlotSpec("template-id", "1.", SlotType.TEMPLATE_ID), SlotSpec("s", "2.", SlotType.STRING)))
    >>> hit = PairScore("M", "1", "1", TemplateStatus.MATCHED, Tally(1, 1, 1), (("s", Tally(1, 1, 1)),))
    >>> junk = PairScore("M", None, "2", TemplateStatus.SPURIOUS, Tally(act=1, spu=1),
    ...     (("s", Tally(act=1, spu=1)),))
    >>> s = summarize([hit, junk], cfg)
    >>> s.all_templates.total.act, s.matched_missing.string_fills.act, s.text_filtering.a
    (2, 1, 1)
    """
    pairs = tuple(pairs)
    layout = SlotLayout.of(config)
    matrix = _pair_matrix(pairs, layout)
    by_message: dict[str, list[int]] = {}
    for n, pair in enumerate(pairs):
        by_message.setdefault(pair.message_id, []).append(n)
    return Summary(
        layout=layout,
        display_type=config.display_type,
        accumulators=_accumulate_matrix(matrix, [p.status for p in pairs], layout,
                                        _derived_rows(layout)),
        text_filtering=TextFiltering.count(
            message_relevance([pairs[n] for n in rows]) for rows in by_message.values()
        ),
        _pairs=pairs,
        _matrix=matrix,
        _by_message=tuple((mid, tuple(rows)) for mid, rows in by_message.items()),
    )
