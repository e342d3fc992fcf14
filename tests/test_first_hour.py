"""The first hour (issue 29): errors that point the way, as a new user meets them."""

from __future__ import annotations

import re
from pathlib import Path

import hypothesis
import pytest
from hypothesis import strategies as st

from muceval.cli import main
from muceval.reporting.demo import example_files

EXAMPLE = example_files()
DATA = Path(__file__).parent / "data" / "yeh"


@pytest.mark.parametrize("given,expected", [
    (EXAMPLE.config, "a muceval TOML configuration (*.toml), not a MUC template file: give it "
                     "as --config"),
    (EXAMPLE.history, "a 1992 history of judgements, not a MUC template file: give it as "
                      "--history"),
])
def test_a_configuration_or_history_given_as_the_key_is_named(given, expected, capsys):
    assert main(["score", "--key", str(given), "--config", str(EXAMPLE.config),
                 str(EXAMPLE.responses[0])]) == 2
    err = capsys.readouterr().err
    assert expected in err and "Traceback" not in err


def test_responses_without_a_key_say_how_to_compare_them(capsys):
    assert main(["compare", str(EXAMPLE.responses[0]), str(EXAMPLE.responses[1])]) == 2
    err = capsys.readouterr().err
    assert "give the answer key too (compare and report take --key)" in err


def test_metric_names_ignore_case_and_suggest_the_nearest(capsys):
    units = str(DATA / "units.csv")
    assert main(["significance", units, "--metrics", "F1,Recall", "--format", "json",
                 "--seed", "1", "--shuffles", "9"]) == 0
    capsys.readouterr()
    assert main(["significance", units, "--metrics", "F1,recal", "--seed", "1"]) == 2
    assert "unknown metric 'recal' (did you mean 'recall'?)" in capsys.readouterr().err


def test_an_output_onto_the_input_names_it_once(tmp_path, capsys):
    copy = tmp_path / "a.txt"
    copy.write_text(Path(EXAMPLE.responses[0]).read_text())
    assert main(["convert", str(copy), "--to", "muceval", "--config", str(EXAMPLE.config),
                 "-o", str(copy), "--force"]) == 2
    err = capsys.readouterr().err
    assert "is the input this command reads" in err and "the the" not in err


def test_a_run_without_the_history_says_its_questions_got_no_credit(muc4, capsys):
    """The README's TST3 commands: without --history GE's F P&R is 50.79, with it 56.31, and
    the run without says why (issue 29)."""
    key = str(muc4 / "corpora" / "tst3" / "key-tst3.v2")
    response = str(muc4 / "tst3" / "responses" / "GE.tst3")
    history = str(muc4 / "tst3" / "final-history-nrad.tst3")
    f_pr, notes = {}, {}
    for given in ([], ["--history", history]):
        assert main(["score", "--key", key, *given, "--format", "table", response]) == 0
        out, err = capsys.readouterr()
        row = next(line for line in out.splitlines() if " GE " in line)
        f_pr[bool(given)] = [cell.strip() for cell in row.split("│") if cell.strip()][4]
        notes[bool(given)] = next(line for line in err.splitlines()
                                  if "had no recorded answer and got no credit" in line)
    assert (f_pr[False], f_pr[True]) == ("50.79", "56.31")
    assert notes[False].startswith("note: 195 question(s)") and "(--history)" in notes[False]
    # The final NRaD history leaves a few questions open, and the note says how to answer them.
    assert int(notes[True].split()[1]) < 195 and "muceval adjudicate" in notes[True]


