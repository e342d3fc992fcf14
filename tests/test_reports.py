"""Tests of the 1992 report layouts and the JSON / CSV score output.

The main test re-renders every reference and official TST3 report from the
tallies printed in it: each section becomes a PairScore, the summary is
recomputed by ``tallies.summarize`` and the text must equal the file byte for
byte, except FAL digits of summary rows (PIE, the fallout denominator, is never
printed, so it can only be reconstructed per section).
"""

from __future__ import annotations

import csv
import functools
import io
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from muceval.core.metrics import pct, scores
from muceval.core.model import Configuration, DisplayType, SlotSpec, SlotType, SubtotalRow
from muceval.core.tallies import (
    ZERO,
    PairScore,
    Relevance,
    Tally,
    TemplateStatus,
    message_relevance,
    summarize,
)
from muceval.errors import UsageError
from muceval.formats.config import load_configuration
from muceval.formats.muc.reports import ReportRow, parse_report, read_report
from muceval.reporting.muc1992 import format_report, pad

REPORT_DIRS = ("reference-reports", "reference-reports-nohistory", "official-scores")


@pytest.fixture(scope="module")
def tst3(muc4: Path) -> Configuration:
    config = load_configuration(muc4 / "tst3" / "config-tst3.el")
    assert len(config.slots) == 25 and len(config.subtotal_rows) == 4
    return config


# ---------------------------------------------------------------------------
# Report -> PairScores
# ---------------------------------------------------------------------------

_STATUS = {
    "": TemplateStatus.MATCHED,
    "missing": TemplateStatus.MISSING,
    "spurious": TemplateStatus.SPURIOUS,
    "optional": TemplateStatus.OPTIONAL,
    "irrelevant": TemplateStatus.IRRELEVANT,
    "ignored": TemplateStatus.IGNORED,
}


@functools.cache
def _pie_for(wrong: int, fal: int) -> int:
    for pie in range(1, 100_000):
        if pct(wrong, 0, pie) == fal:
            return pie
    raise AssertionError(f"no PIE gives FAL {fal} for INC+SPU {wrong}")


def _with_pie(row: ReportRow) -> Tally:
    """The row's tally with a PIE that reproduces its printed FAL."""
    t = row.tally
    if not row.has_fal or row.fal is None:
        return t
    return Tally(*t.as_tuple()[:-1], _pie_for(t.inc + t.spu, row.fal))


def _pairs(report, config: Configuration) -> list[PairScore]:
    content = {s.slot_id for s in config.content_slots}
    out = []
    for block in report.blocks:
        status = _STATUS[block.tag]
        rows = {r.name: r for r in block.rows}
        if status is TemplateStatus.IRRELEVANT:
            template_id = Tally(non=1)
        elif status is TemplateStatus.IGNORED:
            template_id = Tally()
        else:
            template_id = rows["template-id"].tally
        slots = tuple((r.name, _with_pie(r)) for r in block.rows if r.name in content)
        out.append(
            PairScore(block.message_id, block.key_id, block.response_id, status, template_id, slots)
        )
    return out


def _mask_summary_fal(text: str, config: Configuration) -> str:
    """Blank the FAL digits of summary rows (PIE sums cannot be recovered from a report)."""
    head, sep, tail = text.partition(" * * * TOTAL SLOT SCORES * * *")
    sets = {s.slot_id for s in config.content_slots if s.is_set_fill} | {"SET FILLS ONLY"}
    lines = tail.split("\n")
    for i, line in enumerate(lines):
        name = line.split("\t")[0].split("  ")[0]
        if name in sets and line.endswith(" "):
            lines[i] = line[:-4] + "FAL "
    return head + sep + "\n".join(lines)


def _report_files(muc4: Path) -> list[Path]:
    return [f for d in REPORT_DIRS for f in sorted((muc4 / "tst3" / d).iterdir())]


@pytest.fixture(scope="module")
def tst3_reports(muc4: Path) -> list[tuple[Path, object]]:
    files = _report_files(muc4)
    return [(path, read_report(path)) for path in files]


