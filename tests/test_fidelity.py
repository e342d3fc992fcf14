"""Rules of the 1992 program that the TST3 golden reports do not exercise, each on a small case.

The cases are written here (MUC-4 style, invented); docs/fidelity.md lists the rules.
"""

from __future__ import annotations

from muceval.core.model import Alternatives, Location, SlotType
from muceval.formats.config import bundled_configuration
from muceval.formats.muc.reports import parse_report
from muceval.formats.muc.templates import parse_fill, parse_templates
from muceval.scoring.session import score_systems

MUC4 = bundled_configuration("muc4")
_CONTINUATION = " " * 35


def template(message: str = "TST9-MUC4-0001", template_id: str = "1", **fills: str | list[str]) -> str:
    """A MUC-4 template: the given slots (underscores for dashes), '-' elsewhere."""
    lines = []
    for spec in MUC4.slots:
        if spec.slot_id == "message-id":
            value: str | list[str] = message
        elif spec.slot_id == "template-id":
            value = template_id
        else:
            value = fills.get(spec.slot_id.replace("-", "_"), "-")
        values = [value] if isinstance(value, str) else value
        lines.append(f"{spec.label:<35}{values[0]}")
        lines.extend(_CONTINUATION + v for v in values[1:])
    return "\n".join(lines) + "\n\n"


def slot_tally(key: str, response: str, slot_id: str) -> dict[str, int]:
    """The tally of ``slot_id`` in the first mapped pair of ``response`` against ``key``."""
    key_file = parse_templates(key, MUC4, "key").templates
    response_file = parse_templates(response, MUC4, "response").templates
    pairs = score_systems(MUC4, key_file, {"sys": response_file}).systems["sys"]
    mapped = [p for p in pairs if p.key_id and p.response_id]
    assert mapped, "the test templates did not map"
    tally = mapped[0].slot(slot_id)
    return {name: getattr(tally, name) for name in ("pos", "act", "cor", "par", "inc", "spu", "mis")}


def test_location_alternatives_of_whole_locations_read_as_alternatives() -> None:
    value = parse_fill("VENEZUELA: EL AMPARO (CITY) / VENEZUELA: EL AMPARO (TOWN)",
                       SlotType.LOCATION)
    assert isinstance(value, Alternatives)
    assert all(isinstance(option, Location) for option in value.options)
    # The manual's own example keeps its (unintended) reading.
    colombia = parse_fill("COLOMBIA / COLOMBIA: MEDELLIN", SlotType.LOCATION)
    assert isinstance(colombia, Location) and isinstance(colombia.country, Alternatives)


def test_response_equal_to_one_location_alternative_is_correct() -> None:
    key = template(inc_type="BOMBING",
                   inc_loc="VENEZUELA: EL AMPARO (CITY) / VENEZUELA: EL AMPARO (TOWN)")
    for place in ("EL AMPARO (CITY)", "EL AMPARO (TOWN)"):
        response = template(inc_type="BOMBING", inc_loc=f"VENEZUELA: {place}")
        assert slot_tally(key, response, "inc-loc")["cor"] == 1
    partial = template(inc_type="BOMBING", inc_loc="VENEZUELA: CARACAS (CITY)")
    assert slot_tally(key, partial, "inc-loc")["par"] == 1


def test_unknown_and_repeated_slot_lines_are_skipped_with_a_warning() -> None:
    key = template(inc_type="BOMBING", hum_tgt_name='"JOHN DOE"')
    clean = template(inc_type="BOMBING", hum_tgt_name='"JOHN DOE"')
    messy = clean.replace(
        '18. HUM TGT: NAME                  "JOHN DOE"\n',
        '18. HUM TGT: NAME                  "JOHN DOE"\n'
        '18. HUM TGT: NAME                  "SOMEONE ELSE"\n'
        '                                   "AND ANOTHER"\n'
        '25. HUM TGT: SHOE SIZE             42\n')
    assert messy != clean
    result = parse_templates(messy, MUC4, "messy")
    assert not result.problems
    assert [w.line for w in result.warnings] == [20, 21, 22]
    assert "duplicated slot '18. HUM TGT: NAME'" in result.warnings[0].message
    assert "unknown slot label" in result.warnings[2].message
    for slot_id in ("hum-tgt-name", "hum-tgt-desc"):
        assert slot_tally(key, messy, slot_id) == slot_tally(key, clean, slot_id)


