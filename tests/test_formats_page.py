"""docs/formats.md describes the JSON documents muceval writes: each block names a command and
the keys of what it writes. Every command is run here and its keys compared with the page's, so
that the page cannot fall behind the program."""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

import pytest
from click.testing import CliRunner

from conftest import REPO_ROOT, shared_root
from muceval.cli import cli

PAGE = REPO_ROOT / "docs" / "formats.md"
DATA = REPO_ROOT / "src" / "muceval" / "data"
BLOCK = re.compile(r"^## `([\w-]+)`.*?^```text\n(.*?)^```", re.MULTILINE | re.DOTALL)


def described() -> list[tuple[str, str, list[str]]]:
    """(format, command, key lines) of every block of the page."""
    out = []
    for name, body in BLOCK.findall(PAGE.read_text(encoding="utf-8")):
        lines = body.strip().splitlines()
        assert lines[0].startswith("$ muceval "), name
        out.append((name, lines[0].removeprefix("$ muceval "), lines[1:]))
    return out


def at(document: dict[str, Any], path: str) -> dict[str, Any]:
    """The record a path such as ``systems[].pairs[]`` or ``about{}`` names: the first element
    of each list, the first value of each table."""
    record: Any = document
    for step in path.split("."):
        field, kind = step[:-2], step[-2:]
        value = record[field]
        assert value, f"{path}: {field} is empty, so the page's keys cannot be checked"
        record = value[0] if kind == "[]" else next(iter(value.values()))
    assert isinstance(record, dict), path
    return record


@pytest.mark.parametrize(("name", "command", "keys"), [pytest.param(*d, id=d[0]) for d in described()])
def test_the_page_lists_the_keys_each_command_writes(name: str, command: str,
                                                     keys: list[str]) -> None:
    modern = shared_root() / "modern"
    if "{modern}" in command and not modern.is_dir():
        pytest.skip(f"modern MUC-4 data not found at {modern}")
    args = shlex.split(command.format(example=DATA / "example", kitchen=DATA / "kitchen",
                                      modern=modern))
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["format"] == name
    # The opening keys the page promises for every document on it.
    header = [k for k in document if k not in ("detail", "unit")][:5]
    assert header == ["format", "format_version", "muceval", "signature", "settings"]
    for line in keys:
        path, _, listed = line.partition(": ")
        names = [k.strip() for k in listed.split(",")]
        record = document if path == "keys" else at(document, path)
        assert list(record) == names, f"{name} {path}: the page lists {names}, " \
                                      f"the document has {list(record)}"


def test_the_page_covers_every_block() -> None:
    # A block the pattern missed (a heading or fence written another way) would go unchecked.
    text = PAGE.read_text(encoding="utf-8")
    assert len(described()) == text.count("```text") == text.count("\n## ") > 5
