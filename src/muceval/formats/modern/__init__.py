"""Readers of the modern MUC-4 layouts: GTT and GRIT gold and predictions, IterX predictions.

=============  ===================================================================
layout         what the file is
=============  ===================================================================
``gtt-gold``   JSON lines ``{"docid", "doctext", "templates": [...]}``; mentions ``[string, offset]``
``gtt-pred``   one JSON object: numeric id → ``{"pred_templates": [...], ...}``
``grit-gold``  JSON lines ``{"docid", "doctext", "extracts": {role: [entity]}}``
``grit-pred``  one JSON object: numeric id → ``{"pred_extracts": {role: [entity]}, ...}``
``iterx-pred`` JSON lines ``{"TST3-MUC4-0001": [template, ...]}``, several lines per document
``muceval-gold`` muceval's neutral JSON ``{"format": "muceval-templates", "gold": true,
``muceval-pred`` "documents": [{"docid", "templates" or "extracts"}]}`` (``muceval convert``)
=============  ===================================================================

Numeric ids (``30002``) become ``TST3-MUC4-0002``; every document id of a
prediction file is in that style once read. Anything malformed is an
:class:`~muceval.errors.InputError` naming the file, the line (JSON lines) and
the document.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from muceval.core.modern import (
    ROLES,
    Entity,
    ModernDocument,
    ModernFile,
    ModernTemplate,
    docid_of_number,
)
from muceval.errors import InputError
from muceval.formats.files import parse_json, read_text

__all__ = ["LAYOUTS", "NEUTRAL_FORMAT", "detect_layout", "parse_modern", "read_modern"]

LAYOUTS = ("gtt-gold", "gtt-pred", "grit-gold", "grit-pred", "iterx-pred", "muceval-gold",
           "muceval-pred")
NEUTRAL_FORMAT = "muceval-templates"
"""The ``format`` of muceval's neutral JSON of documents, templates and entities."""


class _Bad(Exception):
    """Something in one document is not as its layout says."""


def read_modern(path: str | Path, layout: str | None = None) -> ModernFile:
    """Read a modern MUC-4 file: the gold or predictions of GTT, GRIT or IterX (JSON).

    Numeric document ids (``30002``) become MUC ids (``TST3-MUC4-0002``); gold mentions
    (``[string, offset]``) keep their string. The documents are those :func:`score_modern`
    scores.

    Parameters
    ----------
    path : str or pathlib.Path
        The file.
    layout : str or None, default None
        One of :data:`LAYOUTS`: ``'gtt-gold'``, ``'gtt-pred'``, ``'grit-gold'``,
        ``'grit-pred'``, ``'iterx-pred'``, ``'muceval-gold'``, ``'muceval-pred'`` (the
        module :mod:`muceval.formats.modern` says what each is). None: detected from the
        content.

    Returns
    -------
    muceval.core.modern.ModernFile
        ``layout``, ``gold`` (whether it is a gold file) and ``documents`` in file order,
        each with its ``templates`` (incident type and entities per role) or, for GRIT,
        its ``extracts`` (entities per role).

    Raises
    ------
    InputError
        If the file cannot be read, is none of the layouts, or is malformed (a document
        without an id, an unknown role, a document given twice...), naming file, line (of
        JSON lines) and document.
    ValueError
        If ``layout`` is not one of :data:`LAYOUTS`.

    See Also
    --------
    score_modern : Score predictions against gold.

    Examples
    --------
    >>> import json, muceval, tempfile
    >>> from pathlib import Path
    >>> folder = Path(tempfile.mkdtemp())
    >>> gold = {"docid": "TST3-MUC4-0001", "doctext": "...", "templates": [
    ...     {"incident_type": "attack", "PerpOrg": [[["shining path", 10]]],
    ...      "Victim": [[["mayor", 40]]]}]}
    >>> _ = (folder / "gold.jsonl").write_text(json.dumps(gold) + "\\n")
    >>> read = muceval.read_modern(folder / "gold.jsonl")
    >>> read.layout, read.gold, read.documents[0].templates[0].role("Victim")
    ('gtt-gold', True, (('mayor',),))
    """
    return parse_modern(read_text(path), str(path), layout)


