"""The 1992 Emacs Lisp configuration files: ``config-*.el`` and ``slotconfig-*.el``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

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
from muceval.formats import sexpr
from muceval.formats.config.common import (
    _DISPLAY_ALIASES,
    _LISP_TYPES,
    _LISP_VARIABLES,
    _UNSUPPORTED_TYPES,
    DEFAULTS,
    FILE_OPTIONS,
    FLAG_OPTIONS,
    _check_references,
    _check_set_tree,
    _Where,
)
from muceval.formats.sexpr import SExpr, SList, String, Symbol, error_at, list_items

_Head = TypeVar("_Head", String, Symbol)


def _headed(node: SExpr, kind: type[_Head]) -> tuple[_Head, tuple[SExpr, ...]] | None:
    """The head and the rest of ``node`` if it is a proper list that starts with a ``kind``."""
    if (isinstance(node, SList) and node.tail is None and node.items
            and isinstance(node.items[0], kind)):
        return node.items[0], node.items[1:]
    return None


def read_lisp_configuration(
    config_path: str | Path, slots_path: str | Path | None = None, *,
    slot_file_alone: bool = False,
) -> Configuration:
    """Read a 1992 ``config-*.el`` (and its ``slotconfig-*.el``) into a :class:`Configuration`.

    File options are recorded as written relative to ``*muc-base-directory*``. A slot file
    given as the configuration is refused unless ``slot_file_alone`` (every option at its
    1992 default changes the numbers without a word).
    """
    config_path = Path(config_path)
    name = str(config_path)
    reader = _LispReader()
    reader.read_forms(config_path, is_slot_file=False)
    if reader.slots is not None and "options" not in reader.where and not slot_file_alone:
        raise InputError.at(name, None, _slot_file_message(config_path))
    sources = [name]
    if reader.slots is not None and slots_path is not None:
        raise InputError.at(name, reader.where["slots"][1],
                            "slots are defined here and a separate slot file was given too")
    if reader.slots is None:
        if slots_path is None:
            if reader.slot_file is None:
                raise InputError.at(
                    name,
                    None,
                    "no slot definitions: the file has neither a define-muc-template-slots form "
                    "nor a :slot-file option (give the slot file explicitly)",
                )
            slots_path = config_path.parent / Path(reader.slot_file).name
            if not slots_path.is_file():
                line = reader.where.get("slot-file", (name, None))[1]
                raise InputError.at(
                    name,
                    line,
                    f"slot file {reader.slot_file!r} not found (looked for "
                    f"{slots_path}); give it explicitly",
                )
        slots_path = Path(slots_path)
        reader.read_forms(slots_path, is_slot_file=True)
        sources.append(str(slots_path))
        if reader.slots is None:
            raise InputError.at(str(slots_path), None, "no define-muc-template-slots form found")
    config = replace(DEFAULTS, slots=reader.slots, source=" + ".join(sources),
                     read_from=tuple(sources), **reader.fields)
    _check_references(config, reader.where, (name, None))
    return config


def _slot_file_message(path: Path) -> str:
    meant = []
    for sibling in sorted(path.parent.glob("*.el")):
        if sibling == path:
            continue
        try:
            text = sibling.read_text(encoding="latin-1")
        except OSError:
            continue
        if "define-muc-configuration-options" in text and path.name in text:
            meant.append(sibling.name)
    hint = (f" ({', '.join(meant[:2])} in the same folder names it)" if meant else "")
    return (f"a 1992 slot file, not a configuration: scored with the 1992 default options "
            f"(no mapping restriction, ...) the numbers change. Give the configuration as "
            f"--config{hint}, or this file as --slots without --config to use the defaults")


class _LispReader:
    """What has been read so far from the 1992 files, and the reading of the file at ``path``."""

    def __init__(self) -> None:
        self.path = ""
        self.fields: dict[str, Any] = {}
        self.where: _Where = {}
        self.slots: tuple[SlotSpec, ...] | None = None
        self.slot_file: str | None = None

    def error(self, node: SExpr, message: str) -> InputError:
        return error_at(self.path, node, message)

    def unexpected(self, node: SExpr, expected: str) -> InputError:
        return error_at(self.path, node, f"{expected}, found {sexpr.describe(node)}")

    def items(self, node: SExpr, expected: str) -> tuple[SExpr, ...]:
        return list_items(node, self.path, expected)

    def read_forms(self, path: Path, is_slot_file: bool) -> None:
        self.path = str(path)
        for form in sexpr.read_file(path):
            if not isinstance(form, SList) or form.tail is not None or not form.items:
                raise self.unexpected(form, "expected a (name …) form")
            head = form.items[0]
            if sexpr.is_symbol(head, "setq"):
                self.setq(form)
            elif sexpr.is_symbol(head, "define-muc-template-slots"):
                if self.slots is not None:
                    raise self.error(form, "second define-muc-template-slots form")
                self.slots = self.slot_definitions(form)
                self.where["slots"] = (self.path, form.line)
            elif sexpr.is_symbol(head, "define-muc-configuration-options") and not is_slot_file:
                if "options" in self.where:
                    raise self.error(form, "second define-muc-configuration-options form")
                self.where["options"] = (self.path, form.line)
                self.options(form)
            else:
                options = "" if is_slot_file else "define-muc-configuration-options, "
                raise self.error(head, f"unknown top-level form {sexpr.describe(head)} "
                                 f"(expected {options}setq or define-muc-template-slots)")

    def setq(self, form: SList) -> None:
        args = form.items[1:]
        if not args or len(args) % 2:
            raise self.error(form, "setq needs variable/value pairs")
        for var, value in zip(args[::2], args[1::2], strict=True):
            if not isinstance(var, Symbol):
                raise self.unexpected(var, "setq: expected a variable")
            if var.name == "*muc-base-directory*":
                continue  # file options are recorded relative to it anyway
            target = _LISP_VARIABLES.get(var.name)
            if target is None:
                raise self.error(var, f"unknown variable '{var.name}' (known: "
                                 f"{', '.join(sorted(_LISP_VARIABLES))}, *muc-base-directory*)")
            if isinstance(value, String):
                text = value.value
            elif isinstance(value, sexpr.Char) and target == "alternative_separator":
                text = chr(value.value)
            else:
                raise self.unexpected(value, f"{var.name}: expected a string")
            if target == "alternative_separator" and len(text) != 1:
                raise self.error(value, f"{var.name}: expected a single character")
            self.fields[target] = text
            self.where[target] = (self.path, value.line)

    def file_name(self, node: SExpr, option: str) -> str:
        """The file name of a file option: a string, or
        (expand-file-name (concat *muc-base-directory* "…"))."""
        if isinstance(node, String):
            return node.value
        if isinstance(node, SList) and node.tail is None and node.items:
            head = node.items[0]
            if sexpr.is_symbol(head, "expand-file-name") and len(node.items) == 2:
                return self.file_name(node.items[1], option)
            if sexpr.is_symbol(head, "concat"):
                parts = []
                for part in node.items[1:]:
                    if sexpr.is_symbol(part, "*muc-base-directory*"):
                        continue  # the paths are kept relative to the base directory
                    if not isinstance(part, String):
                        raise self.error(part, f":{option}: cannot evaluate "
                                         f"{sexpr.describe(part)} in concat")
                    parts.append(part.value)
                return "".join(parts)
        raise self.unexpected(node, f":{option}: expected a file name (a string or "
                              '(expand-file-name (concat *muc-base-directory* "…")))')

    def flag(self, node: SExpr, option: str) -> bool:
        if sexpr.is_nil(node):
            return False
        if sexpr.is_symbol(node, "t"):
            return True
        raise self.unexpected(node, f":{option}: expected t or nil")

    def symbol_list(self, node: SExpr, what: str, check: str | None = None) -> tuple[str, ...]:
        """The slot ids listed in ``node``; with ``check``, ``where`` gets the line of each."""
        out = []
        for item in self.items(node, f"{what}: expected a list of slot ids"):
            if (not isinstance(item, Symbol) or item.name in ("nil", "t")
                    or item.name.startswith(":")):
                raise self.unexpected(item, f"{what}: expected a slot id")
            out.append(item.name)
            if check is not None:
                self.where.setdefault(f"{check}:{item.name}", (self.path, item.line))
        return tuple(out)

    def restriction(self, node: SExpr) -> Restriction:
        if not isinstance(node, SList) or node.tail is not None or not node.items:
            raise self.unexpected(node, "restrict-map-slots: expected (and …) or (or …)")
        head = node.items[0]
        if not isinstance(head, Symbol) or head.name not in ("and", "or"):
            raise self.unexpected(head, "restrict-map-slots: expected 'and' or 'or'")
        if len(node.items) < 2:
            raise self.error(node, f"restrict-map-slots: ({head.name}) without operands")
        operands: list[str | Restriction] = []
        for item in node.items[1:]:
            if isinstance(item, SList):
                operands.append(self.restriction(item))
            elif isinstance(item, Symbol) and item.name not in ("nil", "t"):
                operands.append(item.name)
                self.where.setdefault(f"restrict-map-slots:{item.name}", (self.path, item.line))
            else:
                raise self.unexpected(item, "restrict-map-slots: expected a slot id or a list")
        return Restriction(head.name, tuple(operands))

    def options(self, form: SList) -> None:
        args = form.items[1:]
        files: list[tuple[str, str]] = []
        seen: set[str] = set()
        for i in range(0, len(args), 2):
            key = args[i]
            if not isinstance(key, Symbol) or not key.name.startswith(":") or len(key.name) < 2:
                raise self.unexpected(key, "expected an option keyword")
            option = key.name[1:]
            if i + 1 >= len(args):
                raise self.error(key, f"option {key.name} has no value")
            if option in seen:
                raise self.error(key, f"option {key.name} given twice")
            seen.add(option)
            self.where[option] = (self.path, key.line)
            self.option(key, args[i + 1], files)
        self.fields["files"] = tuple(files)

    def option(self, key: Symbol, raw: SExpr, files: list[tuple[str, str]]) -> None:
        """Store the value ``raw`` of the option ``key`` (a file option in ``files``)."""
        option = key.name[1:]
        if option in FILE_OPTIONS:
            # A file name is evaluated, not quoted: (expand-file-name …) is code.
            file_name = self.file_name(raw, option)
            files.append((option, file_name))
            if option == "slot-file":
                self.slot_file = file_name
            return
        value = sexpr.unquote(raw)
        if option in FLAG_OPTIONS:
            self.fields[FLAG_OPTIONS[option]] = self.flag(value, option)
            return
        if option not in _OPTION_READERS:
            known = sorted([*FILE_OPTIONS, *FLAG_OPTIONS, *_OPTION_READERS])
            raise self.error(key, f"unknown option {key.name} (known: "
                             f"{', '.join(':' + k for k in known)})")
        field, read = _OPTION_READERS[option]
        self.fields[field] = read(self, value)

    def display_type(self, value: SExpr) -> DisplayType:
        if sexpr.is_nil(value):
            return DisplayType.MATCHED_MISSING
        if isinstance(value, Symbol) and value.name in _DISPLAY_ALIASES:
            return _DISPLAY_ALIASES[value.name]
        try:
            return DisplayType(getattr(value, "name", None))
        except ValueError:
            choices = ", ".join(repr(d.value) for d in DisplayType)
            raise self.unexpected(value, f":display-type: expected one of {choices} or nil") from None

    def scored_slots(self, value: SExpr) -> tuple[str, ...] | None:
        if sexpr.is_symbol(value, ":all"):
            return None
        return self.symbol_list(value, ":scored-slots", "scored-slots")

    def scored_templates(self, value: SExpr) -> tuple[TemplateSelection, ...] | None:
        if sexpr.is_symbol(value, ":all"):
            return None
        selections = []
        for entry in self.items(value, ":scored-templates: expected :all or a list"):
            headed = _headed(entry, String)
            if headed is None:
                raise self.unexpected(entry, ':scored-templates: expected ("MESSAGE-ID" template…)')
            message, specs = headed
            templates: list[tuple[str, tuple[str, ...] | None]] = []
            for spec in specs:
                if isinstance(spec, String):
                    templates.append((spec.value, None))
                elif (template := _headed(spec, String)) is not None:
                    slots = self.symbol_list(SList(template[1]), ":scored-templates",
                                             "scored-templates")
                    templates.append((template[0].value, slots))
                else:
                    raise self.unexpected(
                        spec, ':scored-templates: expected a template id or ("ID" slot…)')
            selections.append(TemplateSelection(message.value, tuple(templates)))
        return tuple(selections)

    def restrict_map_slots(self, value: SExpr) -> Restriction | None:
        return None if sexpr.is_nil(value) else self.restriction(value)

    def premodifiers(self, value: SExpr) -> tuple[str, ...]:
        words = []
        for item in self.items(value, ":string-premodifiers: expected a list of strings"):
            if not isinstance(item, String):
                raise self.unexpected(item, ":string-premodifiers: expected a string")
            words.append(item.value)
        return tuple(words)

    def subtotals(self, value: SExpr) -> tuple[SubtotalRow, ...]:
        rows: list[SubtotalRow] = []
        for entry in self.items(value, ":subtotal-rows: expected a list"):
            headed = _headed(entry, Symbol)
            if headed is None:
                raise self.unexpected(entry, ":subtotal-rows: expected (name slot…)")
            name = headed[0].name
            if any(row.name == name for row in rows):
                raise self.error(entry, f":subtotal-rows: row '{name}' given twice")
            slot_ids = self.symbol_list(SList(headed[1]), f"subtotal row '{name}'",
                                        f"subtotal:{name}")
            rows.append(SubtotalRow(name, slot_ids))
            self.where[f"subtotal:{name}"] = (self.path, entry.line)
        return tuple(rows)

    def slot_definitions(self, form: SList) -> tuple[SlotSpec, ...]:
        seen: dict[str, int] = {}
        labels: dict[str, int] = {}
        xref_lines: dict[str, int | None] = {}
        specs = [self.slot(entry, seen, labels, xref_lines) for entry in form.items[1:]]
        # Unknown xref targets can only be checked once every slot is known.
        for spec in specs:
            for target in spec.xref:
                if target not in seen:
                    raise InputError.at(self.path, xref_lines[spec.slot_id], f"slot "
                                        f"'{spec.slot_id}': xref names unknown slot '{target}'")
        return tuple(specs)

    def slot(self, entry: SExpr, seen: dict[str, int], labels: dict[str, int],
             xref_lines: dict[str, int | None]) -> SlotSpec:
        """One ``(slot-id "LABEL" type option…)``; ``seen`` and ``labels`` hold the lines of the
        ids and labels of the slots before it, ``xref_lines`` gets the line of its xref."""
        if not isinstance(entry, SList) or entry.tail is not None or len(entry.items) < 3:
            raise self.unexpected(entry, 'expected a slot (slot-id "LABEL" type option…)')
        slot_node, label_node, type_node, *options = entry.items
        slot_id = self.slot_id(slot_node, seen)
        label = self.slot_label(label_node, slot_id, labels)
        slot_type = self.slot_type(type_node, slot_id)
        set_values: tuple[SetNode, ...] | None = None
        xref: tuple[str, ...] | None = None
        for node in options:
            kind, option = self.slot_option(node, slot_id)
            if (set_values if kind == "set" else xref) is not None:
                raise self.error(option, f"slot '{slot_id}': second ({kind} …)")
            if kind == "set":
                set_values = self.set_option(option, slot_id, slot_type)
            else:
                xref = self.xref_option(option, slot_id)
                xref_lines[slot_id] = option.line
        if slot_type is SlotType.SET and set_values is None:
            raise self.error(entry, f"slot '{slot_id}': an element slot needs a (set …) option")
        return SlotSpec(slot_id, label, slot_type, set_values or (), xref or ())

    def slot_id(self, node: SExpr, seen: dict[str, int]) -> str:
        if not isinstance(node, Symbol) or node.name in ("nil", "t"):
            raise self.unexpected(node, "expected a slot id")
        if node.name in seen:
            raise self.error(node, f"duplicate slot id '{node.name}' (first defined at line "
                             f"{seen[node.name]})")
        seen[node.name] = node.line
        return node.name

    def slot_label(self, node: SExpr, slot_id: str, labels: dict[str, int]) -> str:
        if not isinstance(node, String) or not node.value.strip():
            raise self.unexpected(node, f"slot '{slot_id}': expected a label string")
        if node.value in labels:
            raise self.error(node, f"slot '{slot_id}': label {node.value!r} already used at "
                             f"line {labels[node.value]}")
        labels[node.value] = node.line
        return node.value

    def slot_type(self, node: SExpr, slot_id: str) -> SlotType:
        if not isinstance(node, Symbol):
            raise self.unexpected(node, f"slot '{slot_id}': expected a type")
        if node.name in _UNSUPPORTED_TYPES:
            raise self.error(node, f"slot '{slot_id}': slot type '{node.name}' is not supported "
                             "by muceval")
        slot_type = _LISP_TYPES.get(node.name)
        if slot_type is None:
            raise self.error(node, f"slot '{slot_id}': unknown slot type '{node.name}' (known: "
                             f"{', '.join(_LISP_TYPES)})")
        return slot_type

    def slot_option(self, option: SExpr, slot_id: str) -> tuple[str, SList]:
        """A slot option ``(set …)`` or ``(xref …)``, with its kind (the head)."""
        if (not isinstance(option, SList) or option.tail is not None or not option.items
                or not isinstance(option.items[0], Symbol)):
            raise self.unexpected(option, f"slot '{slot_id}': expected (set …) or (xref …)")
        kind = option.items[0].name
        if kind not in ("set", "xref"):
            raise self.error(option.items[0], f"slot '{slot_id}': unknown slot option '{kind}' "
                             "(known: set, xref)")
        return kind, option

    def set_node(self, node: SExpr) -> SetNode:
        if isinstance(node, String):
            return SetNode(node.value)
        headed = _headed(node, String)
        if headed is None:
            raise self.unexpected(node, 'set: expected a string or a ("PARENT" child…) list')
        return SetNode(headed[0].value, tuple(self.set_node(child) for child in headed[1]))

    def set_option(self, option: SList, slot_id: str, slot_type: SlotType) -> tuple[SetNode, ...]:
        if slot_type is not SlotType.SET:
            raise self.error(option, f"slot '{slot_id}': (set …) is only allowed for element "
                             "slots")
        if len(option.items) < 2:
            raise self.error(option, f"slot '{slot_id}': empty (set)")
        set_values = tuple(self.set_node(item) for item in option.items[1:])
        twice = _check_set_tree(set_values)
        if twice is not None:
            raise self.error(option, f"slot '{slot_id}': set value {twice!r} occurs twice")
        return set_values

    def xref_option(self, option: SList, slot_id: str) -> tuple[str, ...]:
        xref = self.symbol_list(SList(option.items[1:]), f"slot '{slot_id}' xref")
        if not xref:
            raise self.error(option, f"slot '{slot_id}': empty (xref)")
        if slot_id in xref:
            raise self.error(option, f"slot '{slot_id}': xref names the slot itself")
        if len(set(xref)) != len(xref):
            raise self.error(option, f"slot '{slot_id}': xref names a slot twice")
        return xref


# The options other than file names and flags: option -> (Configuration field, reader of the
# unquoted value).
_OPTION_READERS: dict[str, tuple[str, Callable[[_LispReader, SExpr], Any]]] = {
    "display-type": ("display_type", _LispReader.display_type),
    "scored-slots": ("scored_slots", _LispReader.scored_slots),
    "scored-templates": ("scored_templates", _LispReader.scored_templates),
    "restrict-map-slots": ("restrict_map_slots", _LispReader.restrict_map_slots),
    "string-premodifiers": ("string_premodifiers", _LispReader.premodifiers),
    "subtotal-rows": ("subtotal_rows", _LispReader.subtotals),
}
