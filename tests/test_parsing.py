"""Tests of the template-file reader and writer (``muceval.formats.muc.templates``)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from muceval.core.model import (
    Alternatives,
    Between,
    BlankMarker,
    CrossRef,
    Location,
    OptionalValue,
    Qualified,
    Range,
    Slot,
    SlotType,
    Template,
    Text,
)
from muceval.errors import InputError
from muceval.formats.config import bundled_configuration
from muceval.formats.files import decode_text, read_text
from muceval.formats.muc.templates import (
    ERROR_VALUE,
    format_template,
    format_value,
    parse_fill,
    parse_templates,
    read_templates,
    write_templates,
)

BROKEN = Path(__file__).parent / "data" / "broken" / "templates"
CONFIG = bundled_configuration("muc4")
HEADER = re.compile(r"^0.  MESSAGE: ID")


def T(raw: str) -> Text:
    return Text(raw)


def real_files(root: Path) -> list[Path]:
    files = sorted(root.glob("corpora/*/key-*"))
    files += sorted(root.glob("tst3/responses/*"))
    files += sorted(root.glob("tst4/responses/*"))
    return files


# Two lines of the MUC-3 development keys have text after a complete quoted
# string. The 1992 scorer read such a fill as <ERROR> and went on; so do we,
# with a warning (not a problem): every official file reads without a problem.
KNOWN_WARNED = {
    "corpora/dev/key-dev-0101.muc4": {(153, "unexpected text after closing quote")},
    "corpora/dev/key-dev-1101.muc4": {(3356, "unexpected text after closing quote")},
}


# ---------------------------------------------------------------------------
# Every real key and response file
# ---------------------------------------------------------------------------


def test_real_files_read_cleanly_and_round_trip(muc4: Path) -> None:
    files = real_files(muc4)
    # 17 keys (13 dev, tst1-tst4) and 17 systems on TST3 and TST4.
    assert len(files) == 17 + 17 + 17
    seen_problem_files = set()
    total = 0
    for path in files:
        rel = path.relative_to(muc4).as_posix()
        text = read_text(path)
        result = parse_templates(text, CONFIG, str(path))
        expected_count = sum(1 for line in text.splitlines() if HEADER.match(line))
        assert len(result.templates.templates) == expected_count, rel
        total += expected_count
        assert result.problems == (), (rel, result.problems)
        warned = {(p.line, p.message) for p in result.warnings if "<ERROR>" in p.message}
        expected = KNOWN_WARNED.get(rel, set())
        assert len(warned) == len(expected), (rel, sorted(warned, key=str))
        for line, fragment in expected:
            assert any(ln == line and fragment in msg for ln, msg in warned), (rel, warned)
        if expected:
            seen_problem_files.add(rel)
            error_fills = [
                f for t in result.templates.templates for sl in t.slots for f in sl.fills
                if f == ERROR_VALUE
            ]
            assert error_fills, rel
        # Every template has all 23 content slots, in configuration order.
        for template in result.templates.templates:
            assert [s.slot_id for s in template.slots] == [s.slot_id for s in CONFIG.content_slots]
            assert template.message_id and " " not in template.message_id
        # write -> parse gives back the same model.
        written = write_templates(result.templates.templates, CONFIG)
        again = parse_templates(written, CONFIG, "written")
        assert again.problems == ()
        assert again.templates.templates == result.templates.templates, rel
    assert seen_problem_files == set(KNOWN_WARNED)
    assert total > 7000


def test_tst3_key_spot_checks(muc4: Path) -> None:
    key = read_templates(muc4 / "corpora/tst3/key-tst3.v2", CONFIG)
    first = key.templates[0]
    assert (first.message_id, first.template_id, first.optional) == ("TST3-MUC4-0001", "1", False)
    assert first.fills("hum-tgt-type") == (CrossRef(T("CIVILIAN"), T('"JESUIT PRIESTS"')),)
    assert first.slot("inc-date").marker is BlankMarker.NO_DATA
    # A multi-valued slot: one fill per line.
    second = key.by_message()["TST3-MUC4-0002"][0]
    assert second.fills("hum-tgt-desc") == (T('"JESUITS"'), T('"MAIDS"'))
    assert second.slot("hum-tgt-desc").line == first.line + 26 + 18 + 1
    # Irrelevant templates have id "*".
    assert any(t.irrelevant for t in key.templates)
    assert any(t.optional for t in key.templates)


def test_response_quirks_are_accepted(muc4: Path) -> None:
    """BBN's `; event` lines, NYU's tabs, MITRE's unindented continuation line."""
    bbn = parse_templates(
        read_text(muc4 / "tst3/responses/BBN.tst3"), CONFIG, "BBN"
    )
    assert bbn.problems == ()
    nyu = read_templates(muc4 / "tst3/responses/NYU.tst3", CONFIG)
    assert nyu.templates[0].message_id == "TST3-MUC4-0001"
    assert nyu.templates[0].fills("hum-tgt-type") == (CrossRef(T("CIVILIAN"), T('"THE JESUIT PRIESTS"')),)
    mitre = parse_templates(
        read_text(muc4 / "tst3/responses/MITRE.tst3"), CONFIG, "MITRE"
    )
    assert mitre.problems == ()
    assert any("line ignored" in w.message for w in mitre.warnings)


