"""The per-slot view of a system's scores, like scikit-learn's ``classification_report``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from muceval.core.metrics import FloatScores
from muceval.core.model import Configuration
from muceval.core.systems import MANNER_LABELS
from muceval.core.tallies import MANNERS, PairScore, Tally, summarize
from muceval.reporting.outputs import new_table

if TYPE_CHECKING:
    from rich.table import Table

__all__ = ["SlotRow", "per_slot_rows", "per_slot_table", "PER_SLOT_FORMAT"]

PER_SLOT_FORMAT = "muceval-per-slot"


@dataclass(frozen=True)
class SlotRow:
    """One row: ``kind`` is ``slot``, ``subtotal``, ``fills`` or ``manner``."""

    name: str
    kind: str
    tally: Tally
    scores: FloatScores

    def to_dict(self) -> dict[str, Any]:
        s = self.scores
        return {"name": self.name, "kind": self.kind, "pos": self.tally.pos,
                "act": self.tally.act, "cor": self.tally.cor, "par": self.tally.par,
                "recall": s.recall, "precision": s.precision, "f1": s.f_pr}


def per_slot_rows(pairs: Sequence[PairScore], config: Configuration) -> list[SlotRow]:
    """The rows of the per-slot view of one system, as the 1992 report's summary.

    >>> from importlib.resources import files
    >>> from muceval.formats.config import load_configuration
    >>> from muceval.formats.muc.templates import read_templates
    >>> from muceval.scoring.session import score_systems
    >>> example = files("muceval") / "data" / "example"
    >>> config = load_configuration(example / "config.toml")
    >>> key = read_templates(example / "key.txt", config)
    >>> rows = per_slot_rows(score_systems(config, key, {"k": key}).systems["k"], config)
    >>> {row.scores.f_pr for row in rows if row.tally.pos}
    {1.0}
    """
    summary = summarize(pairs, config)
    display = summary.display

    def row(name: str, kind: str, tally: Tally) -> SlotRow:
        return SlotRow(name, kind, tally, FloatScores.of(tally))

    rows = [row(slot_id, "slot", tally) for slot_id, tally in display.slots]
    rows += [row(name, "subtotal", tally) for name, tally in display.subtotals]
    # As in the 1992 report (§8.4), these two rows always come from MATCHED/MISSING: one label,
    # one meaning, in every output.
    matched_missing = summary.accumulators.matched_missing
    rows += [row("SET FILLS ONLY", "fills", matched_missing.set_fills),
             row("STRING FILLS ONLY", "fills", matched_missing.string_fills)]
    rows += [row(MANNER_LABELS[m.value], "manner", summary.accumulators.get(m).total)
             for m in MANNERS]
    return rows


def per_slot_table(system: str, rows: Sequence[SlotRow]) -> Table:
    table = new_table(f"{system}: per slot (%)", ("",),
                      ("recall", "precision", "F1", "POS", "ACT"), title_justify="left")
    previous_kind = rows[0].kind if rows else ""
    for r in rows:
        if r.kind != previous_kind:
            table.add_section()
            previous_kind = r.kind
        s = r.scores
        table.add_row(r.name, _pct(s.recall), _pct(s.precision), _pct(s.f_pr),
                      str(r.tally.pos), str(r.tally.act))
    return table


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"
