"""Template mapping (SCORER-SPEC §7): restriction, pair scores, greedy/optimal, manual mappings."""

from __future__ import annotations

import pytest

from muceval.core.model import (
    Configuration,
    Restriction,
    SetNode,
    Slot,
    SlotSpec,
    SlotType,
    Template,
    Text,
)
from muceval.errors import InputError
from muceval.formats.muc.mappings import (
    mappings_from_report,
    parse_mapping_file,
    read_mapping_file,
)
from muceval.scoring.muc1992.mapping import (
    PairEvaluator,
    greedy_mapping,
    history_mapping,
    optimal_mapping,
    prepare,
    replay_mapping,
    sort_templates,
)
from muceval.scoring.muc1992.slots import SlotScorer

SLOTS = (
    SlotSpec("message-id", "0.", SlotType.MESSAGE_ID),
    SlotSpec("template-id", "1.", SlotType.TEMPLATE_ID),
    SlotSpec(
        "type", "2.", SlotType.SET, (SetNode("ATTACK", (SetNode("BOMBING"), SetNode("ARSON"))),)
    ),
    SlotSpec("target", "3.", SlotType.STRING),
    SlotSpec("perp", "4.", SlotType.STRING),
)
RESTRICTION = Restriction("and", ("type", Restriction("or", ("target", "perp"))))
CONFIG = Configuration(slots=SLOTS, restrict_map_slots=RESTRICTION, string_premodifiers=("the",))


def template(tid: str, type_=None, target=None, perp=None, optional=False) -> Template:
    def slot(slot_id, value):
        fills = () if value is None else tuple(Text(v) for v in value.split("|"))
        return Slot(slot_id, fills)

    return Template(
        "M", tid, optional, (slot("type", type_), slot("target", target), slot("perp", perp))
    )


def evaluator() -> PairEvaluator:
    return PairEvaluator(SlotScorer(CONFIG, None), RESTRICTION, ("type", "target", "perp"))


def ids(pairs):
    return [(k.template_id if k else None, r.template_id if r else None) for k, r in pairs]


def test_restriction_needs_every_and_operand_and_word_overlap_counts():
    ev = evaluator()
    key = prepare(template("1", "BOMBING", '"THE BLUE HOUSE"'))
    # one word in common is enough for a string slot while mapping
    assert ev.allowed("M", key, prepare(template("1", "ATTACK", '"HOUSE OF X"')))
    # the type must (at least partially) match
    assert not ev.allowed("M", key, prepare(template("1", "ARSON", '"BLUE HOUSE"')))
    # the or fails: key target present, response target blank; perp is null
    assert not ev.allowed("M", key, prepare(template("1", "BOMBING")))
    # irrelevant templates are always allowed
    assert ev.allowed("M", key, prepare(template("*")))


def test_or_holds_when_every_operand_is_null():
    ev = evaluator()
    assert ev.allowed("M", prepare(template("1", "BOMBING")), prepare(template("2", "BOMBING")))


def test_pair_score_is_recall_or_100_when_nothing_is_possible():
    ev = evaluator()
    key = prepare(template("1", "BOMBING", '"HOUSE"'))
    assert ev.score("M", key, prepare(template("1", "ATTACK", '"HOUSE"'))) == 75
    assert ev.score("M", prepare(template("*")), key) == 100


def test_catalog_order_is_plain_string_order():
    ts = [prepare(template(t)) for t in ("2", "10", "1", "*")]
    assert [t.template_id for t in sort_templates(ts)] == ["*", "1", "10", "2"]


def test_greedy_takes_best_pairs_first_and_ties_in_key_order():
    ev = evaluator()
    keys = [prepare(template("1", "BOMBING", '"A"')), prepare(template("2", "BOMBING", '"B"'))]
    responses = [
        prepare(template("1", "BOMBING", '"B"')),
        prepare(template("2", "BOMBING", '"A"')),
        prepare(template("3", "ARSON", '"A"')),
    ]
    assert ids(greedy_mapping("M", keys, responses, ev)) == [("1", "2"), ("2", "1"), (None, "3")]
    # a tie: both responses equally good for key 1; the first one wins
    responses = [prepare(template("1", "BOMBING", '"A"')), prepare(template("2", "BOMBING", '"A"'))]
    assert ids(greedy_mapping("M", keys[:1], responses, ev)) == [("1", "1"), (None, "2")]


