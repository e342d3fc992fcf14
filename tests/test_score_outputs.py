"""`muceval score` outputs: one file per system, folders of responses, encodings, no overwriting."""

from __future__ import annotations

import shutil

from muceval.cli import main
from muceval.formats.files import MANIFEST
from muceval.reporting.demo import EXAMPLE_SYSTEMS, example_dir


def _example_args(*extra: str) -> list[str]:
    ex = example_dir()
    return ["score", "--key", str(ex / "key.txt"), "--config", str(ex / "config.toml"), *extra]


def test_output_dir_writes_one_report_per_system_identical_to_stdout(tmp_path, capsys) -> None:
    ex = example_dir()
    responses = tmp_path / "responses"
    responses.mkdir()
    for name in EXAMPLE_SYSTEMS:
        shutil.copy(ex / f"{name}.txt", responses / f"{name}.txt")
    (responses / ".hidden").write_text("not a response")
    out = tmp_path / "reports"
    assert main(_example_args("--output-dir", str(out), str(responses))) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [f"{n}.report" for n in EXAMPLE_SYSTEMS] + ["summary.txt", MANIFEST])
    capsys.readouterr()
    for name in EXAMPLE_SYSTEMS:
        assert main(_example_args(str(ex / f"{name}.txt"))) == 0
        printed = capsys.readouterr().out
        assert (out / f"{name}.report").read_text(encoding="latin-1") == printed
    summary = (out / "summary.txt").read_text(encoding="utf-8")
    assert all(name in summary for name in EXAMPLE_SYSTEMS)
    # A second run does not replace the reports without --force.
    assert main(_example_args("--output-dir", str(out), str(responses))) == 2
    assert "use --force" in capsys.readouterr().err
    assert main(_example_args("--output-dir", str(out), "--force", str(responses))) == 0


def test_output_dir_json_has_a_file_per_system_and_a_summary(tmp_path) -> None:
    ex = example_dir()
    out = tmp_path / "json"
    args = _example_args("--format", "json", "--output-dir", str(out),
                         str(ex / "alpha.txt"), str(ex / "beta.txt"))
    assert main(args) == 0
    assert sorted(p.name for p in out.iterdir()) == [MANIFEST, "alpha.json", "beta.json",
                                                     "summary.json"]


def test_table_written_to_a_file_keeps_its_box_characters(tmp_path) -> None:
    ex = example_dir()
    target = tmp_path / "table.txt"
    assert main(_example_args("--format", "table", "-o", str(target), str(ex / "alpha.txt"))) == 0
    text = target.read_text(encoding="utf-8")
    assert "?" not in text and "alpha" in text
    assert any(box in text for box in "━─┃│")


def test_existing_output_file_needs_force(tmp_path, capsys) -> None:
    ex = example_dir()
    target = tmp_path / "out.report"
    target.write_text("mine")
    assert main(_example_args("-o", str(target), str(ex / "alpha.txt"))) == 2
    assert "use --force" in capsys.readouterr().err and target.read_text() == "mine"
    assert main(_example_args("-o", str(target), "--force", str(ex / "alpha.txt"))) == 0
    assert target.read_text(encoding="latin-1").startswith("Configuration:")


def test_empty_folder_is_a_usage_error(tmp_path, capsys) -> None:
    assert main(_example_args(str(tmp_path))) == 2
    assert "no files in it" in capsys.readouterr().err


def test_per_slot_table_and_json_agree(tmp_path, capsys) -> None:
    import json

    ex = example_dir()
    assert main(_example_args("--format", "json", "--per-slot", str(ex / "beta.txt"))) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["format"] == "muceval-per-slot" and doc["format_version"] == 1
    rows = {r["name"]: r for r in doc["systems"][0]["rows"]}
    assert list(rows)[:2] == ["inc-date", "inc-loc"]
    assert rows["ALL TEMPLATES"]["pos"] == 98
    target = tmp_path / "slots.txt"
    assert main(_example_args("--format", "table", "--per-slot", "-o", str(target),
                              str(ex / "beta.txt"))) == 0
    line = next(x for x in target.read_text(encoding="utf-8").splitlines() if "inc-loc" in x)
    recall = 100 * rows["inc-loc"]["recall"]
    assert f"{recall:.1f}" in line
    assert main(_example_args("--per-slot", str(ex / "beta.txt"))) == 2


