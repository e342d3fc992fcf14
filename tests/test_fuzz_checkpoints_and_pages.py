"""The checkpoint reader and the adjudication page, fed mutated and hostile input (Hypothesis;
seeded in CI by the muceval-ci profile): a result or a clear refusal, never a traceback, and
never a number outside its range (issue 27)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from muceval.errors import MucevalError
from muceval.formats.config import load_configuration
from muceval.reporting.demo import EXAMPLE_SYSTEMS, example_dir
from muceval.scoring.adjudication import Adjudication
from muceval.significance import distributed as dist
from muceval.significance.plan import ExactJob
from muceval.web.app import create_app

METRICS = ("recall", "f1")
SHUFFLES = 99
BATCHES = [("approximate", [0, 1]), ("exact", [ExactJob(2, 0), ExactJob(2, 1)])]
GOOD = [
    {"batch": 0, "result": {"nge": [[3, 5], [0, 99]]}},
    {"batch": 1, "result": {"exact": [[2, "recall", 0.25, 0.0, 64],
                                      [2, "f1", 1.0, 0.0, 64]]}},
]
HEADER = json.dumps({"format": "muceval-checkpoint", "format_version": 1, "run": "F"})

# What a hostile or broken checkpoint line may hold instead of the right value.
_ODD = st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20),
                 st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=8),
                 st.lists(st.integers(-5, 200), max_size=4))


def _mutate(value, draw):
    """The value with one part replaced by something odd, recursively."""
    if isinstance(value, dict) and value and draw(st.booleans()):
        key = draw(st.sampled_from(sorted(value)))
        return {**value, key: _mutate(value[key], draw)}
    if isinstance(value, list) and value and draw(st.booleans()):
        k = draw(st.integers(0, len(value) - 1))
        return [*value[:k], _mutate(value[k], draw), *value[k + 1:]]
    return draw(_ODD)


@st.composite
def _checkpoints(draw) -> str:
    lines = [json.dumps(entry) for entry in GOOD]
    k = draw(st.integers(0, len(lines) - 1))
    how = draw(st.sampled_from(["value", "cut", "bytes", "repeat"]))
    if how == "value":
        lines[k] = json.dumps(_mutate(GOOD[k], draw))
    elif how == "cut":
        lines[k] = lines[k][: draw(st.integers(0, len(lines[k])))]
    elif how == "repeat":
        lines.insert(k, lines[k])
    else:
        lines[k] = draw(st.text(max_size=40))
    return "\n".join([HEADER, *lines]) + "\n"


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_checkpoints())
# A flat list of the right size was once taken as the batch's counts (found by this test).
@example(text="\n".join([HEADER, json.dumps({"batch": 0, "result": {"nge": [0, 0, 0, 0]}}),
                          json.dumps(GOOD[1])]) + "\n")
def test_a_mutated_checkpoint_gives_sound_results_or_a_refusal(tmp_path: Path, text: str) -> None:
    path = tmp_path / "run.ckpt"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        book = dist._Checkpoint(str(path), "F")
        book.check(BATCHES, METRICS, SHUFFLES)
    except MucevalError as refused:
        assert str(path) in str(refused)
        return
    for number, result in book.finished().items():
        kind, items = BATCHES[number]
        if kind == "approximate":
            assert all(0 <= n <= SHUFFLES for row in result["nge"] for n in row)
        else:
            assert all(0.0 <= p <= 1.0 for _, _, p, _, _ in result["exact"])


# --- the page ------------------------------------------------------------------------------

TOKEN = "t0ken-for-fuzzing"
EXAMPLE = example_dir()


@pytest.fixture(scope="module")
def page_client(tmp_path_factory):
    folder = tmp_path_factory.mktemp("page")
    history = folder / "history.lisp"
    shutil.copy(EXAMPLE / "history.lisp", history)
    config = load_configuration(EXAMPLE / "config.toml")
    systems = [str(EXAMPLE / f"{name}.txt") for name in EXAMPLE_SYSTEMS]
    with Adjudication(config, EXAMPLE / "key.txt", systems, history) as session:
        app = create_app(session, TOKEN, {})
        with TestClient(app, base_url="http://127.0.0.1:8000",
                        raise_server_exceptions=False) as client:
            yield client


_SEGMENT = st.text(st.characters(codec="utf-8", exclude_characters="/?#"), max_size=30)


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(token=st.one_of(st.just(TOKEN), _SEGMENT), where=st.sampled_from(
           ["", "q/", "map/alpha/", "map/", "scores", "answer", "undo"]),
       rest=_SEGMENT, form=st.dictionaries(
           st.sampled_from(["question", "answer", "which", "filters", "key-for-1"]),
           st.one_of(_SEGMENT, st.text(max_size=3)), max_size=4),
       post=st.booleans())
def test_no_request_makes_the_page_fail(page_client, token, where, rest, form, post) -> None:
    from urllib.parse import quote

    url = f"/{quote(token, safe='')}/{where}{quote(rest, safe='')}"
    reply = page_client.post(url, data=form, follow_redirects=False) if post else \
        page_client.get(url, follow_redirects=False)
    # 307: the router's own redirect of an empty segment; never a 500.
    assert reply.status_code in (200, 303, 307, 400, 403, 404, 405), (url, form, reply.status_code)
