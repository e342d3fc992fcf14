"""How likely a value is by chance: the share of key templates that have it (many key fills
are low-entropy, Kehler, Bear & Appelt 2001: two templates agreeing on one says little).

The chance of a value ``v`` in a slot is ``(c + 1) / (N + 1)``: ``N`` key templates, ``c``
of them with a fill equal to ``v`` (1992 equality), *below* it in the set hierarchy (so
ATTACK, the root, has chance ≈ 1), or, for a country, with a location in it; a
cross-referenced fill counts by its set part. The +1 keeps a value absent from the key from
looking infinitely informative.

>>> from muceval.core.model import Configuration, SlotSpec, SlotType, SetNode, Template, Slot, Text
>>> spec = SlotSpec("t", "4.  TYPE", SlotType.SET, (SetNode("ATTACK", (SetNode("BOMBING"),)),))
>>> cfg = Configuration(slots=(spec,))
>>> keys = [Template("M", str(i), False, (Slot("t", (Text(v),)),))
...         for i, v in enumerate(["BOMBING", "BOMBING", "ATTACK"])]
>>> model = ChanceModel(keys, cfg)
>>> model.chance("t", "BOMBING"), model.chance("t", "ATTACK")
(0.75, 1.0)
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from muceval.core.model import IRRELEVANT_ID, Configuration, SlotType, Template
from muceval.formats.muc.fills import format_value
from muceval.scoring.muc1992.equality import (
    LOC,
    OR,
    CValue,
    ValueMatcher,
    canon,
    to_model,
    unwrap_optional,
)

__all__ = ["ChanceModel", "SlotEntropy", "atoms", "bits", "value_text"]


def atoms(fill: CValue) -> list[CValue]:
    """The values a fill offers: alternatives apart, optional markers and tags removed."""
    fill = unwrap_optional(fill)
    if type(fill) is tuple and fill[0] == "xref":
        fill = fill[1]
    if type(fill) is tuple and fill[0] == OR:
        return [a for alt in fill[1] for a in atoms(alt)]
    return [fill]


def bits(chance: float) -> float:
    """The information of an agreement on a value of this chance: −log2 chance."""
    return -math.log2(chance) if chance > 0 else math.inf


def value_text(value: CValue, slot_type: SlotType) -> str:
    """A canonical value written as in a template file (for reports)."""
    return format_value(to_model(value), slot_type)


@dataclass(frozen=True, slots=True)
class SlotEntropy:
    """Kehler's table for one slot: how the key's fills are distributed."""

    slot_id: str
    templates: int
    filled: int
    distinct: int
    entropy: float
    """Shannon entropy (bits) of the distribution of fill values over the filled templates."""
    top: tuple[tuple[str, float], ...]
    """The most frequent values with their share of key templates."""


class ChanceModel:
    """Value chances per slot, from the templates of one or more keys."""

    def __init__(self, templates: Sequence[Template], config: Configuration,
                 matcher: ValueMatcher | None = None):
        self.matcher = matcher or ValueMatcher(config)
        self.templates = tuple(t for t in templates if t.template_id != IRRELEVANT_ID)
        self.n = len(self.templates)
        self._types = {s.slot_id: s.type for s in config.content_slots}
        # slot → per key template, the atoms of its fills
        self._atoms: dict[str, list[list[CValue]]] = {}
        for slot_id in self._types:
            rows: list[list[CValue]] = []
            for t in self.templates:
                fills = next((s.fills for s in t.slots if s.slot_id == slot_id), ())
                rows.append([a for f in fills for a in atoms(canon(f)) if a is not None])
            self._atoms[slot_id] = rows
        self._cache: dict[tuple[str, CValue], float] = {}
        self._words_cache: dict[tuple[str, frozenset[str]], float] = {}

    def _covers(self, slot_id: str, atom: CValue, value: CValue) -> bool:
        m = self.matcher
        if m.equal(atom, value) or m.ancestor(slot_id, value, atom):
            return True
        if self._types.get(slot_id) is SlotType.LOCATION and type(value) is str:
            return type(atom) is tuple and atom[0] == LOC and m.equal(atom[1][0], value)
        return False

    def chance(self, slot_id: str, value: CValue) -> float:
        """``(c + 1) / (N + 1)`` (see the module docstring); 1 for a slot the key lacks."""
        got = self._cache.get((slot_id, value))
        if got is None:
            rows = self._atoms.get(slot_id)
            if rows is None:
                return 1.0
            c = sum(1 for row in rows if any(self._covers(slot_id, a, value) for a in row))
            got = min(1.0, (c + 1) / (self.n + 1))
            self._cache[(slot_id, value)] = got
        return got

    def words_chance(self, slot_id: str, words: frozenset[str]) -> float:
        """The chance that a key template's fills in the slot share one of ``words``."""
        got = self._words_cache.get((slot_id, words))
        if got is None:
            rows = self._atoms.get(slot_id, [])
            w = self.matcher.words
            c = sum(1 for row in rows if any(w(a) & words for a in row))
            got = min(1.0, (c + 1) / (self.n + 1))
            self._words_cache[(slot_id, words)] = got
        return got

    def entropy(self, top: int = 5) -> list[SlotEntropy]:
        """The distribution of key values per slot (Kehler, Bear & Appelt 2001, table 1)."""
        out = []
        for slot_id, rows in self._atoms.items():
            per_template: Counter[str] = Counter()
            for row in rows:
                per_template.update({value_text(a, self._types[slot_id]) for a in row})
            filled = sum(1 for row in rows if row)
            # Most common first, ties by value: the values of a row come from a set, whose
            # order changes from run to run.
            ranked = sorted(per_template.items(), key=lambda item: (-item[1], item[0]))
            total = sum(per_template.values())
            entropy = -sum((c / total) * math.log2(c / total) for _, c in ranked) \
                if total else 0.0
            shares = tuple((v, c / self.n) for v, c in ranked[:top]) if self.n else ()
            out.append(SlotEntropy(slot_id, self.n, filled, len(per_template),
                                   entropy + 0.0, shares))
        return out
