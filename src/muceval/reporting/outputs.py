"""The texts of a scoring run, and the folder of one file per system."""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from rich.console import Console, OverflowMethod
    from rich.table import Table

    from muceval.core.model import Configuration
    from muceval.core.tallies import PairScore

__all__ = ["ENCODING", "ScoreView", "csv_text", "new_table", "text_console", "write_folder"]

ScoreFormat = Literal["report", "json", "csv", "table"]
ReportForm = Literal["template", "summary", "message"]
Detail = Literal["summary", "messages", "pairs"]
Level = Literal["message", "template", "fill"]

# The 1992 reports are 8-bit text like the files they come from; the rest is UTF-8.
ENCODING: dict[str, str] = {"report": "latin-1", "json": "utf-8", "csv": "utf-8",
                            "table": "utf-8"}
_EXTENSION = {"report": "report", "json": "json", "csv": "csv", "table": "txt"}


@dataclass(frozen=True)
class ScoreView:
    """What to show of scored systems, and how.

    >>> ScoreView("json", detail="messages").detail
    'messages'
    """

    fmt: ScoreFormat = "report"
    report_form: ReportForm = "template"
    detail: Detail = "summary"
    unit: Level = "message"
    per_slot: bool = False
    settings: Mapping[str, object] = field(default_factory=dict)

    @property
    def encoding(self) -> str:
        return ENCODING[self.fmt]

    def text(self, results: Mapping[str, Sequence[PairScore]], config: Configuration,
             fmt: ScoreFormat | None = None) -> str:
        from muceval.formats.scores.csv import scores_to_csv
        from muceval.formats.scores.json import scores_to_json
        from muceval.reporting.muc1992 import format_report

        fmt = fmt or self.fmt
        if self.per_slot and fmt == "json":
            return per_slot_json(results, config)
        if fmt == "table":
            width = 100 if self.per_slot else 120
            return "".join(_rendered(table, width) for table in self.tables(results, config))
        if fmt == "json":
            return scores_to_json(results, config, detail=self.detail, unit=self.unit,
                                  settings={**self.settings, "detail": self.detail})
        if fmt == "csv":
            return scores_to_csv(results, config, detail=self.detail)
        reports = [format_report(pairs, config, layout=self.report_form) for pairs in results.values()]
        if len(reports) == 1:
            return reports[0]
        # Each report stays byte-identical to the 1992 one; the line before it names the system.
        return "".join(f"==> {name} <==\n{text}"
                       for name, text in zip(results, reports, strict=True))

    def tables(self, results: Mapping[str, Sequence[PairScore]],
               config: Configuration) -> list[Table]:
        from muceval.reporting.slots import per_slot_rows, per_slot_table
        from muceval.reporting.terminal import summary_table

        if not self.per_slot:
            return [summary_table(results, config)]
        return [per_slot_table(name, per_slot_rows(pairs, config))
                for name, pairs in results.items()]


def per_slot_json(results: Mapping[str, Sequence[PairScore]], config: Configuration) -> str:
    import json

    from muceval.reporting.slots import PER_SLOT_FORMAT, per_slot_rows
    from muceval.version import __version__

    return json.dumps({"format": PER_SLOT_FORMAT, "format_version": 1, "muceval": __version__,
                       "systems": [{"system": name,
                                    "rows": [r.to_dict() for r in per_slot_rows(pairs, config)]}
                                   for name, pairs in results.items()]}, indent=1) + "\n"


def csv_text(rows: Iterable[Sequence[object]]) -> str:
    """``rows`` as CSV text, lines ending in ``\\n``."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue()


def new_table(title: str, left: Iterable[str], right: Iterable[str] = (), *,
              no_wrap: bool = False, overflow: OverflowMethod = "ellipsis",
              **options: Any) -> Table:
    """A rich table with the columns ``left``, then ``right`` (right-justified)."""
    from rich.table import Table

    table = Table(title=title, **options)
    for head in left:
        table.add_column(head, no_wrap=no_wrap, overflow=overflow)
    for head in right:
        table.add_column(head, justify="right", no_wrap=no_wrap, overflow=overflow)
    return table


def text_console(width: int, terminal: bool = False, **options: Any) -> Console:
    """A console that prints to the terminal, or else records its text."""
    from rich.console import Console

    return Console(record=True, width=width, file=None if terminal else io.StringIO(), **options)


def _rendered(table: object, width: int) -> str:
    console = text_console(width)
    console.print(table)
    return console.export_text()


def write_folder(folder: str, view: ScoreView, results: Mapping[str, Sequence[PairScore]],
                 config: Configuration, keep: Mapping[str | None, str],
                 overwrite: bool) -> list[str]:
    """One file per system and a summary in ``folder``; an input (``keep``) is never replaced."""
    from muceval.formats.files import write_files

    files: dict[str, tuple[str, str]] = {}  # file name -> (text, format)
    if view.fmt != "table":
        for name, pairs in results.items():
            files[f"{name}.{_EXTENSION[view.fmt]}"] = (view.text({name: pairs}, config),
                                                       view.fmt)
    summary: ScoreFormat = view.fmt if view.fmt in ("json", "csv") else "table"
    files[f"summary.{_EXTENSION[summary]}"] = (view.text(results, config, summary), summary)
    encoded = {os.path.join(folder, name): text.encode(ENCODING[kind], "backslashreplace")
               for name, (text, kind) in files.items()}
    write_files(encoded, overwrite=overwrite, keep=keep, folder=folder,
                last=os.path.join(folder, f"summary.{_EXTENSION[summary]}"))
    return list(encoded)
