"""'?' (optional) markers on RESPONSE fills, scored as the 1992 program's Lisp scores them.

The markers are parsed alike in keys and responses (``muc-slot-filler-values``, parse.el
l.90-112: a leading ``?`` wraps the value in ``(optional ...)``). What follows from the
source (/work/shared/muc4/scorer-source/lisp):

* one fill against at most one (``score-single-valued-slot``, score.el l.809-822): both
  markers are dropped before comparing;
* several fills (``score-multi-valued-slot``, score.el l.874): the exact pass
  ``score-trivial-matches`` (l.1294) compares the response fill *with* its marker through
  ``muc-value-equal`` (l.989): a marked fill equals a string or alternatives (the sides are
  swapped, l.994-996) and an optional key (l.1015-1022), never a cross-reference, range or
  location (l.1023-1025);
* the look-up ``match-keyval`` (l.1114) reads a marked cross-reference through ``xref-p``,
  ``xref-val`` and ``xref-tag`` (defs.el l.107-125), so it pairs by tag
  (``find-corresponding-xref-values``, l.1058, which lists the corresponding key fills in
  reverse order) and credits as for an unmarked one: COR with ICR for the lone key fill of
  that tag (``conform-to-scoring-guidelines`` gives ``t``, ``score-nontrivial-matches``
  l.1400-1402 counts it judged), COR for the key fill chosen by value among several
  (``find-matching-keyval``, l.1194), COR with ICR for the key fill whose tag a history
  judgement made correspond (the nested status no branch of l.1392-1402 recognises);
* the automatic partials (``partial-match-supertype``, ``partial-match-country``) compare the
  whole fill, so a marked one gets none (``ancestor-p`` compares tree nodes with ``equal``,
  slots.el l.112-135);
* leftovers (``score-remaining-values``, l.1413-1471): marked response fills first cancel
  optional key fills, then are counted neither as spurious nor beyond the key fills left.

The cases are written from TST3 key templates (messages 0010, 0018 and 0036) with the
one history judgement the cross-reference cases need, copied from final-history-nrad.tst3.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from muceval.formats.muc.templates import parse_templates
from muceval.scoring.session import score_systems
from test_fidelity import MUC4, template
from test_fidelity_groups_and_marks import counts, tally

_COLUMNS = ("pos", "act", "cor", "par", "inc", "icr", "ipa", "spu", "mis")

# TST3-MUC4-0018, key template 1 (the slots the cases use).
M0018 = "TST3-MUC4-0018"
DESC_0018 = ['"POLICEMEN" / "TRAFFIC POLICEMEN"',
             '"SOLDIER OF THE 1ST INFANTRY BRIGADE" / "SOLDIER" / "SOLDIER OF THE BELLOSO BATTALION"',
             '"CIVILIANS"',
             '"ONE OF OUR CIVILIAN EMPLOYEES" / "CIVILIAN EMPLOYEES"']
PHYS_NUM_0018 = ['1: "1ST INFANTRY BRIGADE" / "1ST INFANTRY BRIGADE GARRISON"',
                 '1: "NATIONAL POLICE STATION"',
                 'PLURAL: "POWER POLES ON 29TH STREET" / "POWER POLES"',
                 'PLURAL: "TRANSFORMERS"',
                 '? 1: "ANTEL [NATIONAL ADMINISTRATION FOR TELECOMMUNICATIONS] OFFICE"']
KEY_0018: dict[str, str | list[str]] = {
    "inc_type": "ATTACK",
    "phys_tgt_id": ['"1ST INFANTRY BRIGADE" / "1ST INFANTRY BRIGADE GARRISON"',
                    '"NATIONAL POLICE STATION"',
                    '"POWER POLES ON 29TH STREET" / "POWER POLES"',
                    '"TRANSFORMERS"',
                    '? "ANTEL [NATIONAL ADMINISTRATION FOR TELECOMMUNICATIONS] OFFICE"'],
    "phys_tgt_num": PHYS_NUM_0018,
    "hum_tgt_desc": DESC_0018,
    "hum_tgt_type": ["LAW ENFORCEMENT: " + DESC_0018[0], "ACTIVE MILITARY: " + DESC_0018[1],
                     "CIVILIAN: " + DESC_0018[2], "CIVILIAN: " + DESC_0018[3]],
    "hum_tgt_num": ["3 / 5: " + DESC_0018[0], "1: " + DESC_0018[1], "3 - / 4: " + DESC_0018[2],
                    "1: " + DESC_0018[3]],
    "hum_tgt_effect": ["INJURY: " + d for d in DESC_0018],
}

# final-history-nrad.tst3, TST3-MUC4-0018 key 1: the response description "CIVILIANS" was
# judged to match the key's "ONE OF OUR CIVILIAN EMPLOYEES" / "CIVILIAN EMPLOYEES".
HISTORY_0018 = (
    '(("TST3-MUC4-0018"\n  ("1"\n   (hum-tgt-desc\n'
    '    ("\\"CIVILIANS\\"" match\n'
    '     (or "\\"ONE OF OUR CIVILIAN EMPLOYEES\\"" "\\"CIVILIAN EMPLOYEES\\"")))))\n)\n')


def unmarked(fills: list[str]) -> list[str]:
    return [f.removeprefix("? ") for f in fills]


def tally_0018(slot: str, fills: list[str], history: str | None = HISTORY_0018,
               key: dict[str, str | list[str]] | None = None) -> dict[str, int]:
    key_fills = KEY_0018 if key is None else {**KEY_0018, **key}
    response_fills = {**KEY_0018, slot.replace("-", "_"): fills}
    return tally(template(message=M0018, **key_fills), template(message=M0018, **response_fills),
                 slot, history)


# --- a cross-referenced set fill: HUM TGT: EFFECT OF INCIDENT ----------------------------

EFFECTS = ['INJURY: "POLICEMEN"', '? INJURY: "SOLDIER"', '? INJURY: "CIVILIANS"',
           '? INJURY: "CIVILIAN EMPLOYEES"']


def test_three_marked_injuries_beside_an_unmarked_one() -> None:
    # score-trivial-matches: only the unmarked fill equals a key fill (COR 1).
    # match-keyval, response fills in order:
    #  '? INJURY: "SOLDIER"': one key fill has that tag, xref-tags-correspond gives t,
    #    conform-to-scoring-guidelines t: COR and ICR;
    #  '? INJURY: "CIVILIANS"': two key fills correspond, "CIVILIANS" by equality and
    #    "ONE OF OUR CIVILIAN EMPLOYEES" / "CIVILIAN EMPLOYEES" by the history judgement;
    #    find-corresponding-xref-status takes the status of the last one (a history match)
    #    and conform-to-scoring-guidelines nests it: COR and ICR, crediting that last fill;
    #  '? INJURY: "CIVILIAN EMPLOYEES"': the one key fill left, tag "CIVILIANS", does not
    #    correspond: no credit.
    # score-remaining-values: a required key fill and a marked response fill: INC 1.
    assert tally_0018("hum-tgt-effect", EFFECTS) == counts(pos=4, act=4, cor=3, inc=1, icr=2)
    # Unmarked, every fill equals a key fill in score-trivial-matches.
    assert tally_0018("hum-tgt-effect", unmarked(EFFECTS)) == counts(pos=4, act=4, cor=4)


def test_the_issue_case_on_the_tst3_key_and_history(muc4: Path) -> None:
    # The same case on the key template and the NRaD final history as distributed.
    text = (muc4 / "corpora/tst3/key-tst3.v2").read_text()
    start = text.index("0.  MESSAGE: ID                    TST3-MUC4-0018")
    key = text[start:text.index("0.  MESSAGE: ID", start + 1)]
    effect = key[key.index("23. HUM TGT: EFFECT OF INCIDENT"):key.index("24. HUM TGT")]
    response = key.replace(effect, "23. HUM TGT: EFFECT OF INCIDENT    " + "\n".join(
        [EFFECTS[0]] + [" " * 35 + f for f in EFFECTS[1:]]) + "\n")
    history = (muc4 / "tst3/final-history-nrad.tst3").read_text()
    assert tally(key, response, "hum-tgt-effect", history) == counts(
        pos=4, act=4, cor=3, inc=1, icr=2)
    assert tally(key, key, "hum-tgt-effect", history) == counts(pos=4, act=4, cor=4)


def test_a_lone_marked_injury() -> None:
    key = {"hum_tgt_desc": '"CIVILIANS"', "hum_tgt_effect": 'INJURY: "CIVILIANS"'}
    # score-single-valued-slot drops both markers: plain equality, COR.
    for fill in ('? INJURY: "CIVILIANS"', 'INJURY: "CIVILIANS"'):
        assert tally_0018("hum-tgt-effect", [fill], key=key) == counts(pos=1, act=1, cor=1)


def test_a_lone_marked_injury_among_four_key_fills() -> None:
    # match-keyval: "CIVILIANS" corresponds to two key fills (one through the history): COR
    # and ICR for the last; score-remaining-values: the three others missing.
    assert tally_0018("hum-tgt-effect", ['? INJURY: "CIVILIANS"']) == counts(
        pos=4, act=1, cor=1, icr=1, mis=3)
    # Unmarked: score-trivial-matches, COR without ICR.
    assert tally_0018("hum-tgt-effect", ['INJURY: "CIVILIANS"']) == counts(
        pos=4, act=1, cor=1, mis=3)


def test_among_corresponding_key_fills_the_value_picks_the_last() -> None:
    # HUM TGT: TYPE with the key's two civilian fills in the other order. For
    # '? CIVILIAN: "CIVILIANS"' both key fills correspond, the last one by equal tags (status
    # t); find-corresponding-xref-values lists them last first, so find-matching-keyval
    # credits "CIVILIANS" (COR). '? CIVILIAN: "CIVILIAN EMPLOYEES"' then corresponds to
    # the one left alone: COR and ICR.
    key = {"hum_tgt_type": ["CIVILIAN: " + DESC_0018[3], "CIVILIAN: " + DESC_0018[2]]}
    fills = ['? CIVILIAN: "CIVILIANS"', '? CIVILIAN: "CIVILIAN EMPLOYEES"']
    assert tally_0018("hum-tgt-type", fills, key=key) == counts(pos=2, act=2, cor=2, icr=1)
    assert tally_0018("hum-tgt-type", unmarked(fills), key=key) == counts(pos=2, act=2, cor=2)


# --- cross-referenced number fills: HUM TGT: NUMBER, PHYS TGT: NUMBER ---------------------

def test_three_marked_numbers_beside_an_unmarked_one() -> None:
    # As for the effects: '? 4: "CIVILIANS"' is credited to the key fill
    # '1: "ONE OF OUR CIVILIAN EMPLOYEES" / ...' (the nested status of
    # conform-to-scoring-guidelines), and '? 1: "CIVILIAN EMPLOYEES"' finds no tag left.
    fills = ['3: "POLICEMEN"', '? 1: "SOLDIER"', '? 4: "CIVILIANS"',
             '? 1: "CIVILIAN EMPLOYEES"']
    assert tally_0018("hum-tgt-num", fills) == counts(pos=4, act=4, cor=3, inc=1, icr=2)
    assert tally_0018("hum-tgt-num", unmarked(fills)) == counts(pos=4, act=4, cor=4)


def test_marked_physical_target_numbers() -> None:
    # score-trivial-matches: the unmarked fill, and the marked ANTEL fill against the
    # optional key fill (muc-value-equal drops both markers). match-keyval: each other
    # marked fill is the lone key fill of its tag: COR and ICR. "TRANSFORMERS" is missing.
    fills = ['1: "1ST INFANTRY BRIGADE"', '? 1: "NATIONAL POLICE STATION"',
             '? PLURAL: "POWER POLES"',
             '? 1: "ANTEL [NATIONAL ADMINISTRATION FOR TELECOMMUNICATIONS] OFFICE"']
    assert tally_0018("phys-tgt-num", fills) == counts(pos=5, act=4, cor=4, icr=2, mis=1)
    assert tally_0018("phys-tgt-num", unmarked(fills)) == counts(pos=5, act=4, cor=4, mis=1)


def test_a_marked_extra_fill_cancels_the_optional_key_fill() -> None:
    # score-remaining-values: the marked "HOSPITAL" and the optional ANTEL key fill cancel
    # out and neither is counted; unmarked, the optional key fill absorbs it as INC.
    fills = PHYS_NUM_0018[:4] + ['? 1: "HOSPITAL"']
    assert tally_0018("phys-tgt-num", fills) == counts(pos=4, act=4, cor=4)
    assert tally_0018("phys-tgt-num", unmarked(fills)) == counts(pos=5, act=5, cor=4, inc=1)


# --- a number fill without cross-reference: HUM TGT: TOTAL NUMBER (TST3-MUC4-0036) ---------

KEY_0036 = {"inc_type": "ATTACK", "hum_tgt_desc": '"PERSONS"', "hum_tgt_total_num": "3"}


def total_tally(fills: list[str]) -> dict[str, int]:
    response = {**KEY_0036, "hum_tgt_total_num": fills}
    return tally(template(message="TST3-MUC4-0036", **KEY_0036),
                 template(message="TST3-MUC4-0036", **response), "hum-tgt-total-num")


@pytest.mark.parametrize("fill", ["? 3", "3"])
def test_a_lone_number_is_compared_without_its_marker(fill: str) -> None:
    assert total_tally([fill]) == counts(pos=1, act=1, cor=1)


def test_numbers_beside_each_other() -> None:
    # score-trivial-matches: "? 3" equals the key's 3 (muc-value-equal swaps the sides).
    assert total_tally(["? 3", "4"]) == counts(pos=1, act=2, cor=1, spu=1)
    # score-remaining-values: a marked fill left over with no key fill left is not counted.
    assert total_tally(["3", "? 4"]) == counts(pos=1, act=1, cor=1)
    assert total_tally(["3", "4"]) == counts(pos=1, act=2, cor=1, spu=1)


# --- a string fill: HUM TGT: DESCRIPTION (TST3-MUC4-0018) ----------------------------------

def test_marked_strings_equal_key_strings_and_alternatives() -> None:
    # muc-value-equal: a marked string against a key string or alternatives is compared
    # without its marker, in score-trivial-matches: COR, no ICR.
    fills = ['"POLICEMEN"', '? "SOLDIER"', '? "CIVILIANS"', '? "CIVILIAN EMPLOYEES"']
    assert tally_0018("hum-tgt-desc", fills) == counts(pos=4, act=4, cor=4)
    assert tally_0018("hum-tgt-desc", unmarked(fills)) == counts(pos=4, act=4, cor=4)


def test_a_lone_marked_string() -> None:
    key = {"hum_tgt_desc": '"CIVILIANS"'}
    for fill in ('? "CIVILIANS"', '"CIVILIANS"'):
        assert tally_0018("hum-tgt-desc", [fill], key=key) == counts(pos=1, act=1, cor=1)


def test_a_marked_extra_string_is_not_spurious() -> None:
    key = {"hum_tgt_desc": '"CIVILIANS"'}
    assert tally_0018("hum-tgt-desc", ['"CIVILIANS"', '? "GUERRILLAS"'], key=key) == counts(
        pos=1, act=1, cor=1)
    assert tally_0018("hum-tgt-desc", ['"CIVILIANS"', '"GUERRILLAS"'], key=key) == counts(
        pos=1, act=2, cor=1, spu=1)


# --- a set fill without cross-reference: INCIDENT: TYPE (TST3-MUC4-0010) ---------------------

KEY_0010 = {"inc_type": "BOMBING", "hum_tgt_desc": '"PERSONS"'}


def type_tally(fills: list[str]) -> dict[str, int]:
    return tally(template(message="TST3-MUC4-0010", **KEY_0010),
                 template(message="TST3-MUC4-0010", **{**KEY_0010, "inc_type": fills}), "inc-type")


def test_a_lone_marked_type() -> None:
    # score-single-valued-slot drops the marker: equal, or ATTACK a parent of BOMBING.
    assert type_tally(["? BOMBING"]) == counts(pos=1, act=1, cor=1)
    assert type_tally(["? ATTACK"]) == counts(pos=1, act=1, par=1)
    assert type_tally(["ATTACK"]) == counts(pos=1, act=1, par=1)


def test_types_beside_each_other() -> None:
    # score-trivial-matches: "? BOMBING" equals the key's BOMBING (muc-value-equal swaps).
    assert type_tally(["? BOMBING", "ARSON"]) == counts(pos=1, act=2, cor=1, spu=1)
    # score-remaining-values: a marked fill left over with no key fill left is not counted.
    assert type_tally(["BOMBING", "? ATTACK"]) == counts(pos=1, act=1, cor=1)
    assert type_tally(["BOMBING", "ATTACK"]) == counts(pos=1, act=2, cor=1, spu=1)


def test_a_marked_parent_type_gets_no_partial_and_the_templates_do_not_map() -> None:
    # partial-match-supertype: ancestor-p finds no tree node equal to (optional "ATTACK"), so
    # the marked parent earns nothing, and the mapping restriction on INCIDENT: TYPE
    # (map.el, the same slot scoring) fails: the templates are not paired.
    key = parse_templates(template(message="TST3-MUC4-0010", **KEY_0010), MUC4, "key").templates
    for fills, maps in ((["? ATTACK", "ARSON"], False), (["ATTACK", "ARSON"], True)):
        response = template(message="TST3-MUC4-0010", **{**KEY_0010, "inc_type": fills})
        pairs = score_systems(MUC4, key, {"sys": parse_templates(response, MUC4, "r").templates})
        assert any(p.key_id and p.response_id for p in pairs.systems["sys"]) is maps, fills
    assert type_tally(["ATTACK", "ARSON"]) == counts(pos=1, act=2, par=1, spu=1)
