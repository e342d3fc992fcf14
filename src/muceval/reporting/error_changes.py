"""The changes in error counts of :mod:`muceval.significance.error_counts`, as JSON and CSV."""

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
    """The changes as a JSON document (``baseline`` None: every pair was tested)."""
    recorded: dict[str, Any] = {**counts.settings, "baseline": baseline,
                                "pairs": "against the baseline" if baseline else "all",
                                "test": "paired randomization over documents",
                                "shuffles": settings.shuffles, "seed": settings.seed,
                                "alpha": settings.alpha, "adjust": settings.adjust}
    doc = {**document_header(ERROR_CHANGES_FORMAT, recorded),
           "changes": [asdict(c) for c in changes]}
    return json.dumps(doc, indent=1) + "\n"


def error_changes_to_csv(changes: Sequence[ErrorChange]) -> str:
    names = [f.name for f in fields(ErrorChange)]
    return csv_text([names, *([getattr(c, n) for n in names] for c in changes)])
