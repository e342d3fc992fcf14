"""Das et al.'s error categories on 1992 MUC-4 templates (muceval.scoring.errors.muc1992)."""

from __future__ import annotations

import json
import time
from importlib.resources import files
from pathlib import Path

import pytest
from click.testing import CliRunner

import muceval
from muceval.cli.app import cli
from muceval.core.tallies import Tally
from muceval.scoring.errors.model import (
    GENERAL_SPURIOUS,
    MISSING_FILLER,
    MISSING_TEMPLATE,
    MISSING_TEMPLATE_FILLER,
    SPAN_ERROR,
    SPURIOUS_TEMPLATE,
    SPURIOUS_TEMPLATE_FILLER,
    SUBCATEGORIES,
)
from muceval.scoring.errors.muc1992 import ROLE_SLOTS, TYPE_SLOT, analyse_1992_files

EXAMPLE = files("muceval") / "data" / "example"
LABELS = ["0.  MESSAGE: ID", "1.  MESSAGE: TEMPLATE", "2.  INCIDENT: DATE",
          "3.  INCIDENT: LOCATION", "4.  INCIDENT: TYPE", "5.  INCIDENT: STAGE OF EXECUTION",
          "6.  PERP: INDIVIDUAL ID", "7.  PERP: ORGANIZATION ID",
          "8.  PERP: ORGANIZATION CONFIDENCE", "9.  PHYS TGT: ID", "10. PHYS TGT: TYPE",
          "11. HUM TGT: NAME", "12. HUM TGT: DESCRIPTION", "13. HUM TGT: TYPE",
          "14. HUM TGT: NUMBER", "15. HUM TGT: EFFECT OF INCIDENT"]


def template(message: str, tid: str, **fills: str) -> str:
    values = {"0": message, "1": tid, **{k.lstrip("s"): v for k, v in fills.items()}}
    return "\n".join(f"{label:36}{values.get(label.split('.')[0], '-')}"
                     for label in LABELS) + "\n\n"


def config() -> muceval.Configuration:
    return muceval.load_configuration(EXAMPLE / "config.toml")


def analyse(tmp_path: Path, key: str, response: str, **kwargs: object):
    (tmp_path / "key.txt").write_text(key)
    (tmp_path / "sys.txt").write_text(response)
    return analyse_1992_files(config(), tmp_path / "key.txt", [tmp_path / "sys.txt"],
                              **kwargs).systems[0]  # type: ignore[arg-type]


KEY = (template("DEMO-0001", "1", s4="BOMBING", s6='"MEN"', s7='"RED FRONT"',
                s9='"OFFICE"', s12='"WATCHMAN"')
       + template("DEMO-0001", "2", s4="ARSON", s9='"BANK"', s11='"JOSE"')
       + template("DEMO-0002", "1", s4="BOMBING", s7='"BLUE FRONT"'))
RESPONSE = (template("DEMO-0001", "1", s4="BOMBING", s6='"MEN"\n' + " " * 36 + '"THE MEN"',
                     s7='"WATCHMAN"', s9='"OFFICE"\n' + " " * 36 + '"BANK"',
                     s11='"NOBODY"', s12='"WATCHMAN"\n' + " " * 36 + '"JOSE"')
            + template("DEMO-0001", "2", s4="KIDNAPPING", s9='"CAR"')
            + template("DEMO-0002", "1", s4="ATTACK", s7='"BLUE FRONT"'))