def test_all_tst3_reports_rerender_byte_for_byte(tst3_reports, tst3):
    """All 51 TST3 reports (17 systems x 3 folders) are reproduced from their own tallies.

    Byte for byte, the Configuration line included (its text is passed in),
    except the FAL digits of summary rows, whose PIE sums are not printed.
    """
    assert len(tst3_reports) == 51
    masked_lines = 0
    for path, report in tst3_reports:
        expected = path.read_bytes().decode("latin-1")
        label = expected.split("\n", 1)[0].removeprefix("Configuration: ")
        got = format_report(_pairs(report, tst3), tst3, config_label=label)
        got_m, exp_m = _mask_summary_fal(got, tst3), _mask_summary_fal(expected, tst3)
        got_lines, exp_lines = got_m.split("\n"), exp_m.split("\n")
        for n, (a, b) in enumerate(zip(got_lines, exp_lines, strict=False)):
            assert a == b, f"{path}:{n + 1}: {a!r} != {b!r}"
        assert len(got_lines) == len(exp_lines), path
        masked_lines += sum(
            a != b for a, b in zip(got.split("\n"), expected.split("\n"), strict=False)
        )
    # Only summary FAL cells of the 11 set-fill rows and SET FILLS ONLY can differ.
    assert masked_lines <= 51 * 12


def test_default_configuration_label_is_the_config_file_name(tst3_reports, tst3):
    path, report = next((p, r) for p, r in tst3_reports if p.name == "MDC.tst3.report")
    text = format_report(_pairs(report, tst3), tst3)
    assert text.split("\n", 1)[0] == "Configuration: config-tst3.el"


def test_summary_rows_come_from_the_right_accumulators(tst3_reports, tst3):
    """Template-id from ALL, slots from the display type, SET/STRING FILLS from MATCHED/MISSING."""
    strip = lambda t: t.as_tuple()[:-1]  # noqa: E731 - PIE is not printed
    for path, report in tst3_reports:
        if path.parent.name != "official-scores":
            continue
        summary = summarize(_pairs(report, tst3), tst3)
        printed = {r.name: r.tally for r in report.summary}
        accs = summary.accumulators
        assert accs.all_templates.template_id == printed["template-id"], path
        assert strip(accs.matched_missing.total) == strip(printed["MATCHED/MISSING"])
        assert strip(accs.matched_spurious.total) == strip(printed["MATCHED/SPURIOUS"])
        assert strip(accs.matched_only.total) == strip(printed["MATCHED ONLY"])
        assert strip(accs.all_templates.total) == strip(printed["ALL TEMPLATES"])
        assert strip(accs.matched_missing.set_fills) == strip(printed["SET FILLS ONLY"])
        assert strip(accs.matched_missing.string_fills) == strip(printed["STRING FILLS ONLY"])
        for name, tally in summary.display.slots:
            assert strip(tally) == strip(printed[name]), (path, name)
    # BBN: SET FILLS ONLY ACT 339 is MATCHED/MISSING; the ALL set-fill rows sum to more (§8.4).
    bbn = next(r for p, r in tst3_reports if p.name == "BBN.tst3-pass1.nrad")
    summary = summarize(_pairs(bbn, tst3), tst3)
    assert summary.matched_missing.set_fills.act == 339
    assert summary.all_templates.set_fills.act > 339


def test_duplicated_sections_count_twice(tst3_reports, tst3):
    """The official LSI report repeats two sections; they are in its totals (§13.3)."""
    report = next(r for p, r in tst3_reports if p.name == "LSI.tst3-pass1.nrad")
    summary = summarize(_pairs(report, tst3), tst3)
    assert summary.all_templates.template_id.pos == 112


def test_summary_layout_is_tail_of_template_layout(tst3_reports, tst3):
    report = next(r for p, r in tst3_reports if p.name == "MDC.tst3.report")
    pairs = _pairs(report, tst3)
    full = format_report(pairs, tst3, config_label="x")
    short = format_report(pairs, tst3, layout="summary", config_label="x")
    head_end = full.index("TST3-MUC4-")
    assert short[:head_end] == full[:head_end]
    assert short[head_end:].startswith(" * * * TOTAL SLOT SCORES * * *\n")
    assert full.endswith(short[head_end:])
    assert "\f" not in short


