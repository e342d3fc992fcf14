"""Tests of configuration reading/writing: 1992 .el files, native TOML, the bundled MUC-4 file, the CLI."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from conftest import assert_one_problem
from muceval.cli import main
from muceval.core.model import DisplayType, Restriction, SetNode, SlotType, TemplateSelection
from muceval.errors import InputError, UsageError
from muceval.formats.config import (
    bundled_configuration,
    convert_configuration,
    load_configuration,
    parse_configuration_toml,
    read_lisp_configuration,
    write_configuration_toml,
)

REPO = Path(__file__).resolve().parent.parent
BROKEN = Path(__file__).resolve().parent / "data" / "broken" / "config"

# SCORER-SPEC §1: cardinality, hierarchy and xref of the MUC-4 set-fill slots.
MUC4_SET_SLOTS = {
    "inc-type": (7, True, ()),
    "inc-stage": (3, False, ()),
    "inc-instr-type": (20, True, ("inc-instr-id",)),
    "perp-inc-cat": (2, False, ()),
    "perp-org-conf": (6, True, ("perp-org-id",)),
    "phys-tgt-type": (15, True, ("phys-tgt-id",)),
    "phys-tgt-nation": (76, False, ("phys-tgt-id",)),
    "phys-tgt-effect": (6, True, ("phys-tgt-id",)),
    "hum-tgt-type": (10, True, ("hum-tgt-name", "hum-tgt-desc")),
    "hum-tgt-nation": (76, False, ("hum-tgt-name", "hum-tgt-desc")),
    "hum-tgt-effect": (9, True, ("hum-tgt-name", "hum-tgt-desc")),
}
MUC4_XREF_OTHERS = {
    "perp-org-id": ("perp-ind-id",),
    "phys-tgt-num": ("phys-tgt-id",),
    "hum-tgt-desc": ("hum-tgt-name",),
    "hum-tgt-num": ("hum-tgt-name", "hum-tgt-desc"),
}
MUC4_STRING_SLOTS = {
    "inc-instr-id",
    "perp-ind-id",
    "perp-org-id",
    "phys-tgt-id",
    "hum-tgt-name",
    "hum-tgt-desc",
}


def check_muc4(config) -> None:
    """The MUC-4 facts of SCORER-SPEC §1, checked on any reading of the TST3/TST4 configuration."""
    assert len(config.slots) == 25
    assert config.slots[0].type is SlotType.MESSAGE_ID
    assert config.slots[1].type is SlotType.TEMPLATE_ID
    set_slots = {s.slot_id for s in config.slots if s.type is SlotType.SET}
    assert set_slots == set(MUC4_SET_SLOTS)
    for slot_id, (cardinality, hierarchical, xref) in MUC4_SET_SLOTS.items():
        spec = config.slot(slot_id)
        assert (spec.cardinality, spec.hierarchical, spec.xref) == (cardinality, hierarchical, xref)
    for slot_id, xref in MUC4_XREF_OTHERS.items():
        assert config.slot(slot_id).xref == xref
    assert {s.slot_id for s in config.slots if s.type is SlotType.STRING} == MUC4_STRING_SLOTS
    inc_type = config.slot("inc-type")
    assert inc_type.set_values[0].value == "ATTACK"
    assert len(inc_type.set_values) == 1 and len(inc_type.set_values[0].children) == 6
    effect = config.slot("hum-tgt-effect").set_values
    no_injury = next(node for node in effect if node.value == "NO INJURY")
    assert no_injury.children == (SetNode("NO DEATH", (SetNode("NO INJURY OR DEATH"),)),)
    assert config.restrict_map_slots == Restriction(
        "and",
        (
            "inc-type",
            Restriction(
                "or",
                (
                    "phys-tgt-id",
                    "phys-tgt-type",
                    "hum-tgt-name",
                    "hum-tgt-desc",
                    "hum-tgt-type",
                    "perp-ind-id",
                    "perp-org-id",
                ),
            ),
        ),
    )
    premodifiers = config.string_premodifiers
    assert len(premodifiers) == 39
    assert premodifiers[:4] == ("a", "the", "an", "this") and premodifiers[-2:] == ("certain", "of")
    assert [row.name for row in config.subtotal_rows] == [
        "inc-total",
        "perp-total",
        "phys-tgt-total",
        "hum-tgt-total",
    ]
    assert config.subtotal_rows[2].slot_ids[-1] == "phys-tgt-total-num"
    assert config.display_type is DisplayType.ALL_TEMPLATES
    assert config.disable_edit and config.query_verbose and config.report_verbose
    assert config.score_irrelevant
    assert config.scored_slots is None and config.scored_templates is None
    assert config.template_header_regexp == "^0.  MESSAGE: ID"
    assert config.template_tail_regexp == "^[ \t]*$"
    assert config.alternative_separator == "/"


# --- real 1992 files -----------------------------------------------------------


@pytest.mark.parametrize("test_set", ["tst3", "tst4"])
def test_1992_pair_reads_and_round_trips_through_toml(muc4, test_set):
    config_el = muc4 / test_set / f"config-{test_set}.el"
    slots_el = muc4 / test_set / f"slotconfig-{test_set}.el"
    config = read_lisp_configuration(config_el, slots_el)
    check_muc4(config)
    assert config.message_header_regexp == f"^{test_set.upper()}-MUC4-"
    assert dict(config.files)["slot-file"] == f"{test_set}/slotconfig-{test_set}.el"
    assert [name for name, _ in config.files] == [
        "slot-file",
        "key-file",
        "response-file",
        "message-file",
        "history-file",
    ]
    text = write_configuration_toml(config)
    again = parse_configuration_toml(text, "converted.toml")
    assert again == config
    # Writing is deterministic: the TOML of the re-read model is the same text.
    assert write_configuration_toml(again) == text
    # Without --slots the slot file is found next to the configuration.
    assert load_configuration(config_el) == config


def test_bundled_muc4_equals_converted_tst3(muc4):
    converted = read_lisp_configuration(muc4 / "tst3" / "config-tst3.el")
    bundled = bundled_configuration("muc4")
    check_muc4(bundled)
    # The only hand edit of the bundled file is the generalised message header regexp.
    assert (
        dataclasses.replace(bundled, message_header_regexp=converted.message_header_regexp)
        == converted
    )
    assert bundled.slots == converted.slots
    assert re.match(bundled.message_header_regexp, "TST3-MUC4-0001")
    assert re.match(bundled.message_header_regexp, "DEV-MUC3-0001")
    assert re.match(bundled.message_header_regexp, "TST4-MUC4-0100")


def test_bundled_muc4_without_shared_data():
    config = bundled_configuration("muc4")
    check_muc4(config)
    assert bundled_configuration() is config  # cached: frozen values can be shared
    with pytest.raises(UsageError, match="available: .*muc4"):
        bundled_configuration("muc9")
    with pytest.raises(UsageError):
        bundled_configuration("../model")


def test_convert_configuration_text(muc4):
    text = convert_configuration(muc4 / "tst3" / "config-tst3.el")
    assert text.startswith("# muceval configuration converted from the 1992 files config-tst3.el")
    assert "slotconfig-tst3.el" in text.splitlines()[0]
    assert parse_configuration_toml(text) == read_lisp_configuration(
        muc4 / "tst3" / "config-tst3.el"
    )


# --- hand-written 1992 files ------------------------------------------------------

SMALL_SLOTS = """\
(setq *message-header-regexp* "^MSG-" *muc-alternate-separator* ?|)
(define-muc-template-slots
  (message-id   "0.  MESSAGE: ID" id)
  (template-id  "1.  MESSAGE: TEMPLATE" template-id)
  (owner        "2.  OWNER" string)
  (colour       "3.  COLOUR" element
                (set ("RED" "DARK RED" ("LIGHT RED" "PINK")) "BLUE")
                (xref owner))
  (size         "4.  SIZE" number))
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_1992_options_and_defaults(tmp_path):
    write(tmp_path, "small-slots.el", SMALL_SLOTS)
    config_el = write(
        tmp_path,
        "config-small.el",
        """\
(define-muc-configuration-options
  :slot-file "/somewhere/else/small-slots.el"
  :display-type nil
  :scored-slots '(colour size)
  :scored-templates '(("MSG-0012" "1" ("2" colour)) ("MSG-0013"))
  :subtotal-rows '((thing-total colour size))
  :restrict-map-slots '(or colour (and owner size)))
""",
    )
    config = load_configuration(config_el)
    assert config.display_type is DisplayType.MATCHED_MISSING  # nil: the 1992 default
    assert config.query_verbose and config.report_verbose and config.score_irrelevant
    assert not config.disable_edit
    assert config.alternative_separator == "|"
    assert config.message_header_regexp == "^MSG-"
    assert config.scored_slots == ("colour", "size")
    assert config.scored_templates == (
        TemplateSelection("MSG-0012", (("1", None), ("2", ("colour",)))),
        TemplateSelection("MSG-0013", ()),
    )
    assert config.restrict_map_slots == Restriction(
        "or", ("colour", Restriction("and", ("owner", "size")))
    )
    assert config.slot("colour").cardinality == 5 and config.slot("colour").hierarchical
    assert config.files == (("slot-file", "/somewhere/else/small-slots.el"),)
    assert parse_configuration_toml(write_configuration_toml(config)) == config


