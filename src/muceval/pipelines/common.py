"""What the pipelines share: the notes of scoring, responses scored into tallies and the
metrics tested by default."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from muceval.errors import Problem
from muceval.pipelines.inputs import Responses

if TYPE_CHECKING:
    from muceval.core.model import Configuration
    from muceval.core.systems import SystemScores
    from muceval.core.units import UnitTallies
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


Notify = Callable[[ScoringNotes], None]


def notifier(on_scored: Notify | None) -> Notify:
    return on_scored or (lambda notes: None)


@dataclass(frozen=True)
class ScoredResponses:
    """Responses scored against the key: the configuration, the session, and the systems'
    summaries and units."""

    config: Configuration
    session: SessionResult
    systems: list[SystemScores]
    tallies: UnitTallies


def configuration(source: Responses) -> Configuration:
    """The configuration ``source`` names (the bundled one by default)."""
    from muceval.formats.config import resolve_configuration

    return resolve_configuration(source.config, source.slots, source.alignment_file)


def score_responses(source: Responses, notify: Notify, *, fills: bool = False,
                    ) -> ScoredResponses:
    """Score the responses of ``source`` against its key (recording fill credit when its unit
    or ``fills`` needs it); the session's notes go to ``notify``."""
    from muceval.formats.files import system_name
    from muceval.reporting.analysis import systems_from_pairs
    from muceval.scoring.session import score_files

    config = configuration(source)
    renamed = dict(source.names)
    session = score_files(config, source.key, source.responses, history_path=source.history,
                          options=replace(source.scoring,
                                          fills=source.unit == "fill" or fills),
                          names=renamed)
    notify(ScoringNotes(session.warnings, session.file_warnings, session.unanswered,
                        source.history))
    systems, tallies = systems_from_pairs(
        session.systems, config, {renamed.get(p) or system_name(p): p for p in source.responses},
        unit=source.unit)
    return ScoredResponses(config, session, systems, tallies)


def default_metrics(settings: SignificanceSettings) -> tuple[str, ...]:
    """The metrics of the preset ``settings`` started from (every metric without one)."""
    from muceval.significance.settings import PRESETS

    if settings.preset is None:
        from muceval.significance.engine import METRICS

        return METRICS
    return PRESETS[settings.preset].metrics
