"""The modern MUC-4 layouts: GTT and GRIT gold and predictions, IterX predictions, neutral JSON.

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
``famus-gold`` FAMuS prompt files: JSON lines ``{"instance_id", "gold_roles": "<JSON>"}``
``answers-pred`` raw answers of a language model: JSON lines ``{"instance_id", "response"}``
=============  ===================================================================

Each is one :class:`Layout` of :data:`REGISTRY`; the last two are read by
:mod:`muceval.formats.modern.answers`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property, partial
from itertools import groupby
from pathlib import Path
from typing import Any

from muceval.core.modern import (
    ROLES,
    Entity,
    ModernDocument,
    ModernFile,
    ModernTemplate,
    docid_of_number,
    number_of_docid,
    role_union,
)
from muceval.core.schema import MUC4, Schema, schema_named
from muceval.errors import InputError
from muceval.formats.files import (
    check_choice,
    check_format_version,
    first_line,
    json_lines,
    json_text,
    parse_json,
    read_text,
)
from muceval.formats.modern.answers import ANSWER_ID_KEYS, answer_documents, famus_gold_documents

__all__ = ["LAYOUTS", "NEUTRAL", "NEUTRAL_FORMAT", "REGISTRY", "TARGET_LAYOUTS", "Layout", "Probe",
           "detect_layout", "layout_named", "parse_modern", "read_modern"]

NEUTRAL_FORMAT = "muceval-templates"
NEUTRAL_VERSION = 1


class _Bad(Exception):
    """Something in one document is not as its layout says."""


class Probe:
    """A text whose layout is sought, with what the detectors look at worked out once.

    >>> Probe('{"a": []}\\n{"b": 1}').head
    {'a': []}
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.first = first_line(text).strip()
        self._found: dict[str, int] = {}

    @cached_property
    def head(self) -> Any:
        """The first line that is not blank, parsed (``None`` if it is no JSON)."""
        try:
            return json.loads(self.first)
        except (json.JSONDecodeError, RecursionError):
            return None

    def find(self, needle: str) -> int:
        """Where ``needle`` first is in the whole text (-1: nowhere), searched once."""
        if needle not in self._found:
            self._found[needle] = self.text.find(needle)
        return self._found[needle]


@dataclass(frozen=True)
class Layout:
    """One modern layout: how to recognise, read and write it.

    ``name`` ends in ``-gold`` exactly when ``gold`` (``ModernFile.gold`` reads the suffix).
    Detectors are asked by ascending ``priority``, so each may assume those before said no.

    >>> layout_named("gtt-pred").write(ModernFile("x", "gtt-gold", ()))
    '{}\\n'
    """

    name: str
    label: str
    gold: bool
    needs_templates: bool
    priority: int
    detect: Callable[[Probe], bool]
    read: Callable[..., Iterable[ModernDocument]]
    write: Callable[[ModernFile], str]
    schema: str = "muc4"
    # What its reader takes besides the text and path (parse_modern's keywords).
    read_options: frozenset[str] = frozenset()


