"""The one CSV row reader of muceval's tables: a row the ``csv`` module cannot read (a lone
carriage return, an unterminated quote) is an :class:`~muceval.errors.InputError` at its line."""

from __future__ import annotations

import csv
from collections.abc import Iterator

from muceval.errors import InputError

__all__ = ["csv_records", "csv_rows"]


def csv_rows(text: str, path: str) -> Iterator[tuple[int, list[str]]]:
    """Each row of ``text`` with the line it ends on.

    >>> list(csv_rows("a,b\\n1,2\\n", "t.csv"))
    [(1, ['a', 'b']), (2, ['1', '2'])]
    """
    reader = csv.reader(_lines(text), strict=True)
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as bad:
            raise InputError.at(path, reader.line_num or 1, f"not a readable CSV row: {bad}") from None
        yield reader.line_num, row


def _lines(text: str) -> Iterator[str]:
    r"""The lines of ``text`` with their endings, one at a time: an ``io.StringIO`` would copy
    the text at four bytes a character, most of the reader's memory on millions of rows.

    >>> list(_lines("a,b\r\n1,2"))
    ['a,b\r\n', '1,2']
    """
    start = 0
    end = len(text)
    while start < end:
        stop = text.find("\n", start) + 1 or end  # after the newline, or the end of the text
        yield text[start:stop]
        start = stop


def csv_records(text: str, path: str) -> tuple[list[str], Iterator[tuple[int, dict[str, str]]]]:
    """The header of ``text`` and its rows as header → cell mappings (missing cells: "").

    >>> header, rows = csv_records("a,b\\n1,2\\n", "t.csv")
    >>> header, list(rows)
    (['a', 'b'], [(2, {'a': '1', 'b': '2'})])
    """
    rows = csv_rows(text, path)
    header = next((row for _, row in rows if row), [])

    def records() -> Iterator[tuple[int, dict[str, str]]]:
        for line, row in rows:
            if row:
                yield line, {name: (row[i] if i < len(row) else "") for i, name in enumerate(header)}

    return header, records()