def _tf_line(tf) -> str:
    def p0(n: int, d: int) -> int:
        return 0 if d == 0 else pct(n, 0, d)

    return (
        f"TEXT FILTERING\t     {tf.a + tf.c:4d} {tf.a + tf.b:3d}|{tf.a:3d}   *   *|  *   *|"
        f"{tf.b:3d} {tf.c:3d} {tf.d:3d}|"
        f"{p0(tf.a, tf.a + tf.c):3d} {p0(tf.a, tf.a + tf.b):3d} "
        f"{p0(tf.b, tf.a + tf.b):3d} {p0(tf.b, tf.b + tf.d):3d} "
    )


def test_message_layout_on_tst3(tst3_reports, tst3):
    report = next(r for p, r in tst3_reports if p.name == "BBN.tst3.report")
    pairs = _pairs(report, tst3)
    text = format_report(pairs, tst3, layout="message", config_label="x")
    summary = summarize(pairs, tst3)
    assert len(summary.messages) == len(report.message_ids()) == 100
    # One section per message, each closed by a form feed.
    sections = text.split("\f\n")
    assert len(sections) == 101
    assert sections[1].split("\n", 1)[0] == report.message_ids()[1]
    # TEXT FILTERING: every message falls in one cell; BBN answered 0004 (an
    # irrelevant message) with '*' and 0001 relevantly.
    tf = summary.text_filtering
    assert tf.a + tf.b + tf.c + tf.d == 100
    cells = {m.message_id: m.relevance for m in summary.messages}
    assert cells["TST3-MUC4-0001"] is Relevance.BOTH
    assert cells["TST3-MUC4-0004"] is Relevance.NEITHER
    assert _tf_line(tf) in text.split("\n")
    # The summary block equals the template layout's, plus the TEXT FILTERING row.
    template_summary = format_report(pairs, tst3, layout="summary", config_label="x")
    assert (
        sections[-1].replace(_tf_line(tf) + "\n", "")
        == template_summary[template_summary.index(" * * * TOTAL") :]
    )
    # Per-message sections add up to the summary.
    for manner in ("matched_only", "matched_missing", "matched_spurious", "all_templates"):
        total = Tally.total(getattr(m.accumulators, manner).total for m in summary.messages)
        assert total == getattr(summary.accumulators, manner).total


# ---------------------------------------------------------------------------
# Small synthetic configurations
# ---------------------------------------------------------------------------

CFG = Configuration(
    slots=(
        SlotSpec("message-id", "0.  MESSAGE: ID", SlotType.MESSAGE_ID),
        SlotSpec("template-id", "1.  MESSAGE: TEMPLATE", SlotType.TEMPLATE_ID),
        SlotSpec("kind", "2.  KIND", SlotType.SET),
        SlotSpec("who", "3.  WHO", SlotType.STRING),
        SlotSpec("when", "4.  WHEN", SlotType.DATE),
    ),
    subtotal_rows=(SubtotalRow("obj-total", ("kind", "who")),),
    disable_edit=True,
)
M = TemplateStatus.MATCHED
S = TemplateStatus.SPURIOUS
OPTIONAL = TemplateStatus.OPTIONAL
I_ = TemplateStatus.IRRELEVANT


def _pair(mid, key, resp, status, kind=ZERO, who=ZERO, when=ZERO, tid=None):
    template_ids = {
        M: Tally(pos=1, act=1, cor=1),
        TemplateStatus.MISSING: Tally(pos=1, mis=1),
        S: Tally(act=1, spu=1),
        I_: Tally(non=1),
        OPTIONAL: Tally(pos=1, mis=1),
    }
    slots = () if status in (OPTIONAL, I_) else (("kind", kind), ("who", who), ("when", when))
    return PairScore(mid, key, resp, status, tid or template_ids[status], slots)


HIT = _pair(
    "DEV-0001",
    "1",
    "1",
    M,
    kind=Tally(pos=1, act=1, cor=1, pie=6),
    who=Tally(pos=2, act=2, cor=1, par=1, ipa=1),
    when=Tally(non=1),
)
MISS = _pair(
    "DEV-0001",
    "2",
    None,
    TemplateStatus.MISSING,
    kind=Tally(pos=1, mis=1, pie=6),
    who=Tally(pos=1, mis=1),
    when=Tally(pos=1, mis=1),
)
JUNK = _pair(
    "DEV-0002",
    "*",
    "1",
    S,
    kind=Tally(act=1, spu=1, pie=7),
    who=Tally(act=3, spu=3),
    when=Tally(non=1),
)
NONE = _pair("DEV-0003", "*", "*", I_)
OPT = _pair("DEV-0004", "1", None, OPTIONAL)


