"""Yeh's response-level units (issue 26): the tallies the significance engine uses for an
assignment of responses are those the 1992 scorer gives the pseudo-systems it describes, and
the exact test is the enumeration of every assignment.

The pseudo-systems are written out as template files and scored whole, with the template
mapping held fixed by manual mappings, so the check runs through the full scorer, not only
the slot scorer the units are made with.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from muceval.cli import main
from muceval.core.tallies import summarize
from muceval.formats.config import load_configuration
from muceval.formats.muc.templates import parse_templates
from muceval.scoring.muc1992.scorer import Scorer, ScoringOptions
from muceval.scoring.responses import response_units
from muceval.significance import responses as yeh
from muceval.significance.kernels import reduce_counts, totals_value
from muceval.significance.settings import SignificanceSettings

DATA = Path(__file__).parent / "data" / "yeh"
CONFIG = load_configuration(DATA / "config.toml")
VALUES = {"rel-type": ["CONTACT", "MEETING", "CALL", "EMPLOYMENT"],
          "people": ['"ANA"', '"BORIS"', '"CARLA"', '"THE DMITRI"'],
          "places": ['"LIMA"', '"OSLO"', '"ROME"']}
LABELS = {"rel-type": "2.  RELATION: TYPE", "people": "3.  RELATION: PEOPLE",
          "places": "4.  RELATION: PLACES"}
MESSAGES = ("YEH-1", "YEH-2")


def _template(message: str, tid: str, fills: dict[str, list[str]]) -> str:
    lines = [f"0.  MESSAGE: ID                     {message}",
             f"1.  MESSAGE: TEMPLATE               {tid}"]
    for slot, label in LABELS.items():
        values = fills.get(slot) or ["-"]
        lines.append(f"{label:<36}{values[0]}")
        lines.extend(f"{'':36}{v}" for v in values[1:])
    return "\n".join(lines) + "\n\n"


def _file(templates: dict[tuple[str, str], dict[str, list[str]]]):
    text = "".join(_template(m, t, f) for (m, t), f in sorted(templates.items()))
    return parse_templates(text, CONFIG).templates


# Every message has key template 1; each system has response template 1 (mapped to it) and
# template 2 (spurious). Each slot of each template holds fills of both, of one, or of none.
fills = st.lists(st.tuples(st.sampled_from(["a", "b", "both"]), st.integers(0, 3)), max_size=2)
systems = st.fixed_dictionaries({
    (m, t, s): fills for m in MESSAGES for t in ("1", "2") for s in LABELS})
keys = st.fixed_dictionaries({
    (m, s): st.lists(st.integers(0, 3), max_size=2, unique=True) for m in MESSAGES
    for s in LABELS})

MAPPING = {m: (("1", "1"), (None, "2")) for m in MESSAGES}


def _value(slot: str, i: int) -> str:
    return VALUES[slot][i % len(VALUES[slot])]


def _own(drawn, owner: str) -> dict[tuple[str, str], dict[str, list[str]]]:
    out: dict[tuple[str, str], dict[str, list[str]]] = {}
    for (m, t, s), chosen in drawn.items():
        out.setdefault((m, t), {})[s] = [_value(s, i) for who, i in chosen
                                         if who in (owner, "both")]
    return out


def _key(drawn) -> dict[tuple[str, str], dict[str, list[str]]]:
    out: dict[tuple[str, str], dict[str, list[str]]] = {}
    for (m, s), chosen in drawn.items():
        out.setdefault((m, "1"), {})[s] = [_value(s, i) for i in chosen]
    return out


def _total(key, response) -> np.ndarray:
    scorer = Scorer(CONFIG, None, ScoringOptions(manual_mappings=MAPPING))
    t = summarize(scorer.score(key, response).pairs, CONFIG).all_templates.total
    return np.array([t.pos, t.act, t.cor, t.par])


def _pseudo(own: dict, other: dict, mine: str, units, bits: int) -> dict:
    """A pseudo-system: its own fills but those given away, then those it receives."""
    out = {where: {s: list(v) for s, v in slots.items()} for where, slots in own.items()}
    order = [*units.singles, *(r for g in units.groups for r in g.responses)]
    for j, response in enumerate(order):
        message, side, slot = response.where.split("#")
        tid = "2" if side == "spurious" else "1"
        to_first = bool(bits >> j & 1)
        receives = to_first == (mine == "a")
        source = own if response.owner == mine else other
        value = next(v for v in source[(message, tid)][slot]
                     if v.replace("THE ", "") == response.fill)
        if response.owner == mine and not receives:
            out[(message, tid)][slot].remove(value)
        elif response.owner != mine and receives:
            out[(message, tid)][slot].append(value)
    return out


def _engine(units, bits: int) -> np.ndarray:
    """The tallies of both pseudo-systems from the units, for one assignment."""
    first, second = units.base[0].copy(), units.base[1].copy()
    for j, row in enumerate(units.contributions):
        if bits >> j & 1:
            first += row
        else:
            second += row
    start = len(units.singles)
    for group in units.groups:
        index = (bits >> start) & ((1 << len(group.responses)) - 1)
        first += group.outcomes[index, 0]
        second += group.outcomes[index, 1]
        start += len(group.responses)
    return np.stack([first, second])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(systems, keys, st.integers(0, 2**32 - 1))
def test_unit_tallies_are_those_of_rescoring_the_pseudo_systems(drawn, key_drawn, seed):
    key, a, b = _file(_key(key_drawn)), _own(drawn, "a"), _own(drawn, "b")
    units = response_units(CONFIG, key, _file(a), _file(b), ("A", "B"),
                           options=ScoringOptions(manual_mappings=MAPPING))
    rng = np.random.default_rng(seed)
    for bits in [0, (1 << units.n) - 1, *rng.integers(0, 1 << max(units.n, 1), 6).tolist()]:
        bits = int(bits) & ((1 << units.n) - 1)
        first = _total(key, _file(_pseudo(a, b, "a", units, bits)))
        second = _total(key, _file(_pseudo(b, a, "b", units, bits)))
        assert np.array_equal(_engine(units, bits), np.stack([first, second])), bits


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(systems, keys)
def test_the_exact_test_is_the_enumeration_of_every_assignment(drawn, key_drawn):
    key, a, b = _file(_key(key_drawn)), _own(drawn, "a"), _own(drawn, "b")
    units = response_units(CONFIG, key, _file(a), _file(b), ("A", "B"),
                           options=ScoringOptions(manual_mappings=MAPPING))
    if units.n > 7:
        units = response_units(CONFIG, key, _file(a), _file(a), ("A", "A"))  # n = 0
    metrics = ("recall", "precision", "f1")
    found = yeh.randomize_responses(units, metrics, SignificanceSettings(method="exact"))
    observed = reduce_counts(units.observed)
    for m, metric in enumerate(metrics):
        target = totals_value(observed[0], metric) - totals_value(observed[1], metric)
        extreme = 0
        for bits in range(1 << units.n):
            x = reduce_counts(_total(key, _file(_pseudo(a, b, "a", units, bits))))
            y = reduce_counts(_total(key, _file(_pseudo(b, a, "b", units, bits))))
            diff = totals_value(x, metric) - totals_value(y, metric)
            extreme += abs(diff) >= abs(target) - 1e-9 * abs(target)
        assert found[m].p_value == extreme / (1 << units.n)


def test_the_compiled_count_equals_the_numpy_count():
    key = parse_templates((DATA / "key.txt").read_text(), CONFIG).templates
    a = parse_templates((DATA / "A.txt").read_text(), CONFIG).templates
    b = parse_templates((DATA / "B.txt").read_text(), CONFIG).templates
    units = response_units(CONFIG, key, a, b, ("A", "B"))
    assert units.groups and units.n == 18  # competing responses included
    metrics = ("recall", "precision", "f1")
    observed = reduce_counts(units.observed)
    diffs = [totals_value(observed[0], m) - totals_value(observed[1], m) for m in metrics]
    for make in (lambda: yeh._enumerated(units.n), lambda: yeh._drawn(units.n, 5000, 3)):
        assert np.array_equal(yeh._count_numpy(units, metrics, diffs, True, make()),
                              yeh._count_compiled(units, metrics, diffs, True, make()))


def test_competing_responses_are_scored_together():
    """YEH-3: the key's type is CALL; the first system says CONTACT (partial), the second
    CALL. Given both, a system is credited once (the 1992 multi-fill procedure), so the
    outcome is not the sum of the two: a group of four assignments, not two singles."""
    key = parse_templates((DATA / "key.txt").read_text(), CONFIG).templates
    a = parse_templates((DATA / "A.txt").read_text(), CONFIG).templates
    b = parse_templates((DATA / "B.txt").read_text(), CONFIG).templates
    units = response_units(CONFIG, key, a, b, ("A", "B"))
    (group,) = units.groups
    assert [(r.where, r.fill) for r in group.responses] == [
        ("YEH-3#key:1#rel-type", "CONTACT"), ("YEH-3#key:1#rel-type", "CALL")]
    both = group.outcomes[0b11, 0]  # POS, ACT, COR, PAR of the first with both responses
    assert both.tolist() == [1, 2, 1, 0]
    # The second system has no spurious template in YEH-5: the first's spurious fills are
    # still exchangeable (the second receives them as spurious fills of its own).
    assert units.held == 0
    assert {r.where for r in units.singles if r.where.startswith("YEH-5")} == {
        "YEH-5#spurious#rel-type", "YEH-5#spurious#people", "YEH-5#spurious#places"}


def test_yeh_procedure_on_the_command_line(capsys, tmp_path):
    args = ["compare", "--key", str(DATA / "key.txt"), "--config", str(DATA / "config.toml"),
            str(DATA / "A.txt"), str(DATA / "B.txt"), "--format", "json"]
    assert main([*args, "--yeh"]) == 0
    import json

    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["unit"] == "response" and doc["settings"]["responses"] == {"B": 18}
    recall = next(c for c in doc["comparisons"] if c["metric"] == "recall")
    assert recall["method"] == "exact" and set(recall["checks"]) == {"sign_test_p"}
    for refused in (["--yeh", "--unit", "fill"], ["--yeh", "--shuffles", "9"],
                    ["--unit", "response", "--bootstrap", "9"]):
        assert main([*args, *refused]) == 2
        assert "error: " in capsys.readouterr().err


@pytest.mark.parametrize("n", [3, 21])
def test_exact_up_to_twenty_responses_then_drawn(n):
    from muceval.core.responses import PairResponses, Response

    units = PairResponses("A", "B", np.zeros((2, 4), dtype=np.int64),
                          tuple(Response(f"M#key:1#s{i}", "X", "a") for i in range(n)),
                          np.tile([1, 1, 1, 0], (n, 1)), ())
    (test,) = yeh.randomize_responses(units, ["recall"], SignificanceSettings(
        method="auto", shuffles=999, seed=1))
    assert (test.method, test.assignments) == (("exact", 8) if n == 3 else ("approximate", 999))
    assert (test.second_p_value is None) == (n == 3)
    if n == 3:  # all three to the first system, or all to the second: 2 of 8 as extreme
        assert test.p_value == 2 / 8
    assert list(itertools.islice(yeh._enumerated(2), 1))[0].ravel().tolist() == [0, 1, 2, 3]