def test_tst3_parsing_is_fast(muc4: Path) -> None:
    """The scorer benchmark reads 17 responses and the key; budget well under a second.

    The bound here is loose because CI machines are shared; it catches gross regressions.
    """
    files = [muc4 / "corpora/tst3/key-tst3.v2", *sorted(muc4.glob("tst3/responses/*"))]
    texts = [decode_text(path.read_bytes(), "<bytes>") for path in files]
    start = time.perf_counter()
    for text in texts:
        parse_templates(text, CONFIG)
    assert time.perf_counter() - start < 3.0


def test_dev_key_with_slots_out_of_order_reads_with_a_warning(muc4: Path) -> None:
    path = muc4 / "corpora/dev/key-dev-0201.muc4"
    result = parse_templates(decode_text(path.read_bytes(), "<bytes>"), CONFIG, str(path))
    assert result.problems == ()
    assert sum("out of order" in w.message for w in result.warnings) == 2
    # Comment lines inside templates and the " (ADS)" comments after message ids.
    assert any(t.message_comment == "(ADS)" for t in result.templates.templates)


# ---------------------------------------------------------------------------
# The value grammar, on real values quoted in SCORER-SPEC §2.4
# ---------------------------------------------------------------------------

GRAMMAR_CASES = [
    # cross-references (default grammar)
    ('CIVILIAN: "JESUIT PRIESTS"', SlotType.SET, CrossRef(T("CIVILIAN"), T('"JESUIT PRIESTS"'))),
    (
        'FORMER GOVERNMENT OFFICIAL / FORMER ACTIVE MILITARY: "ENRIQUE LOPEZ ALBUJAR TRINT"',
        SlotType.SET,
        CrossRef(
            Alternatives((T("FORMER GOVERNMENT OFFICIAL"), T("FORMER ACTIVE MILITARY"))),
            T('"ENRIQUE LOPEZ ALBUJAR TRINT"'),
        ),
    ),
    (
        '"SOCIAL DEMOCRATIC POLITICIAN" / "SECRETARY": "HECTOR OQUELI COLINDRES"',
        SlotType.STRING,
        CrossRef(
            Alternatives((T('"SOCIAL DEMOCRATIC POLITICIAN"'), T('"SECRETARY"'))),
            T('"HECTOR OQUELI COLINDRES"'),
        ),
    ),
    (
        'SOME DAMAGE: "OIL PIPELINE" / "PIPELINE"',
        SlotType.SET,
        CrossRef(T("SOME DAMAGE"), Alternatives((T('"OIL PIPELINE"'), T('"PIPELINE"')))),
    ),
    (
        '(POSSIBLE / ACQUITTED): "DRUG CARTEL"',
        SlotType.SET,
        CrossRef(Alternatives((T("POSSIBLE"), T("ACQUITTED"))), T('"DRUG CARTEL"')),
    ),
    ('GUN: "-"', SlotType.SET, CrossRef(T("GUN"), T('"-"'))),
    # plain strings and alternatives, case and escapes kept as written
    (
        '"\\"SANTO TOMAS\\" PRESIDENTIAL FARM"',
        SlotType.STRING,
        T('"\\"SANTO TOMAS\\" PRESIDENTIAL FARM"'),
    ),
    ('"Jesuits" / "priests"', SlotType.STRING, Alternatives((T('"Jesuits"'), T('"priests"')))),
    ('"A" /', SlotType.STRING, Alternatives((T('"A"'), None))),
    ('"LOPEZ     ALBUJAR"', SlotType.STRING, T('"LOPEZ     ALBUJAR"')),
    ("ATTACK / BOMBING", SlotType.SET, Alternatives((T("ATTACK"), T("BOMBING")))),
    # optional fills
    ("? TERRORIST ACT", SlotType.SET, OptionalValue(T("TERRORIST ACT"))),
    ("?STATE-SPONSORED VIOLENCE", SlotType.SET, OptionalValue(T("STATE-SPONSORED VIOLENCE"))),
    (
        '? ("BODYGUARD" / "GUARD"): "PEDRO"',
        SlotType.STRING,
        OptionalValue(CrossRef(Alternatives((T('"BODYGUARD"'), T('"GUARD"'))), T('"PEDRO"'))),
    ),
    # dates and ranges
    ("16 NOV 89", SlotType.DATE, T("16 NOV 89")),
    ("11 NOV 89 - 26 NOV 89", SlotType.DATE, Range(T("11 NOV 89"), T("26 NOV 89"))),
    ("- 26 AUG 89", SlotType.DATE, Range(None, T("26 AUG 89"))),
    ("-20 MAR 89", SlotType.DATE, Range(None, T("20 MAR 89"))),
    ("26 AUG 89 -", SlotType.DATE, Range(T("26 AUG 89"), None)),
    (
        "(11 NOV 89 - 26 NOV 89) / (- 26 NOV 89)",
        SlotType.DATE,
        Alternatives((Range(T("11 NOV 89"), T("26 NOV 89")), Range(None, T("26 NOV 89")))),
    ),
    (
        "- 03 SEP 89 / (28 AUG 92 - 03 SEP 89)",
        SlotType.DATE,
        Alternatives((Range(None, T("03 SEP 89")), Range(T("28 AUG 92"), T("03 SEP 89")))),
    ),
    ("19 MAR 89 / 18 MAR 89", SlotType.DATE, Alternatives((T("19 MAR 89"), T("18 MAR 89")))),
    # numbers: default grammar first, then ranges
    ('5 - 7: "PYLONS"', SlotType.NUMBER, CrossRef(T("5 - 7"), T('"PYLONS"'))),
    ('6 -: "X"', SlotType.NUMBER, CrossRef(T("6 -"), T('"X"'))),
    ("5 - 7", SlotType.NUMBER, Range(T("5"), T("7"))),
    ("3-4", SlotType.NUMBER, Range(T("3"), T("4"))),
    ("60 -", SlotType.NUMBER, Range(T("60"), None)),
    ("~7", SlotType.NUMBER, T("~7")),
    ("PLURAL", SlotType.NUMBER, T("PLURAL")),
    ("3- / PLURAL", SlotType.NUMBER, Alternatives((T("3-"), T("PLURAL")))),
    ("? 4-", SlotType.NUMBER, OptionalValue(Range(T("4"), None))),
    # locations
    ("EL SALVADOR", SlotType.LOCATION, T("EL SALVADOR")),
    ("URUGUAY (COUNTRY)", SlotType.LOCATION, T("URUGUAY (COUNTRY)")),
    ("COLOMBIA / VENEZUELA", SlotType.LOCATION, Alternatives((T("COLOMBIA"), T("VENEZUELA")))),
    (
        "PERU: LIMA (CITY): SAN ISIDRO (NEIGHBORHOOD)",
        SlotType.LOCATION,
        Location(T("PERU"), (Qualified(T("LIMA"), T("CITY")), Qualified(T("SAN ISIDRO"), T("NEIGHBORHOOD")))),
    ),
    (
        "COLOMBIA: CUCUTA (CITY) - CAMPANARIO (RURAL AREA)",
        SlotType.LOCATION,
        Location(
            T("COLOMBIA"),
            (Between(Qualified(T("CUCUTA"), T("CITY")), Qualified(T("CAMPANARIO"), T("RURAL AREA"))),),
        ),
    ),
    (
        "(HONDURAS: TEGUCIGALPA (CITY)) / (HONDURAS)",
        SlotType.LOCATION,
        Alternatives((Location(T("HONDURAS"), (Qualified(T("TEGUCIGALPA"), T("CITY")),)), T("HONDURAS"))),
    ),
    (
        "COLOMBIA / COLOMBIA: MEDELLIN",
        SlotType.LOCATION,
        Location(Alternatives((T("COLOMBIA"), T("COLOMBIA"))), (T("MEDELLIN"),)),
    ),
    (
        "COLOMBIA: URABA (REGION / CITY)",
        SlotType.LOCATION,
        Location(T("COLOMBIA"), (Qualified(T("URABA"), Alternatives((T("REGION"), T("CITY")))),)),
    ),
    (
        "COLOMBIA: (MEDELLIN (CITY) - DORADAL (TOWN)) / (DORADAL (TOWN))",
        SlotType.LOCATION,
        Location(
            T("COLOMBIA"),
            (
                Alternatives(
                    (
                        Between(Qualified(T("MEDELLIN"), T("CITY")), Qualified(T("DORADAL"), T("TOWN"))),
                        Qualified(T("DORADAL"), T("TOWN")),
                    )
                ),
            ),
        ),
    ),
    (
        "EL SALVADOR: METAPAN (CITY) : EL AHOGADO (VILLAGE)",
        SlotType.LOCATION,
        Location(T("EL SALVADOR"), (Qualified(T("METAPAN"), T("CITY")), Qualified(T("EL AHOGADO"), T("VILLAGE")))),
    ),
    ("? HONDURAS", SlotType.LOCATION, OptionalValue(T("HONDURAS"))),
]


