"""The shape of the package, as docs/architecture.md describes it, checked on every run."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import muceval

PACKAGE = Path(muceval.__file__).parent
SOURCES = sorted(PACKAGE.rglob("*.py"))
MAX_FILE_LINES = 800
MAX_FUNCTION_LINES = 60
# The 1992 mirror keeps the 1992 program's shape (its golden tests freeze it): a looser cap.
MIRROR = PACKAGE / "scoring" / "muc1992"
MAX_MIRROR_FUNCTION_LINES = 120


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def test_every_public_name_resolves() -> None:
    for name in muceval.__all__:
        assert getattr(muceval, name) is not None, name
    assert (PACKAGE / "py.typed").is_file()


def test_import_muceval_loads_no_numerics() -> None:
    code = ("import sys, muceval; "
            "print(sorted(m for m in ('numpy', 'scipy', 'numba', 'matplotlib') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_command_line_unit_levels_are_the_model_s() -> None:
    from muceval.cli.common import UNIT_LEVELS
    from muceval.core.unit_levels import UNIT_LEVELS as MODEL_LEVELS

    assert UNIT_LEVELS == MODEL_LEVELS


def _body_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines of a function without its docstring: numpydoc pages may be long, code may not."""
    length = (node.end_lineno or node.lineno) - node.lineno + 1
    first = node.body[0]
    if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)):
        length -= (first.end_lineno or first.lineno) - first.lineno + 1
    return length


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_files_and_functions_stay_small(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_FILE_LINES, f"{path.name}: {lines} lines"
    limit = MAX_MIRROR_FUNCTION_LINES if path.is_relative_to(MIRROR) else MAX_FUNCTION_LINES
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = _body_lines(node)
            assert length <= limit, f"{path.name}:{node.lineno} {node.name}: {length} lines"


def _calls_os_replace(path: Path) -> bool:
    for node in ast.walk(_tree(path)):
        if (isinstance(node, ast.Attribute) and node.attr in ("replace", "rename")
                and isinstance(node.value, ast.Name) and node.value.id == "os"):
            return True
    return False


def test_one_module_renames_files_into_place() -> None:
    writers = [str(p.relative_to(PACKAGE)) for p in SOURCES if _calls_os_replace(p)]
    assert writers == [os.path.join("formats", "files.py")]


def test_compiled_kernels_are_cached_outside_the_package(tmp_path: Path) -> None:
    before = set(PACKAGE.rglob("*.nb[ic]"))
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    code = ("from muceval.core.units import from_arrays; "
            "from muceval import compare, SignificanceSettings as S; "
            "t = from_arrays(['A', 'B'], ['m', 'n'], [[[1, 1, 1, 0], [2, 2, 1, 0]], "
            "[[1, 1, 0, 0], [2, 2, 2, 0]]]); compare(t, ['f1'], S(method='exact', bootstrap=0))")
    subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True)
    assert set(PACKAGE.rglob("*.nb[ic]")) == before
    assert list(tmp_path.rglob("*.nbi")), "the kernels were not cached in the user cache folder"


def test_public_names_are_listed_once() -> None:
    assert sorted(muceval.__all__) == sorted(["__version__", *muceval._PUBLIC])


def test_tally_columns_are_declared_once() -> None:
    from muceval.core.tallies import TALLY_FIELDS, Col
    from muceval.scoring.muc1992 import slots

    assert [c.name.lower() for c in Col] == list(TALLY_FIELDS)
    assert [slots.POS, slots.PAR, slots.PIE] == [Col.POS, Col.PAR, Col.PIE]


def test_every_docstring_example_runs() -> None:
    # An example marked +SKIP is shown but never checked (pytest reports it skipped, which CI's
    # no-skip rule does not see); one that cannot run here is a literal block instead.
    skipped = [f"{path.relative_to(PACKAGE)}:{number}"
               for path in SOURCES
               for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
               if "doctest: +SKIP" in line]
    assert not skipped, "examples that never run: " + ", ".join(skipped)


