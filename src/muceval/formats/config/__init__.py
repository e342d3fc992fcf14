"""Scorer configurations: the 1992 ``.el`` files and muceval's native TOML format.

A configuration says which slots a template has (id, label, type, set tree,
cross-references) and how to score (mapping restriction, premodifiers,
subtotal rows, display type, flags). Two formats are read into the same
:class:`~muceval.core.model.Configuration`:

* the 1992 Emacs Lisp files: ``config-*.el`` (a
  ``define-muc-configuration-options`` form) and ``slotconfig-*.el``
  (``setq`` of the header regexps and a ``define-muc-template-slots`` form);
* the native TOML format described in ``docs/configuration.md``, which
  :func:`write_configuration_toml` writes and :func:`convert_configuration`
  produces from a 1992 pair.

The MUC-4 configuration ships with muceval (:func:`bundled_configuration`).

>>> config = bundled_configuration("muc4")
>>> config.slot("inc-type").cardinality, config.slot("inc-type").hierarchical
(7, True)
"""

from __future__ import annotations

import functools
import importlib.resources
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import tomli_w

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
from muceval.errors import InputError, UsageError
from muceval.formats import sexpr
from muceval.formats.files import read_text
from muceval.formats.sexpr import SExpr, SList, String, Symbol

__all__ = [
    "DEFAULTS",
    "bundled_configuration",
    "convert_configuration",
    "load_configuration",
    "parse_configuration_toml",
    "read_lisp_configuration",
    "write_configuration_toml",
]

# The defaults of the 1992 program (manual, "Defining your template files"),
# used by both readers for options a file does not give. They differ from the
# dataclass defaults of ``Configuration`` in ``query_verbose`` and
# ``display_type`` (nil displays the matched/missing scores).
DEFAULTS = Configuration(
    slots=(),
    query_verbose=True,
    display_type=DisplayType.MATCHED_MISSING,
)

FILE_OPTIONS = ("slot-file", "key-file", "response-file", "message-file", "history-file")
FLAG_OPTIONS = {
    "disable-edit": "disable_edit",
    "query-verbose": "query_verbose",
    "report-verbose": "report_verbose",
    "score-irrelevant": "score_irrelevant",
}
_LISP_VARIABLES = {
    "*message-header-regexp*": "message_header_regexp",
    "*template-header-regexp*": "template_header_regexp",
    "*template-tail-regexp*": "template_tail_regexp",
    "*muc-alternate-separator*": "alternative_separator",
}
# Types the 1992 manual lists that the scorer of muceval does not implement
# (the MUC-4 configuration does not use them).
_UNSUPPORTED_TYPES = ("boolean", "qualified-string")
_LISP_TYPES = {
    "id": SlotType.MESSAGE_ID,
    "template-id": SlotType.TEMPLATE_ID,
    "date": SlotType.DATE,
    "location": SlotType.LOCATION,
    "element": SlotType.SET,
    "string": SlotType.STRING,
    "number": SlotType.NUMBER,
}
_DISPLAY_ALIASES = {
    # The manual spells this one with an underscore.
    "all_templates": DisplayType.ALL_TEMPLATES,
}


# ---------------------------------------------------------------------------
# Public entry points
# ---------------------------------------------------------------------------


def load_configuration(path: str | Path, slots_path: str | Path | None = None) -> Configuration:
    """Read a configuration: native TOML (``*.toml``) or a 1992 ``config-*.el``.

    For a 1992 configuration without ``slots_path``, the slot file named by
    ``:slot-file`` is looked for by its base name next to the configuration.
    A 1992 slot file alone (only ``define-muc-template-slots``) is accepted
    too; every option then has its 1992 default.

    >>> import muceval.formats.config as c, importlib.resources as r
    >>> path = r.files("muceval") / "data" / "muc4.toml"
    >>> len(c.load_configuration(str(path)).slots)
    25
    """
    path = Path(path)
    if path.suffix.lower() == ".toml":
        if slots_path is not None:
            raise UsageError("a slot file can only be given with a 1992 (.el) configuration")
        return parse_configuration_toml(_read_text(path), str(path))
    return read_lisp_configuration(path, slots_path)


def bundled_configuration(name: str = "muc4") -> Configuration:
    """A configuration shipped with muceval (``src/muceval/data/<name>.toml``).

    The result is cached; configurations are immutable, so sharing is safe.

    >>> bundled_configuration("muc4").slots[0].slot_id
    'message-id'
    """
    return _bundled(name)


@functools.cache
def _bundled(name: str) -> Configuration:
    resource = importlib.resources.files("muceval") / "data" / f"{name}.toml"
    if not name.replace("-", "").replace("_", "").isalnum() or not resource.is_file():
        available = sorted(
            entry.name[: -len(".toml")]
            for entry in (importlib.resources.files("muceval") / "data").iterdir()
            if entry.name.endswith(".toml")
        )
        raise UsageError(
            f"no bundled configuration named {name!r} (available: {', '.join(available)})"
        )
    text = resource.read_text(encoding="utf-8")
    return parse_configuration_toml(text, f"<bundled {name}.toml>")


def convert_configuration(
    config_el: str | Path, slots_el: str | Path | None = None, *, comment: str | None = None
) -> str:
    """Convert a 1992 configuration (and its slot file) into native TOML text.

    >>> text = convert_configuration(  # doctest: +SKIP
    ...     "tst3/config-tst3.el", "tst3/slotconfig-tst3.el")
    """
    config = read_lisp_configuration(Path(config_el), slots_el)
    if comment is None:
        sources = [Path(config_el).name]
        if slots_el is not None:
            sources.append(Path(slots_el).name)
        elif config.source and config.source != str(config_el):
            sources.append(Path(config.source.split(" + ")[-1]).name)
        comment = "muceval configuration converted from the 1992 files " + " + ".join(
            dict.fromkeys(sources)
        )
    return write_configuration_toml(config, comment=comment)


