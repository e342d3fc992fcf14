"""The first hour (issue 29): errors that point the way, as a new user meets them."""

from __future__ import annotations

from pathlib import Path

import pytest

from muceval.cli import main
from muceval.reporting.demo import example_files

EXAMPLE = example_files()
DATA = Path(__file__).parent / "data" / "yeh"


@pytest.mark.parametrize("given,expected", [
    (EXAMPLE.config, "this is a muceval TOML configuration (*.toml), not a MUC template file: "
                     "did you mean to give it as the configuration?"),
    (EXAMPLE.history, "this is a 1992 history of judgements, not a MUC template file: did you "
                      "mean to give it as the history?"),
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
