"""1992 score reports as scores: per-message tallies and the summary of one system (no PIE is
printed, so a row's fallout is the printed integer percentage).

>>> from_reports([]).counts.shape
(0, 0, 4)
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from muceval.core.model import Configuration
from muceval.core.systems import MANNER_LABELS, Row, ScoredSystem, SystemScores, unit_tallies
from muceval.core.tallies import SlotLayout, Tally
from muceval.core.units import UnitTallies, check_counts
from muceval.errors import InputError
from muceval.formats.files import system_name
from muceval.formats.muc.reports import ScoreReport, read_report
from muceval.formats.scores.rows import summary_of

__all__ = ["from_report_objects", "from_reports", "report_summary", "report_system", "report_units"]

_MANNER_ORDER = {label: i for i, label in enumerate(MANNER_LABELS.values())}
_FILL_ROWS = {"SET FILLS ONLY": "set-fills", "STRING FILLS ONLY": "string-fills"}


def report_units(report: ScoreReport) -> dict[str, Tally]:
    """Per-message tallies: the sum of the TOTAL rows of each message's sections (duplicated
    sections included, as the 1992 totals include them)."""
    per_unit: dict[str, Tally] = {}
    for block in report.blocks:
        total = block.total()
        if total is None:
            continue
        t = total.tally
        why = check_counts([t.pos, t.act, t.cor, t.par])
        if why is not None:
            raise InputError.at(report.path, total.line, f"TOTAL row: {why}")
        per_unit[block.message_id] = per_unit.get(block.message_id, Tally()) + t
    # Messages whose sections all lack a TOTAL row still belong to the unit set.
    for message_id in report.message_ids():
        per_unit.setdefault(message_id, Tally())
    return per_unit


def report_summary(
    report: ScoreReport, name: str, config: Configuration | None = None
) -> SystemScores:
    """The summary of one system from its report's TOTAL SLOT SCORES block."""
    subtotal_names = (
        {row.name for row in SlotLayout.of(config).subtotals} if config is not None else None
    )

    def is_subtotal(row_name: str) -> bool:
        # Without a configuration the 1992 row names are all we have; the MUC
        # object subtotals are the only rows named "<object>-total".
        return row_name.endswith("-total") if subtotal_names is None else row_name in subtotal_names

    rows: dict[str, list[Row]] = {"slot": [], "subtotal": [], "total": [], "fills": []}
    for r in report.summary:
        fal = None if not r.has_fal or r.fal is None else r.fal / 100
        if r.name == "template-id":
            continue
        if r.name in _MANNER_ORDER:
            rows["total"].append(Row.of(r.name, "total", r.tally))
        elif r.name in _FILL_ROWS:
            rows["fills"].append(Row.of(r.name, _FILL_ROWS[r.name], r.tally, fal))
        elif is_subtotal(r.name):
            rows["subtotal"].append(Row.of(r.name, "subtotal", r.tally))
        else:
            rows["slot"].append(Row.of(r.name, "slot", r.tally, fal))
    try:
        at = report.summary_row("ALL TEMPLATES")
    except KeyError:
        raise InputError.at(report.path, None, "the summary has no ALL TEMPLATES row") from None
    rows["total"].sort(key=lambda r: _MANNER_ORDER[r.name])
    return summary_of(name, report.path, "report", at.tally, rows, report.f_measures)


def report_system(
    report: ScoreReport, name: str | None = None, config: Configuration | None = None
) -> ScoredSystem:
    """One system from its report: per-message tallies and summary."""
    name = system_name(report.path) if name is None else name
    return ScoredSystem(
        name, report.path, report_units(report), report_summary(report, name, config)
    )


def from_report_objects(
    reports: Sequence[ScoreReport], names: Sequence[str] | None = None
) -> UnitTallies:
    """Per-message tallies from parsed reports; names default to the files' system names."""
    if names is None:
        names = [system_name(r.path) for r in reports]
    return unit_tallies(
        [ScoredSystem(n, r.path, report_units(r)) for n, r in zip(names, reports, strict=True)]
    )


def from_reports(paths: Sequence[str | Path]) -> UnitTallies:
    """Per-message tallies of the systems whose 1992 reports are at ``paths``.

    >>> import os, tempfile, muceval
    >>> from importlib.resources import files
    >>> example = files("muceval") / "data" / "example"
    >>> config = muceval.load_configuration(example / "config.toml")
    >>> pairs = muceval.score_files(config, example / "key.txt",
    ...                             [example / "alpha.txt"]).systems["alpha"]
    >>> path = os.path.join(tempfile.mkdtemp(), "alpha.report")
    >>> _ = open(path, "w").write(muceval.format_report(pairs, config))
    >>> tallies = from_reports([path])
    >>> tallies.systems, len(tallies.units)
    (('alpha',), 10)
    """
    return from_report_objects([read_report(p) for p in paths])