def test_slot_file_alone_and_empty_scored_templates(tmp_path):
    slots = write(tmp_path, "only-slots.el", SMALL_SLOTS)
    # Given as the configuration, a slot file is refused (its defaults change the scores),
    # naming the configuration beside it that uses it.
    write(tmp_path, "config-small.el", f'(define-muc-configuration-options :slot-file "{slots.name}")')
    with pytest.raises(InputError, match=r"a 1992 slot file.*config-small\.el"):
        load_configuration(slots)
    config = load_configuration(slots, slot_file_alone=True)
    assert config.display_type is DisplayType.MATCHED_MISSING
    assert [s.slot_id for s in config.slots] == [
        "message-id",
        "template-id",
        "owner",
        "colour",
        "size",
    ]
    nothing = dataclasses.replace(config, scored_templates=())
    assert parse_configuration_toml(write_configuration_toml(nothing)) == nothing


def test_missing_slot_file_is_reported(tmp_path):
    config_el = write(
        tmp_path,
        "config.el",
        '(define-muc-configuration-options\n  :slot-file "nowhere/slots.el")\n',
    )
    with pytest.raises(InputError, match=r"config\.el:2: slot file 'nowhere/slots\.el' not found"):
        load_configuration(config_el)


# --- broken inputs ------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "line", "fragment"),
    [
        ("unbalanced-extra-paren.el", 5, "unexpected ')'"),
        ("unbalanced-unclosed.el", 3, "never closed"),
        ("unterminated-string.el", 3, "unterminated string"),
        ("unknown-option.el", 6, "unknown option :score-everything"),
        ("unknown-slot-restriction.el", 13, "unknown slot 'weapon'"),
        ("duplicate-slot.el", 6, "duplicate slot id 'colour'"),
        ("unsupported-type.el", 5, "'boolean' is not supported"),
        ("unknown-xref.el", 6, "unknown slot 'nobody'"),
        ("bad-flag.el", 4, "expected t or nil"),
        ("empty.el", 1, "empty file"),
        ("comments-only.el", 1, "empty file"),
        ("binary.el", 2, "NUL"),
        ("syntax-error.toml", 4, "TOML syntax error"),
        ("unknown-key.toml", 8, "unknown key 'colour-blind'"),
        ("wrong-type.toml", 4, "expected true or false"),
        ("unknown-slot-subtotal.toml", 4, "unknown slot 'weight'"),
        ("bad-outline.toml", 19, "not aligned"),
    ],
)
def test_broken_configurations(name, line, fragment):
    path = BROKEN / name
    with pytest.raises(InputError) as caught:
        load_configuration(path, BROKEN / "slots-small.el" if name == "bad-flag.el" else None)
    assert_one_problem(caught.value, path, line, fragment)