def detect_layout(text: str) -> str | None:
    """The layout of a modern MUC-4 text, or ``None`` if it is none of :data:`LAYOUTS`.

    >>> detect_layout('{"docid": "TST3-MUC4-0001", "doctext": "", "templates": []}')
    'gtt-gold'
    >>> detect_layout('{"TST3-MUC4-0001": []}')
    'iterx-pred'
    """
    first = next((line for line in text.splitlines() if line.strip()), "").strip()
    if not first.startswith("{"):
        return None
    if f'"format": "{NEUTRAL_FORMAT}"' in text[:400]:
        return "muceval-gold" if '"gold": true' in text[:400] else "muceval-pred"
    try:
        head = json.loads(first)
    except (json.JSONDecodeError, RecursionError):
        head = None
    if isinstance(head, dict):
        if "docid" in head and "templates" in head:
            return "gtt-gold"
        if "docid" in head and "extracts" in head:
            return "grit-gold"
        if len(head) == 1 and isinstance(next(iter(head.values())), list):
            return "iterx-pred"
    # The whole text: the first document's text may be longer than any window (issue 27: a
    # 200 MB document hid its "pred_templates" key); a search of 200 MB takes ~0.1 s.
    gtt, grit = text.find('"pred_templates"'), text.find('"pred_extracts"')
    if gtt >= 0 and (grit < 0 or gtt < grit):
        return "gtt-pred"
    if grit >= 0:
        return "grit-pred"
    return None


def parse_modern(text: str, path: str = "<string>", layout: str | None = None) -> ModernFile:
    """The documents of a modern MUC-4 text (see :func:`read_modern`)."""
    layout = layout or detect_layout(text)
    if layout is None:
        raise InputError.at(path, 1, "not a GTT, GRIT or IterX file (JSON lines of documents, "
                            "or one JSON object of predictions by document id)")
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r}; choose from {', '.join(LAYOUTS)}")
    if layout in ("gtt-gold", "grit-gold"):
        documents = tuple(_gold_documents(text, path, layout))
    elif layout == "iterx-pred":
        documents = tuple(_iterx_documents(text, path))
    elif layout.startswith("muceval-"):
        documents = tuple(_neutral_documents(text, path, layout == "muceval-gold"))
    else:
        documents = tuple(_prediction_documents(text, path, layout))
    seen: dict[str, int | None] = {}
    for document in documents:
        if document.docid in seen:
            where = f" (first on line {seen[document.docid]})" if seen[document.docid] else ""
            raise InputError.at(path, document.line, f"document {document.docid} given twice{where}")
        seen[document.docid] = document.line
    return ModernFile(path, layout, documents)


# ---------------------------------------------------------------------------
# JSON lines
# ---------------------------------------------------------------------------


def _json_lines(text: str, path: str) -> Iterator[tuple[int, Any]]:
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        yield number, parse_json(line, path, number)


def _gold_documents(text: str, path: str, layout: str) -> Iterator[ModernDocument]:
    for number, doc in _json_lines(text, path):
        docid = doc.get("docid") if isinstance(doc, dict) else None
        if not isinstance(docid, str) or not docid:
            raise InputError.at(path, number, "a document needs a string 'docid'")
        try:
            if layout == "gtt-gold":
                templates = doc.get("templates")
                if not isinstance(templates, list):
                    raise _Bad("'templates' must be a list")
                yield ModernDocument(docid, tuple(_template(t, gold=True) for t in templates),
                                     line=number)
            else:
                yield ModernDocument(docid, extracts=_roles(doc.get("extracts"), gold=True),
                                     line=number)
        except _Bad as bad:
            raise InputError.at(path, number, f"document {docid}: {bad}") from None


def _iterx_documents(text: str, path: str) -> Iterator[ModernDocument]:
    templates: dict[str, list[ModernTemplate]] = {}
    first_line: dict[str, int] = {}
    for number, doc in _json_lines(text, path):
        if not isinstance(doc, dict) or len(doc) != 1:
            raise InputError.at(path, number, "an IterX line holds one document id and its "
                                "templates: {\"TST3-MUC4-0001\": [...]}")
        ((docid, items),) = doc.items()
        if not isinstance(items, list):
            raise InputError.at(path, number, f"document {docid}: its templates must be a list")
        try:
            parsed = [_template(t, gold=False) for t in items]
        except _Bad as bad:
            raise InputError.at(path, number, f"document {docid}: {bad}") from None
        first_line.setdefault(docid, number)
        templates.setdefault(docid, []).extend(parsed)
    for docid, items in templates.items():
        yield ModernDocument(docid, tuple(items), line=first_line[docid])


