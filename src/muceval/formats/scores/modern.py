"""Reading back muceval's modern scores JSON (``score --metric ... --format json``) as the units
of the significance tests: per system and document, ``(p_num, p_den, r_num, r_den)``."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from muceval.core.units import MAX_COUNT, RatioTallies, unshared_document
from muceval.errors import InputError, UsageError
from muceval.formats.files import check_format_version, parse_json, read_text, system_name

__all__ = ["FORMAT_VERSION", "MODERN_FORMAT", "looks_like_modern_scores", "read_modern_scores"]

MODERN_FORMAT = "muceval-modern-scores"
FORMAT_VERSION = 1


def looks_like_modern_scores(text: str) -> bool:
    """Whether ``text`` is a modern scores JSON of muceval (its format field comes first)."""
    return f'"{MODERN_FORMAT}"' in text[:200]


def read_modern_scores(paths: Sequence[str | Path], scorer: str | None = None) -> RatioTallies:
    """The per-document counts of every system in the files, under one ``scorer``."""
    systems: dict[str, dict[str, tuple[float, ...]]] = {}
    source: dict[str, str] = {}  # system → its file, for the messages
    chosen: str | None = None
    for path in paths:
        for name, documents, used in _systems(read_text(path), str(path), scorer):
            if chosen is not None and used != chosen:
                raise UsageError(f"{path} scores {used}, another file {chosen}: give files of "
                                 "one scorer, or choose one", parameter="scorer")
            chosen = used
            if name in systems:
                raise InputError.at(str(path), None, f"system {name!r} is given twice")
            systems[name] = documents
            source[name] = str(path)
    shared = set.intersection(*(set(docs) for docs in systems.values()))
    if not shared:
        raise UsageError(f"{', '.join(map(str, paths))}: no document to test", parameter="inputs")
    differ = unshared_document(systems)
    if differ is not None:
        name, extra, lacking = differ
        raise InputError.at(source[name], None, f"the systems were scored on different "
                            f"documents: {name} has {extra!r}, {lacking} has not (a missing "
                            "document would count as empty); score them against one key")
    units = sorted(shared)  # every system's documents, as none is unshared
    import numpy as np  # imported here: the registry's sniffer is imported for every file

    counts = np.array([[docs[u] for u in units] for docs in systems.values()], dtype=np.float64)
    return RatioTallies(tuple(systems), tuple(units), counts)


def _systems(text: str, path: str, metric: str | None) -> list[tuple[str, dict[str, tuple[float, ...]], str]]:
    doc = parse_json(text, path)
    if isinstance(doc, dict):
        check_format_version(doc, FORMAT_VERSION, MODERN_FORMAT, path)
    results = doc.get("results") if isinstance(doc, dict) else None
    if not isinstance(results, list) or not results:
        raise InputError.at(path, None, "no results in this modern scores file")
    if metric is None and len(results) > 1:
        names = ", ".join(str(r.get("metric")) for r in results if isinstance(r, dict))
        raise UsageError(f"{path} holds several metrics ({names}): choose one",
                         parameter="scorer")
    picked = [r for r in results if isinstance(r, dict) and (metric is None or r.get("metric") == metric)]
    if not picked:
        raise InputError.at(path, None, f"no {metric} scores in this file")
    result = picked[0]
    out = []
    try:
        for entry in result["systems"]:
            documents = {str(d["docid"]): _counts(d) for d in entry["documents"]}
            name = str(entry.get("system") or system_name(path))
            _check_overall(entry["overall"], documents, name)
            out.append((name, documents, str(result["metric"])))
    except (KeyError, TypeError, ValueError) as bad:
        raise InputError.at(path, None, f"malformed system entry: {bad}") from None
    return out


def _check_overall(overall: Any, documents: dict[str, tuple[float, ...]], name: str) -> None:
    """Refuse documents that do not add up to the overall counts: a file cut or edited."""
    for k, key in enumerate(("p_num", "p_den", "r_num", "r_den")):
        stored = overall[key]
        summed = math.fsum(counts[k] for counts in documents.values())
        if not isinstance(stored, int | float) or isinstance(stored, bool) or not math.isclose(
                stored, summed, rel_tol=1e-9, abs_tol=1e-9):
            raise ValueError(f"system {name!r}: its documents' {key} add up to {summed:g}, "
                             f"its overall {key} is {stored!r}: the file was cut or edited")


def _counts(document: Any) -> tuple[float, ...]:
    given = [document[k] for k in ("p_num", "p_den", "r_num", "r_den")]
    # Counts may be fractional (similarities), never a flag, NaN, an infinity or beyond what a
    # tally can be (NaN fails the comparisons; a huge integer is compared exactly).
    if not all(isinstance(v, int | float) and not isinstance(v, bool)
               and 0 <= v <= MAX_COUNT for v in given):
        raise ValueError(f"document {document.get('docid')}: counts must be numbers from 0 "
                         f"to {MAX_COUNT:,}")
    values = tuple(float(v) for v in given)
    if not (values[1].is_integer() and values[3].is_integer()):
        raise ValueError(f"document {document.get('docid')}: the denominators count mentions "
                         "or entities: whole numbers")
    if values[0] > values[1] or values[2] > values[3]:
        raise ValueError(f"document {document.get('docid')}: a numerator exceeds its "
                         "denominator (p_num > p_den or r_num > r_den)")
    return values
