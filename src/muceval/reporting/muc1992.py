"""The 1992 text score reports, byte for byte (SCORER-SPEC §10, §11).

>>> from muceval.core.model import Configuration, SlotSpec, SlotType
>>> from muceval.core.tallies import PairScore, Tally, TemplateStatus
>>> cfg = Configuration(slots=(SlotSpec("message-id", "0.", SlotType.MESSAGE_ID),
...     SlotSpec("template-id", "1.", SlotType.TEMPLATE_ID), SlotSpec("s", "2.", SlotType.STRING)))
>>> hit = PairScore("M-1", "1", "1", TemplateStatus.MATCHED, Tally(1, 1, 1), (("s", Tally(1, 1, 1)),))
>>> print(format_report([hit], cfg, layout="summary").splitlines()[-1].split())
['F-MEASURES', '100.0', '100.0', '100.0']
"""

from __future__ import annotations

from collections.abc import Iterable

from muceval.core.metrics import f_measures_1992, format_f, scores, text_filtering_scores
from muceval.core.model import Configuration
from muceval.core.systems import MANNER_LABELS
from muceval.core.tallies import (
    MANNERS,
    Accumulator,
    Accumulators,
    PairScore,
    Summary,
    Tally,
    TemplateStatus,
    TextFiltering,
    sum_tallies,
    summarize,
)
from muceval.errors import UsageError
from muceval.formats.scores.rows import configuration_label

__all__ = ["LAYOUTS", "REPORT_FORMS", "format_report", "pad"]

REPORT_FORMS: tuple[str, ...] = ("template", "summary", "message")
LAYOUTS = REPORT_FORMS

_HEADING = "  POS ACT|COR PAR INC|ICR IPA|SPU MIS NON|REC PRE OVG FAL"
_RULE = "-" * 29 + "+" + "-" * 11 + "+" + "-" * 7 + "+" + "-" * 11 + "+" + "-" * 15
_NAME_WIDTH = 20
_NOT_AVAILABLE = "F-MEASURES not available, Recall or Precision Nil"

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
    """Pad ``line`` to display column ``col`` as the 1992 report did (§10.1): as many TABs as
    fit without passing ``col``, then spaces.

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
    lines += [_row(name, tally, fal=name in set_slots, terse=terse) for name, tally in pair.slots]
    lines.append(_RULE)
    lines += [_row(row.name, sum_tallies(tallies.get(s, Tally()) for s in row.slot_ids),
                   fal=False) for row in layout.subtotals]
    lines += [_RULE, _row("TOTAL", sum_tallies(t for _, t in pair.slots), fal=False), "\f"]
    return lines


def _accumulator_rows(accs: Accumulators, acc: Accumulator, summary: Summary) -> list[str]:
    set_slots = set(summary.layout.set_slots)
    lines = [pad("SLOT", _NAME_WIDTH) + _HEADING, _RULE,
             _row("template-id", accs.all_templates.template_id, fal=False)]
    lines += [_row(name, tally, fal=name in set_slots) for name, tally in acc.slots]
    lines.append(_RULE)
    lines += [_row(name, tally, fal=False) for name, tally in acc.subtotals]
    lines.append(_RULE)
    lines += [_row(MANNER_LABELS[m.value], accs.get(m).total, fal=False) for m in MANNERS]
    return lines


def _summary_block(summary: Summary, *, text_filtering: bool) -> list[str]:
    """The final TOTAL SLOT SCORES block (§10.5, §11)."""
    accs = summary.accumulators
    lines = [" * * * TOTAL SLOT SCORES * * *", "",
             *_accumulator_rows(accs, summary.display, summary)]
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
        lines += [message.message_id, "",
                  *_accumulator_rows(accs, accs.get(summary.display_type), summary)]
        lines += _f_measure_lines(accs.all_templates.total)
        lines.append("\f")
    return lines


def format_report(
    pairs: Iterable[PairScore],
    config: Configuration,
    *,
    layout: str = "template",
    config_label: str | None = None,
) -> str:
    """The 1992 score report of one system, tabs included, as the MUC-4 Scoring System printed
    it; the F-measures are computed as in 1992 from the rounded recall and precision.

    Parameters
    ----------
    pairs : iterable of PairScore
        The system's catalog entries in report order.
    layout : {'template', 'summary', 'message'}, default 'template'
        A section per key/response pair then the summary (the official TST3 reports); the
        summary only (the 1992 ``s`` command); or a section per message, then the summary
        with the TEXT FILTERING row (the 1992 ``C-u l`` command).
    config_label : str or None, default None
        Printed after ``Configuration:``; None: the file name of ``config.source``.

    Raises
    ------
    UsageError
        If ``layout`` is unknown.
    ValueError
        If an entry scores a slot that is not a scored slot of ``config``.

    Examples
    --------
    >>> import muceval
    >>> from importlib.resources import files
    >>> example = files("muceval") / "data" / "example"
    >>> config = muceval.load_configuration(example / "config.toml")
    >>> session = muceval.score_files(config, example / "key.txt", [example / "alpha.txt"],
    ...                               history_path=example / "history.lisp")
    >>> text = muceval.format_report(session.systems["alpha"], config, layout="summary")
    >>> lines = text.splitlines()
    >>> lines[0]
    'Configuration: config.toml'
    >>> print(*next(line for line in lines if line.startswith("ALL TEMPLATES")).split())
    ALL TEMPLATES 91 98| 81 3 4| 0 2| 10 3 32| 91 84 10
    >>> lines[-1].split()
    ['F-MEASURES', '87.36', '85.31', '89.51']

    >>> from muceval.core.model import Configuration, SlotSpec, SlotType
    >>> from muceval.core.tallies import PairScore, Tally, TemplateStatus
    >>> cfg = Configuration(slots=(SlotSpec("message-id", "0.", SlotType.MESSAGE_ID),
    ...     SlotSpec("template-id", "1.", SlotType.TEMPLATE_ID)))
    >>> none = PairScore("M-2", "*", "*", TemplateStatus.IRRELEVANT, Tally(non=1))
    >>> format_report([none], cfg, config_label="c.el").split("\\n")[4:7]
    ['Report of all-templates scores', '', 'M-2\\t\\t     key: *  response: *\\t\\t\\t   [irrelevant]']
    """
    if layout not in REPORT_FORMS:
        raise UsageError(f"unknown report layout {layout!r} (choose from "
                         f"{', '.join(REPORT_FORMS)})", parameter="layout")
    pairs = tuple(pairs)
    summary = summarize(pairs, config)
    label = configuration_label(config) if config_label is None else config_label
    lines = _header(config, label)
    if layout == "template":
        for pair in pairs:
            lines += _pair_section(pair, summary, config)
    elif layout == "message":
        lines += _message_sections(summary)
    lines += _summary_block(summary, text_filtering=layout == "message")
    return "\n".join(lines) + "\n"
