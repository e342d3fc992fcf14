"""A batch of test sets (``muceval batch``): which key, configuration, history and
responses make up each test set, in one TOML file.

    format-version = 1

    [[test-set]]
    name = "tst3"
    key = "muc4/corpora/tst3/key-tst3.v2"
    config = "muc4/tst3/config-tst3.el"        # optional: the bundled MUC-4 configuration
    history = "muc4/tst3/final-history-nrad.tst3"   # optional
    responses = ["muc4/tst3/responses/"]       # files, or folders of files
    query-pass = false                         # optional, default true

Relative paths are relative to the batch file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from muceval.errors import InputError
from muceval.formats.files import read_text
from muceval.formats.toml import TomlLocator, parse_toml

__all__ = ["TestSetSpec", "read_batch"]

FORMAT_VERSION = 1
_KEYS = {"name", "key", "config", "slots", "history", "responses", "query-pass"}
_TABLE = "[[test-set]]"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@dataclass(frozen=True)
class TestSetSpec:
    """One test set of a batch: its files (absolute paths) and how to score it."""

    __test__ = False  # not a pytest test class, whatever its name

    name: str
    key: str
    responses: tuple[str, ...]
    config: str | None = None
    slots: str | None = None
    history: str | None = None
    query_pass: bool = True


def read_batch(path: str | Path) -> tuple[TestSetSpec, ...]:
    """The test sets of the batch file at ``path``, in file order.

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> for name in ("key.txt", "alpha.txt"):
    ...     _ = open(os.path.join(folder, name), "w").write("0.  MESSAGE: ID  M-1\\n")
    >>> path = os.path.join(folder, "batch.toml")
    >>> _ = open(path, "w").write('format-version = 1\\n[[test-set]]\\nname = "tst"\\n'
    ...                           'key = "key.txt"\\nresponses = ["alpha.txt"]\\n')
    >>> [(spec.name, os.path.basename(spec.key)) for spec in read_batch(path)]
    [('tst', 'key.txt')]
    """
    shown = str(path)
    data, locate = parse_toml(read_text(path), shown, "a batch file")
    version = data.get("format-version", FORMAT_VERSION)
    if version != FORMAT_VERSION or isinstance(version, bool):
        raise InputError.at(shown, locate.key_line(None, "format-version"),
                            f"format-version {version!r} is not supported (this muceval reads "
                            f"version {FORMAT_VERSION})")
    unknown = sorted(set(data) - {"format-version", "test-set"})
    if unknown:
        raise InputError.at(shown, locate.key_line(None, unknown[0]) or
                            locate.table_line(f"[[{unknown[0]}]]") or
                            locate.table_line(f"[{unknown[0]}]"),
                            f"unknown key {unknown[0]!r} (a batch has [[test-set]] tables)")
    entries = data.get("test-set")
    if not isinstance(entries, list) or not entries:
        raise InputError.at(shown, None, "no [[test-set]] in this batch file")
    base = Path(os.path.abspath(path)).parent
    specs: list[TestSetSpec] = []
    for n, entry in enumerate(entries, start=1):
        spec = _test_set(entry, n, base, shown, locate)
        if any(s.name == spec.name for s in specs):
            raise InputError.at(shown, locate.key_line(_TABLE, "name", n - 1),
                                f"two test sets are named {spec.name!r}")
        specs.append(spec)
    return tuple(specs)


def _test_set(entry: Any, n: int, base: Path, shown: str, locate: TomlLocator) -> TestSetSpec:
    where = f"test set {n}"

    def fail(message: str, key: str | None = None) -> InputError:
        # The line of the key in this test set's table (or of the table, without a key).
        line = locate.key_line(_TABLE, key, n - 1) if key else locate.table_line(_TABLE, n - 1)
        return InputError.at(shown, line, f"{where}: {message}")

    unknown = sorted(set(entry) - _KEYS)
    if unknown:
        raise fail(f"unknown key {unknown[0]!r} (known: {', '.join(sorted(_KEYS))})", unknown[0])
    name = entry.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise fail("'name' must be a file name of letters, digits, '.', '_' or '-'", "name")
    where = f"test set {name!r}"

    def file(key: str, required: bool = False) -> str | None:
        value = entry.get(key)
        if value is None:
            if required:
                raise fail(f"'{key}' is missing")
            return None
        if not isinstance(value, str):
            raise fail(f"'{key}' must be a path", key)
        full = base / value
        if not full.is_file():
            raise fail(f"{key} {value!r} is not a file", key)
        return str(full)

    key = file("key", required=True)
    assert key is not None
    responses = entry.get("responses")
    if isinstance(responses, str):
        responses = [responses]
    if not isinstance(responses, list) or not responses or \
            not all(isinstance(r, str) for r in responses):
        raise fail("'responses' must be a path or a list of paths (files or folders)",
                   "responses")
    found = _response_files(responses, base, fail)
    query_pass = entry.get("query-pass", True)
    if not isinstance(query_pass, bool):
        raise fail("'query-pass' must be true or false", "query-pass")
    return TestSetSpec(name, key, found, file("config"), file("slots"), file("history"),
                       query_pass)


def _response_files(
    responses: list[str], base: Path, fail: Callable[[str, str], InputError]
) -> tuple[str, ...]:
    """The response files named, a folder standing for the files in it (hidden ones left out)."""
    found: list[str] = []
    for value in responses:
        full = base / value
        if full.is_dir():
            inside = sorted(e.path for e in os.scandir(full)
                            if e.is_file() and not e.name.startswith("."))
            if not inside:
                raise fail(f"response folder {value!r} has no files", "responses")
            found.extend(inside)
        elif full.is_file():
            found.append(str(full))
        else:
            raise fail(f"response {value!r} is neither a file nor a folder", "responses")
    return tuple(found)
