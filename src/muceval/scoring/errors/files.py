"""The error analysis of prediction files against a modern gold file or the gold they embed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from muceval.core.modern import ROLES, ModernDocument, ModernFile, ModernTemplate, role_union
from muceval.core.schema import MUC4, schema_named
from muceval.errors import InputError, Problem, UsageError
from muceval.formats.files import system_names
from muceval.formats.modern import read_modern
from muceval.formats.modern.embedded import read_embedded, read_texts
from muceval.formats.schema import resolve_schema
from muceval.scoring.errors.analyse import analyse_errors
from muceval.scoring.errors.model import ErrorDocument, ErrorOptions, error_roles
from muceval.scoring.errors.result import ErrorAnalysis
from muceval.scoring.modern import unpredicted
from muceval.scoring.modern.files import read_predictions

__all__ = ["EMBEDDED", "analyse_error_files", "error_documents"]

EMBEDDED = "embedded"  # the key that says: the gold and text of each GTT prediction record


def _templates(document: ModernDocument | None, extracts: bool) -> tuple[ModernTemplate, ...]:
    """A document's templates; with ``extracts`` (either side has per-role extracts only) one
    template without incident type holding the per-role union."""
    if document is None:
        return ()
    if not extracts:
        return document.templates or ()
    if document.extracts is not None:
        # Extracts (GRIT's layouts) are MUC-4's five roles, in the order every layout uses.
        return (ModernTemplate(None, document.extracts),) if any(document.extracts) else ()
    names = tuple(dict.fromkeys(r for t in document.templates or () for r in t.role_names))
    roles = role_union(document.templates or (), names or ROLES)
    return (ModernTemplate(None, roles, names or ROLES),) if any(roles) else ()


def error_documents(gold: ModernFile, pred: ModernFile, texts: Mapping[str, str],
                    ) -> tuple[list[ErrorDocument], list[Problem]]:
    """The documents to analyse, in the gold file's order, and their warnings."""
    if not gold.gold:
        raise InputError.at(gold.path, None, f"not a gold file ({gold.layout}): give the gold "
                            "file (or 'embedded') as --key and predictions as the arguments")
    if pred.gold:
        raise InputError.at(pred.path, None, f"a gold file ({pred.layout}), given as predictions")
    if pred.schema != gold.schema:
        raise InputError.at(pred.path, None, f"predictions of schema {pred.schema} against a "
                            f"gold of schema {gold.schema} ({gold.path})")
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
    return documents, unpredicted(gold, pred, "analysed as predicting nothing")


def _inputs(key: str | Path, paths: Sequence[str], schema: str | Path | None, parse: str,
            ) -> tuple[str, list[tuple[ModernFile, ModernFile, Mapping[str, str]]]]:
    """The schema's name and, per prediction file, its gold, its predictions and the texts."""
    if str(key) == EMBEDDED:
        if schema is not None and resolve_schema(schema) != MUC4.name:
            raise UsageError("--key embedded reads GTT prediction files, which hold muc4 "
                             "templates: give the gold file as --key", parameter="schema")
        embedded = [read_embedded(path) for path in paths]
        return MUC4.name, [(e.gold, e.predictions, e.texts) for e in embedded]
    gold = read_modern(key, schema=None if schema is None else resolve_schema(schema))
    texts = read_texts(key)
    return gold.schema, [(gold, read_predictions(path, gold, parse), texts) for path in paths]


def analyse_error_files(key: str | Path, predictions: Sequence[str | Path],
                        options: ErrorOptions | None = None,
                        names: Mapping[str, str] | None = None, *,
                        schema: str | Path | None = None,
                        parse: str = "strict") -> ErrorAnalysis:
    """Das et al.'s error analysis of each prediction file, every system counted on the roles
    :func:`~muceval.scoring.errors.model.error_roles` gives for the gold and every file.

    ``key`` is a gold file with document texts, or ``'embedded'``: each prediction file is a
    GTT one whose records carry their gold and text, as the original reads them. FAMuS's
    grouping of predicted strings is not applied: the analysis splits entities anyway.
    """
    options = options or ErrorOptions()
    if not predictions:
        raise UsageError("give at least one prediction file", parameter="predictions")
    paths = [str(p) for p in predictions]
    chosen = system_names(paths, names)
    name, inputs = _inputs(key, paths, schema, parse)
    prepared = [error_documents(gold, pred, texts) for gold, pred, texts in inputs]
    # One key serves every file; with 'embedded' each file brings its own gold.
    golds = {id(gold): gold for gold, _, _ in inputs}.values()
    roles = error_roles(
        schema_named(name),
        (t for gold in golds for d in gold.documents for t in d.templates or ()),
        (t for _, pred, _ in inputs for d in pred.documents for t in d.templates or ()))
    systems = []
    for path, system, (documents, warnings) in zip(paths, chosen, prepared, strict=True):
        result = analyse_errors(documents, options, system, path=path, roles=roles)
        systems.append(replace(result, warnings=(*warnings, *result.warnings)))
    extra: dict[str, str] = {}
    if name != MUC4.name:
        extra["schema"] = name
    if any(pred.parse is not None for _, pred, _ in inputs):
        extra["parse"] = parse
    return ErrorAnalysis(str(key), tuple(paths), options, tuple(systems), dict(names or {}),
                         extra)
