"""A save inserts only the new answer (issue 30): the file on disk and ``store.history`` after
every answer, undo, failed save and edit by another program are exactly those of the
algorithm that re-read the whole history at every save, kept below as the reference."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from muceval.core.model import (
    Alternatives,
    CrossRef,
    History,
    HistoryEntry,
    HistoryTemplate,
    Judgement,
    Range,
    Text,
    add_judgement,
)
from muceval.errors import OutputError, UsageError
from muceval.formats import sexpr
from muceval.formats.files import read_text, text_encoding
from muceval.formats.muc import store as store_module
from muceval.formats.muc.history import (
    HistoryEditor,
    _entry_lines,
    _message_lines,
    _slot_lines,
    _template_lines,
    format_value,
    insert_entries,
    parse_history,
    write_history,
)
from muceval.formats.muc.store import HistorySaveError, HistoryStore
from muceval.formats.sexpr import SList, String, Symbol

EXAMPLE = Path(str(files("muceval") / "data" / "example" / "history.lisp"))


# --- the reference: insert_entries as it was before issue 30 (the whole text parsed) ----

def _reference_insert(text: str, added: Sequence[tuple[str, str, str, HistoryEntry]],
                      path: str = "<string>") -> str:
    if not added:
        return text
    new = History(None, ())
    for message_id, template_id, slot_id, entry in added:
        new = add_judgement(new, message_id, template_id, slot_id, entry)
    top = sexpr.parse_one(text, path)
    nl = "\r\n" if "\r\n" in text else "\n"
    if not isinstance(top, SList):
        offset = _reference_offset(text, top.line, top.column)
        return text[:offset] + write_history(new).replace("\n", nl) + text[offset + 3 :]
    inserts: list[tuple[int, str]] = []
    first_in_empty = not top.items
    for message in new.messages:
        m_node = _reference_child(top, String, message.message_id)
        if m_node is None:
            lead = "" if first_in_empty else "\n "
            first_in_empty = False
            inserts.append((top.end, lead + "\n".join(_message_lines(message))))
            continue
        for item in message.items:
            assert isinstance(item, HistoryTemplate)
            t_node = _reference_child(m_node, String, item.template_id)
            if t_node is None:
                inserts.append((m_node.end, "\n" + "\n".join(_template_lines(item))))
                continue
            for slot in item.slots:
                s_node = _reference_child(t_node, Symbol, slot.slot_id)
                lines = _slot_lines(slot) if s_node is None else [
                    line for e in slot.entries for line in _entry_lines(e)]
                inserts.append(((t_node if s_node is None else s_node).end,
                                "\n" + "\n".join(lines)))
    order = sorted(range(len(inserts)), key=lambda i: (inserts[i][0], i), reverse=True)
    for i in order:
        offset, piece = inserts[i]
        text = text[:offset] + piece.replace("\n", nl) + text[offset:]
    return text


def _reference_child(node: SList, kind: type, name: str) -> SList | None:
    for item in node.items[1:] if node.items and not isinstance(node.items[0], SList) else node.items:
        if isinstance(item, SList) and item.items and isinstance(item.items[0], kind):
            head = item.items[0]
            if (head.value if isinstance(head, String) else head.name) == name:
                return item
    return None


def _reference_offset(text: str, line: int, column: int) -> int:
    start = 0
    for _ in range(line - 1):
        start = text.index("\n", start) + 1
    return start + column - 1


class _Reference:
    """What the store before issue 30 held and wrote: the text read (plus what others added
    at its end), the answers, the history replayed from the one read."""

    def __init__(self, text: str | None, history: History, encoding: str, bom: bool) -> None:
        self.text, self.base, self.encoding, self.bom = text, history, encoding, bom
        self.added: list[tuple[str, str, str, HistoryEntry]] = []
        self.written = text  # the file as the store last read or wrote it

    def history(self) -> History:
        history = self.base
        for item in self.added:
            history = add_judgement(history, *item)
        return history

    def file_text(self) -> str:
        if self.text is None:
            return write_history(self.history())
        return _reference_insert(self.text, self.added)

    def data(self) -> bytes:
        return (b"\xef\xbb\xbf" if self.bom else b"") + self.file_text().encode(self.encoding)

    def saving(self, path: Path) -> None:
        """What the store does with text added to the file by another program before each
        save: taken in once, also when that save fails (the previous store took it in again
        at the next save: the added text was written twice)."""
        current = read_text(path) if path.exists() else None
        if current != self.written and current is not None and self.written is not None \
                and self.text is not None and current.startswith(self.written):
            self.text += current[len(self.written):]
            self.written = current


# --- the histories: real ones, the example, and unusual layouts -------------------------

_EXAMPLE_TEXT = EXAMPLE.read_text(encoding="utf-8")
_SMALL = {
    "example": _EXAMPLE_TEXT.encode(),
    "nil": b"nil",
    "commented nil": b";; nothing judged yet\r\nnil\n",
    "empty list": b"()",
    "crlf": _EXAMPLE_TEXT.replace("\n", "\r\n").encode(),
    "comments": (";;; by hand\n" + _EXAMPLE_TEXT.replace(")\n", ") ; note\n") + "\n").encode(),
    "latin-1": (";; r\xe9vis\xe9\n" + _EXAMPLE_TEXT).encode("latin-1"),
    "bom": b"\xef\xbb\xbf" + _EXAMPLE_TEXT.encode(),
    "one line": b'(("M-1" ("1" (inc-type ("A" fail))) (":MAP" ("1" . "2"))) ("M-1" ("2" (x ("B" fail)))))',
    "new file": b"",  # no file: the store writes a whole history
}


def _keys(history: History) -> list[tuple[str, str, str]]:
    keys = [(m, t, s) for m, t, s, _ in history.entries()]
    return keys or [("M-1", "1", "inc-type")]


# Quotes and backslashes to escape, a raw newline (written with the file's line end), control
# characters, a Latin-1 letter and a euro sign (refused by a Latin-1 file), long fills that the
# 1992 layout writes over several lines.
_RAW = st.lists(st.sampled_from(['A', 'b', ' ', '"', '\\', '\n', '\t', '\x01', '\xe9', '\u20ac',
                                 'LONGER WORDS OF A FILL ']), max_size=8).map("".join)
_LEAF = st.one_of(st.none(), _RAW.map(Text))
_VALUE = st.one_of(
    _LEAF,
    st.lists(_LEAF, min_size=1, max_size=3).map(lambda xs: Alternatives(tuple(xs))),
    st.tuples(_LEAF, _LEAF).map(lambda p: CrossRef(*p)),
    st.tuples(_LEAF, _LEAF).map(lambda p: Range(*p)),
)


@st.composite
def _entry(draw: st.DrawFn) -> HistoryEntry:
    has_key = draw(st.booleans())
    return HistoryEntry(draw(_VALUE), draw(st.sampled_from(list(Judgement))),
                        draw(_VALUE) if has_key else None, has_key)


@st.composite
def _operations(draw: st.DrawFn, keys: list[tuple[str, str, str]], size: int) -> list[tuple]:
    """Answers (for existing or new messages, templates and slots), undos, failed saves and
    notes added to the file by another program, in a random order."""
    messages = sorted({m for m, _, _ in keys}) + ["NEW-1", "NEW-2"]
    operations = []
    for _ in range(draw(st.integers(1, size))):
        kind = draw(st.sampled_from(["record"] * 5 + ["undo"] * 2 + ["fail", "fail undo",
                                                                     "note"]))
        if kind in ("record", "fail"):
            if draw(st.booleans()):
                message, template, slot = draw(st.sampled_from(keys))
            else:
                message = draw(st.sampled_from(messages))
                template = draw(st.sampled_from(["1", "2", "9"]))
                slot = draw(st.sampled_from(["inc-type", "perp-org-id", "new-slot"]))
            operations.append((kind, message, template, slot, draw(_entry())))
        elif kind == "note":
            operations.append((kind, draw(st.sampled_from(["\n; a note\n", "\r\n; noted\r\n",
                                                           " ; x"]))))
        else:
            operations.append((kind,))
    return operations


def _disk_full(*args, **kwargs):
    raise OutputError("cannot write the history: No space left on device")


def _apply(store: HistoryStore, reference: _Reference, path: Path, operation: tuple) -> None:
    kind = operation[0]
    if kind == "note":
        if reference.text is None:
            return  # a new file written by someone else is refused for good: tested elsewhere
        with path.open("ab") as handle:
            handle.write(operation[1].encode(reference.encoding))
        return
    before = path.read_bytes() if path.exists() else None
    if kind in ("undo", "fail undo") and not reference.added:
        with pytest.raises(UsageError):
            store.undo()
        return
    reference.saving(path)
    failing = kind in ("fail", "fail undo")
    with mock.patch.object(store_module, "write_atomic", _disk_full) if failing \
            else contextlib.nullcontext():
        try:
            if kind in ("record", "fail"):
                store.record(*operation[1:])
            else:
                store.undo()
        except HistorySaveError as error:
            expected = list(reference.added)
            # A disk full, or an answer the file's encoding cannot hold.
            if kind in ("record", "fail"):
                expected.append(operation[1:])
            else:
                expected.pop()
            # The text that could not be written is the reference's, to be saved elsewhere.
            assert reference.text is None or error.text == _reference_insert(reference.text,
                                                                             expected)
            assert (path.read_bytes() if path.exists() else None) == before
            return
    assert not failing
    if kind == "record":
        reference.added.append(operation[1:])
    else:
        reference.added.pop()
    reference.written = reference.file_text()


def _check(store: HistoryStore, reference: _Reference, path: Path) -> None:
    assert store.history == reference.history()
    assert store.added == tuple(reference.added)
    if not path.exists():
        assert reference.text is None and not reference.added
        return
    if reference.written is None or path.read_text(reference.encoding).lstrip("\ufeff") \
            == reference.written:  # else: another program's note, not seen yet by the store
        assert path.read_bytes() == reference.data()
    values = [format_value(value) for *_, e in store.history.entries()
              for value in (e.response, e.key)]
    if not any("\n" in value for value in values):  # a raw newline reads back as the line end
        written = parse_history(read_text(path), str(path))
        assert [(m, t, s, e.response, e.judgement, e.key, e.has_key)
                for m, t, s, e in written.entries()] == \
            [(m, t, s, e.response, e.judgement, e.key, e.has_key)
             for m, t, s, e in store.history.entries()]


def _session(data: bytes, operations: list[tuple]) -> None:
    """Run ``operations`` on a copy of the history ``data`` (b"": no file yet), checking the
    file and the history against the reference after each one."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "history.lisp"
        text: str | None = None
        history = History(str(path), ())
        encoding, bom = "utf-8", False
        if data:
            path.write_bytes(data)
            text = read_text(path)
            history = parse_history(text, str(path))
            encoding, bom = text_encoding(data)
        reference = _Reference(text, history, encoding, bom)
        with HistoryStore(path, None) as store:
            store.start_from(history, text)
            for operation in operations:
                _apply(store, reference, path, operation)
                _check(store, reference, path)


