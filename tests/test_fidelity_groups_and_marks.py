"""Two rules of the 1992 program seen on TST4 cases: a lone parenthesised place, a '?' response.

1. A part of a structured fill written as one parenthesised group is an alternative set of
   one (only a whole fill of one alternative is that alternative): the response place
   ``(MEDELLIN (CITY) - DORADAL (TOWN))`` equals the key's place
   ``(MEDELLIN (CITY) - DORADAL (TOWN)) / (DORADAL (TOWN))`` only by set equality
   (SCORER-SPEC §3.1 rule 4), which fails; the country gives partial credit (§3.4).
2. In the multi-valued procedure, the exact pass (§6.2 step A) compares a response fill
   with its '?' marker: it equals an unstructured key fill (§3.1 rules 1 and 5) but no
   cross-reference, so an equal ``? CIVILIAN: "A"`` is credited by the look-up (step B),
   whose equal value with an exact tag counts COR with ICR (§6.5). The single-valued
   procedure (§6.1) compares both fills without their markers: COR, no ICR.

The cases are invented, in the MUC-4 layout, scored with the bundled configuration.
"""

from __future__ import annotations

import pytest

from muceval.core.model import Alternatives, Between, Location, Qualified, SlotType, Text
from muceval.formats.config import bundled_configuration
from muceval.formats.muc.fills import format_value, parse_fill
from muceval.formats.muc.history import parse_history
from muceval.formats.muc.templates import parse_templates
from muceval.scoring.session import score_systems

MUC4 = bundled_configuration("muc4")
_COLUMNS = ("pos", "act", "cor", "par", "inc", "icr", "ipa", "spu", "mis")


def template(**fills: str | list[str]) -> str:
    """A MUC-4 template of message TST9-MUC4-0001: the given slots, '-' elsewhere."""
    lines = []
    for spec in MUC4.slots:
        value = {"message-id": "TST9-MUC4-0001", "template-id": "1"}.get(
            spec.slot_id, fills.get(spec.slot_id.replace("-", "_"), "-"))
        values = [value] if isinstance(value, str) else value
        lines.append(f"{spec.label:<35}{values[0]}")
        lines.extend(" " * 35 + v for v in values[1:])
    return "\n".join(lines) + "\n\n"


def tally(key: str, response: str, slot_id: str, history: str | None = None) -> dict[str, int]:
    """The tally of ``slot_id`` for the response template mapped to the key template."""
    key_file = parse_templates(key, MUC4, "key").templates
    response_file = parse_templates(response, MUC4, "response").templates
    judgements = None if history is None else parse_history(history)
    pairs = score_systems(MUC4, key_file, {"sys": response_file}, history=judgements)
    mapped = [p for p in pairs.systems["sys"] if p.key_id and p.response_id]
    assert mapped, "the test templates did not map"
    row = mapped[0].slot(slot_id)
    return {name: getattr(row, name) for name in _COLUMNS}


def counts(**nonzero: int) -> dict[str, int]:
    return {name: nonzero.get(name, 0) for name in _COLUMNS}


# --- 1. a lone parenthesised place -----------------------------------------------------

DORADAL = "COLOMBIA: (MEDELLIN (CITY) - DORADAL (TOWN)) / (DORADAL (TOWN))"  # TST4-MUC4-0068


def location_tally(key_location: str, response_location: str) -> dict[str, int]:
    key = template(inc_type="KIDNAPPING", inc_loc=key_location, hum_tgt_name='"JOSE PEREZ"')
    response = template(inc_type="KIDNAPPING", inc_loc=response_location,
                        hum_tgt_name='"JOSE PEREZ"')
    return tally(key, response, "inc-loc")