def read_modern(path: str | Path, layout: str | None = None, *, as_prediction: bool = False,
                parse: str = "strict", schema: str | None = None,
                roles_of: Mapping[str, tuple[str, ...]] | None = None) -> ModernFile:
    """Read a modern MUC-4 file: the gold or predictions of GTT, GRIT or IterX (JSON).

    Numeric document ids (``30002``) become ``TST3-MUC4-0002``; gold mentions keep their string.

    Parameters
    ----------
    path : str or pathlib.Path
    layout : str or None, default None
        One of :data:`LAYOUTS` (:mod:`muceval.formats.modern` says what each is); None:
        detected from the content.

    Returns
    -------
    muceval.core.modern.ModernFile
        ``layout``, ``gold`` and ``documents`` in file order, each with its ``templates``
        or, for GRIT, its ``extracts`` (entities per role).

    Raises
    ------
    InputError
        If the file cannot be read, is none of the layouts, or is malformed.
    UsageError
        If ``layout`` is not one of :data:`LAYOUTS` (a ``ValueError`` too).

    Other Parameters
    ----------------
    as_prediction : bool, default False
        Read a gold file as predictions (FAMuS's report baseline; only layouts that allow it).
    parse : {'strict', 'lenient'}, default 'strict'
        How raw answers are read (:mod:`muceval.formats.modern.answers`).
    schema : str or None, default None
        The schema of raw answers (None: the layout's).
    roles_of : mapping or None, default None
        The roles of each template type, which the lenient reading matches names to.

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
    return parse_modern(read_text(path), str(path), layout, as_prediction=as_prediction,
                        parse=parse, schema=schema, roles_of=roles_of)


def detect_layout(text: str) -> str | None:
    """The layout of a modern MUC-4 text, or ``None`` if it is none of :data:`LAYOUTS`.

    >>> detect_layout('{"docid": "TST3-MUC4-0001", "doctext": "", "templates": []}')
    'gtt-gold'
    >>> detect_layout('{"TST3-MUC4-0001": []}')
    'iterx-pred'
    """
    probe = Probe(text)
    if not probe.first.startswith("{"):
        return None
    return next((layout.name for layout in _BY_PRIORITY if layout.detect(probe)), None)


def parse_modern(text: str, path: str = "<string>", layout: str | None = None, *,
                 as_prediction: bool = False, parse: str = "strict",
                 schema: str | None = None,
                 roles_of: Mapping[str, tuple[str, ...]] | None = None) -> ModernFile:
    """The documents of a modern text (see :func:`read_modern`)."""
    layout = layout or detect_layout(text)
    if layout is None:
        raise InputError.at(path, 1, "not a GTT, GRIT, IterX or FAMuS file, nor raw answers "
                            "(JSON lines of documents, or one JSON object of predictions by "
                            "document id)")
    chosen = layout_named(layout)
    if as_prediction and "as_prediction" not in chosen.read_options:
        raise InputError.at(path, None, f"a gold file ({layout}), given as predictions")
    if schema is not None and schema != chosen.schema and "schema" not in chosen.read_options:
        raise InputError.at(path, None, f"{chosen.label} files hold {chosen.schema} templates, "
                            f"not {schema}")
    used = schema_named(schema or chosen.schema)
    given = {"as_prediction": as_prediction, "parse": parse, "roles_of": roles_of,
             "schema": used}
    documents = tuple(chosen.read(text, path, **{k: v for k, v in given.items()
                                                 if k in chosen.read_options}))
    seen: dict[str, int | None] = {}
    for document in documents:
        if document.docid in seen:
            where = f" (first on line {seen[document.docid]})" if seen[document.docid] else ""
            raise InputError.at(path, document.line, f"document {document.docid} given twice{where}")
        seen[document.docid] = document.line
    return ModernFile(path, layout, documents, used.name, as_prediction,
                      parse if "parse" in chosen.read_options else None)


def layout_named(name: str) -> Layout:
    """The layout of :data:`REGISTRY` called ``name`` (else a UsageError).

    >>> layout_named("grit-gold").label, layout_named("grit-gold").gold
    ('GRIT gold', True)
    """
    check_choice(name, LAYOUTS, "layout")
    return REGISTRY[LAYOUTS.index(name)]


def _document(docid: str, value: Any, field: str, gold: bool, path: str, line: int | None = None,
              schema: Schema = MUC4, shown: str | None = None) -> ModernDocument:
    """A document of the templates or extracts ``value``; ``shown`` names it in errors."""
    try:
        if not field.endswith("templates"):
            return ModernDocument(docid, extracts=_roles(value, gold), line=line)
        if not isinstance(value, list):
            raise _Bad(f"{field!r} must be a list")
        templates = tuple(_template(t, gold, schema, docid) for t in value)
    except _Bad as bad:
        raise InputError.at(path, line, f"document {shown or docid}: {bad}") from None
    return ModernDocument(docid, templates, line=line)


def _contents(document: ModernDocument, field: str, gold: bool, schema: str = "muc4") -> Any:
    """The JSON of a document's templates or extracts (for templates, their per-role union, as
    GRIT's scorer takes it)."""
    if field.endswith("templates"):
        return [_template_json(t, gold, schema) for t in document.templates or ()]
    extracts = document.extracts
    return _roles_json(role_union(document.templates or ()) if extracts is None else extracts,
                       gold)


