"""`muceval compare` and `muceval significance` are calls of the library's pipelines
(muceval.pipelines.compare and .significance): the command parses, resolves the inputs,
refuses what they do not take, calls one function and renders what it returns."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

import muceval
from muceval.cli import main
from muceval.errors import UsageError
from muceval.pipelines.compare import compare_systems
from muceval.pipelines.inputs import resolve_inputs
from muceval.pipelines.significance import ErrorPairs, Plan, StreamedRun, run_significance
from muceval.reporting.demo import example_dir
from muceval.significance.settings import SignificanceSettings

PACKAGE = Path(muceval.__file__).parent
EXAMPLE = example_dir()
UNITS = "system,unit,POS,ACT,COR,PAR\n" + "".join(
    f"{s},m{u},4,4,{c},0\n" for s, row in (("A", (4, 3, 4, 2)), ("B", (2, 1, 3, 0)),
                                           ("C", (1, 1, 2, 0)))
    for u, c in enumerate(row))

_ALLOWED = {
    # What the commands may import from the library: the pipelines and what they resolve,
    # the options' types and names, errors, and the terminal's renderers.
    "compare": {"muceval.errors", "muceval.pipelines.compare", "muceval.pipelines.inputs",
                "muceval.scoring.scorers", "muceval.scoring.muc1992.scorer",
                "muceval.reporting.terminal"},
    "significance": {"muceval.errors", "muceval.pipelines.significance",
                     "muceval.pipelines.inputs", "muceval.scoring.scorers",
                     "muceval.significance.classic", "muceval.significance.result",
                     "muceval.reporting.terminal"},
}


@pytest.mark.parametrize("command", sorted(_ALLOWED))
def test_the_compare_and_significance_commands_hold_no_pipeline(command: str) -> None:
    tree = ast.parse((PACKAGE / "cli" / f"{command}.py").read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module
                and node.module.startswith("muceval.") and not node.module.startswith(
                    "muceval.cli")}
    assert imported <= _ALLOWED[command], imported - _ALLOWED[command]
    names = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
             and node.module == "muceval.significance.classic" for alias in node.names}
    assert names <= {"CLASSIC_TESTS", "PAIRED_TESTS"}


def test_the_library_compares_as_the_command_does(capsys) -> None:
    responses = [str(EXAMPLE / f"{name}.txt") for name in ("alpha", "beta")]
    source = resolve_inputs(responses, EXAMPLE / "key.txt", config=str(EXAMPLE / "config.toml"),
                            history=str(EXAMPLE / "history.lisp"))
    compared = compare_systems(source, errors=True)
    assert main(["compare", "--key", str(EXAMPLE / "key.txt"), "--config",
                 str(EXAMPLE / "config.toml"), "--history", str(EXAMPLE / "history.lisp"),
                 *responses, "--errors", "--format", "json"]) == 0
    assert capsys.readouterr().out == compared.to_json() + "\n"


def test_compare_refuses_what_its_inputs_cannot_give(tmp_path: Path) -> None:
    path = tmp_path / "units.csv"
    path.write_text(UNITS)
    scores = resolve_inputs([path])
    for how, parameter in (({"errors": True}, "errors"), ({"yeh": True}, "yeh"),
                           ({"modern": muceval.ModernOptions("gtt")}, "modern")):
        with pytest.raises(UsageError) as raised:
            compare_systems(scores, **how)
        assert raised.value.parameter == parameter
    with pytest.raises(UsageError, match="one system per file"):
        compare_systems(scores)


def test_significance_returns_what_the_command_prints(tmp_path: Path, capsys) -> None:
    path = tmp_path / "units.csv"
    path.write_text(UNITS)
    source = resolve_inputs([path])
    settings = SignificanceSettings(method="exact", bootstrap=0, seed=1)
    planned = run_significance(source, settings=settings, plan=True)
    assert isinstance(planned, Plan) and (planned.systems, planned.units) == (3, 4)
    pairs = tmp_path / "pairs.csv"
    run = run_significance(source, settings=settings, pairs=pairs)
    assert isinstance(run, StreamedRun) and run.pairs == 3
    from muceval.significance.comparison import CSV_HEADER

    assert run.summary.settings["pairs_file"] == str(pairs)
    lines = pairs.read_text().splitlines()
    assert tuple(lines[0].split(",")) == CSV_HEADER and len(lines) == 1 + 3 * len(run.summary.metrics)
    with pytest.raises(muceval.OutputError, match="exists"):
        run_significance(source, settings=settings, pairs=pairs)
    assert main(["significance", str(path), "--method", "exact", "--bootstrap", "0", "--seed",
                 "1", "--tests", "all", "--pairs", str(tmp_path / "again.csv"), "--format",
                 "json"]) == 0
    assert json.loads(capsys.readouterr().out)["settings"]["pairs_file"] == str(
        tmp_path / "again.csv")
    assert (tmp_path / "again.csv").read_text() == pairs.read_text()
    with pytest.raises(UsageError) as raised:
        run_significance(source, scorer="gtt")
    assert raised.value.parameter == "scorer"
    one = tmp_path / "one.csv"
    one.write_text("system,unit,POS,ACT,COR,PAR\nA,m1,4,4,4,0\n")
    with pytest.raises(UsageError, match="at least two systems"):
        run_significance(resolve_inputs([one]))


def test_error_analyses_are_tested_pair_by_pair(modern: Path, tmp_path: Path, capsys) -> None:
    gold = str(modern / "gtt" / "test.json")
    preds = [str(modern / "iterx" / f"preds.{n}.test.jsonlines") for n in ("bart-base",
                                                                        "bert-base")]
    out = tmp_path / "errors.json"
    assert main(["errors", "--key", gold, *preds, "--format", "json", "-o", str(out)]) == 0
    tested = run_significance(resolve_inputs([out]), settings=SignificanceSettings(seed=2))
    assert isinstance(tested, ErrorPairs) and tested.settings.seed == 2
    capsys.readouterr()
    assert main(["significance", str(out), "--errors", "--seed", "2", "--format", "csv"]) == 0
    assert capsys.readouterr().out == tested.to_csv()


_ENGINES = ("muceval.scoring.session", "muceval.scoring.batch", "muceval.scoring.muc1992.mapping",
            "muceval.scoring.muc1992.slots", "muceval.scoring.errors.muc1992",
            "muceval.scoring.errors.files", "muceval.scoring.modern.files",
            "muceval.scoring.modern.alignment", "muceval.scoring.alignment.audit",
            "muceval.scoring.adjudication", "muceval.significance.engine",
            "muceval.significance.stream", "muceval.significance.ratios",
            "muceval.significance.baseline", "muceval.significance.responses",
            "muceval.significance.error_counts", "muceval.significance.kernels")
"""What computes: a command reaches it only through a pipeline."""
_NOT_YET = {"batch": {"muceval.scoring.batch"}, "adjudicate": {"muceval.scoring.adjudication"}}
"""Commands whose one library call is not in ``pipelines`` yet: ``score_test_sets`` (batch)
and the ``Adjudication`` the page drives."""


def _runtime_imports(tree: ast.Module) -> set[str]:
    """The modules a file imports when it runs (not those named for the type checker)."""
    typing_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                   and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
                   for n in ast.walk(node)}
    return {node.module for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module and id(node) not in typing_only}


@pytest.mark.parametrize("module", sorted(p.stem for p in (PACKAGE / "cli").glob("*.py")))
def test_no_command_computes_outside_the_pipelines(module: str) -> None:
    imported = _runtime_imports(
        ast.parse((PACKAGE / "cli" / f"{module}.py").read_text(encoding="utf-8")))
    reached = {m for m in imported if m.startswith(_ENGINES)}
    assert reached <= _NOT_YET.get(module, set()), reached


def test_modern_warnings_are_said_one_by_one(modern: Path, tmp_path: Path, capsys) -> None:
    # They were summed up as "things the 1992 program accepted in 2 file(s)", which they are not.
    predictions = json.loads((modern / "gtt" / "preds_gtt.out").read_text())
    paths = []
    for dropped in (1, 2):
        path = tmp_path / f"missing{dropped}.json"
        path.write_text(json.dumps(dict(list(predictions.items())[dropped:])))
        paths.append(str(path))
    key = str(modern / "gtt" / "test.json")
    for command in (["compare", "--key", key, *paths],
                    ["report", "--key", key, *paths, "--seed", "1", "--shuffles", "19",
                     "--out", str(tmp_path / "r")]):
        assert main(command) == 0
        err = capsys.readouterr().err
        assert "1992 program" not in err, command[0]
        assert all(f"warning: {p}: " in err for p in paths), err


def test_the_help_says_the_limits_the_code_uses(capsys) -> None:
    # The help writes the exact test's limit out: it must follow the constants.
    from muceval.significance.plan import MAX_EXACT_UNITS
    from muceval.significance.responses import YEH_SHUFFLES

    for command in ("significance", "compare"):
        assert main([command, "--help"]) == 0
        text = " ".join(capsys.readouterr().out.split())
        assert f"{MAX_EXACT_UNITS} differing" in text or f"n ≤ {MAX_EXACT_UNITS}" in text
    assert YEH_SHUFFLES == 2**20 and "2^20 random" in text
