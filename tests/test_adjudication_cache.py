"""The adjudication session scores again only what a change can change (issue 30): after any
sequence of answers, undos and manual mappings, what it shows is what scoring everything again
from the files on disk gives."""

from __future__ import annotations

import random
import re
import shutil
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from muceval.core.model import History, TemplateFile
from muceval.core.tallies import summarize
from muceval.formats.config import load_configuration
from muceval.formats.files import read_text
from muceval.formats.muc.history import parse_history
from muceval.formats.muc.mappings import read_mapping_file, sidecar_mapping_path
from muceval.formats.muc.templates import read_templates
from muceval.reporting.analysis import systems_from_pairs
from muceval.reporting.demo import EXAMPLE_SYSTEMS, example_dir
from muceval.reporting.html import format_pct
from muceval.scoring.adjudication import ANSWERS, Adjudication
from muceval.scoring.muc1992.equality import ValueMatcher, canon
from muceval.scoring.muc1992.judgements import HistoryIndex, Query
from muceval.scoring.muc1992.scorer import ScoringOptions
from muceval.scoring.session import score_systems
from muceval.web.app import create_app
from muceval.web.views import score_changes, scores_view

EXAMPLE = example_dir()
CONFIG = load_configuration(EXAMPLE / "config.toml")
SYSTEMS = [str(EXAMPLE / f"{name}.txt") for name in EXAMPLE_SYSTEMS]
KEY = read_templates(EXAMPLE / "key.txt", CONFIG)
RESPONSES = {name: read_templates(path, CONFIG) for name, path in zip(EXAMPLE_SYSTEMS, SYSTEMS,
                                                                      strict=True)}


def _read_history(path: Path) -> History | None:
    return parse_history(read_text(path), str(path)) if path.exists() else None


class Reference:
    """Every system scored from scratch, from the history and mapping files on disk, as the
    session did before it kept anything (one scoring session per system)."""

    def __init__(self, history_path: Path, start: History | None,
                 responses: dict[str, TemplateFile] = RESPONSES) -> None:
        history = _read_history(history_path)
        start_index = HistoryIndex(start, ValueMatcher(CONFIG))
        self.pairs, self.asked = {}, {}
        reused: set[tuple[str, str, str, str]] = set()
        for name, response in responses.items():
            asked: list[Query] = []

            def ask(query: Query, asked: list[Query] = asked) -> None:
                asked.append(query)

            def on_reuse(query: Query) -> None:
                if start_index.find(query.message_id, query.key_template_id, query.slot_id,
                                    canon(query.response)) is not None:
                    reused.add(_key(query))

            sidecar = sidecar_mapping_path(history_path, name)
            manual = read_mapping_file(sidecar) if sidecar.is_file() else {}
            options = ScoringOptions(unresolved="ask", ask=ask, on_reuse=on_reuse)
            self.pairs[name] = score_systems(
                CONFIG, KEY, {name: response}, history=history, options=options,
                manual_mappings={name: manual} if manual else None).systems[name]
            self.asked[name] = asked
        self.reused = len(reused)

    def questions(self) -> list[tuple[tuple[str, str, str, str], tuple[str, ...]]]:
        """Each open question's key and the systems that put it, in the 1992 order."""
        found: dict[tuple[str, str, str, str], list[str]] = {}
        for name, asked in self.asked.items():
            for query in asked:
                systems = found.setdefault(_key(query), [])
                if name not in systems:
                    systems.append(name)
        return [(key, tuple(systems)) for key, systems in found.items()]


def _key(query: Query) -> tuple[str, str, str, str]:
    return (query.message_id, query.key_template_id, query.slot_id, repr(query.response))


def _table(pairs) -> list[dict]:
    """The score table as the page computed it from every pair before issue 30."""
    systems, _ = systems_from_pairs(pairs, CONFIG)
    return [{"system": s.name, "recall": format_pct(s.all_templates.recall),
             "precision": format_pct(s.all_templates.precision),
             "f1": format_pct(s.all_templates.f_pr),
             "f_1992": "-" if s.f_1992 is None else f"{s.f_1992[0]:.2f}"} for s in systems]


