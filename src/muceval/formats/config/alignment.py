"""The ``[alignment]`` tables of the native TOML configuration (``docs/configuration.md``,
"Alignment criteria"): reading, checking, writing."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from muceval.core.alignment import (
    ASSIGNMENTS,
    CARDINALITIES,
    CONDITION_KEYS,
    CREDITS,
    PREDEFINED,
    AlignmentSettings,
    AllOf,
    AnyOf,
    ChanceSettings,
    Condition,
    Criterion,
    MinEvidenceBits,
    MinMatchingSlots,
    MinPairScore,
    Not,
    SlotMatch,
    ValueTest,
)
from muceval.core.model import Configuration, SlotType

if TYPE_CHECKING:
    from muceval.formats.config.native import _TomlReader

__all__ = ["alignment_lines", "load_alignment_file", "read_alignment"]

_ALIGNMENT_KEYS = ("default", "compare", "flag", "chance", "criteria")
_CHANCE_KEYS = ("source", "keys", "common")
_CRITERION_KEYS = ("restriction", "assignment", "cardinality", "require", "description")
_VALUE_TEST_KEYS = ("credit", "max-chance", "min-bits")
_MAX_DEPTH = 20


class _AlignmentReader:
    """Reads the ``[alignment]`` table into :class:`AlignmentSettings` on top of ``base``."""

    def __init__(self, reader: _TomlReader, slots: dict[str, SlotType]):
        self.reader = reader
        self.slots = slots

    def fail(self, message: str, line: int | None) -> Exception:
        return self.reader.fail(message, line)

    def line(self, header: str, key: str) -> int | None:
        return self.reader.locate.key_line(header, key)

    def read(self, table: Any, base: AlignmentSettings) -> AlignmentSettings:
        r = self.reader
        header = "[alignment]"
        r.expect(table, dict, "[alignment]", r.locate.table_line(header))
        r.check_keys(table, _ALIGNMENT_KEYS, header)
        criteria = {c.name: c for c in base.criteria}
        given = r.expect(table.get("criteria", {}), dict, "alignment.criteria",
                         r.locate.table_line("[alignment.criteria]") or self.line(header, "criteria"))
        for name, body in given.items():
            where = f"[alignment.criteria.{name}]"
            line = r.locate.table_line(where) or self.line("[alignment.criteria]", name) \
                or self.line(header, "criteria")
            if name == "1992":
                raise self.fail("alignment criterion '1992' is predefined (the 1992 program's "
                                "mapping) and cannot be redefined: give yours another name", line)
            if not name.strip() or "," in name or "@" in name:
                raise self.fail(f"alignment criterion name {name!r}: use letters, digits, "
                                "'-' or '_' (no comma, no '@')", line)
            criteria[name] = self.criterion(name, body, where, line)
        fields: dict[str, Any] = {"criteria": tuple(criteria.values())}
        names = tuple(criteria)
        for key in ("default", "flag"):
            if key in table:
                line = self.line(header, key)
                fields[key] = self.known(r.expect(table[key], str, f"alignment.{key}", line),
                                         names, f"alignment.{key}", line)
        if "compare" in table:
            line = self.line(header, "compare")
            listed = r.string_list(table["compare"], "alignment.compare", line)
            if not listed:
                raise self.fail("alignment.compare: name at least one criterion", line)
            fields["compare"] = tuple(self.known(n, names, "alignment.compare", line)
                                      for n in dict.fromkeys(listed))
        if "chance" in table:
            fields["chance"] = self.chance(table["chance"], base.chance)
        settings = replace(base, **fields)
        default = settings.criterion(settings.default)
        if default.cardinality != "1:1":
            raise self.fail(f"alignment.default: criterion {default.name!r} has cardinality "
                            f"{default.cardinality} (a diagnostic); the default scores, so it "
                            "must be 1:1", self.line(header, "default"))
        return settings

    def known(self, name: str, names: tuple[str, ...], what: str, line: int | None) -> str:
        if name not in names:
            raise self.fail(f"{what}: unknown criterion {name!r} (known: {', '.join(names)})",
                            line)
        return name

    def chance(self, value: Any, base: ChanceSettings) -> ChanceSettings:
        r = self.reader
        header = "[alignment.chance]"
        line = r.locate.table_line(header)
        r.expect(value, dict, "alignment.chance", line)
        r.check_keys(value, _CHANCE_KEYS, header)
        readers: dict[str, Callable[[Any, str, int | None], Any]] = {
            "source": self.chance_source, "keys": r.string_list, "common": self.fraction
        }
        fields = {key: read(value[key], f"alignment.chance.{key}", self.line(header, key))
                  for key, read in readers.items() if key in value}
        out = replace(base, **fields)
        if out.source == "files" and not out.keys:
            raise self.fail('alignment.chance: source = "files" needs keys = ["KEY FILE", …]',
                            line)
        if out.source == "key" and "keys" in value and out.keys:
            raise self.fail('alignment.chance: keys are given but source is "key" (the key '
                            'being scored); write source = "files" to use them', line)
        return out

    def chance_source(self, value: Any, what: str, line: int | None) -> str:
        source: str = self.reader.expect(value, str, what, line)
        if source not in ("key", "files"):
            raise self.fail(f'{what}: expected "key" or "files", found {source!r}', line)
        return source

    def criterion(self, name: str, body: Any, where: str, line: int | None) -> Criterion:
        r = self.reader
        r.expect(body, dict, f"alignment criterion {name!r}", line)
        r.check_keys(body, _CRITERION_KEYS, where, what=f"criterion {name!r}")
        fields: dict[str, Any] = {}

        def key_line(key: str) -> int | None:
            return r.locate.key_line(where, key) or line

        if "restriction" in body:
            value = body["restriction"]
            what = f"criterion {name!r}: restriction"
            if isinstance(value, str):
                if value not in ("1992", "none"):
                    raise self.fail(f'{what}: expected "1992", "none" or an array ["and" | '
                                    f'"or", slot, …], found {value!r}', key_line("restriction"))
                fields["restriction"] = value
            else:
                expr = r.restriction(value, what, key_line("restriction"))
                self.check_slots(expr.slot_ids(), what, key_line("restriction"))
                fields["restriction"] = expr
        for key, allowed in (("assignment", ASSIGNMENTS), ("cardinality", CARDINALITIES)):
            if key in body:
                value = r.expect(body[key], str, f"criterion {name!r}: {key}", key_line(key))
                if value not in allowed:
                    raise self.fail(f"criterion {name!r}: {key} {value!r} is not one of "
                                    f"{', '.join(allowed)}", key_line(key))
                fields[key] = value
        if "description" in body:
            fields["description"] = r.expect(body["description"], str,
                                             f"criterion {name!r}: description",
                                             key_line("description"))
        if "require" in body:
            rline = key_line("require")
            items = r.expect(body["require"], list, f"criterion {name!r}: require", rline)
            fields["require"] = tuple(self.condition(item, f"criterion {name!r}: require", rline, 0)
                                      for item in items)
        return Criterion(name, **fields)

    def condition(self, value: Any, what: str, line: int | None, depth: int) -> Condition:
        r = self.reader
        if depth > _MAX_DEPTH:
            raise self.fail(f"{what}: conditions nested more than {_MAX_DEPTH} deep", line)
        r.expect(value, dict, f"{what} (each condition)", line)
        kinds = [k for k in value if k in CONDITION_KEYS]
        if len(kinds) != 1:
            found = ", ".join(kinds) if kinds else "none"
            raise self.fail(f"{what}: each condition is a table with exactly one of "
                            f"{', '.join(CONDITION_KEYS)} (found: {found})", line)
        kind = kinds[0]
        options, read = _CONDITIONS[kind]
        for key in value:
            if key != kind and key not in options:
                allowed = ", ".join(options) or "nothing else"
                raise self.fail(f"{what}: unknown key {key!r} in a {kind} condition "
                                f"(allowed with it: {allowed})", line)
        return read(self, kind, value, f"{what}: {kind}", line, depth)

    def combination(self, kind: str, value: dict[str, Any], where: str, line: int | None,
                    depth: int) -> Condition:
        """``all``, ``any`` or ``not`` of nested conditions."""
        arg = value[kind]
        if kind == "not":
            return Not(self.condition(arg, where, line, depth + 1))
        self.reader.expect(arg, list, where, line)
        if not arg:
            raise self.fail(f"{where}: give at least one condition", line)
        parts = tuple(self.condition(c, where, line, depth + 1) for c in arg)
        return AllOf(parts) if kind == "all" else AnyOf(parts)

    def min_pair_score(self, kind: str, value: dict[str, Any], where: str, line: int | None,
                       depth: int) -> Condition:
        arg = value[kind]
        score = self.number(arg, where, line)
        if not 0 <= score <= 100:
            raise self.fail(f"{where}: expected a percentage from 0 to 100, found {arg!r}",
                            line)
        return MinPairScore(score)

    def min_evidence_bits(self, kind: str, value: dict[str, Any], where: str, line: int | None,
                          depth: int) -> Condition:
        arg = value[kind]
        bits = self.number(arg, where, line)
        if bits < 0:
            raise self.fail(f"{where}: expected a number of bits ≥ 0, found {arg!r}", line)
        return MinEvidenceBits(bits, self.optional_slots(value, where, line))

    def min_matching_slots(self, kind: str, value: dict[str, Any], where: str,
                           line: int | None, depth: int) -> Condition:
        test = self.value_test(value, where, line)
        count = self.reader.expect(value[kind], int, where, line)
        if count < 1:
            raise self.fail(f"{where}: expected a count ≥ 1, found {count}", line)
        return MinMatchingSlots(count, self.optional_slots(value, where, line), test)

    def slot_match(self, kind: str, value: dict[str, Any], where: str, line: int | None,
                   depth: int) -> Condition:
        """``match`` (one slot), ``any-match`` or ``all-match`` (several)."""
        test = self.value_test(value, where, line)
        arg = value[kind]
        if kind == "match":
            slot = self.reader.expect(arg, str, f"{where} (one slot id; any-match or all-match "
                                                "take several)", line)
            self.check_slots((slot,), where, line)
            return SlotMatch("one", (slot,), test)
        slots = self.reader.string_list(arg, where, line)
        if not slots:
            raise self.fail(f"{where}: name at least one slot", line)
        self.check_slots(slots, where, line)
        return SlotMatch("any" if kind == "any-match" else "all", slots, test)

    def optional_slots(self, value: dict[str, Any], what: str, line: int | None) -> tuple[str, ...] | None:
        if "slots" not in value:
            return None
        slots = self.reader.string_list(value["slots"], f"{what}: slots", line)
        if not slots:
            raise self.fail(f"{what}: slots is empty (leave it out to count every slot)", line)
        self.check_slots(slots, what, line)
        return slots

    def value_test(self, value: dict[str, Any], what: str, line: int | None) -> ValueTest:
        credit = value.get("credit", "partial")
        if credit not in CREDITS:
            raise self.fail(f"{what}: credit {credit!r} is not one of {', '.join(CREDITS)}", line)
        max_chance = min_bits = None
        if "max-chance" in value:
            max_chance = self.fraction(value["max-chance"], f"{what}: max-chance", line)
        if "min-bits" in value:
            min_bits = self.number(value["min-bits"], f"{what}: min-bits", line)
            if min_bits < 0:
                raise self.fail(f"{what}: min-bits must be ≥ 0", line)
        return ValueTest(credit, max_chance, min_bits)

    def number(self, value: Any, what: str, line: int | None) -> float:
        number = self.reader.expect(value, (int, float), what, line)
        if not math.isfinite(number):
            raise self.fail(f"{what}: expected a finite number, found {value!r}", line)
        return float(number)

    def fraction(self, value: Any, what: str, line: int | None) -> float:
        number = self.number(value, what, line)
        if not 0 < number <= 1:
            raise self.fail(f"{what}: expected a probability above 0 and at most 1, found "
                            f"{value!r}", line)
        return number

    def check_slots(self, slots: tuple[str, ...], what: str, line: int | None) -> None:
        for slot in slots:
            kind = self.slots.get(slot)
            if kind is None:
                raise self.fail(f"{what}: unknown slot {slot!r}", line)
            if kind in (SlotType.MESSAGE_ID, SlotType.TEMPLATE_ID):
                raise self.fail(f"{what}: slot {slot!r} identifies templates; it cannot match",
                                line)


_ConditionReader = Callable[[_AlignmentReader, str, dict[str, Any], str, int | None, int], Condition]
# Each kind of condition (CONDITION_KEYS): the keys allowed beside it, and its reader.
_CONDITIONS: dict[str, tuple[tuple[str, ...], _ConditionReader]] = {
    "match": (_VALUE_TEST_KEYS, _AlignmentReader.slot_match),
    "any-match": (_VALUE_TEST_KEYS, _AlignmentReader.slot_match),
    "all-match": (_VALUE_TEST_KEYS, _AlignmentReader.slot_match),
    "min-matching-slots": (("slots", *_VALUE_TEST_KEYS), _AlignmentReader.min_matching_slots),
    "min-evidence-bits": (("slots",), _AlignmentReader.min_evidence_bits),
    "min-pair-score": ((), _AlignmentReader.min_pair_score),
    "all": ((), _AlignmentReader.combination),
    "any": ((), _AlignmentReader.combination),
    "not": ((), _AlignmentReader.combination),
}


def read_alignment(reader: _TomlReader, table: Any, config: Configuration,
                   base: AlignmentSettings | None = None) -> AlignmentSettings:
    """The ``[alignment]`` table of a configuration (on top of ``base``, the predefined criteria)."""
    slots = {s.slot_id: s.type for s in config.slots}
    return _AlignmentReader(reader, slots).read(table, base or AlignmentSettings())


def load_alignment_file(path: str | Path, config: Configuration) -> Configuration:
    """``config`` with the ``[alignment…]`` tables of a TOML file merged in (``--alignment-file``):
    its criteria added (replacing those of the same name), its other keys replacing the
    configuration's when given."""
    from muceval.formats.config.common import _read_text
    from muceval.formats.config.native import _TomlReader

    path = Path(path)
    reader = _TomlReader(_read_text(path), str(path))
    reader.check_keys(reader.data, ("format-version", "alignment"), None,
                      what="an alignment file (it holds only [alignment] tables)")
    if "alignment" not in reader.data:
        raise reader.fail("no [alignment] table in this file", None)
    settings = read_alignment(reader, reader.data["alignment"], config, config.alignment)
    given = reader.data["alignment"]
    if isinstance(given.get("chance"), dict) and "keys" in given["chance"]:
        # Keys this file names are found next to it; the configuration's stay next to it.
        base = path.resolve().parent
        settings = replace(settings, chance=replace(
            settings.chance, keys=tuple(str(base / k) for k in settings.chance.keys)))
    return replace(config, alignment=settings)


