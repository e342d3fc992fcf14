"""Fill-level (response-level) units from the scorer itself (Yeh 2000, issue 17)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from muceval.cli import main
from muceval.core.tallies import Tally, summarize
from muceval.core.unit_levels import units_of
from muceval.core.units import from_arrays
from muceval.formats.config import load_configuration
from muceval.formats.muc.templates import parse_templates
from muceval.formats.registry import load_inputs
from muceval.scoring.muc1992.scorer import ScoringOptions
from muceval.scoring.session import score_systems
from muceval.significance.engine import compare
from muceval.significance.kernels import METRICS, reduce_counts
from muceval.significance.settings import SignificanceSettings
from oracles import brute_force_pvalue

YEH = Path(__file__).parent / "data" / "yeh"
CONFIG = load_configuration(YEH / "config.toml")


def scored(key_text: str, responses: dict[str, str], fills: bool = True):
    def read(text: str, name: str):
        parsed = parse_templates(text, CONFIG, name)
        assert parsed.ok, parsed.problems
        return parsed.templates

    key = read(key_text, "key")
    systems = {name: read(text, name) for name, text in responses.items()}
    return score_systems(CONFIG, key, systems, options=ScoringOptions(fills=fills)).systems


def yeh_pairs():
    return scored((YEH / "key.txt").read_text(),
                  {n: (YEH / f"{n}.txt").read_text() for n in ("A", "B")})


def test_scored_fill_units_are_the_hand_written_ones() -> None:
    """tests/data/yeh/units.csv was written by hand from the definitions in the docs."""
    hand = load_inputs([YEH / "units.csv"])
    for name, pairs in yeh_pairs().items():
        units = {u: t.as_tuple()[:4] for u, t in units_of(pairs, CONFIG, "fill").items()
                 if t.as_tuple()[:4] != (0, 0, 0, 0)}
        written = {u: tuple(int(v) for v in row)
                   for u, row in zip(hand.units, hand.system(name), strict=True) if row.any()}
        assert units == written, name


def test_exact_fill_test_from_scored_templates_equals_the_hand_written_csv(tmp_path) -> None:
    out = tmp_path / "fills.json"
    assert main(["score", "--key", str(YEH / "key.txt"), "--config", str(YEH / "config.toml"),
                 "--unit", "fill", "--format", "json", "-o", str(out),
                 str(YEH / "A.txt"), str(YEH / "B.txt")]) == 0
    scored_units = load_inputs([out], level="fill")
    hand = load_inputs([YEH / "units.csv"], level="fill")
    assert scored_units.level == hand.level == "fill"
    a = compare(scored_units, settings=SignificanceSettings(method="exact", bootstrap=0))
    b = compare(hand, settings=SignificanceSettings(method="exact", bootstrap=0))
    for x, y in zip(a.comparisons, b.comparisons, strict=True):
        assert (x.metric, x.method) == (y.metric, "exact")
        assert x.p_value == y.p_value, x.metric
    # 14 fills differ: the exact test enumerates 2^14 exchanges.
    counts = scored_units.counts
    assert int((counts[0] != counts[1]).any(axis=1).sum()) == 14


def test_shared_fills_are_one_unit_with_equal_counts() -> None:
    units = {n: units_of(p, CONFIG, "fill") for n, p in yeh_pairs().items()}
    # B's "THE DMITRI" is A's "DMITRI" after the premodifier is stripped: one spurious unit.
    shared = 'YEH-2#key:1#people#+"DMITRI"'
    assert units["A"][shared] == units["B"][shared] == Tally(act=1)
    # B's "THE CARLA" is credited against the key's "CARLA" as A's "CARLA" is.
    assert units["A"]['YEH-2#key:1#people#"CARLA"'] == units["B"]['YEH-2#key:1#people#"CARLA"']


def test_recording_fills_changes_no_tally() -> None:
    with_fills = yeh_pairs()
    without = scored((YEH / "key.txt").read_text(),
                     {n: (YEH / f"{n}.txt").read_text() for n in ("A", "B")}, fills=False)
    for name in with_fills:
        assert [p.slots for p in with_fills[name]] == [p.slots for p in without[name]]
        assert all(not p.fills for p in without[name])
    with pytest.raises(ValueError, match="without the credit of every fill"):
        units_of(without["A"], CONFIG, "fill")


# -- property: random relation sets --------------------------------------------------------

TYPES = ("MEETING", "CALL", "CONTACT", "EMPLOYMENT")
PEOPLE = ('"ANA"', '"BORIS"', '"THE BORIS"', '"CARLA"', '"DMITRI"')
PLACES = ('"LIMA"', '"OSLO"', '"ROME"')


@st.composite
def template(draw, message: str, tid: str) -> str:
    def fills(label: str, values: list[str]) -> list[str]:
        if not values:
            return [f"{label:<36}-"]
        return [f"{label:<36}{values[0]}"] + [" " * 36 + v for v in values[1:]]

    lines = [f"{'0.  MESSAGE: ID':<36}{message}", f"{'1.  MESSAGE: TEMPLATE':<36}{tid}"]
    lines += fills("2.  RELATION: TYPE", [draw(st.sampled_from(TYPES))])
    lines += fills("3.  RELATION: PEOPLE",
                   draw(st.lists(st.sampled_from(PEOPLE), max_size=3, unique=True)))
    lines += fills("4.  RELATION: PLACES",
                   draw(st.lists(st.sampled_from(PLACES), max_size=2, unique=True)))
    return "\n".join(lines) + "\n\n"


@st.composite
def template_file(draw, messages: int) -> str:
    out = []
    for m in range(1, messages + 1):
        count = draw(st.integers(0, 2))
        if count == 0:
            star = [f"{'0.  MESSAGE: ID':<36}YEH-{m}", f"{'1.  MESSAGE: TEMPLATE':<36}*"]
            star += [f"{label:<36}*" for label in
                     ("2.  RELATION: TYPE", "3.  RELATION: PEOPLE", "4.  RELATION: PLACES")]
            out.append("\n".join(star) + "\n\n")
        for t in range(1, count + 1):
            out.append(draw(template(f"YEH-{m}", str(t))))
    return "".join(out)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_fill_level_exact_test_equals_brute_force(data) -> None:
    key = data.draw(template_file(2))
    a = data.draw(template_file(2))
    b = data.draw(st.one_of(st.just(a), template_file(2)))
    results = scored(key, {"A": a, "B": b})
    per_system = {}
    for name, pairs in results.items():
        units = units_of(pairs, CONFIG, "fill")
        # Units sum to the ALL TEMPLATES total (units_of checks it too).
        total = summarize(pairs, CONFIG).all_templates.total
        assert Tally.total(units.values()).as_tuple()[:4] == total.as_tuple()[:4]
        per_system[name] = units
    names = sorted(set(per_system["A"]) | set(per_system["B"]))
    counts = np.array([[list(per_system[s].get(u, Tally()).as_tuple()[:4]) for u in names]
                       for s in ("A", "B")])
    differing = int((counts[0] != counts[1]).any(axis=1).sum())
    if a == b:
        assert differing == 0  # every fill shared: nothing is ever exchanged
    if differing > 12:
        return
    result = compare(from_arrays(["A", "B"], names, counts),
                     settings=SignificanceSettings(method="exact", bootstrap=0, classic=False))
    # Units both systems share with equal counts are never exchanged: summed into one unit
    # they keep the totals and leave the enumeration small.
    changed = (counts[0] != counts[1]).any(axis=1)
    x, y = (reduce_counts(np.vstack([c[changed], c[~changed].sum(axis=0)])) for c in counts)
    for metric in METRICS:
        brute = brute_force_pvalue(x, y, metric, True)
        assert result.comparison("A", "B", metric).p_value == pytest.approx(brute, abs=1e-12)


# -- the command line ---------------------------------------------------------------------------

def test_levels_are_checked_on_reading(tmp_path, capsys) -> None:
    args = ["score", "--key", str(YEH / "key.txt"), "--config", str(YEH / "config.toml"),
            "--format", "json"]
    messages = tmp_path / "messages.json"
    fills = tmp_path / "fills.json"
    assert main([*args, "-o", str(messages), str(YEH / "A.txt"), str(YEH / "B.txt")]) == 0
    assert main([*args, "--unit", "fill", "-o", str(fills), str(YEH / "A.txt")]) == 0
    capsys.readouterr()
    assert main(["significance", str(messages), "--unit", "fill"]) == 2
    err = capsys.readouterr().err
    assert "messages.json" in err and "message units, not fill units" in err
    assert "muceval score --unit fill" in err
    # Fill units of one system beside message units of another: refused.
    b_fills = tmp_path / "b.json"
    assert main([*args, "--unit", "template", "-o", str(b_fills), str(YEH / "B.txt")]) == 0
    capsys.readouterr()
    assert main(["significance", str(fills), str(b_fills)]) == 2
    assert "a test exchanges units of one kind" in capsys.readouterr().err
    # --unit goes with JSON output only.
    assert main([*args[:-2], "--unit", "fill", "--format", "csv", str(YEH / "A.txt")]) == 2
    assert "--unit fill" in capsys.readouterr().err


def test_fill_units_across_files_are_checked_by_message(tmp_path, capsys) -> None:
    args = ["score", "--key", str(YEH / "key.txt"), "--config", str(YEH / "config.toml"),
            "--format", "json", "--unit", "fill"]
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert main([*args, "-o", str(a), str(YEH / "A.txt")]) == 0
    assert main([*args, "-o", str(b), str(YEH / "B.txt")]) == 0
    capsys.readouterr()
    assert main(["significance", str(a), str(b), "--method", "exact", "--format", "json",
                 "--seed", "1"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["unit"] == "fill"
    assert main(["significance", str(YEH / "units.csv"), "--unit", "fill", "--method", "exact",
                 "--format", "json"]) == 0
    by_hand = json.loads(capsys.readouterr().out)
    assert by_hand["settings"]["unit"] == "fill"
    assert [c["p_value"] for c in doc["comparisons"]] == \
        [c["p_value"] for c in by_hand["comparisons"]]


def test_compare_and_report_take_fill_units(tmp_path, capsys) -> None:
    args = ["--key", str(YEH / "key.txt"), "--config", str(YEH / "config.toml"), "--unit", "fill"]
    assert main(["compare", *args, "--method", "exact", "--format", "json",
                 str(YEH / "A.txt"), str(YEH / "B.txt")]) == 0
    doc = json.loads(capsys.readouterr().out)
    hand = compare(load_inputs([YEH / "units.csv"]),
                   settings=SignificanceSettings(method="exact", bootstrap=0))
    for c in doc["comparisons"]:
        assert c["p_value"] == hand.comparison("B", "A", c["metric"]).p_value
    out = tmp_path / "report"
    assert main(["report", *args, "--method", "exact", "--no-png", "--out", str(out),
                 str(YEH / "A.txt"), str(YEH / "B.txt")]) == 0
    page = (out / "report.html").read_text()
    assert "Classic tests" in page and "units (fills)" in page
    scores = json.loads((out / "scores.json").read_text())
    assert scores["unit"] == "fill"


def test_tst3_fill_units_sum_to_the_totals(muc4) -> None:
    from muceval.formats.muc.history import read_history
    from muceval.formats.muc.templates import read_templates

    config = load_configuration(muc4 / "tst3" / "config-tst3.el")
    key = read_templates(muc4 / "corpora" / "tst3" / "key-tst3.v2", config)
    history = read_history(muc4 / "tst3" / "final-history-nrad.tst3")
    names = ("GE", "GE-CMU", "UMASS", "SYNCH")
    responses = {n: read_templates(muc4 / "tst3" / "responses" / f"{n}.tst3", config)
                 for n in names}
    options = ScoringOptions(query_pass=False, fills=True)
    results = score_systems(config, key, responses, history=history, options=options).systems
    plain = score_systems(config, key, responses, history=history,
                          options=ScoringOptions(query_pass=False)).systems
    for name in names:
        assert [p.slots for p in results[name]] == [p.slots for p in plain[name]]
        units_of(results[name], config, "fill")  # raises unless the units sum to the total


def test_equal_spurious_fills_of_a_message_are_one_unit() -> None:
    # A second spurious template in the irrelevant message YEH-5 with the same fills as A's
    # first: each spurious fill name now holds ACT 2, and nothing else changes.
    a = (YEH / "A.txt").read_text()
    second = a[a.index("0.  MESSAGE: ID                     YEH-5"):].replace(
        "1.  MESSAGE: TEMPLATE               1", "1.  MESSAGE: TEMPLATE               2")
    units = units_of(scored((YEH / "key.txt").read_text(), {"A": a + "\n" + second})["A"],
                     CONFIG, "fill")
    once = units_of(yeh_pairs()["A"], CONFIG, "fill")
    for name in ('YEH-5#spurious#rel-type#+EMPLOYMENT', 'YEH-5#spurious#people#+"JUAN"',
                 'YEH-5#spurious#places#+"MADRID"'):
        assert once[name] == Tally(act=1) and units[name] == Tally(act=2)
    assert {u: t for u, t in units.items() if not u.startswith("YEH-5#spurious")} == \
        {u: t for u, t in once.items() if not u.startswith("YEH-5#spurious")}


# -- the worked example of docs/significance-units.md --------------------------------------------

UNITS_DOC = Path(__file__).resolve().parent.parent / "docs" / "significance-units.md"
_METRICS = {"recall": "recall", "precision": "precision", "F": "f1"}


def _p(value: float | None) -> str:
    """A p-value as the table prints it."""
    return "n/a" if value is None else "<0.001" if value < 0.001 else f"{value:.3f}"


def _response_p(muc4: Path, a: str, b: str, metric: str, capsys) -> float:
    """The response-level p of the worked example's compare command for systems a and b."""
    assert main(["compare", "--key", str(muc4 / "corpora" / "tst3" / "key-tst3.v2"),
                 "--config", str(muc4 / "tst3" / "config-tst3.el"),
                 "--history", str(muc4 / "tst3" / "final-history-nrad.tst3"), "--no-query-pass",
                 "--unit", "response", "--method", "approximate", "--shuffles", "9999",
                 "--seed", "1", "--format", "json",
                 *(str(muc4 / "tst3" / "responses" / f"{n}.tst3") for n in (a, b))]) == 0
    doc = json.loads(capsys.readouterr().out)
    return next(c["p_value"] for c in doc["comparisons"] if c["metric"] == metric)