# ---------------------------------------------------------------------------
# Shared validation
# ---------------------------------------------------------------------------


def _read_text(path: Path) -> str:
    return read_text(path, utf8_only=True)


def _check_references(
    config: Configuration,
    where: Mapping[str, tuple[str, int | None]],
    default: tuple[str, int | None],
) -> None:
    """Cross-checks that need the whole configuration: every slot reference must exist.

    ``where`` maps a check name to the (file, line) to blame.
    """
    ids = [spec.slot_id for spec in config.slots]
    known = set(ids)

    def fail(key: str, message: str, slot_id: str | None = None) -> None:
        # A reader may record where each slot id was written ("check:slot").
        path, line = where.get(f"{key}:{slot_id}") or where.get(key, default)
        raise InputError.at(path, line, message)

    if not config.slots:
        fail("slots", "no slots are defined")
    for type_ in (SlotType.MESSAGE_ID, SlotType.TEMPLATE_ID):
        count = sum(1 for s in config.slots if s.type is type_)
        if count != 1:
            fail("slots", f"exactly one slot of type '{type_.value}' is needed, found {count}")
    if config.slots[0].type is not SlotType.MESSAGE_ID or (
        len(config.slots) < 2 or config.slots[1].type is not SlotType.TEMPLATE_ID
    ):
        fail("slots", "the first two slots must be the message id and the template id slots")
    for spec in config.slots:
        for target in spec.xref:
            if target not in known:
                fail(
                    f"xref:{spec.slot_id}",
                    f"slot '{spec.slot_id}': xref names unknown slot '{target}'",
                )
    if config.restrict_map_slots is not None:
        for slot_id in config.restrict_map_slots.slot_ids():
            if slot_id not in known:
                fail(
                    "restrict-map-slots",
                    f"restrict-map-slots names unknown slot '{slot_id}'",
                    slot_id,
                )
    for row in config.subtotal_rows:
        for slot_id in row.slot_ids:
            if slot_id not in known:
                fail(
                    f"subtotal:{row.name}",
                    f"subtotal row '{row.name}' names unknown slot '{slot_id}'",
                    slot_id,
                )
    if config.scored_slots is not None:
        for slot_id in config.scored_slots:
            if slot_id not in known:
                fail("scored-slots", f"scored-slots names unknown slot '{slot_id}'", slot_id)
    if config.scored_templates is not None:
        for selection in config.scored_templates:
            for _, slot_ids in selection.templates:
                for slot_id in slot_ids or ():
                    if slot_id not in known:
                        fail(
                            "scored-templates",
                            f"scored-templates ({selection.message_id}) names unknown slot "
                            f"'{slot_id}'",
                            slot_id,
                        )


def _check_set_tree(roots: Iterable[SetNode]) -> str | None:
    """The first value that occurs twice in a set tree, if any."""
    seen: set[str] = set()
    for root in roots:
        for node in root.walk():
            if node.value in seen:
                return node.value
            seen.add(node.value)
    return None


# ---------------------------------------------------------------------------
# 1992 Emacs Lisp files
# ---------------------------------------------------------------------------


@dataclass
class _LispState:
    """What has been read so far from the 1992 files."""

    fields: dict[str, Any]
    where: dict[str, tuple[str, int | None]]
    slots: tuple[SlotSpec, ...] | None = None
    slot_file: str | None = None


def read_lisp_configuration(
    config_path: str | Path, slots_path: str | Path | None = None
) -> Configuration:
    """Read a 1992 ``config-*.el`` (and its ``slotconfig-*.el``) into a :class:`Configuration`.

    File options are recorded as written relative to ``*muc-base-directory*``.

    >>> cfg = read_lisp_configuration("tst3/config-tst3.el")  # doctest: +SKIP
    >>> cfg.files[0]  # doctest: +SKIP
    ('slot-file', 'tst3/slotconfig-tst3.el')
    """
    config_path = Path(config_path)
    name = str(config_path)
    state = _LispState(fields={}, where={})
    _read_lisp_forms(sexpr.read_file(config_path), name, state, is_slot_file=False)
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
    config = replace(DEFAULTS, slots=state.slots, source=" + ".join(sources), **state.fields)
    _check_references(config, state.where, (name, None))
    return config


def _lisp_error(path: str, node: SExpr, message: str) -> InputError:
    return InputError.at(path, node.line or None, message, node.column or None)


def _read_lisp_forms(
    forms: tuple[SExpr, ...], path: str, state: _LispState, is_slot_file: bool
) -> None:
    for form in forms:
        if not isinstance(form, SList) or form.tail is not None or not form.items:
            raise _lisp_error(path, form, f"expected a (name …) form, found {sexpr.describe(form)}")
        head = form.items[0]
        if sexpr.is_symbol(head, "setq"):
            _read_setq(form, path, state)
        elif sexpr.is_symbol(head, "define-muc-template-slots"):
            if state.slots is not None:
                raise _lisp_error(path, form, "second define-muc-template-slots form")
            state.slots = _read_slots(form, path)
            state.where["slots"] = (path, form.line)
        elif sexpr.is_symbol(head, "define-muc-configuration-options") and not is_slot_file:
            if "options" in state.where:
                raise _lisp_error(path, form, "second define-muc-configuration-options form")
            state.where["options"] = (path, form.line)
            _read_options(form, path, state)
        else:
            raise _lisp_error(
                path,
                head,
                f"unknown top-level form {sexpr.describe(head)} (expected "
                + (
                    "setq or define-muc-template-slots)"
                    if is_slot_file
                    else "define-muc-configuration-options, setq or define-muc-template-slots)"
                ),
            )


