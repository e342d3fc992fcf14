"""Hostile and broken inputs: every one ends in exit code 2 with a short message, never a hang,
a traceback or unbounded memory. Each case runs in a subprocess with a time limit, the way a
user (or a script) meets it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from muceval.core.model import SlotType
from muceval.errors import InputError
from muceval.formats.muc.fills import parse_fill
from muceval.reporting.demo import example_dir

EX = example_dir()
KEY, CONFIG, ALPHA, BETA = (str(EX / n) for n in ("key.txt", "config.toml", "alpha.txt", "beta.txt"))
MAX_MESSAGE = 2_000  # characters of stderr a single refusal may take


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``muceval ARGS`` in a fresh process, with a memory cap of 2 GiB where the platform has one."""
    def limit() -> None:
        try:
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
        except (ImportError, ValueError, OSError):
            pass

    return subprocess.run([sys.executable, "-m", "muceval", *args], capture_output=True,
                          text=True, timeout=timeout, preexec_fn=limit)


def refused(result: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stderr[-2000:])
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    assert len(result.stderr) <= MAX_MESSAGE, len(result.stderr)
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr


# --- files that are not files ----------------------------------------------------------

@pytest.mark.parametrize("role", ["key", "response", "history", "config", "report"])
def test_devices_are_refused_at_once(role: str) -> None:
    args = {"key": ["score", "--key", "/dev/zero", ALPHA],
            "response": ["score", "--key", KEY, "--config", CONFIG, "/dev/zero"],
            "history": ["score", "--key", KEY, "--config", CONFIG, "--history", "/dev/zero", ALPHA],
            "config": ["score", "--key", KEY, "--config", "/dev/zero", ALPHA],
            "report": ["significance", "/dev/zero", "/dev/null"]}[role]
    refused(run(*args), "/dev/zero", "not a regular file")


def test_a_fifo_without_writer_does_not_block(tmp_path: Path) -> None:
    fifo = tmp_path / "response.fifo"
    os.mkfifo(fifo)
    refused(run("score", "--key", KEY, "--config", CONFIG, str(fifo), timeout=30),
            "not a regular file")


def test_a_folder_given_as_a_key_is_refused(tmp_path: Path) -> None:
    refused(run("score", "--key", str(tmp_path), ALPHA))


def test_a_sparse_file_stops_at_its_first_nul_byte(tmp_path: Path) -> None:
    sparse = tmp_path / "response.txt"
    with sparse.open("wb") as handle:
        handle.write(Path(ALPHA).read_bytes()[:200])
        handle.truncate(600 << 20)  # 600 MB of NUL bytes, almost none on disk
    refused(run("score", "--key", KEY, "--config", CONFIG, str(sparse)), "NUL")


# --- nesting, long lines, long tokens -------------------------------------------------

def _response_with_fill(fill: str) -> str:
    text = Path(ALPHA).read_text(encoding="utf-8")
    head, sep, rest = text.partition("18. HUM TGT: NAME")
    line, newline, tail = rest.partition("\n")
    return head + sep + "                  " + fill + newline + tail


@pytest.mark.parametrize("depth", [400, 5_000])
def test_deeply_nested_fills_are_problems_not_crashes(tmp_path: Path, depth: int) -> None:
    response = tmp_path / "deep.txt"
    response.write_text(_response_with_fill("(" * depth + '"X"' + ")" * depth))
    result = run("score", "--key", KEY, "--config", CONFIG, str(response))
    refused(result, str(response))


@pytest.mark.parametrize("fill", ['B"-" / ', 'B" / ', 'A:"B / '])  # quotes that hide the rest
@pytest.mark.parametrize("slot_type", [SlotType.STRING, SlotType.SET, SlotType.DATE])
def test_deep_parentheses_behind_a_quote_are_refused(fill: str, slot_type: SlotType) -> None:
    with pytest.raises(InputError, match="nested more than"):
        parse_fill(fill + "(" * 400 + "A" + ")" * 400, slot_type)


def test_deeply_nested_history_and_configuration(tmp_path: Path) -> None:
    history = tmp_path / "history.lisp"
    history.write_text("(" * 100_000 + ")" * 100_000)
    refused(run("score", "--key", KEY, "--config", CONFIG, "--history", str(history), ALPHA),
            "nested more than")
    config = tmp_path / "config.el"
    config.write_text("(define-muc-configuration-options :slot-file " + "(" * 100_000 + ")" * 100_000
                      + ")\n")
    refused(run("validate", "--config", str(config), ALPHA))


