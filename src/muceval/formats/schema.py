"""Template schemas written by users, in TOML (``--schema FILE``): a ``[schema]`` table whose
keys docs/configuration.md lists."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from muceval.core.schema import SCHEMAS, Schema, register_schema
from muceval.errors import InputError, UsageError
from muceval.formats.files import read_text
from muceval.formats.toml import parse_toml

__all__ = ["read_schema", "resolve_schema"]

_KEYS = {"name": str, "label": str, "type_from": str, "type_field": str,
         "docid_separator": str, "roles": list, "fillers": str, "normalisation": str,
         "group_predictions": str, "sanitise_gold": bool, "reported": list}
_CHOICES = {"type_from": ("field", "docid"), "fillers": ("entities", "strings"),
            "group_predictions": ("substring",)}


def read_schema(path: str | Path) -> Schema:
    """The schema of a TOML file."""
    where = str(path)
    data, locate = parse_toml(read_text(path), where, "a schema")
    table = data.get("schema")
    if not isinstance(table, dict):
        raise InputError.at(where, None, "a schema file holds a [schema] table")
    unknown = [k for k in table if k not in _KEYS]
    if unknown:
        raise InputError.at(where, locate.key_line("[schema]", unknown[0]),
                            f"unknown key {unknown[0]!r} in [schema] (keys: {', '.join(_KEYS)})")
    for key, value in table.items():
        line = locate.key_line("[schema]", key)
        if not isinstance(value, _KEYS[key]):
            raise InputError.at(where, line, f"{key} must be a {_KEYS[key].__name__}")
        if key in _CHOICES and value not in _CHOICES[key]:
            raise InputError.at(where, line, f"{key} {value!r}: choose from "
                                f"{', '.join(_CHOICES[key])}")
    if "name" not in table or not table["name"]:
        raise InputError.at(where, locate.table_line("[schema]"), "a schema needs a name")
    options: dict[str, Any] = dict(table)
    options.setdefault("label", options["name"])
    if "roles" in options:
        roles = options["roles"]
        if not roles or not all(isinstance(r, str) and r for r in roles):
            raise InputError.at(where, locate.key_line("[schema]", "roles"),
                                "roles must list role names (leave it out for open roles)")
        options["roles"] = tuple(roles)
    if "reported" in options:
        options["reported"] = _reported(options["reported"], where,
                                        locate.key_line("[schema]", "reported"))
    options["source"] = where
    try:
        return Schema(**options)
    except UsageError as error:
        # A key left out is blamed on the one that needs it (the separator on type_from).
        given = error.parameter or "name"
        key = given if given in table else {"docid_separator": "type_from"}.get(given, "name")
        raise InputError.at(where, locate.key_line("[schema]", key), str(error)) from None


def _reported(value: list[Any], where: str, line: int | None) -> tuple[tuple[str, str | None], ...]:
    """The scorers a report shows (checked where used: scorers live above the file formats)."""
    out = []
    for item in value:
        if not (isinstance(item, list) and 1 <= len(item) <= 2
                and all(isinstance(x, str) for x in item)):
            raise InputError.at(where, line, "reported lists [scorer] or [scorer, phi] pairs")
        out.append((item[0], item[1] if len(item) == 2 else None))
    return tuple(out)


def resolve_schema(value: str | Path) -> str:
    """The name of a schema given by name (a built-in or registered one) or as a TOML file,
    which is read and registered (the same name twice must be the same schema)."""
    if isinstance(value, str) and value in SCHEMAS:
        return value
    if not Path(value).is_file():
        raise UsageError(f"{str(value)!r} is no schema ({', '.join(SCHEMAS)}) and no file",
                         parameter="schema")
    schema = read_schema(value)
    known = SCHEMAS.get(schema.name)
    if known is None:
        register_schema(schema)
    elif known != schema:
        raise InputError.at(str(value), None, f"a schema named {schema.name!r} exists with "
                            "other choices: give this one another name")
    return schema.name
