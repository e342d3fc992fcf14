"""Score reports: the 1992 text layouts, byte for byte, and JSON / CSV of the same tallies.

Text layouts (SCORER-SPEC §10, §11; the 1992 manual, "Examining scoring
reports"):

* ``template`` — the verbose report the official TST3 scores were printed
  in: one section per catalog entry (key/response pair), then the summary;
* ``summary`` — the header and the summary only (the 1992 ``s`` command);
* ``message`` — one section per message, then the summary with the
  ``TEXT FILTERING`` row (the 1992 ``C-u l`` command).

Machine-readable output (:func:`scores_to_json`, :func:`scores_to_csv`)
carries the same tallies for one or several systems, with the 1992 integer
measures and unrounded floats side by side.

>>> from muceval.core.model import Configuration, SlotSpec, SlotType
>>> from muceval.core.tallies import PairScore, Tally, TemplateStatus
>>> cfg = Configuration(slots=(SlotSpec("message-id", "0.", SlotType.MESSAGE_ID),
...     SlotSpec("template-id", "1.", SlotType.TEMPLATE_ID), SlotSpec("s", "2.", SlotType.STRING)))
>>> hit = PairScore("M-1", "1", "1", TemplateStatus.MATCHED, Tally(1, 1, 1), (("s", Tally(1, 1, 1)),))
>>> print(format_report([hit], cfg, layout="summary").splitlines()[-1].split())
['F-MEASURES', '100.0', '100.0', '100.0']
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from muceval.core.metrics import (
    F_WEIGHTS,
    MEASURE_NAMES,
    FloatScores,
    Scores,
    f_measures_1992,
    format_f,
    scores,
    text_filtering_scores,
)
from muceval.core.model import Configuration, DisplayType
from muceval.core.tallies import (
    MANNERS,
    TALLY_FIELDS,
    Accumulator,
    Accumulators,
    PairScore,
    SlotLayout,
    Summary,
    Tally,
    TemplateStatus,
    TextFiltering,
    sum_tallies,
    summarize,
)
from muceval.errors import UsageError

__all__ = [
    "CSV_COLUMNS",
    "FORMAT_VERSION",
    "LAYOUTS",
    "format_report",
    "pad",
    "scores_to_csv",
    "scores_to_json",
    "system_name",
]

LAYOUTS: tuple[str, ...] = ("template", "summary", "message")

FORMAT_VERSION = 1
"""Version of the JSON and CSV schemas written by :func:`scores_to_json` / :func:`scores_to_csv`."""

# ---------------------------------------------------------------------------
# Layout primitives (§10.1, §10.3)
# ---------------------------------------------------------------------------

_HEADING = "  POS ACT|COR PAR INC|ICR IPA|SPU MIS NON|REC PRE OVG FAL"
_RULE = "-" * 29 + "+" + "-" * 11 + "+" + "-" * 7 + "+" + "-" * 11 + "+" + "-" * 15
_NAME_WIDTH = 20
_NOT_AVAILABLE = "F-MEASURES not available, Recall or Precision Nil"

_MANNER_LABELS: dict[DisplayType, str] = {
    DisplayType.MATCHED_MISSING: "MATCHED/MISSING",
    DisplayType.MATCHED_SPURIOUS: "MATCHED/SPURIOUS",
    DisplayType.MATCHED_ONLY: "MATCHED ONLY",
    DisplayType.ALL_TEMPLATES: "ALL TEMPLATES",
}

_STATUS_TAGS: dict[TemplateStatus, str] = {
    TemplateStatus.MATCHED: " ",
    TemplateStatus.MISSING: "[missing]",
    TemplateStatus.SPURIOUS: "[spurious]",
    TemplateStatus.OPTIONAL: "[optional]",
    TemplateStatus.IRRELEVANT: "[irrelevant]",
    TemplateStatus.IGNORED: "[ignored]",
}


def _column(text: str) -> int:
    """Display column after ``text`` (tabs to multiples of 8), counted from its last newline."""
    col = 0
    for ch in text[text.rfind("\n") + 1 :]:
        col = (col // 8 + 1) * 8 if ch == "\t" else col + 1
    return col


def pad(line: str, col: int) -> str:
    """Pad ``line`` to display column ``col`` as the 1992 report did (§10.1).

    As many TABs as fit without passing ``col``, then spaces; nothing if the
    line already reaches ``col``.

    >>> pad("inc-loc", 20), pad("phys-tgt-total-num", 20), pad("x" * 25, 20)
    ('inc-loc\\t\\t    ', 'phys-tgt-total-num  ', 'xxxxxxxxxxxxxxxxxxxxxxxxx')
    """
    cur = _column(line)
    if cur >= col:
        return line
    out = [line]
    while (cur // 8 + 1) * 8 <= col:
        out.append("\t")
        cur = (cur // 8 + 1) * 8
    out.append(" " * (col - cur))
    return "".join(out)


def _measure(value: int | None, blank: bool = False) -> str:
    if blank:
        return "    "
    return "  * " if value is None else f"{value:3d} "


def _row(name: str, tally: Tally, *, fal: bool, terse: bool = False) -> str:
    """One tally row (§10.3). ``terse`` blanks perfect measures (``:report-verbose`` nil)."""
    t = tally
    s = scores(t)
    line = (
        pad(name, _NAME_WIDTH)
        + f" {t.pos:4d} {t.act:3d}|{t.cor:3d} {t.par:3d} {t.inc:3d}|{t.icr:3d} {t.ipa:3d}|"
        + f"{t.spu:3d} {t.mis:3d} {t.non:3d}|"
        + _measure(s.rec, terse and s.rec == 100)
        + _measure(s.pre, terse and s.pre == 100)
        + _measure(s.ovg, terse and s.ovg in (0, None))
    )
    if fal:
        line += _measure(s.fal, terse and s.fal in (0, None))
    return line


def _text_filtering_row(filtering: TextFiltering) -> str:
    """The TEXT FILTERING row (§11): no PAR/INC/ICR/IPA columns, measures never ``*``."""
    t = filtering.tally()
    s = text_filtering_scores(filtering)
    return (
        pad("TEXT FILTERING", _NAME_WIDTH)
        + f" {t.pos:4d} {t.act:3d}|{t.cor:3d}   *   *|  *   *|{t.spu:3d} {t.mis:3d} {t.non:3d}|"
        + "".join(_measure(v) for v in (s.rec, s.pre, s.ovg, s.fal))
    )


def _f_measure_lines(total: Tally) -> list[str]:
    s = scores(total)
    values = f_measures_1992(s.rec, s.pre)
    if values is None:
        return [_NOT_AVAILABLE]
    return [
        _RULE,
        pad("", 50) + "   P&R      2P&R      P&2R",
        pad("F-MEASURES", 48) + " ".join(f"{format_f(v):>9}" for v in values),
    ]


# ---------------------------------------------------------------------------
# The 1992 report
# ---------------------------------------------------------------------------


def _header(config: Configuration, label: str) -> list[str]:
    lines = [f"Configuration: {label}", ""]
    if config.score_irrelevant:
        lines += ["Incorrect irrelevant response templates are scored.", ""]
    if config.disable_edit:
        lines += ["Buffer editing is disabled.", ""]
    lines += [f"Report of {config.display_type.value} scores", ""]
    return lines


def _id_line(pair: PairScore) -> str:
    key = "<NONE>" if pair.key_id is None else pair.key_id
    response = "<NONE>" if pair.response_id is None else pair.response_id
    tag = _STATUS_TAGS[pair.status]
    line = pad(pair.message_id, _NAME_WIDTH) + f" key: {key}  response: {response}"
    return pad(line, 79 - len(tag)) + tag


def _pair_section(pair: PairScore, summary: Summary, config: Configuration) -> list[str]:
    """One per-template section of the verbose report (§10.4), form feed included."""
    lines = [_id_line(pair)]
    if pair.status in (TemplateStatus.IRRELEVANT, TemplateStatus.IGNORED):
        return lines + ["\f"]
    lines += ["", pad("SLOT", _NAME_WIDTH) + _HEADING, _RULE]
    if not pair.scored:
        # An optional key without any response template: the lone template-id
        # row carries a FAL column in the 1992 output.
        fal = pair.status is TemplateStatus.OPTIONAL
        return lines + [_row("template-id", pair.template_id, fal=fal), "\f"]
    layout = summary.layout
    set_slots = set(layout.set_slots)
    terse = not config.report_verbose
    lines.append(_row("template-id", pair.template_id, fal=False))
    tallies = dict(pair.slots)
    for name, tally in pair.slots:
        lines.append(_row(name, tally, fal=name in set_slots, terse=terse))
    lines.append(_RULE)
    for row in layout.subtotals:
        lines.append(
            _row(row.name, sum_tallies(tallies.get(s, Tally()) for s in row.slot_ids), fal=False)
        )
    lines += [_RULE, _row("TOTAL", sum_tallies(t for _, t in pair.slots), fal=False), "\f"]
    return lines


def _accumulator_rows(template_row: Tally, acc: Accumulator, summary: Summary) -> list[str]:
    """Template-id row, slot rows, rule and subtotal rows of a summary block."""
    set_slots = set(summary.layout.set_slots)
    lines = [_row("template-id", template_row, fal=False)]
    lines += [_row(name, tally, fal=name in set_slots) for name, tally in acc.slots]
    lines.append(_RULE)
    lines += [_row(name, tally, fal=False) for name, tally in acc.subtotals]
    lines.append(_RULE)
    return lines


def _summary_block(summary: Summary, *, text_filtering: bool) -> list[str]:
    """The final TOTAL SLOT SCORES block (§10.5, §11)."""
    accs = summary.accumulators
    lines = [" * * * TOTAL SLOT SCORES * * *", "", pad("SLOT", _NAME_WIDTH) + _HEADING, _RULE]
    lines += _accumulator_rows(accs.all_templates.template_id, summary.display, summary)
    lines += [_row(_MANNER_LABELS[m], accs.get(m).total, fal=False) for m in MANNERS]
    # SET FILLS ONLY and STRING FILLS ONLY always come from MATCHED/MISSING (§8.4).
    lines.append(_row("SET FILLS ONLY", accs.matched_missing.set_fills, fal=True))
    lines.append(_row("STRING FILLS ONLY", accs.matched_missing.string_fills, fal=False))
    if text_filtering:
        lines.append(_text_filtering_row(summary.text_filtering))
    lines += _f_measure_lines(accs.all_templates.total)
    return lines


def _message_sections(summary: Summary) -> list[str]:
    """Per-message sections of the message-level report (§11) [unverified layout]."""
    lines: list[str] = []
    for message in summary.messages:
        accs = message.accumulators
        lines += [message.message_id, "", pad("SLOT", _NAME_WIDTH) + _HEADING, _RULE]
        lines += _accumulator_rows(
            accs.all_templates.template_id, accs.get(summary.display_type), summary
        )
        lines += [_row(_MANNER_LABELS[m], accs.get(m).total, fal=False) for m in MANNERS]
        lines += _f_measure_lines(accs.all_templates.total)
        lines.append("\f")
    return lines


def _default_label(config: Configuration) -> str:
    """File name of the configuration (the first of ``config.source``'s `` + ``-joined files)."""
    if not config.source:
        return "config.el"
    return os.path.basename(config.source.split(" + ")[0])


def format_report(
    pairs: Iterable[PairScore],
    config: Configuration,
    *,
    layout: str = "template",
    config_label: str | None = None,
) -> str:
    """The 1992 score report of one system.

    ``pairs`` are the catalog entries in report order. ``layout`` is
    ``template`` (per-pair sections and summary, as the official TST3 reports),
    ``summary`` (summary only) or ``message`` (per-message sections, summary
    with TEXT FILTERING). ``config_label`` is printed after
    ``Configuration:``; by default the file name of ``config.source``.

    >>> from muceval.core.model import Configuration, SlotSpec, SlotType
    >>> from muceval.core.tallies import PairScore, Tally, TemplateStatus
    >>> cfg = Configuration(slots=(SlotSpec("message-id", "0.", SlotType.MESSAGE_ID),
    ...     SlotSpec("template-id", "1.", SlotType.TEMPLATE_ID)))
    >>> none = PairScore("M-2", "*", "*", TemplateStatus.IRRELEVANT, Tally(non=1))
    >>> format_report([none], cfg, config_label="c.el").split("\\n")[4:7]
    ['Report of all-templates scores', '', 'M-2\\t\\t     key: *  response: *\\t\\t\\t   [irrelevant]']
    """
    if layout not in LAYOUTS:
        raise UsageError(f"unknown report layout {layout!r} (choose from {', '.join(LAYOUTS)})")
    pairs = tuple(pairs)
    summary = summarize(pairs, config)
    label = _default_label(config) if config_label is None else config_label
    lines = _header(config, label)
    if layout == "template":
        for pair in pairs:
            lines += _pair_section(pair, summary, config)
    elif layout == "message":
        lines += _message_sections(summary)
    lines += _summary_block(summary, text_filtering=layout == "message")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# Machine-readable output
# ---------------------------------------------------------------------------


def system_name(path: str | os.PathLike[str]) -> str:
    """A system's name: its response file's name without the last suffix.

    >>> system_name("responses/BBN.tst3")
    'BBN'
    """
    return Path(path).stem


@dataclass(frozen=True, slots=True)
class _Row:
    """One labelled tally row, as in the report, for JSON and CSV."""

    name: str
    kind: str  # template-id | slot | subtotal | total | set-fills | string-fills | text-filtering
    accumulator: str | None
    tally: Tally
    fal: bool
    report: Scores | None = None  # overrides the derived 1992 measures (TEXT FILTERING)


def _scores_for(row: _Row) -> Scores:
    s = row.report if row.report is not None else scores(row.tally)
    return s if row.fal else Scores(s.rec, s.pre, s.ovg, None)


def _row_json(row: _Row) -> dict[str, Any]:
    s = _scores_for(row)
    f = FloatScores.of(row.tally)
    return {
        "row": row.name,
        "kind": row.kind,
        "accumulator": row.accumulator,
        "tallies": row.tally.as_dict(),
        "report": {"rec": s.rec, "pre": s.pre, "ovg": s.ovg, "fal": s.fal},
        "measures": {**f.as_dict(), "fallout": f.fallout if row.fal else None},
    }


def _pair_rows(pair: PairScore, summary: Summary) -> list[_Row]:
    set_slots = set(summary.layout.set_slots)
    rows = [
        _Row(
            "template-id",
            "template-id",
            None,
            pair.template_id,
            pair.status is TemplateStatus.OPTIONAL and not pair.scored,
        )
    ]
    if not pair.scored:
        return rows
    tallies = dict(pair.slots)
    rows += [_Row(n, "slot", None, t, n in set_slots) for n, t in pair.slots]
    rows += [
        _Row(
            r.name,
            "subtotal",
            None,
            sum_tallies(tallies.get(s, Tally()) for s in r.slot_ids),
            False,
        )
        for r in summary.layout.subtotals
    ]
    rows.append(_Row("TOTAL", "total", None, sum_tallies(t for _, t in pair.slots), False))
    return rows


def _accumulator_rows_data(acc: Accumulator, manner: DisplayType, summary: Summary) -> list[_Row]:
    set_slots = set(summary.layout.set_slots)
    m = manner.value
    return [
        _Row("template-id", "template-id", m, acc.template_id, False),
        *(_Row(n, "slot", m, t, n in set_slots) for n, t in acc.slots),
        *(_Row(n, "subtotal", m, t, False) for n, t in acc.subtotals),
        _Row(_MANNER_LABELS[manner], "total", m, acc.total, False),
        _Row("SET FILLS ONLY", "set-fills", m, acc.set_fills, True),
        _Row("STRING FILLS ONLY", "string-fills", m, acc.string_fills, False),
    ]


def _text_filtering_data(filtering: TextFiltering) -> _Row:
    return _Row(
        "TEXT FILTERING",
        "text-filtering",
        None,
        filtering.tally(),
        True,
        report=text_filtering_scores(filtering),
    )


def _f_json(total: Tally) -> dict[str, Any]:
    s = scores(total)
    f = FloatScores.of(total)
    report = f_measures_1992(s.rec, s.pre)
    return {
        "report": None
        if report is None
        else {label: v for (label, _, _), v in zip(F_WEIGHTS, report, strict=True)},
        "float": {"P&R": f.f_pr, "2P&R": f.f_2pr, "P&2R": f.f_p2r},
    }


def _accumulators_json(accs: Accumulators, summary: Summary) -> dict[str, Any]:
    return {
        "accumulators": {
            m.value: [_row_json(r) for r in _accumulator_rows_data(accs.get(m), m, summary)]
            for m in MANNERS
        },
        "f_measures": _f_json(accs.all_templates.total),
    }


def _report_rows_data(summary: Summary) -> list[_Row]:
    """The rows of the 1992 summary block, each from the accumulator the report uses."""
    accs = summary.accumulators
    set_slots = set(summary.layout.set_slots)
    shown = summary.display_type.value
    mm = DisplayType.MATCHED_MISSING
    return [
        _Row(
            "template-id",
            "template-id",
            DisplayType.ALL_TEMPLATES.value,
            accs.all_templates.template_id,
            False,
        ),
        *(_Row(n, "slot", shown, t, n in set_slots) for n, t in summary.display.slots),
        *(_Row(n, "subtotal", shown, t, False) for n, t in summary.display.subtotals),
        *(_Row(_MANNER_LABELS[m], "total", m.value, accs.get(m).total, False) for m in MANNERS),
        _Row("SET FILLS ONLY", "set-fills", mm.value, accs.matched_missing.set_fills, True),
        _Row(
            "STRING FILLS ONLY", "string-fills", mm.value, accs.matched_missing.string_fills, False
        ),
    ]


def _systems(systems: Mapping[str, Sequence[PairScore]]) -> dict[str, tuple[PairScore, ...]]:
    if not isinstance(systems, Mapping):
        raise TypeError("systems must map a system name to its PairScores")
    return {name: tuple(pairs) for name, pairs in systems.items()}


def _slot_class(layout: SlotLayout, slot_id: str) -> str:
    if slot_id in layout.set_slots:
        return "set"
    if slot_id in layout.string_slots:
        return "string"
    return "other"


def scores_to_json(
    systems: Mapping[str, Sequence[PairScore]],
    config: Configuration,
    *,
    config_label: str | None = None,
    indent: int | None = 1,
) -> str:
    """Every tally of every system as JSON (schema ``muceval-scores``, :data:`FORMAT_VERSION`).

    ``systems`` maps a system name (see :func:`system_name`) to its catalog
    entries in report order. Top level: ``format``, ``format_version``,
    ``configuration``, ``display_type``, ``slots`` (id and class:
    set/string/other), ``subtotal_rows`` and ``systems`` in the given order.
    Each system has ``system``; ``pairs`` (one per catalog entry: ids, status
    and the rows of its report section); ``messages`` (per message: its TEXT
    FILTERING cell ``a``-``d``, the rows of the four ``accumulators`` and
    ``f_measures``); and ``summary`` (the rows of the four ``accumulators``,
    ``report_rows`` exactly as the 1992 summary shows them, ``text_filtering``
    counts and row, ``f_measures``). A row has ``row``, ``kind``,
    ``accumulator``, ``tallies`` (POS..PIE), ``report`` (the 1992 integers;
    ``null`` for ``*`` or an unprinted column) and ``measures`` (fractions; F
    with beta 1, 0.5, 2). ``f_measures`` has ``report`` (the 1992 values from
    the rounded ALL TEMPLATES recall and precision, or ``null``) and ``float``.

    >>> from muceval.core.model import Configuration, SlotSpec, SlotType
    >>> from muceval.core.tallies import PairScore, Tally, TemplateStatus
    >>> cfg = Configuration(slots=(SlotSpec("message-id", "0.", SlotType.MESSAGE_ID),
    ...     SlotSpec("template-id", "1.", SlotType.TEMPLATE_ID), SlotSpec("s", "2.", SlotType.STRING)))
    >>> hit = PairScore("M-1", "1", "1", TemplateStatus.MATCHED, Tally(1, 1, 1), (("s", Tally(2, 2, 1, 1)),))
    >>> doc = json.loads(scores_to_json({"X": [hit]}, cfg))
    >>> doc["systems"][0]["summary"]["f_measures"]["report"]
    {'P&R': 75.0, '2P&R': 75.0, 'P&2R': 75.0}
    """
    label = _default_label(config) if config_label is None else config_label
    layout = SlotLayout.of(config)
    out_systems = []
    for name, pairs in _systems(systems).items():
        summary = summarize(pairs, config)
        tf = summary.text_filtering
        out_systems.append(
            {
                "system": name,
                "pairs": [
                    {
                        "message_id": p.message_id,
                        "key_id": p.key_id,
                        "response_id": p.response_id,
                        "status": p.status.value,
                        "rows": [_row_json(r) for r in _pair_rows(p, summary)],
                    }
                    for p in pairs
                ],
                "messages": [
                    {
                        "message_id": m.message_id,
                        "text_filtering": m.relevance.value,
                        **_accumulators_json(m.accumulators, summary),
                    }
                    for m in summary.messages
                ],
                "summary": {
                    **_accumulators_json(summary.accumulators, summary),
                    "report_rows": [_row_json(r) for r in _report_rows_data(summary)],
                    "text_filtering": {
                        "a": tf.a,
                        "b": tf.b,
                        "c": tf.c,
                        "d": tf.d,
                        "row": _row_json(_text_filtering_data(tf)),
                    },
                },
            }
        )
    doc = {
        "format": "muceval-scores",
        "format_version": FORMAT_VERSION,
        "configuration": label,
        "display_type": config.display_type.value,
        "slots": [{"slot": sid, "class": _slot_class(layout, sid)} for sid in layout.slot_ids],
        "subtotal_rows": {r.name: list(r.slot_ids) for r in layout.subtotals},
        "systems": out_systems,
    }
    return json.dumps(doc, indent=indent, ensure_ascii=False) + "\n"


CSV_COLUMNS: tuple[str, ...] = (
    "format_version",
    "system",
    "scope",
    "message_id",
    "key_id",
    "response_id",
    "status",
    "accumulator",
    "row",
    "kind",
    *TALLY_FIELDS,
    "rec",
    "pre",
    "ovg",
    "fal",
    *MEASURE_NAMES,
    "f1_1992",
    "f0.5_1992",
    "f2_1992",
)
"""Columns of :func:`scores_to_csv`, in order."""


def _csv_cells(row: _Row, *, f_report: bool) -> dict[str, Any]:
    s = _scores_for(row)
    f = FloatScores.of(row.tally)
    cells: dict[str, Any] = {
        "accumulator": row.accumulator or "",
        "row": row.name,
        "kind": row.kind,
        **row.tally.as_dict(),
        "rec": s.rec,
        "pre": s.pre,
        "ovg": s.ovg,
        "fal": s.fal,
        **f.as_dict(),
        "fallout": f.fallout if row.fal else None,
    }
    if f_report:
        values = f_measures_1992(s.rec, s.pre)
        if values is not None:
            cells.update(zip(("f1_1992", "f0.5_1992", "f2_1992"), values, strict=True))
    return {
        k: "" if v is None else (repr(v) if isinstance(v, float) else v) for k, v in cells.items()
    }


def scores_to_csv(
    systems: Mapping[str, Sequence[PairScore]],
    config: Configuration,
    *,
    config_label: str | None = None,
) -> str:
    """Every tally row of every system as one long CSV table (columns :data:`CSV_COLUMNS`).

    ``scope`` is ``pair`` (rows of one report section: ``message_id``,
    ``key_id``, ``response_id``, ``status`` set), ``message`` (rows of the four
    accumulators of one message; ``status`` holds its TEXT FILTERING cell) or
    ``summary`` (the four accumulators over all messages, then the TEXT
    FILTERING row). ``rec``..``fal`` are the 1992 integers (empty for ``*``),
    ``recall``..``f_p2r`` unrounded fractions, and ``f_*_1992`` the printed
    F-measures, given on ALL TEMPLATES total rows only. ``config_label`` is
    accepted for symmetry with the other writers; the CSV has no header block.

    >>> from muceval.core.model import Configuration, SlotSpec, SlotType
    >>> from muceval.core.tallies import PairScore, Tally, TemplateStatus
    >>> cfg = Configuration(slots=(SlotSpec("message-id", "0.", SlotType.MESSAGE_ID),
    ...     SlotSpec("template-id", "1.", SlotType.TEMPLATE_ID), SlotSpec("s", "2.", SlotType.STRING)))
    >>> hit = PairScore("M-1", "1", "1", TemplateStatus.MATCHED, Tally(1, 1, 1), (("s", Tally(2, 2, 1, 1)),))
    >>> rows = list(csv.DictReader(io.StringIO(scores_to_csv({"X": [hit]}, cfg))))
    >>> [(r["scope"], r["row"]) for r in rows[:3]]
    [('pair', 'template-id'), ('pair', 's'), ('pair', 'TOTAL')]
    """
    del config_label  # the CSV carries no configuration header
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for name, pairs in _systems(systems).items():
        summary = summarize(pairs, config)
        base = {"format_version": FORMAT_VERSION, "system": name}

        def emit(
            row: _Row,
            scope: str,
            extra: dict[str, Any],
            *,
            f_report: bool = False,
            base: dict[str, Any] = base,
        ) -> None:
            writer.writerow({**base, "scope": scope, **extra, **_csv_cells(row, f_report=f_report)})

        for p in pairs:
            ids = {
                "message_id": p.message_id,
                "key_id": "" if p.key_id is None else p.key_id,
                "response_id": "" if p.response_id is None else p.response_id,
                "status": p.status.value,
            }
            for row in _pair_rows(p, summary):
                emit(row, "pair", ids)
        for m in summary.messages:
            extra = {"message_id": m.message_id, "status": m.relevance.value}
            for manner in MANNERS:
                for row in _accumulator_rows_data(m.accumulators.get(manner), manner, summary):
                    emit(row, "message", extra, f_report=_is_all_total(row))
        for manner in MANNERS:
            for row in _accumulator_rows_data(summary.accumulators.get(manner), manner, summary):
                emit(row, "summary", {}, f_report=_is_all_total(row))
        emit(_text_filtering_data(summary.text_filtering), "summary", {})
    return buffer.getvalue()


def _is_all_total(row: _Row) -> bool:
    return row.kind == "total" and row.accumulator == DisplayType.ALL_TEMPLATES.value