@pytest.mark.parametrize("key_location, response_location", [
    (DORADAL, "COLOMBIA: (MEDELLIN (CITY) - DORADAL (TOWN))"),  # the TST4 case
    ("PERU: (LIMA (CITY) - HUANCAYO (CITY)) / (HUANCAYO (CITY))",
     "PERU: (LIMA (CITY) - HUANCAYO (CITY))"),  # another pair of cities
    (DORADAL, "COLOMBIA: (DORADAL (TOWN))"),  # a lone group without a range
    (DORADAL, "COLOMBIA: (CALI (CITY) - DORADAL (TOWN))"),  # a range the key does not have
    ("COLOMBIA: MEDELLIN (CITY) / DORADAL (TOWN)", "COLOMBIA: (DORADAL (TOWN))"),
])
def test_a_lone_parenthesised_place_is_partial_against_place_alternatives(
        key_location: str, response_location: str) -> None:
    assert location_tally(key_location, response_location) == counts(pos=1, act=1, par=1)


@pytest.mark.parametrize("key_location, response_location", [
    (DORADAL, "COLOMBIA: MEDELLIN (CITY) - DORADAL (TOWN)"),  # the range without parentheses
    (DORADAL, "COLOMBIA: DORADAL (TOWN)"),
    (DORADAL, DORADAL),  # the key against itself: two equal sets
    (DORADAL, "(COLOMBIA: MEDELLIN (CITY) - DORADAL (TOWN))"),  # a whole fill in parentheses
    ("COLOMBIA: (MEDELLIN (CITY) - DORADAL (TOWN))", "COLOMBIA: (MEDELLIN (CITY) - DORADAL (TOWN))"),
    ("COLOMBIA: (MEDELLIN (CITY) - DORADAL (TOWN))", "COLOMBIA: MEDELLIN (CITY) - DORADAL (TOWN)"),
    # TST3-MUC4-0024, key 1 against UMASS 2: COR in the official report and the 1992 batch one.
    ("(COLOMBIA: HUILA (DEPARTMENT) - BARRANCABERMEJA (CITY)) / (COLOMBIA: HUILA (DEPARTMENT))",
     "COLOMBIA: HUILA (DEPARTMENT) - BARRANCABERMEJA (CITY)"),
])
def test_places_written_otherwise_stay_correct(key_location: str, response_location: str) -> None:
    assert location_tally(key_location, response_location) == counts(pos=1, act=1, cor=1)


def test_a_parenthesised_range_of_another_country_is_incorrect() -> None:
    assert location_tally(DORADAL, "PERU: (MEDELLIN (CITY) - DORADAL (TOWN))") == counts(
        pos=1, act=1, inc=1)


def test_a_lone_group_reads_as_a_set_of_one_and_is_written_back_so() -> None:
    between = Between(Qualified(Text("A"), Text("CITY")), Qualified(Text("B"), Text("TOWN")))
    value = parse_fill("COLOMBIA: (A (CITY) - B (TOWN))", SlotType.LOCATION)
    assert isinstance(value, Location) and value.places == (Alternatives((between,)),)
    assert parse_fill(format_value(value, SlotType.LOCATION), SlotType.LOCATION) == value
    # A whole fill of one alternative is that alternative; a group among several merges.
    assert parse_fill("(- 14 JUL 89)", SlotType.DATE) == parse_fill("- 14 JUL 89", SlotType.DATE)
    key = parse_fill(DORADAL, SlotType.LOCATION)
    assert isinstance(key, Location) and isinstance(key.places[0], Alternatives)
    assert len(key.places[0].options) == 2


def test_the_report_row_shows_the_partial(tmp_path, capsys) -> None:
    from muceval.cli import main

    key = tmp_path / "key.txt"
    key.write_text(template(inc_type="KIDNAPPING", inc_loc=DORADAL, hum_tgt_name='"JOSE PEREZ"'))
    response = tmp_path / "sys.txt"
    response.write_text(template(inc_type="KIDNAPPING", hum_tgt_name='"JOSE PEREZ"',
                                 inc_loc="COLOMBIA: (MEDELLIN (CITY) - DORADAL (TOWN))"))
    assert main(["score", "--key", str(key), "--no-query-pass", str(response)]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("inc-loc")]
    assert rows[0] == "inc-loc\t\t        1   1|  0   1   0|  0   0|  0   0   0| 50  50   0 "


