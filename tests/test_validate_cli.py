"""`muceval validate` over the real MUC files, the bundled example and broken input."""

from __future__ import annotations

import json
import re
from importlib.resources import files
from pathlib import Path

import pytest

from muceval.cli import main

EXAMPLE = Path(str(files("muceval") / "data" / "example"))
HEADER = re.compile(r"^0.  MESSAGE: ID")


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def header_count(path: Path) -> int:
    text = path.read_bytes().decode("latin-1")
    return sum(1 for line in text.splitlines() if HEADER.match(line))


def muc_template_files(root: Path) -> list[Path]:
    found = sorted(root.glob("corpora/*/key-*"))
    found += sorted(root.glob("tst3/responses/*")) + sorted(root.glob("tst4/responses/*"))
    return found


def test_every_muc_file_validates_and_counts_match_header_lines(muc4: Path, capsys) -> None:
    templates = muc_template_files(muc4)
    others = sorted(muc4.glob("tst*/*.el")) + [
        muc4 / "tst3" / "final-history-nrad.tst3",
        muc4 / "tst4" / "final-cumulative-hist.tst4",
    ]
    assert len(templates) >= 17 * 2 + 17
    code, out, err = run(capsys, "validate", "--format", "json", *map(str, templates + others))
    assert code == 0, err
    results = {r["path"]: r for r in json.loads(out)}
    for path in templates:
        result = results[str(path)]
        assert result["kind"] == "templates", path
        assert result["problems"] == [], path
        assert result["counts"]["templates"] == header_count(path), path
    for path in others:
        assert results[str(path)]["problems"] == [], path
        assert results[str(path)]["kind"] != "unknown", path


def test_bundled_example_validates(capsys) -> None:
    names = ["key.txt", "alpha.txt", "beta.txt", "gamma.txt", "delta.txt", "history.lisp"]
    paths = [str(EXAMPLE / n) for n in names] + [str(EXAMPLE / "config.toml")]
    code, out, _ = run(capsys, "validate", "--config", str(EXAMPLE / "config.toml"), *paths)
    assert code == 0, out
    assert out.count(": ok") == len(paths)
    assert "key.txt: templates: 10 messages, 12 templates" in out


@pytest.mark.parametrize(
    ("content", "line", "fragment"),
    [
        ("", 1, "empty file"),
        ("0.  MESSAGE: ID   X\x00\x01", 1, "binary"),
        ('(("M-1" ("1" (inc-date ("1 JAN 90" fail)))', None, "("),
        ('(("M-1" ("1" (inc-date ("1 JAN 90" maybe)))))', 1, "maybe"),
    ],
)
def test_broken_input_gives_file_line_and_exit_code_2(
    tmp_path: Path, capsys, content: str, line: int | None, fragment: str
) -> None:
    path = tmp_path / "broken.txt"
    path.write_bytes(content.encode("latin-1"))
    code, out, err = run(capsys, "validate", str(path))
    assert code == 2
    assert "Traceback" not in out + err
    problem_lines = [ln for ln in out.splitlines() if ln.startswith("  ")]
    assert problem_lines, out
    assert str(path) in problem_lines[0]
    if line is not None:
        assert f"{path}:{line}" in problem_lines[0]
    assert fragment in out


def test_broken_template_file_reports_every_problem(tmp_path: Path, capsys) -> None:
    key = (EXAMPLE / "key.txt").read_text()
    broken = key.replace('"RED DAWN FRONT"\n', '"RED DAWN FRONT\n', 1).replace(
        "4.  INCIDENT: TYPE                  KIDNAPPING",
        "4.  INCIDENT: TYPO                  KIDNAPPING",
        1,
    )
    assert broken != key
    path = tmp_path / "key.txt"
    path.write_text(broken)
    code, out, _ = run(
        capsys, "validate", "--config", str(EXAMPLE / "config.toml"), "--format", "json", str(path)
    )
    assert code == 2
    (result,) = json.loads(out)
    lines = sorted({p["line"] for p in result["problems"]})
    assert len(lines) >= 2, result["problems"]
    expected_string_line = key.splitlines().index('7.  PERP: ORGANIZATION ID           "RED DAWN FRONT"') + 1
    assert expected_string_line in lines


def test_unknown_file_kind_is_a_problem(tmp_path: Path, capsys) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("just some prose\nwithout templates\n")
    code, out, _ = run(capsys, "validate", str(path))
    assert code == 2
    assert "not a file muceval knows" in out


def test_missing_file_is_reported_not_raised(tmp_path: Path, capsys) -> None:
    code, out, err = run(capsys, "validate", str(tmp_path / "absent.txt"))
    assert code == 2
    assert "cannot read file" in out
    assert "Traceback" not in err
