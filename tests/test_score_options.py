"""`muceval score` takes no flag it then ignores: every option the path taken (the 1992 scorer
or a modern metric) does not use is refused, naming the flag (issue 25)."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest

from muceval.cli import main
from muceval.cli.modern import MODERN_ONLY, MODERN_USES
from muceval.cli.score import score
from muceval.reporting.demo import example_files

EXAMPLE = example_files()
GOLD = ('{"docid": "TST3-MUC4-0001", "templates": [{"incident_type": "attack", '
        '"PerpInd": [], "PerpOrg": [], "Target": [["the house"]], "Victim": [], "Weapon": []}]}\n')
PRED = ('{"TST3-MUC4-0001": {"pred_templates": [{"incident_type": "attack", "PerpInd": [], '
        '"PerpOrg": [], "Target": [["the house"]], "Victim": [], "Weapon": []}]}}\n')


def _arguments(option: click.Option, existing: str) -> list[str]:
    """The option given once on the command line, with a value click accepts."""
    flag = max(option.opts, key=len)
    if option.is_flag:
        return [flag]
    if isinstance(option.type, click.Choice):
        return [flag, str(option.type.choices[-1])]
    if option.name == "names":
        return [flag, f"{existing}=X"]
    if isinstance(option.type, click.types.IntParamType):
        return [flag, "1"]
    if isinstance(option.type, click.Path) and not option.type.file_okay:
        return [flag, str(Path(existing).parent / "folder")]
    return [flag, existing]


def _options(accepted) -> list[click.Option]:
    return [p for p in score.params if isinstance(p, click.Option) and p.name not in accepted]


@pytest.fixture()
def modern_files(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "gold.json").write_text(GOLD)
    (tmp_path / "preds.out").write_text(PRED)
    return str(tmp_path / "gold.json"), str(tmp_path / "preds.out")


@pytest.mark.parametrize("option", _options(MODERN_USES), ids=lambda o: o.name)
def test_a_1992_option_with_a_modern_metric_is_refused(option, modern_files, capsys):
    gold, preds = modern_files
    code = main(["score", "--key", gold, "--metric", "gtt", preds,
                 *_arguments(option, preds)])
    err = capsys.readouterr().err
    assert code == 2 and max(option.opts, key=len) in err and "1992 scorer" in err, err


@pytest.mark.parametrize("name", MODERN_ONLY)
def test_a_modern_option_with_the_1992_scorer_is_refused(name, capsys):
    (option,) = [p for p in score.params if p.name == name]
    code = main(["score", "--key", EXAMPLE.key, "--config", EXAMPLE.config,
                 EXAMPLE.responses[0], *_arguments(option, EXAMPLE.responses[0])])
    err = capsys.readouterr().err
    assert code == 2 and max(option.opts, key=len) in err and "modern --metric" in err, err


def test_the_scheduler_is_refused_with_a_modern_metric(modern_files, capsys):
    gold, preds = modern_files
    assert main(["score", "--key", gold, "--metric", "gtt", "--scheduler", "local:2",
                 preds]) == 2
    assert "--scheduler belongs to the 1992 scorer" in capsys.readouterr().err


def test_names_reach_the_modern_scores(modern_files, capsys):
    gold, preds = modern_files
    assert main(["score", "--key", gold, "--metric", "gtt", "--format", "json",
                 "--name", f"{preds}=mine", preds]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [s["system"] for s in out["results"][0]["systems"]] == ["mine"]
    assert out["settings"]["names"] == {preds: "mine"}


def test_a_library_error_shows_the_commands_flag(capsys):
    # score_files says "mapping: ..." to a library caller; the command line names --mapping.
    code = main(["score", "--key", EXAMPLE.key, "--config", EXAMPLE.config, "--mapping",
                 "optimal", "--alignment", "strict", EXAMPLE.responses[0]])
    err = capsys.readouterr().err
    assert code == 2 and "error: --mapping: 'optimal' and the alignment criterion" in err, err


def test_the_library_names_its_parameter():
    from muceval.errors import UsageError
    from muceval.formats.config import bundled_configuration
    from muceval.scoring.session import score_files

    config = bundled_configuration("muc4")
    with pytest.raises(UsageError) as caught:
        score_files(config, EXAMPLE.key, EXAMPLE.responses[:2], mapping_paths=["a", "b", "c"])
    assert caught.value.parameter == "mapping_paths"
    assert str(caught.value).startswith("mapping_paths: given 3 times for 2 response files")


@pytest.mark.parametrize("options,parameter", [
    ({"unresolved": "maybe"}, "unresolved"), ({"mapping": "random"}, "mapping"),
    ({"unresolved": "ask"}, "unresolved"),  # asking needs someone to ask
])
def test_scoring_options_are_checked_when_made(options, parameter):
    from muceval.errors import UsageError
    from muceval.scoring.muc1992.scorer import ScoringOptions

    with pytest.raises(ValueError) as caught:
        ScoringOptions(**options)
    assert isinstance(caught.value, UsageError) and caught.value.parameter == parameter


@pytest.mark.parametrize("options,parameter", [
    ({"metric": "bleu"}, "metric"), ({"metric": "ceaf-ree", "phi": "phi3"}, "phi"),
    ({"metric": "ceaf-ree", "event_n": "2"}, "event_n"),
    ({"metric": "gtt", "ignore_empty_docs": True}, "ignore_empty_docs"),
    ({"metric": "gtt", "event_n_file": "docids_event_n.json"}, "event_n_file"),
    ({"metric": "gtt", "event_n": "2", "event_n_file": 7}, "event_n_file"),
    ({"metric": "ceaf-rme", "event_n_file": "docids_event_n.json"}, "event_n_file"),
])
def test_modern_options_are_checked_when_made(options, parameter):
    from muceval.errors import UsageError
    from muceval.scoring.modern import ModernOptions

    with pytest.raises(UsageError) as caught:
        ModernOptions(**options)
    assert caught.value.parameter == parameter


@pytest.mark.parametrize("command", [
    ["score", "--key", "{fifo}", "{response}"],
    ["compare", "--key", "{fifo}", "{response}", "{other}"],
    ["report", "--key", "{fifo}", "{response}", "{other}", "--out", "{out}"],
    ["alignment", "--key", "{fifo}", "{response}"],
])
def test_a_fifo_as_key_is_refused_not_waited_for(command, tmp_path):
    # The modern-key sniffer opened the key itself: a FIFO with no writer hung every command.
    import os
    import subprocess
    import sys

    fifo = tmp_path / "key.fifo"
    os.mkfifo(fifo)
    args = [a.format(fifo=fifo, response=EXAMPLE.responses[0], other=EXAMPLE.responses[1],
                     out=tmp_path / "r") for a in command]
    done = subprocess.run([sys.executable, "-m", "muceval", *args], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and "not a regular file (a FIFO)" in done.stderr, done.stderr


def test_modern_scores_are_a_kind_of_the_registry(modern_files, tmp_path, capsys):
    from muceval.formats.registry import INPUTS

    gold, preds = modern_files
    scores = tmp_path / "scores.json"
    assert main(["score", "--key", gold, "--metric", "all", "--format", "json", "-o",
                 str(scores), preds]) == 0
    assert [INPUTS.kind_of(p).name for p in (gold, preds, scores)] == [
        "gtt-gold", "gtt-pred", "modern-scores"]
    assert main(["validate", str(scores)]) == 0
    assert "modern scores" in capsys.readouterr().out


def test_modern_scores_whose_numerator_exceeds_its_denominator_are_refused(modern_files,
                                                                           tmp_path, capsys):
    # Found by fuzzing: a ValueError traceback from RatioTallies (issue 27).
    import json as json_module

    gold, preds = modern_files
    scores = tmp_path / "scores.json"
    assert main(["score", "--key", gold, "--metric", "gtt", "--format", "json", "-o",
                 str(scores), preds]) == 0
    doc = json_module.loads(scores.read_text())
    document = doc["results"][0]["systems"][0]["documents"][0]
    document["p_num"] = document["p_den"] + 3
    scores.write_text(json_module.dumps(doc))
    other = tmp_path / "other.json"
    assert main(["score", "--key", gold, "--metric", "gtt", "--format", "json", "-o",
                 str(other), "--name", f"{preds}=other", preds]) == 0
    capsys.readouterr()
    assert main(["significance", str(scores), str(other), "--scorer", "gtt"]) == 2
    err = capsys.readouterr().err
    assert "numerator exceeds its denominator" in err and str(scores) in err
    assert "Traceback" not in err


def test_an_empty_file_is_not_converted_and_one_system_is_named(tmp_path, capsys):
    # convert wrote an empty output with exit 0; "needs at least two systems" named no file
    # (issue 27).
    empty = tmp_path / "empty.txt"
    empty.write_text("\n")
    assert main(["convert", str(empty), "--to", "gtt-gold", "-o", str(tmp_path / "e.json")]) == 2
    assert "empty.txt: an empty file" in capsys.readouterr().err
    assert not (tmp_path / "e.json").exists()
    one = tmp_path / "one.csv"
    one.write_text("system,unit,POS,ACT,COR,PAR\nA,m1,2,2,2,0\n")
    assert main(["significance", str(one)]) == 2
    assert f"{one} holds only A" in capsys.readouterr().err


def test_the_slot_file_a_configuration_names_is_an_input_too(muc4, tmp_path, capsys):
    # score --config config.el -o slotconfig.el --force replaced the slot file that the
    # configuration names, though it was not given (issue 27).
    import shutil

    for name in ("config-tst3.el", "slotconfig-tst3.el"):
        shutil.copy(muc4 / "tst3" / name, tmp_path / name)
    slots = tmp_path / "slotconfig-tst3.el"
    before = slots.read_bytes()
    assert main(["score", "--key", str(muc4 / "corpora" / "tst3" / "key-tst3.v2"),
                 "--config", str(tmp_path / "config-tst3.el"), "--no-query-pass",
                 "-o", str(slots), "--force", str(muc4 / "tst3" / "responses" / "BBN.tst3")]) == 2
    assert "slotconfig-tst3.el is the configuration file this command reads" in \
        capsys.readouterr().err
    assert main(["convert-config", str(tmp_path / "config-tst3.el"), "-o", str(slots),
                 "--force"]) == 2
    assert slots.read_bytes() == before


def test_missing_rows_of_a_unit_csv_are_counted_aloud(tmp_path, capsys):
    # Counted as zeros without a word before (issue 27).
    tallies = tmp_path / "tallies.csv"
    tallies.write_text("system,unit,POS,ACT,COR,PAR\nA,m1,2,2,2,0\nA,m2,2,2,1,0\n"
                       "B,m1,2,2,1,0\nC,m3,1,1,1,0\n")
    assert main(["significance", str(tallies), "--format", "json", "--seed", "1"]) == 0
    err = capsys.readouterr().err
    assert f"warning: {tallies}: 5 row(s) missing" in err and "counted as zeros" in err


def test_a_session_carries_its_options_and_signature():
    from muceval.formats.config import load_configuration
    from muceval.scoring.muc1992.scorer import ScoringOptions
    from muceval.scoring.session import score_files

    config = load_configuration(EXAMPLE.config)
    result = score_files(config, EXAMPLE.key, EXAMPLE.responses[:1],
                         options=ScoringOptions(query_pass=False, mapping="optimal"))
    assert result.options == ScoringOptions(query_pass=False, mapping="optimal")
    assert result.settings["responses"] == [str(EXAMPLE.responses[0])]
    assert "|query_pass:no|mapping:optimal|" in result.signature
