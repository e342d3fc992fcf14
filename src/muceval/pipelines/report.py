"""From files to a report: ``muceval report`` is :func:`report_source`, :func:`build_report`
and :func:`~muceval.reporting.html.write_report`.

>>> import muceval, tempfile
>>> from importlib.resources import files
>>> example = files("muceval") / "data" / "example"
>>> analysis = report_from_responses(
...     example / "key.txt", [example / "alpha.txt", example / "gamma.txt"],
...     config=example / "config.toml", history=example / "history.lisp",
...     settings=muceval.SignificanceSettings(method="exact", bootstrap=0, seed=3),
...     options=ReportOptions(errors=True, alignment="1992,any-slot"))
>>> analysis.errors is not None, analysis.alignment is not None
(True, True)
>>> analysis.alignment.comparison.settings["method"], analysis.settings.seed
('exact', 3)
>>> written = muceval.write_report(analysis, tempfile.mkdtemp())
>>> {"alignment.json", "errors.json", "scores.json"} <= {p.name for p in written.data}
True
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, Unpack

from muceval.core.heap import building
from muceval.errors import UsageError
from muceval.pipelines.common import Notify, Progress, ScoringNotes, notifier
from muceval.pipelines.inputs import (
    ErrorAnalyses,
    ModernPredictions,
    ModernScoreFiles,
    Responses,
    ScoreFiles,
    names_of,
    resolve_inputs,
)
from muceval.pipelines.score import score_responses
from muceval.reporting.options import ReportOptions
from muceval.scoring.muc1992.scorer import ScoringOptions
from muceval.significance.settings import SignificanceSettings

if TYPE_CHECKING:
    from muceval.core.model import Configuration
    from muceval.core.systems import SystemScores
    from muceval.core.units import UnitTallies
    from muceval.reporting.analysis import Analysis
    from muceval.reporting.modern_report import ModernAnalysis
    from muceval.reporting.sections import ReportSection
    from muceval.scoring.errors import ErrorAnalysis

__all__ = [
    "ModernPredictions",
    "ReportSource",
    "Responses",
    "ScoreFiles",
    "ScoringNotes",
    "build_report",
    "report_from_modern",
    "report_from_responses",
    "report_from_scores",
    "report_source",
]

ReportSource = Responses | ScoreFiles | ModernPredictions


class HowBuilt(TypedDict, total=False):

    settings: SignificanceSettings | None
    options: ReportOptions | None
    metrics: str | Sequence[str] | None
    threads: int | None
    progress: Progress | None
    on_scored: Notify | None


def report_source(inputs: Sequence[str | Path], key: str | Path | None = None,
                  **options: Any) -> ReportSource:
    """What ``inputs`` are (:func:`~muceval.pipelines.inputs.resolve_inputs`), refused unless
    a report can be made of them.

    >>> from importlib.resources import files
    >>> example = files("muceval") / "data" / "example"
    >>> type(report_source([example / "alpha.txt"], example / "key.txt")).__name__
    'Responses'
    """
    source = resolve_inputs(inputs, key, **options)
    if isinstance(source, ModernScoreFiles | ErrorAnalyses):
        raise UsageError("a report is made of responses, predictions or 1992 and muceval "
                         "scores: score modern predictions with their key (--key GOLD) instead "
                         "of reading their scores" if isinstance(source, ModernScoreFiles) else
                         "a report is made of responses, predictions or scores; error analyses "
                         "join it with --errors", parameter="inputs")
    return source


def report_from_responses(key: str | Path, responses: Sequence[str | Path], *,
                          config: str | Path | None = None, history: str | Path | None = None,
                          scoring: ScoringOptions | None = None, unit: str = "message",
                          slots: str | None = None, alignment_file: str | None = None,
                          names: Mapping[str, str] | None = None,
                          **how: Unpack[HowBuilt]) -> Analysis:
    """The report of 1992 responses scored against ``key`` (``how``: the keyword arguments of
    :func:`build_report`)."""
    source = Responses(str(key), tuple(str(p) for p in responses),
                       None if config is None else str(config), slots, alignment_file,
                       None if history is None else str(history), scoring or ScoringOptions(),
                       unit, names_of(names))
    return _analysis(build_report(source, **how))


def report_from_scores(paths: Sequence[str | Path], *, config: str | Path | None = None,
                       units: str = "same", unit: str | None = None,
                       names: Mapping[str, str] | None = None,
                       **how: Unpack[HowBuilt]) -> Analysis:
    """The report of systems read from score files."""
    source = ScoreFiles(tuple(str(p) for p in paths), None if config is None else str(config),
                        None, units, unit, names_of(names))
    return _analysis(build_report(source, **how))


def report_from_modern(key: str | Path, predictions: Sequence[str | Path], *,
                       names: Mapping[str, str] | None = None,
                       **how: Unpack[HowBuilt]) -> ModernAnalysis:
    """The report of modern predictions under every modern scorer.

    >>> import muceval, pathlib, tempfile
    >>> from importlib.resources import files
    >>> from muceval.formats.modern.writer import from_templates, write_layout
    >>> example, folder = files("muceval") / "data" / "example", pathlib.Path(tempfile.mkdtemp())
    >>> config = muceval.load_configuration(example / "config.toml")
    >>> for name, gold in (("key", True), ("alpha", False), ("gamma", False)):
    ...     modern = from_templates(muceval.read_templates(example / f"{name}.txt", config),
    ...                             config, gold)
    ...     _ = (folder / f"{name}.json").write_text(write_layout(modern, "muceval"))
    >>> analysis = report_from_modern(
    ...     folder / "key.json", [folder / "alpha.json", folder / "gamma.json"],
    ...     settings=muceval.SignificanceSettings(method="exact", bootstrap=0))
    >>> [r.metric for r in analysis.scorers], analysis.ranking
    (['gtt', 'ceaf-ree', 'ceaf-rme'], ('gtt F1', ('alpha', 'gamma')))
    >>> muceval.write_report(analysis, folder / "report").html.name
    'report.html'
    """
    from muceval.reporting.modern_report import ModernAnalysis

    built = build_report(ModernPredictions(str(key), tuple(str(p) for p in predictions),
                                           names_of(names)), **how)
    assert isinstance(built, ModernAnalysis)
    return built


def _analysis(built: Analysis | ModernAnalysis) -> Analysis:
    from muceval.reporting.analysis import Analysis

    assert isinstance(built, Analysis)
    return built


@building()
def build_report(source: ReportSource, *, settings: SignificanceSettings | None = None,
                 options: ReportOptions | None = None, metrics: str | Sequence[str] | None = None,
                 threads: int | None = None, progress: Progress | None = None,
                 on_scored: Notify | None = None,
                 ) -> Analysis | ModernAnalysis:
    """Score (or read) the systems of ``source``, test every pair and build every section
    the ``options`` ask for: what :func:`~muceval.reporting.html.write_report` writes.

    ``settings``: how every test of the report is run, those of its sections too (None: the
    ``muc4`` preset). ``options``: the sections to add (``errors``, ``alignment``).
    ``metrics``: all five by default (P, R and F1 for modern predictions). ``on_scored`` gets
    the :class:`ScoringNotes` before the tests (a command prints the warnings there, and may
    stop).

    Raises
    ------
    UsageError
        If a section is asked of inputs that cannot give it, or fewer than two systems are
        given.
    """
    options = options or ReportOptions()
    chosen = (settings or SignificanceSettings()).with_seed()
    notify = notifier(on_scored)
    if isinstance(source, ModernPredictions):
        if options.alignment is not None:
            raise UsageError("the Alignment section needs 1992 responses scored against a key",
                             parameter="alignment")
        if metrics is not None:
            raise UsageError("a report of modern predictions tests precision, recall and F1 "
                             "under every modern scorer", parameter="metrics")
        return _modern(source, chosen, options, progress, notify)
    if isinstance(source, ScoreFiles) and (options.alignment is not None or options.errors):
        raise UsageError("the Alignment and Errors sections need responses scored against a "
                         "key", parameter="alignment" if options.alignment else "errors")
    from muceval.reporting.analysis import analyze

    if isinstance(source, Responses):
        scored = _scored_responses(source, options.errors, notify)
    else:
        scored = _read_scores(source)
    if len(scored.systems) < 2:
        raise UsageError("a report compares systems: give at least two")
    from muceval.significance.engine import METRICS

    analysis = analyze(scored.systems, scored.tallies, metrics=metrics or METRICS,
                       settings=chosen, threads=threads, progress=progress,
                       inputs=scored.recorded)
    analysis = replace(analysis, files=scored.files)
    if options.alignment is not None:
        assert isinstance(source, Responses)
        assert scored.config is not None  # responses are scored with a configuration
        analysis = _with_alignment(analysis, source, scored.config, options.alignment, notify)
    if scored.errors is not None:
        from muceval.reporting.errors_section import error_section
        from muceval.reporting.plots import METRIC_TITLES

        metric = analysis.ranking_metric
        analysis = analysis.with_section(error_section(
            scored.errors, analysis.significance.ranking(metric),
            METRIC_TITLES.get(metric, metric), chosen))
    return analysis


@dataclass(frozen=True)
class _Scored:
    config: Configuration | None
    systems: Sequence[SystemScores]
    tallies: UnitTallies
    recorded: dict[str, Any]
    files: tuple[tuple[str, str], ...] = ()
    errors: ErrorAnalysis | None = None


def _scored_responses(source: Responses, errors: bool, notify: Notify) -> _Scored:
    from muceval.formats.scores.json import scores_to_json

    if errors and source.scoring.mapping != "greedy":
        raise UsageError(f"{source.scoring.mapping!r} does not go with the Errors section, "
                         "which sorts the 1992 scorer's verdicts at the 1992 (greedy) template "
                         "mapping", parameter="mapping")
    scored = score_responses(source, fills=errors)
    notify(ScoringNotes.of(scored))
    config, session = scored.config, scored.session
    label = os.path.basename(source.config) if source.config else "muc4 (bundled)"
    recorded: dict[str, Any] = {
        "key": source.key, "configuration": source.config or "muc4",
        "history": source.history or "none", "responses": list(source.responses),
        "query pass": source.scoring.query_pass, "mapping": source.scoring.mapping,
        "unit": source.unit,
        # What the terminal said while scoring, kept with the numbers it concerns.
        "questions without a recorded answer": (
            f"{session.unanswered} ({source.scoring.unresolved})" if source.scoring.query_pass
            else "none asked (batch mode)"),
        "warnings while reading and scoring": len(session.warnings) + len(
            session.file_warnings)}
    analysed = None
    if errors:
        from muceval.scoring.errors.muc1992 import analyse_1992_session

        analysed = analyse_1992_session(config, source.key, source.responses, session,
                                        history_path=source.history, names=dict(source.names))
    systems, tallies = scored.summaries()
    return _Scored(config, systems, tallies, recorded,
                   (("scores.json", scores_to_json(session.systems, config, config_label=label,
                                                   unit=source.unit)),), analysed)


def _read_scores(source: ScoreFiles) -> _Scored:
    from muceval.formats.config import resolve_configuration
    from muceval.formats.registry import load_systems

    config = (resolve_configuration(source.config, source.slots)
              if source.config is not None or source.slots is not None else None)
    systems, tallies = load_systems(list(source.paths), config, source.units,
                                    dict(source.names), source.unit)
    return _Scored(config, systems, tallies, {"inputs": list(source.paths),
                                      "configuration": source.config or "none",
                                      "units": source.units, "unit": tallies.level or "as given"})


def _with_alignment(analysis: Analysis, source: Responses, config: Configuration,
                    criteria: str, notify: Notify) -> Analysis:
    """The analysis with its Alignment section: ``muceval alignment --audit all --calibrate``."""
    from muceval.pipelines.alignment import audit_alignment
    from muceval.reporting.alignment_section import AlignmentSection
    from muceval.reporting.analysis import Provenance

    run = audit_alignment(source, criteria, settings=analysis.settings, pairs=True,
                          removal=True, calibrate=True, audit="all", command="report",
                          config=config)
    notify(ScoringNotes(file_warnings=run.warnings))
    inputs = (*analysis.provenance.inputs, ("alignment", criteria),
              ("alignment file", source.alignment_file or "none"))
    return replace(analysis, provenance=Provenance(inputs, analysis.provenance.versions)
                   ).with_section(AlignmentSection(run.audit, run.comparison,
                                                   tuple(run.recorded.items())))


def _modern(source: ModernPredictions, settings: SignificanceSettings, options: ReportOptions,
            progress: Progress | None,
            notify: Notify) -> ModernAnalysis:
    from muceval.reporting.modern_report import analyze_modern
    from muceval.scoring.modern.files import score_modern_files

    names = dict(source.names)
    run = score_modern_files(source.key, source.predictions, None, names, source.parse,
                             source.schema)
    notify(ScoringNotes(warnings=run.warnings, skipped=run.skipped))
    analysis = analyze_modern([list(systems) for systems in run.scores], settings,
                              {"key": source.key, "predictions": list(source.predictions),
                               "gold layout": run.layout,
                               **({"schema": run.schema} if run.schema != "muc4" else {}),
                               "warnings while scoring": len(run.warnings)},
                              progress)
    from muceval.reporting.answers_section import answers_section

    answers = answers_section([(r.label, r.systems) for r in analysis.scorers])
    sections: tuple[ReportSection, ...] = ()
    if answers is not None:
        sections += (answers,)
    if options.errors:
        from muceval.reporting.errors_section import error_section
        from muceval.scoring.errors import analyse_error_files

        label, order = analysis.ranking
        sections += (error_section(analyse_error_files(
            source.key, source.predictions, names=names, schema=source.schema,
            parse=source.parse), order, label, settings),)
    return replace(analysis, sections=sections) if sections else analysis
