"""Golden test: `muceval score --no-query-pass` prints the 1992 program's own reports.

For all 17 MUC-4 TST3 systems, with the NRaD final history and without any
history, the printed report must equal the one the 1992 program printed in
batch mode, byte for byte, apart from the `Configuration:` line (it names the
configuration file as it was given). With the pairings of the official reports replayed
(`--manual-mappings`), how many official F-measures and tallies come out.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from muceval.cli import main
from muceval.formats.muc.reports import parse_report, read_report

SYSTEMS = (
    "BBN GE GE-CMU HUGHES LSI MDC MITRE NMSU NYU PARAMAX PRC SRA SRI SYNCH UMASS UMICH USC".split()
)


def split_reports(text: str) -> dict[str, str]:
    """Several systems' reports printed one after the other, each after a line naming it."""
    heads = list(re.finditer(r"^==> (.+) <==\n", text, re.MULTILINE))
    ends = [m.start() for m in heads[1:]] + [len(text)]
    return {m.group(1): text[m.end():end] for m, end in zip(heads, ends, strict=True)}


def without_configuration_line(report: str) -> str:
    first, _, rest = report.partition("\n")
    assert first.startswith("Configuration: "), first[:40]
    return rest


@pytest.mark.parametrize("history", [True, False], ids=["with-history", "without-history"])
def test_batch_reports_equal_the_1992_reports(muc4: Path, tmp_path: Path, capsys, history: bool):
    tst3 = muc4 / "tst3"
    folder = tst3 / ("reference-reports" if history else "reference-reports-nohistory")
    args = ["score", "--key", str(muc4 / "corpora/tst3/key-tst3.v2"),
            "--config", str(tst3 / "config-tst3.el"), "--no-query-pass", "--format", "report"]
    if history:
        args += ["--history", str(tst3 / "final-history-nrad.tst3")]
    args += [str(tst3 / "responses" / f"{system}.tst3") for system in SYSTEMS]
    out_file = tmp_path / "reports.txt"
    assert main(args + ["-o", str(out_file)]) == 0, capsys.readouterr().err
    printed = split_reports(out_file.read_bytes().decode("latin-1"))
    assert list(printed) == SYSTEMS
    different = []
    for system, report in printed.items():
        expected = (folder / f"{system}.tst3.report").read_bytes().decode("latin-1")
        if without_configuration_line(report) != without_configuration_line(expected):
            different.append(system)
    assert different == [], f"reports that differ from the 1992 program's: {different}"


def test_replayed_official_pairings_give_the_official_f_measures(muc4: Path, tmp_path: Path,
                                                                  capsys):
    """`--manual-mappings OFFICIAL.nrad` with the final history, against the official reports:
    the F-MEASURES line of 16 of the 17 systems (not USC's), the ALL TEMPLATES tallies of 5."""
    tst3 = muc4 / "tst3"
    official = [tst3 / "official-scores" / f"{system}.tst3-pass1.nrad" for system in SYSTEMS]
    args = ["score", "--key", str(muc4 / "corpora/tst3/key-tst3.v2"),
            "--config", str(tst3 / "config-tst3.el"),
            "--history", str(tst3 / "final-history-nrad.tst3"), "--format", "report"]
    for path in official:
        args += ["--manual-mappings", str(path)]
    args += [str(tst3 / "responses" / f"{system}.tst3") for system in SYSTEMS]
    out_file = tmp_path / "reports.txt"
    assert main(args + ["-o", str(out_file)]) == 0, capsys.readouterr().err
    printed = split_reports(out_file.read_bytes().decode("latin-1"))
    assert list(printed) == list(SYSTEMS)
    same_f, same_tallies = [], []
    for system, path in zip(SYSTEMS, official, strict=True):
        mine = parse_report(printed[system], system)
        theirs = read_report(path)
        if mine.f_measures == theirs.f_measures:
            same_f.append(system)
        if (mine.summary_row("ALL TEMPLATES").tally.as_tuple()
                == theirs.summary_row("ALL TEMPLATES").tally.as_tuple()):
            same_tallies.append(system)
    assert same_f == [s for s in SYSTEMS if s != "USC"]
    assert same_tallies == ["MDC", "MITRE", "PRC", "SYNCH", "UMICH"]
