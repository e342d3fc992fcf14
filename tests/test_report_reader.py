"""Tests of the reader of 1992 score reports (SCORER-SPEC §10)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from muceval.core.tallies import Tally
from muceval.errors import InputError
from muceval.formats.muc.reports import parse_report, read_report

REPORT_DIRS = ("official-scores", "reference-reports", "reference-reports-nohistory")

HEAD = """Configuration: config.el

Incorrect irrelevant response templates are scored.

Report of all-templates scores

"""
HEADING = (
    "SLOT\t\t      POS ACT|COR PAR INC|ICR IPA|SPU MIS NON|REC PRE OVG FAL\n"
    "-----------------------------+-----------+-------+-----------+---------------\n"
)
BLOCK = (
    "MSG-0001\t     key: 1  response: 2\t\t\t\t       \n\n"
    + HEADING
    + "template-id\t        1   1|  1   0   0|  0   0|  0   0   0|100 100   0 \n"
    "inc-type\t        1   1|  1   0   0|  0   0|  0   0   0|100 100   0   0 \n"
    "-----------------------------+-----------+-------+-----------+---------------\n"
    "TOTAL\t\t        1   1|  1   0   0|  0   0|  0   0  16|100 100   0 \n"
    "\f\n"
)
IRRELEVANT = "MSG-0002\t     key: *  response: *\t\t\t   [irrelevant]\n\f\n"
SUMMARY = (
    " * * * TOTAL SLOT SCORES * * *\n\n"
    + HEADING
    + "template-id\t        1   1|  1   0   0|  0   0|  0   0   0|100 100   0 \n"
    "MATCHED/MISSING\t     1092 1769|889 143 100| 28  91|637 529 1624| 58  54  36 \n"
    "ALL TEMPLATES\t        1   1|  1   0   0|  0   0|  0   0  16|100 100   0 \n"
    "TEXT FILTERING\t       60  70| 50   *   *|  *   *| 20  10  20| 83  71  29  50 \n"
    "-----------------------------+-----------+-------+-----------+---------------\n"
    "\t\t\t\t\t\t     P&R      2P&R      P&2R\n"
    "F-MEASURES\t\t\t\t\t    55.93     54.76     57.15\n"
)


def _files(muc4: Path) -> list[Path]:
    return [f for d in REPORT_DIRS for f in sorted((muc4 / "tst3" / d).iterdir())]


def test_synthetic_report_parses():
    report = parse_report(HEAD + BLOCK + IRRELEVANT + SUMMARY, "r.txt")
    assert report.header[0] == "Configuration: config.el"
    assert len(report.blocks) == 2
    first, second = report.blocks
    assert (first.message_id, first.key_id, first.response_id, first.tag) == (
        "MSG-0001",
        "1",
        "2",
        "",
    )
    assert first.line == 7
    assert first.row("inc-type").has_fal and first.row("inc-type").fal == 0
    assert not first.row("template-id").has_fal
    assert first.total().tally == Tally(pos=1, act=1, cor=1, non=16)
    assert (second.tag, second.key_id, second.rows, second.total()) == ("irrelevant", "*", (), None)
    wide = report.summary_row("MATCHED/MISSING")
    assert wide.tally.pos == 1092 and wide.tally.act == 1769 and wide.tally.non == 1624
    assert (wide.rec, wide.pre, wide.ovg, wide.fal) == (58, 54, 36, None)
    tf = report.summary_row("TEXT FILTERING")
    assert tf.tally == Tally(pos=60, act=70, cor=50, spu=20, mis=10, non=20)
    assert tf.fal == 50
    assert report.f_measures == (55.93, 54.76, 57.15)
    with pytest.raises(KeyError):
        report.summary_row("NOPE")
    with pytest.raises(KeyError):
        first.row("NOPE")


def test_none_ids_star_measures_and_no_f_measures():
    block = BLOCK.replace(
        "key: 1  response: 2\t\t\t\t       ", "key: <NONE>  response: 2\t\t     [spurious]"
    )
    block = block.replace("100 100   0   0", "  *   *   *   *")
    text = (
        HEAD
        + block
        + SUMMARY.split(
            "-----------------------------+-----------+-------+-----------+---------------\n\t"
        )[0]
    )
    text += "F-MEASURES not available, Recall or Precision Nil\n"
    report = parse_report(text)
    block0 = report.blocks[0]
    assert block0.key_id is None and block0.tag == "spurious"
    row = block0.row("inc-type")
    assert (row.rec, row.pre, row.ovg, row.fal, row.has_fal) == (None, None, None, None, True)
    assert report.f_measures is None


@pytest.mark.parametrize(
    "mutate, line, fragment",
    [
        (
            lambda t: t.replace("inc-type\t        1   1|  1", "inc-type\t        1   1|  x"),
            12,
            "COR",
        ),
        (
            lambda t: t.replace(
                "inc-type\t        1   1|  1   0   0", "inc-type\t        1   1|  1   0"
            ),
            12,
            "expected 3",
        ),
        (lambda t: t.replace("[irrelevant]", "[bogus]"), 16, "unknown section tag"),
        (
            lambda t: t.replace("F-MEASURES\t\t\t\t\t    55.93", "F-MEASURES\t\t\t\t\t    55.9x"),
            28,
            "not a number",
        ),
        (lambda t: t.split(" * * * TOTAL")[0], 17, "before the TOTAL SLOT SCORES"),
        (
            lambda t: t.replace(
                "\t\t\t\t\t\t     P&R      2P&R      P&2R\nF-MEASURES\t\t\t\t\t    55.93     54.76     57.15\n",
                "",
            ),
            26,
            "F-MEASURES",
        ),
        (lambda t: t + "junk\n", 29, "after the F-measures"),
        (
            lambda t: t.replace(
                "MSG-0001\t     key: 1  response: 2\t\t\t\t       \n\n" + HEADING,
                "MSG-0001\t     key: 1  response: 2\n\n",
            ),
            9,
            "SLOT heading",
        ),
        (
            lambda t: t.replace(
                "Report of all-templates scores\n",
                "TOTAL\t\t        1   1|  1   0   0|  0   0|  0   0  16|100 100   0 \n",
            ),
            5,
            "before any template",
        ),
        (
            lambda t: t.replace("\f\nMSG-0002", "\f\nstray text\nMSG-0002"),
            16,
            "outside a template section",
        ),
    ],
)
def test_malformed_reports_name_file_and_line(mutate, line, fragment):
    text = mutate(HEAD + BLOCK + IRRELEVANT + SUMMARY)
    with pytest.raises(InputError) as info:
        parse_report(text, "bad.report")
    problem = info.value.problems[0]
    assert problem.path == "bad.report"
    assert problem.line == line, str(problem)
    assert fragment in problem.message


def test_empty_and_unreadable(tmp_path):
    with pytest.raises(InputError):
        parse_report("", "e.report")
    with pytest.raises(InputError) as info:
        read_report(tmp_path / "absent.report")
    assert "absent.report" in str(info.value)


def test_all_real_reports(muc4):
    files = _files(muc4)
    assert len(files) == 51
    for path in files:
        text = path.read_text(encoding="latin-1")
        report = read_report(path)
        id_lines = re.findall(r"^\S+\s+key: (\S+)\s+response: (\S+)", text, flags=re.M)
        assert len(report.blocks) == len(id_lines), path
        assert [
            (b.key_id or "<NONE>", b.response_id or "<NONE>") for b in report.blocks
        ] == id_lines
        # 1 template-id + 23 slots + 4 subtotals + 4 manners + set/string fills
        assert len(report.summary) == 34, path
        # Every scored section has a TOTAL; irrelevant ones never do.
        for block in report.blocks:
            if block.tag in ("", "missing", "spurious"):
                assert block.total() is not None, (path, block.line)
            if block.tag == "irrelevant":
                assert block.rows == ()
        # The official score is the sum of the per-section totals (duplicates included).
        totals = Tally.total(b.total().tally for b in report.blocks if b.total() is not None)
        assert totals == report.summary_row("ALL TEMPLATES").tally, path
        printed = re.search(r"^F-MEASURES\s+(\S+)\s+(\S+)\s+(\S+)", text, flags=re.M)
        assert report.f_measures == tuple(float(x) for x in printed.groups())


def test_official_block_counts_and_duplicates(muc4):
    official = muc4 / "tst3" / "official-scores"
    ge = read_report(official / "GE.tst3-pass1.nrad")
    assert len(ge.blocks) == 177
    assert ge.f_measures == (55.93, 54.76, 57.15)
    assert ge.summary_row("ALL TEMPLATES").tally.pos == 1661
    lsi = read_report(official / "LSI.tst3-pass1.nrad")
    pairs = [(b.message_id, b.key_id, b.response_id) for b in lsi.blocks]
    assert pairs.count(("TST3-MUC4-0005", "1", "1")) == 2
    assert pairs.count(("TST3-MUC4-0006", "1", "3")) == 2
    assert lsi.summary_row("template-id").tally.pos == 112
    sri = read_report(official / "SRI.tst3-pass1.nrad")
    assert [(b.message_id, b.key_id, b.response_id) for b in sri.blocks].count(
        ("TST3-MUC4-0060", "1", "1")
    ) == 2


def test_the_one_match_reading_of_a_row_equals_the_token_by_token_one():
    """Rows are read by one regular expression when they are plain (issue 30: a report holds
    tens of thousands); any row must read the same, or fail the same, as token by token."""
    import random

    from muceval.errors import InputError
    from muceval.formats.muc import reports

    rng = random.Random(5)
    plain = ["0", "7", "12", "007", "45"]
    odd = ["999999999999", "9999999999999", "*", "-1", "1_0", "٣", "x"]
    spaces = [" ", "  ", "\t", " \u2003"]

    def row() -> str:
        def group(n: int) -> str:
            return rng.choice(spaces).join(rng.choice(plain if rng.random() < 0.97 else odd)
                                           for _ in range(n))
        measures = group(rng.choice((3, 4, 3, 4, 2)))
        cols = [group(2), group(3), group(2), group(3), measures][: rng.choice((5, 5, 5, 4))]
        text = cols[0] + "|" + cols[1] + "".join(rng.choice(("|", " |", "| ", " | ")) + c
                                                 for c in cols[2:])
        return "INC-TYPE" + rng.choice(spaces) + text + rng.choice(("", " ", "\t"))

    def read(text: str, fast: bool) -> object:
        saved = reports._plain_row
        if not fast:
            reports._plain_row = lambda *args: None  # type: ignore[assignment]
        try:
            return reports._parse_row(text, "r.nrad", 3)
        except InputError as error:
            return str(error)
        finally:
            reports._plain_row = saved

    fast = 0
    for _ in range(4000):
        text = row()
        found = read(text, True)
        assert found == read(text, False), text
        fast += reports._plain_row(*reports._ROW.match(text).group("name", "cols"), 3) is not None \
            if reports._ROW.match(text) else 0
    assert fast > 1000  # the fast reading is exercised, not only the errors


def test_plain_rows_read_first_anywhere_read_as_line_by_line():
    """A plain row is read before the checks for the other kinds of line (issue 30): moved to
    any place of a report (the header, before a heading, after the F-measures, next to an id
    line), the report reads, or fails with the same message, as with every line checked in
    order."""
    import random

    from muceval.formats.muc import reports

    text = HEAD + BLOCK + IRRELEVANT + BLOCK.replace("MSG-0001", "MSG-0003") + SUMMARY
    lines = text.split("\n")
    rows = [line for line in lines if reports._ROW.match(line.expandtabs(8))]
    rng = random.Random(7)

    def read(candidate: str, fast: bool) -> object:
        saved = reports._plain_row
        if not fast:
            reports._plain_row = lambda *args: None  # type: ignore[assignment]
        try:
            return repr(parse_report(candidate, "r.nrad"))
        except InputError as error:
            return str(error)
        finally:
            reports._plain_row = saved

    for _ in range(300):
        moved = list(lines)
        for _ in range(rng.choice((1, 1, 2))):
            moved.insert(rng.randrange(len(moved) + 1), rng.choice(rows))
        candidate = "\n".join(moved)
        assert read(candidate, True) == read(candidate, False)


def _line_by_line(text: str, path: str):
    """The report read line by line through every check, as the reader did before it
    remembered each distinct line: the reference of the fast reader."""
    from muceval.errors import InputError
    from muceval.formats.muc.reports import _ReportParser

    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    parser = _ReportParser(path)
    for number, raw in enumerate(lines, start=1):
        raw = raw.rstrip("\r")
        line = raw.lstrip("\f").expandtabs(8)
        if "\f" in line:
            raise InputError.at(path, number, "form feed in the middle of a line")
        parser.feed(number, line, raw.startswith("\f"))
    return parser.finish(len(lines) if lines else None)


_REPORT_LINES = [
    "Configuration: config.el", "", "   ", "Report of all-templates scores",
    "TST3-MUC4-0001     key: 1  response: 1", "TST3-MUC4-0002\tkey: <NONE>  response: 2\t[spurious]",
    "TST3-MUC4-0003     key: 1  response: <NONE> [missing]",
    "SLOT                  POS ACT|COR PAR INC|ICR IPA|SPU MIS NON|REC PRE OVG FAL",
    "-----------------------------+-----------+-------+-----------+---------------",
    "template-id             1   1|  1   0   0|  0   0|  0   0   0|100 100   0",
    "inc-type\t        1   1|  1   0   0|  0   0|  0   0   0|100 100   0   0 ",
    "inc-date                0   0|  0   0   0|  0   0|  0   0   1|  *   *   *",
    "TOTAL                   2   2|  2   0   0|  0   0|  0   0   1|100 100   0\r",
    "\fTOTAL                   2   2|  2   0   0|  0   0|  0   0   1|100 100   0",
    "\f", "TEXT FILTERING          1   1|  *   *   *|  *   *|  0   0   0|100 100   0",
    "ALL TEMPLATES           4   2|  1   0   0|  0   0|  1   3   0| 25  50  50",
    "bad row                 x   2|  1   0   0|  0   0|  1   3   0| 25  50  50",
    " * * * TOTAL SLOT SCORES * * *", "                   P&R   2P&R   P&2R",
    "F-MEASURES            50.00  50.00  50.00",
    "F-MEASURES not available, Recall or Precision Nil", "a|b 1 2| row with a bar",
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_REPORT_LINES), max_size=40))
def test_the_reader_reads_every_line_as_the_line_by_line_reader(lines: list[str]) -> None:
    """Remembering each distinct line changes nothing: the same report, or the same
    message at the same line, as reading every line through every check."""
    from muceval.errors import InputError

    text = "\n".join(lines) + "\n"

    def outcome(read):
        try:
            return read(text, "r.txt")
        except InputError as error:
            return str(error)

    assert outcome(parse_report) == outcome(_line_by_line)