def _draw_session(data: st.DataObject, source: bytes, size: int) -> None:
    text = source.decode(text_encoding(source)[0]).lstrip("\ufeff") if source else "nil"
    operations = data.draw(_operations(_keys(parse_history(text, "h")), size))
    _session(source, operations)


@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(sorted(_SMALL)), data=st.data())
def test_small_histories_are_saved_as_before(name: str, data: st.DataObject) -> None:
    _draw_session(data, _SMALL[name], 25)


@pytest.mark.parametrize("history", ["tst3/final-history-nrad.tst3",
                                     "tst4/final-cumulative-hist.tst4"])
@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_official_histories_are_saved_as_before(muc4: Path, history: str,
                                                data: st.DataObject) -> None:
    _draw_session(data, (muc4 / history).read_bytes(), 12)


# --- the editor alone: the same text as insert_entries, however it got there ----------

@settings(max_examples=200, deadline=None)
@given(name=st.sampled_from(sorted(n for n in _SMALL if n != "new file")), data=st.data())
def test_the_editor_gives_the_reference_text_after_any_adds_and_pops(
        name: str, data: st.DataObject) -> None:
    source = _SMALL[name]
    text = source.decode(text_encoding(source)[0]).lstrip("\ufeff")
    keys = _keys(parse_history(text, "h"))
    editor = HistoryEditor(text, "h")
    added: list[tuple[str, str, str, HistoryEntry]] = []
    for operation in data.draw(_operations(keys, 30)):
        if operation[0] in ("record", "fail"):
            editor.add(*operation[1:])
            added.append(operation[1:])
        elif added:
            assert editor.pop() == added.pop()
        assert editor.text() == _reference_insert(text, added)
        assert editor.added == added
    assert insert_entries(text, added) == _reference_insert(text, added)


