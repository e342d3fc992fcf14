"""Which changes in error counts are real (found by :mod:`muceval.significance.error_counts`):
per error category and pair of systems, both counts, the difference and the p-value, written.

JSON (format ``muceval-error-changes``)::

    {"format", "format_version", "muceval", "signature", "settings": {..., "baseline",
     "pairs", "test", "shuffles", "seed", "alpha", "adjust"},
     "changes": [{"baseline", "candidate", "category", "baseline_count", "candidate_count",
                  "difference", "p_value", "adjusted_p_value", "method", "documents"}]}
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, fields
from typing import Any

from muceval.core.error_counts import ErrorCounts
from muceval.core.signature import document_header
from muceval.reporting.outputs import csv_text
from muceval.significance.error_counts import ErrorChange
from muceval.significance.settings import SignificanceSettings

__all__ = ["ERROR_CHANGES_FORMAT", "error_changes_to_csv", "error_changes_to_json"]

ERROR_CHANGES_FORMAT = "muceval-error-changes"


def error_changes_to_json(counts: ErrorCounts, baseline: str | None,
                          changes: list[ErrorChange], settings: SignificanceSettings) -> str:
    """The changes as a JSON document with its settings and signature (``baseline`` None:
    every pair was tested)."""
    recorded: dict[str, Any] = {**counts.settings, "baseline": baseline,
                                "pairs": "against the baseline" if baseline else "all",
                                "test": "paired randomization over documents",
                                "shuffles": settings.shuffles, "seed": settings.seed,
                                "alpha": settings.alpha, "adjust": settings.adjust}
    doc = {**document_header(ERROR_CHANGES_FORMAT, recorded),
           "changes": [asdict(c) for c in changes]}
    return json.dumps(doc, indent=1) + "\n"


def error_changes_to_csv(changes: Sequence[ErrorChange]) -> str:
    """One line per pair and category, the columns of :class:`ErrorChange`."""
    names = [f.name for f in fields(ErrorChange)]
    return csv_text([names, *([getattr(c, n) for n in names] for c in changes)])