def test_each_category_on_a_small_case(tmp_path: Path) -> None:
    system = analyse(tmp_path, KEY, RESPONSE)
    first, second = system.documents
    assert first.docid == "DEMO-0001"
    assert first.alignment == ((0, 0), (None, 1), (1, None))
    row = first.row
    # "THE MEN" repeats the credited "MEN" (equal after premodifier stripping)
    assert row("PerpInd").category("Duplicate_Role_Filler") == 1
    # "WATCHMAN" as organisation: INC against "RED FRONT", the key's description
    assert row("PerpOrg").category("Within_Template_Incorrect_Role") == 1
    assert row("PerpOrg").category(MISSING_FILLER) == 1
    # "BANK" is the other key template's target; "JOSE" its victim's name (another slot)
    assert row("Target").category("Wrong_Template_For_Role_Filler") == 1
    assert row("Victim").category("Wrong_Template + Wrong_Role") == 1
    # "NOBODY" is nowhere in the key
    assert row("Victim").category("Spurious_Role_Filler") == 1
    assert row("Victim").category(GENERAL_SPURIOUS) == 2
    # key template 2 unmapped: BANK and JOSE; response template 2 unmapped: CAR
    assert row("incident_type").category(MISSING_TEMPLATE) == 1
    assert row("incident_type").category(SPURIOUS_TEMPLATE) == 1
    assert first.total.category(MISSING_TEMPLATE_FILLER) == 2
    assert first.total.category(SPURIOUS_TEMPLATE_FILLER) == 1
    # THE MEN 1 + WATCHMAN 2 (INC) + BANK, NOBODY, JOSE 3; template fills 2 + 1; templates 2
    assert first.error_score == 11 and not first.partial
    # ATTACK for BOMBING: the 1992 PAR of a parent type
    assert second.row("incident_type").category("Incorrect_Incident_Type") == 1
    assert second.error_score == 0


def test_modes_filter_unmapped_templates(tmp_path: Path) -> None:
    scores = {}
    for mode in ("all", "msp", "mmi", "mat"):
        totals = analyse(tmp_path, KEY, RESPONSE, mode=mode).before_totals.total
        scores[mode] = (totals.category(MISSING_TEMPLATE), totals.category(SPURIOUS_TEMPLATE),
                        totals.category(MISSING_TEMPLATE_FILLER),
                        totals.category(SPURIOUS_TEMPLATE_FILLER))
    assert scores == {"all": (1, 1, 2, 1), "msp": (0, 1, 0, 1), "mmi": (1, 0, 2, 0),
                      "mat": (0, 0, 0, 0)}


def test_a_key_against_itself_has_no_error(tmp_path: Path) -> None:
    system = analyse(tmp_path, KEY, KEY)
    totals = system.before_totals
    assert totals.error_score == 0
    assert not any(totals.total.categories)
    assert totals.total.num == totals.total.p_den == totals.total.r_den


def test_a_recorded_partial_judgement_is_a_span_error(tmp_path: Path) -> None:
    (tmp_path / "h.lisp").write_text(
        '(("DEMO-0002" ("1" (perp-org-id ("\\"BLUE\\"" partial "\\"BLUE FRONT\\"")))))\n')
    response = template("DEMO-0002", "1", s4="BOMBING", s7='"BLUE"')
    system = analyse(tmp_path, KEY, response, history_path=tmp_path / "h.lisp")
    row = system.documents[-1].row("PerpOrg")
    assert row.category(SPAN_ERROR) == 1 and system.documents[-1].error_score == 0.5


def _tally(pairs, slots: tuple[str, ...]) -> Tally:
    return Tally.total(dict(p.slots)[s] for p in pairs if p.status.value in
                       ("matched", "missing", "spurious") for s in slots if s in dict(p.slots))


def check_identities(system, pairs) -> None:
    """The categories account for every string fill the 1992 tallies count."""
    totals = system.before_totals
    score = 0.0
    for role, slots in (*ROLE_SLOTS.items(), ("incident_type", (TYPE_SLOT,))):
        row, tally = totals.row(role), _tally(pairs, slots)
        assert (row.num, row.p_den, row.r_den) == (tally.cor, tally.act, tally.pos), role
        if role == "incident_type":
            continue
        cat = row.category
        assert cat(SPAN_ERROR) == tally.par, role
        assert cat(MISSING_FILLER) + cat(MISSING_TEMPLATE_FILLER) == tally.mis + tally.inc
        assert cat(GENERAL_SPURIOUS) + cat(SPURIOUS_TEMPLATE_FILLER) == tally.spu + tally.inc
        assert sum(cat(c) for c in SUBCATEGORIES) == cat(GENERAL_SPURIOUS), role
        score += tally.spu + tally.mis + 2 * tally.inc + tally.par / 2
    unmapped = sum(p.status.value in ("missing", "spurious") for p in pairs)
    assert totals.total.category(MISSING_TEMPLATE) + totals.total.category(
        SPURIOUS_TEMPLATE) == unmapped
    assert totals.error_score == pytest.approx(score + unmapped)


