"""muceval's own JSON formats are read only in the version this muceval writes, and modern
scores only when every system was scored on the same documents."""

from __future__ import annotations

import json
from pathlib import Path

from muceval.cli import main
from muceval.reporting.demo import example_dir

EXAMPLE = example_dir()


def _refused(path: Path, capsys, *args: str) -> str:
    assert main(["significance", str(path), *args]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "Traceback" not in err, err
    return err


def test_a_scores_file_of_another_format_version_is_refused(tmp_path: Path, capsys) -> None:
    scores = tmp_path / "s.json"
    assert main(["score", "--key", str(EXAMPLE / "key.txt"), "--config",
                 str(EXAMPLE / "config.toml"), str(EXAMPLE / "alpha.txt"),
                 str(EXAMPLE / "beta.txt"), "--format", "json", "-o", str(scores)]) == 0
    doc = json.loads(scores.read_text())
    doc["format_version"] = 99
    future = tmp_path / "future.json"
    future.write_text(json.dumps(doc))
    capsys.readouterr()
    assert "format_version 99" in _refused(future, capsys)


def _modern_scores(modern: Path, tmp_path: Path) -> dict:
    """GTT's scores of two systems, as ``score --format json`` writes them."""
    scores = tmp_path / "m.json"
    assert main(["score", "--key", str(modern / "gtt" / "test.json"), "--scorer", "gtt",
                 str(modern / "gtt" / "preds_gtt.out"),
                 str(modern / "iterx" / "preds.bart-base.test.jsonlines"),
                 "--format", "json", "-o", str(scores)]) == 0
    return json.loads(scores.read_text())


def test_modern_scores_of_another_version_or_other_documents_are_refused(
        modern: Path, tmp_path: Path, capsys) -> None:
    doc = _modern_scores(modern, tmp_path)
    capsys.readouterr()
    future = json.loads(json.dumps(doc))
    future["format_version"] = 99
    path = tmp_path / "future.json"
    path.write_text(json.dumps(future))
    assert "format_version 99" in _refused(path, capsys)
    fewer = json.loads(json.dumps(doc))
    system = fewer["results"][0]["systems"][1]
    documents = system["documents"]
    del documents[len(documents) // 2:]
    path = tmp_path / "fewer.json"
    path.write_text(json.dumps(fewer))
    assert main(["significance", str(path)]) == 2
    assert "the file was cut or edited" in capsys.readouterr().err
    # With the overall counts made to agree, the systems still cover different documents.
    for key in ("p_num", "p_den", "r_num", "r_den"):
        system["overall"][key] = sum(d[key] for d in documents)
    path.write_text(json.dumps(fewer))
    assert main(["significance", str(path)]) == 2
    err = capsys.readouterr().err
    assert "different documents" in err and f"{path}:" in err  # the file, to mend


def test_a_system_name_may_hold_an_equals_sign() -> None:
    # --name FILE=NAME split at the last '=', so a name with '=' named no input.
    from muceval.cli.common import parse_names

    inputs = ["runs/alpha.txt", "runs/b=eta.txt"]
    assert parse_names(["runs/alpha.txt=model=large", "runs/b=eta.txt=B"], inputs) == {
        "runs/alpha.txt": "model=large", "runs/b=eta.txt": "B"}


def test_systems_whose_names_differ_only_in_punctuation_keep_their_own_figures(
        tmp_path: Path) -> None:
    # "a b" and "a_b" shared ids: a histogram captioned "a b − c d" drew a_b − c_d, and three
    # pairs gave two files.
    from hypothesis import given
    from hypothesis import strategies as st

    from muceval.reporting.svgfig import slug

    @given(st.text(max_size=12), st.text(max_size=12))
    def injective(a: str, b: str) -> None:
        assert a == b or slug(a) != slug(b)
        assert "--" not in slug(a)

    injective()
    # A safe name written as another name's hashed id is hashed itself.
    assert slug(slug("my system/2")) != slug("my system/2")
    names = ["a b", "a_b", "c d", "c_d"]
    responses = [EXAMPLE / f"{n}.txt" for n in ("alpha", "beta", "gamma", "delta")]
    args = ["report", "--key", str(EXAMPLE / "key.txt"), "--config",
            str(EXAMPLE / "config.toml"), *map(str, responses), "--seed", "1",
            "--shuffles", "99", "--bootstrap", "0", "--out", str(tmp_path / "r"),
            "--histogram", "a b,c d", "--histogram", "a_b,c_d", "--histogram", "a b,c_d"]
    for path, name in zip(responses, names, strict=True):
        args += ["--name", f"{path}={name}"]
    assert main(args) == 0
    histograms = sorted((tmp_path / "r" / "figures").glob("histogram-*.svg"))
    pairs = {("a b", "c d"), ("a_b", "c_d"), ("a b", "c_d")}
    assert {f"histogram-{slug(a)}--{slug(b)}.svg" for a, b in pairs} <= {
        p.name for p in histograms}
    page = (tmp_path / "r" / "report.html").read_text()
    ids = [part.split('"')[0] for part in page.split(' id="')[1:]]
    assert len(ids) == len(set(ids)), "an id given twice"


def test_buckets_hold_each_document_once_and_an_empty_bucket_is_refused(
        modern: Path, tmp_path: Path, capsys) -> None:
    # A document in two buckets was accepted, and a bucket with no document of the key
    # printed 0.00 with exit 0.
    key, pred = str(modern / "gtt" / "test.json"), str(modern / "gtt" / "preds_gtt.out")
    two = tmp_path / "two.json"
    two.write_text(json.dumps({"1": ["30001"], "2": ["30001", "30002"], ">=2": ["30002"]}))
    assert main(["score", "--key", key, "--scorer", "gtt", "--event-n", "2",
                 "--event-n-file", str(two), pred]) == 2
    assert "TST3-MUC4-0001 is in bucket '1' and in bucket '2'" in capsys.readouterr().err
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({"1": ["30001"], "3": []}))
    assert main(["score", "--key", key, "--scorer", "gtt", "--event-n", "3",
                 "--event-n-file", str(empty), pred]) == 2
    assert "nothing to score" in capsys.readouterr().err


def test_convert_writes_a_mention_holding_a_lone_surrogate(tmp_path: Path, capsys) -> None:
    # Valid JSON that score, errors and validate accept; convert died on writing it.
    source = tmp_path / "preds.json"
    source.write_text('{"30001": {"pred_templates": [{"incident_type": "attack", "PerpInd": '
                      '[["\\ud800x"]], "PerpOrg": [], "Target": [], "Victim": [], '
                      '"Weapon": []}]}}')
    for layout in ("iterx-pred", "muceval"):
        out = tmp_path / f"out-{layout}"
        assert main(["convert", str(source), "--to", layout, "-o", str(out)]) == 0, layout
        assert "\\ud800x" in out.read_text() and "Traceback" not in capsys.readouterr().err
        back = tmp_path / f"back-{layout}.json"
        assert main(["convert", str(out), "--to", "gtt-pred", "-o", str(back)]) == 0
        assert json.loads(back.read_text())["30001"]["pred_templates"][0]["PerpInd"] == [
            ["\ud800x"]]


def test_a_report_reads_a_file_whose_name_is_not_utf8(muc4: Path, tmp_path: Path) -> None:
    # The name decoded from the file name reached report.json and the page as a lone
    # surrogate, and writing them raised UnicodeEncodeError.
    import os
    import shutil

    scores = muc4 / "tst3" / "official-scores"
    odd = os.fsdecode(b"\xff\xfe.nrad")
    shutil.copy(scores / "GE.tst3-pass1.nrad", tmp_path / "GE.nrad")
    shutil.copy(scores / "BBN.tst3-pass1.nrad", tmp_path / odd)
    assert main(["report", str(tmp_path / "GE.nrad"), str(tmp_path / odd), "--seed", "1",
                 "--shuffles", "99", "--bootstrap", "0", "--out", str(tmp_path / "r")]) == 0
    names = [s["system"] for s in json.loads((tmp_path / "r" / "report.json").read_text(
        encoding="utf-8"))["systems"]]
    assert names == ["GE", os.fsdecode(b"\xff\xfe")]
    assert "\\udcff" in (tmp_path / "r" / "report.html").read_text(encoding="utf-8")


def test_modern_scores_hold_counts_and_documents(modern: Path, tmp_path: Path, capsys) -> None:
    # NaN was tested (and marked significant), true read as 1, a huge integer a traceback,
    # and a file of no documents tested with exit 0.
    doc = _modern_scores(modern, tmp_path)
    capsys.readouterr()
    for label, value in (("nan", "NaN"), ("flag", "true"), ("huge", "1" + "0" * 400)):
        spoiled = json.loads(json.dumps(doc))
        spoiled["results"][0]["systems"][0]["documents"][0]["r_den"] = "@"
        text = json.dumps(spoiled).replace('"@"', value)
        path = tmp_path / f"{label}.json"
        path.write_text(text)
        _refused(path, capsys)
    empty = json.loads(json.dumps(doc))
    for system in empty["results"][0]["systems"]:
        system["documents"] = []
        system["overall"].update(p_num=0, p_den=0, r_num=0, r_den=0)
    path = tmp_path / "empty.json"
    path.write_text(json.dumps(empty))
    assert main(["significance", str(path)]) == 2
    assert "no document to test" in capsys.readouterr().err