def test_tst3_worked_example_is_what_muceval_computes(muc4, tmp_path, capsys) -> None:
    """The commands of the worked example, run here; every cell of its table, the counts of
    units and the range of differing fill units must be what the docs say."""
    text = UNITS_DOC.read_text(encoding="utf-8")
    example = text.split("## Worked example: MUC-4 TST3", 1)[1]
    responses = [str(muc4 / "tst3" / "responses" / f"{n}.tst3")
                 for n in ("GE", "GE-CMU", "UMASS", "SRI", "NYU")]
    tallies, results = {}, {}
    for unit in ("message", "template", "fill"):
        scores = tmp_path / f"tst3-{unit}.json"
        assert main(["score", "--key", str(muc4 / "corpora" / "tst3" / "key-tst3.v2"),
                     "--config", str(muc4 / "tst3" / "config-tst3.el"),
                     "--history", str(muc4 / "tst3" / "final-history-nrad.tst3"),
                     "--no-query-pass", "--unit", unit, "--format", "json", "-o", str(scores),
                     *responses]) == 0
        capsys.readouterr()
        assert main(["significance", str(scores), "--seed", "1", "--unit-means",
                     "--metrics", "recall,precision,f1", "--format", "json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        results[unit] = {(c["a"], c["b"], c["metric"]): c for c in doc["comparisons"]}
        tallies[unit] = load_inputs([scores])
    assert (f"{len(tallies['message'].units)} message units; "
            f"{len(tallies['fill'].units):,} fill units.") in example
    counts = tallies["fill"].counts
    differing = [int((counts[i] != counts[j]).any(axis=1).sum())
                 for i in range(len(counts)) for j in range(i + 1, len(counts))]
    assert f"({min(differing):,} to {max(differing):,} for the ten pairs" in text

    rows = [line for line in example.splitlines()
            if line.startswith("| ") and not line.startswith(("| pair", "|---"))]
    assert len(rows) == 8
    correlations = []
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        a, b = cells[0].split(" – ")
        metric = _METRICS[cells[1]]
        both = {}
        for unit in ("message", "fill"):
            c = results[unit].get((a, b, metric)) or results[unit][(b, a, metric)]
            sign = 1 if (c["a"], c["b"]) == (a, b) else -1
            both[unit] = (c, sign)
        (m, sign), (f, _) = both["message"], both["fill"]
        mc, fc = m["classic"], f["classic"]
        t = results["template"].get((a, b, metric)) or results["template"][(b, a, metric)]

        def two(test: str, mc=mc, fc=fc) -> str:
            return f"{_p(mc[test])} / {_p(fc[test])}"

        computed = [cells[0], cells[1], f"{100 * sign * m['difference']:+.2f}".replace("-", "−"),
                    _p(m["p_value"]), _p(t["p_value"]), _p(f["p_value"]),
                    _p(_response_p(muc4, a, b, metric, capsys)), two("paired_t"), two("sign"),
                    two("wilcoxon"), _p(mc["two_sample_t"]), _p(mc["binomial"]),
                    f"{mc['correlation']:.2f} / {fc['correlation']:.2f}"]
        assert cells == computed, row
        assert mc["binomial"] == fc["binomial"]  # from the totals: the same at both levels
        assert f["p_value"] <= m["p_value"]  # "smaller p-values ... in every row"
        correlations += [mc["correlation"], fc["correlation"]]
    assert f"(r {min(correlations):.2f}–{max(correlations):.2f} at either level)" in example
