"""The model of template-filling data in JSON layouts (MUC-4's GTT, GRIT and IterX; FAMuS; raw
answers of language models): documents of templates or extracts (per role, with no templates),
and entities, the mention strings as written (normalisation belongs to the metrics).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

__all__ = [
    "ROLES",
    "ROLE_SLOTS",
    "Entity",
    "ModernDocument",
    "ModernFile",
    "ModernTemplate",
    "ParseNote",
    "docid_of_number",
    "number_of_docid",
    "role_union",
]

ROLES: tuple[str, ...] = ("PerpInd", "PerpOrg", "Target", "Victim", "Weapon")
"""The five roles of MUC-4 template extraction, in the order every layout uses."""

ROLE_SLOTS: dict[str, tuple[str, ...]] = {
    "PerpInd": ("perp-ind-id",), "PerpOrg": ("perp-org-id",), "Target": ("phys-tgt-id",),
    "Victim": ("hum-tgt-name", "hum-tgt-desc"), "Weapon": ("inc-instr-id",)}
"""The 1992 MUC-4 string slots each role is made of (as GTT made its data from the keys, and
as Das et al.'s error categories read 1992 templates)."""

Entity = tuple[str, ...]
"""One entity: its mention strings, in file order."""


@dataclass(frozen=True)
class ModernTemplate:
    """One template: its type (MUC-4's incident type; ``None`` when the file gives no string)
    and, per role of ``role_names`` (MUC-4's :data:`ROLES` unless given), its entities.

    >>> t = ModernTemplate("Hiring", ((("Fogerty",),), ()), role_names=("Employer", "Time"))
    >>> t.role("Employer"), t.role("Place")
    ((('Fogerty',),), ())
    """

    incident_type: str | None
    roles: tuple[tuple[Entity, ...], ...]
    role_names: tuple[str, ...] = ROLES

    def __post_init__(self) -> None:
        if len(self.roles) != len(self.role_names):
            raise ValueError(f"{len(self.roles)} roles given for {len(self.role_names)} names")

    def role(self, name: str) -> tuple[Entity, ...]:
        """The entities of role ``name`` (none when the template has no such role)."""
        return self.roles[self.role_names.index(name)] if name in self.role_names else ()

    def named_roles(self) -> tuple[tuple[str, tuple[Entity, ...]], ...]:
        """``(role, entities)`` in the template's order."""
        return tuple(zip(self.role_names, self.roles, strict=True))


@dataclass(frozen=True)
class ParseNote:
    """What reading one raw answer of a language model met: a ``kind`` (``unparsed``,
    ``not-an-object``, ``string-as-characters``, ``dropped-filler``, or a lenient repair such
    as ``prose-after``, ``truncated``, ``role-renamed``), the document, its line and an
    example of the text concerned."""

    kind: str
    docid: str
    line: int | None
    example: str

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True)
class ModernDocument:
    """One document: ``templates`` (template layouts) or ``extracts`` (per role; GRIT)."""

    docid: str
    templates: tuple[ModernTemplate, ...] | None = None
    extracts: tuple[tuple[Entity, ...], ...] | None = None
    line: int | None = field(default=None, compare=False)
    notes: tuple[ParseNote, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class ModernFile:
    """The documents of one file, in file order, and what layout they were read from.

    ``schema`` names the template schema (:mod:`muceval.core.schema`); ``as_prediction``
    says that a gold file is read as predictions (FAMuS's report baseline: one context's gold
    scored against another's); ``parse``: how raw answers were read (``'strict'`` or
    ``'lenient'``; None: not raw answers).
    """

    path: str
    layout: str
    documents: tuple[ModernDocument, ...]
    schema: str = "muc4"
    as_prediction: bool = False
    parse: str | None = None

    @property
    def gold(self) -> bool:
        return self.layout.endswith("-gold") and not self.as_prediction

    @property
    def notes(self) -> tuple[ParseNote, ...]:
        """What reading raw answers met, document by document."""
        return tuple(note for d in self.documents for note in d.notes)

    def by_id(self) -> dict[str, ModernDocument]:
        return {d.docid: d for d in self.documents}


_DOCID = re.compile(r"TST(\d)-MUC([34])-(\d{4})")


def docid_of_number(number: int) -> str:
    """The MUC-4 document id of a numeric id (test-set digit × 10000 + message number).

    >>> docid_of_number(30002), docid_of_number(10017)
    ('TST3-MUC4-0002', 'TST1-MUC3-0017')
    """
    test_set, message = divmod(number, 10_000)
    if not 1 <= test_set <= 9 or not 1 <= message <= 9999:
        raise ValueError(f"{number} is not a numeric MUC document id (e.g. 30002)")
    return f"TST{test_set}-MUC{3 if test_set == 1 else 4}-{message:04d}"


def number_of_docid(docid: str) -> int:
    """The numeric form of a MUC document id.

    >>> number_of_docid("TST4-MUC4-0100")
    40100
    """
    m = _DOCID.fullmatch(docid)
    if m is None:
        raise ValueError(f"{docid!r} is not a MUC document id (e.g. TST3-MUC4-0002)")
    return int(m.group(1)) * 10_000 + int(m.group(3))


def role_union(templates: tuple[ModernTemplate, ...] | list[ModernTemplate],
               roles: tuple[str, ...] = ROLES) -> tuple[tuple[Entity, ...], ...]:
    """Per role of ``roles``, the entities of all templates in first-seen order, exact
    duplicates dropped (how template predictions are scored by CEAF-REE, and written as GRIT
    extracts).

    >>> t = ModernTemplate("attack", ((("a",),), (), (), (), ()))
    >>> role_union([t, t])[0]
    (('a',),)
    """
    own = [template.roles if template.role_names == roles
           else tuple(template.role(r) for r in roles) for template in templates]
    return tuple(tuple(dict.fromkeys(entity for each in own for entity in each[i]))
                 for i in range(len(roles)))
