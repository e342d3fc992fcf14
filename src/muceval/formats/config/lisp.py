"""The 1992 Emacs Lisp configuration files: ``config-*.el`` and ``slotconfig-*.el``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
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


@dataclass
class _LispState:
    """What has been read so far from the 1992 files."""

    fields: dict[str, Any]
    where: _Where
    slots: tuple[SlotSpec, ...] | None = None
    slot_file: str | None = None


def _unexpected(path: str, node: SExpr, expected: str) -> InputError:
    return error_at(path, node, f"{expected}, found {sexpr.describe(node)}")


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

    With the MUC-4 distribution (``../shared/muc4``; not bundled, so not run here)::

        cfg = read_lisp_configuration("tst3/config-tst3.el")
        cfg.files[0]   # ('slot-file', 'tst3/slotconfig-tst3.el')
    """
    config_path = Path(config_path)
    name = str(config_path)
    state = _LispState(fields={}, where={})
    _read_lisp_forms(sexpr.read_file(config_path), name, state, is_slot_file=False)
    if state.slots is not None and "options" not in state.where and not slot_file_alone:
        raise InputError.at(name, None, _slot_file_message(config_path))
    sources = [name]
    if state.slots is None or slots_path is not None:
        if slots_path is None:
            if state.slot_file is None:
                raise InputError.at(
                    name,
                    None,
                    "no slot definitions: the file has neither a define-muc-template-slots form "
                    "nor a :slot-file option (give the slot file explicitly)",
                )
            slots_path = config_path.parent / Path(state.slot_file).name
            if not slots_path.is_file():
                line = state.where.get("slot-file", (name, None))[1]
                raise InputError.at(
                    name,
                    line,
                    f"slot file {state.slot_file!r} not found (looked for "
                    f"{slots_path}); give it explicitly",
                )
        slots_path = Path(slots_path)
        if state.slots is not None:
            line = state.where["slots"][1]
            raise InputError.at(
                name, line, "slots are defined here and a separate slot file was given too"
            )
        _read_lisp_forms(sexpr.read_file(slots_path), str(slots_path), state, is_slot_file=True)
        sources.append(str(slots_path))
        if state.slots is None:
            raise InputError.at(str(slots_path), None, "no define-muc-template-slots form found")
    config = replace(DEFAULTS, slots=state.slots, source=" + ".join(sources),
                     read_from=tuple(sources), **state.fields)
    _check_references(config, state.where, (name, None))
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


def _read_lisp_forms(
    forms: tuple[SExpr, ...], path: str, state: _LispState, is_slot_file: bool
) -> None:
    for form in forms:
        if not isinstance(form, SList) or form.tail is not None or not form.items:
            raise _unexpected(path, form, "expected a (name …) form")
        head = form.items[0]
        if sexpr.is_symbol(head, "setq"):
            _read_setq(form, path, state)
        elif sexpr.is_symbol(head, "define-muc-template-slots"):
            if state.slots is not None:
                raise error_at(path, form, "second define-muc-template-slots form")
            state.slots = _read_slots(form, path)
            state.where["slots"] = (path, form.line)
        elif sexpr.is_symbol(head, "define-muc-configuration-options") and not is_slot_file:
            if "options" in state.where:
                raise error_at(path, form, "second define-muc-configuration-options form")
            state.where["options"] = (path, form.line)
            _read_options(form, path, state)
        else:
            options = "" if is_slot_file else "define-muc-configuration-options, "
            raise error_at(path, head, f"unknown top-level form {sexpr.describe(head)} (expected "
                           f"{options}setq or define-muc-template-slots)")


def _read_setq(form: SList, path: str, state: _LispState) -> None:
    args = form.items[1:]
    if not args or len(args) % 2:
        raise error_at(path, form, "setq needs variable/value pairs")
    for var, value in zip(args[::2], args[1::2], strict=True):
        if not isinstance(var, Symbol):
            raise _unexpected(path, var, "setq: expected a variable")
        if var.name == "*muc-base-directory*":
            continue  # file options are recorded relative to it anyway
        target = _LISP_VARIABLES.get(var.name)
        if target is None:
            raise error_at(
                path,
                var,
                f"unknown variable '{var.name}' (known: {', '.join(sorted(_LISP_VARIABLES))}, "
                "*muc-base-directory*)",
            )
        if isinstance(value, String):
            text = value.value
        elif isinstance(value, sexpr.Char) and target == "alternative_separator":
            text = chr(value.value)
        else:
            raise _unexpected(path, value, f"{var.name}: expected a string")
        if target == "alternative_separator" and len(text) != 1:
            raise error_at(path, value, f"{var.name}: expected a single character")
        state.fields[target] = text
        state.where[target] = (path, value.line)