def test_identities_on_the_example() -> None:
    names = ("alpha", "beta", "gamma", "delta")
    paths = [EXAMPLE / f"{n}.txt" for n in names]
    analysis = analyse_1992_files(config(), EXAMPLE / "key.txt", paths,
                                  history_path=EXAMPLE / "history.lisp")
    scored = muceval.score_files(config(), EXAMPLE / "key.txt", paths,
                                 history_path=EXAMPLE / "history.lisp")
    for system in analysis.systems:
        pairs = scored.systems[system.system]
        check_identities(system, pairs)
        summary = muceval.summarize(pairs, config()).all_templates
        for role, slots in ROLE_SLOTS.items():
            assert system.before_totals.row(role).r_den == sum(
                summary.slot(s).pos for s in slots if s in dict(summary.slots))
    assert [s.before_totals.error_score_text for s in analysis.systems] == [
        "6.5", "19.5", "20", "38.0"]


def test_all_tst3_systems_in_seconds(muc4: Path) -> None:
    conf = muceval.load_configuration(muc4 / "tst3" / "config-tst3.el")
    key = muc4 / "corpora" / "tst3" / "key-tst3.v2"
    history = muc4 / "tst3" / "final-history-nrad.tst3"
    responses = sorted((muc4 / "tst3" / "responses").glob("*.tst3"))
    assert len(responses) == 17
    start = time.perf_counter()
    analysis = analyse_1992_files(conf, key, responses, history_path=history)
    assert time.perf_counter() - start < 60
    scored = muceval.score_files(conf, key, responses[:2], history_path=history)
    for system in analysis.systems[:2]:
        check_identities(system, scored.systems[system.system])
    by_name = {s.system: s.before_totals for s in analysis.systems}
    assert by_name["GE"].error_score_text == "436.5"
    assert by_name["BBN"].error_score_text == "519.0"


def test_the_command_routes_1992_keys(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runner = CliRunner()
    args = ["errors", "--key", str(EXAMPLE / "key.txt"), "--config",
            str(EXAMPLE / "config.toml"), "--history", str(EXAMPLE / "history.lisp"),
            str(EXAMPLE / "alpha.txt"), "--format", "json"]
    result = runner.invoke(cli, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["settings"]["layout"] == "muc-1992"
    assert data["systems"][0]["before"]["error_score_text"] == "6.5"
    table = runner.invoke(cli, args[:-2])
    assert table.exit_code == 0 and "Incorrect_Incident_Type" in table.output
    # Which options go with which key is the library's rule; the command names the flag.
    from muceval.cli import main

    capsys.readouterr()
    assert main([*args, "--after-repair"]) == 2
    assert "--after-repair: " in capsys.readouterr().err
    assert main([*args, "--schema", "muc4"]) == 2
    assert "--schema: " in capsys.readouterr().err
    modern = json.dumps({"docid": "D1", "doctext": "x", "templates": []}) + "\n"
    (tmp_path / "gold.jsonl").write_text(modern)
    for option in (["--history", str(EXAMPLE / "history.lisp")], ["--no-query-pass"],
                   ["--config", "muc4"]):
        assert main(["errors", "--key", str(tmp_path / "gold.jsonl"), *option,
                     str(tmp_path / "gold.jsonl")]) == 2
        assert f"{option[0]}: " in capsys.readouterr().err