# --- what the 1992 program scored and muceval must score too, or refuse ---------------


def _run(args: list[str], capsys) -> tuple[int, str, str]:
    from muceval.cli import main

    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_an_empty_response_scores_every_key_template_as_missing(tmp_path, capsys) -> None:
    key = tmp_path / "key.txt"
    key.write_text(template(inc_type="BOMBING", hum_tgt_name='"JOHN DOE"'))
    for content in ("", "; this system found nothing\n"):
        empty = tmp_path / "empty.txt"
        empty.write_text(content)
        code, out, err = _run(["score", "--key", str(key), "--config", "muc4", "--no-query-pass",
                               str(empty)], capsys)
        assert code == 0, err
        total = parse_report(out).summary_row("ALL TEMPLATES").tally
        assert total.act == 0 and total.mis == total.pos > 0
        # Said, not silent (validate calls an empty file a problem; --strict refuses it).
        assert "a system that answered nothing" in err
        assert _run(["score", "--key", str(key), "--config", "muc4", "--no-query-pass",
                     "--strict", str(empty)], capsys)[0] == 2


def test_a_response_for_another_test_set_is_refused(tmp_path, capsys) -> None:
    key = tmp_path / "key.txt"
    key.write_text(template(message="TST3-MUC4-0001", inc_type="BOMBING"))
    other = tmp_path / "other.txt"
    other.write_text(template(message="TST4-MUC4-0001", inc_type="BOMBING"))
    code, _, err = _run(["score", "--key", str(key), "--config", "muc4", str(other)], capsys)
    assert code == 2
    assert f"{other}: no message of this response is in the key" in err
    assert "Traceback" not in err


def test_a_response_mostly_outside_the_key_is_warned_and_a_swapped_one_refused(
        tmp_path, capsys) -> None:
    key = tmp_path / "key.txt"
    key.write_text(template(message="TST3-MUC4-0001", inc_type="BOMBING"))
    mostly = tmp_path / "mostly.txt"
    mostly.write_text(template(message="TST3-MUC4-0001", inc_type="BOMBING")
                      + template(message="TST4-MUC4-0001", inc_type="BOMBING")
                      + template(message="TST4-MUC4-0002", inc_type="BOMBING"))
    code, _, err = _run(["score", "--key", str(key), "--config", "muc4", str(mostly)], capsys)
    assert code == 0 and "only 1 of its 3 messages are in the key" in err
    swapped = tmp_path / "swapped.txt"
    swapped.write_text(template(message="TST3-MUC4-0001", inc_type="BOMBING / ARSON"))
    # Scored, its numbers would be a full report of wrong numbers: refused unless --force.
    code, out, err = _run(["score", "--key", str(key), "--config", "muc4", str(swapped)], capsys)
    assert code == 2 and not out
    assert f"{swapped}: this response has optional templates" in err and "--force" in err
    assert "Traceback" not in err
    code, out, err = _run(["score", "--key", str(key), "--config", "muc4", "--force",
                           str(swapped)], capsys)
    assert code == 0 and "swapped" in err and out
    for command in ("compare", "report"):
        code, _, err = _run([command, "--key", str(key), "--config", "muc4", str(swapped),
                             str(key), *(["--out", str(tmp_path / "r")] if command == "report"
                                         else [])], capsys)
        assert code == 2 and "are the key and the response swapped?" in err, command


def test_history_judgements_for_unknown_slots_are_reported(tmp_path, capsys) -> None:
    key = tmp_path / "key.txt"
    key.write_text(template(inc_type="BOMBING", hum_tgt_name='"JOHN DOE"'))
    response = tmp_path / "sys.txt"
    response.write_text(template(inc_type="BOMBING", hum_tgt_name='"J. DOE"'))
    history = tmp_path / "history.lisp"
    history.write_text('(("TST9-MUC4-0001"\n  ("1"\n   (hum-tgt-nmae\n'
                       '    ("\\"J. DOE\\"" match "\\"JOHN DOE\\""))))\n)\n')
    code, _, err = _run(["score", "--key", str(key), "--history", str(history), str(response)],
                        capsys)
    assert code == 0
    assert (f"warning: {history}:4: judgements for unknown slot 'hum-tgt-nmae' (message "
            "TST9-MUC4-0001, key template 1): 1 judgement(s) not used (did you mean "
            "'hum-tgt-name'?)") in err


