"""Das et al. (2022)'s automatic error analysis of template filling, for the modern layouts.

Das, Du, Wang, Shi, Gu, Porter & Cardie (ACL 2022) align predicted with gold templates,
score them and sort every wrong or missing role filler into one of sixteen categories named
after the edit that would repair it. muceval reproduces the behaviour of their
``Error_Analysis.py`` (run as ``-s all -m MUC_Errors``, optionally ``-at``) as specified in
``../shared/docs/ERROR-ANALYSIS.md``: spans found at the first occurrence of the normalised
mention in the normalised text, the span comparison score, the first-best template and
filler alignments, the counters, the classification and cancellation, the Error Score summed
in the original's order (so that its printed digits match), and the repair pass. The
searches return the original's choice in bounded time (:mod:`.search`); the rest follows
the original step by step.

Where the original crashes or cannot run, muceval gives a result under these rules (also in
``docs/error-analysis.md``):

- **Empty gold entity** (IndexError in the original): left out, with a warning.
- **Missing role** (KeyError; IterX templates omit empty roles): an empty role.
- **Non-string incident type** (TypeError): no type (None), which equals only no type.
- **``[string, offset]`` mentions** (AttributeError): the string; offsets are never used.
- **``-s msp``, ``mmi``, ``mat``** (TypeError on the first document): the alignment is that
  of ``all``; ``msp`` then leaves the missing gold templates out of every counter and the
  Error Score, ``mmi`` the spurious predicted templates, ``mat`` both (the 1992 rows as
  filters). The classification still sees every gold template.
- **``-m Errors``** (IndexError on any pair): ``types='any'``; templates pair whatever their
  types; a pair's incident type is one unit of both denominators, credited when the types
  are equal strings; a pair whose types differ costs 1 in the Error Score and counts as
  ``Incorrect_Incident_Type`` (the category the script has disabled).
- **Per-role extracts** (GRIT; the original reads templates only): when the key or the
  predictions of a document are extracts, both sides become one template without incident
  type holding the per-role union of entities (none if empty); such templates pair.
- **Document text**: with a gold file as key, its ``doctext`` for every system (IterX
  predictions have none; those of GTT and GRIT are not used); with ``--key embedded``, the
  record's, as the original; FAMuS's prompt files, the document of each prompt. A gold
  document without text is refused.
- **Template schemas** (the original knows MUC-4's five roles only): the rows are the roles
  of :func:`error_roles`, MUC-4's in the original's order, another closed schema's in its
  order, open roles (FAMuS) as the gold and then the predictions name them; every search,
  tie and listing takes the roles in that order.

``canonical_order`` sorts mentions, entities and templates before the analysis: the
original's categories depend on the input order (ties), its P/R/F1 and Error Score not.

Examples
--------
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
