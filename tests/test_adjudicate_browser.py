"""`muceval adjudicate` as a person uses it: the server in its own process, the page in headless
Chromium (Playwright, pointed at the system's Chromium), and the server killed mid-answer.

Skips when Chromium or Playwright is missing (``.ci/run`` installs both).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx2
import pytest

from muceval.formats.config import load_configuration
from muceval.formats.muc.history import parse_history
from muceval.formats.muc.mappings import sidecar_mapping_path
from muceval.reporting.analysis import systems_from_pairs
from muceval.reporting.demo import EXAMPLE_SYSTEMS, example_dir
from muceval.reporting.html import format_pct
from muceval.scoring.adjudication import ANSWERS
from muceval.scoring.muc1992.scorer import ScoringOptions
from muceval.scoring.session import score_files

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
EXAMPLE = example_dir()
CONFIG = load_configuration(EXAMPLE / "config.toml")
SYSTEMS = [str(EXAMPLE / f"{name}.txt") for name in EXAMPLE_SYSTEMS]


class Server:
    """`muceval adjudicate --example` in a process of its own."""

    def __init__(self, history: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "muceval", "adjudicate", "--example", "--history",
             str(history), "--no-browser"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True)
        assert self.process.stdout is not None
        deadline = time.monotonic() + 60
        self.url = ""
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                raise AssertionError("the server stopped: " + (self.process.stderr.read()
                                                               if self.process.stderr else ""))
            found = re.search(r"(http://127\.0\.0\.1:\d+/[^/\s]+/)", line)
            if found:
                self.url = found.group(1)
                break
        assert self.url, "no address printed"

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(timeout=30)


@pytest.fixture
def history(tmp_path: Path) -> Path:
    path = tmp_path / "history.lisp"
    shutil.copy(EXAMPLE / "history.lisp", path)
    return path


def _ask(history: Path, answers: list[str]):
    given = iter(answers)
    def ask(query):
        answer = next(given, None)
        return None if answer is None else ANSWERS[answer]

    return score_files(CONFIG, EXAMPLE / "key.txt", SYSTEMS, history_path=history,
                       options=ScoringOptions(unresolved="ask", ask=ask)).systems


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium not installed (Debian: apt-get install "
                    "chromium; .ci/run installs it)")
def test_answer_undo_and_remap_in_the_browser(history: Path, tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright not installed "
                                   "(pip install -e '.[test]')")
    server = Server(history)
    try:
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM)
            page = browser.new_page(viewport={"width": 1300, "height": 1000})
            page.goto(server.url)
            opened = int(page.text_content("#count-open").split()[0])
            assert opened >= 3
            page.click("#start")
            asked = []
            # Three answers: one by clicking, two by keyboard.
            for how, answer in (("click", "correct"), ("key", "partial"), ("key", "incorrect")):
                page.wait_for_selector("#answer-form")
                asked.append(page.url.rsplit("/", 1)[-1].split("?")[0])
                assert page.text_content("#q-rule").startswith("§")
                if how == "click":
                    page.click(f"#answer-{answer}")
                else:
                    with page.expect_navigation():
                        page.keyboard.press(answer[0])
            page.wait_for_load_state()
            assert page.text_content("#count-answered").startswith("3 answered")
            # Undo with the keyboard: the third question is open again.
            with page.expect_navigation():
                page.keyboard.press("u")
            assert "taken back" in page.text_content("#notice")
            assert page.url.rsplit("/", 1)[-1].split("?")[0] == asked[2]
            assert page.text_content("#count-answered").startswith("2 answered")
            # Re-map alpha's templates of DEMO-0006 (two keys, two responses) the other way.
            page.goto(server.url + "map/alpha/DEMO-0006")
            options = page.locator("#key-for-1 option").all_text_contents()
            assert options[1:] == ["key 1", "key 2"]
            page.select_option("#key-for-1", "2")
            page.select_option("#key-for-2", "1")
            page.click("#save-mapping")
            page.goto(server.url + "scores")
            shown = {s: page.text_content(f'#scores-table tr[data-system="{s}"] '
                                          'td[data-metric="f1"]') for s in EXAMPLE_SYSTEMS}
            page.goto(server.url)
            page.click("#start")
            page.wait_for_selector("#answer-form")
            shot = tmp_path / "adjudicate.png"
            page.screenshot(path=str(shot), full_page=True)
            artifacts = os.environ.get("MUCEVAL_ARTIFACTS")
            if artifacts:
                Path(artifacts).mkdir(parents=True, exist_ok=True)
                shutil.copy(shot, Path(artifacts) / shot.name)
            assert shot.stat().st_size > 10_000
            browser.close()
    finally:
        server.stop()
    # The terminal prompt, given the same answers, writes the same history ...
    prompted = tmp_path / "prompted.lisp"
    shutil.copy(EXAMPLE / "history.lisp", prompted)
    _ask(prompted, ["correct", "partial"])
    assert history.read_bytes() == prompted.read_bytes()
    # ... and the page's scores are those of scoring with it and the page's mapping.
    sidecar = sidecar_mapping_path(history, "alpha")
    assert sidecar.read_text().splitlines()[-2:] == ["DEMO-0006 1 2", "DEMO-0006 2 1"]
    rerun = score_files(CONFIG, EXAMPLE / "key.txt", SYSTEMS, history_path=prompted,
                        mapping_paths={"alpha": sidecar}).systems
    systems, _ = systems_from_pairs(rerun, CONFIG)
    assert shown == {s.name: format_pct(s.all_templates.f_pr) for s in systems}


def _queue(client: httpx2.Client, url: str) -> list[tuple[str, str, str, str]]:
    page = client.get(url).text
    return re.findall(r'<tr data-question="(\w+)"><td>\d+</td><td class="name">([^<]+)</td>'
                      r'<td>([^<]+)</td><td class="name">([^<]+)</td>', page)


@pytest.mark.parametrize("delay", [0.0, 0.004, 0.02])
def test_killing_the_server_mid_answer_keeps_every_acknowledged_answer(history: Path,
                                                                      delay: float) -> None:
    server = Server(history)
    acknowledged: list[tuple[str, str, str]] = []
    with httpx2.Client(timeout=30) as client:
        questions = _queue(client, server.url)
        assert len(questions) >= 2
        first = questions[0]
        answer = client.post(server.url + "answer", data={"question": first[0],
                                                          "answer": "incorrect"})
        assert answer.status_code in (200, 303)
        acknowledged.append(first[1:])
        second = _queue(client, server.url)[0]

        def post() -> None:
            try:
                reply = client.post(server.url + "answer", data={"question": second[0],
                                                                 "answer": "correct"})
                if reply.status_code in (200, 303):
                    acknowledged.append(second[1:])
            except httpx2.HTTPError:
                pass  # killed before it answered: this answer was never acknowledged

        sender = threading.Thread(target=post)
        sender.start()
        time.sleep(delay)
        server.stop(signal.SIGKILL)
        sender.join(timeout=30)
    history_text = history.read_text()
    stored = parse_history(history_text, str(history))  # still a valid history
    recorded = {(m.message_id, t.template_id, s.slot_id) for m in stored.messages
                for t in m.items if hasattr(t, "slots") for s in t.slots}
    for message_id, template_id, slot_id in acknowledged:
        assert (message_id, template_id, slot_id) in recorded
    # The next session starts (the lock died with the process) and clears stale files.
    again = Server(history)
    try:
        with httpx2.Client(timeout=30) as client:
            assert client.get(again.url).status_code == 200
        assert not list(history.parent.glob(".history.lisp.*.tmp"))
    finally:
        again.stop()


_FITS = """() => {
  const button = document.getElementById('undo'), kbd = button.querySelector('kbd');
  const b = button.getBoundingClientRect(), k = kbd.getBoundingClientRect();
  const s = getComputedStyle(button);
  const inner = b.right - parseFloat(s.borderRightWidth) - parseFloat(s.paddingRight);
  return {overflow: button.scrollWidth - button.clientWidth, right: inner - k.right,
          keyBorder: parseFloat(getComputedStyle(kbd).borderRightWidth),
          gap: b.right - k.right,
          top: k.top - b.top, bottom: b.bottom - k.bottom};
}"""

_MESSAGE_BOX = """() => {
  const pre = document.getElementById('message-text');
  const column = pre.parentElement.getBoundingClientRect(), box = pre.getBoundingClientRect();
  return {scroll: pre.scrollWidth - pre.clientWidth, past: box.right - column.right};
}"""


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium not installed (Debian: apt-get install "
                    "chromium; .ci/run installs it)")
def test_the_page_as_seen_heading_undo_button_message_box_and_no_failed_loads(
        history: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright not installed "
                                   "(pip install -e '.[test]')")
    server = Server(history)
    failed: list[str] = []
    try:
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM)
            page = browser.new_page(viewport={"width": 800, "height": 900})
            page.on("console", lambda m: failed.append(m.text) if m.type == "error" else None)
            page.on("requestfailed", lambda r: failed.append(r.url))
            page.goto(server.url)
            total = int(page.text_content("#count-open").split()[0])
            page.click("#start")
            page.wait_for_selector("#answer-form")
            assert page.text_content("h1").endswith(f"question 1 of {total}")
            with page.expect_navigation():
                page.click("#answer-incorrect")
            page.wait_for_selector("#answer-form")
            # The second question reads 2 (it read "1 of N-1" before).
            assert page.text_content("h1").endswith(f"question 2 of {total}")
            # The undo button's label, its key hint included, lies inside its padding.
            fits = page.evaluate(_FITS)
            assert fits["overflow"] <= 0 and fits["right"] >= -0.5, fits
            assert fits["top"] > 0 and fits["bottom"] > 0, fits
            assert fits["keyBorder"] > 0 and fits["gap"] >= 6, fits
            # The message text, 72 columns, stays in its box on a narrow window.
            page.set_viewport_size({"width": 700, "height": 900})
            box = page.evaluate(_MESSAGE_BOX)
            assert box["scroll"] <= 0 and box["past"] <= 0.5, box
            page.goto(server.url + "scores")
            page.wait_for_timeout(300)  # the favicon request follows the page's load
            browser.close()
    finally:
        server.stop()
    # No 403 for favicon.ico, nor any other failed load.
    assert not failed, failed