def test_pad_primitive():
    assert pad("inc-loc", 20) == "inc-loc\t\t    "
    assert pad("phys-tgt-total-num", 20) == "phys-tgt-total-num  "
    assert pad("exactly-twenty-chars", 20) == "exactly-twenty-chars"
    assert pad("", 50) == "\t" * 6 + "  "
    assert pad("F-MEASURES", 48) == "F-MEASURES" + "\t" * 5
    assert pad("ab\t", 20) == "ab\t\t    "  # a tab already in the line counts to column 8


def _lines(text: str) -> list[str]:
    return text.split("\n")


def test_header_and_sections_layout():
    text = format_report([HIT, MISS, JUNK, NONE, OPT], CFG, config_label="my.el")
    lines = _lines(text)
    assert lines[:8] == [
        "Configuration: my.el",
        "",
        "Incorrect irrelevant response templates are scored.",
        "",
        "Buffer editing is disabled.",
        "",
        "Report of all-templates scores",
        "",
    ]
    assert lines[8] == "DEV-0001\t     key: 1  response: 1\t\t\t\t       "
    assert lines[9] == ""
    assert lines[10] == "SLOT\t\t      POS ACT|COR PAR INC|ICR IPA|SPU MIS NON|REC PRE OVG FAL"
    assert lines[11] == "-" * 29 + "+" + "-" * 11 + "+" + "-" * 7 + "+" + "-" * 11 + "+" + "-" * 15
    assert lines[12] == "template-id\t        1   1|  1   0   0|  0   0|  0   0   0|100 100   0 "
    assert lines[13] == "kind\t\t        1   1|  1   0   0|  0   0|  0   0   0|100 100   0   0 "
    assert lines[14] == "who\t\t        2   2|  1   1   0|  0   1|  0   0   0| 75  75   0 "
    assert lines[15] == "when\t\t        0   0|  0   0   0|  0   0|  0   0   1|  *   *   * "
    assert lines[16] == lines[11]
    assert lines[17] == "obj-total\t        3   3|  2   1   0|  0   1|  0   0   0| 83  83   0 "
    assert lines[18] == lines[11]
    assert lines[19] == "TOTAL\t\t        3   3|  2   1   0|  0   1|  0   0   1| 83  83   0 "
    assert lines[20] == "\f"
    assert lines[21].endswith("\t\t\t      [missing]")
    assert "DEV-0002\t     key: *  response: 1\t\t\t     [spurious]" in lines
    i = lines.index("DEV-0003\t     key: *  response: *\t\t\t   [irrelevant]")
    assert lines[i + 1] == "\f"
    j = lines.index("DEV-0004\t     key: 1  response: <NONE>\t\t\t     [optional]")
    assert lines[j + 1 : j + 6] == [
        "",
        lines[10],
        lines[11],
        "template-id\t        1   0|  0   0   0|  0   0|  0   1   0|  0   *   *   * ",
        "\f",
    ]
    assert lines[j + 6] == " * * * TOTAL SLOT SCORES * * *"
    assert text.endswith("\n") and not text.endswith("\n\n")