def _gold_documents(text: str, path: str, field: str,
                   schema: Schema = MUC4) -> Iterator[ModernDocument]:
    for number, doc in json_lines(text, path):
        docid = doc.get("docid") if isinstance(doc, dict) else None
        if not isinstance(docid, str) or not docid:
            raise InputError.at(path, number, "a document needs a string 'docid'")
        yield _document(docid, doc.get(field), field, True, path, number, schema)


def _gold_lines(modern: ModernFile, field: str) -> str:
    """Mention offsets, which no scorer uses, are -1 (unknown); document texts are ""."""
    return "".join(json_text({"docid": d.docid, "doctext": "",
                              field: _contents(d, field, True, modern.schema)})
                   + "\n" for d in modern.documents)


def _iterx_documents(text: str, path: str, schema: Schema = MUC4) -> Iterator[ModernDocument]:
    templates: dict[str, list[ModernTemplate]] = {}
    first_line: dict[str, int] = {}
    for number, doc in json_lines(text, path):
        if not isinstance(doc, dict) or len(doc) != 1:
            raise InputError.at(path, number, "an IterX line holds one document id and its "
                                "templates: {\"TST3-MUC4-0001\": [...]}")
        ((docid, items),) = doc.items()
        if not isinstance(items, list):
            raise InputError.at(path, number, f"document {docid}: its templates must be a list")
        try:
            parsed = [_template(t, False, schema, docid) for t in items]
        except _Bad as bad:
            raise InputError.at(path, number, f"document {docid}: {bad}") from None
        first_line.setdefault(docid, number)
        templates.setdefault(docid, []).extend(parsed)
    for docid, items in templates.items():
        yield ModernDocument(docid, tuple(items), line=first_line[docid])


def _iterx_lines(modern: ModernFile) -> str:
    """One line per run of templates of one incident type: reading the lines back gives the
    templates in their order (GTT's map search breaks ties by that order)."""
    lines = []
    type_field = schema_named(modern.schema).type_field
    for d in modern.documents:
        # IterX leaves empty roles out.
        runs = [[{r: v for r, v in _template_json(t, False, modern.schema).items()
                  if v or r == type_field} for t in run]
                for _, run in groupby(d.templates or (), key=lambda t: t.incident_type)]
        if not runs:
            lines.append(json.dumps({d.docid: []}) + "\n")
        lines += [json_text({d.docid: templates}) + "\n" for templates in runs]
    return "".join(lines)


def _neutral_documents(text: str, path: str, gold: bool,
                       schema: Schema = MUC4) -> Iterator[ModernDocument]:
    doc = parse_json(text, path)
    documents = doc.get("documents") if isinstance(doc, dict) else None
    if not isinstance(documents, list):
        raise InputError.at(path, None, f"a {NEUTRAL_FORMAT} file holds a list 'documents'")
    check_format_version(doc, NEUTRAL_VERSION, NEUTRAL_FORMAT, path)
    written = doc.get("schema", "muc4")
    if written != schema.name:  # read with another schema, its roles would be misread
        raise InputError.at(path, None, f"a file of {written!r} templates, read as "
                            f"{schema.name}: give --schema {written}")
    for n, item in enumerate(documents, start=1):
        docid = item.get("docid") if isinstance(item, dict) else None
        if not isinstance(docid, str) or not docid:
            raise InputError.at(path, None, f"document {n}: a string 'docid' is needed")
        field = next((f for f in ("templates", "extracts") if f in item), None)
        if field is None:
            raise InputError.at(path, None, f"document {docid}: 'templates' or 'extracts' is "
                                "needed")
        yield _document(docid, item[field], field, gold, path, schema=schema)


def _neutral_json(modern: ModernFile, gold: bool) -> str:
    """Mentions are plain strings, gold or not."""
    documents = [{"docid": d.docid, "templates": _contents(d, "templates", False, modern.schema)}
                 if d.templates is not None else
                 {"docid": d.docid, "extracts": _roles_json(d.extracts or (), False)}
                 for d in modern.documents]
    schema = {"schema": modern.schema} if modern.schema != "muc4" else {}
    return json_text({"format": NEUTRAL_FORMAT, "format_version": NEUTRAL_VERSION, "gold": gold,
                      **schema, "source": modern.layout, "documents": documents},
                     indent=1) + "\n"