def test_significance_json_does_not_load_the_terminal(tmp_path: Path) -> None:
    """Start-up (issue 30): rich and the terminal tables are for the terminal only."""
    data = tmp_path / "two.csv"
    data.write_text("system,unit,POS,ACT,COR,PAR\nA,u1,2,2,1,0\nA,u2,3,2,2,0\n"
                    "B,u1,2,1,1,0\nB,u2,3,3,1,0\n")
    code = ("import contextlib, io, sys\nfrom muceval.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    main(['significance', {str(data)!r}, '--format', 'json', '--seed', '1'])\n"
            "print(sorted(m for m in ('rich', 'muceval.reporting.terminal') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_scoring_modern_files_with_gtt_loads_no_numerics(tmp_path: Path) -> None:
    # GTT's eval.py imports NumPy itself: without it, muceval starts faster than the script
    # it replaces (benchmarks/targets.py, case gtt). Four templates on each side make 625
    # maps, so the bounded search runs as well as the plain one.
    templates = [{"incident_type": "attack", "PerpInd": [], "PerpOrg": [], "Target": [],
                  "Victim": [[name]], "Weapon": []} for name in "wxyz"]
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps({"docid": "TST3-MUC4-0001", "doctext": "x",
                                "templates": templates}) + "\n")
    preds = tmp_path / "preds.out"
    preds.write_text(json.dumps({"30001": {"doctext": "x", "pred_templates": templates}}))
    code = ("import sys; from muceval.cli.app import main\n"
            f"sys.argv = ['muceval', 'score', '--key', {str(gold)!r}, {str(preds)!r}, "
            "'--scorer', 'gtt', '--format', 'json']\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('numpy', 'scipy') if m in sys.modules), file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert '"f1":1.0' in out.stdout.replace(" ", "")
    assert out.stderr.strip().splitlines()[-1] == "[]"


def test_only_the_console_script_freezes_what_it_built(tmp_path: Path) -> None:
    # The command line freezes what it built (the collections after it would walk it again);
    # a program that calls main() with arguments, or the library, keeps it collectable.
    example = PACKAGE / "data" / "example"
    args = ["score", "--key", str(example / "key.txt"), "--config",
            str(example / "config.toml"), str(example / "alpha.txt"), "--format", "json",
            "-o", str(tmp_path / "{}.json")]
    code = ("import gc, sys\nfrom muceval.cli.app import main\n"
            "sys.argv = ['muceval', *{args}]\nmain({call})\nprint(gc.get_freeze_count())")
    counts = []
    for n, call in enumerate(("", "sys.argv[1:]")):
        run = [a.replace("{}", str(n)) for a in args]
        out = subprocess.run([sys.executable, "-c", code.format(args=run, call=call)],
                             capture_output=True, text=True, check=True)
        counts.append(int(out.stdout.split()[-1]))
    assert counts[0] > 0 and counts[1] == 0
    assert (tmp_path / "0.json").read_bytes() == (tmp_path / "1.json").read_bytes()


def test_a_report_without_png_imports_no_matplotlib(tmp_path: Path) -> None:
    # Its colours are tables (reporting.colours); matplotlib only draws PNG copies.
    example = PACKAGE / "data" / "example"
    code = ("import sys, muceval\n"
            f"ex = {str(example)!r}\n"
            "analysis = muceval.report_from_responses(\n"
            "    ex + '/key.txt', [ex + '/alpha.txt', ex + '/beta.txt'],\n"
            "    config=ex + '/config.toml', history=ex + '/history.lisp',\n"
            "    settings=muceval.SignificanceSettings(seed=1, shuffles=99, bootstrap=0))\n"
            f"muceval.write_report(analysis, {str(tmp_path / 'report')!r})\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'matplotlib'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"
    assert (tmp_path / "report" / "report.html").is_file()


def test_every_benchmark_imports() -> None:
    # A benchmark is run by hand, not by the suite: a name it imports that moved would
    # otherwise be found only on the day its figures are wanted.
    folder = Path(__file__).resolve().parent.parent / "benchmarks"
    names = sorted(p.stem for p in folder.glob("*.py"))
    code = f"import sys; sys.path.insert(0, {str(folder)!r}); " + "; ".join(
        f"import {name}" for name in names)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]

