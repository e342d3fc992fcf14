"""The error categories per document of ``muceval errors --format json`` files (format
``muceval-error-analysis``), read back for ``muceval significance --errors``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from muceval.core.error_counts import ErrorCounts
from muceval.core.units import MAX_COUNT, unshared_document
from muceval.errors import InputError, UsageError
from muceval.formats.files import check_format_version, parse_json, read_text

__all__ = ["ERRORS_FORMAT", "FORMAT_VERSION", "looks_like_error_analysis", "parse_error_counts",
           "read_error_counts"]

ERRORS_FORMAT = "muceval-error-analysis"
FORMAT_VERSION = 1


def looks_like_error_analysis(text: str) -> bool:
    """Whether ``text`` is the JSON of ``muceval errors`` (its format field comes first)."""
    return f'"{ERRORS_FORMAT}"' in text[:200]


def parse_error_counts(text: str, path: str) -> ErrorCounts:
    """The counts of every system of one file, analysed on the same documents."""
    categories, counts, settings = _raw_counts(text, path)
    try:
        same = _same_documents(counts, "same")
    except UsageError as error:
        raise InputError.at(path, None, error.message) from None
    return ErrorCounts.of_documents(categories, same, settings)


def _raw_counts(text: str, path: str) -> tuple[list[str], dict[str, dict[str, list[int]]],
                                                 dict[str, Any]]:
    """The categories, each system's counts by document, and the settings of one file."""
    doc = parse_json(text, path)
    if not isinstance(doc, dict) or doc.get("format") != ERRORS_FORMAT:
        raise InputError.at(path, None, f"not an error analysis (format {ERRORS_FORMAT}: "
                            "muceval errors --format json)")
    check_format_version(doc, FORMAT_VERSION, ERRORS_FORMAT, path)
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
        _check_totals(system, counts[name], categories, path, name)
    settings = doc.get("settings")
    return categories, counts, dict(settings) if isinstance(settings, dict) else {}


def _documents(value: Any, categories: Sequence[str], path: str,
               name: str) -> dict[str, list[int]]:
    """Each document's counts of one system (a document given twice would count once)."""
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
    counts = [v for v in values if isinstance(v, int) and not isinstance(v, bool)
              and 0 <= v <= MAX_COUNT]
    if len(counts) != len(values):
        raise InputError.at(path, None, f"system {name!r}, document {document['docid']!r}: "
                            f"a category count that is not a whole number from 0 to "
                            f"{MAX_COUNT:,}")
    return counts


def _check_totals(system: Mapping[str, Any], documents: Mapping[str, list[int]],
                  categories: Sequence[str], path: str, name: str) -> None:
    """Refuse counts that do not add up to the stated totals: a document edited by hand."""
    stated: Any = system
    for key in ("before", "rows", "total", "categories"):
        stated = stated.get(key) if isinstance(stated, dict) else None
    if not isinstance(stated, dict):
        raise InputError.at(path, None, f"system {name!r}: no total row with its categories")
    for i, category in enumerate(categories):
        summed = sum(counts[i] for counts in documents.values())
        if stated.get(category) != summed:
            raise InputError.at(path, None, f"system {name!r}: its documents' {category} add "
                                f"up to {summed}, its totals say {stated.get(category)!r} (a "
                                "document removed, added or changed?)")


def read_error_counts(paths: Sequence[str | Path], names: Mapping[str, str] | None = None,
                      units: str = "same") -> ErrorCounts:
    """The counts of every system in the files, together; ``names`` renames the system of a
    one-system file; documents that differ are refused, or with ``'intersection'`` dropped."""
    if units not in ("same", "intersection"):
        raise UsageError(f"{units!r}: choose 'same' or 'intersection'", parameter="units")
    parts = [(str(p), *_raw_counts(read_text(p), str(p))) for p in paths]
    first_path, first_categories, _, first_settings = parts[0]
    systems: dict[str, dict[str, list[int]]] = {}
    for path, categories, counts, settings in parts:
        if categories != first_categories or _basis(settings) != _basis(first_settings):
            raise UsageError(f"{path} and {first_path} are not analyses of one test set the "
                             "same way (key, categories, mode or types differ)")
        renamed = (names or {}).get(path) if len(counts) == 1 else None
        for name, documents in counts.items():
            shown = renamed or name
            if shown in systems:
                raise UsageError(f"two systems are called {shown!r} ({path}): rename one "
                                 "with --name FILE=NAME")
            systems[shown] = documents
    try:
        systems = _same_documents(systems, units)
    except UsageError as error:
        raise UsageError(f"{', '.join(map(str, paths))}: {error.message}",
                         parameter=error.parameter) from None
    settings = {k: v for k, v in first_settings.items() if k not in ("predictions", "names")}
    return ErrorCounts.of_documents(first_categories, systems,
                                    {**settings, "inputs": [str(p) for p in paths]})


def _same_documents(systems: dict[str, dict[str, list[int]]],
                    units: str) -> dict[str, dict[str, list[int]]]:
    """The systems, on the documents they share (one a system lacks would test as error-free)."""
    shared = set.intersection(*(set(docs) for docs in systems.values()))
    if not shared:
        raise UsageError("the systems share no document: nothing to test", parameter="inputs")
    if units == "intersection":
        return {name: {d: c for d, c in docs.items() if d in shared}
                for name, docs in systems.items()}
    differ = unshared_document(systems)
    if differ is not None:
        name, extra, lacking = differ
        raise UsageError(f"the systems were analysed on different documents: {name} has "
                         f"{len(set(systems[name]) - shared)} document(s) another lacks (e.g. "
                         f"{extra!r}, not in {lacking}); give analyses of one test set, or "
                         "--units intersection to compare on the documents all share")
    return systems


def _basis(s: Mapping[str, Any]) -> tuple[Any, ...]:
    return tuple(s.get(k) for k in ("key", "mode", "types", "after_repair", "canonical_order",
                                     "layout", "configuration", "history", "query_pass"))