def test_summary_block_synthetic():
    text = format_report([HIT, MISS, JUNK, NONE, OPT], CFG, layout="summary", config_label="c")
    lines = _lines(text)
    start = lines.index(" * * * TOTAL SLOT SCORES * * *")
    body = lines[start + 4 :]
    # Template-id from ALL TEMPLATES: matched + missing + spurious + irrelevant, not optional.
    assert body[0] == "template-id\t        2   2|  1   0   0|  0   0|  1   1   1| 50  50  50 "
    # kind: FAL = (INC+SPU)/PIE = 1/19 -> 5
    assert body[1] == "kind\t\t        2   2|  1   0   0|  0   0|  1   1   0| 50  50  50   5 "
    assert body[2] == "who\t\t        3   5|  1   1   0|  0   1|  3   1   0| 50  30  60 "
    assert body[3] == "when\t\t        1   0|  0   0   0|  0   0|  0   1   2|  0   *   * "
    assert body[5].startswith("obj-total\t        5   7|")
    assert body[7] == "MATCHED/MISSING\t        6   3|  2   1   0|  0   1|  0   3   1| 42  83   0 "
    assert body[8] == "MATCHED/SPURIOUS        3   7|  2   1   0|  0   1|  4   0   2| 83  36  57 "
    assert body[9] == "MATCHED ONLY\t        3   3|  2   1   0|  0   1|  0   0   1| 83  83   0 "
    assert body[10] == "ALL TEMPLATES\t        6   7|  2   1   0|  0   1|  4   3   2| 42  36  57 "
    # SET FILLS ONLY from MATCHED/MISSING: the spurious template's kind is not in it.
    assert (
        body[11] == "SET FILLS ONLY\t        2   1|  1   0   0|  0   0|  0   1   0| 50 100   0   0 "
    )
    assert body[12] == "STRING FILLS ONLY       3   2|  1   1   0|  0   1|  0   1   0| 50  75   0 "
    assert body[13] == lines[start + 3]
    assert body[14] == "\t" * 6 + "     P&R      2P&R      P&2R"
    # F from the rounded ALL TEMPLATES REC 42 and PRE 36
    assert body[15] == "F-MEASURES" + "\t" * 5 + "    38.77     37.06     40.65"
    assert body[16:] == [""]


def test_display_type_chooses_slot_rows():
    cfg = Configuration(
        slots=CFG.slots, subtotal_rows=CFG.subtotal_rows, display_type=DisplayType.MATCHED_ONLY
    )
    text = format_report([HIT, MISS, JUNK], cfg, layout="summary", config_label="c")
    assert "Report of matched-only scores" in text
    row = next(ln for ln in _lines(text) if ln.startswith("who\t"))
    assert row.startswith("who\t\t        2   2|")
    # but the template-id row still comes from ALL TEMPLATES
    assert "template-id\t        2   2|  1   0   0|  0   0|  1   1   0|" in text


def test_no_header_options():
    cfg = Configuration(slots=CFG.slots, score_irrelevant=False, disable_edit=False)
    lines = _lines(format_report([HIT], cfg, config_label="c"))
    assert lines[:4] == ["Configuration: c", "", "Report of all-templates scores", ""]


def test_f_measures_not_available_replaces_rule_and_lines():
    text = format_report([JUNK], CFG, layout="summary", config_label="c")
    lines = _lines(text)
    assert lines[-2] == "F-MEASURES not available, Recall or Precision Nil"
    assert lines[-3].startswith("STRING FILLS ONLY")
    assert lines[-1] == ""


def test_f_measures_zero_prints_0():
    wrong = _pair("X", "1", "1", M, kind=Tally(pos=1, act=1, inc=1, pie=6))
    lines = _lines(format_report([wrong], CFG, layout="summary", config_label="c"))
    assert lines[-2] == "F-MEASURES" + "\t" * 5 + "        0         0         0"


def test_wide_numbers_are_printed_in_full():
    big = _pair("X", "1", "1", M, who=Tally(pos=12345, act=1098, cor=1000, non=2000))
    text = format_report([big], CFG, config_label="c")
    assert "who\t\t     12345 1098|1000   0   0|  0   0|  0   0 2000|" in text


def test_optional_with_star_response_prints_zero_rows():
    pair = PairScore(
        "X", "1", "*", OPTIONAL, Tally(), (("kind", Tally()), ("who", Tally()), ("when", Tally()))
    )
    lines = _lines(format_report([pair], CFG, config_label="c"))
    assert "template-id\t        0   0|  0   0   0|  0   0|  0   0   0|  *   *   * " in lines
    assert "kind\t\t        0   0|  0   0   0|  0   0|  0   0   0|  *   *   *   * " in lines
    # contributes nothing to the summary
    summary = summarize([pair], CFG)
    assert summary.all_templates.entries == 0