def check(session: Adjudication, reference: Reference, numbers: dict[str, int]) -> None:
    assert session.pairs == reference.pairs
    for name, pairs in reference.pairs.items():
        summary = summarize(pairs, CONFIG)
        assert session.totals[name] == summary.all_templates.total, name
        assert session.message_totals(name) == {
            m.message_id: m.accumulators.all_templates.total for m in summary.messages}, name
    assert [(_key(q.query), tuple(s for s, _ in q.systems)) for q in session.questions] \
        == reference.questions()
    assert session.open_per_system == {
        name: len({_key(q) for q in asked}) for name, asked in reference.asked.items()}
    assert session.reused == reference.reused
    for question in session.questions:  # a question keeps its number while the session lasts
        assert numbers.setdefault(question.id, question.number) == question.number
    assert len(set(numbers.values())) == len(numbers) == session.total
    shown = [{k: row[k] for k in ("system", "recall", "precision", "f1", "f_1992")}
             for row in scores_view(session)]
    assert shown == _table(reference.pairs)


def _random_pairs(rng: random.Random, keys: list[str], responses: list[str]):
    """Every key and response template once: some paired at random, the rest alone."""
    responses = responses[:]
    rng.shuffle(responses)
    pairs: list[tuple[str | None, str | None]] = []
    for key in keys:
        if responses and rng.random() < 0.7:
            pairs.append((key, responses.pop()))
        else:
            pairs.append((key, None))
    pairs += [(None, r) for r in responses]
    rng.shuffle(pairs)
    return pairs


def _step(rng: random.Random, session: Adjudication) -> str:
    """One random change: an answer, an undo, or a mapping by hand (or back to automatic)."""
    kind = rng.choice(["answer", "answer", "answer", "undo", "remap"])
    if kind == "answer" and session.questions:
        question = rng.choice(session.questions)
        session.answer(question.id, rng.choice(list(ANSWERS)),
                       rng.randrange(max(len(question.offered), 1)))
    elif kind == "undo" and session.answered:
        session.undo()
    elif kind == "remap":
        system = rng.choice(session.names)
        message = rng.choice(sorted({t.message_id for t in KEY.templates}))
        keys, responses = session.templates(system, message)
        pairs = None if rng.random() < 0.3 else _random_pairs(
            rng, [t.template_id for t in keys], [t.template_id for t in responses])
        session.remap(system, message, pairs)
    else:
        return "nothing"
    return kind


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("with_history", [True, False], ids=["history", "no-history"])
def test_random_answers_undos_and_mappings_give_a_full_rescoring(tmp_path, seed,
                                                                 with_history) -> None:
    history = tmp_path / "history.lisp"
    if with_history:
        shutil.copyfile(EXAMPLE / "history.lisp", history)
    start = _read_history(history)
    rng = random.Random(seed)
    numbers: dict[str, int] = {}
    done = []
    with Adjudication(CONFIG, EXAMPLE / "key.txt", SYSTEMS, history) as session:
        initial = Reference(history, start)
        check(session, initial, numbers)
        for _ in range(14):
            done.append(_step(rng, session))
            check(session, Reference(history, start), numbers)
        changes = score_changes(session)
    assert {"answer", "undo", "remap"} <= set(done), done
    start_table = {row["system"]: row for row in _table(initial.pairs)}
    for row in changes:
        assert [m["start"] for m in row["metrics"]] == [
            start_table[row["system"]][m] for m in ("recall", "precision", "f1")]


def _shown(page: str) -> dict[str, str]:
    return dict(re.findall(r'<tr data-system="([^"]+)">.*?data-metric="f1">([^<]*)<', page))


