"""The error analysis of prediction files against a modern gold file or the gold they embed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from muceval.core.modern import ModernDocument, ModernFile, ModernTemplate, role_union
from muceval.errors import InputError, Problem, UsageError
from muceval.formats.files import system_name
from muceval.formats.modern import read_modern
from muceval.formats.modern.embedded import read_embedded, read_texts
from muceval.scoring.errors.analyse import analyse_errors
from muceval.scoring.errors.model import ErrorDocument, ErrorOptions, SystemErrors
from muceval.scoring.errors.result import ErrorAnalysis

__all__ = ["EMBEDDED", "analyse_error_files", "error_documents"]

EMBEDDED = "embedded"
"""The key that says: the gold (and the text) of each GTT prediction record."""


def _templates(document: ModernDocument | None, extracts: bool) -> tuple[ModernTemplate, ...]:
    """A document's templates; with ``extracts`` (either side has per-role extracts only) one
    template without incident type holding the per-role union, or none if it is empty."""
    if document is None:
        return ()
    if not extracts:
        return document.templates or ()
    roles = (document.extracts if document.extracts is not None
             else role_union(document.templates or ()))
    return (ModernTemplate(None, roles),) if any(roles) else ()


def error_documents(gold: ModernFile, pred: ModernFile, texts: Mapping[str, str],
                    ) -> tuple[list[ErrorDocument], list[Problem]]:
    """The documents to analyse, in the gold file's order, and warnings (gold documents
    without predictions, analysed as predicting nothing).

    Raises
    ------
    InputError
        If ``gold`` is not a gold file or ``pred`` is one, if a prediction names a document
        not in the gold, or if a gold document has no text.
    """
    if not gold.gold:
        raise InputError.at(gold.path, None, f"not a gold file ({gold.layout}): give the gold "
                            "file (or 'embedded') as --key and predictions as the arguments")
    if pred.gold:
        raise InputError.at(pred.path, None, f"a gold file ({pred.layout}), given as predictions")
    known = gold.by_id()
    unknown = [d.docid for d in pred.documents if d.docid not in known]
    if unknown:
        raise InputError.at(pred.path, None, f"{len(unknown)} document(s) not in the gold "
                            f"{gold.path}: {', '.join(unknown[:3])} (predictions for another "
                            "test set?)")
    predicted = pred.by_id()
    documents = []
    for document in gold.documents:
        text = texts.get(document.docid, "")
        if not text.strip():
            raise InputError.at(gold.path, document.line, f"document {document.docid}: no "
                                "text (doctext); the error analysis finds mentions in it")
        mine = predicted.get(document.docid)
        extracts = document.templates is None or (mine is not None and mine.templates is None)
        documents.append(ErrorDocument(document.docid, text, _templates(mine, extracts),
                                       _templates(document, extracts)))
    missing = [d.docid for d in gold.documents if d.docid not in predicted]
    warnings = []
    if missing:
        warnings.append(Problem(pred.path, None, f"{len(missing)} gold document(s) have no "
                                f"prediction (e.g. {missing[0]}): analysed as predicting "
                                "nothing"))
    return documents, warnings


def _system(path: str, name: str, options: ErrorOptions,
            gold: tuple[ModernFile, dict[str, str]] | None) -> SystemErrors:
    if gold is None:
        embedded = read_embedded(path)
        documents, warnings = error_documents(embedded.gold, embedded.predictions,
                                              embedded.texts)
    else:
        documents, warnings = error_documents(gold[0], read_modern(path), gold[1])
    result = analyse_errors(documents, options, name, path=path)
    return SystemErrors(result.system, result.options, result.documents, result.after,
                        (*warnings, *result.warnings), result.transformations)


def analyse_error_files(key: str | Path, predictions: Sequence[str | Path],
                        options: ErrorOptions | None = None,
                        names: Mapping[str, str] | None = None) -> ErrorAnalysis:
    """Das et al.'s error analysis of each prediction file.

    Parameters
    ----------
    key : str or pathlib.Path
        A modern gold file with document texts (GTT's or GRIT's ``test.json``), or
        ``'embedded'``: each prediction file is a GTT prediction file whose records carry
        their gold (``gold_templates``) and text, as the original reads them.
    predictions : sequence of str or pathlib.Path
        Prediction files in any modern layout (GTT, GRIT, IterX, muceval's neutral JSON);
        with ``'embedded'``, GTT prediction files.
    options : ErrorOptions or None, default None
        None: the defaults.
    names : mapping of str to str or None, default None
        Prediction path → system name (default: the file name without its last suffix).

    Returns
    -------
    ErrorAnalysis
        Every system's analysis, with the settings.

    Raises
    ------
    UsageError
        If no prediction file is given or two give the same system name.
    InputError
        If a file is unreadable or malformed, the key has no text for a document, or a
        prediction names a document the gold lacks.

    Notes
    -----
    The document text is the key's ``doctext`` with a gold file (one text for every
    system, whatever a prediction file carries); with ``'embedded'`` it is each record's.
    When the key or a prediction has per-role extracts (GRIT), both sides of a document are
    reduced to one template without incident type holding the per-role union of entities.
    """
    options = options or ErrorOptions()
    if not predictions:
        raise UsageError("give at least one prediction file", parameter="predictions")
    paths = [str(p) for p in predictions]
    chosen = [(names or {}).get(p) or system_name(p) for p in paths]
    if len(set(chosen)) != len(chosen):
        raise UsageError("two prediction files give the same system name: " + ", ".join(chosen))
    gold = None
    if str(key) != EMBEDDED:
        gold = (read_modern(key), read_texts(key))
    systems = tuple(_system(p, n, options, gold) for p, n in zip(paths, chosen,
                                                                           strict=True))
    return ErrorAnalysis(str(key), tuple(paths), options, systems, dict(names or {}))
