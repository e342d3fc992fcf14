"""Message texts in the layout of the MUC-3/MUC-4 corpora: a line holding only a message id
(``TST3-MUC4-0001``, perhaps followed by a source in parentheses), then the text of that
message up to the next such line. The adjudication page shows them beside the templates.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from muceval.errors import InputError, Problem
from muceval.formats.files import read_text

__all__ = ["parse_texts", "read_texts"]

_ID = re.compile(r"^([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)?-\d{4})(?:[ \t]+\([^)\n]*\))?[ \t]*$", re.MULTILINE)


def parse_texts(text: str, path: str = "<string>") -> dict[str, str]:
    """The messages of one text file, by id (a text without its id line, trailing blanks cut).

    >>> parse_texts("DEMO-0001\\n\\n   A BOMB.\\n\\nDEMO-0002\\n\\n   RAIN.\\n")
    {'DEMO-0001': '   A BOMB.', 'DEMO-0002': '   RAIN.'}
    """
    marks = list(_ID.finditer(text))
    out: dict[str, str] = {}
    problems = []
    for n, mark in enumerate(marks):
        end = marks[n + 1].start() if n + 1 < len(marks) else len(text)
        message_id = mark.group(1)
        if message_id in out:
            line = text.count("\n", 0, mark.start()) + 1
            problems.append(Problem(path, line, f"message {message_id} appears twice"))
            continue
        out[message_id] = text[mark.end():end].strip("\n").rstrip()
    if problems:
        raise InputError(problems)
    return out


def read_texts(path: str | Path) -> Mapping[str, str]:
    """The message texts of a file, or of every text file in a folder, by message id."""
    root = Path(path)
    if not root.exists():
        raise InputError.at(str(path), None, "no such file or folder of message texts")
    if root.is_file():
        found = parse_texts(read_text(root), str(root))
        if not found:
            raise InputError.at(str(root), None, "no message texts here (each text starts "
                                "with a line holding only its id, e.g. TST3-MUC4-0001)")
        return found
    out: dict[str, str] = {}
    for file in sorted(p for p in root.rglob("*") if p.is_file()):
        if file.name.lower().startswith(("key-", "readme", ".")):
            continue
        try:
            texts = parse_texts(read_text(file), str(file))
        except InputError:
            continue  # not a text file (binary, another encoding): nothing to show from it
        for message_id, body in texts.items():
            out.setdefault(message_id, body)
    if not out:
        raise InputError.at(str(root), None, "no message texts in this folder")
    return out