def _read_path(node: SExpr, path: str, option: str) -> str:
    """The file name of a file option: a string, or (expand-file-name (concat *muc-base-directory* "…"))."""
    if isinstance(node, String):
        return node.value
    if isinstance(node, SList) and node.tail is None and node.items:
        head = node.items[0]
        if sexpr.is_symbol(head, "expand-file-name") and len(node.items) == 2:
            return _read_path(node.items[1], path, option)
        if sexpr.is_symbol(head, "concat"):
            parts = []
            for part in node.items[1:]:
                if sexpr.is_symbol(part, "*muc-base-directory*"):
                    continue  # the paths are kept relative to the base directory
                if not isinstance(part, String):
                    raise error_at(
                        path, part, f":{option}: cannot evaluate {sexpr.describe(part)} in concat"
                    )
                parts.append(part.value)
            return "".join(parts)
    raise _unexpected(path, node, f":{option}: expected a file name (a string or "
                      '(expand-file-name (concat *muc-base-directory* "…")))')


def _read_flag(node: SExpr, path: str, option: str) -> bool:
    if sexpr.is_nil(node):
        return False
    if sexpr.is_symbol(node, "t"):
        return True
    raise _unexpected(path, node, f":{option}: expected t or nil")


def _symbol_list(
    node: SExpr, path: str, what: str, where: _Where | None = None, check: str = ""
) -> tuple[str, ...]:
    out = []
    for item in list_items(node, path, f"{what}: expected a list of slot ids"):
        if not isinstance(item, Symbol) or item.name in ("nil", "t") or item.name.startswith(":"):
            raise _unexpected(path, item, f"{what}: expected a slot id")
        out.append(item.name)
        if where is not None:
            where.setdefault(f"{check}:{item.name}", (path, item.line))
    return tuple(out)


def _read_restriction(node: SExpr, path: str, where: _Where) -> Restriction:
    if not isinstance(node, SList) or node.tail is not None or not node.items:
        raise _unexpected(path, node, "restrict-map-slots: expected (and …) or (or …)")
    head = node.items[0]
    if not isinstance(head, Symbol) or head.name not in ("and", "or"):
        raise _unexpected(path, head, "restrict-map-slots: expected 'and' or 'or'")
    if len(node.items) < 2:
        raise error_at(path, node, f"restrict-map-slots: ({head.name}) without operands")
    operands: list[str | Restriction] = []
    for item in node.items[1:]:
        if isinstance(item, SList):
            operands.append(_read_restriction(item, path, where))
        elif isinstance(item, Symbol) and item.name not in ("nil", "t"):
            operands.append(item.name)
            where.setdefault(f"restrict-map-slots:{item.name}", (path, item.line))
        else:
            raise _unexpected(path, item, "restrict-map-slots: expected a slot id or a list")
    return Restriction(head.name, tuple(operands))


def _read_scored_templates(
    value: SExpr, path: str, where: _Where
) -> tuple[TemplateSelection, ...] | None:
    if sexpr.is_symbol(value, ":all"):
        return None
    selections = []
    for entry in list_items(value, path, ":scored-templates: expected :all or a list"):
        headed = _headed(entry, String)
        if headed is None:
            raise _unexpected(path, entry, ':scored-templates: expected ("MESSAGE-ID" template…)')
        message, specs = headed
        templates: list[tuple[str, tuple[str, ...] | None]] = []
        for spec in specs:
            if isinstance(spec, String):
                templates.append((spec.value, None))
            elif (template := _headed(spec, String)) is not None:
                slots = _symbol_list(
                    SList(template[1]), path, ":scored-templates", where, "scored-templates"
                )
                templates.append((template[0].value, slots))
            else:
                raise _unexpected(
                    path, spec, ':scored-templates: expected a template id or ("ID" slot…)'
                )
        selections.append(TemplateSelection(message.value, tuple(templates)))
    return tuple(selections)


def _read_options(form: SList, path: str, state: _LispState) -> None:
    args = form.items[1:]
    files: list[tuple[str, str]] = []
    seen: set[str] = set()
    for i in range(0, len(args), 2):
        key = args[i]
        if not isinstance(key, Symbol) or not key.name.startswith(":") or len(key.name) < 2:
            raise error_at(path, key, f"expected an option keyword, found {sexpr.describe(key)}")
        option = key.name[1:]
        if i + 1 >= len(args):
            raise error_at(path, key, f"option {key.name} has no value")
        if option in seen:
            raise error_at(path, key, f"option {key.name} given twice")
        seen.add(option)
        state.where[option] = (path, key.line)
        _read_option(key, args[i + 1], path, state, files)
    state.fields["files"] = tuple(files)