@pytest.mark.parametrize(("text", "slot_type", "expected"), GRAMMAR_CASES)
def test_grammar(text: str, slot_type: SlotType, expected: object) -> None:
    value = parse_fill(text, slot_type)
    assert value == expected
    # The writer's text reads back to the same value.
    assert parse_fill(format_value(value, slot_type), slot_type) == expected


@pytest.mark.parametrize("text", ["*", "-", ""])
@pytest.mark.parametrize("slot_type", [SlotType.SET, SlotType.STRING, SlotType.DATE, SlotType.NUMBER, SlotType.LOCATION])
def test_no_fill_markers(text: str, slot_type: SlotType) -> None:
    assert parse_fill(text, slot_type) is None


@pytest.mark.parametrize(
    ("text", "slot_type", "fragment", "column"),
    [
        ('"ABC" DEF', SlotType.STRING, "after closing quote", 7),
        ('"ABC', SlotType.STRING, "unterminated string", 1),
        ("(A / B", SlotType.SET, "'(' is never closed", 1),
        ("A)", SlotType.SET, "')' without", 2),
        ('"16 OTHERS / "OTHERS"', SlotType.STRING, "after closing quote", 15),
        ('A: "X" / B: "Y"', SlotType.SET, "must be written in parentheses", 11),
        ('(A: "X") / (B: "Y")', SlotType.SET, "unsupported complex cross-reference", 1),
        ("(01 MAR 90 - 02 MAR 90) X", SlotType.DATE, "after ')'", 25),
        ("01 MAR 90 - 02 MAR 90 - 03 MAR 90", SlotType.DATE, "too many", 23),
        ("PERU: LIMA (CITY) X", SlotType.LOCATION, "after ')'", 19),
    ],
)
def test_grammar_errors(text: str, slot_type: SlotType, fragment: str, column: int) -> None:
    with pytest.raises(InputError) as caught:
        parse_fill(text, slot_type)
    (problem,) = caught.value.problems
    assert fragment in problem.message
    assert problem.column == column