@pytest.mark.parametrize(
    ("toml", "fragment"),
    [
        ('format-version = 2\n[[slot]]\nid="m"\nlabel="0."\ntype="id"', "format-version 2"),
        ('[[slot]]\nid="m"\nlabel="0."\ntype="element"', "called 'set' here"),
        (
            '[[slot]]\nid="m"\nlabel="0."\ntype="id"\n[[slot]]\nid="t"\nlabel="1."\ntype="template-id"\n'
            '[[slot]]\nid="c"\nlabel="2."\ntype="set"',
            "needs 'values'",
        ),
        (
            '[[slot]]\nid="m"\nlabel="0."\ntype="id"\n[[slot]]\nid="t"\nlabel="1."\ntype="template-id"\n'
            '[[slot]]\nid="c"\nlabel="2."\ntype="set"\nvalues=["A", "A"]',
            "'A' occurs twice",
        ),
        (
            '[[slot]]\nid="m"\nlabel="0."\ntype="id"\n[[slot]]\nid="t"\nlabel="0."\ntype="template-id"',
            "used twice",
        ),
        (
            '[[slot]]\nid="t"\nlabel="1."\ntype="template-id"\n[[slot]]\nid="m"\nlabel="0."\ntype="id"',
            "first two slots",
        ),
        (
            '[options]\nrestrict-map-slots = ["xor", "a"]\n[[slot]]\nid="m"\nlabel="0."\ntype="id"',
            '"and" | "or"',
        ),
        ('[options]\ndisplay-type = "everything"\n', "display-type"),
        ("[templates]\nalternative-separator = '//'\n", "single character"),
        ("", "no [[slot]] tables"),
    ],
)
def test_toml_validation_messages(toml, fragment):
    with pytest.raises(InputError) as caught:
        parse_configuration_toml(toml, "x.toml")
    assert fragment in str(caught.value)
    assert str(caught.value).startswith("x.toml")