def alignment_lines(settings: AlignmentSettings) -> list[str]:
    """The ``[alignment]`` tables of ``settings`` (predefined criteria are not written)."""
    from muceval.formats.config.writer import _toml_key, _toml_value

    out = ["", "[alignment]", f"default = {_toml_value(settings.default)}"]
    if settings.compare:
        out.append(f"compare = {_toml_value(list(settings.compare))}")
    if settings.flag is not None:
        out.append(f"flag = {_toml_value(settings.flag)}")
    if settings.chance != ChanceSettings():
        out += ["", "[alignment.chance]", f"source = {_toml_value(settings.chance.source)}"]
        if settings.chance.keys:
            out.append(f"keys = {_toml_value(list(settings.chance.keys))}")
        out.append(f"common = {_toml_value(settings.chance.common)}")
    predefined = {c.name: c for c in PREDEFINED}
    for criterion in settings.criteria:
        if predefined.get(criterion.name) == criterion:
            continue
        body = criterion.to_dict()
        out += ["", f"[alignment.criteria.{_toml_key(criterion.name)}]"]
        default = Criterion(criterion.name)
        for key in ("restriction", "assignment", "cardinality"):
            if getattr(criterion, key) != getattr(default, key):
                out.append(f"{key} = {_toml_value(body[key])}")
        if criterion.require:
            out.append("require = [")
            out.extend(f"    {_toml_value(c)}," for c in body["require"])
            out.append("]")
        if criterion.description:
            out.append(f"description = {_toml_value(criterion.description)}")
    return out
