"""Das et al. (2022)'s automatic error analysis of template filling, for the modern layouts.

A reproduction of their ``Error_Analysis.py`` (``-s all -m MUC_Errors``, optionally ``-at``)
in bounded time, with stated rules where the original crashes (docs/error-analysis.md).

>>> from muceval.core.modern import ModernTemplate
>>> gold = ModernTemplate("attack", ((), (("shining path",),), (), (("mayor",),), ()))
>>> pred = ModernTemplate("attack", ((), (("shining path",),), (), (("mayor",),
...                                                                  ("driver",)), ()))
>>> result = analyse_errors([ErrorDocument("D1", "shining path shot the mayor", (pred,),
...                                        (gold,))])
>>> totals = result.before_totals
>>> totals.total.num, totals.total.p_den, totals.total.r_den, totals.error_score_text
(3, 4, 3, '1')
>>> totals.row("Victim").category("Spurious_Role_Filler")
1
"""

from muceval.scoring.errors.analyse import analyse_document, analyse_errors
from muceval.scoring.errors.files import EMBEDDED, analyse_error_files, error_documents
from muceval.scoring.errors.model import (
    CATEGORIES,
    DAS_ROLES,
    MODES,
    ROWS,
    TYPES,
    DocumentErrors,
    ErrorDocument,
    ErrorOptions,
    ErrorTotals,
    RowCounts,
    SystemErrors,
    Transformation,
    error_roles,
)
from muceval.scoring.errors.result import ERRORS_FORMAT, ErrorAnalysis

__all__ = ["CATEGORIES", "DAS_ROLES", "EMBEDDED", "ERRORS_FORMAT", "MODES", "ROWS", "TYPES",
           "DocumentErrors", "ErrorAnalysis", "ErrorDocument", "ErrorOptions", "ErrorTotals",
           "RowCounts", "SystemErrors", "Transformation", "analyse_document",
           "analyse_error_files", "analyse_errors", "error_documents", "error_roles"]
