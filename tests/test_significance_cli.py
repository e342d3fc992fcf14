"""Tests of ``muceval significance``."""

from __future__ import annotations

import io
import json
from pathlib import Path

import muceval
from muceval.cli import main

DATA = Path(__file__).parent / "data" / "significance"


def test_json_output(capsys):
    code = main(["significance", str(DATA / "small.csv"), "--seed", "3", "--format", "json",
                 "--metrics", "recall,f1", "--shuffles", "999"])  # fmt: skip
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["systems"]) == {"alpha", "beta", "gamma"}
    assert len(data["comparisons"]) == 3 * 2
    assert set(data["groups"]) == {"recall", "f1"}
    assert all(c["shuffles"] == 999 and c["method"] == "approximate" for c in data["comparisons"])
    assert data["settings"]["seed"] == 3
    # Same seed, same answer.
    main(["significance", str(DATA / "small.csv"), "--seed", "3", "--format", "json",
          "--metrics", "recall,f1", "--shuffles", "999"])  # fmt: skip
    assert json.loads(capsys.readouterr().out) == data


def test_table_and_csv_output(capsys):
    assert main(["significance", str(DATA / "small.csv"), "--seed", "1", "--method", "exact"]) == 0
    out = capsys.readouterr().out
    assert "recall" in out and "alpha" in out and "F P&2R" in out
    assert main(["significance", str(DATA / "small.csv"), "--seed", "1", "--format", "csv",
                 "--alternative", "one-sided", "--adjust", "bh"]) == 0  # fmt: skip
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("metric,a,b,") and len(lines) == 1 + 3 * 5