# ---------------------------------------------------------------------------
# Sectioning, slots and template ids on small hand-written files
# ---------------------------------------------------------------------------

SLOT_VALUES = {
    "inc-date": "03 MAR 90",
    "inc-loc": "ATLANTIS: PORT ROYAL (CITY)",
    "inc-type": "BOMBING",
    "inc-instr-id": '"CAR BOMB"',
    "inc-instr-type": 'VEHICLE BOMB: "CAR BOMB"',
}


def small_template(message: str = "TEST-0001", template_id: str = "1", **overrides: str) -> str:
    lines = []
    for spec in CONFIG.slots:
        if spec.slot_id == "message-id":
            value = message
        elif spec.slot_id == "template-id":
            value = template_id
        else:
            value = overrides.get(spec.slot_id.replace("-", "_"), SLOT_VALUES.get(spec.slot_id, "-"))
        lines.append((spec.label.ljust(35) + value).rstrip())
    return "\n".join(lines) + "\n"


def test_sectioning_ignores_text_outside_templates() -> None:
    text = (
        "\n\n;;; a comment before the first template\n"
        + small_template("TEST-0001")
        + '; event "TEST-0001".2925\n'
        + "\n   \t\n"
        + small_template("TEST-0002", "*")
        + small_template("TEST-0002", "2 (OPTIONAL)")  # no blank line: the header starts a new one
    )
    result = parse_templates(text, CONFIG, "x.tmpl")
    assert result.problems == ()
    ids = [(t.message_id, t.template_id, t.optional) for t in result.templates.templates]
    assert ids == [("TEST-0001", "1", False), ("TEST-0002", "*", False), ("TEST-0002", "2", True)]
    assert [t.line for t in result.templates.templates] == [4, 32, 57]
    assert result.templates.templates[1].irrelevant