def test_the_page_table_follows_answers_undos_and_mappings(tmp_path) -> None:
    history = tmp_path / "history.lisp"
    shutil.copyfile(EXAMPLE / "history.lisp", history)
    with Adjudication(CONFIG, EXAMPLE / "key.txt", SYSTEMS, history) as session, \
            TestClient(create_app(session, "tok"), base_url="http://127.0.0.1:8000") as client:
        before = _shown(client.get("/tok/").text)
        assert before == {row["system"]: row["f1"] for row in scores_view(session)}
        question = next(q for q in session.questions if q.offered)
        page = client.post("/tok/answer", data={"question": question.id, "answer": "correct"})
        after = _shown(page.text)
        assert after != before
        assert after == {row["system"]: row["f1"] for row in _table(Reference(
            history, History(None, ())).pairs)}
        assert _shown(client.post("/tok/undo").text) == before
        keys, responses = session.templates("alpha", "DEMO-0006")
        client.post("/tok/map/alpha/DEMO-0006", data={
            f"key-for-{r.template_id}": k.template_id
            for k, r in zip(keys, reversed(responses), strict=True)})
        assert _shown(client.get("/tok/").text) == {
            row["system"]: row["f1"] for row in _table(Reference(history, None).pairs)}


def _template(fills: dict[str, str]) -> str:
    """A template of the example's configuration: the ``fills`` given by slot id, "-" elsewhere."""
    return "".join(f"{spec.label:<36}{fills.get(spec.slot_id, '-')}\n"
                   for spec in CONFIG.slots) + "\n"


# DEMO-0006 of a system whose mapping an answer to another system's question changes: its
# response template 2 has the "PYLON" of alpha's question, but template 1 (the same incident
# type, more fills right) is mapped to key template 2 until "PYLON" is judged correct.
CRAFTED = _template({
    "message-id": "DEMO-0006", "template-id": "1", "inc-date": "03 APR 24",
    "inc-loc": "VERIDIA: FELL RIVER (PROVINCE)", "inc-type": "BOMBING",
    "perp-ind-id": '"REBELS"'}) + _template({
    "message-id": "DEMO-0006", "template-id": "2", "inc-date": "03 APR 24",
    "inc-type": "BOMBING", "inc-stage": "ATTEMPTED", "phys-tgt-id": '"PYLON"',
    "phys-tgt-type": 'ENERGY: "PYLON"'})


def test_an_answer_rescores_systems_whose_mapping_it_changes_without_asking_it(tmp_path):
    """The mapping reads the history too: the systems that put a question are not all that
    an answer can change (why the session records look-ups, not questions)."""
    crafted = tmp_path / "crafted.txt"
    crafted.write_text(CRAFTED)
    history = tmp_path / "history.lisp"
    responses = {"alpha": RESPONSES["alpha"], "crafted": read_templates(crafted, CONFIG)}
    with Adjudication(CONFIG, EXAMPLE / "key.txt", [SYSTEMS[0], crafted], history) as session:
        before = [(p.key_id, p.response_id) for p in session.mapping_of("crafted", "DEMO-0006")]
        assert ("2", "1") in before
        pylon = next(q for q in session.questions if (q.message_id, q.key_template_id,
                                                      q.slot_id) == ("DEMO-0006", "2",
                                                                     "phys-tgt-id"))
        assert [s for s, _ in pylon.systems] == ["alpha"]
        assert not any(q.message_id == "DEMO-0006" and q.key_template_id == "2"
                       and "crafted" in dict(q.systems) for q in session.questions)
        session.answer(pylon.id, "correct")
        after = [(p.key_id, p.response_id) for p in session.mapping_of("crafted", "DEMO-0006")]
        assert ("2", "2") in after
        reference = Reference(history, None, responses)
        assert session.pairs == reference.pairs
        assert session.totals["crafted"] == summarize(reference.pairs["crafted"],
                                                      CONFIG).all_templates.total
        session.undo()
        assert [(p.key_id, p.response_id) for p in session.mapping_of(
            "crafted", "DEMO-0006")] == before
        assert session.pairs == Reference(history, None, responses).pairs
