"""``muceval compare`` in the library: a baseline against candidates.

>>> from importlib.resources import files
>>> from muceval.pipelines.inputs import resolve_inputs
>>> example = files("muceval") / "data" / "example"
>>> source = resolve_inputs([example / "alpha.txt", example / "gamma.txt"],
...                         example / "key.txt", config=str(example / "config.toml"))
>>> compared = compare_systems(source, errors=True)
>>> compared.result.baseline, compared.result.candidates, len(compared.error_changes) > 0
('alpha', ('gamma',), True)
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING

from muceval.errors import UsageError
from muceval.pipelines.common import Notify, Progress, ScoringNotes, default_metrics, notifier
from muceval.pipelines.inputs import InputSource, ModernPredictions, Responses, ScoreFiles
from muceval.pipelines.score import units_of

if TYPE_CHECKING:
    from muceval.core.units import RatioTallies, UnitTallies
    from muceval.scoring.modern import ModernOptions
    from muceval.significance.baseline import BaselineResult
    from muceval.significance.error_counts import ErrorChange
    from muceval.significance.settings import SignificanceSettings

__all__ = ["CompareResult", "CompareSource", "compare_systems"]

CompareSource = Responses | ModernPredictions | ScoreFiles
"""What ``compare`` reads its systems from."""


@dataclass(frozen=True)
class CompareResult:
    """The candidates against the baseline, and their error categories when asked."""

    result: BaselineResult
    error_changes: tuple[ErrorChange, ...] | None
    settings: SignificanceSettings

    def to_json(self) -> str:
        doc = self.result.to_dict()
        if self.error_changes is not None:
            doc["error_changes"] = [asdict(c) for c in self.error_changes]
        return json.dumps(doc, indent=1)


def compare_systems(source: InputSource, *, settings: SignificanceSettings | None = None,
                    metrics: Sequence[str] | None = None, threads: int | None = None,
                    progress: Progress | None = None, yeh: bool = False, errors: bool = False,
                    modern: ModernOptions | None = None, on_scored: Notify | None = None,
                    ) -> CompareResult:
    """Test each candidate against the baseline, the first system of ``source``.

    ``source``: responses scored against a 1992 key, tested over their ``unit`` (``response``:
    Yeh's randomization over responses), modern predictions scored by the ``modern`` scorer
    (None: ``gtt``), or score files; one system per file. ``settings`` default to the ``ab``
    preset. ``yeh``: Yeh's whole procedure (responses only). ``errors``: also compare the error
    categories of Das et al. (2022). ``on_scored`` gets the scoring notes, before the tests.

    Raises
    ------
    UsageError
        If an option does not go with the inputs, or a file holds more than one system.
    """
    from muceval.significance.settings import PRESETS

    settings = (settings or PRESETS["ab"].settings).with_seed()  # one seed for every test
    chosen = list(default_metrics(settings) if metrics is None else metrics)
    notify = notifier(on_scored)
    if not isinstance(source, Responses | ModernPredictions | ScoreFiles):
        raise UsageError("compare reads responses (with a key), predictions (with a modern "
                         "key) or 1992 and muceval scores; modern scores and error analyses are "
                         "tested with muceval significance")
    if (yeh or getattr(source, "unit", None) == "response") and not isinstance(source,
                                                                              Responses):
        raise UsageError("Yeh's response unit needs responses scored against a 1992 key",
                         parameter="yeh" if yeh else "unit")
    if errors and isinstance(source, ScoreFiles):
        raise UsageError("the error categories need responses or predictions scored against "
                         "a key", parameter="errors")
    if modern is not None and not isinstance(source, ModernPredictions):
        raise UsageError("a modern scorer scores predictions against a modern key",
                         parameter="modern")
    if isinstance(source, Responses) and (yeh or source.unit == "response"):
        result = _by_responses(source, chosen, settings, yeh, notify)
    else:
        from muceval.significance.baseline import compare_to_baseline

        tallies, unit = _tallies(source, modern, notify)
        result = compare_to_baseline(tallies, tallies.systems[0], tallies.systems[1:],
                                     metrics=chosen, settings=settings, threads=threads,
                                     progress=progress, unit=unit)
    changes = _error_changes(source, settings) if errors else None
    return CompareResult(result, changes, settings)


def _tallies(source: CompareSource, modern: ModernOptions | None,
             notify: Notify) -> tuple[UnitTallies | RatioTallies, str]:
    if isinstance(source, ModernPredictions | Responses):
        return units_of(source, modern, notify)
    from muceval.formats.registry import load_inputs

    tallies = load_inputs(source.paths, source.units, dict(source.names), source.unit)
    if len(tallies.systems) != len(source.paths):
        raise UsageError(f"{len(source.paths)} files hold {len(tallies.systems)} systems "
                         f"({', '.join(tallies.systems)}): give one system per file")
    return tallies, tallies.level or "message"


def _by_responses(source: Responses, metrics: list[str], settings: SignificanceSettings,
                  yeh: bool, notify: Notify) -> BaselineResult:
    from muceval.scoring.responses import baseline_units
    from muceval.significance.responses import YEH_SHUFFLES, compare_responses

    if yeh:
        settings = replace(settings, method="auto", shuffles=YEH_SHUFFLES)
    units, warnings = baseline_units(source.configuration(), source.key, source.responses,
                                     history_path=source.history, names=dict(source.names),
                                     options=source.scoring)
    notify(ScoringNotes(file_warnings=warnings))
    return compare_responses(units, metrics, settings)


def _error_changes(source: CompareSource, settings: SignificanceSettings,
                   ) -> tuple[ErrorChange, ...]:
    from muceval.pipelines.errors import analyse_errors, compare_errors

    if isinstance(source, Responses):
        analysis = analyse_errors(source.key, source.responses, config=source.config,
                                  slots=source.slots, history=source.history,
                                  query_pass=source.scoring.query_pass, names=dict(source.names))
    else:
        assert isinstance(source, ModernPredictions)
        analysis = analyse_errors(source.key, source.predictions, names=dict(source.names),
                                  schema=source.schema, parse=source.parse)
    return compare_errors(analysis, settings).changes