@pytest.mark.parametrize(("written", "expected"), [("*", "*"), ("-", "*"), ("", "*"), ("3", "3")])
def test_template_ids(written: str, expected: str) -> None:
    result = parse_templates(small_template(template_id=written), CONFIG)
    assert result.problems == ()
    assert result.templates.templates[0].template_id == expected


def test_message_id_comment_is_kept_apart() -> None:
    result = parse_templates(small_template("DEV-MUC3-0001 (NCCOSC)"), CONFIG)
    template = result.templates.templates[0]
    assert (template.message_id, template.message_comment) == ("DEV-MUC3-0001", "(NCCOSC)")
    assert "0.  MESSAGE: ID                    DEV-MUC3-0001 (NCCOSC)" in format_template(template, CONFIG)


def test_blank_markers_and_continuation_lines() -> None:
    text = small_template(
        inc_date="*",
        inc_loc="",
        perp_ind_id='"TWO MEN"\n\t\t "SEVERAL MEN" / "MEN"  \n' + " " * 35 + "-",
    )
    template = parse_templates(text, CONFIG).templates.templates[0]
    assert template.slot("inc-date") == Slot("inc-date", (), BlankMarker.NOT_APPLICABLE)
    assert template.slot("inc-loc") == Slot("inc-loc", (), BlankMarker.EMPTY)
    assert template.slot("phys-tgt-id") == Slot("phys-tgt-id", (), BlankMarker.NO_DATA)
    assert template.fills("perp-ind-id") == (T('"TWO MEN"'), Alternatives((T('"SEVERAL MEN"'), T('"MEN"'))))


def test_comment_line_inside_a_template_ends_the_slot() -> None:
    text = small_template(perp_ind_id='"TWO MEN"\n;;; a note\n' + " " * 35 + '"IGNORED"')
    result = parse_templates(text, CONFIG)
    assert result.problems == ()
    assert result.templates.templates[0].fills("perp-ind-id") == (T('"TWO MEN"'),)
    assert [w.line for w in result.warnings] == [12]  # the orphaned indented line


def test_crlf_and_latin1() -> None:
    text = small_template(inc_loc="ATLANTIS: SAN JOS\xc9 (CITY)").replace("\n", "\r\n")
    for encoding in ("utf-8", "latin-1"):
        decoded = decode_text(text.encode(encoding), "<bytes>")
        result = parse_templates(decoded, CONFIG)
        assert result.problems == ()
        loc = result.templates.templates[0].fills("inc-loc")[0]
        assert loc == Location(T("ATLANTIS"), (Qualified(T("SAN JOS\xc9"), T("CITY")),))


def test_set_fill_outside_the_set_is_a_warning_not_a_problem() -> None:
    result = parse_templates(small_template(inc_type="MURDER"), CONFIG)
    assert result.problems == ()
    assert len(result.warnings) == 1 and "'MURDER' is not a value of the slot's set" in result.warnings[0].message


