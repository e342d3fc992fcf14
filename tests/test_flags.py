"""No command takes a flag and then ignores it (issue 25): every option of `significance`,
`compare`, `report`, `alignment`, `convert` and `batch` (`score`: tests/test_score_options.py),
given on its own beside a plain run, changes the output or is refused (exit 2).

The few options that by design change no number say so in EXEMPT, with the test that shows
their promise.
"""

from __future__ import annotations

from collections.abc import Collection
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
    "quiet": "keeps warnings, notes and progress off stderr "
             "(tests/test_first_hour.py::test_quiet_keeps_back_what_is_not_a_result_or_an_error)",
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
        default = option.default if isinstance(option.default, int) else 1
        return [flag, str(default + 1)]
    if isinstance(option.type, click.types.FloatParamType):
        return [flag, str(round((option.default or 0.5) / 2, 4))]
    if isinstance(option.type, click.Path):
        return [flag, str(folder / f"{option.name}.out")]
    named = {"metrics": "recall", "tests": "all", "names": f"{files['A']}=first",
             "scheduler": "local:1", "phi": "strict", "schema": "famus"}
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
    _refused_or_changed(code, out != expected or bool(written), args, err)


def _refused_or_changed(code: int, changed: bool, args: list[str], err: str) -> None:
    """A flag given beside a plain run must change what the run gives, or be refused with
    a message (exit 2, no traceback)."""
    assert code == 2 or changed, (
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


# The other commands, run on the bundled example. `adjudicate` serves a page until stopped: its
# options are exercised by tests/test_adjudication.py and tests/test_adjudicate_browser.py.
EXAMPLE = Path(__file__).parent.parent / "src" / "muceval" / "data" / "example"
EXAMPLE_FILES = {"A": EXAMPLE / "alpha.txt", "key": EXAMPLE / "key.txt"}
REPORT_EXEMPT = {"out_dir": "only names the folder the report is written to", "fmt": ""}


def _example_value(option: click.Option, folder: Path) -> list[str]:
    named = {"names": f"{EXAMPLE / 'alpha.txt'}=first", "title": "T", "alignment": "1992,strict",
             "histograms": "beta,alpha",
             "criteria": "1992,1992-optimal", "metrics": "recall", "config_path": "muc4",
             "schema": "famus"}
    if option.name in named:
        return [max(option.opts, key=len), named[option.name]]
    if option.name in ("history_path", "config_path", "slots_path", "alignment_path"):
        source = {"history_path": EXAMPLE / "history.lisp", "config_path": EXAMPLE / "config.toml",
                  "slots_path": EXAMPLE / "config.toml",
                  "alignment_path": EXAMPLE / "kehler" / "config.toml"}[option.name]
        return [max(option.opts, key=len), str(source)]
    return _value(option, folder, EXAMPLE_FILES)


@pytest.fixture
def captured_report(monkeypatch):
    """`report` up to the writer: what it would write (the analysis and the options)."""
    import json
    from types import SimpleNamespace

    from muceval.reporting import html

    seen: list[str] = []

    def write_report(analysis, out_dir, options=None, **more):
        from dataclasses import asdict

        seen.append(json.dumps([analysis.to_dict(), asdict(options) if options else None,
                                {k: v for k, v in more.items() if k != "keep"}],
                               sort_keys=True, default=str))
        return SimpleNamespace(html=Path(out_dir) / "report.html", json=Path("r.json"),
                               figures=[], data=[])

    monkeypatch.setattr(html, "write_report", write_report)
    return seen


def _report_options() -> list[click.Option]:
    from muceval.cli.report import report

    return [p for p in report.params if isinstance(p, click.Option)
            and p.name not in EXEMPT and p.name not in REPORT_EXEMPT]


@pytest.mark.parametrize("option", _report_options(), ids=lambda o: o.name)
def test_every_report_option_counts(option, captured_report, tmp_path, capsys):
    base = ["report", "--key", str(EXAMPLE / "key.txt"), "--config", str(EXAMPLE / "config.toml"),
            str(EXAMPLE / "alpha.txt"), str(EXAMPLE / "beta.txt"), "--out", str(tmp_path / "r"),
            "--format", "json", "--seed", "1", "--shuffles", "99", "--bootstrap", "10"]
    assert main(base) == 0, capsys.readouterr().err
    args = _example_value(option, tmp_path)
    if option.name in ("config_path", "key_path", "example"):
        base = [a for a in base if a not in ("--key", "--config", str(EXAMPLE / "key.txt"),
                                             str(EXAMPLE / "config.toml"))]
        if option.name == "key_path":
            args = ["--key", str(EXAMPLE / "key.txt")]
        if option.name == "example":
            base = [a for a in base if not a.endswith(("alpha.txt", "beta.txt"))]
    code = main(base + args)
    err = capsys.readouterr().err
    changed = len(captured_report) > 1 and captured_report[-1] != captured_report[0]
    _refused_or_changed(code, changed, ["report", *args], err)


def _example_options(command: click.Command, exempt: Collection[str] = ()) -> list[click.Option]:
    return [p for p in command.params if isinstance(p, click.Option)
            and p.name not in EXEMPT and p.name not in exempt]


def _outputs(args: list[str], folder: Path, capsys) -> tuple[int, str, str]:
    """Exit code, what the run printed and wrote (every file under ``folder``), stderr."""
    code = main(args)
    out, err = capsys.readouterr()
    written = "".join(f"{p.relative_to(folder)}:{p.read_bytes()!r}"
                      for p in sorted(folder.rglob("*")) if p.is_file())
    return code, out + written, err


def _check_example(base: list[str], option: click.Option, folder: Path, capsys) -> None:
    code, expected, err = _outputs(base, folder, capsys)
    assert code == 0, err
    args = _example_value(option, folder)
    code, out, err = _outputs(base + args, folder, capsys)
    _refused_or_changed(code, out != expected, args, err)


def _alignment_options() -> list[click.Option]:
    from muceval.cli.alignment import alignment

    return _example_options(alignment, ("fmt",))


@pytest.mark.parametrize("option", _alignment_options(), ids=lambda o: o.name)
def test_every_alignment_option_counts(option, tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    base = ["alignment", "--key", str(EXAMPLE / "key.txt"), "--config",
            str(EXAMPLE / "config.toml"), str(EXAMPLE / "alpha.txt"), str(EXAMPLE / "beta.txt"),
            "--format", "json", "--seed", "1", "--shuffles", "99"]
    if option.name == "csv_view":
        base[base.index("json")] = "csv"
    _check_example(base, option, out, capsys)


def _convert_options() -> list[click.Option]:
    from muceval.cli.convert import convert

    return _example_options(convert, ("layout",))


@pytest.mark.parametrize("option", _convert_options(), ids=lambda o: o.name)
def test_every_convert_option_counts(option, tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    base = ["convert", str(EXAMPLE / "alpha.txt"), "--to", "muceval", "--config",
            str(EXAMPLE / "config.toml")]
    if option.name == "force":
        base += ["-o", str(out / "x.json")]
    _check_example(base, option, out, capsys)


def _batch_options() -> list[click.Option]:
    from muceval.cli.batch import batch

    return _example_options(batch, ("output_dir",))


@pytest.mark.parametrize("option", _batch_options(), ids=lambda o: o.name)
def test_every_batch_option_counts(option, tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    spec = tmp_path / "batch.toml"
    spec.write_text(f'format-version = 1\n[[test-set]]\nname = "example"\n'
                    f'key = "{EXAMPLE / "key.txt"}"\nconfig = "{EXAMPLE / "config.toml"}"\n'
                    f'responses = ["{EXAMPLE / "alpha.txt"}", "{EXAMPLE / "beta.txt"}"]\n')
    base = ["batch", str(spec), "--output-dir", str(out / "scores")]
    if option.name == "force":
        assert main(base) == 0
    _check_example(base, option, out, capsys)


# --slots is left out: the configuration is used on score files (--config muc4 changes the
# report), but the only slot file at hand agrees with these scores, and so changes nothing.
@pytest.mark.parametrize("option", [o for o in _report_options() if o.name != "slots_path"],
                         ids=lambda o: o.name)
def test_every_report_option_counts_on_score_files(option, captured_report, tmp_path, capsys):
    scores = tmp_path / "scores.json"
    assert main(["score", "--key", str(EXAMPLE / "key.txt"), "--config",
                 str(EXAMPLE / "config.toml"), str(EXAMPLE / "alpha.txt"),
                 str(EXAMPLE / "beta.txt"), "--format", "json", "-o", str(scores)]) == 0
    base = ["report", str(scores), "--out", str(tmp_path / "r"), "--format", "json", "--seed",
            "1", "--shuffles", "99", "--bootstrap", "10"]
    assert main(base) == 0, capsys.readouterr().err
    args = _example_value(option, tmp_path)
    if option.name == "names":
        args = ["--name", f"{scores}=first"]
    code = main(base + args)
    err = capsys.readouterr().err
    changed = len(captured_report) > 1 and captured_report[-1] != captured_report[0]
    _refused_or_changed(code, changed, ["report", *args], err)
