"""``muceval convert``: a modern MUC-4 file, or a 1992 template file, in another layout."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from muceval.errors import InputError, UsageError

__all__ = ["Conversion", "convert_file"]


@dataclass(frozen=True)
class Conversion:
    """The converted file's text, its layout and document count, and notes for the reader."""

    text: str
    layout: str
    documents: int
    notes: tuple[str, ...]


def convert_file(source: str | Path, layout: str, *, config: str | None = None,
                 slots: str | None = None, gold: bool = False,
                 schema: str | Path | None = None) -> Conversion:
    """``source`` written in ``layout`` (``'muceval'`` or a layout of GTT, GRIT or IterX).

    ``source`` is a modern MUC-4 file (of ``schema``; None: its own) or a 1992 template file
    read with ``config`` and ``slots``, a key when ``gold`` (the gold layouts imply it).

    >>> from muceval.reporting.demo import example_dir
    >>> done = convert_file(example_dir() / "key.txt", "gtt-gold",
    ...                     config=str(example_dir() / "config.toml"))
    >>> done.layout, done.documents > 0
    ('gtt-gold', True)
    """
    from muceval.formats.config import resolve_configuration
    from muceval.formats.files import read_text
    from muceval.formats.modern import TARGET_LAYOUTS, detect_layout, layout_named, parse_modern
    from muceval.formats.modern.writer import from_templates, write_layout
    from muceval.formats.muc.templates import read_templates
    from muceval.formats.schema import resolve_schema

    if layout not in TARGET_LAYOUTS:
        raise UsageError(f"{layout!r}: choose one of {', '.join(TARGET_LAYOUTS)}",
                         parameter="layout")
    text = read_text(source)
    writes_gold = None if layout == "muceval" else layout_named(layout).gold  # None: as input
    if not text.strip():
        raise InputError.at(str(source), None, "an empty file: nothing to convert")
    if detect_layout(text) is not None:
        given = [name for name, value in (("config", config), ("slots", slots), ("gold", gold))
                 if value]
        if given:
            raise UsageError(f"a configuration, slots and gold are for 1992 template files; "
                             f"{source} is a modern MUC-4 file", parameter=given[0])
        modern = parse_modern(text, str(source),
                              schema=None if schema is None else resolve_schema(schema))
    else:
        if schema is not None:
            raise UsageError("a schema is for modern files; 1992 template files become MUC-4 "
                             "templates", parameter="schema")
        configuration = resolve_configuration(config, slots)
        modern = from_templates(read_templates(str(source), configuration), configuration,
                                gold or bool(writes_gold))
    if writes_gold and not modern.gold:
        predictions = [t for t in TARGET_LAYOUTS[1:] if not layout_named(t).gold]
        raise UsageError(f"{source} holds predictions ({modern.layout}): {layout} writes a "
                         f"gold file (use {', '.join(predictions)} or muceval)",
                         parameter="layout")
    notes = ((f"note: {source} is a gold file; written as predictions ({layout})",)
             if writes_gold is False and modern.gold else ())
    return Conversion(write_layout(modern, layout), layout, len(modern.documents), notes)
