"""Every modern layout of the registry behaves as :class:`muceval.formats.modern.Layout` says."""

from __future__ import annotations

import pytest

from muceval.core.modern import ModernDocument, ModernFile, ModernTemplate, role_union
from muceval.errors import InputError, UsageError
from muceval.formats.modern import (
    LAYOUTS,
    NEUTRAL,
    REGISTRY,
    TARGET_LAYOUTS,
    Layout,
    Probe,
    detect_layout,
    layout_named,
    parse_modern,
)
from muceval.formats.modern.writer import write_layout
from muceval.formats.registry import INPUTS


def _template(kind: str | None, *victims: tuple[str, ...]) -> ModernTemplate:
    return ModernTemplate(kind, ((("shining path", "sendero"),), (), (), tuple(victims), ()))


TEMPLATES = (ModernDocument("TST3-MUC4-0001", (_template("attack", ("mayor",)),
                                               _template("attack", ("priest",), ("é",)),
                                               _template("bombing"), _template(None))),
             ModernDocument("TST3-MUC4-0002", ()),
             ModernDocument("TST4-MUC4-0100", (_template("kidnapping", ("x", "y")),)))
"""Documents of templates: two of one type in a row, non-ASCII, no type, none at all."""


EXTRACTS = tuple(ModernDocument(d.docid, extracts=role_union(d.templates or ()))
                 for d in TEMPLATES)
"""The same documents as GRIT has them: per role, the union of the templates' entities."""


def _famus(kind: str, **roles: tuple[str, ...]) -> ModernTemplate:
    return ModernTemplate(kind, tuple(tuple((s,) for s in v) for v in roles.values()),
                          tuple(roles))


FAMUS_GOLD = (ModernDocument("EN-1-frame-Hiring", (_famus("Hiring", Employer=("Fogerty", "é"),
                                                          Time=()),)),
              ModernDocument("EN-2-frame-Arrest", (_famus("Arrest", Suspect=()),)))
"""FAMuS gold: one template a document, every role of the frame, empty ones too."""
FAMUS_PRED = (ModernDocument("EN-1-frame-Hiring", (_famus("Hiring", Employer=("Fogerty", ""),
                                                          Other=("x",)),)),
              ModernDocument("EN-2-frame-Arrest", ()))
"""Predictions: only filled roles (any key), or no template."""


def _examples(layout: Layout) -> list[ModernFile]:
    """Small files each layout is written from: templates, and per-role extracts where it
    takes them."""
    if layout.schema == "famus":
        return [ModernFile("example", layout.name, FAMUS_GOLD if layout.gold else FAMUS_PRED,
                           schema="famus")]
    examples = [ModernFile("example", layout.name, TEMPLATES)]
    if not layout.needs_templates:
        examples.append(ModernFile("example", layout.name, EXTRACTS))
    return examples


@pytest.mark.parametrize("layout", REGISTRY, ids=LAYOUTS)
def test_every_layout_reads_back_what_it_writes(layout: Layout) -> None:
    for example in _examples(layout):
        text = layout.write(example)
        assert detect_layout(text) == layout.name
        kind = INPUTS.detect(text, "example")
        assert kind is not None and kind.name == layout.name
        again = parse_modern(text, "example")
        assert (again.layout, again.gold) == (layout.name, layout.gold)
        # A layout keeps the templates, or has their per-role union (GRIT).
        kept = again.documents[0].templates is not None
        assert again.documents == (example.documents if kept else EXTRACTS)
        assert layout.write(again) == text
        assert tuple(layout.read(text, "example")) == again.documents


@pytest.mark.parametrize("layout", REGISTRY, ids=LAYOUTS)
def test_the_detectors_in_priority_order_find_each_layout(layout: Layout) -> None:
    by_priority = sorted(REGISTRY, key=lambda other: other.priority)
    for example in _examples(layout):
        probe = Probe(layout.write(example))
        assert probe.first.startswith("{")
        assert next(other for other in by_priority if other.detect(probe)) is layout


@pytest.mark.parametrize("layout", REGISTRY, ids=LAYOUTS)
def test_every_layout_is_named_and_written_by_convert(layout: Layout) -> None:
    assert layout_named(layout.name) is layout
    assert layout.name.endswith("-gold") == layout.gold  # as ModernFile.gold reads it
    # convert writes each layout, the neutral ones as the target muceval.
    target = "muceval" if layout.name == NEUTRAL[layout.gold] else layout.name
    assert target in TARGET_LAYOUTS
    (example,) = _examples(layout) if layout.schema == "famus" else \
        [ModernFile("example", NEUTRAL[layout.gold], TEMPLATES)]
    assert write_layout(example, target) == layout.write(example)
    muc4 = ModernFile("example", NEUTRAL[layout.gold], TEMPLATES)
    if layout.schema != muc4.schema:
        with pytest.raises(InputError, match=f"muc4 templates and {target} is a famus layout"):
            write_layout(muc4, target)
        return
    extracts = ModernFile("example", "grit-pred",
                          (ModernDocument("TST3-MUC4-0001", extracts=((("x",),),) * 5),))
    if layout.needs_templates:
        with pytest.raises(InputError, match=f"{target} needs templates"):
            write_layout(extracts, target)
    else:
        assert parse_modern(write_layout(extracts, target)).documents == extracts.documents


def test_names_and_priorities_are_unique() -> None:
    assert len(set(LAYOUTS)) == len(REGISTRY)
    assert len({layout.priority for layout in REGISTRY}) == len(REGISTRY)
    assert len({layout.label for layout in REGISTRY}) == len(REGISTRY)


def test_an_unknown_layout_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="choose from gtt-gold, gtt-pred") as error:
        layout_named("gtt")
    assert error.value.parameter == "layout"
    with pytest.raises(ValueError, match="unknown layout 'gtt'"):
        parse_modern("{}", "x.json", "gtt")


def test_detection_keeps_no_text_once_it_has_answered() -> None:
    # detect_layout kept the last text (a file can be hundreds of megabytes) for the whole
    # process; the registry's modern kinds now share one answer only while it asks.
    import gc
    import weakref

    from muceval.formats import registry

    class Text(str):
        pass

    text = Text('{"docid": "TST3-MUC4-0001", "doctext": "", "templates": []}')
    seen = weakref.ref(text)
    kind = INPUTS.detect(text, "x.json")
    assert kind is not None and kind.name == "gtt-gold"
    assert registry._DETECTED == []
    assert detect_layout(text) == "gtt-gold"
    del text
    gc.collect()
    assert seen() is None