def _read_option(
    key: Symbol, raw: SExpr, path: str, state: _LispState, files: list[tuple[str, str]]
) -> None:
    """Store the value ``raw`` of the option ``key`` in ``state`` (a file option in ``files``)."""
    option = key.name[1:]
    if option in FILE_OPTIONS:
        # A file name is evaluated, not quoted: (expand-file-name …) is code.
        file_name = _read_path(raw, path, option)
        files.append((option, file_name))
        if option == "slot-file":
            state.slot_file = file_name
        return
    value = sexpr.unquote(raw)
    if option in FLAG_OPTIONS:
        state.fields[FLAG_OPTIONS[option]] = _read_flag(value, path, option)
        return
    if option not in _OPTION_READERS:
        known = sorted([*FILE_OPTIONS, *FLAG_OPTIONS, *_OPTION_READERS])
        raise error_at(
            path, key, f"unknown option {key.name} (known: {', '.join(':' + k for k in known)})"
        )
    field, read = _OPTION_READERS[option]
    state.fields[field] = read(value, path, state.where)


def _read_display_type(value: SExpr, path: str, where: _Where) -> DisplayType:
    if sexpr.is_nil(value):
        return DisplayType.MATCHED_MISSING
    if isinstance(value, Symbol) and value.name in _DISPLAY_ALIASES:
        return _DISPLAY_ALIASES[value.name]
    try:
        return DisplayType(getattr(value, "name", None))
    except ValueError:
        choices = ", ".join(repr(d.value) for d in DisplayType)
        raise _unexpected(path, value, f":display-type: expected one of {choices} or nil") from None


def _read_scored_slots(value: SExpr, path: str, where: _Where) -> tuple[str, ...] | None:
    if sexpr.is_symbol(value, ":all"):
        return None
    return _symbol_list(value, path, ":scored-slots", where, "scored-slots")


def _read_restriction_option(value: SExpr, path: str, where: _Where) -> Restriction | None:
    return None if sexpr.is_nil(value) else _read_restriction(value, path, where)


def _read_premodifiers(value: SExpr, path: str, where: _Where) -> tuple[str, ...]:
    words = []
    for item in list_items(value, path, ":string-premodifiers: expected a list of strings"):
        if not isinstance(item, String):
            raise _unexpected(path, item, ":string-premodifiers: expected a string")
        words.append(item.value)
    return tuple(words)


def _read_subtotals(value: SExpr, path: str, where: _Where) -> tuple[SubtotalRow, ...]:
    rows: list[SubtotalRow] = []
    for entry in list_items(value, path, ":subtotal-rows: expected a list"):
        headed = _headed(entry, Symbol)
        if headed is None:
            raise _unexpected(path, entry, ":subtotal-rows: expected (name slot…)")
        name = headed[0].name
        if any(row.name == name for row in rows):
            raise error_at(path, entry, f":subtotal-rows: row '{name}' given twice")
        slot_ids = _symbol_list(
            SList(headed[1]), path, f"subtotal row '{name}'", where, f"subtotal:{name}"
        )
        rows.append(SubtotalRow(name, slot_ids))
        where[f"subtotal:{name}"] = (path, entry.line)
    return tuple(rows)


# The options other than file names and flags: option -> (Configuration field, reader of the
# unquoted value).
_OPTION_READERS: dict[str, tuple[str, Callable[[SExpr, str, _Where], Any]]] = {
    "display-type": ("display_type", _read_display_type),
    "scored-slots": ("scored_slots", _read_scored_slots),
    "scored-templates": ("scored_templates", _read_scored_templates),
    "restrict-map-slots": ("restrict_map_slots", _read_restriction_option),
    "string-premodifiers": ("string_premodifiers", _read_premodifiers),
    "subtotal-rows": ("subtotal_rows", _read_subtotals),
}


def _read_set_node(node: SExpr, path: str) -> SetNode:
    if isinstance(node, String):
        return SetNode(node.value)
    headed = _headed(node, String)
    if headed is None:
        raise _unexpected(path, node, 'set: expected a string or a ("PARENT" child…) list')
    return SetNode(headed[0].value, tuple(_read_set_node(child, path) for child in headed[1]))


def _read_slots(form: SList, path: str) -> tuple[SlotSpec, ...]:
    seen: dict[str, int] = {}
    labels: dict[str, int] = {}
    where: _Where = {}
    specs = [_read_slot(entry, path, seen, labels, where) for entry in form.items[1:]]
    # Unknown xref targets can only be checked once every slot is known.
    for spec in specs:
        for target in spec.xref:
            if target not in seen:
                xpath, line = where[spec.slot_id]
                raise InputError.at(
                    xpath, line, f"slot '{spec.slot_id}': xref names unknown slot '{target}'"
                )
    return tuple(specs)


