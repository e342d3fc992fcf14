"""The error categories per document of ``muceval errors --format json`` files (format
``muceval-error-analysis``), read back for ``muceval significance --errors``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from muceval.core.error_counts import ErrorCounts
from muceval.errors import InputError, UsageError
from muceval.formats.files import parse_json, read_text

__all__ = ["ERRORS_FORMAT", "looks_like_error_analysis", "parse_error_counts",
           "read_error_counts"]

ERRORS_FORMAT = "muceval-error-analysis"


def looks_like_error_analysis(text: str) -> bool:
    """Whether ``text`` is the JSON of ``muceval errors`` (its format field comes first)."""
    return f'"{ERRORS_FORMAT}"' in text[:200]


def parse_error_counts(text: str, path: str) -> ErrorCounts:
    """The counts of every system of one file.

    Raises
    ------
    InputError
        If the file is not such a JSON, or a count is missing or not a whole number.
    """
    doc = parse_json(text, path)
    if not isinstance(doc, dict) or doc.get("format") != ERRORS_FORMAT:
        raise InputError.at(path, None, f"not an error analysis (format {ERRORS_FORMAT}: "
                            "muceval errors --format json)")
    categories = doc.get("categories")
    systems = doc.get("systems")
    if not (isinstance(categories, list) and all(isinstance(c, str) for c in categories)
            and isinstance(systems, list) and systems):
        raise InputError.at(path, None, "no categories or no systems in this error analysis")
    counts: dict[str, dict[str, list[int]]] = {}
    for system in systems:
        name = system.get("system") if isinstance(system, dict) else None
        if not isinstance(name, str) or name in counts:
            raise InputError.at(path, None, f"a system without a name, or given twice: {name!r}")
        counts[name] = _documents(system.get("documents"), categories, path, name)
    settings = doc.get("settings") if isinstance(doc.get("settings"), dict) else {}
    return ErrorCounts.of_documents(categories, counts, settings)


def _documents(value: Any, categories: Sequence[str], path: str,
               name: str) -> dict[str, list[int]]:
    """Each document's counts of one system (a document given twice is refused: its counts
    would otherwise be taken once, silently)."""
    if not isinstance(value, list):
        raise InputError.at(path, None, f"system {name!r}: no list of documents")
    out: dict[str, list[int]] = {}
    for document in value:
        docid = document.get("docid") if isinstance(document, dict) else None
        if not isinstance(docid, str) or docid in out:
            raise InputError.at(path, None, f"system {name!r}: a document without a docid, or "
                                f"given twice: {docid!r}")
        out[docid] = _document(document, categories, path, name)
    return out


def _document(document: Mapping[str, Any], categories: Sequence[str], path: str,
              name: str) -> list[int]:
    found: Any = document
    for key in ("before", "rows", "total", "categories"):
        found = found.get(key) if isinstance(found, dict) else None
    if not isinstance(found, dict):
        raise InputError.at(path, None, f"system {name!r}, document {document['docid']!r}: "
                            "no total row with its categories")
    values = [found.get(c) for c in categories]
    counts = [v for v in values if isinstance(v, int) and not isinstance(v, bool) and v >= 0]
    if len(counts) != len(values):
        raise InputError.at(path, None, f"system {name!r}, document {document['docid']!r}: "
                            "a category count that is not a whole number ≥ 0")
    return counts


def read_error_counts(paths: Sequence[str | Path],
                      names: Mapping[str, str] | None = None) -> ErrorCounts:
    """The counts of every system in the files, together. ``names`` renames the systems of a
    one-system file (path → name).

    Raises
    ------
    InputError
        If a file is unreadable or not an error analysis.
    UsageError
        If the files disagree on the key, the categories or how the analysis ran, or two
        systems have one name.
    """
    parts = [(str(p), parse_error_counts(read_text(p), str(p))) for p in paths]
    first_path, first = parts[0]
    systems: dict[str, dict[str, list[int]]] = {}
    for path, part in parts:
        if part.categories != first.categories or _basis(part) != _basis(first):
            raise UsageError(f"{path} and {first_path} are not analyses of one test set the "
                             "same way (key, categories, mode or types differ)")
        renamed = (names or {}).get(path) if len(part.systems) == 1 else None
        for name in part.systems:
            shown = renamed or name
            if shown in systems:
                raise UsageError(f"two systems are called {shown!r} ({path}): rename one "
                                 "with --name FILE=NAME")
            systems[shown] = {d: part.counts[name][i].tolist()
                              for i, d in enumerate(part.documents)}
    settings = {k: v for k, v in first.settings.items() if k not in ("predictions", "names")}
    return ErrorCounts.of_documents(first.categories, systems,
                                    {**settings, "inputs": [str(p) for p in paths]})


def _basis(counts: ErrorCounts) -> tuple[Any, ...]:
    s = counts.settings
    return tuple(s.get(k) for k in ("key", "mode", "types", "after_repair", "canonical_order",
                                     "layout", "configuration", "history", "query_pass"))