def test_narrow_terminal_tables_are_each_ranked_by_their_own_metric(muc4, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    reports = [str(muc4 / "tst3" / "official-scores" / f"{n}.tst3-pass1.nrad")
               for n in ("GE", "BBN", "UMASS", "SRI")]
    assert main(["significance", *reports, "--seed", "1", "--shuffles", "99", "--matrix"]) == 0
    out = capsys.readouterr().out
    tables = [block for block in out.split("Δ next ┃ p next")[1:]]
    assert len(tables) == 5  # one per metric at 80 columns
    for block in tables:
        scores = [float(line.split("│")[1].split()[0]) for line in block.splitlines()
                  if line.count("│") == 3]
        assert scores == sorted(scores, reverse=True) and len(scores) == 4
    assert "adjusted" not in out  # --adjust none: plain p-values, and the legend says so
    assert main(["significance", *reports, "--seed", "1", "--shuffles", "99", "--matrix",
                 "--adjust", "holm"]) == 0
    assert "holm-adjusted p-values" in capsys.readouterr().out


def test_the_region_column_is_explained(capsys):
    assert main(["score", "--key", str(EXAMPLE.key), "--config", str(EXAMPLE.config),
                 "--history", str(EXAMPLE.history), "--format", "table",
                 *map(str, EXAMPLE.responses)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "region REC x PRE: the lowest and highest recall and precision" in out


def test_folders_are_read_everywhere_and_other_kinds_skipped_with_a_note(tmp_path, capsys):
    """A folder of responses and their reports (issue 29): score, compare and report read the
    responses and say what they skipped; significance reads a folder of scores."""
    import shutil

    folder = tmp_path / "runs"
    folder.mkdir()
    for response in EXAMPLE.responses[:3]:
        shutil.copy(response, folder)
    common = ["--key", str(EXAMPLE.key), "--config", str(EXAMPLE.config)]
    assert main(["score", *common, "--format", "report", "-o", str(folder / "alpha.report"),
                 str(folder / "alpha.txt")]) == 0
    capsys.readouterr()
    assert main(["score", *common, "--format", "table", str(folder)]) == 0
    err = capsys.readouterr().err
    assert "skipped 1 file(s): alpha.report (score report)" in err
    assert main(["compare", *common, str(folder / "alpha.txt"), str(folder),
                 "--format", "json"]) == 0
    import json

    candidates = json.loads(capsys.readouterr().out)["candidates"]
    assert candidates == [Path(r).stem for r in EXAMPLE.responses[1:3]]  # not the baseline
    scores = tmp_path / "scores"
    scores.mkdir()
    for name in ("alpha", "beta"):
        assert main(["score", *common, "--format", "json", "-o", str(scores / f"{name}.json"),
                     str(folder / f"{name}.txt")]) == 0
    (scores / "notes.txt").write_text("what I changed\n")
    capsys.readouterr()
    assert main(["significance", str(scores), "--seed", "1", "--shuffles", "9",
                 "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert '"alpha"' in out and "notes.txt" in err


def test_two_responses_with_one_name_are_named(tmp_path, capsys):
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "sys.txt").write_text(Path(EXAMPLE.responses[0]).read_text())
    assert main(["score", "--key", str(EXAMPLE.key), "--config", str(EXAMPLE.config),
                 str(tmp_path / "a" / "sys.txt"), str(tmp_path / "b" / "sys.txt")]) == 2
    err = capsys.readouterr().err
    assert "two files give the system name 'sys'" in err and str(tmp_path / "b") in err


def test_set_fills_only_means_one_thing_in_every_output(muc4, capsys):
    """Issue 29: the per-slot table's SET FILLS ONLY summed all templates (BBN: ACT 528) where
    the 1992 report prints MATCHED/MISSING (ACT 333)."""
    common = ["--key", str(muc4 / "corpora" / "tst3" / "key-tst3.v2"), "--config",
              str(muc4 / "tst3" / "config-tst3.el"), "--no-query-pass",
              str(muc4 / "tst3" / "responses" / "BBN.tst3")]
    assert main(["score", *common, "--format", "report", "--layout", "summary"]) == 0
    report = next(line for line in capsys.readouterr().out.splitlines()
                  if line.startswith("SET FILLS ONLY"))
    assert main(["score", *common, "--format", "json", "--per-slot"]) == 0
    import json

    rows = json.loads(capsys.readouterr().out)["systems"][0]["rows"]
    fills = next(r for r in rows if r["name"] == "SET FILLS ONLY")
    import re

    pos, act = re.match(r"SET FILLS ONLY\s+(\d+)\s+(\d+)\|", report).groups()
    assert (int(pos), int(act)) == (fills["pos"], fills["act"])


def test_paired_tests_of_precision_and_f_are_na_unless_asked(capsys):
    """Issue 26: the tests of per-unit values apply to recall; for precision and F they are
    n/a with the reason, or, with --unit-means, labelled as tests of the mean per-unit value."""
    import json

    units = str(DATA / "units.csv")
    base = ["significance", units, "--seed", "1", "--shuffles", "99", "--format", "json"]
    by_flag = {}
    for flag in ([], ["--unit-means"]):
        assert main([*base, *flag]) == 0
        doc = json.loads(capsys.readouterr().out)
        by_flag[bool(flag)] = {c["metric"]: c["classic"] for c in doc["comparisons"]}
    plain, asked = by_flag[False], by_flag[True]
    from muceval.significance.classic import understatement

    recall = plain["recall"]
    assert recall["sign"] is not None and recall["reason"] is None
    assert recall["yeh_factor"] == understatement(recall["correlation"])
    for metric in ("precision", "f1"):
        assert plain[metric]["sign"] is None and plain[metric]["paired_t"] is None
        assert plain[metric]["yeh_factor"] is None and "not means" in plain[metric]["reason"]
        assert asked[metric]["sign"] is not None and asked[metric]["reason"] is None
        assert asked[metric]["of"] == "the mean per-unit value"
    assert plain["recall"] == asked["recall"]


def test_the_output_of_batch_is_the_input_of_significance(tmp_path, capsys):
    """Issue 29: batch's folder (per-system files and their summary) fed to significance said
    "system 'BBN' also comes from ...summary.json"; batch printed no scores."""
    spec = tmp_path / "batch.toml"
    responses = ", ".join(f'"{r}"' for r in EXAMPLE.responses[:3])
    spec.write_text(f'format-version = 1\n[[test-set]]\nname = "ex"\nkey = "{EXAMPLE.key}"\n'
                    f'config = "{EXAMPLE.config}"\nresponses = [{responses}]\n')
    assert main(["batch", str(spec), "--output-dir", str(tmp_path / "out")]) == 0
    out, err = capsys.readouterr()
    assert "ex: ALL TEMPLATES (%)" in out and "muceval significance" in err
    assert main(["significance", str(tmp_path / "out" / "ex"), "--seed", "1", "--shuffles",
                 "9", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert "summary.json (the per-system files' summary)" in err
    import json

    assert len(json.loads(out)["systems"]) == 3


def test_modern_report_says_where_it_differs_from_the_originals(modern, tmp_path, capsys):
    """Issue 29: CEAF-REE over GTT's gold gives GRIT 54.26, not its published 54.50; the
    page says why, and its groups figure ticks drop what every name shares."""
    import json

    out = tmp_path / "r"
    assert main(["report", "--key", str(modern / "gtt" / "test.json"),
                 str(modern / "gtt" / "preds_gtt.out"), str(modern / "grit" / "preds_s_t.out"),
                 "--out", str(out), "--seed", "1", "--shuffles", "9", "--format", "json"]) == 0
    capsys.readouterr()
    doc = json.loads((out / "report.json").read_text())
    ree = next(s for s in doc["scorers"] if s["metric"] == "ceaf-ree")
    assert any("per-role union of the GTT gold templates" in c for c in ree["caveats"])


def test_group_figure_ticks_leave_out_what_all_names_share():
    from muceval.core.units import from_arrays
    from muceval.reporting.plots import groups_plot
    from muceval.significance.engine import compare
    from muceval.significance.settings import SignificanceSettings

    names = ["preds.bart-base.test", "preds.t5-large-enc.test"]
    t = from_arrays(names, ["d"], [[[2, 2, 2, 0]], [[2, 2, 0, 0]]])
    fig = groups_plot(compare(t, ["recall"], SignificanceSettings(seed=1, bootstrap=0)),
                      "recall")
    ticks = re.findall(r'rotate\(-60[^>]*>([^<]*)<', fig.svg())
    assert sorted(ticks) == ["bart-base", "t5-large-enc"]


def test_the_scorer_has_one_name_everywhere(modern, tmp_path, capsys):
    """Issue 29: `--metric` (score) and `--scorer` (significance) named one choice; each
    command now takes both."""
    scores = tmp_path / "modern.json"
    gold = str(modern / "gtt" / "test.json")
    preds = [str(modern / "iterx" / f"preds.{e}.test.jsonlines") for e in ("bart-base",
                                                                           "t5-large-enc")]
    assert main(["score", "--key", gold, "--scorer", "all", "--format", "json",
                 "-o", str(scores), *preds]) == 0
    for flag in ("--scorer", "--metric"):
        assert main(["significance", str(scores), flag, "gtt", "--seed", "1",
                     "--shuffles", "9", "--format", "json"]) == 0
    capsys.readouterr()


def test_the_page_and_its_figures_show_the_names_the_terminal_shows():
    """Issue 29: the terminal said `GE`, the page `GE.tst3-pass1`. Every visible name on the
    page and in its figures is now the display name, the full name kept in the data
    attributes, as each name's tooltip, and in the JSON."""
    import re

    from muceval.core.systems import SystemScores
    from muceval.core.tallies import Tally
    from muceval.core.units import from_arrays
    from muceval.reporting.analysis import analyze
    from muceval.reporting.html import build_figures, render_html
    from muceval.reporting.plots import to_svg
    from muceval.significance.distribution import shuffled_differences
    from muceval.significance.settings import SignificanceSettings
    from test_html_report import parse_html

    full = ["GE.tst3-pass1", "BBN.tst3-pass1", "UMASS.tst3-pass1"]
    tallies = from_arrays(full, ["m1", "m2"],
                          [[[2, 2, 2, 0], [2, 2, 1, 0]], [[2, 2, 1, 0], [2, 2, 0, 0]],
                           [[2, 2, 0, 0], [2, 2, 0, 0]]])  # fmt: skip
    systems = [SystemScores.of_tally(n, n, "arrays", Tally(*map(int, tallies.totals(n))))
               for n in tallies.systems]  # fmt: skip
    settings = SignificanceSettings(method="exact", bootstrap=0)
    analysis = analyze(systems, tallies, metrics="recall", settings=settings)
    distribution = shuffled_differences(tallies, full[0], full[1], "recall",
                                        SignificanceSettings(shuffles=9, seed=1))
    figures = build_figures(analysis, [distribution])
    svgs = {k: to_svg(f) for k, f in figures.items()}
    page = render_html(analysis, svgs, png=False, distributions=[distribution])
    dom = parse_html(page)
    summary = dom.find("table", id="summary-table")
    cells = summary.find_all("td", data_system=True)
    shown = [c for c in cells if c.find_all("span", **{"class": "sys"})]
    assert {c.text().strip() for c in shown} == {"GE", "BBN", "UMASS"}
    assert {s.attrs["title"] for c in shown for s in c.find_all("span")} == set(full)
    assert {r.attrs["data-system"] for r in summary.find_all("tr", data_system=True)} == set(full)
    # Input paths (in <code>) are file names, not system names.
    texts = "".join(re.findall(r">([^<]*)<", re.sub(r"<code>[^<]*</code>", "", page)))
    assert not any(name in texts for name in full), "a full name shown as text on the page"
    for fig_id, svg in svgs.items():
        drawn = " ".join(re.findall(r"<text[^>]*>([^<]*)</text>", svg))
        assert "tst3-pass1" not in drawn, fig_id
    assert "GE − BBN" in " ".join(re.findall(r"<text[^>]*>([^<]*)</text>",
                                             svgs[next(k for k in svgs if "hist" in k)]))


@hypothesis.settings(max_examples=300, deadline=None)
@hypothesis.given(st.lists(st.text(alphabet="ab.-_ x1", min_size=1, max_size=14), min_size=1,
                max_size=8, unique=True), st.integers(min_value=3, max_value=14))
def test_names_are_never_shown_the_same(names, limit):
    """Issue 29: two systems never get the same display text; a display name is a piece of
    the full name; a short name fits its limit."""
    from muceval.reporting.names import display_names, short_names

    shown = display_names(names)
    assert len(set(shown.values())) == len(names)
    assert all(shown[n] and shown[n] in n for n in names)
    short = short_names(names, limit)
    assert len(set(short.values())) == len(names)
    assert all(len(s) <= limit for s in short.values())


@pytest.mark.parametrize(("option", "given", "said"), [
    ("--key", "config.toml", "a muceval TOML configuration (*.toml), not a MUC template file: "
                             "give it as --config"),
    ("--config", "history.lisp", "a 1992 history of judgements, not a configuration: give it "
                                 "as --history"),
    ("--config", "key.txt", "a MUC template file (a key or a response), not a configuration: "
                            "give it as --key or as a response"),
    ("--history", "config.toml", "a muceval TOML configuration (*.toml), not a history: give it "
                                 "as --config"),
    ("--history", "key.txt", "a MUC template file (a key or a response), not a history: give "
                             "it as --key or as a response"),
])
def test_a_file_given_to_the_wrong_option_is_named_with_its_option(
        option: str, given: str, said: str, capsys) -> None:
    from muceval.cli import main
    from muceval.reporting.demo import example_dir

    ex = example_dir()
    args = {"--key": str(ex / "key.txt"), "--config": str(ex / "config.toml")}
    args[option] = str(ex / given)
    argv = ["score"] + [x for pair in args.items() for x in pair]
    if option == "--history":
        argv += ["--history", str(ex / given)]
    assert main([*argv, str(ex / "alpha.txt")]) == 2
    err = capsys.readouterr().err
    assert f"{ex / given}: {said}" in err and "Traceback" not in err


def test_a_1992_response_against_a_modern_key_names_the_fix(tmp_path, capsys) -> None:
    from muceval.cli import main
    from muceval.reporting.demo import example_dir

    ex = example_dir()
    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"docid": "TST3-MUC4-0001", "doctext": "", "templates": []}\n')
    assert main(["score", "--key", str(gold), str(ex / "alpha.txt")]) == 2
    err = capsys.readouterr().err
    assert "is a 1992 MUC template file" in err and "muceval convert" in err
    assert "choose --scorer" not in err


def test_output_into_a_missing_folder_is_refused_before_scoring(tmp_path, capsys) -> None:
    from muceval.cli import main
    from muceval.reporting.demo import example_dir

    ex = example_dir()
    missing = tmp_path / "no-such-folder" / "scores.json"
    assert main(["score", "--key", str(ex / "key.txt"), "--config", str(ex / "config.toml"),
                 "--format", "json", "-o", str(missing), str(ex / "alpha.txt")]) == 2
    err = capsys.readouterr().err
    assert "the folder" in err and "does not exist" in err
    assert "question(s)" not in err  # nothing was scored


def test_the_report_records_what_the_terminal_said_while_scoring(tmp_path, capsys) -> None:
    import json

    from muceval.reporting.demo import example_dir

    ex = example_dir()
    out = tmp_path / "r"
    assert main(["report", "--key", str(ex / "key.txt"), "--config", str(ex / "config.toml"),
                 str(ex / "alpha.txt"), str(ex / "beta.txt"), "--out", str(out), "--seed", "1",
                 "--shuffles", "99", "--bootstrap", "0"]) == 0
    err = capsys.readouterr().err
    said = re.search(r"note: (\d+) question\(s\)", err)
    assert said is not None
    inputs = json.loads((out / "report.json").read_text())["settings"]["inputs"]
    assert inputs["questions without a recorded answer"] == f"{said.group(1)} (incorrect)"
    assert inputs["warnings while reading and scoring"] == 0
    page = (out / "report.html").read_text()
    assert "questions without a recorded answer" in page


def test_long_work_writes_plain_progress_lines_when_stderr_is_no_terminal(
        monkeypatch, capsys) -> None:
    # compare --yeh took 53 s in silence with stderr redirected.
    from muceval.cli import common

    clock = [100.0]
    monkeypatch.setattr(common.time, "monotonic", lambda: clock[0])
    with common.progress_bar(True, "randomization") as report:
        assert report is not None
        for at, done in ((100.0, 1), (101.0, 2), (102.5, 3), (106.0, 4), (113.0, 5),
                         (113.5, 10)):
            clock[0] = at
            report(done, 10)
    lines = capsys.readouterr().err.splitlines()
    assert lines == ["randomization: 30%, 3/10 after 2 s", "randomization: 50%, 5/10 after 13 s",
                     "randomization: 100%, 10/10 after 14 s"]
    with common.progress_bar(True, "quick") as report:  # short work: not a line
        assert report is not None
        report(10, 10)
    assert capsys.readouterr().err == ""


def test_the_terminal_prints_the_signature_the_json_holds(capsys) -> None:
    import json

    from muceval.reporting.demo import example_dir

    ex = example_dir()
    args = ["compare", "--key", str(ex / "key.txt"), "--config", str(ex / "config.toml"),
            str(ex / "alpha.txt"), str(ex / "beta.txt"), "--seed", "2"]
    assert main(args) == 0
    printed = [line for line in capsys.readouterr().out.splitlines()
               if line.startswith("signature: ")]
    assert main([*args, "--format", "json"]) == 0
    assert printed == [f"signature: {json.loads(capsys.readouterr().out)['signature']}"]


def test_quiet_keeps_back_what_is_not_a_result_or_an_error(tmp_path, capsys) -> None:
    from muceval.cli.app import COMMAND_MODULES
    from muceval.reporting.demo import example_dir

    for name in COMMAND_MODULES:  # every command takes it
        assert main([name, "--help"]) == 0
        assert "--quiet" in capsys.readouterr().out, name
    ex = example_dir()
    args = ["score", "--key", str(ex / "key.txt"), "--config", str(ex / "config.toml"),
            str(ex / "alpha.txt")]
    assert main(args) == 0
    loud = capsys.readouterr()
    assert "note:" in loud.err
    assert main([*args, "--quiet"]) == 0
    quiet = capsys.readouterr()
    assert quiet.err == "" and quiet.out == loud.out
    assert main(args) == 0  # one run's --quiet does not outlive it
    assert "note:" in capsys.readouterr().err
    # Errors are never kept back, nor warnings that --strict makes errors.
    assert main(["score", "--key", str(tmp_path / "missing.txt"), str(ex / "alpha.txt"),
                 "--quiet"]) == 2
    assert "error:" in capsys.readouterr().err


def test_the_command_list_imports_no_command_and_says_what_each_says() -> None:
    import subprocess
    import sys

    import click

    from muceval.cli.app import COMMAND_MODULES, SHORT_HELP, cli

    code = ("import sys; from muceval.cli.app import main; main(['--help']); "
            "print(sorted(m for m in sys.modules if m.startswith(('numpy', 'muceval.cli.'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=False).stdout
    assert out.strip().splitlines()[-1] == "['muceval.cli.app']", out
    ctx = click.Context(cli)
    for name in COMMAND_MODULES:
        command = cli.get_command(ctx, name)
        assert command is not None and command.help is not None
        said = " ".join(command.help.split())
        assert said.startswith(SHORT_HELP[name].rstrip(".")), name
    # A command's module that the list leaves out would be a command nobody can run.
    import importlib
    import pkgutil

    import muceval.cli
    for module in pkgutil.iter_modules(muceval.cli.__path__):
        loaded = importlib.import_module(f"muceval.cli.{module.name}")
        for value in vars(loaded).values():
            if isinstance(value, click.Command) and value is not cli \
                    and getattr(value.callback, "__module__", None) == loaded.__name__:
                assert value.name in COMMAND_MODULES, value.name


def test_a_message_a_little_too_long_is_not_cut() -> None:
    # muceval cut one of its own messages by "(6 more characters)".
    from muceval.errors import MAX_MESSAGE, Problem

    a_little = "x" * (MAX_MESSAGE + 6)
    assert Problem("f", 1, a_little).message == a_little
    assert Problem("f", 1, "y" * 10**5).message.endswith("more characters)")
