"""Reading a user's text file and writing any file: one decoder, one atomic writer.

Every reader of whole files (reports, CSV tallies, JSON scores, configurations,
``validate``) goes through :func:`read_text`, so that a missing file, a
directory, binary data or an undecodable byte is reported the same way:
file, line, and what is wrong.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

from muceval.errors import InputError, OutputError


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


def write_atomic(
    path: str | Path,
    data: str | bytes,
    *,
    encoding: str = "utf-8",
    errors: str = "strict",
    overwrite: bool = True,
) -> Path:
    """Write ``data`` to ``path`` so that it holds either its old content or all of the new.

    The one writer of every file muceval writes. The data goes to a temporary
    file in the same directory, is flushed to disk and renamed over ``path``;
    the directory is flushed too, so the rename survives a crash. A symbolic
    link is written through (its target is replaced; the link stays). The new
    file gets the mode of the file it replaces, or what an ordinary new file
    gets (0666 less the umask). On any failure the temporary file is removed
    and :class:`OutputError` says what went wrong; ``overwrite=False`` refuses
    an existing file.

    >>> import os, tempfile
    >>> target = os.path.join(tempfile.mkdtemp(), "out.txt")
    >>> _ = write_atomic(target, "hello\\n")
    >>> open(target).read()
    'hello\\n'
    >>> write_atomic(target, "again", overwrite=False)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    muceval.errors.OutputError: ...out.txt exists; use --force to overwrite it
    """
    target = Path(os.path.realpath(path))
    shown = str(path)
    payload = data.encode(encoding, errors) if isinstance(data, str) else data
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
        exists = True
    except FileNotFoundError:
        mode, exists = 0o666 & ~_umask(), False
    except OSError as error:
        raise OutputError(f"cannot write {shown}: {error.strerror or error}") from None
    if exists and not overwrite:
        raise OutputError(f"{shown} exists; use --force to overwrite it")
    if exists and not mode & 0o222:
        # Replacing through a rename would work (even for root); a file that nobody
        # may write says "keep me".
        raise OutputError(f"{shown} is read-only: muceval does not replace it")
    temp_name: str | None = None
    try:
        fd, temp_name = tempfile.mkstemp(
            prefix=f".{target.name[:200]}.", suffix=".tmp", dir=target.parent)
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp_name, mode)
        os.replace(temp_name, target)
        temp_name = None
    except OSError as error:
        raise OutputError(f"cannot write {shown}: {error.strerror or error}") from None
    finally:
        if temp_name is not None:
            with contextlib.suppress(OSError):
                os.unlink(temp_name)
    _fsync_directory(target.parent)
    return target


def _umask() -> int:
    # os.umask can only be read by setting it; set it straight back.
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _fsync_directory(directory: Path) -> None:
    # Makes the rename itself durable; not possible on every platform.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def system_name(path: str | os.PathLike[str]) -> str:
    """The name of the system whose output is at ``path``: the file name without its last suffix.

    >>> system_name("runs/mysys.v2.report")
    'mysys.v2'
    >>> system_name("BBN")
    'BBN'
    """
    name = Path(path).name
    stem, dot, _ = name.rpartition(".")
    return stem if dot and stem else name
