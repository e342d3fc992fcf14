"""Writing a configuration as muceval's native TOML."""

from __future__ import annotations

from typing import Any

import tomli_w

from muceval.core.model import (
    Configuration,
    Restriction,
    SetNode,
    SlotSpec,
)
from muceval.errors import UsageError
from muceval.formats.config.alignment import alignment_lines
from muceval.formats.config.common import FLAG_OPTIONS
from muceval.formats.config.native import _TEMPLATE_KEYS, FORMAT_VERSION


def _toml_value(value: Any) -> str:
    """One TOML value on one line: scalars as tomli_w writes them, arrays and tables inline; a
    tab as ``\\t`` (tomli_w keeps it literal: legal, but invisible in ``^[ \\t]*$``)."""
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    text = tomli_w.dumps({"v": value}).split("=", 1)[1].strip()
    if isinstance(value, str):
        text = text.replace("\t", "\\t")
    return text


def _outline(roots: tuple[SetNode, ...], depth: int = 0) -> list[str]:
    return [line for node in roots
            for line in ("  " * depth + node.value, *_outline(node.children, depth + 1))]


def _restriction_array(restriction: Restriction) -> list[Any]:
    return [restriction.op] + [
        _restriction_array(op) if isinstance(op, Restriction) else op for op in restriction.operands
    ]


def _wrap_array(key: str, values: tuple[str, ...], width: int = 96) -> list[str]:
    """``key = [a, b, …]`` folded over several lines at ``width`` columns."""
    items = [_toml_value(value) for value in values]
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

    >>> from muceval.formats.config import bundled_configuration, parse_configuration_toml
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
    out += ["", "[templates]"]
    for key, attr in _TEMPLATE_KEYS.items():
        out.append(f"{key} = {_toml_value(getattr(config, attr))}")
    out.append("")
    out.extend(_options_lines(config))
    if config.subtotal_rows:
        out += ["", "[subtotal-rows]"]
        for row in config.subtotal_rows:
            out.extend(_wrap_array(_toml_key(row.name), row.slot_ids))
    if config.files:
        out += ["", "[files]"]
        out.extend(f"{option} = {_toml_value(name)}" for option, name in config.files)
    out.extend(_scored_templates_lines(config))
    for spec in config.slots:
        out.extend(_slot_lines(spec))
    if config.alignment is not None:
        out.extend(alignment_lines(config.alignment))
    return "\n".join(out) + "\n"


def _options_lines(config: Configuration) -> list[str]:
    out = ["[options]", f"display-type = {_toml_value(config.display_type.value)}"]
    for key, attr in FLAG_OPTIONS.items():
        out.append(f"{key} = {_toml_value(getattr(config, attr))}")
    if config.scored_slots is None:
        out.append('scored-slots = "all"')
    else:
        out.extend(_wrap_array("scored-slots", config.scored_slots))
    if config.restrict_map_slots is not None:
        out.extend(_restriction_lines(config.restrict_map_slots))
    out.extend(_wrap_array("string-premodifiers", config.string_premodifiers))
    return out


def _scored_templates_lines(config: Configuration) -> list[str]:
    """The ``[[scored-templates]]`` tables (none when every template is scored)."""
    out: list[str] = []
    for selection in config.scored_templates or ():
        out += ["", "[[scored-templates]]", f"message = {_toml_value(selection.message_id)}"]
        specs = [
            _toml_value(tid)
            if slots is None
            else f"{{ id = {_toml_value(tid)}, slots = {_toml_value(list(slots))} }}"
            for tid, slots in selection.templates
        ]
        out.append(f"templates = [{', '.join(specs)}]")
    return out


def _slot_lines(spec: SlotSpec) -> list[str]:
    out = [
        "",
        "[[slot]]",
        f"id = {_toml_value(spec.slot_id)}",
        f"label = {_toml_value(spec.label)}",
        f"type = {_toml_value(spec.type.value)}",
    ]
    if spec.xref:
        out.append(f"xref = {_toml_value(list(spec.xref))}")
    if spec.set_values:
        out.extend(_set_values_lines(spec))
    return out


def _set_values_lines(spec: SlotSpec) -> list[str]:
    """``values``: an indented outline in a literal string when its text allows one."""
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
        return [f"values = {_toml_value(body)}"]
    return ["values = '''", *lines, "'''"]


def _toml_key(name: str) -> str:
    if name and all(ch.isascii() and (ch.isalnum() or ch in "-_") for ch in name):
        return name
    return _toml_value(name)
