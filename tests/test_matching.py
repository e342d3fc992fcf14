"""Value equality (§3) and slot scoring (§6) of the 1992 MUC-4 scorer, on hand-built values."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from muceval.core.model import (
    Configuration,
    History,
    HistoryEntry,
    HistoryMessage,
    HistorySlot,
    HistoryTemplate,
    Judgement,
    SetNode,
    SlotSpec,
    SlotType,
    Text,
)
from muceval.scoring.muc1992.equality import ValueMatcher, allowable, canon, to_model
from muceval.scoring.muc1992.judgements import QueryResolver
from muceval.scoring.muc1992.slots import SlotScorer

PREMODIFIERS = ("a", "the", "an", "one", "two", "six", "1", "10", "other", "of")

TYPE_TREE = (SetNode("ATTACK", tuple(SetNode(v) for v in ("ARSON", "BOMBING", "KIDNAPPING"))),)
INSTR_TREE = (
    SetNode("GUN", (SetNode("MACHINE GUN"), SetNode("MORTAR"))),
    SetNode("EXPLOSIVE", (SetNode("BOMB", (SetNode("VEHICLE BOMB"), SetNode("DYNAMITE"))),)),
    SetNode("FIRE"),
)
HUMTYPE_TREE = (SetNode("CIVILIAN"), SetNode("ACTIVE MILITARY"), SetNode("LEGAL OR JUDICIAL"))


def _config() -> Configuration:
    slots = (
        SlotSpec("message-id", "0.  MESSAGE: ID", SlotType.MESSAGE_ID),
        SlotSpec("template-id", "1.  MESSAGE: TEMPLATE", SlotType.TEMPLATE_ID),
        SlotSpec("date", "2.  DATE", SlotType.DATE),
        SlotSpec("loc", "3.  LOCATION", SlotType.LOCATION),
        SlotSpec("type", "4.  TYPE", SlotType.SET, TYPE_TREE),
        SlotSpec("instr-id", "5.  INSTRUMENT ID", SlotType.STRING),
        SlotSpec("instr-type", "6.  INSTRUMENT TYPE", SlotType.SET, INSTR_TREE, ("instr-id",)),
        SlotSpec("name", "7.  NAME", SlotType.STRING),
        SlotSpec("desc", "8.  DESCRIPTION", SlotType.STRING, (), ("name",)),
        SlotSpec("hum-type", "9.  HUM TYPE", SlotType.SET, HUMTYPE_TREE, ("name", "desc")),
        SlotSpec("num", "10. NUMBER", SlotType.NUMBER, (), ("name", "desc")),
    )
    return Configuration(slots=slots, string_premodifiers=PREMODIFIERS)


CONFIG = _config()


def history(*entries: tuple[str, str, HistoryEntry]) -> History:
    """A history for message M, key template 1: (slot, entry) pairs in order."""
    slots: dict[str, list[HistoryEntry]] = {}
    for slot_id, entry in entries:
        slots.setdefault(slot_id, []).append(entry)
    template = HistoryTemplate("1", tuple(HistorySlot(s, tuple(e)) for s, e in slots.items()))
    return History(None, (HistoryMessage("M", (template,)),))


def entry(response, judgement: Judgement, key=None) -> HistoryEntry:
    return HistoryEntry(to_model(response), judgement, to_model(key), has_key=key is not None)


def score(slot_id, K, R, hist=None, resolver=None, overlap=False, scorer=None):
    scorer = scorer or SlotScorer(CONFIG, hist)
    return tuple(
        scorer.score("M", "1", scorer.rules[slot_id], K, R, resolver=resolver, overlap=overlap)
    )


def row(pos=0, act=0, cor=0, par=0, inc=0, icr=0, ipa=0, spu=0, mis=0, non=0, pie=0):
    return (pos, act, cor, par, inc, icr, ipa, spu, mis, non, pie)


# ---------------------------------------------------------------------------
# §3.2 premodifier stripping
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def matcher() -> ValueMatcher:
    return ValueMatcher(CONFIG)


def test_strip_removes_premodifiers_inside_quotes_case_insensitively(matcher):
    assert matcher.strip('"THE JESUIT PRIESTS"') == '"JESUIT PRIESTS"'
    assert matcher.equal('"JESUIT PRIESTS"', '"THE JESUIT PRIESTS"')
    assert matcher.equal('"JESUITS"', '"SIX JESUITS"')


def test_strip_is_not_anchored_at_word_starts(matcher):
    # "a" followed by a space is deleted inside GUATEMALA, "10 " inside dates.
    assert matcher.strip("GUATEMALA CITY") == "GUATEMALCITY"
    assert matcher.strip("MOTHER X") == "MX"
    assert matcher.equal("10 JAN 90", "1 JAN 90")
    assert not matcher.equal("10 JAN 90", "11 JAN 90")


def test_strip_repeats_until_no_occurrence_is_left(matcher):
    # Deleting "THE " from "THTHE E" leaves no new occurrence; "A A A B" loses every "A ".
    assert matcher.strip("A A A B") == "B"
    assert matcher.strip("OF OF X") == "X"


# ---------------------------------------------------------------------------
# §3.1 equality
# ---------------------------------------------------------------------------


def test_equal_alternatives_and_optional(matcher):
    alternatives = ("or", ('"MILITARY"', '"ARMED FORCES"'))
    assert matcher.equal(alternatives, '"ARMED FORCES"')
    assert matcher.equal('"ARMED FORCES"', alternatives)  # swapped: response side alternatives
    assert matcher.equal(("opt", '"X"'), None)
    assert matcher.equal(("opt", '"X"'), '"X"')
    assert not matcher.equal('"X"', None)
    assert matcher.equal(None, None) and matcher.equal(None, "")


def test_equal_structures(matcher):
    assert matcher.equal(("xref", "CIVILIAN", '"JESUITS"'), ("xref", "CIVILIAN", '"THE JESUITS"'))
    assert not matcher.equal(("xref", "CIVILIAN", '"JESUITS"'), "CIVILIAN")
    assert matcher.equal(("range", None, "26 AUG 89"), ("range", None, "26 AUG 89"))
    loc = ("loc", ("PERU", ("qual", "LIMA", "CITY")))
    assert matcher.equal(loc, ("loc", ("PERU", ("qual", "LIMA", "CITY"))))
    assert not matcher.equal(loc, ("loc", ("PERU",)))
    assert matcher.equal(("or", ("A", "B")), ("or", ("B", "A")))
    assert not matcher.equal(("or", ("A", "B")), ("or", ("A", "C")))


def test_canon_upper_cases_and_round_trips():
    value = to_model(("xref", ("or", ("A", "B")), '"T"'))
    assert canon(value) == ("xref", ("or", ("A", "B")), '"T"')
    assert canon(Text('"the x"')) == '"THE X"'


# ---------------------------------------------------------------------------
# §3.3, §3.4, PIE
# ---------------------------------------------------------------------------


def test_ancestor_any_depth_only_downwards(matcher):
    assert matcher.ancestor("type", "ATTACK", "BOMBING")
    assert matcher.ancestor("instr-type", "EXPLOSIVE", "VEHICLE BOMB")
    assert matcher.ancestor("instr-type", "BOMB", "DYNAMITE")
    assert not matcher.ancestor("instr-type", "BOMB", "EXPLOSIVE")
    assert not matcher.ancestor("instr-type", "GUN", "GUN")
    assert not matcher.ancestor("instr-type", ("xref", "GUN", "T"), "MORTAR")


def test_country_partial(matcher):
    key = ("loc", ("PERU", ("qual", "LIMA", "CITY"), ("qual", "SAN ISIDRO", "NEIGHBORHOOD")))
    assert matcher.country_partial(key, ("loc", ("PERU", ("qual", "LIMA", "CITY"))))
    assert matcher.country_partial(key, "PERU")
    assert not matcher.country_partial("EL SALVADOR", ("loc", ("EL SALVADOR", "X")))
    assert matcher.country_partial(("or", (key, "CHILE")), "PERU")


def test_allowable():
    assert allowable(None) == 0
    assert allowable("ATTACK") == 1
    assert allowable(("or", ("A", "B"))) == 2
    assert allowable(("xref", ("or", ("A", "B", "C")), "T")) == 3
    assert allowable(("opt", ("or", ("A", "B")))) == 1


# ---------------------------------------------------------------------------
# §6.1 single-valued procedure
# ---------------------------------------------------------------------------


def test_single_categories():
    assert score("type", (), ()) == row(non=1, pie=4)
    assert score("type", (), ("ATTACK",)) == row(act=1, spu=1, pie=4)  # spurious: PIE = card
    assert score("type", ("ATTACK",), ()) == row(pos=1, mis=1, pie=3)
    assert score("type", ("ATTACK",), ("ATTACK",)) == row(1, 1, cor=1, pie=3)
    assert score("type", (("or", ("ARSON", "KIDNAPPING")),), ("ATTACK",)) == row(1, 1, inc=1, pie=2)
    # optional key fill, blank response: noncommittal and nothing possible
    assert score("type", (("opt", "ARSON"),), ()) == row(non=1, pie=4)
    assert score("type", (("opt", "ARSON"),), ("ARSON",)) == row(1, 1, cor=1, pie=3)


def test_single_automatic_partials():
    # ATTACK is more general than BOMBING: PAR without IPA.
    assert score("type", ("BOMBING",), ("ATTACK",))[:7] == row(1, 1, par=1)[:7]
    key = ("loc", ("PERU", ("qual", "LIMA", "CITY"), ("qual", "SAN ISIDRO", "NEIGHBORHOOD")))
    assert score("loc", (key,), (("loc", ("PERU", ("qual", "LIMA", "CITY"))),)) == row(1, 1, par=1)
    # A plain-country key never gives automatic partial credit.
    assert score("loc", ("PERU",), (("loc", ("PERU", "LIMA")),)) == row(1, 1, inc=1)
    # Tagged key, untagged response with the right value: automatic partial.
    assert score("instr-type", (("xref", "GUN", '"M-79"'),), ("GUN",))[:7] == row(1, 1, par=1)[:7]


def test_single_string_premodifier_match_and_word_overlap_only_when_mapping():
    assert score("name", ('"JESUIT PRIESTS"',), ('"THE JESUIT PRIESTS"',)) == row(1, 1, cor=1)
    assert score("name", ('"JESUIT PRIESTS"',), ('"PRIESTS"',)) == row(1, 1, inc=1)
    assert score("name", ('"JESUIT PRIESTS"',), ('"PRIESTS"',), overlap=True) == row(1, 1, cor=1)


def test_single_value_right_tag_wrong_is_a_query():
    K = (("xref", "GUN", '"M-79"'),)
    R = (("xref", "GUN", '"RIFLES"'),)
    assert score("instr-type", K, R)[:7] == row(1, 1, inc=1)[:7]  # batch: no credit
    ans = QueryResolver("partial")
    assert score("instr-type", K, R, resolver=ans)[:7] == row(1, 1, par=1, ipa=1)[:7]


# ---------------------------------------------------------------------------
# §6.2 multi-valued procedure
# ---------------------------------------------------------------------------


def test_multi_leftovers_and_optional_fills():
    # 1 key, 2 responses: one correct, one spurious.
    assert score("name", ('"A"',), ('"A"', '"B"')) == row(1, 2, cor=1, spu=1)
    # 2 keys, 1 wrong response: INC 1, MIS 1.
    assert score("name", ('"A"', '"B"'), ('"C"',)) == row(2, 1, inc=1, mis=1)
    # An unmatched optional key fill is not possible...
    assert score("name", ('"A"', ("opt", '"B"')), ('"A"',)) == row(1, 1, cor=1)
    # ...unless it absorbs a surplus response fill.
    assert score("name", ('"A"', ("opt", '"B"')), ('"A"', '"C"')) == row(2, 2, cor=1, inc=1)
    # A matched optional fill counts.
    assert score("name", ('"A"', ("opt", '"B"')), ('"B"', '"A"')) == row(2, 2, cor=2)


def test_multi_pie_sums_over_paired_fills():
    # both keys paired (one matched, one left over): PIE = (3 - 1) + (3 - 1)
    t = score("type", ("ARSON", "KIDNAPPING"), ("ARSON", "BOMBING"))
    assert t == row(2, 2, cor=1, inc=1, pie=6)


def test_worked_example_of_section_6_3():
    K = (
        ("xref", "MORTAR", '"MORTARS"'),
        ("xref", "FIRE", '"ROCKETS"'),
        ("xref", "GUN", '"M-79"'),
        ("xref", "MACHINE GUN", '"-"'),
    )
    R = (("xref", "MACHINE GUN", '"-"'), ("xref", "GUN", '"-"'))
    # Query pass: GUN is scored against the first remaining key (MORTAR): auto partial.
    t = score("instr-type", K, R, resolver=QueryResolver())
    assert t[:10] == row(4, 2, cor=1, par=1, mis=2)[:10]
    # Batch mode: no query pass, GUN stays incorrect.
    assert score("instr-type", K, R)[:10] == row(4, 2, cor=1, inc=1, mis=2)[:10]


def test_history_fail_partial_and_distributed_judgement():
    hist = history(
        ("desc", entry('"LEADERS"', Judgement.FAIL)),
        (
            "desc",
            entry(
                '"TWO POLITICAL LEADERS"',
                Judgement.PARTIAL,
                ("allof", ('"GILDA FLORES"', '"HECTOR OQUELI"')),
            ),
        ),
    )
    K = ('"GILDA FLORES"', '"HECTOR OQUELI"')
    # found through premodifier stripping; credited to both keys: ACT 2 for one fill
    assert score("desc", K, ('"THE TWO POLITICAL LEADERS"',), hist) == row(2, 2, par=2, ipa=2)
    assert score("desc", K, ('"LEADERS"', '"X"'), hist) == row(2, 2, inc=2)


def test_vanishing_response_fill():
    hist = history(
        ("name", entry('"FMLN TERRORIST GROUPS"', Judgement.MATCH, ("opt", '"URBAN COMMANDOS"'))),
        ("name", entry('"TERRORISTS"', Judgement.PARTIAL, ("opt", '"URBAN COMMANDOS"'))),
    )
    K = (("opt", '"URBAN COMMANDOS"'),)
    t = score("name", K, ('"FMLN TERRORIST GROUPS"', '"TERRORISTS"'), hist)
    assert t == row(1, 1, cor=1, icr=1)  # the second fill is counted nowhere


def test_xref_tag_judged_partial_gives_par_without_ipa():
    hist = history(("name", entry('"VALENCIA"', Judgement.PARTIAL, '"CARLOS VALENCIA"')))
    K = (("xref", "LEGAL OR JUDICIAL", '"CARLOS VALENCIA"'),)
    R = (("xref", "LEGAL OR JUDICIAL", '"VALENCIA"'),)
    assert score("hum-type", K, R, hist)[:10] == row(1, 1, par=1)[:10]
    # A history fail for the tag aborts the correspondence: no credit.
    hist = history(("name", entry('"VALENCIA"', Judgement.FAIL)))
    assert score("hum-type", K, R, hist)[:10] == row(1, 1, inc=1)[:10]


def test_composite_quirk_credits_last_corresponding_fill():
    # Both key tags are accepted for the response tag through a judged partial:
    # COR + ICR credited to the last (optional) fill, the other one missing.
    hist = history(
        (
            "name",
            entry(
                '"POWER SYSTEM"', Judgement.PARTIAL, ("allof", ('"SUB-STATION"', '"TRANSFORMER"'))
            ),
        )
    )
    K = (("xref", "CIVILIAN", '"SUB-STATION"'), ("opt", ("xref", "CIVILIAN", '"TRANSFORMER"')))
    R = (("xref", "CIVILIAN", '"POWER SYSTEM"'),)
    assert score("hum-type", K, R, hist)[:10] == row(2, 1, cor=1, icr=1, mis=1)[:10]


def test_exact_tag_with_wrong_value_blocks_history_when_other_keys_remain():
    stored = ("xref", ("or", ('"SOUND TECHNICIAN"', '"REPORTER"')), '"PINEDA"')
    response = ("xref", '"SALVADORAN REPORTER"', '"PINEDA"')
    hist = history(("desc", entry(response, Judgement.MATCH, stored)))
    # Two key fills, the tag of the first one equal: no credit at all.
    assert score("desc", (stored, '"TEAM"'), (response,), hist) == row(2, 1, inc=1, mis=1)
    # Only that key fill left: the history judgement applies.
    assert score("desc", (stored,), (response,), hist) == row(1, 1, cor=1, icr=1)


# ---------------------------------------------------------------------------
# Queries
# ---------------------------------------------------------------------------


def test_query_policies_for_unjudged_values():
    K, R = ("12 MAR 89",), ("13 MAR 89",)
    assert score("date", K, R) == row(1, 1, inc=1)
    assert score("date", K, R, resolver=QueryResolver("incorrect")) == row(1, 1, inc=1)
    assert score("date", K, R, resolver=QueryResolver("partial")) == row(1, 1, par=1, ipa=1)
    assert score("date", K, R, resolver=QueryResolver("correct")) == row(1, 1, cor=1, icr=1)


def test_ask_records_the_answer_and_later_lookups_see_it():
    asked = []

    def ask(query):
        asked.append(query)
        return Judgement.PARTIAL

    resolver = QueryResolver("ask", ask)
    scorer = SlotScorer(CONFIG, None)
    K, R = ("12 MAR 89",), ("13 MAR 89",)
    assert score("date", K, R, resolver=resolver, scorer=scorer) == row(1, 1, par=1, ipa=1)
    assert len(asked) == 1 and asked[0].offered == (Text("12 MAR 89"),)
    new = resolver.new_judgements
    assert len(new) == 1 and new[0].entry.judgement is Judgement.PARTIAL
    assert new[0].entry.key == Text("12 MAR 89")
    # batch look-up in the same run now finds the judgement without asking
    assert score("date", K, R, scorer=scorer) == row(1, 1, par=1, ipa=1)
    assert len(asked) == 1


def test_ask_policy_needs_a_callback():
    with pytest.raises(ValueError):
        QueryResolver("ask")


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------

_words = st.sampled_from(["ATTACK", "ARSON", "BOMBING", "KIDNAPPING", "GUN", '"THE X"', '"X"'])
_values = st.recursive(
    _words,
    lambda inner: st.one_of(
        st.tuples(st.just("xref"), inner, _words),
        st.tuples(st.just("or"), st.lists(_words, min_size=2, max_size=3).map(tuple)),
    ),
    max_leaves=4,
)


@given(st.lists(_values, max_size=4))
def test_fills_scored_against_themselves_are_all_correct(fills):
    t = score("type", tuple(fills), tuple(fills))
    n = len(fills)
    assert t[:10] == row(n, n, cor=n, non=1 if n == 0 else 0)[:10]


@given(_values, _values)
def test_equal_is_reflexive_and_consistent_with_strip(a, b):
    m = ValueMatcher(CONFIG)
    assert m.equal(a, a)
    if isinstance(a, str) and isinstance(b, str):
        assert m.equal(a, b) == (m.strip(a) == m.strip(b))
