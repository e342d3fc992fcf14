"""Reading a user's text file (:func:`read_text`, so that every bad input is reported the same
way) and writing any file (:func:`write_atomic`)."""

from __future__ import annotations

import contextlib
import glob
import json
import os
import re
import stat
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from muceval.errors import InputError, OutputError, UsageError

# Largest input muceval reads: the MUC-4 distribution's largest file is 2 MB.
MAX_INPUT_BYTES = 1 << 30

_BOM = b"\xef\xbb\xbf"
_CHUNK = 1 << 20
# A well-formed UTF-8 multi-byte sequence: 8-bit text that has one is UTF-8 text
# (Latin-1 text practically never contains one).
_UTF8_MULTIBYTE = re.compile(
    rb"[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}"
    rb"|\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}"
    rb"|\xf4[\x80-\x8f][\x80-\xbf]{2}")
_NUL_MESSAGE = "binary data (NUL byte): not a text file"


def decode_text(data: bytes, path: str, *, utf8_only: bool = False) -> str:
    """Decode a file's bytes: the one decoder of every text muceval reads.

    A UTF-8 byte-order mark is skipped. UTF-8 text is read as UTF-8, 8-bit text with no UTF-8
    in it as Latin-1 (the 1992 files); a mix of the two is refused at its first non-UTF-8
    byte, and so is any such byte with ``utf8_only`` (TOML), and a NUL byte (binary data).

    >>> decode_text(b"caf\\xe9", "x.txt")
    'café'
    >>> decode_text(b"\\xef\\xbb\\xbf0.  MESSAGE: ID", "bom.txt")
    '0.  MESSAGE: ID'
    >>> decode_text(b"a\\nb\\x00", "x.bin")
    Traceback (most recent call last):
    ...
    muceval.errors.InputError: x.bin:2:2: binary data (NUL byte): not a text file
    >>> decode_text("café\\nna\\xefve".encode("utf-8").replace(b"\\xc3\\xaf", b"\\xef"), "m.txt")
    Traceback (most recent call last):
    ...
    muceval.errors.InputError: m.txt:2:3: mixed encodings: byte 0xEF is not UTF-8, but the file \
has UTF-8 text elsewhere (line 1); save the whole file in one encoding
    """
    if data.startswith(_BOM):
        data = data[len(_BOM):]
    nul = data.find(b"\x00")
    if nul >= 0:
        line, column = _line_and_column(data, nul)
        raise InputError.at(path, line, _NUL_MESSAGE, column)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as bad:
        line, column = _line_and_column(data, bad.start)
        if utf8_only:
            raise InputError.at(path, line, "not UTF-8 text: invalid byte", column) from None
        utf8 = _UTF8_MULTIBYTE.search(data)
        if utf8 is not None:
            raise InputError.at(
                path, line,
                f"mixed encodings: byte 0x{data[bad.start]:02X} is not UTF-8, but the file has "
                f"UTF-8 text elsewhere (line {_line_and_column(data, utf8.start())[0]}); save "
                "the whole file in one encoding", column) from None
        return data.decode("latin-1")


def text_encoding(data: bytes) -> tuple[str, bool]:
    """How :func:`decode_text` reads these bytes: ``("utf-8" or "latin-1", has a UTF-8 BOM)``,
    so that a file muceval rewrites (a history) keeps its encoding, byte for byte.

    >>> text_encoding(b"caf\\xe9"), text_encoding(b"\\xef\\xbb\\xbfabc")
    (('latin-1', False), ('utf-8', True))
    """
    bom = data.startswith(_BOM)
    body = data[len(_BOM):] if bom else data
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return "latin-1", bom
    return "utf-8", bom