def test_report_verbose_off_blanks_perfect_slot_measures():
    cfg = Configuration(slots=CFG.slots, subtotal_rows=CFG.subtotal_rows, report_verbose=False)
    lines = _lines(format_report([HIT], cfg, config_label="c"))
    assert "kind\t\t        1   1|  1   0   0|  0   0|  0   0   0|" + " " * 16 in lines
    assert "who\t\t        2   2|  1   1   0|  0   1|  0   0   0| 75  75     " in lines
    # template-id, subtotals, TOTAL and the summary are unaffected
    assert "template-id\t        1   1|  1   0   0|  0   0|  0   0   0|100 100   0 " in lines
    assert (
        lines.count("kind\t\t        1   1|  1   0   0|  0   0|  0   0   0|100 100   0   0 ") == 1
    )


def test_unknown_layout_is_a_usage_error():
    with pytest.raises(UsageError, match="layout"):
        format_report([HIT], CFG, layout="verbose")


def test_pair_with_unknown_slot_is_rejected():
    bad = PairScore("X", "1", "1", M, Tally(pos=1, act=1, cor=1), (("nope", Tally()),))
    with pytest.raises(ValueError, match="nope"):
        summarize([bad], CFG)


@pytest.mark.parametrize(
    ("entries", "cell"),
    [
        ([HIT, MISS], Relevance.BOTH),
        ([MISS], Relevance.KEY_ONLY),
        ([JUNK], Relevance.RESPONSE_ONLY),
        ([NONE], Relevance.NEITHER),
        ([OPT], Relevance.NEITHER),  # only an optional key, no response: irrelevant
        ([_pair("X", "1", None, I_)], Relevance.NEITHER),  # optional message
        ([OPT, MISS], Relevance.KEY_ONLY),
        ([OPT, _pair("X", None, "3", S)], Relevance.BOTH),  # optional key, relevant response
        ([_pair("X", "1", "*", TemplateStatus.MISSING)], Relevance.KEY_ONLY),
    ],
)
def test_message_relevance_cells(entries, cell):
    assert message_relevance(entries) is cell


def test_message_layout_synthetic():
    text = format_report([HIT, MISS, JUNK, NONE, OPT], CFG, layout="message", config_label="c")
    sections = text[text.index("DEV-0001") :].split("\f\n")
    assert [s.split("\n", 1)[0] for s in sections[:-1]] == [
        "DEV-0001",
        "DEV-0002",
        "DEV-0003",
        "DEV-0004",
    ]
    first = _lines(sections[0])
    assert first[1:3] == [
        "",
        "SLOT\t\t      POS ACT|COR PAR INC|ICR IPA|SPU MIS NON|REC PRE OVG FAL",
    ]
    assert first[4] == "template-id\t        2   1|  1   0   0|  0   0|  0   1   0| 50 100   0 "
    assert "ALL TEMPLATES\t        6   3|  2   1   0|  0   1|  0   3   1| 42  83   0 " in first
    assert first[-2].startswith("F-MEASURES")
    assert _lines(sections[2])[-2] == "F-MEASURES not available, Recall or Precision Nil"
    # a=1 (0001), b=1 (0002), c=0, d=2 (0003 irrelevant, 0004 optional only)
    tf_row = "TEXT FILTERING\t        1   2|  1   *   *|  *   *|  1   0   2|100  50  50  33 "
    assert tf_row in _lines(sections[-1])


# ---------------------------------------------------------------------------
# Round trip through the report reader (hypothesis)
# ---------------------------------------------------------------------------

_counts = st.integers(0, 1500)
_tallies = st.builds(
    lambda c, p, i, s, m, n, ic, ip, pie: Tally(
        pos=c + p + i + m,
        act=c + p + i + s,
        cor=c,
        par=p,
        inc=i,
        icr=min(ic, c),
        ipa=min(ip, p),
        spu=s,
        mis=m,
        non=n,
        pie=pie,
    ),
    _counts,
    _counts,
    _counts,
    _counts,
    _counts,
    _counts,
    _counts,
    _counts,
    st.integers(0, 99),
)
_statuses = st.sampled_from([M, TemplateStatus.MISSING, S, I_, OPTIONAL])


@st.composite
def _pairs_strategy(draw):
    out = []
    for n in range(draw(st.integers(1, 6))):
        status = draw(_statuses)
        mid = f"MSG-{draw(st.integers(1, 3)):04d}"
        slots = (
            ()
            if status in (I_, OPTIONAL)
            else tuple((s, draw(_tallies)) for s in ("kind", "who", "when"))
        )
        out.append(
            _pair(mid, str(n + 1), str(n + 1), status)
            if not slots
            else PairScore(mid, str(n + 1), str(n + 1), status, draw(_tallies), slots)
        )
    return out


