"""``muceval score`` as library calls, for 1992 responses and modern predictions.

>>> from importlib.resources import files
>>> from muceval.pipelines.inputs import resolve_inputs
>>> example = files("muceval") / "data" / "example"
>>> source = resolve_inputs([example / "alpha.txt"], example / "key.txt",
...                         config=str(example / "config.toml"),
...                         history=str(example / "history.lisp"))
>>> scored = score_responses(source)
>>> list(scored.session.systems), scored.settings["command"]
(['alpha'], 'score')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from muceval.pipelines.common import refuse_outputs
from muceval.pipelines.inputs import ModernPredictions, Responses

if TYPE_CHECKING:
    from muceval.core.model import Configuration
    from muceval.core.systems import SystemScores
    from muceval.core.units import RatioTallies, UnitTallies
    from muceval.scoring.modern import ModernOptions
    from muceval.scoring.modern.files import ModernRun
    from muceval.scoring.muc1992.judgements import AnswerCallback, Unresolved
    from muceval.scoring.session import SessionResult

__all__ = ["ScoredPredictions", "ScoredResponses", "adjudicated_mappings", "score_predictions",
           "score_responses", "units_of"]


@dataclass(frozen=True)
class ScoredResponses:
    """1992 responses scored, every file read by role, and the settings the JSON records."""

    source: Responses
    session: SessionResult
    config: Configuration
    files: dict[str | None, str]
    settings: dict[str, object]
    adjudicated: tuple[tuple[str, str], ...] = ()

    def notes(self) -> tuple[str, ...]:
        """What a command says of the scoring besides its warnings."""
        return tuple(f"{name} uses the manual mappings of muceval adjudicate in {sidecar}"
                     for name, sidecar in self.adjudicated)

    def summaries(self) -> tuple[list[SystemScores], UnitTallies]:
        from muceval.formats.files import system_names
        from muceval.reporting.analysis import systems_from_pairs

        responses = self.source.responses
        named = system_names(responses, dict(self.source.names))
        return systems_from_pairs(self.session.systems, self.config,
                                  dict(zip(named, responses, strict=True)),
                                  unit=self.source.unit)


@dataclass(frozen=True)
class ScoredPredictions:
    """Modern predictions scored, and the settings the JSON records."""

    run: ModernRun
    settings: dict[str, object]


def adjudicated_mappings(history: str | None, responses: Sequence[str],
                         names: Mapping[str, str]) -> dict[str, str]:
    """The manual mappings ``muceval adjudicate`` kept next to the history, by system name."""
    from muceval.formats.files import system_names
    from muceval.formats.muc.mappings import sidecar_mapping_path

    if history is None:
        return {}
    sidecars = {name: sidecar_mapping_path(history, name)
                for name in system_names(responses, names)}
    return {name: str(path) for name, path in sidecars.items() if path.is_file()}


def score_responses(source: Responses, *, unresolved: Unresolved = "incorrect",
                    ask: AnswerCallback | None = None,
                    mappings: Sequence[str] | Mapping[str, str] | None = None,
                    save_history: str | None = None, criterion: str | None = None,
                    scheduler: str | None = None, outputs: Sequence[str | None] = (),
                    fills: bool = False,
                    progress: Callable[[int, int], None] | None = None) -> ScoredResponses:
    """Score 1992 responses against their key as the 1992 program did.

    ``unresolved`` is what a question without a recorded answer gives (``'ask'``: ``ask``
    answers it). ``mappings``: manual template mappings (None: those ``muceval adjudicate``
    kept next to the history). ``outputs``: files the caller will write, refused before
    anything is scored if one is read here. ``fills`` records each fill's credit (for fill
    units and the error analysis). A failed save of the answers raises HistorySaveError, which
    keeps them.
    """
    from muceval.scoring.session import score_files
    from muceval.version import __version__

    config = source.configuration()
    names = dict(source.names)
    found = adjudicated_mappings(source.history, source.responses, names) \
        if mappings is None else {}
    manual = found if mappings is None else mappings
    files: dict[str | None, str] = {**source.files,
                                    **{p: "response file" for p in source.responses},
             **{p: "mapping file" for p in (manual.values() if isinstance(manual, Mapping)
                                            else manual)}}
    # The slot file a 1992 configuration names is read too, though not given.
    files.update((p, "configuration file") for p in config.read_from if p not in files)
    refuse_outputs(outputs, files)
    refuse_outputs([save_history], {k: v for k, v in files.items() if k != source.history})
    options = replace(source.scoring, unresolved=unresolved, ask=ask,
                      fills=source.scoring.fills or fills or source.unit == "fill")
    session = score_files(config, source.key, source.responses, options=options,
                          history_path=source.history, mapping_paths=manual,
                          save_history=save_history, names=names, progress=progress,
                          alignment=criterion, scheduler=scheduler,
                          allow_swapped=source.allow_swapped)
    settings = {"command": "score", "muceval": __version__, "key": session.settings["key"],
                "configuration": source.config or "muc4", "slots": source.slots,
                **{k: v for k, v in session.settings.items()
                   if k not in ("key", "configuration")}}
    return ScoredResponses(source, session, config, files, settings, tuple(found.items()))


def score_predictions(source: ModernPredictions, scorers: Sequence[ModernOptions], *,
                      outputs: Sequence[str | None] = (),
                      recorded: Mapping[str, Any] | None = None) -> ScoredPredictions:
    """Score modern predictions under each of ``scorers``."""
    from muceval.scoring.modern.files import score_modern_files
    from muceval.version import __version__

    refuse_outputs(outputs, {source.key: "key", **{p: "predictions" for p in source.predictions},
                             **{o.event_n_file: "buckets file" for o in scorers if o.event_n_file}})
    names = dict(source.names)
    run = score_modern_files(source.key, source.predictions, scorers, names, source.parse,
                             source.schema)
    buckets_used = next((o.event_n_buckets for o in run.options if o.event_n_buckets), None)
    settings: dict[str, object] = {"command": "score", "muceval": __version__,
                                   "key": source.key, "predictions": list(source.predictions),
                                   "parse": source.parse, "schema": source.schema}
    for key, value in (recorded or {}).items():
        settings[key] = value
        if key == "event_n_file":  # where the documents of event_n come from, beside it
            settings["event_n_buckets"] = buckets_used
    settings.setdefault("event_n_buckets", buckets_used)
    settings["names"] = names
    return ScoredPredictions(run, settings)


def units_of(source: Responses | ModernPredictions, modern: ModernOptions | None = None,
             notify: Callable[[Any], None] | None = None,
             ) -> tuple[UnitTallies | RatioTallies, str]:
    """The systems' units, scored here, and what one unit is."""
    from muceval.pipelines.common import ScoringNotes, notifier

    say = notifier(notify)
    if isinstance(source, ModernPredictions):
        from muceval.scoring.modern import ratio_tallies
        from muceval.scoring.modern.files import reported_scorers, score_modern_files

        # Without a scorer named: the first the key's schema reports (gtt on MUC-4).
        run = score_modern_files(source.key, source.predictions,
                                 lambda schema: [modern or reported_scorers(schema)[0]],
                                 dict(source.names), source.parse, source.schema)
        say(ScoringNotes(warnings=run.warnings))
        return ratio_tallies(list(run.scores[0])), "document"
    scored = score_responses(source)
    say(ScoringNotes.of(scored))
    return scored.summaries()[1], source.unit