def read_bytes(path: str | Path) -> bytes:
    """The bytes of the regular file at ``path``, read only as far as they can be text.

    Devices and FIFOs are refused at once (reading ``/dev/zero`` would never end); reading
    stops at the first NUL byte, so a huge binary file is refused without being read whole.

    >>> read_bytes("/dev/zero")
    Traceback (most recent call last):
    ...
    muceval.errors.InputError: /dev/zero: not a regular file (a character device): muceval reads files only
    """
    name = str(path)
    try:
        info = os.stat(path)
    except OSError as error:
        raise InputError.at(name, None, f"cannot read file: {error.strerror or error}") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError.at(name, None, "is a folder, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise InputError.at(name, None, f"not a regular file ({_kind(info.st_mode)}): muceval "
                            "reads files only")
    _refuse_unfinished(Path(path))
    if info.st_size > MAX_INPUT_BYTES:
        raise InputError.at(name, None, f"too large: {info.st_size:,} bytes (muceval reads files "
                            f"of up to {MAX_INPUT_BYTES:,} bytes)")
    chunks: list[bytes] = []
    size = 0
    try:
        with open(path, "rb") as handle:
            while chunk := handle.read(_CHUNK):
                nul = chunk.find(b"\x00")
                if nul >= 0:
                    data = b"".join([*chunks, chunk[:nul]])
                    line, column = _line_and_column(data, len(data))
                    raise InputError.at(name, line, _NUL_MESSAGE, column)
                size += len(chunk)
                if size > MAX_INPUT_BYTES:
                    raise InputError.at(name, None, f"too large: over {MAX_INPUT_BYTES:,} bytes")
                chunks.append(chunk)
    except OSError as error:
        raise InputError.at(name, None, f"cannot read file: {error.strerror or error}") from None
    return b"".join(chunks)


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"))


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a file")


def read_text(path: str | Path, *, utf8_only: bool = False) -> str:
    """The text of the file at ``path`` (see :func:`read_bytes` and :func:`decode_text`).

    >>> read_text("/no/such/file")
    Traceback (most recent call last):
    ...
    muceval.errors.InputError: /no/such/file: cannot read file: No such file or directory
    """
    return decode_text(read_bytes(path), str(path), utf8_only=utf8_only)


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def first_line(text: str) -> str:
    """The first line of ``text`` (as :meth:`str.splitlines` splits) that is not blank, or
    ``''``; the sniffers' question, answered from the start of a file of any size.

    >>> first_line("\\n  \\nConfiguration: x\\nmore")
    'Configuration: x'
    """
    size = 4096
    while True:
        lines = text[:size].splitlines()
        found = next((k for k, line in enumerate(lines) if line.strip()), None)
        # The prefix's last line may be cut short: it counts only if the prefix is the text.
        if size >= len(text):
            return "" if found is None else lines[found]
        if found is not None and found < len(lines) - 1:
            return lines[found]
        size *= 4


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return found


def json_lines(text: str, path: str) -> Iterator[tuple[int, Any]]:
    """The line number and the decoded value of each line of a JSON-lines text that is not
    blank (:func:`parse_json`: an error names the file and the line).

    >>> list(json_lines('{"a": 1}\\n\\n[2]\\n', "x.jsonl"))
    [(1, {'a': 1}), (3, [2])]
    """
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            yield number, parse_json(line, path, number)


_SURROGATE = re.compile("[\ud800-\udfff]")


def json_text(value: Any, **options: Any) -> str:
    r"""``value`` as JSON text with its non-ASCII characters as they are, unless a string holds
    a lone surrogate (which no UTF-8 file can hold): then every character is escaped.

    >>> json_text({"a": "é"}), json_text({"a": chr(0xD800)})
    ('{"a": "é"}', '{"a": "\\ud800"}')
    """
    text = json.dumps(value, ensure_ascii=False, **options)
    return text if not _SURROGATE.search(text) else json.dumps(value, **options)


