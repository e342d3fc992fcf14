"""Systems are compared on one test set: differing unit sets are refused or intersected."""

from __future__ import annotations

import pytest

from muceval.cli import main
from muceval.core.systems import unit_tallies
from muceval.errors import InputError
from muceval.formats.scores.unit_csv import parse_unit_csv

HEADER = "system,unit,POS,ACT,COR,PAR\n"


def systems(*files: str):
    """The systems of one unit-tallies CSV per text (each file is its own source)."""
    return tuple(s for n, text in enumerate(files)
                 for s in parse_unit_csv(HEADER + text, f"file{n}.csv"))


def test_a_unit_with_key_fills_missing_from_a_system_is_refused() -> None:
    tst3_and_tst4 = systems("A,m1,4,3,2,0\nA,m2,2,2,1,1\n", "B,n1,3,3,3,0\nB,n2,1,0,0,0\n")
    with pytest.raises(InputError, match=r"'A' lacks 2 unit\(s\) where 'B' .*n1, n2"):
        unit_tallies(tst3_and_tst4)


def test_within_one_file_missing_rows_are_zeros() -> None:
    loaded = unit_tallies(systems("A,m1,4,3,2,0\nA,m2,2,2,1,1\nB,m2,2,1,1,0\n"))
    assert loaded.units == ("m1", "m2") and loaded.counts[1, 0].tolist() == [0, 0, 0, 0]


def test_a_message_of_spurious_templates_only_is_a_unit_of_zeros_for_the_others() -> None:
    # B answered a message outside the key (POS 0): A left it alone, zeros are exact.
    loaded = unit_tallies(systems("A,m1,4,3,2,0\n", "B,m1,4,4,1,0\nB,x9,0,2,0,0\n"))
    assert loaded.units == ("m1", "x9")
    assert loaded.counts[0, 1].tolist() == [0, 0, 0, 0]


def test_intersection_keeps_the_shared_units_only() -> None:
    loaded = unit_tallies(systems("A,m1,4,3,2,0\nA,m2,2,2,1,1\n", "B,m2,2,1,1,0\nB,m3,1,1,1,0\n"),
                          units="intersection")
    assert loaded.units == ("m2",)
    assert loaded.counts[:, 0].tolist() == [[2, 2, 1, 1], [2, 1, 1, 0]]


def test_the_cli_refuses_with_exit_2_and_intersects_on_request(tmp_path, capsys) -> None:
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text(HEADER + "A,m1,4,3,2,0\nA,m2,2,2,1,1\nA,m3,2,2,2,0\n")
    b.write_text(HEADER + "B,m2,2,1,1,0\nB,m3,2,2,0,0\nB,m4,5,5,5,0\n")
    assert main(["significance", str(a), str(b), "--seed", "1", "--shuffles", "9"]) == 2
    err = capsys.readouterr().err
    assert "not scored on the same test set" in err and "--units intersection" in err
    assert "Traceback" not in err
    code = main(["significance", str(a), str(b), "--seed", "1", "--shuffles", "9",
                 "--units", "intersection", "--format", "json"])
    assert code == 0
    captured = capsys.readouterr()
    assert "2 units all systems share" in captured.err


@pytest.mark.parametrize("cell", ["1_0", "+3", "1e3", " 0x1", "²", "4611686018427387904",
                                  "1000000000000000000000000000000", "-1", "2.0"])
def test_counts_are_read_strictly_and_bounded(tmp_path, capsys, cell) -> None:
    path = tmp_path / "units.csv"
    path.write_text(HEADER + f"A,m1,{cell},1,1,0\nB,m1,2,2,1,0\n")
    assert main(["significance", str(path), "--seed", "1", "--shuffles", "9"]) == 2
    err = capsys.readouterr().err
    assert f"{path}:2" in err and "Traceback" not in err
    assert "not a count" in err or "larger than any tally" in err


def test_huge_counts_in_score_files_are_refused(tmp_path, capsys) -> None:
    from muceval.core.units import MAX_COUNT, check_counts

    assert check_counts([MAX_COUNT, MAX_COUNT, 0, 0]) is None
    assert "exceeds" in (check_counts([MAX_COUNT + 1, 1, 0, 0]) or "")
    assert "exceeds" in (check_counts([10**30, 1, 0, 0]) or "")


def test_template_units_sum_to_the_all_templates_total() -> None:
    from muceval.core.tallies import Tally, summarize
    from muceval.core.unit_levels import units_of
    from muceval.formats.config import load_configuration
    from muceval.formats.muc.templates import read_templates
    from muceval.reporting.demo import EXAMPLE_SYSTEMS, example_dir
    from muceval.scoring.session import score_systems

    ex = example_dir()
    config = load_configuration(ex / "config.toml")
    key = read_templates(ex / "key.txt", config)
    responses = {n: read_templates(ex / f"{n}.txt", config) for n in EXAMPLE_SYSTEMS}
    results = score_systems(config, key, responses).systems
    template_names: list[set[str]] = []
    for pairs in results.values():
        total = summarize(pairs, config).all_templates.total
        for level in ("message", "template"):
            units = units_of(pairs, config, level)
            summed = sum(units.values(), Tally())
            assert summed.as_tuple()[:4] == total.as_tuple()[:4], level
        template_names.append({u for u in units_of(pairs, config, "template") if "#key:" in u})
    # Every system has a unit for every key template: the same units across systems.
    assert all(names == template_names[0] for names in template_names)
    assert len(template_names[0]) > len({u.split("#")[0] for u in template_names[0]})


def test_compare_with_template_units(capsys) -> None:
    import json

    from muceval.reporting.demo import example_dir

    ex = example_dir()
    code = main(["compare", "--key", str(ex / "key.txt"), "--config", str(ex / "config.toml"),
                 "--unit", "template", "--format", "json", str(ex / "beta.txt"),
                 str(ex / "alpha.txt")])
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["units"] > 0
    assert main(["compare", "--unit", "template", str(ex / "beta.txt"), str(ex / "alpha.txt")]) == 2
