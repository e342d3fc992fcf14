"""Template schemas: what a template of a dataset is, as data (:class:`Schema`). The scorers
take their choices from the schema of the gold file (``ModernFile.schema``), so that one
implementation of each metric serves every dataset.

>>> schema_named("famus").template_type("EN-4363-3-frame-Abandonment")
'Abandonment'
>>> schema_named("muc4").roles
('PerpInd', 'PerpOrg', 'Target', 'Victim', 'Weapon')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from muceval.core.modern import ROLES
from muceval.errors import UsageError

__all__ = ["FAMUS", "MUC4", "NORMALISATIONS", "SCHEMAS", "Schema", "register_schema",
           "schema_named"]

Normalisation = Literal["squad", "none", "lower-tokens", "unicode"]
NORMALISATIONS: tuple[Normalisation, ...] = ("squad", "none", "lower-tokens", "unicode")
"""``squad``: lower case, ASCII punctuation and English articles removed, spaces collapsed
(GTT's and IterX's MUC-4 scorers); ``none``: as written (FAMuS); ``lower-tokens``: lower case,
spaces collapsed; ``unicode``: NFKC, case-folded, every Unicode punctuation mark removed,
spaces collapsed (for languages other than English)."""


@dataclass(frozen=True)
class Schema:
    """One template schema, chosen by ``name`` (``--schema``) and shown by ``label``.

    A template's type comes from its field ``type_field`` (MUC-4's ``incident_type``) or, with
    ``type_from="docid"``, from the document id after ``docid_separator`` (FAMuS's
    ``EN-4363-3-frame-Abandonment``). ``roles`` is the closed list of roles every template has,
    in order; None: open (a type's roles are those its gold templates give, and a prediction's
    other keys are kept). ``fillers`` are entities (lists of mentions) or strings (each its own
    entity); ``normalisation`` (:data:`NORMALISATIONS`) applies to mentions before comparison.
    ``group_predictions="substring"`` (FAMuS): a role's predicted strings, exact duplicates
    dropped, are each joined to the first longer string that contains it (shortest first, then
    in answer order) before scoring. ``sanitise_gold`` removes ``' " \\ -`` from gold
    mentions before normalising them (IterX on MUC-4).
    """

    name: str
    label: str
    type_from: Literal["field", "docid"] = "field"
    type_field: str = "incident_type"
    docid_separator: str = ""
    roles: tuple[str, ...] | None = None
    fillers: Literal["entities", "strings"] = "entities"
    normalisation: Normalisation = "squad"
    group_predictions: Literal["substring"] | None = None
    sanitise_gold: bool = False
    reported: tuple[tuple[str, str | None], ...] = ()
    """The scores its literature reports, as ``(scorer, phi)``: what a report shows (empty:
    every scorer that takes the schema, each with its first similarity)."""
    source: str = field(default="", compare=False)
    """The file it was read from (empty: built in)."""

    def __post_init__(self) -> None:
        if self.normalisation not in NORMALISATIONS:
            raise UsageError(f"normalisation {self.normalisation!r}: choose from "
                             f"{', '.join(NORMALISATIONS)}", parameter="normalisation")
        if self.type_from == "docid" and not self.docid_separator:
            raise UsageError("a type taken from the document id needs the separator after "
                             "which it stands", parameter="docid_separator")
        if self.roles is not None and len(set(self.roles)) != len(self.roles):
            raise UsageError("a role is listed twice", parameter="roles")

    @property
    def open(self) -> bool:
        """Whether roles are open (taken from the gold, predictions' other keys kept)."""
        return self.roles is None

    def template_type(self, docid: str) -> str | None:
        """The type of a template of document ``docid`` when the id gives it (else None)."""
        if self.type_from != "docid":
            return None
        _, found, rest = docid.partition(self.docid_separator)
        return rest if found else None


MUC4 = Schema("muc4", "MUC-4 (GTT, GRIT, IterX layouts)", roles=ROLES, sanitise_gold=True)
FAMUS = Schema("famus", "FAMuS (FrameNet frames; Vashishtha et al. 2024)", type_from="docid",
               docid_separator="-frame-", fillers="strings", normalisation="none",
               group_predictions="substring",
               reported=(("ceaf-rme", "phi3"), ("ceaf-rme", "phi-a")))

SCHEMAS: dict[str, Schema] = {}
"""Every schema by name: the built-in ones and those registered (a user's TOML file)."""


def register_schema(schema: Schema) -> None:
    """Add a schema (a name may be registered once)."""
    if schema.name in SCHEMAS:
        raise UsageError(f"a schema named {schema.name!r} exists already", parameter="schema")
    SCHEMAS[schema.name] = schema


def schema_named(name: str) -> Schema:
    """The schema called ``name`` (a :class:`UsageError` of parameter ``schema`` if none is)."""
    if name not in SCHEMAS:
        raise UsageError(f"unknown schema {name!r}; choose from {', '.join(SCHEMAS)}",
                         parameter="schema")
    return SCHEMAS[name]


register_schema(MUC4)
register_schema(FAMUS)