def check_format_version(doc: Mapping[str, Any], version: int, format: str, path: str,
                         advice: str = "") -> None:
    """Refuse a document of muceval's own ``format`` in another ``format_version`` than
    this muceval reads (a flag or a float is no version).

    >>> check_format_version({"format_version": 2}, 2, "muceval-scores", "s.json")
    >>> check_format_version({"format_version": True}, 1, "muceval-x", "x.json")
    Traceback (most recent call last):
    ...
    muceval.errors.InputError: x.json: format_version True: this muceval reads version 1 of muceval-x
    """
    found = doc.get("format_version")
    if type(found) is not int or found != version:
        raise InputError.at(path, None, f"format_version {found!r}: this muceval reads version "
                            f"{version} of {format}{advice}")


def check_choice(value: str, choices: Sequence[str], parameter: str) -> None:
    """A :class:`~muceval.errors.UsageError` naming ``parameter`` unless ``value`` is a choice."""
    if value not in choices:
        raise UsageError(f"unknown {parameter} {value!r}; choose from {', '.join(choices)}",
                         parameter=parameter)


def parse_json(text: str, path: str, line: int | None = None) -> Any:
    """Decoded JSON; invalid JSON, or an object that gives one key twice (Python would keep
    the last silently: a document scored once, not twice), is an :class:`InputError`.
    ``line``: where a one-line document of a JSON-lines file starts.

    >>> parse_json('{"a": 1}', "x.json")
    {'a': 1}
    >>> parse_json('{"a": 1,\\n "a": 2}', "x.json")
    Traceback (most recent call last):
    ...
    muceval.errors.InputError: x.json:2: key "a" given twice in one object
    """
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as bad:
        raise InputError.at(path, line or bad.lineno, f"not valid JSON: {bad.msg}",
                            bad.colno) from None
    except RecursionError:
        raise InputError.at(path, line, "JSON nested too deeply") from None
    except _DuplicateKey as duplicate:
        # The decoder gives no position: the key's second place in the text, where it is
        # the key of a member, is where it is given again.
        quoted = json.dumps(duplicate.key)
        places = [m.start() for m in re.finditer(re.escape(quoted) + r"\s*:", text)]
        where = line or (text.count("\n", 0, places[1]) + 1 if len(places) > 1 else None)
        raise InputError.at(path, where, f"key {quoted} given twice in one object") from None


def _line_and_column(data: bytes, offset: int) -> tuple[int, int]:
    line_start = data.rfind(b"\n", 0, offset) + 1
    return data.count(b"\n", 0, offset) + 1, offset - line_start + 1


