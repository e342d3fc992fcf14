"""No command takes a flag and then ignores it (issue 25): every option of `significance` and
`compare`, given on its own beside a plain run, changes the output or is refused (exit 2).

The few options that by design change no number say so in EXEMPT, with the test that shows
their promise.
"""

from __future__ import annotations

from pathlib import Path

import click
import pytest

from muceval.cli import main
from muceval.cli.compare import compare as compare_command
from muceval.cli.significance import significance as significance_command

HEADER = "system,unit,POS,ACT,COR,PAR\n"
SYSTEMS = {
    "A": ["m1,4,4,4,0", "m2,4,4,3,0", "m3,4,4,4,0", "m4,4,4,2,0"],
    "B": ["m1,4,4,2,0", "m2,4,4,1,0", "m3,4,4,3,1", "m4,4,4,0,0"],
    "C": ["m1,4,4,1,0", "m2,4,4,1,1", "m3,4,4,2,0", "m4,4,4,0,0"],
}
# --units intersection counts only where the systems' units differ.
ANOTHER_TEST_SET = {"B": ["m1,4,4,2,0", "m2,4,4,1,0", "m3,4,4,3,1", "m5,4,4,0,0"]}

EXEMPT = {
    "threads": "the p-values do not depend on the threads "
               "(tests/test_significance.py::test_counts_independent_of_chunks_and_threads)",
    "progress": "progress goes to stderr only",
    "scheduler": "the p-values of a cluster are those of an in-process run "
                 "(tests/test_distributed.py::test_a_local_cluster_gives_the_in_process_p_values)",
    "force": "only says whether an existing --pairs file may be replaced",
    "strict": "turns warnings into errors: a run without warnings is the same",
}


def _files(folder: Path, changed: dict[str, list[str]] | None = None) -> dict[str, Path]:
    out = {}
    for name, rows in {**SYSTEMS, **(changed or {})}.items():
        out[name] = folder / f"{name}.csv"
        out[name].write_text(HEADER + "".join(f"{name},{row}\n" for row in rows))
    return out


def _value(option: click.Option, folder: Path, files: dict[str, Path]) -> list[str]:
    """The option once, with a value other than its default."""
    flag = max(option.opts, key=len)
    if option.is_flag:
        return [option.secondary_opts[0] if option.default and option.secondary_opts else flag]
    if isinstance(option.type, click.Choice):
        return [flag, next(c for c in reversed(option.type.choices) if c != option.default)]
    if isinstance(option.type, click.types.IntParamType):
        return [flag, str((option.default or 1) + 1)]
    if isinstance(option.type, click.types.FloatParamType):
        return [flag, str(round((option.default or 0.5) / 2, 4))]
    if isinstance(option.type, click.Path):
        return [flag, str(folder / f"{option.name}.out")]
    named = {"metrics": "recall", "tests": "all", "names": f"{files['A']}=first",
             "scheduler": "local:1", "phi": "strict"}
    return [flag, named[option.name or ""]]


def _run(args: list[str], capsys) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def _options(command: click.Command) -> list[click.Option]:
    return [p for p in command.params if isinstance(p, click.Option)
            and p.name not in EXEMPT and p.name not in ("fmt",)]


def _check(base: list[str], option: click.Option, tmp_path: Path, files, capsys) -> None:
    _, expected, _ = _run(base, capsys)
    args = _value(option, tmp_path, files)
    code, out, err = _run(base + args, capsys)
    written = [p for p in tmp_path.iterdir() if p.suffix == ".out"]
    assert code == 2 or out != expected or written, (
        f"{' '.join(args)} was taken and changed nothing: it should change the output or be "
        f"refused (stderr: {err[-300:]})")
    if code == 2:
        assert "Traceback" not in err and err.strip(), err


@pytest.mark.parametrize("option", _options(significance_command), ids=lambda o: o.name)
def test_every_significance_option_counts(option, tmp_path, capsys):
    files = _files(tmp_path, ANOTHER_TEST_SET if option.name == "units" else None)
    base = ["significance", *(str(p) for p in files.values()), "--format", "json", "--seed", "1"]
    _check(base, option, tmp_path, files, capsys)


@pytest.mark.parametrize("option", _options(compare_command), ids=lambda o: o.name)
def test_every_compare_option_counts(option, tmp_path, capsys):
    files = _files(tmp_path, ANOTHER_TEST_SET if option.name == "units" else None)
    base = ["compare", str(files["A"]), str(files["B"]), "--format", "json"]
    _check(base, option, tmp_path, files, capsys)
