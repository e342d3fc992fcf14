"""The tally rows muceval's scores files hold, as the 1992 report prints (or would print) them,
shared by the JSON and the CSV writer, and the summary its readers build from such rows."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from muceval.core.metrics import Scores, scores, text_filtering_scores
from muceval.core.model import Configuration, DisplayType
from muceval.core.systems import MANNER_LABELS, Row, SystemScores
from muceval.core.tallies import (
    MANNERS,
    Accumulator,
    PairScore,
    Summary,
    Tally,
    TemplateStatus,
    TextFiltering,
    sum_tallies,
)

__all__ = [
    "FORMAT_VERSION",
    "TallyRow",
    "accumulator_rows",
    "configuration_label",
    "pair_rows",
    "report_rows",
    "scores_for",
    "summary_of",
    "systems_of",
    "text_filtering_row",
]

FORMAT_VERSION = 2  # of the JSON and the CSV

_MM = DisplayType.MATCHED_MISSING.value


def configuration_label(config: Configuration) -> str:
    """File name of the configuration (the first of ``config.source``'s `` + ``-joined files).

    >>> configuration_label(Configuration(slots=(), source="/x/config-tst3.el + /x/slots.el"))
    'config-tst3.el'
    """
    if not config.source:
        return "config.el"
    return os.path.basename(config.source.split(" + ")[0])


@dataclass(frozen=True, slots=True)
class TallyRow:
    """One labelled tally row, as in the report, for JSON and CSV."""

    name: str
    kind: str  # template-id | slot | subtotal | total | set-fills | string-fills | text-filtering
    accumulator: str | None
    tally: Tally
    fal: bool
    report: Scores | None = None  # overrides the derived 1992 measures (TEXT FILTERING)


def scores_for(row: TallyRow) -> Scores:
    """The 1992 integer measures of a row; no fallout where the report prints no FAL column."""
    s = row.report if row.report is not None else scores(row.tally)
    return s if row.fal else Scores(s.rec, s.pre, s.ovg, None)


def pair_rows(pair: PairScore, summary: Summary) -> list[TallyRow]:
    """The rows of one template pair's report section (only template-id if it was not scored)."""
    unscored_optional = pair.status is TemplateStatus.OPTIONAL and not pair.scored
    rows = [TallyRow("template-id", "template-id", None, pair.template_id, unscored_optional)]
    if not pair.scored:
        return rows
    set_slots = set(summary.layout.set_slots)
    tallies = dict(pair.slots)
    rows += [TallyRow(n, "slot", None, t, n in set_slots) for n, t in pair.slots]
    for r in summary.layout.subtotals:
        subtotal = sum_tallies(tallies.get(s, Tally()) for s in r.slot_ids)
        rows.append(TallyRow(r.name, "subtotal", None, subtotal, False))
    rows.append(TallyRow("TOTAL", "total", None, sum_tallies(t for _, t in pair.slots), False))
    return rows


def accumulator_rows(acc: Accumulator, manner: DisplayType, summary: Summary) -> list[TallyRow]:
    """Every row of one accumulator: template-id, slots, subtotals, total, set and string fills."""
    set_slots = set(summary.layout.set_slots)
    m = manner.value
    return [
        TallyRow("template-id", "template-id", m, acc.template_id, False),
        *(TallyRow(n, "slot", m, t, n in set_slots) for n, t in acc.slots),
        *(TallyRow(n, "subtotal", m, t, False) for n, t in acc.subtotals),
        TallyRow(MANNER_LABELS[manner.value], "total", m, acc.total, False),
        TallyRow("SET FILLS ONLY", "set-fills", m, acc.set_fills, True),
        TallyRow("STRING FILLS ONLY", "string-fills", m, acc.string_fills, False),
    ]


def text_filtering_row(filtering: TextFiltering) -> TallyRow:
    """The TEXT FILTERING row, with its own 1992 measures."""
    report = text_filtering_scores(filtering)
    return TallyRow("TEXT FILTERING", "text-filtering", None, filtering.tally(), True, report)


def report_rows(summary: Summary) -> list[TallyRow]:
    """The rows of the 1992 summary block, each from the accumulator the report uses."""
    accs = summary.accumulators
    set_slots = set(summary.layout.set_slots)
    shown = summary.display_type.value
    everything, mm = DisplayType.ALL_TEMPLATES.value, accs.matched_missing
    return [
        TallyRow("template-id", "template-id", everything, accs.all_templates.template_id, False),
        *(TallyRow(n, "slot", shown, t, n in set_slots) for n, t in summary.display.slots),
        *(TallyRow(n, "subtotal", shown, t, False) for n, t in summary.display.subtotals),
        *(TallyRow(MANNER_LABELS[m.value], "total", m.value, accs.get(m).total, False)
          for m in MANNERS),
        TallyRow("SET FILLS ONLY", "set-fills", _MM, mm.set_fills, True),
        TallyRow("STRING FILLS ONLY", "string-fills", _MM, mm.string_fills, False),
    ]


def summary_of(name: str, source: str, origin: str, all_templates: Tally,
               rows: Mapping[str, Sequence[Row]],
               f_1992: tuple[float, float, float] | None) -> SystemScores:
    """A system's summary from its rows by kind: ``slot``, ``subtotal``, ``total``, ``fills``."""
    return SystemScores(name, source, origin, Row.of("ALL TEMPLATES", "total", all_templates),
                        tuple(rows["total"]), tuple(rows["slot"]),
                        (*rows["subtotal"], *rows["total"], *rows["fills"]), f_1992)


def systems_of(systems: Mapping[str, Sequence[PairScore]]) -> dict[str, tuple[PairScore, ...]]:
    """The systems to write, name → catalog entries; anything but a mapping is a TypeError."""
    if not isinstance(systems, Mapping):
        raise TypeError("systems must map a system name to its PairScores")
    return {name: tuple(pairs) for name, pairs in systems.items()}