def test_read_templates_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read"):
        read_templates(tmp_path / "missing.tmpl", CONFIG)
    path = tmp_path / "x.tmpl"
    path.write_bytes(b"\x00\x01binary")
    with pytest.raises(InputError, match="NUL byte"):
        read_templates(path, CONFIG)
    path.write_text(small_template(inc_type='"A B') + "\n"
                    + small_template(template_id="2", inc_date="(1 MAY 90"))
    with pytest.raises(InputError) as caught:
        read_templates(path, CONFIG)
    assert [p.line for p in caught.value.problems] == [5, 29]
    assert str(caught.value.problems[0]).startswith(f"{path}:5:")


def test_text_after_a_quoted_string_is_read_as_error_like_1992() -> None:
    # The fill's extent is clear, so (as the 1992 scorer) it is kept as <ERROR>
    # and reported as a warning; the file stays usable.
    result = parse_templates(small_template(inc_type='"A" B'), CONFIG)
    assert result.problems == ()
    assert [p.line for p in result.warnings] == [5]
    assert "<ERROR>" in result.warnings[0].message
    assert result.templates.templates[0].fills("inc-type") == (ERROR_VALUE,)


def test_unterminated_string_is_a_problem() -> None:
    result = parse_templates(small_template(inc_type='"A B'), CONFIG)
    assert [p.line for p in result.problems] == [5]
    assert "unterminated string" in result.problems[0].message


def test_control_characters_are_reported() -> None:
    result = parse_templates(small_template(inc_type="BOMB\x07ING"), CONFIG)
    assert [(p.line, p.column) for p in result.problems] == [(5, 40)]


# ---------------------------------------------------------------------------
# Broken fixtures: each line ";; expect LINE: TEXT" names a problem to find,
# each ";; warn LINE: TEXT" a warning
# ---------------------------------------------------------------------------

EXPECT = re.compile(rb"^;; expect (\d+|-): (.*)$", re.M)
WARN = re.compile(rb"^;; warn (\d+|-): (.*)$", re.M)


@pytest.mark.parametrize("path", sorted(BROKEN.glob("*.tmpl")), ids=lambda p: p.name)
def test_broken_fixture(path: Path) -> None:
    data = path.read_bytes()
    expected = [
        (None if line == b"-" else int(line), text.decode()) for line, text in EXPECT.findall(data)
    ]
    warned = [(int(line), text.decode()) for line, text in WARN.findall(data)]
    assert expected or warned, f"{path.name} states no expected problem"
    warnings: tuple = ()
    try:
        result = parse_templates(decode_text(data, str(path)), CONFIG, str(path))
        problems, warnings = result.problems, result.warnings
    except InputError as error:
        problems = error.problems
    assert len(problems) == len(expected), [str(p) for p in problems]
    for (line, fragment), problem in zip(expected, problems, strict=True):
        assert problem.line == line, str(problem)
        assert fragment in problem.message, str(problem)
        assert problem.path == str(path)
    for line, fragment in warned:
        assert any(w.line == line and fragment in w.message for w in warnings), warnings


def test_validate_collects_several_problems_in_one_file() -> None:
    path = BROKEN / "several_problems.tmpl"
    result = parse_templates(path.read_text(), CONFIG, str(path))
    assert len(result.problems) == 2 and len(result.warnings) == 3
    with pytest.raises(InputError) as caught:
        read_templates(path, CONFIG)
    assert caught.value.problems == result.problems


# ---------------------------------------------------------------------------
# The writer
# ---------------------------------------------------------------------------


def test_writer_layout() -> None:
    template = parse_templates(
        small_template(template_id="2 (OPTIONAL)", inc_date="-", perp_ind_id='"A"\n   "B"', inc_loc=""),
        CONFIG,
    ).templates.templates[0]
    text = write_templates([template, template], CONFIG)
    lines = text.split("\n")
    assert lines[0] == "0.  MESSAGE: ID                    TEST-0001"
    assert lines[1] == "1.  MESSAGE: TEMPLATE              2 (OPTIONAL)"
    assert lines[2] == "2.  INCIDENT: DATE                 -"
    assert lines[3] == "3.  INCIDENT: LOCATION"
    assert lines[9] == '9.  PERP: INDIVIDUAL ID            "A"'
    assert lines[10] == " " * 35 + '"B"'
    assert lines[26] == "" and lines[27].startswith("0.  MESSAGE: ID")
    assert text.endswith("-\n") and not text.endswith("\n\n")
    assert all(len(line) - len(line[35:]) in (0, 35) or len(line) <= 35 for line in lines)


