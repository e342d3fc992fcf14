"""The error analysis of several systems, and its JSON and CSV (one line per system, block,
document, ``*`` for the totals, and row)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from muceval.core.error_counts import ErrorCounts
from muceval.core.signature import document_header, signature
from muceval.errors import UsageError
from muceval.formats.error_counts import ERRORS_FORMAT, FORMAT_VERSION
from muceval.scoring.errors.model import (
    ALL_CATEGORIES,
    DAS_ROLES,
    DocumentErrors,
    ErrorOptions,
    SystemErrors,
    _Rows,
    error_rows,
)

__all__ = ["ERRORS_FORMAT", "ErrorAnalysis"]


def _document(before: DocumentErrors, after: DocumentErrors | None,
              categories: tuple[str, ...]) -> dict[str, Any]:
    return {"docid": before.docid, "alignment": [list(pair) for pair in before.alignment],
            "before": before.to_dict(categories),
            "after": None if after is None else after.to_dict(categories),
            "transformations": [t.to_dict() for t in before.transformations]}


@dataclass(frozen=True)
class ErrorAnalysis:
    """Das et al.'s error analysis of systems counted on the same roles, against one key."""

    key: str
    predictions: tuple[str, ...]
    options: ErrorOptions
    systems: tuple[SystemErrors, ...]
    names: Mapping[str, str]
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len({s.roles for s in self.systems}) > 1:
            raise UsageError("the systems of one error analysis must be counted on the same "
                             "roles (error_roles of every system's templates)",
                             parameter="systems")

    @property
    def roles(self) -> tuple[str, ...]:
        return self.systems[0].roles if self.systems else DAS_ROLES

    @property
    def rows(self) -> tuple[str, ...]:
        """The rows of every table: ``total``, ``incident_type``, then :attr:`roles`."""
        return error_rows(self.roles)

    @property
    def settings(self) -> dict[str, Any]:
        """What the numbers depend on (recorded in the JSON with its signature)."""
        return {"command": "errors", "key": self.key, "predictions": list(self.predictions),
                **self.options.to_dict(), "names": dict(self.names), **self.extra}

    @property
    def signature(self) -> str:
        return signature(self.settings)

    def to_dict(self) -> dict[str, Any]:
        categories = self.options.categories
        systems = []
        for s in self.systems:
            after = s.after or (None,) * len(s.documents)
            after_totals = s.after_totals
            systems.append({
                "system": s.system, "warnings": [str(w) for w in s.warnings],
                "transformations": dict(s.transformations),
                "before": s.before_totals.to_dict(categories),
                "after": None if after_totals is None else after_totals.to_dict(categories),
                "documents": [_document(b, a, categories)
                              for b, a in zip(s.documents, after, strict=True)]})
        return {**document_header(ERRORS_FORMAT, self.settings, FORMAT_VERSION),
                "categories": list(categories), "rows": list(self.rows), "systems": systems}

    def counts(self) -> ErrorCounts:
        """Per system, the categories of each document's total row before any repair."""
        categories = self.options.categories
        index = [ALL_CATEGORIES.index(c) for c in categories]
        return ErrorCounts.of_documents(categories, {
            s.system: {d.docid: [d.total.categories[i] for i in index] for d in s.documents}
            for s in self.systems}, self.settings)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"), ensure_ascii=False) + "\n"

    def to_pandas(self) -> Any:
        """The CSV's rows as a data frame (needs pandas: ``pip install 'muceval[notebook]'``)."""
        from muceval.core.frames import csv_frame

        return csv_frame(self.to_csv())

    def to_csv(self) -> str:
        categories = self.options.categories
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["system", "block", "docid", "row", "num", "p_den", "r_den",
                         "precision", "recall", "f1", *categories, "cancelled", "error_score"])

        def lines(system: str, block: str, docid: str, rows: _Rows) -> None:
            for name, row in zip(self.rows, rows.rows, strict=True):
                writer.writerow([system, block, docid, name, row.num, row.p_den, row.r_den,
                                 row.precision, row.recall, row.f1,
                                 *(row.category(c) for c in categories), row.cancelled,
                                 rows.error_score_text if name == "total" else ""])

        for s in self.systems:
            for block, totals, documents in (("before", s.before_totals, s.documents),
                                             ("after", s.after_totals, s.after)):
                if totals is not None and documents is not None:
                    lines(s.system, block, "*", totals)
                    for d in documents:
                        lines(s.system, block, d.docid, d)
        return buffer.getvalue()
