"""Reading a user's text file, with one clear error for everything that can go wrong.

Every reader of whole files (reports, CSV tallies, JSON scores, configurations,
``validate``) goes through :func:`read_text`, so that a missing file, a
directory, binary data or an undecodable byte is reported the same way:
file, line, and what is wrong.
"""

from __future__ import annotations

from pathlib import Path

from muceval.errors import InputError


def decode_text(data: bytes, path: str, *, utf8_only: bool = False) -> str:
    """Decode a file's bytes: UTF-8, else Latin-1 (the 1992 files are 8-bit text).

    ``utf8_only`` refuses non-UTF-8 bytes instead (TOML files must be UTF-8).
    Binary data (a NUL byte) is an :class:`InputError` naming its line.

    >>> decode_text(b"caf\\xe9", "x.txt")
    'café'
    >>> decode_text(b"a\\nb\\x00", "x.bin")
    Traceback (most recent call last):
    ...
    muceval.errors.InputError: x.bin:2:2: binary data (NUL byte): not a text file
    """
    nul = data.find(b"\x00")
    if nul >= 0:
        line, column = _line_and_column(data, nul)
        raise InputError.at(path, line, "binary data (NUL byte): not a text file", column)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as bad:
        if utf8_only:
            line, column = _line_and_column(data, bad.start)
            raise InputError.at(path, line, "not UTF-8 text: invalid byte", column) from None
        return data.decode("latin-1")


def read_text(path: str | Path, *, utf8_only: bool = False) -> str:
    """The text of the file at ``path`` (see :func:`decode_text`).

    >>> read_text("/no/such/file")
    Traceback (most recent call last):
    ...
    muceval.errors.InputError: /no/such/file: cannot read file: No such file or directory
    """
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise InputError.at(str(path), None, f"cannot read file: {error.strerror or error}") from None
    return decode_text(data, str(path), utf8_only=utf8_only)


def _line_and_column(data: bytes, offset: int) -> tuple[int, int]:
    line_start = data.rfind(b"\n", 0, offset) + 1
    return data.count(b"\n", 0, offset) + 1, offset - line_start + 1
