"""Issue 29: what the adjudication page says (question number, reuse count, undo notice,
scores since the start, favicon) and the lock file a session leaves (none)."""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from muceval.errors import UsageError
from muceval.formats.config import load_configuration
from muceval.reporting.demo import EXAMPLE_SYSTEMS, example_dir
from muceval.scoring.adjudication import Adjudication
from muceval.web.app import create_app

EXAMPLE = example_dir()
CONFIG = load_configuration(EXAMPLE / "config.toml")
SYSTEMS = [str(EXAMPLE / f"{name}.txt") for name in EXAMPLE_SYSTEMS]
TOKEN = "t0ken-for-tests"


@pytest.fixture
def history(tmp_path: Path) -> Path:
    path = tmp_path / "history.lisp"
    shutil.copy(EXAMPLE / "history.lisp", path)
    return path


@pytest.fixture
def client(history: Path):
    with Adjudication(CONFIG, EXAMPLE / "key.txt", SYSTEMS, history) as session:
        with TestClient(create_app(session, TOKEN), base_url="http://127.0.0.1:8000") as c:
            c.session = session  # type: ignore[attr-defined]
            yield c


def _heading(page: str) -> str:
    found = re.search(r"<h1>([^<]*)</h1>", page)
    assert found is not None
    return html.unescape(found.group(1))


def _answer(client: TestClient, question_id: str, answer: str = "incorrect") -> str:
    reply = client.post(f"/{TOKEN}/answer", data={"question": question_id, "answer": answer},
                        follow_redirects=False)
    assert reply.status_code == 303, reply.text
    return str(reply.headers["location"])


def test_the_heading_gives_the_question_s_own_number(client) -> None:
    session = client.session
    total = len(session.questions)
    first, second = session.questions[0], session.questions[1]
    assert _heading(client.get(f"/{TOKEN}/q/{first.id}").text).endswith(
        f"question 1 of {total}")
    nxt = _answer(client, first.id)
    # The next question keeps its number (2, not "1" of a shorter queue), of the same total.
    assert second.id in nxt
    assert _heading(client.get(nxt).text).endswith(f"question 2 of {total}")
    # Skipping on: the third question reads 3.
    skip = client.post(f"/{TOKEN}/answer", data={"question": second.id, "answer": "skip"},
                       follow_redirects=False).headers["location"]
    assert _heading(client.get(skip).text).endswith(f"question 3 of {total}")
    # Taken back, the first question is 1 again.
    back = client.post(f"/{TOKEN}/undo", follow_redirects=False).headers["location"]
    assert _heading(client.get(back).text).endswith(f"question 1 of {total}")


def _reused(client: TestClient) -> int:
    found = re.search(r'id="count-reused">(\d+) reused', client.get(f"/{TOKEN}/").text)
    assert found is not None
    return int(found.group(1))


def test_answers_of_the_session_are_not_counted_as_reused(client) -> None:
    session = client.session
    start = _reused(client)
    assert start > 0
    for _ in range(3):
        _answer(client, session.questions[0].id, "correct")
        # An answer given now is counted answered, not reused (nor the questions it settles).
        assert _reused(client) == start
    client.post(f"/{TOKEN}/undo")
    assert _reused(client) == start


def test_the_undo_notice_names_the_question_and_the_answer(client) -> None:
    question = client.session.questions[0]
    _answer(client, question.id, "partial")
    back = client.post(f"/{TOKEN}/undo")
    found = re.search(r'id="notice">([^<]*)<', back.text)
    assert found is not None
    notice = html.unescape(found.group(1))
    assert f"question {question.number}" in notice
    assert question.message_id in notice and question.slot_id in notice
    assert "response fill" in notice and "PYLON" in notice  # the fill: "PYLON"
    assert "partial" in notice


def test_the_scores_page_shows_the_start_now_and_the_session_s_answers(client) -> None:
    page = client.get(f"/{TOKEN}/scores").text
    assert 'id="no-session-answers"' in page
    for system in EXAMPLE_SYSTEMS:
        row = re.search(rf'<tr data-system="{system}"><td class="name">{system}</td>'
                        r'<td data-metric="recall-start">', page)
        assert row is not None, system
    questions = []
    for _ in range(2):
        questions.append(client.session.questions[0])
        _answer(client, questions[-1].id, "correct")
    page = client.get(f"/{TOKEN}/scores").text
    answers = re.search(r'<ol id="session-answers">(.*?)</ol>', page, re.S)
    assert answers is not None
    items = re.findall(r"<li>(.*?)</li>", answers.group(1))
    assert len(items) == 2
    for item, q in zip(items, questions, strict=True):
        assert q.message_id in item and q.slot_id in item and "correct" in item
    changes = dict(re.findall(r'<tr data-system="(\w+)"><td class="name">\w+</td><td '
                              r'data-metric="recall-start">.*?data-metric="f1-change">([^<]+)<',
                              page))
    assert set(changes) == set(EXAMPLE_SYSTEMS)
    # Two answers credited fills: some system gained.
    assert any(v.startswith("+") for v in changes.values()), changes


def test_the_favicon_is_an_empty_answer_not_a_refusal(client) -> None:
    reply = client.get("/favicon.ico")
    assert reply.status_code == 204 and reply.content == b""


def _lock_files(history: Path) -> list[Path]:
    return list(history.parent.glob(f".{history.name}.lock"))


def test_a_clean_end_leaves_no_lock_file(history: Path) -> None:
    with Adjudication(CONFIG, EXAMPLE / "key.txt", SYSTEMS, history) as session:
        assert _lock_files(history)
        session.answer(session.questions[0].id, "incorrect")  # the history becomes a new file
    assert not _lock_files(history)
    with pytest.raises(KeyboardInterrupt):
        with Adjudication(CONFIG, EXAMPLE / "key.txt", SYSTEMS, history):
            raise KeyboardInterrupt  # Ctrl-C in the server ends the session too
    assert not _lock_files(history)


def test_a_refused_session_leaves_the_other_session_s_lock(history: Path) -> None:
    with Adjudication(CONFIG, EXAMPLE / "key.txt", SYSTEMS, history):
        lock = _lock_files(history)[0]
        inode = lock.stat().st_ino
        with pytest.raises(UsageError):
            with Adjudication(CONFIG, EXAMPLE / "key.txt", SYSTEMS, history):
                pass
        # Still the same file, still held: a third session is refused too.
        assert lock.stat().st_ino == inode
        with pytest.raises(UsageError):
            with Adjudication(CONFIG, EXAMPLE / "key.txt", SYSTEMS, history):
                pass
    assert not _lock_files(history)