def test_an_id_that_cannot_be_written_changes_nothing() -> None:
    editor = HistoryEditor(_EXAMPLE_TEXT)
    entry = HistoryEntry(Text("X"), Judgement.FAIL)
    editor.add("DEMO-0001", "1", "perp-ind-id", entry)
    before = editor.text()
    with pytest.raises(ValueError):
        editor.add("NEW", "1", "nil", entry)
    with pytest.raises(ValueError):
        editor.add("DEMO-0001", ":MAP", "x", entry)
    assert editor.text() == before and len(editor.added) == 1
    editor.pop()
    assert editor.text() == _EXAMPLE_TEXT
    with pytest.raises(IndexError):
        editor.pop()


def test_a_new_message_after_all_are_taken_back_starts_an_empty_history_again() -> None:
    editor = HistoryEditor("()")
    entry = HistoryEntry(Text("X"), Judgement.FAIL)
    editor.add("M-1", "1", "a", entry)
    editor.pop()
    editor.add("M-2", "1", "a", entry)
    editor.add("M-1", "1", "a", entry)
    expected = History(None, ())
    for item in editor.added:
        expected = add_judgement(expected, *item)
    assert editor.text() == _reference_insert("()", editor.added) == write_history(expected)


def test_an_edit_by_another_program_is_refused_with_the_reference_text(tmp_path) -> None:
    path = tmp_path / "history.lisp"
    path.write_text(_EXAMPLE_TEXT)
    entry = HistoryEntry(Text("X"), Judgement.FAIL)
    with HistoryStore(path, None) as store:
        store.start_from(parse_history(_EXAMPLE_TEXT, str(path)), _EXAMPLE_TEXT)
        store.record("DEMO-0001", "1", "perp-ind-id", entry)
        written = path.read_text()
        path.write_text(written.replace("DEMO-0003", "DEMO-0033"))
        with pytest.raises(HistorySaveError) as refused:
            store.record("NEW", "1", "a", entry)
        added = [("DEMO-0001", "1", "perp-ind-id", entry), ("NEW", "1", "a", entry)]
        assert refused.value.text == _reference_insert(_EXAMPLE_TEXT, added)
        assert "DEMO-0033" in path.read_text()
        path.write_text(written)  # the edit taken back: the session goes on
        store.record("NEW", "1", "a", entry)
        assert path.read_text() == _reference_insert(_EXAMPLE_TEXT, added)
        store.undo()
        store.undo()
    assert path.read_text() == _EXAMPLE_TEXT


def test_text_added_by_another_program_is_kept_once_when_a_save_fails(tmp_path) -> None:
    """A note appended by another program, then a save that fails (disk full), then one that
    succeeds: the note is in the file once (the previous store wrote it twice)."""
    path = tmp_path / "history.lisp"
    path.write_text(_EXAMPLE_TEXT)
    entry = HistoryEntry(Text("X"), Judgement.FAIL)
    note = ";; checked by hand\n"
    with HistoryStore(path, None) as store:
        store.start_from(parse_history(_EXAMPLE_TEXT, str(path)), _EXAMPLE_TEXT)
        store.record("DEMO-0001", "1", "perp-ind-id", entry)
        with path.open("a") as handle:
            handle.write(note)
        with mock.patch.object(store_module, "write_atomic", _disk_full), \
                pytest.raises(HistorySaveError):
            store.record("NEW", "1", "a", entry)
        store.record("NEW", "1", "a", entry)
    assert path.read_text().count(note) == 1
    assert parse_history(path.read_text(), str(path)) is not None
