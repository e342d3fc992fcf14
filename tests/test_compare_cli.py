"""`muceval compare`: the one-command A/B test of a baseline against candidates."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from muceval.cli import main
from muceval.core.units import from_arrays
from muceval.reporting.demo import example_dir
from muceval.significance.baseline import compare_to_baseline
from muceval.significance.engine import compare
from muceval.significance.settings import PRESETS, SignificanceSettings


def test_compare_scores_responses_and_answers_in_json(capsys) -> None:
    ex = example_dir()
    code = main(["compare", "--key", str(ex / "key.txt"), "--config", str(ex / "config.toml"),
                 "--history", str(ex / "history.lisp"), str(ex / "beta.txt"),
                 str(ex / "alpha.txt"), "--format", "json"])
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["format"] == "muceval-compare" and doc["baseline"] == "beta"
    # The baseline is a name at the top and a score (baseline_score) in each comparison.
    assert doc["format_version"] == 2 and all("baseline" not in c for c in doc["comparisons"])
    assert [c["metric"] for c in doc["comparisons"]] == ["recall", "precision", "f1"]
    for c in doc["comparisons"]:
        assert c["candidate"] == "alpha"
        assert abs(c["difference"] - (c["candidate_score"] - c["baseline_score"])) < 1e-12
        assert 0 < c["p_value"] <= 1 and c["ci"][0] <= c["difference"] <= c["ci"][1]
        assert c["verdict"] in ("better", "worse", "not significant")
    assert doc["settings"]["seed"] == 1


def test_difference_and_interval_are_oriented_candidate_minus_baseline() -> None:
    tallies = from_arrays(["old", "new"], [f"m{i}" for i in range(8)],
                          [[[4, 4, 1, 0]] * 8, [[4, 4, 3, 0]] * 8])
    for baseline, candidate in (("old", "new"), ("new", "old")):
        ab = replace(PRESETS["ab"].settings, bootstrap=200)
        result = compare_to_baseline(tallies, baseline, [candidate], metrics=["recall"],
                                     settings=ab)
        c = result.comparisons[0]
        engine = compare(tallies, ["recall"], SignificanceSettings(
            seed=1, bootstrap=200, method="auto")).comparison(baseline, candidate, "recall")
        assert c.p_value == engine.p_value
        sign = 1 if candidate == "new" else -1
        assert c.difference == sign * 0.5 and c.verdict == ("better" if sign > 0 else "worse")
        assert c.ci is not None and sign * c.ci[0] > 0


def test_compare_ge_against_umass_in_one_command(muc4, capsys) -> None:
    scores = muc4 / "tst3" / "official-scores"
    code = main(["compare", str(scores / "UMASS.tst3-pass1.nrad"),
                 str(scores / "GE.tst3-pass1.nrad"), "--format", "csv"])
    assert code == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("baseline,candidate,metric")
    assert len(lines) == 4 and all(",GE" in line or "GE," in line for line in lines[1:])


@pytest.mark.parametrize("command,preset", [("compare", "ab"), ("significance", "muc4")])
def test_the_preset_is_named_in_help_and_recorded(command, preset, tmp_path, capsys) -> None:
    assert main([command, "--help"]) == 0
    assert f"Defaults: the '{preset}' preset" in capsys.readouterr().out
    header = "system,unit,POS,ACT,COR,PAR\n"
    a, b = tmp_path / "A.csv", tmp_path / "B.csv"
    a.write_text(header + "A,m1,2,2,2,0\nA,m2,2,2,1,0\n")
    b.write_text(header + "B,m1,2,2,1,0\nB,m2,2,2,0,0\n")
    assert main([command, str(a), str(b), "--format", "json", "--bootstrap", "0"]) == 0
    out = capsys.readouterr().out
    recorded = json.loads(out)["settings"]
    assert recorded["preset"] == preset
    assert recorded["alpha"] == PRESETS[preset].settings.alpha


def test_compare_names_systems_as_significance_does(capsys) -> None:
    # compare printed GE.tst3-pass1 where significance printed GE.
    from muceval.cli import main
    from muceval.reporting.names import display_names

    header = "system,unit,POS,ACT,COR,PAR\n"
    import tempfile
    from pathlib import Path

    folder = Path(tempfile.mkdtemp())
    for name, cor in (("GE.tst3-pass1", 3), ("UMASS.tst3-pass1", 2)):
        (folder / f"{name}.csv").write_text(header + "".join(
            f"{name},m{u},4,4,{cor},0\n" for u in range(6)))
    assert main(["compare", str(folder / "GE.tst3-pass1.csv"),
                 str(folder / "UMASS.tst3-pass1.csv"), "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "UMASS (candidate) against GE (baseline)" in out
    assert display_names(["GE.tst3-pass1", "UMASS.tst3-pass1"]) == {
        "GE.tst3-pass1": "GE", "UMASS.tst3-pass1": "UMASS"}
