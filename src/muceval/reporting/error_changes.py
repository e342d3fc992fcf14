"""Which changes in error counts are real (issue 28): each candidate against a baseline, per
error category and for the Error Score, with the p-value of a paired randomization over
documents (:func:`muceval.significance.counts.paired_count_tests`)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from muceval.core.signature import document_header
from muceval.errors import UsageError
from muceval.scoring.errors import ErrorAnalysis
from muceval.scoring.errors.model import ALL_CATEGORIES, SystemErrors
from muceval.significance.counts import paired_count_tests
from muceval.significance.settings import SignificanceSettings

__all__ = ["ERROR_CHANGES_FORMAT", "ErrorChange", "error_changes", "error_changes_to_json"]

ERROR_CHANGES_FORMAT = "muceval-error-changes"


@dataclass(frozen=True)
class ErrorChange:
    """One category of one candidate against the baseline: both counts, the difference
    (candidate − baseline), the p-value, how it was found, and the documents that differ."""

    candidate: str
    category: str
    baseline_count: int
    candidate_count: int
    difference: int
    p_value: float
    method: str
    documents: int


def error_changes(analysis: ErrorAnalysis, baseline: str,
                  settings: SignificanceSettings) -> list[ErrorChange]:
    """Every category of every other system of ``analysis`` against ``baseline``; the
    documents are those of either system (a document one system lacks counts zero).

    Raises
    ------
    UsageError
        If ``baseline`` is not a system of the analysis, or it has no other system.
    """
    systems = {s.system: s for s in analysis.systems}
    if baseline not in systems:
        raise UsageError(f"no system {baseline!r} among {', '.join(systems)}")
    if len(systems) < 2:
        raise UsageError("compare needs a baseline and at least one candidate")
    categories = analysis.options.categories
    out: list[ErrorChange] = []
    for name, system in systems.items():
        if name == baseline:
            continue
        docids = sorted({d.docid for s in (systems[baseline], system) for d in s.documents})
        first, second = (_counts(s, docids, categories) for s in (systems[baseline], system))
        for category, test in zip(categories, paired_count_tests(first, second, settings),
                                  strict=True):
            out.append(ErrorChange(name, category, test.first, test.second, test.difference,
                                   test.p_value, test.method, test.documents))
    return out


def _counts(system: SystemErrors, docids: list[str], categories: tuple[str, ...]) -> np.ndarray:
    """``documents × categories`` counts of the total row (zeros where a document is absent)."""
    index = [ALL_CATEGORIES.index(c) for c in categories]
    by_doc = {d.docid: d.total.categories for d in system.documents}
    zeros = (0,) * len(ALL_CATEGORIES)
    return np.array([[by_doc.get(doc, zeros)[i] for i in index] for doc in docids],
                    dtype=np.int64).reshape(len(docids), len(index))


def error_changes_to_json(analysis: ErrorAnalysis, baseline: str,
                          changes: list[ErrorChange], settings: SignificanceSettings) -> str:
    """The changes as a JSON document with its settings and signature."""
    recorded: dict[str, Any] = {**analysis.settings, "baseline": baseline,
                                "test": "paired randomization over documents",
                                "shuffles": settings.shuffles, "seed": settings.seed,
                                "alpha": settings.alpha}
    doc = {**document_header(ERROR_CHANGES_FORMAT, recorded),
           "changes": [asdict(c) for c in changes]}
    return json.dumps(doc, indent=1) + "\n"
