"""One document, then one system: alignment, counts, classification, repair."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from muceval.core.schema import Schema
from muceval.errors import Problem
from muceval.scoring.errors.align import Prepared, Solver, align_document, prepare
from muceval.scoring.errors.count import count_document
from muceval.scoring.errors.model import (
    DAS_ROLES,
    DocumentErrors,
    ErrorDocument,
    ErrorOptions,
    SystemErrors,
    Transformation,
    error_roles,
)
from muceval.scoring.errors.repair import repair_document
from muceval.scoring.errors.search import first_best

__all__ = ["analyse_document", "analyse_errors"]


def _analysed(prepared: Prepared, options: ErrorOptions, solve: Solver,
              repair: bool) -> tuple[DocumentErrors, Prepared | None]:
    entries, pairs = align_document(prepared, options.types, solve)
    counted = count_document(prepared, entries, pairs, options.mode)
    repaired: Prepared | None = None
    kept: tuple[Transformation, ...] = ()
    if repair:
        repaired, kept = repair_document(prepared, entries, pairs, counted)
    result = DocumentErrors(prepared.docid, counted.rows(), counted.score, counted.partial,
                            entries, kept, prepared.roles)
    return result, repaired


def analyse_document(document: ErrorDocument, options: ErrorOptions | None = None, *,
                     solve: Solver = first_best, roles: tuple[str, ...] = DAS_ROLES,
                     ) -> tuple[DocumentErrors, DocumentErrors | None, int]:
    """The error analysis of one document: its analysis, that of the repaired document (with
    ``after_repair``, else None) and the number of gold entities without mentions left out.

    ``solve``: the search of each role's filler alignment (tests and benchmarks pass the
    original's enumeration). ``roles``: those counted, in the order the analysis takes them.

    >>> from muceval.core.modern import ModernTemplate
    >>> gold = ModernTemplate("attack", ((), (("shining path",),), (), (("mayor",),), ()))
    >>> pred = ModernTemplate("attack", ((), (("the shining path",),), (), (), ()))
    >>> before, _, _ = analyse_document(ErrorDocument(
    ...     "TST3-MUC4-0001", "Shining Path killed the mayor.", (pred,), (gold,)))
    >>> before.total.num, before.total.p_den, before.total.r_den, before.error_score
    (2, 2, 3, 1.0)
    >>> before.total.category("Missing_Role_Filler")
    1
    """
    options = options or ErrorOptions()
    prepared, empty = prepare(document.docid, document.text, document.predicted,
                              document.gold, options.canonical_order, roles)
    before, repaired = _analysed(prepared, options, solve, options.after_repair)
    after = None if repaired is None else _analysed(repaired, options, solve, False)[0]
    return before, after, empty


def analyse_errors(documents: Iterable[ErrorDocument], options: ErrorOptions | None = None,
                   system: str = "system", *, path: str | None = None,
                   solve: Solver = first_best, schema: Schema | str = "muc4",
                   roles: tuple[str, ...] | None = None) -> SystemErrors:
    """The error analysis of Das et al. (2022) of one system, document by document.

    ``documents`` are taken in the order their Error Scores are summed; ``path``: the
    predictions' file, named by the warnings. ``roles``: those counted, when several systems
    must share them; None: :func:`error_roles` of ``schema`` and the documents' templates.

    >>> from muceval.core.modern import ModernTemplate
    >>> t = ModernTemplate("attack", ((("army",),), (), (), (), ()))
    >>> result = analyse_errors([ErrorDocument("D1", "the army", (t,), (t,))])
    >>> result.before_totals.total.f1, result.before_totals.error_score_text
    (1.0, '0')
    """
    options = options or ErrorOptions()
    documents = list(documents)
    if roles is None:
        roles = error_roles(schema, (t for d in documents for t in d.gold),
                            (t for d in documents for t in d.predicted))
    before, after = [], []
    empty = 0
    names: Counter[str] = Counter()
    for document in documents:
        one, repaired, dropped = analyse_document(document, options, solve=solve,
                                                  roles=roles)
        before.append(one)
        empty += dropped
        names.update(" + ".join(t.names) for t in one.transformations)
        if repaired is not None:
            after.append(repaired)
    warnings: tuple[Problem, ...] = ()
    if empty:
        warnings = (Problem(path or system, None, f"{empty} gold entit{'y' if empty == 1 else 'ies'} "
                            "without mentions left out (the original crashes on them)"),)
    return SystemErrors(system, options, tuple(before), tuple(after) if options.after_repair
                        else None, warnings, dict(names), roles)