def test_options_that_do_not_apply_are_refused_not_ignored(capsys) -> None:
    ex = example_dir()
    alpha = str(ex / "alpha.txt")
    assert main(_example_args("--format", "json", "--layout", "message", alpha)) == 2
    assert "--layout" in capsys.readouterr().err
    assert main(_example_args("--detail", "pairs", alpha)) == 2
    assert "--detail goes with --format json or csv" in capsys.readouterr().err


def test_json_records_its_settings_and_a_report_stream_names_each_system(capsys) -> None:
    import json

    ex = example_dir()
    files = [str(ex / f"{name}.txt") for name in EXAMPLE_SYSTEMS]
    assert main(_example_args("--format", "json", *files)) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["detail"] == "summary" and doc["settings"]["responses"] == files
    assert doc["settings"]["key"] == str(ex / "key.txt") and doc["settings"]["query_pass"]
    assert main(_example_args(*files)) == 0
    stream = capsys.readouterr().out
    heads = [line for line in stream.splitlines() if line.startswith("==> ")]
    assert heads == [f"==> {name} <==" for name in EXAMPLE_SYSTEMS]


def test_name_renames_a_system_and_same_names_are_refused(tmp_path, capsys) -> None:
    import json

    ex = example_dir()
    alpha = str(ex / "alpha.txt")
    copy = tmp_path / "alpha.txt"
    shutil.copy(alpha, copy)
    assert main(_example_args("--format", "json", alpha, str(copy))) == 2
    assert "--name FILE=NAME" in capsys.readouterr().err
    assert main(_example_args("--format", "json", "--name", f"{copy}=alpha-copy", alpha,
                              str(copy))) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [s["system"] for s in doc["systems"]] == ["alpha", "alpha-copy"]
    reports = []
    for name in ("v1", "v2"):
        folder = tmp_path / name
        folder.mkdir()
        assert main(_example_args("-o", str(folder / "sys.report"), alpha)) == 0
        reports.append(str(folder / "sys.report"))
    capsys.readouterr()
    assert main(["significance", *reports, "--seed", "1", "--shuffles", "9"]) == 2
    assert main(["significance", *reports, "--name", f"{reports[1]}=sys-v2", "--seed", "1",
                 "--shuffles", "9", "--format", "json"]) == 0
    assert list(json.loads(capsys.readouterr().out.strip())["systems"]) == ["sys", "sys-v2"]
    assert main(["significance", *reports, "--name", "nothere.report=x"]) == 2
    assert "not one of the input files" in capsys.readouterr().err


def test_a_wall_of_problems_is_cut_with_a_hint(capsys) -> None:
    ex = example_dir()
    # The example's templates read with the bundled MUC-4 configuration: every slot is missing.
    assert main(["score", "--key", str(ex / "key.txt"), str(ex / "alpha.txt")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) <= 12 and "more problem(s)" in err[-2] and "--config" in err[-1]


def test_every_json_output_names_its_format_version_and_signature(tmp_path, capsys) -> None:
    import json

    ex = example_dir()
    files = [str(ex / f"{n}.txt") for n in EXAMPLE_SYSTEMS]
    outputs = []
    assert main(_example_args("--format", "json", *files)) == 0
    outputs.append(json.loads(capsys.readouterr().out))
    scores = tmp_path / "scores.json"
    assert main(_example_args("--format", "json", "-o", str(scores), *files)) == 0
    assert main(["significance", str(scores), "--seed", "1", "--shuffles", "9",
                 "--format", "json"]) == 0
    outputs.append(json.loads(capsys.readouterr().out))
    assert main(["compare", "--key", str(ex / "key.txt"), "--config", str(ex / "config.toml"),
                 *files[:2], "--format", "json", "--shuffles", "9"]) == 0
    outputs.append(json.loads(capsys.readouterr().out))
    for doc in outputs:
        assert doc["format"].startswith("muceval-") and isinstance(doc["format_version"], int)
        assert doc["signature"].startswith(f"muceval:{doc['muceval']}|")
    assert "seed:1" in outputs[1]["signature"] and "shuffles:9" in outputs[2]["signature"]
