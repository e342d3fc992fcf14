"""The one atomic writer: permissions, symlinks, refusals and no leftovers on failure."""

from __future__ import annotations

import os
import stat

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from muceval.errors import OutputError
from muceval.formats import files
from muceval.formats.files import write_atomic


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_new_file_gets_the_umask_permissions(tmp_path):
    old = os.umask(0o027)
    try:
        write_atomic(tmp_path / "a.txt", "x")
    finally:
        os.umask(old)
    assert _mode(tmp_path / "a.txt") == 0o640
    assert (tmp_path / "a.txt").read_text() == "x"


def test_replaced_file_keeps_its_mode(tmp_path):
    target = tmp_path / "a.txt"
    target.write_text("old")
    target.chmod(0o604)
    write_atomic(target, "new")
    assert _mode(target) == 0o604
    assert target.read_text() == "new"


def test_symlink_is_written_through(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    write_atomic(link, "new")
    assert link.is_symlink()
    assert real.read_text() == "new"


def test_refuses_to_overwrite_when_asked(tmp_path):
    target = tmp_path / "a.txt"
    target.write_text("mine")
    with pytest.raises(OutputError, match="exists; use --force"):
        write_atomic(target, "theirs", overwrite=False)
    assert target.read_text() == "mine"


def test_failure_leaves_old_content_and_no_temporary_file(tmp_path, monkeypatch):
    target = tmp_path / "a.txt"
    target.write_text("old")

    def boom(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "fsync", boom)
    with pytest.raises(OutputError, match="No space left on device"):
        write_atomic(target, "new")
    monkeypatch.undo()
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


def test_missing_folder_is_an_output_error(tmp_path):
    with pytest.raises(OutputError, match="cannot write"):
        write_atomic(tmp_path / "no" / "such" / "a.txt", "x")


def test_encoding_and_bytes(tmp_path):
    write_atomic(tmp_path / "l.txt", "café", encoding="latin-1")
    assert (tmp_path / "l.txt").read_bytes() == b"caf\xe9"
    write_atomic(tmp_path / "b.bin", b"\x00\x01")
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\x01"


def test_read_only_file_is_not_replaced(tmp_path):
    target = tmp_path / "a.txt"
    target.write_text("keep")
    target.chmod(0o444)
    with pytest.raises(OutputError, match="read-only"):
        write_atomic(target, "new")
    assert target.read_text() == "keep"


@pytest.mark.parametrize("make,kind", [
    (lambda path: os.mkfifo(path), "a FIFO"),
    (lambda path: path.mkdir(), "a folder"),
])
def test_what_is_not_a_regular_file_is_never_replaced(tmp_path, make, kind) -> None:
    # os.replace would put a regular file where a FIFO or a device (/dev/null) was (issue 27).
    target = tmp_path / "out"
    make(target)
    with pytest.raises(OutputError, match=f"not a regular file \\({kind}\\)"):
        write_atomic(target, "data", overwrite=True)
    assert not target.is_file()
    assert not list(tmp_path.glob(".out.*.tmp"))


def test_temporary_files_a_killed_run_left_are_removed_by_the_next_write(tmp_path) -> None:
    # A SIGKILL mid-write left hidden .NAME.*.tmp files of up to 103 MB (issue 27).
    target = tmp_path / "out.csv"
    stale = tmp_path / ".out.csv.abc123.tmp"
    stale.write_text("half")
    old = files.STALE_SECONDS + 60
    os.utime(stale, (os.path.getatime(stale) - old, os.path.getmtime(stale) - old))
    running = tmp_path / ".out.csv.def456.tmp"  # another write of it, going on now
    running.write_text("being written")
    write_atomic(target, "done")
    assert not stale.exists() and running.exists() and target.read_text() == "done"


def test_sigterm_mid_write_leaves_no_temporary_file(tmp_path) -> None:
    import signal
    import subprocess
    import sys
    import time

    target = tmp_path / "big.csv"
    # A CI run once hung here for 30 s, the cause not found: a signal mask inherited across
    # exec from this test process would explain it, so the child unblocks SIGTERM first, and
    # a hang reports the child's signal masks.
    code = f"""
import signal, time
signal.pthread_sigmask(signal.SIG_UNBLOCK, {{signal.SIGTERM}})
from muceval.cli.app import main
from muceval.formats.files import write_atomic
import click, muceval.cli.app as app

@app.cli.command("slow-write")
def slow_write():
    def pieces():
        yield "first piece\\n"
        time.sleep(60)
        yield "never"
    write_atomic({str(target)!r}, pieces())

raise SystemExit(main(["slow-write"]))
"""
    process = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not list(tmp_path.glob(".big.csv.*.tmp")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert list(tmp_path.glob(".big.csv.*.tmp")), "the write never started"
    process.send_signal(signal.SIGTERM)
    try:
        exit_code = process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        with open(f"/proc/{process.pid}/status") as proc:
            status = proc.read()
        process.kill()
        pytest.fail("SIGTERM did not stop the write in 30 s; its signals: "
                    + " ".join(line for line in status.splitlines() if line.startswith("Sig")))
    assert exit_code == 1  # interrupted, as with Ctrl-C
    assert not list(tmp_path.glob(".big.csv.*.tmp")) and not target.exists()


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 20_000), st.sampled_from(["", "\n", "\r\n", " \t\n", "\x0c", "\u2028"]),
       st.text(alphabet=" \t\r\n\x0bab|\u2029", max_size=60))
def test_first_line_is_that_of_the_whole_text_split(blank, separator, rest):
    """The sniffers read the first non-blank line from a growing prefix: the same line as
    splitting the whole text, whatever the line breaks and wherever the prefix cuts."""
    text = separator * (blank // max(1, len(separator))) + rest
    expected = next((line for line in text.splitlines() if line.strip()), "")
    assert files.first_line(text) == expected