class TableEvaluator:
    """Pair scores from a table; missing pairs are not allowed."""

    def __init__(self, table):
        self.table = table

    def allowed(self, message_id, key, response):
        return (key.template_id, response.template_id) in self.table

    def score(self, message_id, key, response):
        return self.table[key.template_id, response.template_id]


def test_optimal_beats_greedy_when_greedy_is_shortsighted():
    keys = [prepare(template("1")), prepare(template("2"))]
    responses = [prepare(template("1")), prepare(template("2"))]
    table = TableEvaluator({("1", "1"): 100, ("1", "2"): 90, ("2", "1"): 80})
    assert ids(greedy_mapping("M", keys, responses, table)) == [
        ("1", "1"),
        ("2", None),
        (None, "2"),
    ]
    assert ids(optimal_mapping("M", keys, responses, table)) == [("1", "2"), ("2", "1")]


def test_optimal_prefers_more_pairs_at_equal_score_and_keeps_zero_pairs():
    keys = [prepare(template("1")), prepare(template("2"))]
    responses = [prepare(template("1")), prepare(template("2"))]
    table = TableEvaluator({("1", "1"): 50, ("1", "2"): 50, ("2", "1"): 0})
    assert ids(optimal_mapping("M", keys, responses, table)) == [("1", "2"), ("2", "1")]
    assert ids(optimal_mapping("M", keys, responses, TableEvaluator({}))) == [
        ("1", None),
        ("2", None),
        (None, "1"),
        (None, "2"),
    ]


def test_replay_keeps_order_and_duplicates_and_bypasses_the_restriction():
    keys = [prepare(template("1", "BOMBING", '"A"')), prepare(template("2", "ARSON"))]
    responses = [prepare(template("1", "KIDNAPPING", '"Z"'))]
    pairs = replay_mapping("M", keys, responses, [("2", None), ("1", "1"), ("1", "1")])
    assert ids(pairs) == [("2", None), ("1", "1"), ("1", "1")]
    with pytest.raises(InputError, match="no key template '9'"):
        replay_mapping("M", keys, responses, [("9", "1")])


def test_history_mapping_drops_disallowed_pairs_and_needs_every_template():
    ev = evaluator()
    keys = [prepare(template("1", "BOMBING", '"A"')), prepare(template("2", "ARSON", '"B"'))]
    responses = [prepare(template("1", "BOMBING", '"A"')), prepare(template("2", "BOMBING", '"B"'))]
    # (2 . 2) fails the restriction: dropped, both stay consumed
    user = history_mapping("M", keys, responses, [("1", "1"), ("2", "2")], ev)
    assert ids(user) == [("1", "1")]
    # response 2 not mentioned: the whole user mapping is discarded
    assert history_mapping("M", keys, responses, [("1", "1"), ("2", None)], ev) is None


def test_parse_mapping_file_and_errors(tmp_path):
    text = "# comment\nM1 1 2\nM1 - 3  # spurious\nM2 <NONE> 1\n"
    assert parse_mapping_file(text) == {"M1": [("1", "2"), (None, "3")], "M2": [(None, "1")]}
    with pytest.raises(InputError) as error:
        parse_mapping_file("M1 1\nM1 - -\n", "map.txt")
    assert [p.line for p in error.value.problems] == [1, 2]
    path = tmp_path / "map.txt"
    path.write_text("M1 1 1\n")
    assert read_mapping_file(path) == {"M1": [("1", "1")]}
    with pytest.raises(InputError, match="cannot read"):
        read_mapping_file(tmp_path / "missing.txt")


def test_mappings_from_report_keeps_duplicates(muc4):
    from muceval.formats.muc.reports import read_report

    report = read_report(muc4 / "tst3" / "official-scores" / "LSI.tst3-pass1.nrad")
    mapping = mappings_from_report(report.blocks)
    assert mapping["TST3-MUC4-0005"].count(("1", "1")) == 2
    assert sum(len(v) for v in mapping.values()) == len(report.blocks)
