"""Tests of the per-unit tallies and their loaders."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from muceval.core.units import from_arrays
from muceval.errors import InputError, UsageError
from muceval.formats.files import system_name
from muceval.formats.muc.reports import read_report
from muceval.formats.registry import load_inputs
from muceval.formats.scores.reports import from_reports
from muceval.formats.scores.unit_csv import from_csv

DATA = Path(__file__).parent / "data" / "significance"
HEADER = "system,unit,POS,ACT,COR,PAR\n"


def write(tmp_path: Path, text: str, name: str = "t.csv") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_csv_missing_rows_are_zeros_and_units_sorted(tmp_path):
    path = write(tmp_path, HEADER + "B,u2,2,2,1,1\nA,u1,3,1,1,0\nA,u2,1,1,0,0\n")
    t = from_csv(path)
    assert t.systems == ("B", "A")
    assert t.units == ("u1", "u2")
    assert t.system("B").tolist() == [[0, 0, 0, 0], [2, 2, 1, 1]]
    assert t.totals("A").tolist() == [4, 2, 1, 0]
    assert t.counts.dtype == np.int64
    with pytest.raises(ValueError):
        t.counts[0, 0, 0] = 5  # read-only


def test_csv_shipped_sample():
    t = from_csv(DATA / "small.csv")
    assert t.systems == ("alpha", "beta", "gamma")
    assert len(t.units) == 12
    assert t.system("gamma")[t.units.index("msg-07")].tolist() == [0, 0, 0, 0]


@pytest.mark.parametrize(
    "body, line, fragment",
    [
        ("A,u1,1,1,x,0\n", 2, "COR: not a count"),
        ("A,u1,1,1,-1,0\n", 2, "COR: not a count"),
        ("A,u1,1,1,1,0\nA,u1,1,1,1,0\n", 3, "duplicate row"),
        ("A,u1,1,1,1\n", 2, "expected 6 columns"),
        ("A,u1,1,3,1,1\n", 2, "exceeds POS"),
        ("A,u1,3,1,1,1\n", 2, "exceeds ACT"),
        ("A,,1,1,1,0\n", 2, "empty system or unit"),
    ],
)
def test_csv_errors_name_file_and_line(tmp_path, body, line, fragment):
    path = write(tmp_path, HEADER + body)
    with pytest.raises(InputError) as info:
        from_csv(path)
    problem = info.value.problems[0]
    assert problem.path == str(path) and problem.line == line
    assert fragment in problem.message


def test_csv_header_errors(tmp_path):
    with pytest.raises(InputError, match="header must be"):
        from_csv(write(tmp_path, "system,unit,POS,ACT,COR\nA,u,1,1,1\n"))
    with pytest.raises(InputError, match="empty CSV"):
        from_csv(write(tmp_path, "\n"))


def test_csv_collects_all_problems(tmp_path):
    path = write(tmp_path, HEADER + "A,u1,1,1,x,0\nA,u2,1,1,-1,0\n")
    with pytest.raises(InputError) as info:
        from_csv(path)
    assert [p.line for p in info.value.problems] == [2, 3]


def test_from_arrays_validates():
    with pytest.raises(ValueError):
        from_arrays(["A"], ["u"], [[[1, 1, 2, 0]]])
    with pytest.raises(ValueError):
        from_arrays(["A", "A"], ["u"], [[[1, 1, 1, 0]], [[1, 1, 1, 0]]])
    with pytest.raises(ValueError):
        from_arrays(["A"], ["u", "v"], [[[1, 1, 1, 0]]])
    t = from_arrays(["A"], ["u"], [[[1, 1, 1, 0]]])
    with pytest.raises(UsageError):
        t.system("Z")
    assert t.select(["A"]).systems == ("A",)


def test_system_name_is_the_file_name_without_its_last_suffix():
    assert system_name("/x/GE-CMU.tst3-pass1.nrad") == "GE-CMU.tst3-pass1"
    assert system_name("BBN.tst3.report") == "BBN.tst3"
    assert system_name("responses/BBN.tst3") == "BBN"
    assert system_name("alpha") == "alpha"
    # Versions of one system stay two systems.
    assert system_name("mysys.v1.report") != system_name("mysys.v2.report")


def test_load_inputs_dispatch_and_merge(tmp_path):
    csv_path = write(tmp_path, HEADER + "A,u1,1,1,1,0\n", "a.txt")  # recognised by its header
    other = write(tmp_path, HEADER + "B,u1,1,1,0,0\nB,u2,0,1,0,0\n", "b.csv")
    t = load_inputs([csv_path, other])
    assert t.systems == ("A", "B") and t.units == ("u1", "u2")  # u2: spurious only, zeros for A
    elsewhere = write(tmp_path, HEADER + "C,u3,1,1,0,0\n", "c.csv")
    with pytest.raises(InputError, match="not scored on the same test set"):
        load_inputs([csv_path, elsewhere])
    with pytest.raises(InputError, match="also comes from"):
        load_inputs([csv_path, csv_path])
    junk = write(tmp_path, "hello\n", "junk.txt")
    with pytest.raises(InputError, match="not a file muceval knows"):
        load_inputs([junk])
    with pytest.raises(InputError, match="cannot read"):
        load_inputs([tmp_path / "absent.csv"])
    with pytest.raises(UsageError):
        load_inputs([])


def test_reports_give_per_message_totals(muc4):
    official = sorted((muc4 / "tst3" / "official-scores").iterdir())
    t = from_reports(official)
    assert len(t.systems) == 17 and "GE-CMU.tst3-pass1" in t.systems
    assert len(t.units) == 100
    for path in official[:4]:
        report = read_report(path)
        total = report.summary_row("ALL TEMPLATES").tally
        assert t.totals(system_name(path)).tolist() == [total.pos, total.act, total.cor, total.par]
    # load_inputs recognises reports by content, whatever the extension.
    assert load_inputs(official[:2]).systems == t.systems[:2]


def test_report_with_inconsistent_total_is_rejected(muc4, tmp_path):
    text = (muc4 / "tst3" / "official-scores" / "GE.tst3-pass1.nrad").read_text(encoding="latin-1")
    bad = text.replace(
        "TOTAL\t\t        7   7|  6   0   1|", "TOTAL\t\t        7   7|  9   0   1|", 1
    )
    assert bad != text
    path = write(tmp_path, bad, "GE.bad.nrad")
    with pytest.raises(InputError) as info:
        from_reports([path])
    assert "exceeds POS" in str(info.value) and info.value.problems[0].line is not None


def test_muceval_scores_json_gives_per_message_all_templates_tallies(tmp_path):
    """`muceval score --format json` output is an input of `muceval significance`."""
    from muceval.core.tallies import summarize
    from muceval.reporting.demo import example_dir, run_demo

    demo = run_demo(tmp_path, html_report=False)
    tallies = load_inputs([demo.json_path])
    assert list(tallies.systems) == [s.name for s in demo.systems]
    assert len(tallies.units) == 10  # every message of the example
    assert example_dir().is_dir()
    for n, system in enumerate(demo.systems):
        total = summarize(system.pairs, demo.config).all_templates.total
        assert tallies.counts[n].sum(axis=0).tolist() == [total.pos, total.act, total.cor, total.par]


def test_broken_scores_json_names_file_and_line(tmp_path):
    bad = tmp_path / "scores.json"
    bad.write_text('{\n  "format": "muceval-scores",\n  "systems": [\n')
    with pytest.raises(InputError) as caught:
        load_inputs([bad])
    assert caught.value.problems[0].line == 4
    other = tmp_path / "other.json"
    other.write_text('{"format": "something-else"}')
    with pytest.raises(InputError, match="not a muceval scores file"):
        load_inputs([other])
    empty = tmp_path / "empty.json"
    empty.write_text('{"format": "muceval-scores", "format_version": 2, '
                     '"systems": [{"system": "A"}]}')
    with pytest.raises(InputError, match="lacks its per-message"):
        load_inputs([empty])
