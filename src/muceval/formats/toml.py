"""TOML as muceval reads it: syntax errors with their line and column, and line numbers for
keys (which ``tomllib`` does not keep) from :class:`TomlLocator`."""

from __future__ import annotations

import re
import tomllib
from typing import Any

from muceval.errors import InputError

__all__ = ["TomlLocator", "parse_toml"]


def parse_toml(text: str, path: str, what: str) -> tuple[dict[str, Any], TomlLocator]:
    """The data of a TOML ``text`` and the lines of its keys; ``what``: ``"a configuration"``."""
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise InputError.at(path, None, f"TOML nested too deeply: not {what}") from None
    except tomllib.TOMLDecodeError as bad:
        message = str(bad)
        line, column = getattr(bad, "lineno", None), getattr(bad, "colno", None)
        at = re.search(r"\(at line (\d+)(?:, column (\d+))?\)$", message)
        if line is None and at:  # Python < 3.14 gives the position in the message only
            line, column = int(at[1]), int(at[2]) if at[2] else None
        text_message = getattr(bad, "msg", None) or message.split(" (at line ")[0]
        raise InputError.at(path, line, f"TOML syntax error: {text_message}", column) from None
    return data, TomlLocator(text)


class TomlLocator:
    """Best-effort line numbers for keys of a TOML text: table headers and ``key =`` lines
    outside strings and arrays, as configurations are written."""

    def __init__(self, text: str):
        self.tables: list[tuple[str, int]] = []  # (header, line) in order
        self.keys: dict[tuple[int, str], int] = {}  # (table index, key) -> line
        table = -1
        depth = 0
        in_multi: str | None = None
        for number, line in enumerate(text.splitlines(), 1):
            if in_multi is not None:
                if in_multi in line:
                    in_multi = None
                continue
            stripped = line.strip()
            if depth == 0 and stripped.startswith("["):
                self.tables.append((stripped.split("#", 1)[0].strip(), number))
                table += 1
                continue
            if depth == 0 and "=" in stripped and not stripped.startswith("#"):
                key = stripped.split("=", 1)[0].strip().strip('"').strip("'")
                self.keys.setdefault((table, key), number)
            depth, in_multi = self._scan(line, depth)

    @staticmethod
    def _scan(line: str, depth: int) -> tuple[int, str | None]:
        i = line.find("=") + 1 if depth == 0 else 0
        while i < len(line):
            ch = line[i]
            if ch == "#":
                break
            for quote in ('"""', "'''"):
                if line.startswith(quote, i):
                    end = line.find(quote, i + 3)
                    if end < 0:
                        return depth, quote
                    i = end + 3
                    break
            else:
                if ch in "\"'":
                    end = i + 1
                    while end < len(line) and line[end] != ch:
                        end += 2 if ch == '"' and line[end] == "\\" else 1
                    i = end + 1
                    continue
                if ch in "[{":
                    depth += 1
                elif ch in "]}":
                    depth = max(depth - 1, 0)
                i += 1
        return depth, None

    def _table(self, header: str, index: int) -> int | None:
        """The position in ``tables`` of the ``index``-th table ``header``, or None."""
        found = [position for position, (name, _) in enumerate(self.tables) if name == header]
        return found[index] if 0 <= index < len(found) else None

    def table_line(self, header: str, index: int = 0) -> int | None:
        position = self._table(header, index)
        return None if position is None else self.tables[position][1]

    def key_line(self, header: str | None, key: str, index: int = 0) -> int | None:
        position = -1 if header is None else self._table(header, index)
        line = None if position is None else self.keys.get((position, key))
        if line is None and header is not None:
            return self.table_line(header, index)
        return line