def test_bad_input_exit_code_2(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("system,unit,POS,ACT,COR,PAR\nA,u1,1,1,1,x\n")
    assert main(["significance", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:2:" in err and "Traceback" not in err
    assert main(["significance", str(DATA / "small.csv"), "--metrics", "nope"]) == 2
    assert "unknown metric" in capsys.readouterr().err


def test_official_reports(muc4, capsys):
    files = [
        str(muc4 / "tst3" / "official-scores" / f"{s}.tst3-pass1.nrad") for s in ("GE", "UMASS")
    ]
    assert main(["significance", *files, "--seed", "1", "--format", "json", "--metrics", "f1"]) == 0
    data = json.loads(capsys.readouterr().out)
    # Systems are named by the file name without its last suffix.
    assert round(100 * data["systems"]["GE.tst3-pass1"]["f1"], 2) == 56.01
    assert round(100 * data["systems"]["UMASS.tst3-pass1"]["f1"], 2) == 51.61


def test_the_terminal_output_fits_100_columns_and_elides_nothing(muc4) -> None:
    import os
    import subprocess
    import sys

    reports = sorted(str(p) for p in (muc4 / "tst3" / "reference-reports").glob("*.report"))
    env = {**os.environ, "COLUMNS": "100"}
    out = subprocess.run([sys.executable, "-m", "muceval", "significance", *reports, "--seed",
                          "1", "--shuffles", "99", "--bootstrap", "0"], capture_output=True,
                         text=True, env=env, check=True).stdout
    assert "…" not in out
    # The signature is one line to copy whole (as sacrebleu's), the rest fits.
    assert all(len(line) <= 100 for line in out.splitlines() if not line.startswith("signature"))
    # Shown without what every name shares (".tst3"), as on the page (issue 29).
    systems = {Path(r).name.split(".")[0] for r in reports}
    rows = [line for line in out.splitlines() if line.split()[:1]
            and line.split()[0] in systems]
    # Every system in every metric's table, each table ranked by its own metric (issue 29).
    assert len(rows) % 17 == 0 and rows
    for start in range(0, len(rows), 17):
        table = rows[start:start + 17]
        assert len({line.split()[0] for line in table}) == 17
        scores = [float(line.split("│")[1].split()[0]) for line in table]
        assert scores == sorted(scores, reverse=True)


def test_tests_view_shows_the_classic_tests_with_r(tmp_path, capsys) -> None:
    from muceval.cli import main

    rows = ["system,unit,POS,ACT,COR,PAR"]
    for u in range(12):
        rows.append(f"A,u{u},4,4,{3 if u % 3 else 2},0")
        rows.append(f"B,u{u},4,4,{2 if u % 4 else 3},0")
    path = tmp_path / "units.csv"
    path.write_text("\n".join(rows) + "\n")
    assert main(["significance", str(path), "--seed", "1", "--metrics", "recall,f1",
                 "--tests", "all"]) == 0
    out = capsys.readouterr().out
    assert "classic tests beside randomization" in out and "Yeh ×" in out
    for head in ("pair t", "sign", "wilcox", "2-smp t", "binom", "χ²"):
        assert head in out
    assert "randomization and the sign test" in out
    assert main(["significance", str(path), "--seed", "1", "--tests", "paired"]) == 0
    out = capsys.readouterr().out
    assert "pair t" in out and "2-smp t" not in out
    assert main(["significance", str(path), "--tests", "student"]) == 2
    assert "unknown test 'student'" in capsys.readouterr().err


def test_progress_lines_when_stderr_is_not_a_terminal(tmp_path, capsys) -> None:
    from muceval.cli import main

    rows = ["system,unit,POS,ACT,COR,PAR"]
    for s, cor in (("A", 3), ("B", 2), ("C", 1)):
        rows += [f"{s},u{u},4,4,{cor if u % 2 else 2},0" for u in range(10)]
    path = tmp_path / "units.csv"
    path.write_text("\n".join(rows) + "\n")
    assert main(["significance", str(path), "--seed", "1", "--progress",
                 "--format", "json"]) == 0
    err = capsys.readouterr().err
    assert "randomization: 100%" in err
    assert main(["significance", str(path), "--seed", "1", "--format", "json"]) == 0
    assert "randomization" not in capsys.readouterr().err


def test_pairs_are_streamed_to_a_file(tmp_path, capsys):
    # --pairs writes the very table --format csv prints when the intervals and classic tests
    # are asked for, then the summary; an existing file is kept unless --force.
    args = ["significance", str(DATA / "small.csv"), "--seed", "4", "--shuffles", "999"]
    assert main([*args, "--format", "csv"]) == 0
    table = capsys.readouterr().out
    out = tmp_path / "pairs.csv"
    asked = ["--bootstrap", "1000", "--tests", "all"]
    assert main([*args, *asked, "--pairs", str(out), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert out.read_text() == table
    assert doc["comparisons"] == [] and doc["settings"]["pairs_file"] == str(out)
    assert doc["settings"]["pairs_intervals"] and doc["settings"]["pairs_classic_tests"]
    assert doc["letters"] and doc["groups"]
    assert main([*args, "--pairs", str(out)]) == 2
    assert "exists" in capsys.readouterr().err
    assert main([*args, "--pairs", str(out), "--force"]) == 0
    shown = capsys.readouterr().out
    assert "written to" in shown and "p next" not in shown
    assert "without intervals or classic tests: ask with --bootstrap N and --tests all" in shown
    assert main([*args, "--pairs", str(DATA / "small.csv"), "--force"]) == 2
    assert (DATA / "small.csv").read_text().startswith("system,unit")
    # A pairs file in a folder that does not exist is refused before any test runs.
    assert main([*args, "--pairs", str(tmp_path / "none" / "p.npz")]) == 2
    assert "the folder" in capsys.readouterr().err


def test_a_leaderboard_computes_intervals_and_classic_tests_only_when_asked(tmp_path, capsys):
    """Without --bootstrap and --tests on the command line, the pairs file leaves the
    intervals and the classic tests empty, and the summary records that; every other column
    is that of the full table."""
    import csv

    args = ["significance", str(DATA / "small.csv"), "--seed", "4", "--shuffles", "999"]
    assert main([*args, "--format", "csv"]) == 0
    full = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    out = tmp_path / "pairs.csv"
    assert main([*args, "--pairs", str(out), "--format", "json"]) == 0
    settings = json.loads(capsys.readouterr().out)["settings"]
    assert (settings["bootstrap"], settings["pairs_intervals"],
            settings["pairs_classic_tests"]) == (0, False, False)
    lean = list(csv.DictReader(out.open()))
    left = {"ci_low", "ci_high", "correlation", "sign", "wilcoxon", "paired_t",
            "two_sample_t", "chi2", "binomial"}
    assert all(row[c] == "" for row in lean for c in left)
    assert [{k: v for k, v in row.items() if k not in left} for row in lean] == \
        [{k: v for k, v in row.items() if k not in left} for row in full]


def test_a_leaderboard_as_numpy_arrays_holds_the_tables_numbers(tmp_path, capsys):
    """--pairs FILE.npz: the same pairs, p-values, decisions, intervals and classic tests as
    the CSV, as arrays numpy.load reads without pickle, with the format and settings."""
    import csv

    import numpy as np

    args = ["significance", str(DATA / "small.csv"), "--seed", "4", "--shuffles", "999",
            "--bootstrap", "500", "--tests", "all"]
    assert main([*args, "--pairs", str(tmp_path / "pairs.csv"), "--format", "json"]) == 0
    assert main([*args, "--pairs", str(tmp_path / "pairs.npz"), "--format", "json"]) == 0
    capsys.readouterr()
    rows = list(csv.DictReader((tmp_path / "pairs.csv").open()))
    z = np.load(tmp_path / "pairs.npz", allow_pickle=False)
    assert (str(z["format"]), int(z["format_version"])) == ("muceval-pairs", 1)
    assert str(z["muceval"]) == muceval.__version__
    settings = json.loads(str(z["settings"]))
    assert settings["pairs_file"] == str(tmp_path / "pairs.npz")
    assert str(z["signature"]).startswith("muceval:") and "seed:4" in str(z["signature"])
    systems, metrics = z["systems"].tolist(), z["metrics"].tolist()
    m = len(metrics)
    assert len(rows) == len(z["a"]) * m
    for i, row in enumerate(rows):
        k, j = divmod(i, m)
        a, b = systems[z["a"][k]], systems[z["b"][k]]
        assert (row["a"], row["b"], row["metric"]) == (a, b, metrics[j])
        assert float(row["value_a"]) == z["scores"][z["a"][k], j]
        for column in ("p_value", "p_adjusted", "confidence", "error_bound", "ci_low",
                       "ci_high"):
            assert float(row[column]) == z[column][k, j], column
        assert row["significant"] == str(int(z["significant"][k, j]))
        assert int(row["units"]) == z["units"][k]
        for test in ("sign", "wilcoxon", "paired_t", "chi2"):
            value = z[f"classic_{test}"][k, j]
            assert (row[test] == "") if np.isnan(value) else float(row[test]) == value


def test_p_values_have_one_format_and_say_why_they_are_not_significant() -> None:
    # 9e-04* stood beside 0.527, and a p below alpha without a star was explained only in a
    # footnote.
    from muceval.core.units import from_arrays
    from muceval.reporting.terminal import _cell
    from muceval.significance.engine import compare
    from muceval.significance.settings import SignificanceSettings

    units = [f"m{u}" for u in range(12)]
    tallies = from_arrays(["A", "B", "C"], units, [[[4, 4, 4, 0]] * 12, [[4, 4, 0, 0]] * 12,
                                                 [[4, 4, 3, 0]] * 6 + [[4, 4, 4, 0]] * 6])

    def cells(confidence: float) -> list[str]:
        result = compare(tallies, ["recall"], SignificanceSettings(
            method="approximate", shuffles=99, seed=1, bootstrap=0, confidence=confidence))
        return [_cell(result, a, b, "recall") for a, b in (("A", "B"), ("A", "C"), ("B", "C"))]

    # p ≤ alpha: a star when the test is confident of it (0.99998 and 0.998 here), a question
    # mark when a confidence of 0.999999 is asked for; three decimals throughout.
    assert cells(0.99) == ["0.010*", "0.030*", "0.010*"]
    assert cells(0.999999) == ["0.010?", "0.030?", "0.010?"]
    big = compare(from_arrays(["A", "B"], [f"m{u}" for u in range(40)],
                              [[[4, 4, 4, 0]] * 40, [[4, 4, 0, 0]] * 40]), ["recall"],
                  SignificanceSettings(method="approximate", shuffles=9999, seed=1, bootstrap=0))
    assert _cell(big, "A", "B", "recall") == "<0.001*"


def test_significance_scores_responses_and_predictions_with_a_key(tmp_path, capsys) -> None:
    # The README said significance took responses with --key; it took only scores.
    import json
    from importlib.resources import files

    from muceval.cli import main

    ex = files("muceval") / "data" / "example"
    keyed = ["--key", str(ex / "key.txt"), "--config", str(ex / "config.toml"), "--history",
             str(ex / "history.lisp")]
    systems = [str(ex / f"{n}.txt") for n in ("alpha", "beta", "gamma")]
    tests = ["--seed", "5", "--shuffles", "999", "--format", "json"]
    scores = tmp_path / "scores.json"
    assert main(["score", *keyed, "--format", "json", "-o", str(scores), *systems]) == 0
    capsys.readouterr()
    assert main(["significance", str(scores), *tests]) == 0
    from_scores = json.loads(capsys.readouterr().out)
    assert main(["significance", *keyed, *systems, *tests]) == 0
    scored_here = json.loads(capsys.readouterr().out)
    assert scored_here["systems"] == from_scores["systems"]
    assert [c["p_value"] for c in scored_here["comparisons"]] == [
        c["p_value"] for c in from_scores["comparisons"]]
    k = files("muceval") / "data" / "kitchen"
    modern = ["--key", str(k / "gold.jsonl"), "--schema", str(k / "schema.toml")]
    predictions = [str(k / "alpha.jsonl"), str(k / "beta.jsonl")]
    modern_scores = tmp_path / "modern.json"
    assert main(["score", *modern, "--scorer", "gtt", "--format", "json", "-o",
                 str(modern_scores), *predictions]) == 0
    capsys.readouterr()
    assert main(["significance", str(modern_scores), *tests]) == 0
    a = json.loads(capsys.readouterr().out)
    assert main(["significance", *modern, *predictions, *tests]) == 0
    b = json.loads(capsys.readouterr().out)
    assert a["systems"] == b["systems"] and a["comparisons"] == b["comparisons"]
    # Options of the other kind of input are refused, not ignored.
    assert main(["significance", str(scores), "--config", str(ex / "config.toml")]) == 2
    assert main(["significance", *keyed, *systems, "--phi", "strict"]) == 2