# --- 2. a response fill marked '?' -------------------------------------------------------

TWO_VICTIMS = {"inc_type": "ATTACK", "hum_tgt_name": ['"A"', '"B"']}


def victims_tally(key_types: list[str], response_types: list[str],
                  slot_id: str = "hum-tgt-type", **more: str | list[str]) -> dict[str, int]:
    key = template(**TWO_VICTIMS, hum_tgt_type=key_types)
    response = template(**{**TWO_VICTIMS, **more}, hum_tgt_type=response_types)
    return tally(key, response, slot_id)


def test_marked_cross_references_equal_to_the_key_count_as_judged_correct() -> None:
    assert victims_tally(['CIVILIAN: "A"', 'CIVILIAN: "B"'],
                         ['? CIVILIAN: "A"', '? CIVILIAN: "B"']) == counts(
        pos=2, act=2, cor=2, icr=2)
    # Unmarked: the exact pass, no ICR.
    assert victims_tally(['CIVILIAN: "A"', 'CIVILIAN: "B"'],
                         ['CIVILIAN: "A"', 'CIVILIAN: "B"']) == counts(pos=2, act=2, cor=2)
    # Another pair of values, one fill marked.
    assert victims_tally(['GOVERNMENT OFFICIAL: "A"', 'LAW ENFORCEMENT: "B"'],
                         ['GOVERNMENT OFFICIAL: "A"', '? LAW ENFORCEMENT: "B"']) == counts(
        pos=2, act=2, cor=2, icr=1)


def test_a_marked_fill_that_does_not_match_is_incorrect() -> None:
    assert victims_tally(['CIVILIAN: "A"', 'CIVILIAN: "B"'],
                         ['? CIVILIAN: "A"', '? ACTIVE MILITARY: "B"']) == counts(
        pos=2, act=2, cor=1, icr=1, inc=1)


def test_a_marked_supertype_is_an_automatic_partial() -> None:
    # POLITICAL FIGURE is a parent of GOVERNMENT OFFICIAL: the look-up's automatic partial.
    assert victims_tally(['GOVERNMENT OFFICIAL: "A"', 'CIVILIAN: "B"'],
                         ['? POLITICAL FIGURE: "A"', '? CIVILIAN: "B"']) == counts(
        pos=2, act=2, cor=1, par=1, icr=1)


def test_marked_fills_equal_to_unstructured_key_fills_are_plain_correct() -> None:
    # Strings: §3.1 rule 1 swaps the sides, rule 5 drops the marker; the exact pass matches.
    key = template(**TWO_VICTIMS)
    response = template(inc_type="ATTACK", hum_tgt_name=['? "A"', '? "B"'])
    assert tally(key, response, "hum-tgt-name") == counts(pos=2, act=2, cor=2)


def test_a_single_marked_fill_is_compared_without_markers() -> None:
    key = template(inc_type="ATTACK", hum_tgt_name='"A"', hum_tgt_type='CIVILIAN: "A"')
    response = template(inc_type="ATTACK", hum_tgt_name='"A"', hum_tgt_type='? CIVILIAN: "A"')
    assert tally(key, response, "hum-tgt-type") == counts(pos=1, act=1, cor=1)


def test_the_look_up_reads_a_marked_fill_without_its_marker() -> None:
    # A stored judgement of the unmarked value answers for the marked one: judged partial.
    history = ('(("TST9-MUC4-0001"\n  ("1"\n   (perp-ind-id\n'
               '    ("\\"COMMANDOS\\"" partial "\\"URBAN COMMANDOS\\""))))\n)\n')
    key = template(inc_type="ATTACK", hum_tgt_name='"A"',
                   perp_ind_id=['"URBAN COMMANDOS"', '"TERRORISTS"'])
    response = template(inc_type="ATTACK", hum_tgt_name='"A"',
                        perp_ind_id=['? "COMMANDOS"', '? "TERRORISTS"'])
    assert tally(key, response, "perp-ind-id", history) == counts(
        pos=2, act=2, cor=1, par=1, ipa=1)