def test_format_value_examples() -> None:
    assert format_value(Range(Alternatives((T("A"), None)), T("B")), SlotType.DATE) == "A / - B"
    assert format_value(Alternatives((Range(None, T("X")), T("Y"))), SlotType.DATE) == "(- X) / Y"
    loc = Alternatives((Location(T("C"), (Qualified(T("P"), T("CITY")),)), T("C")))
    assert format_value(loc, SlotType.LOCATION) == "(C: P (CITY)) / C"
    assert format_value(OptionalValue(T("ATTACK")), SlotType.SET) == "? ATTACK"
    assert format_value(Qualified(T("2"), T("OPTIONAL")), SlotType.TEMPLATE_ID) == "2 (OPTIONAL)"


def test_parse_write_parse_identity_on_template_model() -> None:
    text = small_template(
        inc_date="(- 29 MAR 89) / (28 MAR 89 - 29 MAR 89)",
        inc_loc="COLOMBIA: (MEDELLIN (CITY) - DORADAL (TOWN)) / (DORADAL (TOWN))",
        hum_tgt_num='5 - 7: "PYLONS"\n' + " " * 35 + "? 4-",
    )
    first = parse_templates(text, CONFIG, "a").templates.templates
    second = parse_templates(write_templates(first, CONFIG), CONFIG, "b").templates.templates
    assert first == second
    assert isinstance(first[0], Template) and first[0].path == "a" and second[0].path == "b"


def test_unknown_label_names_what_was_written_and_suggests_the_nearest() -> None:
    text = small_template().replace("4.  INCIDENT: TYPE", "4.  INCIDENT: TYPO", 1)
    result = parse_templates(text, CONFIG)
    assert any(w.message.startswith("unknown slot label: '4.  INCIDENT: TYPO' (did you mean "
                                    "'4.  INCIDENT: TYPE'?)") for w in result.warnings)
    # Without its label the slot is missing, which the 1992 program could not score either.
    assert any("missing slot '4.  INCIDENT: TYPE'" in p.message for p in result.problems)


def test_repeated_messages_and_templates_are_refused_with_both_lines() -> None:
    one = small_template()
    result = parse_templates(one + "\n" + one, CONFIG)
    assert [(p.line, p.message) for p in result.problems] == [
        (27, "template 1 of message TEST-0001 given twice (first on line 1)")]
    other = small_template(message="TEST-0002")
    result = parse_templates(one + "\n" + other + "\n" + one, CONFIG)
    assert [(p.line, p.message) for p in result.problems] == [
        (53, "message TEST-0001 given twice: its templates start again here (first on line 1)")]


def test_an_empty_response_is_a_warning_other_text_a_problem() -> None:
    for text in ("", "\n\n", "; event 1\n;; nothing found\n"):
        result = parse_templates(text, CONFIG)
        assert result.problems == () and result.templates.templates == ()
        assert "empty response" in result.warnings[0].message
    assert "no templates" in parse_templates("hello\n", CONFIG).problems[0].message


def test_text_outside_any_template_is_said_once_per_run_of_lines():
    """Issue 27: text before the first template or after the last one was skipped silently
    (a cut or pasted template would vanish without a word); separators are not text."""
    from muceval.formats.config import load_configuration
    from muceval.formats.muc.templates import parse_templates
    from muceval.reporting.demo import example_dir

    config = load_configuration(example_dir() / "config.toml")
    body = (example_dir() / "alpha.txt").read_text()
    result = parse_templates("JUNK BEFORE\n\n" + body + "\n* * *\nTRAILING TEXT\nMORE\n", config)
    outside = [w for w in result.warnings if "outside any template" in w.message]
    assert [(w.line, w.message.split(" line(s)")[0]) for w in outside] == [
        (1, "1"), (len(body.splitlines()) + 5, "2")]
    assert len(result.templates.templates) == len(parse_templates(body, config).templates.templates)
