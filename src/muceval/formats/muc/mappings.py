"""Manual mapping files (which key template goes with which response template): plain
``MESSAGE-ID KEY-ID RESPONSE-ID`` lines, or a 1992 score report, whose block headers record
the pairings an operator made (the official MUC-4 scores used such hand-made mappings)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from muceval.errors import InputError, Problem
from muceval.formats.files import read_text
from muceval.formats.muc.reports import parse_report

__all__ = ["format_mapping_file", "mappings_from_report", "parse_mapping_file",
           "read_mapping_file", "sidecar_mapping_path"]


def _template_ref(token: str) -> str | None:
    return None if token in ("-", "<NONE>", "NONE", "nil") else token


def parse_mapping_file(
    text: str, path: str = "<string>"
) -> dict[str, list[tuple[str | None, str | None]]]:
    """Read a simple mapping file: one ``MESSAGE-ID KEY-ID RESPONSE-ID`` line per pair, in
    order (a pair may repeat); ``-`` (or ``<NONE>``) is no template, ``#`` starts a comment.

    >>> parse_mapping_file("# msg key resp\\nTST3-MUC4-0001 1 2\\nTST3-MUC4-0001 - 1\\n")
    {'TST3-MUC4-0001': [('1', '2'), (None, '1')]}
    """
    out: dict[str, list[tuple[str | None, str | None]]] = {}
    problems = []
    for number, line in enumerate(text.splitlines(), start=1):
        content = line.split("#", 1)[0].strip()
        if not content:
            continue
        fields = content.split()
        if len(fields) != 3:
            problems.append(
                Problem(path, number, f"expected 'MESSAGE-ID KEY-ID RESPONSE-ID', got {content!r}")
            )
            continue
        key_id, response_id = map(_template_ref, fields[1:])
        if key_id is None and response_id is None:
            problems.append(Problem(path, number, "a pair needs a key or a response template"))
            continue
        out.setdefault(fields[0], []).append((key_id, response_id))
    if problems:
        raise InputError(problems)
    return out


def mappings_from_report(blocks: Iterable[Any]) -> dict[str, list[tuple[str | None, str | None]]]:
    """The ordered (key, response) pairs of the sections of a 1992 report, duplicates kept:
    :class:`~muceval.formats.muc.reports.ReportBlock` values, or anything with their
    ``message_id``, ``key_id`` and ``response_id``."""
    out: dict[str, list[tuple[str | None, str | None]]] = {}
    for block in blocks:
        out.setdefault(block.message_id, []).append((block.key_id, block.response_id))
    return out


def read_mapping_file(path: str | Path) -> dict[str, list[tuple[str | None, str | None]]]:
    """Manual mappings from a mapping file or from a 1992 score report (detected by content)."""
    text = read_text(path)
    if "response:" in text and "key:" in text:
        return mappings_from_report(parse_report(text, str(path)).blocks)
    return parse_mapping_file(text, str(path))


def format_mapping_file(mappings: Mapping[str, Sequence[tuple[str | None, str | None]]],
                        comment: str = "") -> str:
    """A mapping file that :func:`parse_mapping_file` reads back as ``mappings``.

    >>> text = format_mapping_file({"M-1": [("1", "2"), (None, "1")]}, "by hand")
    >>> print(text, end="")
    # by hand
    # MESSAGE-ID KEY-ID RESPONSE-ID ('-': no template)
    M-1 1 2
    M-1 - 1
    >>> parse_mapping_file(text)
    {'M-1': [('1', '2'), (None, '1')]}
    """
    lines = [f"# {line}" for line in comment.splitlines()]
    lines.append("# MESSAGE-ID KEY-ID RESPONSE-ID ('-': no template)")
    lines.extend(f"{message_id} {key_id or '-'} {response_id or '-'}"
                 for message_id in sorted(mappings) for key_id, response_id in mappings[message_id])
    return "\n".join(lines) + "\n"


def sidecar_mapping_path(history_path: str | Path, system: str) -> Path:
    """Where ``muceval adjudicate`` keeps a system's manual mappings: next to the history,
    in ``<history>.mappings/<system>.map`` (``score`` with that history uses them)."""
    history = Path(history_path)
    return history.with_name(history.name + ".mappings") / f"{system}.map"
