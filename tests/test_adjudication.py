"""Adjudication: the session behind `muceval adjudicate`, and its pages (no browser needed)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from muceval.cli import main
from muceval.errors import InputError, UsageError
from muceval.formats.config import load_configuration
from muceval.formats.muc.mappings import read_mapping_file, sidecar_mapping_path
from muceval.reporting.demo import EXAMPLE_SYSTEMS, example_dir
from muceval.scoring.adjudication import ANSWERS, Adjudication
from muceval.scoring.muc1992.scorer import ScoringOptions
from muceval.scoring.session import score_files
from muceval.web.app import create_app

EXAMPLE = example_dir()
CONFIG = load_configuration(EXAMPLE / "config.toml")
SYSTEMS = [str(EXAMPLE / f"{name}.txt") for name in EXAMPLE_SYSTEMS]


@pytest.fixture
def history(tmp_path: Path) -> Path:
    path = tmp_path / "history.lisp"
    shutil.copy(EXAMPLE / "history.lisp", path)
    return path


def ask_session(history: Path, answers: list[str], mapping_paths=()) -> dict:
    """The same answers given at the terminal prompt (`--unresolved ask`), in queue order."""
    given = iter(answers)

    def ask(query):
        answer = next(given, None)
        return None if answer is None else ANSWERS[answer]

    return score_files(CONFIG, EXAMPLE / "key.txt", SYSTEMS, history_path=history,
                       options=ScoringOptions(unresolved="ask", ask=ask),
                       mapping_paths=mapping_paths).systems


def test_answers_give_the_history_and_scores_of_the_terminal_prompt(history, tmp_path) -> None:
    other = tmp_path / "other.lisp"
    shutil.copy(history, other)
    answers = ["correct", "partial", "incorrect"]
    with Adjudication(CONFIG, EXAMPLE / "key.txt", SYSTEMS, history) as session:
        assert [q.number for q in session.questions] == list(range(1, len(session.questions) + 1))
        # One question per message/key template/slot/value, however many systems put it.
        assert len({(q.message_id, q.key_template_id, q.slot_id, repr(q.response))
                    for q in session.questions}) == len(session.questions)
        assert any(len(q.systems) > 1 for q in session.questions)
        assert all(q.rule.startswith("§") for q in session.questions)
        assert session.reused > 0
        for answer in answers:
            session.answer(session.questions[0].id, answer)
        pairs = session.pairs
    prompted = ask_session(other, answers)
    assert history.read_bytes() == other.read_bytes()
    rerun = score_files(CONFIG, EXAMPLE / "key.txt", SYSTEMS, history_path=other).systems
    assert pairs == rerun == prompted


def test_undo_restores_the_history_byte_for_byte(history) -> None:
    before = history.read_bytes()
    with Adjudication(CONFIG, EXAMPLE / "key.txt", SYSTEMS, history) as session:
        first = session.questions[0]
        open_before = len(session.questions)
        session.answer(first.id, "correct")
        assert history.read_bytes() != before
        assert len(session.questions) < open_before
        undone = session.undo()
        assert undone.question.id == first.id and history.read_bytes() == before
        assert session.questions[0].id == first.id and len(session.questions) == open_before
        with pytest.raises(UsageError, match="nothing to undo"):
            session.undo()


def test_a_second_session_on_the_history_is_refused(history) -> None:
    with Adjudication(CONFIG, EXAMPLE / "key.txt", SYSTEMS, history):
        with pytest.raises(UsageError, match="another muceval session"):
            with Adjudication(CONFIG, EXAMPLE / "key.txt", SYSTEMS, history):
                pass
    with Adjudication(CONFIG, EXAMPLE / "key.txt", SYSTEMS, history):  # released at the end
        pass


def test_a_manual_mapping_is_kept_next_to_the_history_and_used_by_score(history, capsys) -> None:
    with Adjudication(CONFIG, EXAMPLE / "key.txt", SYSTEMS, history) as session:
        keys, responses = session.templates("alpha", "DEMO-0006")
        assert len(keys) == 2 and len(responses) == 2
        automatic = [(p.key_id, p.response_id) for p in session.mapping_of("alpha", "DEMO-0006")]
        swapped = [(k.template_id, r.template_id) for k, r in zip(keys, reversed(responses),
                                                                   strict=True)]
        assert sorted(swapped) != sorted(automatic)
        with pytest.raises(InputError, match="must appear exactly once"):
            session.remap("alpha", "DEMO-0006", swapped[:1])
        session.remap("alpha", "DEMO-0006", swapped)
        assert session.is_manual("alpha", "DEMO-0006")
        assert sorted((p.key_id, p.response_id) for p in session.mapping_of(
            "alpha", "DEMO-0006")) == sorted(swapped)
        pairs = session.pairs["alpha"]
    sidecar = sidecar_mapping_path(history, "alpha")
    assert read_mapping_file(sidecar) == {"DEMO-0006": swapped}
    assert main(["score", "--key", str(EXAMPLE / "key.txt"), "--config",
                 str(EXAMPLE / "config.toml"), "--history", str(history), "--format", "json",
                 "--detail", "pairs", SYSTEMS[0]]) == 0
    captured = capsys.readouterr()
    assert "alpha uses the manual mappings of muceval adjudicate" in captured.err
    scored = json.loads(captured.out)
    assert scored["settings"]["manual_mappings"] == [str(sidecar)]
    direct = score_files(CONFIG, EXAMPLE / "key.txt", [SYSTEMS[0]], history_path=history,
                         mapping_paths=[sidecar]).systems["alpha"]
    assert direct == pairs
    with Adjudication(CONFIG, EXAMPLE / "key.txt", SYSTEMS, history) as session:
        assert session.is_manual("alpha", "DEMO-0006")  # read back from the file
        session.remap("alpha", "DEMO-0006", None)
        assert not session.is_manual("alpha", "DEMO-0006")
    assert read_mapping_file(sidecar) == {}


# --- the pages ----------------------------------------------------------------------------

TOKEN = "t0ken-for-tests"


@pytest.fixture
def client(history):
    with Adjudication(CONFIG, EXAMPLE / "key.txt", SYSTEMS, history) as session:
        texts = {"DEMO-0006": "REBELS TRIED TO BLOW UP A POWER PYLON.  THE PYLON STANDS."}
        app = create_app(session, TOKEN, texts)
        with TestClient(app, base_url="http://127.0.0.1:8000") as c:
            c.session = session  # type: ignore[attr-defined]
            yield c


def test_requests_without_the_token_or_from_another_host_are_refused(client) -> None:
    assert client.get("/wrong-token/").status_code == 403
    assert client.get(f"/{TOKEN}x/").status_code == 403
    assert client.get("/").status_code == 404
    assert client.get(f"/{TOKEN}/", headers={"host": "evil.example:8000"}).status_code == 403
    assert client.post("/wrong-token/answer", data={"question": "x",
                                                    "answer": "correct"}).status_code == 403
    assert client.get(f"/{TOKEN}/").status_code == 200


def test_answer_skip_and_undo_through_the_pages(client, history) -> None:
    session = client.session
    page = client.get(f"/{TOKEN}/").text
    first = session.questions[0]
    assert f'data-question="{first.id}"' in page
    assert (first.message_id, first.slot_id) == ("DEMO-0006", "phys-tgt-id")
    shown = client.get(f"/{TOKEN}/q/{first.id}").text
    # Key fill "POWER PYLON", response fill "PYLON": both marked where they occur.
    assert '<mark class="key">POWER </mark><mark class="both">PYLON</mark>' in shown
    assert '<mark class="response">PYLON</mark>' in shown
    assert first.rule in shown
    skipped = client.post(f"/{TOKEN}/answer", data={"question": first.id, "answer": "skip"},
                          follow_redirects=False)
    assert skipped.status_code == 303 and session.questions[1].id in skipped.headers["location"]
    before = history.read_bytes()
    answered = client.post(f"/{TOKEN}/answer", data={"question": first.id, "answer": "partial",
                                                     "which": "1"}, follow_redirects=False)
    assert answered.status_code == 303
    assert history.read_bytes() != before  # saved before the redirect was sent
    assert len(session.answered) == 1 and session.answered[0].answer == "partial"
    back = client.post(f"/{TOKEN}/undo", follow_redirects=False)
    assert back.status_code == 303 and first.id in back.headers["location"]
    assert history.read_bytes() == before
    bad = client.post(f"/{TOKEN}/answer", data={"question": "nope", "answer": "correct"})
    assert bad.status_code == 400 and "no open question" in bad.text


def test_fills_and_names_are_shown_as_text(history, tmp_path) -> None:
    """A fill or a system name holding markup is escaped, never run."""
    delta = (EXAMPLE / "delta.txt").read_text()
    assert '"POLICE"' in delta
    hostile = tmp_path / "delta.txt"
    hostile.write_text(delta.replace('"POLICE"', '"<SCRIPT>ALERT(1)</SCRIPT>"'))
    names = {str(hostile): "<i>delta"}
    with Adjudication(CONFIG, EXAMPLE / "key.txt", [str(hostile)], history,
                      names=names) as session:
        question = next(q for q in session.questions if "SCRIPT" in repr(q.response))
        texts = {question.message_id: "THE <SCRIPT>ALERT(1)</SCRIPT> WAS SEEN."}
        with TestClient(create_app(session, TOKEN, texts),
                        base_url="http://127.0.0.1:8000") as c:
            for url in (f"/{TOKEN}/", f"/{TOKEN}/q/{question.id}", f"/{TOKEN}/scores",
                        f"/{TOKEN}/map/%3Ci%3Edelta/{question.message_id}"):
                page = c.get(url).text
                assert "<SCRIPT>" not in page and "<i>delta" not in page, url
                assert "&lt;SCRIPT&gt;" in page or "&lt;i&gt;delta" in page, url


def test_remap_through_the_page(client, history) -> None:
    session = client.session
    keys, responses = session.templates("alpha", "DEMO-0006")
    form = {f"key-for-{r.template_id}": k.template_id
            for k, r in zip(keys, reversed(responses), strict=True)}
    page = client.get(f"/{TOKEN}/map/alpha/DEMO-0006").text
    assert 'id="mapping-form"' in page
    done = client.post(f"/{TOKEN}/map/alpha/DEMO-0006", data={**form, "back": f"/{TOKEN}/"},
                       follow_redirects=False)
    assert done.status_code == 303 and session.is_manual("alpha", "DEMO-0006")
    both = {f"key-for-{r.template_id}": keys[0].template_id for r in responses}
    refused = client.post(f"/{TOKEN}/map/alpha/DEMO-0006", data=both)
    assert refused.status_code == 400 and "one response per key template" in refused.text
    scores = client.get(f"/{TOKEN}/scores").text
    assert re.search(r'data-system="alpha">.*DEMO-0006', scores)


def test_adjudicate_command_errors(tmp_path, capsys) -> None:
    assert main(["adjudicate", "--history", str(tmp_path / "h.lisp"), "--no-browser"]) == 2
    assert "give --key" in capsys.readouterr().err
    assert main(["adjudicate", "--example", "--key", "k", "--history",
                 str(tmp_path / "h.lisp")]) == 2
    assert "--example takes no" in capsys.readouterr().err


def test_odd_tokens_and_key_fill_numbers_are_refused_not_failed(client) -> None:
    # Each gave a 500 and a traceback in the log (issue 27).
    assert client.get("/%C3%A9/").status_code == 403
    first = client.session.questions[0]
    for which in ("²", "9" * 5000, "-1"):
        reply = client.post(f"/{TOKEN}/answer", data={"question": first.id, "answer": "correct",
                                                      "which": which})
        assert reply.status_code == 400 and "is not a number" in reply.text
    assert client.session.answered == []


def test_pages_only_run_their_own_script_and_refuse_forms_of_other_sites(client) -> None:
    # Defence in depth, as Jupyter's local server does (issue 27).
    page = client.get(f"/{TOKEN}/")
    policy = page.headers["content-security-policy"]
    nonce = re.search(r"script-src 'nonce-([^']+)'", policy).group(1)
    assert f'<script nonce="{nonce}">' in page.text and f'<style nonce="{nonce}">' in page.text
    assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["referrer-policy"] == "same-origin"  # the token never leaves the page
    assert nonce not in client.get(f"/{TOKEN}/").headers["content-security-policy"]  # fresh
    first = client.session.questions[0]
    form = {"question": first.id, "answer": "correct"}
    for headers in ({"origin": "http://evil.example"}, {"sec-fetch-site": "cross-site"},
                    {"origin": "null"}):
        refused = client.post(f"/{TOKEN}/answer", data=form, headers=headers)
        assert refused.status_code == 403, headers
    assert client.session.answered == []
    same = client.post(f"/{TOKEN}/answer", data=form, follow_redirects=False,
                       headers={"origin": "http://127.0.0.1:8000", "sec-fetch-site": "same-origin"})
    assert same.status_code == 303 and len(client.session.answered) == 1


def test_the_browser_is_sent_through_a_private_file_not_given_the_token(tmp_path) -> None:
    # webbrowser.open(address) put the token in the browser's command line, which every user
    # of the machine can read in the process list (issue 27).
    import stat

    from muceval.cli.adjudicate import _redirect_file

    address = f"http://127.0.0.1:8765/{TOKEN}/"
    page = _redirect_file(tmp_path, address)
    assert TOKEN not in page.as_uri()
    assert stat.S_IMODE(page.stat().st_mode) == 0o600
    assert f'content="0;url={address}"' in page.read_text()


def test_adjudicate_sums_up_the_readers_warnings_in_a_line(tmp_path) -> None:
    # It printed one line per reader warning (about 295 on TST3) where score prints one.
    import sys

    from conftest import serve_until_address
    from muceval.reporting.demo import example_dir

    ex = example_dir()
    noisy = tmp_path / "noisy.txt"
    text = (ex / "alpha.txt").read_text()
    # Each template's first slot line twice: a warning per template, as the readers give.
    noisy.write_text("\n".join(line + ("\n" + line if line.startswith("1.") else "")
                               for line in text.splitlines()) + "\n")
    err = serve_until_address(
        [sys.executable, "-m", "muceval", "adjudicate", "--key", str(ex / "key.txt"),
         "--config", str(ex / "config.toml"), "--history", str(tmp_path / "h.lisp"),
         "--no-browser", "--port", "0", str(noisy)])
    # (Stopped while it starts, the server may add a warning of its own: not the readers'.)
    warned = [line for line in err.splitlines()
              if line.startswith("warning:") and "noisy.txt" in line]
    assert len(warned) == 1, err
    assert "muceval validate" in warned[0] and "--warnings" in warned[0]
