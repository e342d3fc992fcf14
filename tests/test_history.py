"""Tests of the history reader/writer (SCORER-SPEC §12)."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import assert_one_problem
from muceval.core.model import (
    AllOf,
    Alternatives,
    Between,
    CrossRef,
    History,
    HistoryEntry,
    HistoryMapping,
    HistoryMessage,
    HistorySlot,
    HistoryTemplate,
    Judgement,
    Location,
    OptionalValue,
    Qualified,
    Range,
    Text,
    add_judgement,
)
from muceval.errors import InputError, OutputError
from muceval.formats import files as files_module
from muceval.formats.muc.history import (
    format_value,
    insert_entries,
    parse_history,
    read_history,
    save_history,
    write_history,
)

BROKEN = Path(__file__).resolve().parent / "data" / "broken" / "history"

SMALL = r"""(("TST9-MUC4-0001"
  ("1"
   (inc-loc
    ("PERU" fail)
    ((location "COLOMBIA" (qualified "BOGOTA" "CITY")) partial "COLOMBIA")))
  (":MAP" ("1" . "2") (nil . "3") ("2")))
 ("TST9-MUC4-0002"
  ("2"
   (hum-tgt-num
    ((xref "PLURAL" "\"PEASANTS\"") nomatch)
    ("7" auto-partial (optional (range "5" "9")))
    ((between "A" "B") match (all-of "\"X\\Y\"" (or "A" nil)))))))"""


# --- real files -------------------------------------------------------------------


def test_tst3_history_counts(muc4):
    history = read_history(muc4 / "tst3" / "final-history-nrad.tst3")
    assert len(history.messages) == 68
    entries = [entry for *_, entry in history.entries()]
    assert len(entries) == 1953
    assert Counter(e.judgement for e in entries) == {
        Judgement.FAIL: 996,
        Judgement.PARTIAL: 816,
        Judgement.MATCH: 141,
    }
    assert sum(isinstance(e.key, AllOf) for e in entries) == 23
    assert {t for _, t, _, _ in history.entries()} == {"1", "2", "3", "4", "5", "6"}
    assert history.mappings() == {}
    # fail entries carry no key; match/partial always do
    assert all(not e.has_key for e in entries if e.judgement is Judgement.FAIL)
    assert all(e.has_key for e in entries if e.judgement is not Judgement.FAIL)
    by_slot = Counter((s, e.judgement) for _, _, s, e in history.entries())
    assert (
        by_slot["hum-tgt-desc", Judgement.FAIL],
        by_slot["hum-tgt-desc", Judgement.MATCH],
        by_slot["hum-tgt-desc", Judgement.PARTIAL],
    ) == (259, 36, 74)
    assert (
        by_slot["inc-date", Judgement.FAIL],
        by_slot["inc-date", Judgement.MATCH],
        by_slot["inc-date", Judgement.PARTIAL],
    ) == (104, 28, 98)


def test_tst3_history_values(muc4):
    history = read_history(muc4 / "tst3" / "final-history-nrad.tst3")
    first = history.messages[0]
    assert first.message_id == "TST3-MUC4-0011"
    lookup = {(m, t, s, e.response): e for m, t, s, e in history.entries()}
    leaders = lookup["TST3-MUC4-0011", "1", "hum-tgt-desc", Text('"LEADERS"')]
    assert leaders.judgement is Judgement.FAIL and leaders.key is None and not leaders.has_key
    date = lookup["TST3-MUC4-0011", "1", "inc-date", Range(None, Text("04 MAY 1988"))]
    assert date.judgement is Judgement.MATCH and date.key == Range(None, Text("04 MAY 88"))
    bogota = lookup[
        "TST3-MUC4-0011",
        "1",
        "inc-loc",
        Location(Text("COLOMBIA"), (Qualified(Text("BOGOTA"), Text("CITY")),)),
    ]
    assert bogota.judgement is Judgement.PARTIAL and bogota.key == Text("COLOMBIA")
    other = lookup[
        "TST3-MUC4-0018", "1", "phys-tgt-type", CrossRef(Text("OTHER"), Text('"UNIVERSITY"'))
    ]
    assert other.key == CrossRef(
        Text("OTHER"),
        Alternatives((Text('"1ST INFANTRY BRIGADE"'), Text('"1ST INFANTRY BRIGADE GARRISON"'))),
    )
    assert leaders.line is not None and date.line == leaders.line + 5


@pytest.mark.parametrize(
    "relative", ["tst3/final-history-nrad.tst3", "tst4/final-cumulative-hist.tst4"]
)
def test_real_histories_round_trip(muc4, relative):
    path = muc4 / relative
    history = read_history(path)
    written = write_history(history)
    assert parse_history(written, str(path)) == history
    # The layout of the 1992 pretty-printer is reproduced byte for byte.
    assert written == path.read_text()


# --- small examples ------------------------------------------------------------------


def test_all_value_forms_judgements_and_mappings():
    history = parse_history(SMALL, "small")
    assert history.path == "small"
    assert history.mappings() == {
        "TST9-MUC4-0001": HistoryMapping((("1", "2"), (None, "3"), ("2", None)))
    }
    entries = [e for *_, e in history.entries()]
    assert [e.judgement for e in entries] == [
        Judgement.FAIL,
        Judgement.PARTIAL,
        Judgement.NOMATCH,
        Judgement.AUTO_PARTIAL,
        Judgement.MATCH,
    ]
    assert entries[3].key == OptionalValue(Range(Text("5"), Text("9")))
    assert entries[4].response == Between(Text("A"), Text("B"))
    assert entries[4].key == AllOf((Text('"X\\Y"'), Alternatives((Text("A"), None))))
    assert [e.line for e in entries] == [4, 5, 10, 11, 12]
    again = parse_history(write_history(history), "small")
    assert again == history
    # Items keep their file order: the mapping stays after the template it follows.
    assert isinstance(again.messages[0].items[1], HistoryMapping)


def test_format_value_uses_lisp_escapes():
    assert format_value(Text('"LEADERS"')) == r'"\"LEADERS\""'
    assert format_value(Text("a\\b")) == r'"a\\b"'
    assert format_value(None) == "nil"
    assert format_value(Range(None, Text("04 MAY 88"))) == '(range nil "04 MAY 88")'


def test_empty_history_round_trips():
    empty = History(path=None, messages=())
    assert write_history(empty) == "nil"
    assert parse_history("nil", "h").messages == ()
    assert parse_history("()", "h").messages == ()


# --- broken inputs -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "line", "fragment"),
    [
        ("bad-judgement.hist", 6, "unknown judgement symbol 'maybe'"),
        ("unbalanced.hist", 4, "unexpected ')'"),
        ("unclosed.hist", 7, "never closed"),
        ("missing-paren.hist", 4, "a ')' is probably missing"),
        ("unterminated-string.hist", 5, "unterminated string"),
        ("bad-value.hist", 5, "unknown value operator 'place'"),
        ("bad-map.hist", 6, "(KEY-ID . RESPONSE-ID)"),
        ("bad-arity.hist", 4, "(xref …) takes 2 value(s), found 1"),
        ("empty.hist", 1, "empty file"),
        ("binary-nul.hist", 4, "NUL"),
        ("binary-garbage.hist", 3, "binary data"),
    ],
)
def test_broken_histories(name, line, fragment):
    path = BROKEN / name
    with pytest.raises(InputError) as caught:
        read_history(path)
    assert_one_problem(caught.value, path, line, fragment)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('(("M" ("1" (slot ("A")))))', "2 or 3 elements"),
        ('(("M" ("1" (slot ("A" fail "B" "C")))))', "2 or 3 elements"),
        ('(("M" ("1" ("slot" ("A" fail)))))', "slot id as a symbol"),
        ('((M ("1")))', "id as a string"),
        ('(("M" (1 (slot ("A" fail)))))', "id as a string"),
        ('(("M" ("1" (slot (42 fail)))))', "expected a fill value"),
        ('(("M" (":MAP" (1 . "2"))))', "template id string or nil"),
        ('("M")', "expected a message"),
        ('"M"', "expected the history"),
        ('(("M")) (("N"))', "unexpected text after"),
    ],
)
def test_history_shape_errors(text, fragment):
    with pytest.raises(InputError) as caught:
        parse_history(text, "h.hist")
    assert fragment in str(caught.value)
    assert caught.value.problems[0].line == 1


# --- add_judgement ------------------------------------------------------------------


def test_add_judgement_is_pure_and_groups_entries():
    original = parse_history(SMALL, "small")
    entry = HistoryEntry(Text("CHILE"), Judgement.MATCH, Text("CHILE"), has_key=True)
    updated = add_judgement(original, "TST9-MUC4-0001", "1", "inc-loc", entry)
    assert original == parse_history(SMALL, "small")  # unchanged
    slot = updated.messages[0].items[0].slots[0]
    assert slot.slot_id == "inc-loc" and slot.entries[-1] == entry and len(slot.entries) == 3
    # new slot in an existing template, new template, new message: created at the end
    updated = add_judgement(updated, "TST9-MUC4-0001", "1", "inc-date", entry)
    assert [s.slot_id for s in updated.messages[0].items[0].slots] == ["inc-loc", "inc-date"]
    updated = add_judgement(updated, "TST9-MUC4-0001", "3", "inc-date", entry)
    assert [getattr(i, "template_id", ":MAP") for i in updated.messages[0].items] == [
        "1",
        ":MAP",
        "3",
    ]
    updated = add_judgement(updated, "TST9-MUC4-0099", "1", "inc-date", entry)
    assert updated.messages[-1] == HistoryMessage(
        "TST9-MUC4-0099", (HistoryTemplate("1", (HistorySlot("inc-date", (entry,)),)),)
    )
    assert sum(1 for _ in updated.entries()) == sum(1 for _ in original.entries()) + 4
    assert parse_history(write_history(updated), "small") == updated
    with pytest.raises(ValueError):
        add_judgement(original, "M", ":MAP", "inc-loc", entry)


# --- save_history -------------------------------------------------------------------


def test_save_history_writes_and_replaces(tmp_path):
    history = parse_history(SMALL, "small")
    target = tmp_path / "history"
    save_history(history, target)
    assert read_history(target).messages == history.messages
    target.chmod(0o640)
    smaller = History(None, history.messages[:1])
    save_history(smaller, target)
    assert read_history(target).messages == smaller.messages
    assert (target.stat().st_mode & 0o777) == 0o640  # permissions of the old file are kept
    assert sorted(p.name for p in tmp_path.iterdir()) == ["history"]


@pytest.mark.parametrize("failing", ["fsync", "replace", "write"])
def test_save_history_is_atomic(tmp_path, monkeypatch, failing):
    target = tmp_path / "history"
    target.write_text(SMALL)
    before = target.read_bytes()
    history = parse_history(SMALL, "small")
    bigger = add_judgement(
        history, "TST9-MUC4-0003", "1", "inc-loc", HistoryEntry(Text("X"), Judgement.FAIL)
    )

    def boom(*args, **kwargs):
        raise OSError(28, "No space left on device")

    if failing == "write":
        real_fdopen = os.fdopen

        class HalfWriter:
            def __init__(self, handle):
                self.handle = handle

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                self.handle.close()
                return False

            def write(self, data):
                self.handle.write(data[: len(data) // 2])  # half written, then the disk is full
                boom()

            def __getattr__(self, name):
                return getattr(self.handle, name)

        monkeypatch.setattr(
            files_module.os, "fdopen", lambda fd, mode: HalfWriter(real_fdopen(fd, mode))
        )
    else:
        monkeypatch.setattr(files_module.os, failing, boom)
    with pytest.raises(OutputError, match="No space left"):
        save_history(bigger, target)
    monkeypatch.undo()
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["history"]  # temporary file removed


# --- properties ------------------------------------------------------------------------

TEXTS = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12
).map(Text)
IDS = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1, max_size=8
)
SLOT_IDS = st.from_regex(r"[a-z][a-z0-9-]{0,10}", fullmatch=True).filter(
    lambda s: s not in ("nil", "t")
)
LEAVES = st.one_of(TEXTS, st.none())


def _compound(children):
    return st.one_of(
        st.lists(children, min_size=1, max_size=3).map(lambda xs: Alternatives(tuple(xs))),
        st.tuples(children, children).map(lambda p: CrossRef(*p)),
        st.tuples(children, children).map(lambda p: Range(*p)),
        st.tuples(children, st.lists(children, max_size=3)).map(
            lambda p: Location(p[0], tuple(p[1]))
        ),
        st.tuples(children, children).map(lambda p: Qualified(*p)),
        st.tuples(children, children).map(lambda p: Between(*p)),
        children.map(OptionalValue),
        st.lists(children, min_size=1, max_size=3).map(lambda xs: AllOf(tuple(xs))),
    )


VALUES = st.recursive(LEAVES, _compound, max_leaves=6)


@st.composite
def entries(draw):
    judgement = draw(st.sampled_from(list(Judgement)))
    has_key = draw(st.booleans())
    key = draw(VALUES) if has_key else None
    return HistoryEntry(draw(VALUES), judgement, key, has_key)


SLOTS = st.builds(HistorySlot, SLOT_IDS, st.lists(entries(), max_size=3).map(tuple))
TEMPLATES = st.builds(
    HistoryTemplate, IDS.filter(lambda s: s != ":MAP"), st.lists(SLOTS, max_size=3).map(tuple)
)
MAPPINGS = st.builds(
    HistoryMapping,
    st.lists(st.tuples(st.none() | IDS, st.none() | IDS), max_size=3).map(tuple),
)
MESSAGES = st.builds(
    HistoryMessage, IDS, st.lists(st.one_of(TEMPLATES, MAPPINGS), max_size=3).map(tuple)
)
HISTORIES = st.builds(History, st.just("h"), st.lists(MESSAGES, max_size=3).map(tuple))


@settings(max_examples=150, deadline=None)
@given(HISTORIES)
def test_random_histories_round_trip(history):
    text = write_history(history)
    assert parse_history(text, "h") == history
    assert write_history(parse_history(text, "h")) == text


# --- inserting answers into a user's file ---------------------------------------------

_IDS = st.sampled_from(["M-1", "M-2", "M-3"])
_TIDS = st.sampled_from(["1", "2"])
_SLOTS = st.sampled_from(["inc-type", "hum-tgt-name", "inc-loc"])
_ENTRY = st.builds(lambda raw, j: HistoryEntry(Text(raw), j),
                   st.sampled_from(['"A"', "B", '"C\\"D"', "E\0F"]),
                   st.sampled_from([Judgement.FAIL, Judgement.NOMATCH]))
_ADDED = st.lists(st.tuples(_IDS, _TIDS, _SLOTS, _ENTRY), max_size=6)


@settings(max_examples=200, deadline=None)
@given(base=_ADDED, added=_ADDED, commented=st.booleans(), crlf=st.booleans())
def test_inserted_answers_read_back_as_appended_judgements(base, added, commented, crlf) -> None:
    history = History(None, ())
    for m, t, s, e in base:
        history = add_judgement(history, m, t, s, e)
    text = write_history(history)
    if commented:  # a comment at the end of every line: they must all survive
        text = "\n".join(f"{line} ; note {n}" for n, line in enumerate(text.split("\n"))) + "\n"
    if crlf:
        text = text.replace("\n", "\r\n")
    expected = history
    for m, t, s, e in added:
        expected = add_judgement(expected, m, t, s, e)
    result = insert_entries(text, added)
    assert parse_history(result, "h").messages == expected.messages
    if commented:
        assert all(f"; note {n}" in result for n in range(text.count("\n")))
    if "\r\n" in text:  # the file's line ends are kept for what is added
        assert "\n" not in result.replace("\r\n", "")
    assert "\0" not in result