@settings(max_examples=60, deadline=None)
@given(_pairs_strategy())
def test_report_round_trips_through_the_reader(pairs):
    text = format_report(pairs, CFG, config_label="c")
    report = parse_report(text)
    assert len(report.blocks) == len(pairs)
    for block, pair in zip(report.blocks, pairs, strict=True):
        if pair.status is I_:
            assert block.rows == ()
            continue
        assert block.row("template-id").tally == pair.template_id.__class__(
            *pair.template_id.as_tuple()[:-1], 0
        )
        for name, tally in pair.slots:
            row = block.row(name)
            assert row.tally.as_tuple()[:-1] == tally.as_tuple()[:-1]
            s = scores(tally)
            assert (row.rec, row.pre, row.ovg) == (s.rec, s.pre, s.ovg)
            if name == "kind":
                assert row.fal == s.fal
        if pair.scored:
            assert block.total().tally.as_tuple()[:-1] == pair.total().as_tuple()[:-1]
    summary = summarize(pairs, CFG)
    assert (
        report.summary_row("ALL TEMPLATES").tally.as_tuple()[:-1]
        == (summary.all_templates.total.as_tuple()[:-1])
    )
    fm = scores(summary.all_templates.total)
    if fm.rec is None or fm.pre is None:
        assert report.f_measures is None
    else:
        assert report.f_measures is not None


# ---------------------------------------------------------------------------
# The `muceval score` command
# ---------------------------------------------------------------------------


def _tst3_args(muc4: Path) -> list[str]:
    t = muc4 / "tst3"
    return [
        "score",
        "--key",
        str(muc4 / "corpora" / "tst3" / "key-tst3.v2"),
        "--config",
        str(t / "config-tst3.el"),
        "--history",
        str(t / "final-history-nrad.tst3"),
        "--no-query-pass",
    ]


def test_cli_score_batch_reproduces_reference_reports(muc4, capsys):
    """Batch mode with the final history gives the 1992 program's reports, byte for byte."""
    from muceval.cli import main

    t = muc4 / "tst3"
    code = main(
        _tst3_args(muc4) + [str(t / "responses" / "MDC.tst3"), str(t / "responses" / "SRI.tst3")]
    )
    out = capsys.readouterr().out
    assert code == 0
    expected = "".join(
        f"==> {s} <==\n" + (t / "reference-reports" / f"{s}.tst3.report").read_bytes().decode("latin-1")
        for s in ("MDC", "SRI")
    )
    assert out == expected


