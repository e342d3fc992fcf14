"""What the pipelines share: the notes of scoring and the metrics tested by default."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from muceval.errors import Problem

if TYPE_CHECKING:
    from muceval.scoring.session import SessionResult
    from muceval.significance.settings import SignificanceSettings

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class ScoringNotes:
    """What scoring (or reading) noted, given to ``on_scored`` before the (long) tests run:
    the session's warnings, those of the files, the questions no recorded answer settled,
    what a modern scorer could not score, and other notes."""

    warnings: tuple[Problem, ...] = ()
    file_warnings: tuple[Problem, ...] = ()
    unanswered: int = 0
    history: str | None = None
    skipped: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @classmethod
    def of(cls, session: SessionResult, history: str | None) -> ScoringNotes:
        """The notes of a scoring session (``history``: the one it was scored with)."""
        return cls(session.warnings, session.file_warnings, session.unanswered, history)


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