def _prediction_documents(text: str, path: str, field: str) -> Iterator[ModernDocument]:
    doc = parse_json(text, path)
    if not isinstance(doc, dict):
        raise InputError.at(path, 1, "predictions must be one JSON object: document id → prediction")
    for key, value in doc.items():
        docid = _docid(key, path)
        if not isinstance(value, dict) or field not in value:
            raise InputError.at(path, None, f"document {key}: no {field!r}")
        yield _document(docid, value[field], field, False, path, shown=key)


def _prediction_object(modern: ModernFile, field: str) -> str:
    """Documents keyed by their numeric ids (``TST3-MUC4-0002`` → ``"30002"``)."""
    return json_text({str(_number(modern.path, d.docid)): {field: _contents(d, field, False)}
                      for d in modern.documents}) + "\n"


def _docid(key: str, path: str) -> str:
    if key.isdigit():
        try:
            return docid_of_number(int(key))
        except ValueError as bad:
            raise InputError.at(path, None, str(bad)) from None
    return key


def _number(path: str, docid: str) -> int:
    try:
        return number_of_docid(docid)
    except ValueError:
        raise InputError.at(path, None, f"document {docid}: GTT and GRIT predictions key "
                            "documents by numeric MUC ids (TST3-MUC4-0002 → 30002)") from None


def _template(item: Any, gold: bool, schema: Schema = MUC4, docid: str = "") -> ModernTemplate:
    """A template of ``schema``; open roles are those it gives, in its order."""
    if not isinstance(item, dict):
        raise _Bad("a template must be a JSON object")
    field = schema.type_field
    given = {k: v for k, v in item.items() if k != field}
    names = schema.roles if schema.roles is not None else tuple(given)
    kind = item.get(field) if schema.type_from == "field" else schema.template_type(docid)
    return ModernTemplate(kind if isinstance(kind, str) else None,
                          _roles(given, gold, names, schema.fillers == "strings"), names)


def _roles(value: Any, gold: bool, names: tuple[str, ...] = ROLES,
           strings: bool = False) -> tuple[tuple[Entity, ...], ...]:
    if not isinstance(value, Mapping):
        raise _Bad("the roles must be a JSON object of role → entities")
    unknown = sorted(k for k in value if k not in names)
    if unknown:
        raise _Bad(f"unknown role {unknown[0]!r} (roles: {', '.join(names)})")
    out = []
    for role in names:
        entities = value.get(role, [])
        if not isinstance(entities, list):
            raise _Bad(f"{role}: a list of entities expected")
        out.append(tuple(_entity(e, role, gold, strings) for e in entities))
    return tuple(out)


def _entity(value: Any, role: str, gold: bool, strings: bool = False) -> Entity:
    if strings and isinstance(value, str):  # a schema of string fillers: one mention each
        return (value,)
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


def _roles_json(roles: tuple[tuple[Entity, ...], ...], gold: bool,
                names: tuple[str, ...] = ROLES) -> dict[str, Any]:
    return {role: [[[m, -1] if gold else m for m in e] for e in entities]
            for role, entities in zip(names, roles, strict=True)}


def _template_json(t: ModernTemplate, gold: bool, schema: str = "muc4") -> dict[str, Any]:
    return {schema_named(schema).type_field: t.incident_type, **_roles_json(t.roles, gold, t.role_names)}


def _string_roles(modern: ModernFile, document: ModernDocument) -> dict[str, list[str]]:
    """A document's one template as role → strings (every mention of every entity)."""
    templates = document.templates or ()
    if len(templates) > 1:
        raise InputError.at(modern.path, document.line, f"document {document.docid}: FAMuS "
                            "layouts hold one template per document")
    return {role: [m for entity in entities for m in entity]
            for t in templates for role, entities in t.named_roles()}


def _string_role_lines(modern: ModernFile, field: str) -> str:
    """One line per document: its id and, in ``field``, its roles as a JSON string."""
    return "".join(json_text({"instance_id": d.docid,
                              field: json_text(_string_roles(modern, d))}) + "\n"
                   for d in modern.documents)


