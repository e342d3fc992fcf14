"""muceval's native TOML configuration format (``docs/configuration.md``): the reader."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from muceval.core.model import (
    Configuration,
    DisplayType,
    Restriction,
    SetNode,
    SlotSpec,
    SlotType,
    SubtotalRow,
    TemplateSelection,
)
from muceval.errors import InputError
from muceval.formats.config.alignment import read_alignment
from muceval.formats.config.common import (
    DEFAULTS,
    FILE_OPTIONS,
    FLAG_OPTIONS,
    _check_references,
    _check_set_tree,
    _Where,
)
from muceval.formats.toml import parse_toml

FORMAT_VERSION = 1
_TOP_KEYS = (
    "format-version",
    "templates",
    "options",
    "subtotal-rows",
    "files",
    "scored-templates",
    "slot",
    "alignment",
)
_TEMPLATE_KEYS = {
    "message-header-regexp": "message_header_regexp",
    "template-header-regexp": "template_header_regexp",
    "template-tail-regexp": "template_tail_regexp",
    "alternative-separator": "alternative_separator",
}
_OPTION_KEYS = (
    "display-type",
    *FLAG_OPTIONS,
    "scored-slots",
    "restrict-map-slots",
    "string-premodifiers",
)
_SLOT_KEYS = ("id", "label", "type", "values", "xref")
_TOML_TYPES = {t.value: t for t in SlotType}


class _TomlReader:
    def __init__(self, text: str, path: str):
        self.path = path
        self.data, self.locate = parse_toml(text, path, "a configuration")
        self.where: _Where = {}

    def fail(self, message: str, line: int | None) -> InputError:
        return InputError.at(self.path, line, message)

    def unexpected(self, expected: str, value: Any, line: int | None) -> InputError:
        return self.fail(f"{expected}, found {_toml_type(value)}", line)

    def check_keys(
        self,
        table: Mapping[str, Any],
        allowed: Iterable[str],
        header: str | None,
        index: int = 0,
        what: str = "",
    ) -> None:
        allowed = tuple(allowed)
        for key in table:
            if key not in allowed:
                where = what or (f"[{header}]" if header else "the top level")
                raise self.fail(
                    f"unknown key '{key}' in {where} (allowed: {', '.join(allowed)})",
                    self.locate.key_line(header, key, index),
                )

    def expect(self, value: Any, kind: type | tuple[type, ...], what: str, line: int | None) -> Any:
        if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
            raise self.fail(f"{what}: expected {_kind_name(kind)}, found a boolean", line)
        if not isinstance(value, kind):
            raise self.unexpected(f"{what}: expected {_kind_name(kind)}", value, line)
        return value

    def string_list(self, value: Any, what: str, line: int | None) -> tuple[str, ...]:
        self.expect(value, list, what, line)
        for item in value:
            self.expect(item, str, f"{what} (each item)", line)
        return tuple(value)

    def read(self) -> Configuration:
        data = self.data
        self.check_keys(data, _TOP_KEYS, None)
        version = data.get("format-version", FORMAT_VERSION)
        if version != FORMAT_VERSION or isinstance(version, bool):
            raise self.fail(
                f"format-version {version!r} is not supported (this muceval reads version {FORMAT_VERSION})",
                self.locate.key_line(None, "format-version"),
            )
        fields = self.templates(data.get("templates", {}))
        fields.update(self.options(data.get("options", {})))
        fields["subtotal_rows"] = self.subtotal_rows(data.get("subtotal-rows", {}))
        fields["files"] = self.files(data.get("files", {}))
        if "scored-templates" in data:
            fields["scored_templates"] = self.scored_templates(data["scored-templates"])
        config = replace(DEFAULTS, slots=self.slots(data.get("slot")), source=self.path,
                         read_from=(self.path,), **fields)
        _check_references(config, self.where, (self.path, None))
        if "alignment" in data:
            config = replace(config, alignment=read_alignment(self, data["alignment"], config))
        return config

    def templates(self, table: Any) -> dict[str, Any]:
        templates = self.expect(table, dict, "[templates]", self.locate.table_line("[templates]"))
        self.check_keys(templates, _TEMPLATE_KEYS, "[templates]")
        fields: dict[str, Any] = {}
        for key, attr in _TEMPLATE_KEYS.items():
            if key in templates:
                line = self.locate.key_line("[templates]", key)
                fields[attr] = self.expect(templates[key], str, f"templates.{key}", line)
                if attr == "alternative_separator" and len(fields[attr]) != 1:
                    raise self.fail(
                        "templates.alternative-separator: expected a single character", line
                    )
        return fields

    def options(self, table: Any) -> dict[str, Any]:
        """The fields given by the ``[options]`` table; ``where`` gets the line of each."""
        options = self.expect(table, dict, "[options]", self.locate.table_line("[options]"))
        self.check_keys(options, _OPTION_KEYS, "[options]")
        fields: dict[str, Any] = {}
        for key, value in options.items():
            line = self.locate.key_line("[options]", key)
            what = f"options.{key}"
            if key in FLAG_OPTIONS:
                fields[FLAG_OPTIONS[key]] = self.expect(value, bool, what, line)
            else:
                field, read = _OPTION_READERS[key]
                fields[field] = read(self, value, what, line)
            self.where[key] = (self.path, line)
        return fields

    def display_type(self, value: Any, what: str, line: int | None) -> DisplayType:
        self.expect(value, str, what, line)
        try:
            return DisplayType(value)
        except ValueError:
            raise self.fail(
                f"{what}: expected one of {', '.join(repr(d.value) for d in DisplayType)}, found {value!r}",
                line,
            ) from None

    def scored_slots(self, value: Any, what: str, line: int | None) -> tuple[str, ...] | None:
        if value == "all":
            return None
        if isinstance(value, list):
            return self.string_list(value, what, line)
        raise self.unexpected(f'{what}: expected "all" or a list of slot ids', value, line)

    def subtotal_rows(self, table: Any) -> tuple[SubtotalRow, ...]:
        subtotals = self.expect(
            table, dict, "[subtotal-rows]", self.locate.table_line("[subtotal-rows]")
        )
        rows = []
        for name, slot_ids in subtotals.items():
            line = self.locate.key_line("[subtotal-rows]", name)
            rows.append(
                SubtotalRow(name, self.string_list(slot_ids, f"subtotal-rows.{name}", line))
            )
            self.where[f"subtotal:{name}"] = (self.path, line)
        return tuple(rows)

    def files(self, table: Any) -> tuple[tuple[str, str], ...]:
        files = self.expect(table, dict, "[files]", self.locate.table_line("[files]"))
        self.check_keys(files, FILE_OPTIONS, "[files]")
        for key, name in files.items():
            self.expect(name, str, f"files.{key}", self.locate.key_line("[files]", key))
        return tuple(files.items())

    def restriction(self, value: Any, what: str, line: int | None) -> Restriction:
        if not isinstance(value, list) or len(value) < 2 or value[0] not in ("and", "or"):
            raise self.fail(
                f'{what}: expected an array ["and" | "or", operand, …] with at least one operand',
                line,
            )
        operands: list[str | Restriction] = []
        for item in value[1:]:
            if isinstance(item, list):
                operands.append(self.restriction(item, what, line))
            elif isinstance(item, str):
                operands.append(item)
            else:
                raise self.unexpected(f"{what}: expected a slot id or a nested array", item, line)
        return Restriction(value[0], tuple(operands))

    def scored_templates(self, value: Any) -> tuple[TemplateSelection, ...] | None:
        header = "[[scored-templates]]"
        line = self.locate.key_line(None, "scored-templates") or self.locate.table_line(header)
        self.where["scored-templates"] = (self.path, line)
        if value == "all":
            return None
        self.expect(value, list, "scored-templates", line)
        selections = []
        for index, entry in enumerate(value):
            eline = self.locate.table_line(header, index) or line
            self.expect(entry, dict, "scored-templates (each entry)", eline)
            self.check_keys(
                entry, ("message", "templates"), header, index, "a [[scored-templates]] table"
            )
            message = self.expect(entry.get("message"), str, "scored-templates.message", eline)
            templates: list[tuple[str, tuple[str, ...] | None]] = []
            for spec in self.expect(
                entry.get("templates", []), list, "scored-templates.templates", eline
            ):
                if isinstance(spec, str):
                    templates.append((spec, None))
                elif isinstance(spec, dict):
                    self.check_keys(spec, ("id", "slots"), header, index, "a scored template")
                    tid = self.expect(spec.get("id"), str, "scored-templates.templates.id", eline)
                    templates.append((tid, self.string_list(
                        spec.get("slots", []), "scored-templates.templates.slots", eline)))
                else:
                    raise self.unexpected("scored-templates.templates: expected a template id "
                                          "or { id = …, slots = […] }", spec, eline)
            selections.append(TemplateSelection(message, tuple(templates)))
        return tuple(selections)

    def slots(self, value: Any) -> tuple[SlotSpec, ...]:
        if value is None:
            raise self.fail("no [[slot]] tables: a configuration needs slot definitions", None)
        self.expect(value, list, "slot", self.locate.key_line(None, "slot"))
        self.where["slots"] = (self.path, self.locate.table_line("[[slot]]"))
        seen: dict[str, int] = {}
        labels: set[str] = set()
        return tuple(self.slot(table, index, seen, labels) for index, table in enumerate(value))

    def slot(self, table: Any, index: int, seen: dict[str, int], labels: set[str]) -> SlotSpec:
        """The ``index``-th ``[[slot]]`` table; ``seen`` and ``labels`` hold the ids (with
        their table numbers) and labels of the slots before it."""
        tline = self.locate.table_line("[[slot]]", index)
        self.expect(table, dict, "slot", tline)
        self.check_keys(table, _SLOT_KEYS, "[[slot]]", index, "a [[slot]] table")
        for required in ("id", "label", "type"):
            if required not in table:
                raise self.fail(f"[[slot]] number {index + 1}: missing key '{required}'", tline)
        line = {key: self.locate.key_line("[[slot]]", key, index) for key in _SLOT_KEYS}
        slot_id = self.expect(table["id"], str, "slot.id", line["id"])
        if not slot_id or slot_id != slot_id.strip():
            raise self.fail(f"slot id {slot_id!r} is empty or has surrounding spaces", line["id"])
        if slot_id in seen:
            raise self.fail(f"duplicate slot id '{slot_id}' (first in [[slot]] number "
                            f"{seen[slot_id]})", line["id"])
        seen[slot_id] = index + 1
        label = self.expect(table["label"], str, f"slot '{slot_id}': label", line["label"])
        if not label.strip():
            raise self.fail(f"slot '{slot_id}': empty label", line["label"])
        if label in labels:
            raise self.fail(f"slot '{slot_id}': label {label!r} is used twice", line["label"])
        labels.add(label)
        slot_type = self.slot_type(table["type"], slot_id, line["type"])
        set_values: tuple[SetNode, ...] = ()
        if "values" in table:
            if slot_type is not SlotType.SET:
                raise self.fail(f"slot '{slot_id}': 'values' is only allowed for slots of type "
                                '"set"', line["values"])
            set_values = self.set_values(table["values"], slot_id, line["values"])
        elif slot_type is SlotType.SET:
            raise self.fail(f"slot '{slot_id}': a set slot needs 'values'", tline)
        xref = self.xref(table.get("xref", []), slot_id, line["xref"])
        self.where[f"xref:{slot_id}"] = (self.path, line["xref"])
        return SlotSpec(slot_id, label, slot_type, set_values, xref)

    def slot_type(self, value: Any, slot_id: str, line: int | None) -> SlotType:
        type_name = self.expect(value, str, f"slot '{slot_id}': type", line)
        slot_type = _TOML_TYPES.get(type_name)
        if slot_type is None:
            hint = (" (the 1992 type 'element' is called 'set' here)" if type_name == "element"
                    else "")
            raise self.fail(f"slot '{slot_id}': unknown type {type_name!r} (known: "
                            f"{', '.join(_TOML_TYPES)}){hint}", line)
        return slot_type

    def xref(self, value: Any, slot_id: str, line: int | None) -> tuple[str, ...]:
        xref = self.string_list(value, f"slot '{slot_id}': xref", line)
        if slot_id in xref:
            raise self.fail(f"slot '{slot_id}': xref names the slot itself", line)
        if len(set(xref)) != len(xref):
            raise self.fail(f"slot '{slot_id}': xref names a slot twice", line)
        return xref

    def set_values(self, value: Any, slot_id: str, line: int | None) -> tuple[SetNode, ...]:
        what = f"slot '{slot_id}': values"
        if isinstance(value, list):
            roots = tuple(SetNode(v) for v in self.string_list(value, what, line))
        elif isinstance(value, str):
            roots = self.outline(value, what, line)
        else:
            raise self.unexpected(
                f"{what}: expected an indented outline string or a list of strings", value, line
            )
        if not roots:
            raise self.fail(f"{what}: the set is empty", line)
        twice = _check_set_tree(roots)
        if twice is not None:
            raise self.fail(f"{what}: {twice!r} occurs twice", line)
        return roots

    def outline(self, text: str, what: str, line: int | None) -> tuple[SetNode, ...]:
        """An indented outline: one value a line, children indented below their parent."""
        # (indent, value, children) frames; the root frame collects top-level values.
        root: list[Any] = [-1, None, []]
        stack = [root]
        # A multi-line string starts on the line after the key when it opens with a newline.
        base = (line + 1) if line is not None else None
        for offset, raw in enumerate(text.split("\n")):
            here = base + offset if base is not None else None
            if not raw.strip():
                continue
            if "\t" in raw[: len(raw) - len(raw.lstrip())]:
                raise self.fail(f"{what}: indent with spaces, not tabs", here)
            indent = len(raw) - len(raw.lstrip(" "))
            value = raw.strip()
            while indent <= stack[-1][0]:
                stack.pop()
            parent = stack[-1]
            if parent[2] and indent != parent[2][-1][0]:
                raise self.fail(f"{what}: {value!r} is not aligned with the values above it", here)
            frame = [indent, value, []]
            parent[2].append(frame)
            stack.append(frame)

        def build(frame: list[Any]) -> SetNode:
            return SetNode(frame[1], tuple(build(child) for child in frame[2]))

        return tuple(build(child) for child in root[2])


# The [options] other than flags: key -> (Configuration field, reader of the value).
_OPTION_READERS: dict[str, tuple[str, Callable[[_TomlReader, Any, str, int | None], Any]]] = {
    "display-type": ("display_type", _TomlReader.display_type),
    "scored-slots": ("scored_slots", _TomlReader.scored_slots),
    "restrict-map-slots": ("restrict_map_slots", _TomlReader.restriction),
    "string-premodifiers": ("string_premodifiers", _TomlReader.string_list),
}

def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {
        str: "a string",
        bool: "true or false",
        list: "an array",
        dict: "a table",
        int: "an integer",
    }
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def _toml_type(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, int | float):
        return f"the number {value!r}"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    if value is None:
        return "nothing"
    return type(value).__name__


def parse_configuration_toml(text: str, path: str = "<string>") -> Configuration:
    """Read a configuration in muceval's TOML format (``docs/configuration.md``).

    >>> cfg = parse_configuration_toml('''
    ... [[slot]]
    ... id = "message-id"
    ... label = "0.  MESSAGE: ID"
    ... type = "id"
    ... [[slot]]
    ... id = "template-id"
    ... label = "1.  MESSAGE: TEMPLATE"
    ... type = "template-id"
    ... [[slot]]
    ... id = "colour"
    ... label = "2.  COLOUR"
    ... type = "set"
    ... values = \"\"\"
    ... RED
    ...   DARK RED
    ... BLUE
    ... \"\"\"
    ... ''')
    >>> cfg.slot("colour").cardinality, cfg.slot("colour").hierarchical
    (3, True)
    """
    return _TomlReader(text, path).read()
