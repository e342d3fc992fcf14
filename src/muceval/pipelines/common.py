"""What the pipelines share."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from muceval.errors import OutputError, Problem, UsageError

if TYPE_CHECKING:
    from muceval.pipelines.score import ScoredResponses
    from muceval.significance.settings import SignificanceSettings

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class ScoringNotes:
    """What scoring (or reading) noted, given to ``on_scored`` before the (long) tests run."""

    warnings: tuple[Problem, ...] = ()
    file_warnings: tuple[Problem, ...] = ()
    unanswered: int = 0
    history: str | None = None
    skipped: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @classmethod
    def of(cls, scored: ScoredResponses) -> ScoringNotes:
        session = scored.session
        return cls(session.warnings, session.file_warnings, session.unanswered,
                   scored.source.history, notes=scored.notes())


Notify = Callable[[ScoringNotes], None]


def notifier(on_scored: Notify | None) -> Notify:
    return on_scored or (lambda notes: None)


def default_metrics(settings: SignificanceSettings) -> tuple[str, ...]:
    """The metrics of the preset ``settings`` started from (every metric without one)."""
    from muceval.significance.settings import PRESETS

    if settings.preset is None:
        from muceval.significance.engine import METRICS

        return METRICS
    return PRESETS[settings.preset].metrics


def refuse_outputs(outputs: Sequence[str | Path | None], files: Mapping[str | None, str]) -> None:
    """Refuse, as a usage error, an output that is one of the ``files`` read."""
    from muceval.formats.files import refuse_replacing_inputs

    for output in outputs:
        try:
            refuse_replacing_inputs(output, files)
        except OutputError as error:
            raise UsageError(str(error)) from None
