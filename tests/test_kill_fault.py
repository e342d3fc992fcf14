"""The kill/fault suite of the adjudication page (issue 27), run as a user runs it: `muceval
adjudicate` in its own process, answers posted over HTTP, the server killed with SIGKILL at
seeded moments (between answers and while an answer is in flight), then started again.

Every acknowledged answer (a 303 reply) must be in the history after a kill, the history
must read back at every moment (never half written), and what was there before the
session must be there unchanged (answers are only added). The in-process faults (read-only
and full disk, another program's edit, a hard link, a failed save) are in
tests/test_history_safety.py.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from muceval.formats.muc.history import parse_history
from muceval.reporting.demo import example_dir

if sys.platform == "win32":
    pytest.skip("SIGKILL is POSIX", allow_module_level=True)


class Server:
    """`muceval adjudicate --example` on a history, its address read from its output."""

    def __init__(self, history: Path):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "muceval", "adjudicate", "--example", "--history",
             str(history), "--no-browser"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        self.url = ""
        deadline = time.monotonic() + 60
        for line in self.process.stdout:
            found = re.search(r"(http://127\.0\.0\.1:\d+/[^/\s]+/)", line)
            if found:
                self.url = found.group(1)
                break
            assert time.monotonic() < deadline, "no address printed"
        assert self.url, self.process.stderr.read() if self.process.stderr else ""
        self._wait_serving()

    def _wait_serving(self) -> None:
        for _ in range(200):
            try:
                urllib.request.urlopen(self.url, timeout=5).read()
                return
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.05)
        raise AssertionError("the page never answered")

    def open_questions(self) -> list[str]:
        page = urllib.request.urlopen(self.url, timeout=10).read().decode()
        return list(dict.fromkeys(re.findall(r'data-question="([^"]+)"', page)))

    def answer(self, question: str, answer: str = "correct") -> int:
        data = urllib.parse.urlencode({"question": question, "answer": answer,
                                       "which": "1"}).encode()
        request = urllib.request.Request(self.url + "answer", data=data, method="POST",
                                         headers={"Origin": self.url.split("/", 3)[0] + "//"
                                                  + self.url.split("/")[2]})

        class NoRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
                return None

        try:
            return urllib.request.build_opener(NoRedirect).open(request, timeout=20).status
        except urllib.error.HTTPError as error:
            return error.code

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


def _only_added(before: str, after: str) -> bool:
    """``after`` is ``before`` with text inserted, nothing changed or removed."""
    import difflib

    codes = difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes()
    return all(tag in ("equal", "insert") for tag, *_ in codes)


def test_sigkill_at_any_moment_keeps_every_acknowledged_answer(tmp_path) -> None:
    history = tmp_path / "history.lisp"
    shutil.copy(example_dir() / "history.lisp", history)
    original = history.read_text(encoding="utf-8")
    rng = random.Random(27)
    acknowledged: list[str] = []
    for round_ in range(3):
        server = Server(history)
        try:
            open_now = server.open_questions()
            assert not set(acknowledged) & set(open_now), "an acknowledged answer was lost"
            if not open_now:
                break
            for _ in range(rng.randint(0, 2)):
                # An answer may settle other questions too (a cross-reference): ask again.
                open_now = server.open_questions()
                if len(open_now) < 2:
                    break
                assert server.answer(open_now[0]) == 303
                acknowledged.append(open_now[0])
            if round_ % 2:
                # Killed while an answer is in flight: it may or may not be kept, but the
                # history must still read, and every earlier answer must be there.
                flight = threading.Thread(target=server.answer,
                                          args=(server.open_questions()[0],))
                flight.start()
                time.sleep(rng.uniform(0, 0.05))
                server.kill()
                flight.join(timeout=30)
            else:
                server.kill()
        finally:
            if server.process.poll() is None:
                server.kill()
        text = history.read_text(encoding="utf-8")
        parse_history(text, str(history))  # never half written
        assert _only_added(original, text)
    final = Server(history)
    try:
        assert not set(acknowledged) & set(final.open_questions())
    finally:
        final.kill()
    assert acknowledged


def test_a_second_server_on_the_history_or_a_hard_link_to_it_is_refused(tmp_path) -> None:
    history = tmp_path / "history.lisp"
    shutil.copy(example_dir() / "history.lisp", history)
    link = tmp_path / "link.lisp"
    os.link(history, link)
    first = Server(history)
    try:
        for other in (history, link):
            second = subprocess.run(
                [sys.executable, "-m", "muceval", "adjudicate", "--example", "--history",
                 str(other), "--no-browser"], capture_output=True, text=True, timeout=60)
            assert second.returncode == 2
            assert "being updated by another muceval session" in second.stderr
            assert "Traceback" not in second.stderr
        listed = first.open_questions()
        question = listed[0]
        assert first.answer(question) == 303
    finally:
        first.kill()
    again = Server(history)
    try:
        # Questions keep their ids from one session to the next (else the checks above
        # would hold whatever happened to the answers): the rest are the same questions.
        remaining = again.open_questions()
        assert question not in remaining and set(remaining) < set(listed)
    finally:
        again.kill()
