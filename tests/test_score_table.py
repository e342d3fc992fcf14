"""`muceval score --format table`: the compact terminal summary."""

from __future__ import annotations

from muceval.cli import main
from muceval.reporting.demo import example_dir


def test_score_table_lists_systems_best_first_with_their_region(tmp_path, capsys) -> None:
    ex = example_dir()
    args = ["score", "--key", str(ex / "key.txt"), "--config", str(ex / "config.toml"),
            "--history", str(ex / "history.lisp"), "--format", "table",
            str(ex / "delta.txt"), str(ex / "alpha.txt")]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.index("alpha") < out.index("delta")  # sorted by F P&R, not by argument order
    assert "region REC x PRE" in out
    target = tmp_path / "table.txt"
    assert main(args + ["-o", str(target)]) == 0
    written = target.read_text(encoding="latin-1")
    assert "alpha" in written and "delta" in written and "F P&R" in written