def _read_setq(form: SList, path: str, state: _LispState) -> None:
    args = form.items[1:]
    if not args or len(args) % 2:
        raise _lisp_error(path, form, "setq needs variable/value pairs")
    for var, value in zip(args[::2], args[1::2], strict=True):
        if not isinstance(var, Symbol):
            raise _lisp_error(path, var, f"setq: expected a variable, found {sexpr.describe(var)}")
        if var.name == "*muc-base-directory*":
            continue  # file options are recorded relative to it anyway
        target = _LISP_VARIABLES.get(var.name)
        if target is None:
            raise _lisp_error(
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
            raise _lisp_error(
                path, value, f"{var.name}: expected a string, found {sexpr.describe(value)}"
            )
        if target == "alternative_separator" and len(text) != 1:
            raise _lisp_error(path, value, f"{var.name}: expected a single character")
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
                    raise _lisp_error(
                        path, part, f":{option}: cannot evaluate {sexpr.describe(part)} in concat"
                    )
                parts.append(part.value)
            return "".join(parts)
    raise _lisp_error(
        path,
        node,
        f":{option}: expected a file name (a string or (expand-file-name (concat "
        f'*muc-base-directory* "…"))), found {sexpr.describe(node)}',
    )


def _read_flag(node: SExpr, path: str, option: str) -> bool:
    if sexpr.is_nil(node):
        return False
    if sexpr.is_symbol(node, "t"):
        return True
    raise _lisp_error(path, node, f":{option}: expected t or nil, found {sexpr.describe(node)}")


def _symbol_list(
    node: SExpr,
    path: str,
    what: str,
    where: dict[str, tuple[str, int | None]] | None = None,
    check: str = "",
) -> tuple[str, ...]:
    if sexpr.is_nil(node):
        return ()
    if not isinstance(node, SList) or node.tail is not None:
        raise _lisp_error(
            path, node, f"{what}: expected a list of slot ids, found {sexpr.describe(node)}"
        )
    out = []
    for item in node.items:
        if not isinstance(item, Symbol) or item.name in ("nil", "t") or item.name.startswith(":"):
            raise _lisp_error(
                path, item, f"{what}: expected a slot id, found {sexpr.describe(item)}"
            )
        out.append(item.name)
        if where is not None:
            where.setdefault(f"{check}:{item.name}", (path, item.line))
    return tuple(out)


def _read_restriction(
    node: SExpr, path: str, where: dict[str, tuple[str, int | None]]
) -> Restriction:
    if not isinstance(node, SList) or node.tail is not None or not node.items:
        raise _lisp_error(
            path,
            node,
            f"restrict-map-slots: expected (and …) or (or …), found {sexpr.describe(node)}",
        )
    head = node.items[0]
    if not (sexpr.is_symbol(head, "and") or sexpr.is_symbol(head, "or")):
        raise _lisp_error(
            path, head, f"restrict-map-slots: expected 'and' or 'or', found {sexpr.describe(head)}"
        )
    if len(node.items) < 2:
        raise _lisp_error(path, node, f"restrict-map-slots: ({head.name}) without operands")
    operands: list[str | Restriction] = []
    for item in node.items[1:]:
        if isinstance(item, SList):
            operands.append(_read_restriction(item, path, where))
        elif isinstance(item, Symbol) and item.name not in ("nil", "t"):
            operands.append(item.name)
            where.setdefault(f"restrict-map-slots:{item.name}", (path, item.line))
        else:
            raise _lisp_error(
                path,
                item,
                f"restrict-map-slots: expected a slot id or a list, found {sexpr.describe(item)}",
            )
    return Restriction(head.name, tuple(operands))


def _read_scored_templates(
    node: SExpr, path: str, where: dict[str, tuple[str, int | None]]
) -> tuple[TemplateSelection, ...]:
    if sexpr.is_nil(node):
        return ()
    if not isinstance(node, SList) or node.tail is not None:
        raise _lisp_error(
            path, node, f":scored-templates: expected :all or a list, found {sexpr.describe(node)}"
        )
    selections = []
    for entry in node.items:
        if (
            not isinstance(entry, SList)
            or entry.tail is not None
            or not entry.items
            or not isinstance(entry.items[0], String)
        ):
            raise _lisp_error(
                path,
                entry,
                f':scored-templates: expected ("MESSAGE-ID" template…), found {sexpr.describe(entry)}',
            )
        templates: list[tuple[str, tuple[str, ...] | None]] = []
        for spec in entry.items[1:]:
            if isinstance(spec, String):
                templates.append((spec.value, None))
            elif (
                isinstance(spec, SList)
                and spec.tail is None
                and spec.items
                and isinstance(spec.items[0], String)
            ):
                slots = _symbol_list(
                    SList(spec.items[1:]), path, ":scored-templates", where, "scored-templates"
                )
                templates.append((spec.items[0].value, slots))
            else:
                raise _lisp_error(
                    path,
                    spec,
                    f':scored-templates: expected a template id or ("ID" slot…), found {sexpr.describe(spec)}',
                )
        selections.append(TemplateSelection(entry.items[0].value, tuple(templates)))
    return tuple(selections)


def _read_options(form: SList, path: str, state: _LispState) -> None:
    args = form.items[1:]
    files: list[tuple[str, str]] = []
    seen: set[str] = set()
    i = 0
    while i < len(args):
        key = args[i]
        if not isinstance(key, Symbol) or not key.name.startswith(":") or len(key.name) < 2:
            raise _lisp_error(path, key, f"expected an option keyword, found {sexpr.describe(key)}")
        option = key.name[1:]
        if i + 1 >= len(args):
            raise _lisp_error(path, key, f"option {key.name} has no value")
        raw = args[i + 1]
        i += 2
        if option in seen:
            raise _lisp_error(path, key, f"option {key.name} given twice")
        seen.add(option)
        state.where[option] = (path, key.line)
        value = sexpr.unquote(raw)
        fields = state.fields
        if option in FILE_OPTIONS:
            file_name = _read_path(raw, path, option)
            files.append((option, file_name))
            if option == "slot-file":
                state.slot_file = file_name
        elif option in FLAG_OPTIONS:
            fields[FLAG_OPTIONS[option]] = _read_flag(value, path, option)
        elif option == "display-type":
            if sexpr.is_nil(value):
                fields["display_type"] = DisplayType.MATCHED_MISSING
            elif isinstance(value, Symbol) and value.name in _DISPLAY_ALIASES:
                fields["display_type"] = _DISPLAY_ALIASES[value.name]
            else:
                try:
                    fields["display_type"] = DisplayType(getattr(value, "name", None))
                except ValueError:
                    raise _lisp_error(
                        path,
                        value,
                        f":display-type: expected one of "
                        f"{', '.join(repr(d.value) for d in DisplayType)} or nil, found "
                        f"{sexpr.describe(value)}",
                    ) from None
        elif option == "scored-slots":
            if sexpr.is_symbol(value, ":all"):
                fields["scored_slots"] = None
            else:
                fields["scored_slots"] = _symbol_list(
                    value, path, ":scored-slots", state.where, "scored-slots"
                )
        elif option == "scored-templates":
            if sexpr.is_symbol(value, ":all"):
                fields["scored_templates"] = None
            else:
                fields["scored_templates"] = _read_scored_templates(value, path, state.where)
        elif option == "restrict-map-slots":
            fields["restrict_map_slots"] = (
                None if sexpr.is_nil(value) else _read_restriction(value, path, state.where)
            )
        elif option == "string-premodifiers":
            if sexpr.is_nil(value):
                fields["string_premodifiers"] = ()
            elif not isinstance(value, SList) or value.tail is not None:
                raise _lisp_error(
                    path,
                    value,
                    f":string-premodifiers: expected a list of strings, found {sexpr.describe(value)}",
                )
            else:
                words = []
                for item in value.items:
                    if not isinstance(item, String):
                        raise _lisp_error(
                            path,
                            item,
                            f":string-premodifiers: expected a string, found {sexpr.describe(item)}",
                        )
                    words.append(item.value)
                fields["string_premodifiers"] = tuple(words)
        elif option == "subtotal-rows":
            fields["subtotal_rows"] = _read_subtotals(value, path, state)
        else:
            known = sorted(
                [
                    *FILE_OPTIONS,
                    *FLAG_OPTIONS,
                    "display-type",
                    "scored-slots",
                    "scored-templates",
                    "restrict-map-slots",
                    "string-premodifiers",
                    "subtotal-rows",
                ]
            )
            raise _lisp_error(
                path, key, f"unknown option {key.name} (known: {', '.join(':' + k for k in known)})"
            )
    state.fields["files"] = tuple(files)


def _read_subtotals(value: SExpr, path: str, state: _LispState) -> tuple[SubtotalRow, ...]:
    if sexpr.is_nil(value):
        return ()
    if not isinstance(value, SList) or value.tail is not None:
        raise _lisp_error(
            path, value, f":subtotal-rows: expected a list, found {sexpr.describe(value)}"
        )
    rows = []
    for entry in value.items:
        if (
            not isinstance(entry, SList)
            or entry.tail is not None
            or not entry.items
            or not isinstance(entry.items[0], Symbol)
        ):
            raise _lisp_error(
                path, entry, f":subtotal-rows: expected (name slot…), found {sexpr.describe(entry)}"
            )
        name = entry.items[0].name
        if any(row.name == name for row in rows):
            raise _lisp_error(path, entry, f":subtotal-rows: row '{name}' given twice")
        slot_ids = _symbol_list(
            SList(entry.items[1:]), path, f"subtotal row '{name}'", state.where, f"subtotal:{name}"
        )
        rows.append(SubtotalRow(name, slot_ids))
        state.where[f"subtotal:{name}"] = (path, entry.line)
    return tuple(rows)


def _read_set_node(node: SExpr, path: str) -> SetNode:
    if isinstance(node, String):
        return SetNode(node.value)
    if (
        isinstance(node, SList)
        and node.tail is None
        and node.items
        and isinstance(node.items[0], String)
    ):
        children = tuple(_read_set_node(child, path) for child in node.items[1:])
        return SetNode(node.items[0].value, children)
    raise _lisp_error(
        path,
        node,
        f'set: expected a string or a ("PARENT" child…) list, found {sexpr.describe(node)}',
    )


def _read_slots(form: SList, path: str) -> tuple[SlotSpec, ...]:
    specs: list[SlotSpec] = []
    seen: dict[str, int] = {}
    labels: dict[str, int] = {}
    where: dict[str, tuple[str, int | None]] = {}
    for entry in form.items[1:]:
        if not isinstance(entry, SList) or entry.tail is not None or len(entry.items) < 3:
            raise _lisp_error(
                path,
                entry,
                f'expected a slot (slot-id "LABEL" type option…), found {sexpr.describe(entry)}',
            )
        slot_node, label_node, type_node, *options = entry.items
        if not isinstance(slot_node, Symbol) or slot_node.name in ("nil", "t"):
            raise _lisp_error(
                path, slot_node, f"expected a slot id, found {sexpr.describe(slot_node)}"
            )
        slot_id = slot_node.name
        if slot_id in seen:
            raise _lisp_error(
                path,
                slot_node,
                f"duplicate slot id '{slot_id}' (first defined at line {seen[slot_id]})",
            )
        seen[slot_id] = slot_node.line
        if not isinstance(label_node, String) or not label_node.value.strip():
            raise _lisp_error(
                path,
                label_node,
                f"slot '{slot_id}': expected a label string, found {sexpr.describe(label_node)}",
            )
        if label_node.value in labels:
            raise _lisp_error(
                path,
                label_node,
                f"slot '{slot_id}': label {label_node.value!r} already used at line {labels[label_node.value]}",
            )
        labels[label_node.value] = label_node.line
        if not isinstance(type_node, Symbol):
            raise _lisp_error(
                path,
                type_node,
                f"slot '{slot_id}': expected a type, found {sexpr.describe(type_node)}",
            )
        if type_node.name in _UNSUPPORTED_TYPES:
            raise _lisp_error(
                path,
                type_node,
                f"slot '{slot_id}': slot type '{type_node.name}' is not supported by muceval",
            )
        slot_type = _LISP_TYPES.get(type_node.name)
        if slot_type is None:
            raise _lisp_error(
                path,
                type_node,
                f"slot '{slot_id}': unknown slot type '{type_node.name}' (known: {', '.join(_LISP_TYPES)})",
            )
        set_values: tuple[SetNode, ...] | None = None
        xref: tuple[str, ...] | None = None
        for option in options:
            if (
                not isinstance(option, SList)
                or option.tail is not None
                or not option.items
                or not isinstance(option.items[0], Symbol)
            ):
                raise _lisp_error(
                    path,
                    option,
                    f"slot '{slot_id}': expected (set …) or (xref …), found {sexpr.describe(option)}",
                )
            kind = option.items[0].name
            if kind == "set":
                if set_values is not None:
                    raise _lisp_error(path, option, f"slot '{slot_id}': second (set …)")
                if slot_type is not SlotType.SET:
                    raise _lisp_error(
                        path, option, f"slot '{slot_id}': (set …) is only allowed for element slots"
                    )
                if len(option.items) < 2:
                    raise _lisp_error(path, option, f"slot '{slot_id}': empty (set)")
                set_values = tuple(_read_set_node(item, path) for item in option.items[1:])
                twice = _check_set_tree(set_values)
                if twice is not None:
                    raise _lisp_error(
                        path, option, f"slot '{slot_id}': set value {twice!r} occurs twice"
                    )
            elif kind == "xref":
                if xref is not None:
                    raise _lisp_error(path, option, f"slot '{slot_id}': second (xref …)")
                xref = _symbol_list(SList(option.items[1:]), path, f"slot '{slot_id}' xref")
                if not xref:
                    raise _lisp_error(path, option, f"slot '{slot_id}': empty (xref)")
                if slot_id in xref:
                    raise _lisp_error(path, option, f"slot '{slot_id}': xref names the slot itself")
                if len(set(xref)) != len(xref):
                    raise _lisp_error(path, option, f"slot '{slot_id}': xref names a slot twice")
                where[slot_id] = (path, option.line)
            else:
                raise _lisp_error(
                    path,
                    option.items[0],
                    f"slot '{slot_id}': unknown slot option '{kind}' (known: set, xref)",
                )
        if slot_type is SlotType.SET and set_values is None:
            raise _lisp_error(
                path, entry, f"slot '{slot_id}': an element slot needs a (set …) option"
            )
        specs.append(SlotSpec(slot_id, label_node.value, slot_type, set_values or (), xref or ()))
    # Unknown xref targets can only be checked once every slot is known.
    known = set(seen)
    for spec in specs:
        for target in spec.xref:
            if target not in known:
                xpath, line = where[spec.slot_id]
                raise InputError.at(
                    xpath, line, f"slot '{spec.slot_id}': xref names unknown slot '{target}'"
                )
    return tuple(specs)


# ---------------------------------------------------------------------------
# Native TOML
# ---------------------------------------------------------------------------

FORMAT_VERSION = 1
_TOP_KEYS = (
    "format-version",
    "templates",
    "options",
    "subtotal-rows",
    "files",
    "scored-templates",
    "slot",
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


class _Locator:
    """Best-effort line numbers for keys of a TOML text (tomllib gives none after parsing).

    It follows table headers and ``key =`` lines outside strings and arrays,
    which is how configurations are written; anything it cannot place is
    reported without a line.
    """

    def __init__(self, text: str):
        self.tables: list[tuple[str, int]] = []  # (header, line) in order
        self.keys: dict[tuple[int, str], int] = {}  # (table index, key) -> line
        table = -1
        depth = 0
        in_multi: str | None = None
        for number, line in enumerate(text.splitlines(), 1):
            if in_multi is not None:
                if in_multi in line:
                    in_multi = None
                continue
            stripped = line.strip()
            if depth == 0 and stripped.startswith("["):
                header = stripped.split("#", 1)[0].strip()
                self.tables.append((header, number))
                table += 1
                continue
            if depth == 0 and "=" in stripped and not stripped.startswith("#"):
                key = stripped.split("=", 1)[0].strip().strip('"').strip("'")
                self.keys.setdefault((table, key), number)
            depth, in_multi = self._scan(line, depth)

    @staticmethod
    def _scan(line: str, depth: int) -> tuple[int, str | None]:
        i = 0
        value_start = line.find("=") + 1 if depth == 0 else 0
        i = max(value_start, 0)
        while i < len(line):
            ch = line[i]
            if ch == "#":
                break
            for quote in ('"""', "'''"):
                if line.startswith(quote, i):
                    end = line.find(quote, i + 3)
                    if end < 0:
                        return depth, quote
                    i = end + 3
                    break
            else:
                if ch in "\"'":
                    end = i + 1
                    while end < len(line) and line[end] != ch:
                        end += 2 if ch == '"' and line[end] == "\\" else 1
                    i = end + 1
                    continue
                if ch in "[{":
                    depth += 1
                elif ch in "]}":
                    depth = max(depth - 1, 0)
                i += 1
        return depth, None

    def table_line(self, header: str, index: int = 0) -> int | None:
        count = 0
        for name, line in self.tables:
            if name == header:
                if count == index:
                    return line
                count += 1
        return None

    def key_line(self, header: str | None, key: str, index: int = 0) -> int | None:
        if header is None:
            table = -1
        else:
            table = -2
            count = 0
            for position, (name, _) in enumerate(self.tables):
                if name == header:
                    if count == index:
                        table = position
                        break
                    count += 1
        line = self.keys.get((table, key))
        if line is None and header is not None:
            return self.table_line(header, index)
        return line


class _TomlReader:
    def __init__(self, text: str, path: str):
        self.path = path
        self.locate = _Locator(text)
        try:
            self.data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as bad:
            message = str(bad)
            line = getattr(bad, "lineno", None)
            column = getattr(bad, "colno", None)
            if line is None and "(at line " in message:
                detail = message.rsplit("(at line ", 1)[1].rstrip(")")
                parts = detail.split(", column ")
                try:
                    line = int(parts[0])
                    column = int(parts[1]) if len(parts) > 1 else None
                except ValueError:
                    line = None
            text_message = getattr(bad, "msg", None) or message.split(" (at line ")[0]
            raise InputError.at(path, line, f"TOML syntax error: {text_message}", column) from None

    def fail(self, message: str, line: int | None) -> InputError:
        return InputError.at(self.path, line, message)

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
        if (
            isinstance(value, bool)
            and kind is not bool
            and bool not in (kind if isinstance(kind, tuple) else (kind,))
        ):
            raise self.fail(f"{what}: expected {_kind_name(kind)}, found a boolean", line)
        if not isinstance(value, kind):
            raise self.fail(f"{what}: expected {_kind_name(kind)}, found {_toml_type(value)}", line)
        return value

    def string_list(self, value: Any, what: str, line: int | None) -> tuple[str, ...]:
        self.expect(value, list, what, line)
        for item in value:
            self.expect(item, str, f"{what} (each item)", line)
        return tuple(value)

    def read(self) -> Configuration:
        data = self.data
        self.check_keys(data, _TOP_KEYS, None)
        fields: dict[str, Any] = {}
        where: dict[str, tuple[str, int | None]] = {}
        version = data.get("format-version", FORMAT_VERSION)
        if version != FORMAT_VERSION or isinstance(version, bool):
            raise self.fail(
                f"format-version {version!r} is not supported (this muceval reads version {FORMAT_VERSION})",
                self.locate.key_line(None, "format-version"),
            )
        templates = self.expect(
            data.get("templates", {}), dict, "[templates]", self.locate.table_line("[templates]")
        )
        self.check_keys(templates, _TEMPLATE_KEYS, "[templates]")
        for key, attr in _TEMPLATE_KEYS.items():
            if key in templates:
                line = self.locate.key_line("[templates]", key)
                fields[attr] = self.expect(templates[key], str, f"templates.{key}", line)
                if attr == "alternative_separator" and len(fields[attr]) != 1:
                    raise self.fail(
                        "templates.alternative-separator: expected a single character", line
                    )
        options = self.expect(
            data.get("options", {}), dict, "[options]", self.locate.table_line("[options]")
        )
        self.check_keys(options, _OPTION_KEYS, "[options]")
        for key, value in options.items():
            line = self.locate.key_line("[options]", key)
            what = f"options.{key}"
            if key in FLAG_OPTIONS:
                fields[FLAG_OPTIONS[key]] = self.expect(value, bool, what, line)
            elif key == "display-type":
                self.expect(value, str, what, line)
                try:
                    fields["display_type"] = DisplayType(value)
                except ValueError:
                    raise self.fail(
                        f"{what}: expected one of {', '.join(repr(d.value) for d in DisplayType)}, found {value!r}",
                        line,
                    ) from None
            elif key == "scored-slots":
                if value == "all":
                    fields["scored_slots"] = None
                elif isinstance(value, list):
                    fields["scored_slots"] = self.string_list(value, what, line)
                else:
                    raise self.fail(
                        f'{what}: expected "all" or a list of slot ids, found {_toml_type(value)}',
                        line,
                    )
            elif key == "restrict-map-slots":
                fields["restrict_map_slots"] = self.restriction(value, what, line)
            elif key == "string-premodifiers":
                fields["string_premodifiers"] = self.string_list(value, what, line)
            where[key] = (self.path, line)
        subtotals = self.expect(
            data.get("subtotal-rows", {}),
            dict,
            "[subtotal-rows]",
            self.locate.table_line("[subtotal-rows]"),
        )
        rows = []
        for name, slot_ids in subtotals.items():
            line = self.locate.key_line("[subtotal-rows]", name)
            rows.append(
                SubtotalRow(name, self.string_list(slot_ids, f"subtotal-rows.{name}", line))
            )
            where[f"subtotal:{name}"] = (self.path, line)
        fields["subtotal_rows"] = tuple(rows)
        files = self.expect(
            data.get("files", {}), dict, "[files]", self.locate.table_line("[files]")
        )
        self.check_keys(files, FILE_OPTIONS, "[files]")
        for key, value in files.items():
            self.expect(value, str, f"files.{key}", self.locate.key_line("[files]", key))
        fields["files"] = tuple(files.items())
        if "scored-templates" in data:
            fields["scored_templates"] = self.scored_templates(data["scored-templates"], where)
        slots = self.slots(data.get("slot"), where)
        config = replace(DEFAULTS, slots=slots, source=self.path, **fields)
        _check_references(config, where, (self.path, None))
        return config

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
                raise self.fail(
                    f"{what}: expected a slot id or a nested array, found {_toml_type(item)}", line
                )
        return Restriction(value[0], tuple(operands))

    def scored_templates(
        self, value: Any, where: dict[str, tuple[str, int | None]]
    ) -> tuple[TemplateSelection, ...] | None:
        line = self.locate.key_line(None, "scored-templates") or self.locate.table_line(
            "[[scored-templates]]"
        )
        where["scored-templates"] = (self.path, line)
        if value == "all":
            return None
        self.expect(value, list, "scored-templates", line)
        selections = []
        for index, entry in enumerate(value):
            header = "[[scored-templates]]"
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
                    slots = self.string_list(
                        spec.get("slots", []), "scored-templates.templates.slots", eline
                    )
                    templates.append((tid, slots))
                else:
                    raise self.fail(
                        f"scored-templates.templates: expected a template id or {{ id = …, slots = […] }}, found {_toml_type(spec)}",
                        eline,
                    )
            selections.append(TemplateSelection(message, tuple(templates)))
        return tuple(selections)

    def slots(self, value: Any, where: dict[str, tuple[str, int | None]]) -> tuple[SlotSpec, ...]:
        if value is None:
            raise self.fail("no [[slot]] tables: a configuration needs slot definitions", None)
        self.expect(value, list, "slot", self.locate.key_line(None, "slot"))
        where["slots"] = (self.path, self.locate.table_line("[[slot]]"))
        specs: list[SlotSpec] = []
        seen: dict[str, int] = {}
        labels: set[str] = set()
        for index, table in enumerate(value):
            header = "[[slot]]"
            tline = self.locate.table_line(header, index)
            self.expect(table, dict, "slot", tline)
            self.check_keys(table, _SLOT_KEYS, header, index, "a [[slot]] table")
            for required in ("id", "label", "type"):
                if required not in table:
                    raise self.fail(f"[[slot]] number {index + 1}: missing key '{required}'", tline)
            slot_id = self.expect(
                table["id"], str, "slot.id", self.locate.key_line(header, "id", index)
            )
            if not slot_id or slot_id != slot_id.strip():
                raise self.fail(
                    f"slot id {slot_id!r} is empty or has surrounding spaces",
                    self.locate.key_line(header, "id", index),
                )
            if slot_id in seen:
                raise self.fail(
                    f"duplicate slot id '{slot_id}' (first in [[slot]] number {seen[slot_id]})",
                    self.locate.key_line(header, "id", index),
                )
            seen[slot_id] = index + 1
            label_line = self.locate.key_line(header, "label", index)
            label = self.expect(table["label"], str, f"slot '{slot_id}': label", label_line)
            if not label.strip():
                raise self.fail(f"slot '{slot_id}': empty label", label_line)
            if label in labels:
                raise self.fail(f"slot '{slot_id}': label {label!r} is used twice", label_line)
            labels.add(label)
            type_line = self.locate.key_line(header, "type", index)
            type_name = self.expect(table["type"], str, f"slot '{slot_id}': type", type_line)
            slot_type = _TOML_TYPES.get(type_name)
            if slot_type is None:
                hint = (
                    " (the 1992 type 'element' is called 'set' here)"
                    if type_name == "element"
                    else ""
                )
                raise self.fail(
                    f"slot '{slot_id}': unknown type {type_name!r} (known: {', '.join(_TOML_TYPES)}){hint}",
                    type_line,
                )
            values_line = self.locate.key_line(header, "values", index)
            set_values: tuple[SetNode, ...] = ()
            if "values" in table:
                if slot_type is not SlotType.SET:
                    raise self.fail(
                        f"slot '{slot_id}': 'values' is only allowed for slots of type \"set\"",
                        values_line,
                    )
                set_values = self.set_values(table["values"], slot_id, values_line)
            elif slot_type is SlotType.SET:
                raise self.fail(f"slot '{slot_id}': a set slot needs 'values'", tline)
            xref_line = self.locate.key_line(header, "xref", index)
            xref = self.string_list(table.get("xref", []), f"slot '{slot_id}': xref", xref_line)
            if slot_id in xref:
                raise self.fail(f"slot '{slot_id}': xref names the slot itself", xref_line)
            if len(set(xref)) != len(xref):
                raise self.fail(f"slot '{slot_id}': xref names a slot twice", xref_line)
            where[f"xref:{slot_id}"] = (self.path, xref_line)
            specs.append(SlotSpec(slot_id, label, slot_type, set_values, xref))
        return tuple(specs)

    def set_values(self, value: Any, slot_id: str, line: int | None) -> tuple[SetNode, ...]:
        what = f"slot '{slot_id}': values"
        if isinstance(value, list):
            roots = tuple(SetNode(v) for v in self.string_list(value, what, line))
            first_line = line
        elif isinstance(value, str):
            roots = self.outline(value, what, line)
            first_line = line
        else:
            raise self.fail(
                f"{what}: expected an indented outline string or a list of strings, found {_toml_type(value)}",
                line,
            )
        if not roots:
            raise self.fail(f"{what}: the set is empty", first_line)
        twice = _check_set_tree(roots)
        if twice is not None:
            raise self.fail(f"{what}: {twice!r} occurs twice", line)
        return roots

    def outline(self, text: str, what: str, line: int | None) -> tuple[SetNode, ...]:
        """An indented outline: one value a line, children indented below their parent."""
        # (indent, value, children) frames; the root frame collects top-level values.
        root: list = [-1, None, []]
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
            if parent is not root and parent[2] and indent != parent[2][-1][0]:
                raise self.fail(f"{what}: {value!r} is not aligned with the values above it", here)
            if parent is root and root[2] and indent != root[2][-1][0]:
                raise self.fail(f"{what}: {value!r} is not aligned with the values above it", here)
            frame = [indent, value, []]
            parent[2].append(frame)
            stack.append(frame)

        def build(frame: list) -> SetNode:
            return SetNode(frame[1], tuple(build(child) for child in frame[2]))

        return tuple(build(child) for child in root[2])


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


def _toml_value(value: Any) -> str:
    """One TOML value on one line: scalars as tomli_w writes them, arrays inline.

    A tab is written as ``\\t`` (tomli_w keeps it literal, which is legal but
    invisible in a regular expression such as ``^[ \\t]*$``).
    """
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    text = tomli_w.dumps({"v": value}).split("=", 1)[1].strip()
    if isinstance(value, str):
        text = text.replace("\t", "\\t")
    return text


def _outline(roots: tuple[SetNode, ...]) -> list[str]:
    lines: list[str] = []

    def walk(node: SetNode, depth: int) -> None:
        lines.append("  " * depth + node.value)
        for child in node.children:
            walk(child, depth + 1)

    for root in roots:
        walk(root, 0)
    return lines


def _restriction_array(restriction: Restriction) -> list[Any]:
    return [restriction.op] + [
        _restriction_array(op) if isinstance(op, Restriction) else op for op in restriction.operands
    ]


def _wrap_array(key: str, items: list[str], width: int = 96) -> list[str]:
    """``key = [a, b, …]`` folded over several lines at ``width`` columns."""
    one_line = f"{key} = [{', '.join(items)}]"
    if len(one_line) <= width:
        return [one_line]
    lines = [f"{key} = ["]
    current = "    "
    for item in items:
        piece = item + ","
        if len(current) + len(piece) + 1 > width and current.strip():
            lines.append(current.rstrip())
            current = "    "
        current += piece + " "
    if current.strip():
        lines.append(current.rstrip())
    lines.append("]")
    return lines


def _restriction_lines(restriction: Restriction) -> list[str]:
    value = _restriction_array(restriction)
    flat = "restrict-map-slots = " + _toml_value(value)
    if len(flat) <= 96:
        return [flat]

    def render(expr: list[Any], indent: int) -> str:
        out = "[" + _toml_value(expr[0])
        for op in expr[1:]:
            if isinstance(op, list):
                out += ",\n" + " " * (indent + 4) + render(op, indent + 4)
            else:
                out += ", " + _toml_value(op)
        return out + "]"

    return ("restrict-map-slots = " + render(value, 0)).split("\n")


def write_configuration_toml(config: Configuration, *, comment: str | None = None) -> str:
    """A configuration as native TOML text; :func:`parse_configuration_toml` reads it back equal.

    >>> cfg = bundled_configuration("muc4")
    >>> parse_configuration_toml(write_configuration_toml(cfg)) == cfg
    True
    """
    out: list[str] = []
    if comment:
        out.extend("# " + line if line else "#" for line in comment.splitlines())
        out.append("")
    out.append(f"format-version = {FORMAT_VERSION}")
    if config.scored_templates == ():
        # No template is scored (1992 nil); an empty list must sit before the first table.
        out.append("scored-templates = []")
    out.append("")
    out.append("[templates]")
    for key, attr in _TEMPLATE_KEYS.items():
        out.append(f"{key} = {_toml_value(getattr(config, attr))}")
    out.append("")
    out.append("[options]")
    out.append(f"display-type = {_toml_value(config.display_type.value)}")
    for key, attr in FLAG_OPTIONS.items():
        out.append(f"{key} = {_toml_value(getattr(config, attr))}")
    if config.scored_slots is None:
        out.append('scored-slots = "all"')
    else:
        out.extend(_wrap_array("scored-slots", [_toml_value(s) for s in config.scored_slots]))
    if config.restrict_map_slots is not None:
        out.extend(_restriction_lines(config.restrict_map_slots))
    out.extend(
        _wrap_array("string-premodifiers", [_toml_value(w) for w in config.string_premodifiers])
    )
    if config.scored_templates is None:
        scored_templates_lines: list[str] = []
    else:
        scored_templates_lines = []
        for selection in config.scored_templates:
            scored_templates_lines.append("")
            scored_templates_lines.append("[[scored-templates]]")
            scored_templates_lines.append(f"message = {_toml_value(selection.message_id)}")
            specs = [
                _toml_value(tid)
                if slots is None
                else f"{{ id = {_toml_value(tid)}, slots = {_toml_value(list(slots))} }}"
                for tid, slots in selection.templates
            ]
            scored_templates_lines.append(f"templates = [{', '.join(specs)}]")
    if config.subtotal_rows:
        out.append("")
        out.append("[subtotal-rows]")
        for row in config.subtotal_rows:
            key = _toml_key(row.name)
            out.extend(_wrap_array(key, [_toml_value(s) for s in row.slot_ids]))
    if config.files:
        out.append("")
        out.append("[files]")
        for option, name in config.files:
            out.append(f"{option} = {_toml_value(name)}")
    out.extend(scored_templates_lines)
    for spec in config.slots:
        out.append("")
        out.append("[[slot]]")
        out.append(f"id = {_toml_value(spec.slot_id)}")
        out.append(f"label = {_toml_value(spec.label)}")
        out.append(f"type = {_toml_value(spec.type.value)}")
        if spec.xref:
            out.append(f"xref = {_toml_value(list(spec.xref))}")
        if spec.set_values:
            lines = _outline(spec.set_values)
            for node in (n for root in spec.set_values for n in root.walk()):
                if node.value != node.value.strip() or "\n" in node.value or not node.value:
                    raise UsageError(
                        f"slot '{spec.slot_id}': set value {node.value!r} cannot be written "
                        "in the outline form (leading/trailing space, newline or empty)"
                    )
            body = "\n".join(lines)
            if (
                "'''" in body
                or any(ch in body for ch in "\r\x7f")
                or any(ord(c) < 32 and c not in "\n\t" for c in body)
            ):
                out.append(f"values = {_toml_value(body)}")
            else:
                out.append("values = '''")
                out.extend(lines)
                out.append("'''")
    return "\n".join(out) + "\n"


def _toml_key(name: str) -> str:
    if name and all(ch.isascii() and (ch.isalnum() or ch in "-_") for ch in name):
        return name
    return _toml_value(name)
