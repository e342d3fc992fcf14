"""Value equality as the 1992 MUC-4 scorer decides it (SCORER-SPEC §3), on *canonical*
values: model values as nested tuples with upper-cased strings (hashable, so results are
cached, and cheap to compare). The shapes are::

    str                              -- a bare token or a quoted string, quotes kept, upper case
    None                             -- null
    ("or", (v, ...))                 -- alternatives, flattened
    ("opt", v)                       -- an optional key fill
    ("xref", value, tag)             -- a cross-referenced fill
    ("range", low, high)
    ("loc", (country, place, ...))   -- a location: country first, then places
    ("qual", value, qualifier)
    ("between", first, second)
    ("allof", (v, ...))              -- history only: one judgement for several key fills
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any, TypeGuard

from muceval.core import model
from muceval.core.model import Configuration, SlotSpec

OR = "or"
OPT = "opt"
XREF = "xref"
RANGE = "range"
LOC = "loc"
QUAL = "qual"
BETWEEN = "between"
ALLOF = "allof"

CValue = str | None | tuple[Any, ...]
"""A canonical value (see the module docstring)."""

# The model values of two parts: their tag, and the names of their parts.
_PAIRS: dict[type[model.CrossRef | model.Range | model.Qualified | model.Between],
             tuple[str, str, str]] = {
    model.CrossRef: (XREF, "value", "tag"),
    model.Range: (RANGE, "low", "high"),
    model.Qualified: (QUAL, "value", "qualifier"),
    model.Between: (BETWEEN, "first", "second"),
}
_PAIR_TYPES = {tag: kind for kind, (tag, _, _) in _PAIRS.items()}

__all__ = [
    "ALLOF",
    "BETWEEN",
    "CValue",
    "LOC",
    "OPT",
    "OR",
    "QUAL",
    "RANGE",
    "XREF",
    "ValueMatcher",
    "allowable",
    "canon",
    "is_optional",
    "iter_strings",
    "is_xref",
    "to_model",
    "unwrap_optional",
    "xref_part",
]


def _alternatives(items: Iterable[CValue]) -> CValue:
    flat: list[CValue] = []
    for item in items:
        if type(item) is tuple and item[0] == OR:
            flat.extend(item[1])
        else:
            flat.append(item)
    if len(flat) == 1:
        return flat[0]
    return (OR, tuple(flat))


def canon(value: model.Value) -> CValue:
    """The canonical form of a model value: upper case, tuples, flattened alternatives.

    >>> canon(model.CrossRef(model.Text("civilian"), model.Text('"Jesuits"')))
    ('xref', 'CIVILIAN', '"JESUITS"')
    """
    if value is None:
        return None
    if isinstance(value, model.Text):
        # The 1992 program upper-cased everything it read; quotes stay part of the string.
        return value.raw.upper()
    if isinstance(value, model.Alternatives):
        if len(value.options) == 1:
            # A lone parenthesised part stays a set of one (fills._operand): an
            # alternative set of the key then equals it only by set equality.
            return (OR, (canon(value.options[0]),))
        return _alternatives(canon(v) for v in value.options)
    if isinstance(value, model.OptionalValue):
        return (OPT, canon(value.value))
    if isinstance(value, model.Location):
        return (LOC, (canon(value.country),) + tuple(canon(p) for p in value.places))
    if isinstance(value, model.AllOf):
        return (ALLOF, tuple(canon(v) for v in value.members))
    pair = _PAIRS.get(type(value))
    if pair is None:
        raise TypeError(f"not a fill value: {value!r}")
    tag, first, second = pair
    return (tag, canon(getattr(value, first)), canon(getattr(value, second)))


def to_model(value: CValue) -> model.Value:
    """The model value of a canonical value (strings become :class:`model.Text`).

    >>> to_model(("opt", "ATTACK"))
    OptionalValue(value=Text(raw='ATTACK'))
    """
    if value is None:
        return None
    if type(value) is str:
        return model.Text(value)
    tag = value[0]
    if tag == OR:
        return model.Alternatives(tuple(to_model(v) for v in value[1]))
    if tag == OPT:
        return model.OptionalValue(to_model(value[1]))
    if tag in _PAIR_TYPES:
        return _PAIR_TYPES[tag](to_model(value[1]), to_model(value[2]))
    if tag == LOC:
        return model.Location(to_model(value[1][0]), tuple(to_model(v) for v in value[1][1:]))
    if tag == ALLOF:
        return model.AllOf(tuple(to_model(v) for v in value[1]))
    raise TypeError(f"not a canonical value: {value!r}")


def is_optional(value: CValue) -> TypeGuard[tuple[Any, ...]]:
    return type(value) is tuple and value[0] == OPT


def is_xref(value: CValue) -> TypeGuard[tuple[Any, ...]]:
    return type(value) is tuple and value[0] == XREF


def unwrap_optional(value: CValue) -> CValue:
    return value[1] if type(value) is tuple and value[0] == OPT else value


def xref_part(value: CValue) -> tuple[Any, ...] | None:
    """The cross-reference of a key fill, looking through an optional marker (else ``None``)."""
    if type(value) is tuple:
        if value[0] == XREF:
            return value
        if value[0] == OPT and type(value[1]) is tuple and value[1][0] == XREF:
            return value[1]
    return None


def allowable(value: CValue) -> int:
    """How many set values a key fill allows (SCORER-SPEC §6.1, the PIE rule).

    >>> allowable(("or", ("BOMB", "MINE"))), allowable(("opt", ("xref", ("or", ("A", "B")), "T")))
    (2, 2)
    """
    if value is None:
        return 0
    if type(value) is str:
        return 1
    tag = value[0]
    if tag == OR:
        return len(value[1])
    if tag == XREF:
        return allowable(value[1])
    if tag == OPT and is_xref(value[1]):
        return allowable(value[1][1])
    return 1


def iter_strings(value: CValue) -> Iterator[str]:
    """Every string inside a canonical value, in written order."""
    if value is None:
        return
    if type(value) is str:
        yield value
        return
    if value[0] in _SEQUENCE_TAGS:
        for item in value[1]:
            yield from iter_strings(item)
    else:
        for part in value[1:]:
            yield from iter_strings(part)


_SEQUENCE_TAGS = frozenset({OR, LOC, ALLOF})


class ValueMatcher:
    """Equality, premodifier stripping, set hierarchy and word overlap for one configuration.

    >>> from muceval.core.model import SlotSpec, SlotType, SetNode
    >>> spec = SlotSpec("t", "4.  TYPE", SlotType.SET, (SetNode("ATTACK", (SetNode("BOMBING"),)),))
    >>> m = ValueMatcher(Configuration(slots=(spec,), string_premodifiers=("the",)))
    >>> m.equal('"JESUIT PRIESTS"', '"THE JESUIT PRIESTS"'), m.ancestor("t", "ATTACK", "BOMBING")
    (True, True)
    """

    def __init__(self, config: Configuration):
        self._premodifiers = tuple(
            re.compile(re.escape(p) + r"[ \t\n]+", re.IGNORECASE)
            for p in config.string_premodifiers
        )
        # One pattern for "is there anything to strip at all": most strings have nothing.
        self._any_premodifier = (
            re.compile(
                "(?:" + "|".join(re.escape(p) for p in config.string_premodifiers) + r")[ \t\n]",
                re.IGNORECASE,
            )
            if config.string_premodifiers
            else None
        )
        self._descendants: dict[str, dict[str, frozenset[str]]] = {
            spec.slot_id: _descendants(spec) for spec in config.slots if spec.set_values
        }
        self._strip_cache: dict[str, str] = {}
        self._equal_cache: dict[tuple[CValue, CValue], bool] = {}
        self._words_cache: dict[CValue, frozenset[str]] = {}

    def strip(self, text: str) -> str:
        """Delete every premodifier (in configuration order) followed by whitespace; not
        anchored at word starts, exactly as in 1992 (§3.2)."""
        cached = self._strip_cache.get(text)
        if cached is not None:
            return cached
        out = text
        if self._any_premodifier is not None and self._any_premodifier.search(text) is not None:
            for pattern in self._premodifiers:
                # Repeatedly delete the leftmost occurrence: a deletion can create a new one.
                while (found := pattern.search(out)) is not None:
                    out = out[: found.start()] + out[found.end() :]
        self._strip_cache[text] = out
        return out

    def identity(self, value: CValue) -> str:
        """A fill in normal form: what makes two fills "the same response" across systems.

        >>> ValueMatcher(Configuration(slots=(), string_premodifiers=("the",))).identity(
        ...     ("xref", '"THE JESUITS"', ("or", ("B", "A"))))
        '"JESUITS": A / B'
        """
        if value is None:
            return "-"
        if type(value) is str:
            return self.strip(value)
        tag = value[0]
        if tag in (OR, ALLOF):
            parts = sorted(self.identity(v) for v in value[1])
            return " / ".join(parts) if tag == OR else "{" + ", ".join(parts) + "}"
        if tag == OPT:
            return "?" + self.identity(value[1])
        if tag == XREF:
            return f"{self.identity(value[1])}: {self.identity(value[2])}"
        if tag == LOC:
            return " - ".join(self.identity(v) for v in value[1])
        return f"{tag}({', '.join(self.identity(v) for v in value[1:])})"

    def equal(self, k: CValue, r: CValue) -> bool:
        """The asymmetric equality of §3.1 (``k`` on the key side, ``r`` on the response side)."""
        key = (k, r)
        cached = self._equal_cache.get(key)
        if cached is None:
            cached = self._equal(k, r)
            self._equal_cache[key] = cached
        return cached

    def _equal(self, k: CValue, r: CValue) -> bool:
        if type(r) is tuple and r[0] in (OR, OPT) and (k is None or type(k) is str):
            return self.equal(r, k)
        if k is None:
            return r is None or r == ""
        if isinstance(k, str):
            if k == "":
                return r is None
            if type(r) is not str:
                return False
            return r == k or self.strip(k) == self.strip(r)
        tag = k[0]
        if tag == OR:
            if isinstance(r, tuple) and r[0] == OR:
                return self._set_equal(k[1], r[1])
            # The response goes first here, as in 1992.
            return any(self.equal(r, a) for a in k[1])
        if tag == OPT:
            if r is None:
                return True
            return self.equal(k[1], unwrap_optional(r))
        if not isinstance(r, tuple) or r[0] != tag:
            return False
        if tag == LOC:
            return len(k[1]) == len(r[1]) and all(
                self.equal(a, b) for a, b in zip(k[1], r[1], strict=True)
            )
        if tag == ALLOF:
            return self._set_equal(k[1], r[1])
        # xref, qualified, range, between: both components
        return self.equal(k[1], r[1]) and self.equal(k[2], r[2])

    def _set_equal(self, left: tuple[Any, ...], right: tuple[Any, ...]) -> bool:
        return all(any(self.equal(a, b) for b in right) for a in left) and all(
            any(self.equal(a, b) for a in left) for b in right
        )

    def ancestor(self, slot_id: str, r: CValue, k: CValue) -> bool:
        """§3.3: whether set value ``r`` is a parent node whose subtree holds ``k`` (strings)."""
        if type(r) is not str or type(k) is not str:
            return False
        below = self._descendants.get(slot_id, {}).get(r)
        return below is not None and k in below

    def country_partial(self, k: CValue, r: CValue) -> bool:
        """§3.4: the key has places and the response names its country (partial credit)."""
        if type(r) is str:
            country = r
        elif type(r) is tuple and r[0] == LOC:
            country = r[1][0]
        else:
            return False
        if type(k) is not tuple:
            return False
        if k[0] == LOC:
            return self.equal(k[1][0], country)
        if k[0] == OR:
            return any(
                type(a) is tuple and a[0] == LOC and self.equal(a[1][0], country) for a in k[1]
            )
        return False

    def words(self, value: CValue) -> frozenset[str]:
        """Words of a value for the §7.2 restriction: quotes removed, premodifiers stripped."""
        cached = self._words_cache.get(value)
        if cached is None:
            out: set[str] = set()
            for text in iter_strings(value):
                out.update(self.strip(text.replace('"', "")).split())
            cached = frozenset(out)
            self._words_cache[value] = cached
        return cached


def _descendants(spec: SlotSpec) -> dict[str, frozenset[str]]:
    out: dict[str, frozenset[str]] = {}

    def visit(node: model.SetNode) -> None:
        if node.children:
            out[node.value.upper()] = frozenset(
                d.value.upper() for child in node.children for d in child.walk()
            )
        for child in node.children:
            visit(child)

    for root in spec.set_values:
        visit(root)
    return out
