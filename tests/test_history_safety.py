"""Judgements are never lost: one session at a time per history, failed saves, leftovers."""

from __future__ import annotations

import io
import subprocess
import sys
import time
from pathlib import Path

import filelock
import pytest
from click.testing import CliRunner

from muceval.cli import cli, main
from muceval.errors import OutputError
from muceval.formats.muc import store as store_module
from muceval.formats.muc.history import read_history
from muceval.reporting.demo import example_dir


def _args(history: Path, *extra: str) -> list[str]:
    ex = example_dir()
    return ["score", "--key", str(ex / "key.txt"), "--config", str(ex / "config.toml"),
            "--history", str(history), "--unresolved", "ask", *extra, str(ex / "beta.txt")]


def _run(args: list[str], stdin: str, capsys, monkeypatch) -> tuple[int, str]:
    """``muceval ARGS`` in this process (exit code and stderr), the way a user runs it."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(args)
    return code, capsys.readouterr().err


def _wait_until_locked(history: Path, seconds: float = 60) -> None:
    lock = filelock.FileLock(str(history.parent / f".{history.name}.lock"), timeout=0)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            lock.acquire()
        except filelock.Timeout:
            return
        lock.release()
        time.sleep(0.1)
    raise AssertionError("the first session never took the lock")


def test_a_second_session_on_the_same_history_is_refused_and_nothing_is_lost(
        tmp_path, capsys, monkeypatch) -> None:
    history = tmp_path / "history.lisp"
    first = subprocess.Popen([sys.executable, "-m", "muceval", *_args(history)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        _wait_until_locked(history)
        code, err = _run(_args(history), "c\n" * 50, capsys, monkeypatch)
        assert code == 2 and "being updated by another muceval session" in err
        _, err = first.communicate("c\n" * 50, timeout=120)
    finally:
        first.kill()
    assert first.returncode == 0, err
    stored = list(read_history(history).entries())
    assert stored and all(entry.judgement.value == "match" for *_, entry in stored)
    # With the first session finished, the next one starts from all its answers.
    again = CliRunner().invoke(cli, _args(history), input="s\n" * 50)
    assert again.exit_code == 0, again.output
    assert len(list(read_history(history).entries())) == len(stored)


def test_a_failed_save_keeps_the_answers_and_offers_another_file(tmp_path, monkeypatch) -> None:
    history = tmp_path / "history.lisp"
    real_save = store_module.write_atomic

    def disk_full(*args, **kwargs):
        raise OutputError(f"cannot write {history}: No space left on device")

    monkeypatch.setattr(store_module, "write_atomic", disk_full)
    elsewhere = tmp_path / "elsewhere.lisp"
    result = CliRunner().invoke(cli, _args(history), input=f"p\n{elsewhere}\n")
    assert result.exit_code == 2
    assert "No space left on device" in result.output and "Traceback" not in result.output
    assert f"history saved to {elsewhere}" in result.output
    assert not history.exists()
    assert [e.judgement.value for *_, e in read_history(elsewhere).entries()] == ["partial"]
    monkeypatch.setattr(store_module, "write_atomic", real_save)


def test_temporary_files_left_by_a_killed_session_are_removed(tmp_path) -> None:
    history = tmp_path / "history.lisp"
    stale = tmp_path / ".history.lisp.k3j2h1.tmp"
    stale.write_text("half a history")
    unrelated = tmp_path / ".other.lisp.k3j2h1.tmp"
    unrelated.write_text("not ours")
    result = CliRunner().invoke(cli, _args(history), input="s\n" * 50)
    assert result.exit_code == 0, result.output
    assert not stale.exists() and unrelated.exists()


def test_save_history_onto_an_existing_file_is_refused(tmp_path, capsys, monkeypatch) -> None:
    history = tmp_path / "history.lisp"
    other = tmp_path / "other.lisp"
    other.write_text("nil")
    code, err = _run(_args(history, "--save-history", str(other)), "s\n" * 50, capsys,
                     monkeypatch)
    assert code == 2 and "exists" in err
    assert other.read_text() == "nil"


# --- a save changes only what was added ----------------------------------------------

_HAND_WRITTEN = (';;; history of the example, adjudicated by hand\n'
                 '(("EX-0001"  ; first message\n'
                 '  ("1" (hum-tgt-name ("\\"A\\0B\\"" fail))))\n'
                 ' ("EX-0002" ("1")))\n')


def test_comments_escapes_and_layout_survive_a_session(tmp_path) -> None:
    history = tmp_path / "history.lisp"
    history.write_text(_HAND_WRITTEN)
    result = CliRunner().invoke(cli, _args(history), input="p\n" * 50)
    assert result.exit_code == 0, result.output
    text = history.read_text()
    assert "\0" not in text
    # Everything the user wrote is still there, in order; answers were only inserted.
    position = 0
    for piece in (';;; history of the example, adjudicated by hand\n(("EX-0001"  ; first message',
                  '("1" (hum-tgt-name ("\\"A\\0B\\"" fail)', ' ("EX-0002" ("1")'):
        position = text.index(piece, position) + len(piece)
    answers = [e for *_, e in read_history(history).entries()]
    assert len(answers) > 1 and answers[0].response.raw == '"A\0B"'


def test_answers_go_through_a_symlink_into_its_target(tmp_path) -> None:
    target = tmp_path / "real-history.lisp"
    target.write_text(_HAND_WRITTEN)
    link = tmp_path / "history.lisp"
    link.symlink_to(target.name)
    result = CliRunner().invoke(cli, _args(link), input="c\n" * 50)
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and target.read_text().startswith(";;; history of the example")
    assert len(list(read_history(target).entries())) > 1


def test_a_read_only_history_is_not_rewritten(tmp_path, capsys, monkeypatch) -> None:
    history = tmp_path / "history.lisp"
    history.write_text(_HAND_WRITTEN)
    history.chmod(0o444)
    code, err = _run(_args(history), "c\n\n", capsys, monkeypatch)
    assert code == 2 and "read-only" in err and "Traceback" not in err
    assert history.read_text() == _HAND_WRITTEN


def test_a_refused_answer_does_not_come_back(tmp_path, monkeypatch) -> None:
    # An answer whose save failed stayed in the store and was written at the next save, over
    # the answer the user gave instead (issue 27).
    from muceval.core.model import HistoryEntry, Judgement, Text
    from muceval.formats.muc.store import HistorySaveError, HistoryStore

    path = tmp_path / "history.lisp"
    real_save = store_module.write_atomic

    def disk_full(*args, **kwargs):
        raise OutputError(f"cannot write {path}: No space left on device")

    refused = HistoryEntry(Text('"X"'), Judgement.FAIL)
    given = HistoryEntry(Text('"X"'), Judgement.MATCH)
    with HistoryStore(path, None) as store:
        monkeypatch.setattr(store_module, "write_atomic", disk_full)
        with pytest.raises(HistorySaveError) as failed:
            store.record("M1", "1", "hum-tgt-name", refused)
        # The error still holds the refused answer, to be saved elsewhere.
        assert [e.judgement for *_, e in failed.value.history.entries()] == [Judgement.FAIL]
        assert store.added == () and list(store.history.entries()) == []
        monkeypatch.setattr(store_module, "write_atomic", real_save)
        store.record("M1", "1", "hum-tgt-name", given)
    assert [e.judgement for *_, e in read_history(path).entries()] == [Judgement.MATCH]


def test_a_read_only_history_is_refused_when_the_session_starts(tmp_path) -> None:
    from muceval.formats.muc.store import HistoryStore

    history = tmp_path / "history.lisp"
    history.write_text(_HAND_WRITTEN)
    history.chmod(0o444)
    with pytest.raises(OutputError, match="read-only"):
        HistoryStore(history, None).__enter__()
    # The lock was given back: a session on a writable copy can start at once.
    history.chmod(0o644)
    with HistoryStore(history, None):
        pass
    assert history.read_text() == _HAND_WRITTEN


def test_another_programs_edit_is_kept_or_the_answer_refused(tmp_path) -> None:
    # A comment appended by another program during a session vanished at the next answer
    # (issue 27): an addition at the end is kept; any other change refuses the answer.
    from muceval.core.model import HistoryEntry, Judgement, Text
    from muceval.formats.muc.history import parse_history
    from muceval.formats.muc.store import HistorySaveError, HistoryStore

    path = tmp_path / "history.lisp"
    path.write_text(_HAND_WRITTEN)
    first = HistoryEntry(Text('"X"'), Judgement.FAIL)
    second = HistoryEntry(Text('"Y"'), Judgement.MATCH)
    with HistoryStore(path, None) as store:
        store.start_from(parse_history(_HAND_WRITTEN, str(path)), _HAND_WRITTEN)
        store.record("EX-0003", "1", "hum-tgt-name", first)
        with path.open("a") as other:
            other.write(";; checked by Beth\n")
        store.record("EX-0003", "1", "phys-tgt-id", second)
        text = path.read_text()
        assert text.startswith(";;; history of the example") and ";; checked by Beth" in text
        assert {e.judgement for *_, e in read_history(path).entries()} >= {Judgement.FAIL,
                                                                           Judgement.MATCH}
        edited = text.replace("first message", "the first message")
        path.write_text(edited)
        with pytest.raises(HistorySaveError, match="changed by another program"):
            store.record("EX-0003", "1", "perp-ind-id", first)
        assert path.read_text() == edited
        assert len(store.added) == 2


def test_a_hard_link_to_a_history_in_session_is_refused(tmp_path) -> None:
    # The lock was on the path: a hard link, another path to the same file, started a second
    # session (issue 27). Now the file's inode is locked too.
    import os

    from muceval.errors import UsageError
    from muceval.formats.muc.store import HistoryStore

    history = tmp_path / "history.lisp"
    history.write_text(_HAND_WRITTEN)
    (tmp_path / "elsewhere").mkdir()
    link = tmp_path / "elsewhere" / "same.lisp"
    os.link(history, link)
    with HistoryStore(history, None):
        with pytest.raises(UsageError, match="being updated by another muceval session"):
            HistoryStore(link, None).__enter__()
    with HistoryStore(link, None):  # free again once the first session ends
        pass


@pytest.mark.parametrize("encode", [
    lambda text: text.encode("latin-1"),                    # the 1992 files' encoding
    lambda text: b"\xef\xbb\xbf" + text.encode("utf-8"),    # UTF-8 with a byte-order mark
])
def test_a_history_keeps_its_encoding_through_answers_and_undo(tmp_path, encode) -> None:
    # A Latin-1 history, or one with a BOM, came back as UTF-8 without the BOM (issue 27).
    from muceval.core.model import HistoryEntry, Judgement, Text
    from muceval.formats.files import read_text
    from muceval.formats.muc.history import parse_history
    from muceval.formats.muc.store import HistoryStore

    path = tmp_path / "history.lisp"
    original = encode(";;; adjudiqué à Bogotá\n" + _HAND_WRITTEN)
    path.write_bytes(original)
    text = read_text(path)
    with HistoryStore(path, None) as store:
        store.start_from(parse_history(text, str(path)), text)
        store.record("EX-0003", "1", "hum-tgt-name", HistoryEntry(Text('"X"'), Judgement.FAIL))
        answered = path.read_bytes()
        assert answered.startswith(original[:30])  # same encoding, same BOM
        assert encode(read_text(path)) == answered
        store.undo()
    assert path.read_bytes() == original


def test_the_inode_lock_follows_the_file_through_each_save(tmp_path) -> None:
    # Each save renames a new file into place; the old inode is free for any other file, so a
    # lock kept on it refused an unrelated history that got the number (seen in CI).
    import filelock

    from muceval.core.model import HistoryEntry, Judgement, Text
    from muceval.formats.muc.history import parse_history
    from muceval.formats.muc.store import HistoryStore

    path = tmp_path / "history.lisp"
    path.write_text(_HAND_WRITTEN)
    before = path.stat().st_ino
    with HistoryStore(path, None) as store:
        store.start_from(parse_history(_HAND_WRITTEN, str(path)), _HAND_WRITTEN)
        old_lock = store._by_inode.lock_file
        store.record("EX-0003", "1", "hum-tgt-name", HistoryEntry(Text('"X"'), Judgement.FAIL))
        assert path.stat().st_ino != before
        assert store._by_inode.lock_file != old_lock
        assert store._by_inode.lock_file.endswith(f"-{path.stat().st_ino}.lock")
        with filelock.FileLock(old_lock, timeout=0):  # free for the file that gets the inode
            pass
