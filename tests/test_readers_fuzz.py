"""Every reader of the registry, fed mutated real files: a result or an InputError naming the
file, never another exception (Hypothesis)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from muceval.errors import MucevalError
from muceval.formats.config import load_configuration
from muceval.formats.modern.writer import write_layout
from muceval.formats.muc.mappings import format_mapping_file, parse_mapping_file
from muceval.formats.muc.templates import read_templates
from muceval.formats.muc.texts import parse_texts
from muceval.formats.registry import INPUTS, ReadOptions
from muceval.reporting.demo import example_dir
from muceval.reporting.muc1992 import format_report
from muceval.scoring.session import score_files

EXAMPLE = example_dir()
CONFIG = load_configuration(EXAMPLE / "config.toml")


def _seeds() -> dict[str, str]:
    """One real text per kind of file (all written by muceval or bundled)."""
    from muceval.core.modern import ModernDocument, ModernFile, ModernTemplate
    from muceval.formats.scores.json import scores_to_json

    session = score_files(CONFIG, EXAMPLE / "key.txt", [EXAMPLE / "alpha.txt"],
                          history_path=EXAMPLE / "history.lisp")
    pairs = session.systems["alpha"]
    template = ModernTemplate("attack", ((("shining path",), ("sl",)), (), (("bus",),), (), ()))
    modern = ModernFile("m", "gtt-gold", (ModernDocument("TST3-MUC4-0001", (template,)),))
    seeds = {
        "templates": (EXAMPLE / "key.txt").read_text(),
        "history": (EXAMPLE / "history.lisp").read_text(),
        "toml": (EXAMPLE / "config.toml").read_text(),
        "report": format_report(pairs, CONFIG),
        "scores-json": scores_to_json(session.systems, CONFIG),
        "unit-csv": "system,unit,POS,ACT,COR,PAR\nA,m1,4,4,2,1\nB,m1,4,3,1,0\n",
        "mapping": format_mapping_file({"DEMO-0001": [("1", "1"), (None, "2")]}),
        "texts": (EXAMPLE / "texts.txt").read_text()[:2000],
    }
    for layout in ("gtt-gold", "gtt-pred", "iterx-pred", "grit-gold", "muceval"):
        seeds[layout] = write_layout(modern, layout)
    return seeds


SEEDS = _seeds()


@st.composite
def mutated(draw) -> str:
    text = SEEDS[draw(st.sampled_from(sorted(SEEDS)))]
    for _ in range(draw(st.integers(1, 6))):
        if not text:
            break
        at = draw(st.integers(0, len(text) - 1))
        kind = draw(st.sampled_from(["delete", "insert", "replace", "cut", "repeat"]))
        piece = draw(st.sampled_from(['"', "(", ")", "{", "}", "[", "]", ",", "\n", "-", "/",
                                      ":", "*", "?", "0", "99999999999999999999", "\\", "\x00",
                                      ";", "nil", "é", "  ", "1."]))
        if kind == "delete":
            text = text[:at] + text[at + 1:]
        elif kind == "insert":
            text = text[:at] + piece + text[at:]
        elif kind == "replace":
            text = text[:at] + piece + text[at + 1:]
        elif kind == "cut":
            text = text[:at]
        else:
            text = text[:at] + text[at:at + 40] * 3 + text[at:]
    return text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_every_reader_gives_a_result_or_an_input_error(text: str) -> None:
    options = ReadOptions(CONFIG)
    for kind in INPUTS.kinds:
        for path in ("fuzz.txt", "fuzz.toml"):  # some kinds are told by their suffix
            try:
                if kind.sniff(text, path):
                    kind.load(text, path, options)
            except MucevalError:
                pass
    for reader in (parse_mapping_file, parse_texts):
        try:
            reader(text, "fuzz.txt")
        except MucevalError:
            pass


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_the_seeds_are_read(name: str) -> None:
    """The unmutated seeds are valid files of their kind (so the fuzzing starts from them)."""
    text = SEEDS[name]
    if name == "mapping":
        assert parse_mapping_file(text)
        return
    if name == "texts":
        assert parse_texts(text)
        return
    kind = INPUTS.detect(text, f"seed.{'toml' if name == 'toml' else 'txt'}")
    assert kind is not None, name
    kind.load(text, f"seed-{name}", ReadOptions(CONFIG))


def test_a_template_file_round_trips_through_the_reader(tmp_path) -> None:
    path = tmp_path / "k.txt"
    path.write_text(SEEDS["templates"])
    assert len(read_templates(path, CONFIG).templates) == 12
    assert json.loads(SEEDS["scores-json"])["format"] == "muceval-scores"