def _read_slot(
    entry: SExpr, path: str, seen: dict[str, int], labels: dict[str, int], where: _Where
) -> SlotSpec:
    """One ``(slot-id "LABEL" type option…)``; ``seen`` and ``labels`` hold the lines of the
    ids and labels of the slots before it, ``where`` gets the line of its xref."""
    if not isinstance(entry, SList) or entry.tail is not None or len(entry.items) < 3:
        raise _unexpected(path, entry, 'expected a slot (slot-id "LABEL" type option…)')
    slot_node, label_node, type_node, *options = entry.items
    slot_id = _read_slot_id(slot_node, path, seen)
    label = _read_slot_label(label_node, slot_id, path, labels)
    slot_type = _read_slot_type(type_node, slot_id, path)
    set_values: tuple[SetNode, ...] | None = None
    xref: tuple[str, ...] | None = None
    for node in options:
        kind, option = _slot_option(node, slot_id, path)
        if (set_values if kind == "set" else xref) is not None:
            raise error_at(path, option, f"slot '{slot_id}': second ({kind} …)")
        if kind == "set":
            set_values = _read_set_option(option, slot_id, slot_type, path)
        else:
            xref = _read_xref_option(option, slot_id, path)
            where[slot_id] = (path, option.line)
    if slot_type is SlotType.SET and set_values is None:
        raise error_at(path, entry, f"slot '{slot_id}': an element slot needs a (set …) option")
    return SlotSpec(slot_id, label, slot_type, set_values or (), xref or ())


def _read_slot_id(node: SExpr, path: str, seen: dict[str, int]) -> str:
    if not isinstance(node, Symbol) or node.name in ("nil", "t"):
        raise _unexpected(path, node, "expected a slot id")
    if node.name in seen:
        raise error_at(path, node, f"duplicate slot id '{node.name}' (first defined at line "
                       f"{seen[node.name]})")
    seen[node.name] = node.line
    return node.name


def _read_slot_label(node: SExpr, slot_id: str, path: str, labels: dict[str, int]) -> str:
    if not isinstance(node, String) or not node.value.strip():
        raise _unexpected(path, node, f"slot '{slot_id}': expected a label string")
    if node.value in labels:
        raise error_at(path, node, f"slot '{slot_id}': label {node.value!r} already used at "
                       f"line {labels[node.value]}")
    labels[node.value] = node.line
    return node.value


def _read_slot_type(node: SExpr, slot_id: str, path: str) -> SlotType:
    if not isinstance(node, Symbol):
        raise _unexpected(path, node, f"slot '{slot_id}': expected a type")
    if node.name in _UNSUPPORTED_TYPES:
        raise error_at(path, node, f"slot '{slot_id}': slot type '{node.name}' is not supported "
                       "by muceval")
    slot_type = _LISP_TYPES.get(node.name)
    if slot_type is None:
        raise error_at(path, node, f"slot '{slot_id}': unknown slot type '{node.name}' (known: "
                       f"{', '.join(_LISP_TYPES)})")
    return slot_type


def _slot_option(option: SExpr, slot_id: str, path: str) -> tuple[str, SList]:
    """A slot option ``(set …)`` or ``(xref …)``, with its kind (the head)."""
    if (not isinstance(option, SList) or option.tail is not None or not option.items
            or not isinstance(option.items[0], Symbol)):
        raise _unexpected(path, option, f"slot '{slot_id}': expected (set …) or (xref …)")
    kind = option.items[0].name
    if kind not in ("set", "xref"):
        raise error_at(path, option.items[0], f"slot '{slot_id}': unknown slot option '{kind}' "
                       "(known: set, xref)")
    return kind, option


def _read_set_option(
    option: SList, slot_id: str, slot_type: SlotType, path: str
) -> tuple[SetNode, ...]:
    if slot_type is not SlotType.SET:
        raise error_at(path, option,
                       f"slot '{slot_id}': (set …) is only allowed for element slots")
    if len(option.items) < 2:
        raise error_at(path, option, f"slot '{slot_id}': empty (set)")
    set_values = tuple(_read_set_node(item, path) for item in option.items[1:])
    twice = _check_set_tree(set_values)
    if twice is not None:
        raise error_at(path, option, f"slot '{slot_id}': set value {twice!r} occurs twice")
    return set_values


def _read_xref_option(option: SList, slot_id: str, path: str) -> tuple[str, ...]:
    xref = _symbol_list(SList(option.items[1:]), path, f"slot '{slot_id}' xref")
    if not xref:
        raise error_at(path, option, f"slot '{slot_id}': empty (xref)")
    if slot_id in xref:
        raise error_at(path, option, f"slot '{slot_id}': xref names the slot itself")
    if len(set(xref)) != len(xref):
        raise error_at(path, option, f"slot '{slot_id}': xref names a slot twice")
    return xref