def test_cli_score_json_csv_and_output_file(muc4, tmp_path, capsys):
    from muceval.cli import main

    t = muc4 / "tst3"
    out_json = tmp_path / "scores.json"
    code = main(
        _tst3_args(muc4)
        + ["--format", "json", "--detail", "pairs", "-o", str(out_json),
           str(t / "responses" / "MDC.tst3")]
    )
    assert code == 0 and capsys.readouterr().out == ""
    doc = json.loads(out_json.read_text(encoding="latin-1"))
    assert doc["configuration"] == "config-tst3.el"
    (system,) = doc["systems"]
    assert system["system"] == "MDC"
    mdc = read_report(t / "reference-reports" / "MDC.tst3.report")
    assert tuple(system["summary"]["f_measures"]["report"].values()) == mdc.f_measures
    assert len(system["pairs"]) == len(mdc.blocks)
    assert main(_tst3_args(muc4) + ["--format", "csv", str(t / "responses" / "MDC.tst3")]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert {r["system"] for r in rows} == {"MDC"}
    fal = next(
        r
        for r in rows
        if r["scope"] == "summary"
        and r["row"] == "SET FILLS ONLY"
        and r["accumulator"] == "matched-missing"
    )
    assert int(fal["fal"]) == mdc.summary_row("SET FILLS ONLY").fal
    assert main(_tst3_args(muc4) + ["--layout", "summary", str(t / "responses" / "MDC.tst3")]) == 0
    summary_text = capsys.readouterr().out
    reference = (t / "reference-reports" / "MDC.tst3.report").read_bytes().decode("latin-1")
    assert reference.endswith(summary_text[summary_text.index(" * * * TOTAL") :])


def test_cli_score_errors_exit_2(muc4, tmp_path, capsys):
    from muceval.cli import main

    t = muc4 / "tst3"
    bad = tmp_path / "bad.map"
    bad.write_text("TST3-MUC4-0001 1\n")
    code = main(
        _tst3_args(muc4) + ["--manual-mappings", str(bad), str(t / "responses" / "MDC.tst3")]
    )
    err = capsys.readouterr().err
    assert code == 2 and f"error: {bad}:1:" in err and "Traceback" not in err
    code = main(
        _tst3_args(muc4)
        + [
            "--manual-mappings",
            str(bad),
            "--manual-mappings",
            str(bad),
            str(t / "responses" / "MDC.tst3"),
        ]
    )
    assert code == 2 and "--manual-mappings" in capsys.readouterr().err
    code = main(_tst3_args(muc4) + [str(tmp_path / "missing.tst3")])
    assert code == 2 and "missing.tst3" in capsys.readouterr().err


def test_cli_score_ask_records_answers(tmp_path):
    """--unresolved ask: answers typed at the prompt are credited and saved as a history."""
    from click.testing import CliRunner

    from muceval.cli import cli
    from muceval.reporting.demo import example_dir

    ex = example_dir()
    base = ["score", "--key", str(ex / "key.txt"), "--config", str(ex / "config.toml")]
    saved = tmp_path / "answers.lisp"
    runner = CliRunner()
    asked = runner.invoke(
        cli,
        base
        + [
            "--unresolved",
            "ask",
            "--save-history",
            str(saved),
            "--format",
            "json",
            str(ex / "alpha.txt"),
        ],
        input="c\n" * 200,
    )
    assert asked.exit_code == 0, asked.output
    assert saved.exists() and "match" in saved.read_text(encoding="latin-1")
    # The saved answers replayed from the history give the same scores as the session.
    replay = runner.invoke(
        cli, base + ["--history", str(saved), "--format", "json", str(ex / "alpha.txt")]
    )
    assert replay.exit_code == 0, replay.output
    got = json.loads(asked.stdout)["systems"][0]["summary"]["f_measures"]
    assert got == json.loads(replay.stdout)["systems"][0]["summary"]["f_measures"]
    plain = runner.invoke(cli, base + ["--format", "json", str(ex / "alpha.txt")])
    plain_f = json.loads(plain.stdout)["systems"][0]["summary"]["f_measures"]["float"]["P&R"]
    assert got["float"]["P&R"] > plain_f  # answering 'correct' gave credit


def test_cli_score_ask_stores_each_answer_at_once(tmp_path):
    """An interrupted ask session keeps every answer given so far, in --history itself."""
    from click.testing import CliRunner

    from muceval.cli import cli
    from muceval.formats.muc.history import read_history
    from muceval.reporting.demo import example_dir

    ex = example_dir()
    history = tmp_path / "new-history.lisp"  # does not exist yet: created by the first answer
    args = ["score", "--key", str(ex / "key.txt"), "--config", str(ex / "config.toml"),
            "--history", str(history), "--unresolved", "ask", str(ex / "beta.txt")]
    runner = CliRunner()
    # Two answers, then the input ends: the session is interrupted at the third question.
    interrupted = runner.invoke(cli, args, input="p\ni\n")
    assert interrupted.exit_code != 0
    entries = [entry.judgement.value for *_, entry in read_history(history).entries()]
    assert entries == ["partial", "fail"]
    # Skipping records nothing; the next session goes on from the stored answers.
    resumed = runner.invoke(cli, args, input="s\n" * 200)
    assert resumed.exit_code == 0, resumed.output
    assert len(list(read_history(history).entries())) == 2


def test_cli_score_ask_needs_somewhere_to_store_answers(tmp_path):
    from click.testing import CliRunner

    from muceval.cli import cli
    from muceval.reporting.demo import example_dir

    ex = example_dir()
    result = CliRunner().invoke(cli, ["score", "--key", str(ex / "key.txt"), "--config",
                                      str(ex / "config.toml"), "--unresolved", "ask",
                                      str(ex / "beta.txt")])
    assert result.exit_code != 0
    assert "stores every answer in a history file" in str(result.exception or result.output)