def test_output_onto_an_input_is_refused(tmp_path, capsys) -> None:
    key = tmp_path / "key.txt"
    key.write_text(template(inc_type="BOMBING"))
    response = tmp_path / "sys.txt"
    response.write_text(template(inc_type="BOMBING"))
    before = response.read_text()
    for target, role in ((response, "response file"), (key, "key")):
        code, _, err = _run(["score", "--key", str(key), "--format", "table", "-o", str(target),
                             str(response)], capsys)
        assert code == 2 and f"is the {role} this command reads" in err
    assert response.read_text() == before
    code, _, err = _run(["score", "--key", str(key), "--unresolved", "ask", "--save-history",
                         str(response), str(response)], capsys)
    assert code == 2 and "is the response file this command reads" in err
    assert response.read_text() == before


def test_a_question_mark_in_a_response_is_compared_without_the_marker() -> None:
    # '?' marks key fills optional; score-single-valued-slot compares a lone response fill
    # without it (several fills: tests/test_optional_responses.py).
    key = template(inc_type="BOMBING", hum_tgt_name='"JOSE PEREZ"',
                   hum_tgt_type='CIVILIAN: "JOSE PEREZ"', hum_tgt_num='1: "JOSE PEREZ"')
    response = template(inc_type="BOMBING", hum_tgt_name='"JOSE PEREZ"',
                        hum_tgt_type='? CIVILIAN: "JOSE PEREZ"', hum_tgt_num='? 1: "JOSE PEREZ"')
    for slot in ("hum-tgt-type", "hum-tgt-num"):
        assert slot_tally(key, response, slot) == slot_tally(key, key, slot)
        assert slot_tally(key, response, slot)["cor"] == 1
    # Multi-valued; and a lone marked fill against a blank key is noncommittal (SYNCH, TST3).
    key2 = template(inc_type="BOMBING", hum_tgt_name=['"A"', '"B"'],
                    hum_tgt_type=['CIVILIAN: "A"', 'CIVILIAN: "B"'])
    response2 = template(inc_type="BOMBING", hum_tgt_name=['"A"', '"B"'],
                         hum_tgt_type=['? CIVILIAN: "A"', '? CIVILIAN: "B"'], perp_ind_id='? "X"')
    assert slot_tally(key2, response2, "hum-tgt-type")["cor"] == 2
    assert slot_tally(key2, response2, "perp-ind-id") == dict.fromkeys(
        ("pos", "act", "cor", "par", "inc", "spu", "mis"), 0)


def test_score_names_what_it_skipped_and_strict_refuses_it(tmp_path, capsys) -> None:
    key = tmp_path / "key.txt"
    key.write_text(template(inc_type="BOMBING"))
    response = tmp_path / "sys.txt"
    response.write_text(template(inc_type="BOMBING").replace(
        "4.  INCIDENT: TYPE                 BOMBING\n",
        "4.  INCIDENT: TYPE                 BOMBING\n4.  INCIDENT: TYPE                 ARSON\n"))
    code, out, err = _run(["score", "--key", str(key), str(response), "--no-query-pass"], capsys)
    assert code == 0 and "F-MEASURES" in out
    assert f"warning: {response}:6:1: duplicated slot '4.  INCIDENT: TYPE'" in err
    code, out, err = _run(["score", "--key", str(key), str(response), "--strict"], capsys)
    assert code == 2 and out == ""
    assert "error:" in err and "--strict: nothing scored" in err and "Traceback" not in err
    code, _, _ = _run(["validate", "--strict", str(response)], capsys)
    assert code == 2
    code, _, _ = _run(["validate", str(response)], capsys)
    assert code == 0