def _answers(probe: Probe) -> bool:
    head = probe.head
    return isinstance(head, dict) and "response" in head and any(
        isinstance(head.get(k), str) for k in ANSWER_ID_KEYS)


def _head_has(*keys: str) -> Callable[[Probe], bool]:
    return lambda probe: isinstance(probe.head, dict) and all(k in probe.head for k in keys)


def _neutral(gold: bool) -> Callable[[Probe], bool]:
    return lambda probe: (f'"format": "{NEUTRAL_FORMAT}"' in probe.text[:400]
                          and (not gold or '"gold": true' in probe.text[:400]))


def _one_document_line(probe: Probe) -> bool:
    values = list(probe.head.values()) if isinstance(probe.head, dict) else []
    return len(values) == 1 and isinstance(values[0], list)


def _has_key(key: str, unless_after: str = "") -> Callable[[Probe], bool]:
    """Whether the whole text has ``"key"``, and not after ``"unless_after"``: the first
    document's text may be longer than any window (a 200 MB one hid its key)."""
    def detect(probe: Probe) -> bool:
        at = probe.find(f'"{key}"')
        return at >= 0 and not (unless_after and 0 <= probe.find(f'"{unless_after}"') < at)

    return detect


REGISTRY: tuple[Layout, ...] = (
    Layout("gtt-gold", "GTT gold", gold=True, needs_templates=True, priority=30,
           detect=_head_has("docid", "templates"),
           read=partial(_gold_documents, field="templates"),
           write=partial(_gold_lines, field="templates"), read_options=frozenset({"schema"})),
    Layout("gtt-pred", "GTT predictions", gold=False, needs_templates=True, priority=60,
           detect=_has_key("pred_templates", unless_after="pred_extracts"),
           read=partial(_prediction_documents, field="pred_templates"),
           write=partial(_prediction_object, field="pred_templates")),
    Layout("grit-gold", "GRIT gold", gold=True, needs_templates=False, priority=40,
           detect=_head_has("docid", "extracts"),
           read=partial(_gold_documents, field="extracts"),
           write=partial(_gold_lines, field="extracts")),
    Layout("grit-pred", "GRIT predictions", gold=False, needs_templates=False, priority=70,
           detect=_has_key("pred_extracts"),
           read=partial(_prediction_documents, field="pred_extracts"),
           write=partial(_prediction_object, field="pred_extracts")),
    Layout("iterx-pred", "IterX predictions", gold=False, needs_templates=True, priority=50,
           detect=_one_document_line, read=_iterx_documents, write=_iterx_lines,
           read_options=frozenset({"schema"})),
    Layout("muceval-gold", "neutral gold templates", gold=True, needs_templates=False,
           priority=10, detect=_neutral(gold=True), read=partial(_neutral_documents, gold=True),
           write=partial(_neutral_json, gold=True), read_options=frozenset({"schema"})),
    Layout("muceval-pred", "neutral predicted templates", gold=False, needs_templates=False,
           priority=20, detect=_neutral(gold=False), read=partial(_neutral_documents, gold=False),
           write=partial(_neutral_json, gold=False), read_options=frozenset({"schema"})),
    Layout("famus-gold", "FAMuS prompts (gold roles)", gold=True, needs_templates=True,
           priority=25, detect=_head_has("instance_id", "gold_roles"),
           read=famus_gold_documents, write=partial(_string_role_lines, field="gold_roles"),
           schema="famus", read_options=frozenset({"as_prediction", "schema"})),
    Layout("answers-pred", "raw answers of a language model", gold=False, needs_templates=True,
           priority=26, detect=_answers, read=answer_documents,
           write=partial(_string_role_lines, field="response"), schema="famus",
           read_options=frozenset({"parse", "schema", "roles_of"})),
)
"""Every modern layout, in the order messages list them (detection follows ``priority``)."""

LAYOUTS: tuple[str, ...] = tuple(layout.name for layout in REGISTRY)

NEUTRAL = {True: "muceval-gold", False: "muceval-pred"}
# What ``muceval convert --to`` writes; ``muceval``: the neutral layout of the input's gold.
TARGET_LAYOUTS = ("muceval", *(name for name in LAYOUTS if name not in NEUTRAL.values()))

_BY_PRIORITY = sorted(REGISTRY, key=lambda layout: layout.priority)