def write_atomic(
    path: str | Path,
    data: str | bytes | Iterable[str],
    *,
    encoding: str = "utf-8",
    errors: str = "backslashreplace",
    overwrite: bool = True,
) -> Path:
    """Write ``data`` to ``path`` so that it holds either its old content or all of the new.

    ``data`` may be an iterable of text pieces, written as they come (a table too large to
    hold in memory). A temporary file beside ``path`` is flushed and renamed over it, the
    directory flushed too (the rename survives a crash); a symbolic link is written through and
    the mode kept. A character the encoding cannot hold (from a file name that is not UTF-8)
    is written as its ``\\udcff`` escape, which a JSON string reads back as the same character.

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
    pieces: Iterable[bytes] = (
        (data.encode(encoding, errors),) if isinstance(data, str)
        else (data,) if isinstance(data, bytes)
        else (piece.encode(encoding, errors) for piece in data))
    try:
        info = os.stat(target)
        mode = stat.S_IMODE(info.st_mode)
        exists = True
    except FileNotFoundError:
        mode, exists = 0o666 & ~_umask(), False
    except OSError as error:
        raise OutputError(f"cannot write {shown}: {error.strerror or error}") from None
    if exists and not stat.S_ISREG(info.st_mode):
        # A rename would put a regular file where a folder, a device (/dev/null) or a FIFO was.
        raise OutputError(f"{shown} is not a regular file ({_kind(info.st_mode)}): muceval "
                          "writes only files and does not replace it")
    if exists and not overwrite:
        raise OutputError(f"{shown} exists; use --force to overwrite it")
    if exists and not mode & 0o222:
        # Replacing through a rename would work (even for root); a file that nobody
        # may write says "keep me".
        raise OutputError(f"{shown} is read-only: muceval does not replace it")
    _remove_stale_temporary_files(target)
    made: list[str] = []  # the temporary file, until it is the target
    try:
        fd = _open_temporary(target, made)
        with os.fdopen(fd, "wb") as handle:
            for payload in pieces:
                handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(made[0], mode)
        os.replace(made[0], target)
        made.clear()
    except OSError as error:
        raise OutputError(f"cannot write {shown}: {error.strerror or error}") from None
    finally:
        for name in made:
            with contextlib.suppress(OSError):
                os.unlink(name)
    _fsync_directory(target.parent)
    return target


def _open_temporary(target: Path, made: list[str]) -> int:
    """A new file beside ``target``, its name put in ``made`` before the file exists (unlike
    mkstemp), so that a signal between the two still leaves the caller a name to remove."""
    import secrets  # here: its hashlib costs every command's start 5 ms, and most write nothing

    for _ in range(100):
        name = str(target.parent / f".{target.name[:200]}.{secrets.token_hex(8)}.tmp")
        made.append(name)
        try:
            return os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another write's: never ours to remove
            made.pop()
    raise OSError("no free temporary name beside the target")


def refuse_replacing_inputs(output: str | Path | None, inputs: Mapping[Any, str]) -> None:
    """Refuse an output that is one of the inputs, links included; ``inputs`` maps each input
    to what it is, for the message.

    >>> refuse_replacing_inputs(__file__, {__file__: "key"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    muceval.errors.OutputError: ...files.py is the key this command reads: writing there would \
destroy it; choose another output
    """
    if output is None or not os.path.exists(output):
        return
    for path, role in inputs.items():
        if path is not None and os.path.exists(path) and os.path.samefile(output, path):
            raise OutputError(f"{output} is the {role} this command reads: writing there "
                              "would destroy it; choose another output")


MANIFEST = ".muceval-manifest.json"
MANIFEST_FORMAT = "muceval-folder"


def write_files(
    files: Mapping[Path, str | bytes] | Mapping[str, str | bytes],
    *,
    overwrite: bool = False,
    keep: Mapping[Any, str] | None = None,
    folder: str | Path | None = None,
    last: str | Path | None = None,
) -> list[Path]:
    """Write several files as one act: every target is checked before the first is written.

    A target that is one of ``keep`` (as in :func:`refuse_replacing_inputs`) is always refused,
    an existing file unless ``overwrite``. With ``folder``, the folder is all of one run or
    visibly not: its :data:`MANIFEST` says ``"writing"`` (listing the files of both runs) until
    the files only the earlier run wrote are removed (not one of ``keep``), which
    :func:`read_bytes` refuses; ``last``
    (the page a person opens) is written after the others.

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> [p.name for p in write_files({os.path.join(folder, "a.txt"): "A"})]
    ['a.txt']
    >>> write_files({os.path.join(folder, "a.txt"): "B"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    muceval.errors.OutputError: 1 output file(s) exist in ... (e.g. a.txt); use --force to replace them
    """
    targets = [Path(path) for path in files]
    for target in targets:
        refuse_replacing_inputs(target, keep or {})
    existing = [target for target in targets if os.path.lexists(target)]
    if existing and not overwrite:
        raise OutputError(f"{len(existing)} output file(s) exist in {existing[0].parent} (e.g. "
                          f"{existing[0].name}); use --force to replace them")
    for parent in dict.fromkeys(target.parent for target in targets):
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise OutputError(f"cannot create {parent}: {error.strerror or error}") from None
    data = dict(zip(targets, files.values(), strict=True))
    if folder is None:
        for target, text in data.items():
            write_atomic(target, text)
    else:
        _write_folder(Path(folder), data, None if last is None else Path(last), keep or {})
    return targets


def _write_folder(folder: Path, data: dict[Path, str | bytes], last: Path | None,
                  keep: Mapping[Any, str]) -> None:
    root = folder.resolve()
    names = {str(target.resolve().relative_to(root)): target for target in data}
    earlier = [name for name in folder_manifest(folder).get("files", ())
               if isinstance(name, str) and name not in names]
    _write_manifest(folder, "writing", sorted({*earlier, *names}))
    for target in sorted(data, key=lambda target: target == last):
        write_atomic(target, data[target])
    for name in earlier:
        stale = root / name
        # An earlier run's file this run reads (a report of the scores the last one wrote)
        # stays: it is the user's input now.
        if stale.is_file() and root in stale.resolve().parents and not _is_input(stale, keep):
            with contextlib.suppress(OSError):
                stale.unlink()
                with contextlib.suppress(OSError):
                    stale.parent.rmdir()  # a folder of figures left empty
    _write_manifest(folder, "complete", sorted(names))


def _is_input(path: Path, inputs: Mapping[Any, str]) -> bool:
    try:
        refuse_replacing_inputs(path, inputs)
    except OutputError:
        return True
    return False


def _write_manifest(folder: Path, state: str, names: list[str]) -> None:
    write_atomic(folder / MANIFEST, json.dumps(
        {"format": MANIFEST_FORMAT, "format_version": 1, "state": state, "files": names},
        indent=1) + "\n")


def folder_manifest(folder: str | Path) -> dict[str, Any]:
    """The manifest of a folder output (empty if it has none or it cannot be read)."""
    path = Path(folder) / MANIFEST
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) and found.get("format") == MANIFEST_FORMAT else {}


def _refuse_unfinished(path: Path) -> None:
    """A file of a folder output whose run did not finish is refused: it may be of either run."""
    if not (path.parent / MANIFEST).exists():
        return
    manifest = folder_manifest(path.parent)
    if manifest.get("state") == "writing" and path.name in manifest.get("files", ()):
        raise InputError.at(str(path), None, "written by a run that did not finish (its folder's "
                            f"{MANIFEST} says 'writing'): the files there may be of two runs; "
                            "run the command again")


STALE_SECONDS = 600  # a temporary file untouched this long was left by a killed run


def _remove_stale_temporary_files(target: Path) -> None:
    """Remove the temporary files of ``target`` that a SIGKILL left behind."""
    now = time.time()
    for stale in target.parent.glob(f".{glob.escape(target.name[:200])}.*.tmp"):
        with contextlib.suppress(OSError):
            if now - stale.stat().st_mtime > STALE_SECONDS:
                stale.unlink()


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
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def system_name(path: str | os.PathLike[str]) -> str:
    """The name of the system whose file is at ``path``: the file name without its last suffix
    (so ``mysys.v1.report`` and ``mysys.v2.report`` stay two systems).

    >>> system_name("responses/BBN.tst3"), system_name("/x/GE-CMU.tst3-pass1.nrad")
    ('BBN', 'GE-CMU.tst3-pass1')
    """
    return Path(path).stem


def system_names(paths: Sequence[str], names: Mapping[str, str] | None = None) -> list[str]:
    """The system of each file: its name in ``names``, else :func:`system_name`; two files of
    one name are refused (every table and test would mix two systems under it).

    >>> system_names(["a/BBN.tst3", "b/BBN.tst4"], {"b/BBN.tst4": "BBN-4"})
    ['BBN', 'BBN-4']
    """
    out = [(names or {}).get(p) or system_name(p) for p in paths]
    if len(set(out)) != len(out):
        repeated = sorted({n for n in out if out.count(n) > 1})[0]
        files = [p for p, n in zip(paths, out, strict=True) if n == repeated]
        raise UsageError(f"two files give the system name {repeated!r} ({', '.join(files)}):"
                         " rename one (--name FILE=NAME)")
    return out