def test_deeply_nested_json_and_toml(tmp_path: Path) -> None:
    scores = tmp_path / "scores.json"
    scores.write_text('{"format": "muceval-scores", "systems": ' + "[" * 100_000 + "]" * 100_000
                      + "}")
    refused(run("significance", str(scores), str(scores)), str(scores))
    config = tmp_path / "config.toml"
    config.write_text("format = \"muceval-configuration\"\nx = " + "[" * 50_000 + "]" * 50_000
                      + "\n")
    refused(run("score", "--key", KEY, "--config", str(config), ALPHA), str(config))


def test_a_huge_token_gives_a_short_message(tmp_path: Path) -> None:
    response = tmp_path / "long.txt"
    response.write_text(_response_with_fill('"' + "A" * 1_000_000))  # an unterminated string
    refused(run("score", "--key", KEY, "--config", CONFIG, str(response)), str(response))


def test_a_one_line_history_of_a_megabyte_is_read(tmp_path: Path) -> None:
    entries = " ".join(f'("\\"NAME {n}\\"" fail)' for n in range(50_000))
    history = tmp_path / "history.lisp"
    history.write_text(f'(("DEMO-0001" ("1" (hum-tgt-name {entries}))))')
    assert history.stat().st_size > 1_000_000
    result = run("score", "--key", KEY, "--config", CONFIG, "--history", str(history),
                 "--format", "table", ALPHA)
    assert result.returncode == 0, result.stderr[-2000:]


# --- broken tables and documents --------------------------------------------------------

@pytest.mark.parametrize("text", [
    "system,unit,POS,ACT,COR,PAR\nA,m1,1,1\r1,0\nB,m1,1,1,1,0\n",        # a lone CR in a row
    "system,unit,POS,ACT,COR,PAR\nA," + "m" * 200_000 + ",1,1,1,0\n",   # a field over 128 KiB
    "system,unit,POS,ACT,COR,PAR\nA,m1,1,1,1,0,7\n",                   # too many cells
    "system,unit,POS,ACT,COR,PAR\n\"A,m1,1,1,1,0\n",                   # an unterminated quote
], ids=["lone-cr", "huge-field", "extra-cell", "open-quote"])
def test_broken_unit_csv(tmp_path: Path, text: str) -> None:
    path = tmp_path / "units.csv"
    path.write_text(text)
    refused(run("significance", str(path)), str(path))


@pytest.mark.parametrize("doc", [
    {"format": "muceval-scores", "systems": True},
    {"format": "muceval-scores", "systems": [{"system": "A", "units": {"m1": "many"}}]},
    {"format": "muceval-scores", "systems": [{"system": ["A"], "units": []}]},
    {"format": "muceval-scores", "systems": [None]},
    [1, 2, 3],
], ids=["systems-true", "units-not-counts", "name-a-list", "entry-null", "a-list"])
def test_scores_json_of_the_wrong_shape(tmp_path: Path, doc: object) -> None:
    path = tmp_path / "scores.json"
    path.write_text(json.dumps(doc))
    refused(run("significance", str(path), str(path)), str(path))


# --- options and outputs ----------------------------------------------------------------

def test_a_negative_seed_is_refused() -> None:
    refused(run("compare", "--key", KEY, "--config", CONFIG, ALPHA, BETA, "--seed", "-1"),
            "--seed")


def test_outputs_into_missing_folders_and_overlong_names(tmp_path: Path) -> None:
    refused(run("score", "--key", KEY, "--config", CONFIG, ALPHA, "-o",
                str(tmp_path / "no" / "such" / "folder" / "out.report")), "does not exist")
    refused(run("score", "--key", KEY, "--config", CONFIG, ALPHA, "-o",
                str(tmp_path / ("x" * 300))), "cannot write")
    refused(run("score", "--key", str(tmp_path / ("k" * 300)), ALPHA))


def test_a_gold_line_that_is_not_an_object_is_named_when_texts_are_read(tmp_path: Path) -> None:
    from muceval.formats.modern.embedded import read_texts

    gold = tmp_path / "gold.json"
    gold.write_text('{"docid": "D1", "doctext": "x", "templates": []}\n[1]\n')
    with pytest.raises(InputError, match=r"gold\.json:2: each line must be a JSON object"):
        read_texts(gold)
