"""muceval batch: many test sets in one run (issue 15)."""

from __future__ import annotations

import filecmp
from pathlib import Path

import pytest

from muceval.cli import main
from muceval.formats.files import MANIFEST
from muceval.reporting.demo import example_files

EXAMPLE = example_files()


def batch_file(folder: Path, body: str) -> Path:
    path = folder / "batch.toml"
    path.write_text("format-version = 1\n" + body)
    return path


def two_sets(folder: Path) -> Path:
    """The example twice: with its history and query pass, and in batch mode on two systems."""
    key, config, history = EXAMPLE.key, EXAMPLE.config, EXAMPLE.history
    alpha, beta = EXAMPLE.responses[0], EXAMPLE.responses[1]
    return batch_file(folder, f"""
[[test-set]]
name = "full"
key = "{key}"
config = "{config}"
history = "{history}"
responses = ["{alpha}", "{beta}", "{EXAMPLE.responses[2]}", "{EXAMPLE.responses[3]}"]

[[test-set]]
name = "two"
key = "{key}"
config = "{config}"
responses = ["{alpha}", "{beta}"]
query-pass = false
""")


def test_each_test_set_is_scored_as_score_alone_would(tmp_path, capsys):
    path = two_sets(tmp_path)
    out = tmp_path / "out"
    assert main(["batch", str(path), "--output-dir", str(out)]) == 0
    assert "full: 4 systems scored" in capsys.readouterr().err
    alone = tmp_path / "alone"
    assert main(["score", "--key", EXAMPLE.key, "--config", EXAMPLE.config, "--history",
                 EXAMPLE.history, "--format", "json", "--output-dir", str(alone / "full"),
                 *EXAMPLE.responses]) == 0
    assert main(["score", "--key", EXAMPLE.key, "--config", EXAMPLE.config, "--no-query-pass",
                 "--format", "json", "--output-dir", str(alone / "two"),
                 *EXAMPLE.responses[:2]]) == 0
    import json

    for name in ("full", "two"):
        for file in sorted((alone / name).iterdir()):
            if file.name == MANIFEST:  # what was written: the same files in both
                assert json.loads(file.read_text()) == json.loads(
                    (out / name / MANIFEST).read_text())
                continue
            ours = json.loads((out / name / file.name).read_text())
            theirs = json.loads(file.read_text())
            for doc in (ours, theirs):
                doc.pop("settings"), doc.pop("signature")
            assert ours == theirs, (name, file.name)
    # Results are kept unless --force.
    assert main(["batch", str(path), "--output-dir", str(out)]) == 2
    assert "--force" in capsys.readouterr().err


def test_fill_units_and_reports(tmp_path):
    path = two_sets(tmp_path)
    assert main(["batch", str(path), "--output-dir", str(tmp_path / "f"), "--unit", "fill"]) == 0
    assert '"unit":"fill"' in (tmp_path / "f" / "two" / "summary.json").read_text()
    assert main(["batch", str(path), "--output-dir", str(tmp_path / "r"), "--format", "report"
                 ]) == 0
    report = (tmp_path / "r" / "full" / "alpha.report").read_text(encoding="latin-1")
    assert "ALL TEMPLATES" in report
    assert main(["batch", str(path), "--output-dir", str(tmp_path / "x"), "--unit", "fill",
                 "--format", "csv"]) == 2


@pytest.mark.parametrize("body, fragment, line", [
    ('[[test-set]]\nname = "a"\nkey = "nope.txt"\nresponses = ["x"]\n', "is not a file", 4),
    ('[[test-set]]\nname = "a b"\n', "'name' must be a file name", 3),
    ('[[test-set]]\nname = "a"\ncolour = 1\n', "unknown key 'colour'", 4),
    ('[[tests]]\nname = "a"\n', "unknown key 'tests'", None),
    ('', "no [[test-set]]", None),
    ('[[test-set]\n', "TOML syntax error", 2),
    ('format-version = 2\n', "format-version", None),
])
def test_bad_batch_files_are_refused(tmp_path, capsys, body, fragment, line):
    path = batch_file(tmp_path, body) if not body.startswith("format-version") else \
        (tmp_path / "batch.toml")
    if body.startswith("format-version"):
        path.write_text(body)
    assert main(["batch", str(path), "--output-dir", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert fragment in err and "batch.toml" in err and "Traceback" not in err
    if line is not None:
        assert f"batch.toml:{line}" in err or f"line {line}" in err


def test_two_test_sets_of_one_name_are_refused(tmp_path, capsys):
    entry = (f'[[test-set]]\nname = "a"\nkey = "{EXAMPLE.key}"\n'
             f'responses = ["{EXAMPLE.responses[0]}"]\n')
    path = batch_file(tmp_path, entry + entry)
    assert main(["batch", str(path), "--output-dir", str(tmp_path / "out")]) == 2
    assert "two test sets are named 'a'" in capsys.readouterr().err


def test_on_a_local_cluster_the_files_are_the_same(tmp_path):
    pytest.importorskip("dask.distributed")
    path = two_sets(tmp_path)
    assert main(["batch", str(path), "--output-dir", str(tmp_path / "here")]) == 0
    assert main(["batch", str(path), "--output-dir", str(tmp_path / "there"),
                 "--scheduler", "local:2"]) == 0
    for name in ("full", "two"):
        files = sorted(p.name for p in (tmp_path / "here" / name).iterdir())
        match, mismatch, errors = filecmp.cmpfiles(tmp_path / "here" / name,
                                                    tmp_path / "there" / name, files,
                                                    shallow=False)
        assert not mismatch and not errors and match == files


def test_a_file_where_a_result_folder_goes_is_refused(tmp_path, capsys):
    path = two_sets(tmp_path)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "two").write_text("mine")
    assert main(["batch", str(path), "--output-dir", str(tmp_path / "out"), "--force"]) == 2
    assert "is a file" in capsys.readouterr().err
    assert (tmp_path / "out" / "two").read_text() == "mine"


def test_a_mistake_in_the_second_test_set_names_its_own_line(tmp_path, capsys):
    first = (f'[[test-set]]\nname = "a"\nkey = "{EXAMPLE.key}"\n'
             f'responses = ["{EXAMPLE.responses[0]}"]\n')
    second = '[[test-set]]\nname = "b"\nkey = "missing.txt"\nresponses = ["x"]\n'
    path = batch_file(tmp_path, first + second)
    assert main(["batch", str(path), "--output-dir", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    # format-version on line 1, the first table on lines 2-5, the second's key on line 8.
    assert "batch.toml:8" in err and "test set 'b'" in err and "missing.txt" in err
