"""Writing modern MUC-4 documents in any of the layouts, and making them from 1992 templates
(``muceval convert``)."""

from __future__ import annotations

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
    ModernDocument,
    ModernFile,
    ModernTemplate,
)
from muceval.core.schema import schema_named
from muceval.errors import InputError
from muceval.formats.files import check_choice
from muceval.formats.modern import NEUTRAL, TARGET_LAYOUTS, Layout, layout_named

__all__ = ["NEUTRAL", "ROLE_SLOTS", "TARGET_LAYOUTS", "from_templates", "write_layout"]


def write_layout(modern: ModernFile, layout: str) -> str:
    """``modern`` in ``layout`` (one of :data:`TARGET_LAYOUTS`).

    >>> t = ModernTemplate("attack", ((("shining path",),), (), (), (), ()))
    >>> f = ModernFile("x", "gtt-pred", (ModernDocument("TST3-MUC4-0002", (t,)),))
    >>> print(write_layout(f, "gtt-pred"), end="")
    {"30002": {"pred_templates": [{"incident_type": "attack", "PerpInd": [["shining path"]], \
"PerpOrg": [], "Target": [], "Victim": [], "Weapon": []}]}}
    """
    check_choice(layout, TARGET_LAYOUTS, "layout")
    target = layout_named(NEUTRAL[modern.gold] if layout == "muceval" else layout)
    if not _takes(target, modern.schema):
        others = [name for name in TARGET_LAYOUTS
                  if _takes(layout_named(NEUTRAL[modern.gold] if name == "muceval" else name),
                            modern.schema)]
        raise InputError.at(modern.path, None, f"{modern.layout} holds {modern.schema} "
                            f"templates and {layout} is a {target.schema} layout: convert to "
                            f"{', '.join(others)}")
    missing = [d.docid for d in modern.documents if d.templates is None]
    if target.needs_templates and missing:
        extracts = [name for name in TARGET_LAYOUTS[1:] if not layout_named(name).needs_templates]
        raise InputError.at(modern.path, None, f"{layout} needs templates, and {modern.layout} "
                            f"has per-role extracts only (e.g. document {missing[0]}): convert "
                            f"to {', '.join(extracts)} or muceval")
    return target.write(modern)


def _takes(layout: Layout, schema: str) -> bool:
    """Whether ``layout`` holds templates of ``schema``: its own; any, when it reads any and
    its templates name their type; those whose ids give the type, when its ids do (FAMuS)."""
    return layout.schema == schema or "schema" in layout.read_options and (
        schema_named(layout.schema).type_from == "field"
        or schema_named(schema).type_from == "docid")


def from_templates(file: TemplateFile, config: Configuration, gold: bool) -> ModernFile:
    """1992 templates as modern documents: a string fill is an entity of its ``/`` alternatives,
    and a description tagged with a name (``"PRIEST": "X"``) joins that name's entity."""
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
    return ModernFile(file.path, NEUTRAL[gold],
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
