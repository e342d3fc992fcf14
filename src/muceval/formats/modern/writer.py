"""Writing modern MUC-4 documents in any of the layouts, and making them from 1992 templates.

``muceval convert`` is built on these: a GTT, GRIT, IterX or neutral file (or a 1992
template file with its configuration) becomes any layout a scorer reads. Mention offsets,
which no scorer uses, are written as -1 (unknown) in the gold layouts; document texts as "".
Template layouts cannot be made from GRIT's per-role extracts (they have no templates); the
extract layouts take the per-role union of a document's templates, as GRIT's scorer does.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from muceval.core.model import (
    Configuration,
    CrossRef,
    Template,
    TemplateFile,
    Value,
    iter_texts,
)
from muceval.core.modern import (
    ROLE_SLOTS,
    ROLES,
    Entity,
    ModernDocument,
    ModernFile,
    ModernTemplate,
    number_of_docid,
    role_union,
)
from muceval.errors import InputError, UsageError
from muceval.formats.modern import NEUTRAL_FORMAT

__all__ = ["ROLE_SLOTS", "TARGET_LAYOUTS", "from_templates", "write_layout"]

TARGET_LAYOUTS = ("muceval", "gtt-gold", "gtt-pred", "grit-gold", "grit-pred", "iterx-pred")
"""What ``muceval convert --to`` writes (``muceval``: the neutral JSON, gold or predictions
as the input was)."""

def write_layout(modern: ModernFile, layout: str) -> str:
    """``modern`` in ``layout`` (one of :data:`TARGET_LAYOUTS`).

    >>> t = ModernTemplate("attack", ((("shining path",),), (), (), (), ()))
    >>> f = ModernFile("x", "gtt-pred", (ModernDocument("TST3-MUC4-0002", (t,)),))
    >>> print(write_layout(f, "gtt-pred"), end="")
    {"30002": {"pred_templates": [{"incident_type": "attack", "PerpInd": [["shining path"]], \
"PerpOrg": [], "Target": [], "Victim": [], "Weapon": []}]}}
    """
    if layout not in TARGET_LAYOUTS:
        raise UsageError(f"unknown layout {layout!r}; choose from {', '.join(TARGET_LAYOUTS)}")
    if layout in ("gtt-gold", "gtt-pred", "iterx-pred"):
        missing = [d.docid for d in modern.documents if d.templates is None]
        if missing:
            raise InputError.at(modern.path, None, f"{layout} needs templates, and "
                                f"{modern.layout} has per-role extracts only (e.g. document "
                                f"{missing[0]}): convert to grit-gold, grit-pred or muceval")
    if layout == "muceval":
        return json.dumps({"format": NEUTRAL_FORMAT, "format_version": 1, "gold": modern.gold,
                           "source": modern.layout,
                           "documents": [_neutral(d) for d in modern.documents]},
                          ensure_ascii=False, indent=1) + "\n"
    if layout == "gtt-gold":
        return "".join(json.dumps({"docid": d.docid, "doctext": "", "templates": [
            _template(t, gold=True) for t in d.templates or ()]}, ensure_ascii=False) + "\n"
            for d in modern.documents)
    if layout == "grit-gold":
        return "".join(json.dumps({"docid": d.docid, "doctext": "", "extracts": _roles(
            _extracts(d), gold=True)}, ensure_ascii=False) + "\n" for d in modern.documents)
    if layout == "iterx-pred":
        return "".join(_iterx_lines(modern))
    field = "pred_templates" if layout == "gtt-pred" else "pred_extracts"
    out: dict[str, Any] = {}
    for d in modern.documents:
        key = str(_number(modern.path, d.docid))
        out[key] = {field: [_template(t, gold=False) for t in d.templates or ()]
                    if layout == "gtt-pred" else _roles(_extracts(d), gold=False)}
    return json.dumps(out, ensure_ascii=False) + "\n"


def _number(path: str, docid: str) -> int:
    try:
        return number_of_docid(docid)
    except ValueError:
        raise InputError.at(path, None, f"document {docid}: GTT and GRIT predictions key "
                            "documents by numeric MUC ids (TST3-MUC4-0002 → 30002)") from None


def _entities(entities: tuple[Entity, ...], gold: bool) -> list[list[Any]]:
    return [[[m, -1] if gold else m for m in e] for e in entities]


def _roles(roles: tuple[tuple[Entity, ...], ...], gold: bool) -> dict[str, Any]:
    return {role: _entities(entities, gold) for role, entities in zip(ROLES, roles,
                                                                       strict=True)}


def _template(t: ModernTemplate, gold: bool) -> dict[str, Any]:
    return {"incident_type": t.incident_type, **_roles(t.roles, gold)}


def _extracts(d: ModernDocument) -> tuple[tuple[Entity, ...], ...]:
    if d.extracts is not None:
        return d.extracts
    return role_union(d.templates or ())


def _neutral(d: ModernDocument) -> dict[str, Any]:
    if d.templates is not None:
        return {"docid": d.docid, "templates": [_template(t, gold=False) for t in d.templates]}
    return {"docid": d.docid, "extracts": _roles(d.extracts or (), gold=False)}


def _iterx_lines(modern: ModernFile) -> Iterator[str]:
    """One line per run of templates of one incident type: reading the lines back gives the
    templates in their order (GTT's map search breaks ties by that order)."""
    for d in modern.documents:
        runs: list[list[dict[str, Any]]] = []
        previous: object = object()
        for t in d.templates or ():
            if t.incident_type != previous:
                runs.append([])
                previous = t.incident_type
            # IterX leaves empty roles out.
            runs[-1].append({"incident_type": t.incident_type,
                             **{r: v for r, v in _roles(t.roles, gold=False).items() if v}})
        if not runs:
            yield json.dumps({d.docid: []}) + "\n"
        for templates in runs:
            yield json.dumps({d.docid: templates}, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------------------
# From 1992 template files
# ---------------------------------------------------------------------------


def from_templates(file: TemplateFile, config: Configuration, gold: bool) -> ModernFile:
    """1992 templates as modern documents: the incident type from ``inc-type`` (lower case),
    each role from its MUC-4 slots (:data:`ROLE_SLOTS`); a string fill is an entity whose
    mentions are its ``/`` alternatives, and a description tagged with a name
    (``"PRIEST": "X"``) joins that name's entity. Irrelevant templates (``*``) give none; a
    role whose slots the configuration lacks stays empty."""
    known = {s.slot_id for s in config.slots}
    if "inc-type" not in known or not known & {slot for slots in ROLE_SLOTS.values()
                                               for slot in slots}:
        raise InputError.at(file.path, None, "the configuration has no inc-type or none of the "
                            "MUC-4 string slots of the roles: only MUC-4 templates convert to "
                            "the modern layouts")
    documents: dict[str, list[ModernTemplate]] = {}
    for t in file.templates:
        templates = documents.setdefault(t.message_id, [])
        if t.template_id != "*":
            templates.append(_modern_template(t))
    return ModernFile(file.path, "muceval-gold" if gold else "muceval-pred",
                      tuple(ModernDocument(m, tuple(ts)) for m, ts in documents.items()))


def _strings(value: Value) -> list[str]:
    """The quoted strings of a fill, unquoted (alternatives in written order)."""
    return [t.content for t in iter_texts(value) if t.quoted]


def _modern_template(t: Template) -> ModernTemplate:
    slots = {s.slot_id: s.fills for s in t.slots}
    kinds = [s.lower() for fill in slots.get("inc-type", ()) for s in _words(fill)]
    roles = []
    for role in ROLES:
        entities: list[list[str]] = []
        by_name: dict[str, list[str]] = {}
        for slot in ROLE_SLOTS[role]:
            for fill in slots.get(slot, ()):
                if isinstance(fill, CrossRef):
                    mentions, tag = _strings(fill.value), _strings(fill.tag)
                    if tag and tag[0] in by_name:
                        by_name[tag[0]].extend(m for m in mentions if m not in by_name[tag[0]])
                        continue
                else:
                    mentions = _strings(fill)
                if mentions:
                    entities.append(list(mentions))
                    for m in mentions:
                        by_name.setdefault(m, entities[-1])
        roles.append(tuple(tuple(e) for e in entities))
    return ModernTemplate(" / ".join(dict.fromkeys(kinds)) or None, tuple(roles))


def _words(value: Value) -> list[str]:
    """The set words of an ``inc-type`` fill (a tag in quotes is not one)."""
    return [t.raw.strip() for t in iter_texts(value) if not t.quoted]