def test_documented_example_parses():
    doc = (REPO / "docs" / "configuration.md").read_text()
    block = re.search(r"```toml\n(.*?)```", doc, re.S).group(1)
    config = parse_configuration_toml(block, "configuration.md")
    assert config.slot("colour").set_members() == (
        "RED",
        "DARK RED",
        "LIGHT RED",
        "PINK",
        "BLUE",
        "GREEN",
    )
    assert config.scored_templates == (
        TemplateSelection("MSG-0012", (("1", None), ("2", ("colour",)))),
    )
    assert config.template_tail_regexp == "^[ \t]*$"
    assert parse_configuration_toml(write_configuration_toml(config)) == config


def test_flat_value_list_equals_outline():
    head = '[[slot]]\nid="m"\nlabel="0."\ntype="id"\n[[slot]]\nid="t"\nlabel="1."\ntype="template-id"\n'
    flat = parse_configuration_toml(
        head + '[[slot]]\nid="c"\nlabel="2."\ntype="set"\nvalues=["A", "B"]'
    )
    outline = parse_configuration_toml(
        head + "[[slot]]\nid=\"c\"\nlabel=\"2.\"\ntype=\"set\"\nvalues='''\nA\nB\n'''"
    )
    assert flat == outline
    assert not flat.slot("c").hierarchical


# --- CLI ------------------------------------------------------------------------


def test_cli_convert_config(muc4, tmp_path, capsys):
    config_el = str(muc4 / "tst3" / "config-tst3.el")
    slots_el = str(muc4 / "tst3" / "slotconfig-tst3.el")
    assert main(["convert-config", config_el, "--slots", slots_el]) == 0
    printed = capsys.readouterr().out
    assert parse_configuration_toml(printed) == read_lisp_configuration(config_el, slots_el)
    out = tmp_path / "tst3.toml"
    assert main(["convert-config", config_el, "-o", str(out)]) == 0
    assert out.read_text() == printed.replace(
        "config-tst3.el + slotconfig-tst3.el", "config-tst3.el + slotconfig-tst3.el"
    )
    out.write_text("precious")
    assert main(["convert-config", config_el, "-o", str(out)]) == 2
    assert "exists; use --force" in capsys.readouterr().err
    assert out.read_text() == "precious"
    assert main(["convert-config", config_el, "-o", str(out), "--force"]) == 0
    assert parse_configuration_toml(out.read_text()) == read_lisp_configuration(config_el)
    assert [p.name for p in tmp_path.iterdir()] == ["tst3.toml"]  # no temporary file left


def test_cli_convert_config_reports_input_errors(capsys):
    path = BROKEN / "unknown-option.el"
    assert main(["convert-config", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {path}:6")
    assert "Traceback" not in err


def test_cli_convert_config_help(capsys):
    assert main(["convert-config", "--help"]) == 0
    assert "Example:" in capsys.readouterr().out