def _neutral_documents(text: str, path: str, gold: bool) -> Iterator[ModernDocument]:
    doc = parse_json(text, path)
    documents = doc.get("documents") if isinstance(doc, dict) else None
    if not isinstance(documents, list):
        raise InputError.at(path, None, f"a {NEUTRAL_FORMAT} file holds a list 'documents'")
    if doc.get("format_version") != 1:
        raise InputError.at(path, None, f"{NEUTRAL_FORMAT} format_version "
                            f"{doc.get('format_version')!r}: this muceval reads version 1")
    for n, item in enumerate(documents, start=1):
        docid = item.get("docid") if isinstance(item, dict) else None
        if not isinstance(docid, str) or not docid:
            raise InputError.at(path, None, f"document {n}: a string 'docid' is needed")
        try:
            if "templates" in item:
                if not isinstance(item["templates"], list):
                    raise _Bad("'templates' must be a list")
                yield ModernDocument(docid, tuple(_template(t, gold) for t in item["templates"]))
            elif "extracts" in item:
                yield ModernDocument(docid, extracts=_roles(item["extracts"], gold))
            else:
                raise _Bad("'templates' or 'extracts' is needed")
        except _Bad as bad:
            raise InputError.at(path, None, f"document {docid}: {bad}") from None


# ---------------------------------------------------------------------------
# One JSON object of predictions
# ---------------------------------------------------------------------------


def _prediction_documents(text: str, path: str, layout: str) -> Iterator[ModernDocument]:
    doc = parse_json(text, path)
    if not isinstance(doc, dict):
        raise InputError.at(path, 1, "predictions must be one JSON object: document id → prediction")
    field = "pred_templates" if layout == "gtt-pred" else "pred_extracts"
    for key, value in doc.items():
        docid = _docid(key, path)
        if not isinstance(value, dict) or field not in value:
            raise InputError.at(path, None, f"document {key}: no {field!r}")
        try:
            if layout == "gtt-pred":
                items = value[field]
                if not isinstance(items, list):
                    raise _Bad(f"{field!r} must be a list")
                yield ModernDocument(docid, tuple(_template(t, gold=False) for t in items))
            else:
                yield ModernDocument(docid, extracts=_roles(value[field], gold=False))
        except _Bad as bad:
            raise InputError.at(path, None, f"document {key}: {bad}") from None


def _docid(key: str, path: str) -> str:
    if key.isdigit():
        try:
            return docid_of_number(int(key))
        except ValueError as bad:
            raise InputError.at(path, None, str(bad)) from None
    return key


# ---------------------------------------------------------------------------
# Templates and entities
# ---------------------------------------------------------------------------


def _template(item: Any, gold: bool) -> ModernTemplate:
    if not isinstance(item, dict):
        raise _Bad("a template must be a JSON object")
    unknown = sorted(k for k in item if k != "incident_type" and k not in ROLES)
    if unknown:
        raise _Bad(f"unknown role {unknown[0]!r} (roles: {', '.join(ROLES)})")
    kind = item.get("incident_type")
    return ModernTemplate(kind if isinstance(kind, str) else None,
                          _roles({k: v for k, v in item.items() if k != "incident_type"}, gold))


def _roles(value: Any, gold: bool) -> tuple[tuple[Entity, ...], ...]:
    if not isinstance(value, Mapping):
        raise _Bad("the roles must be a JSON object of role → entities")
    unknown = sorted(k for k in value if k not in ROLES)
    if unknown:
        raise _Bad(f"unknown role {unknown[0]!r} (roles: {', '.join(ROLES)})")
    out = []
    for role in ROLES:
        entities = value.get(role, [])
        if not isinstance(entities, list):
            raise _Bad(f"{role}: a list of entities expected")
        out.append(tuple(_entity(e, role, gold) for e in entities))
    return tuple(out)


def _entity(value: Any, role: str, gold: bool) -> Entity:
    if not isinstance(value, list):
        raise _Bad(f"{role}: an entity must be a list of mentions")
    mentions = []
    for mention in value:
        # Gold mentions are [string, offset]; predicted ones plain strings (either is accepted).
        if isinstance(mention, list) and mention and isinstance(mention[0], str):
            mentions.append(mention[0])
        elif isinstance(mention, str):
            mentions.append(mention)
        else:
            raise _Bad(f"{role}: a mention must be a string or [string, offset], found "
                       f"{json.dumps(mention)[:60]}")
    return tuple(mentions)
