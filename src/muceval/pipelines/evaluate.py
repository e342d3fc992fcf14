"""One call to evaluate systems, for notebooks and scripts: :func:`evaluate`."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from muceval.core.frames import data_frame, html_table
from muceval.core.measures import metric_of_counts
from muceval.core.units import RatioTallies, UnitTallies
from muceval.errors import Problem, UsageError
from muceval.pipelines.inputs import ModernPredictions, Responses, resolve_inputs
from muceval.scoring.muc1992.scorer import ScoringOptions

if TYPE_CHECKING:
    from muceval.significance.result import SignificanceResult
    from muceval.significance.settings import SignificanceSettings

__all__ = ["Evaluation", "evaluate"]

_MEASURES = ("recall", "precision", "f1")


@dataclass(frozen=True)
class Evaluation:
    """The scores of every system and the units their significance is tested on.

    ``scorer`` is ``'1992'`` or the modern scorer with its similarity; ``counts`` holds each
    system's summed counts (``pos``, ``act``, ``cor``, ``par``, or modern ``p_num``, ``p_den``,
    ``r_num``, ``r_den``), ``scores`` its recall, precision and F1 as fractions, and
    ``tallies`` the per-unit counts the tests exchange.
    """

    systems: tuple[str, ...]
    scorer: str
    unit: str
    counts: dict[str, dict[str, float]]
    scores: dict[str, dict[str, float]]
    warnings: tuple[Problem, ...]
    tallies: UnitTallies | RatioTallies

    def ranking(self) -> list[str]:
        """The systems by F1, best first (ties in the given order)."""
        return sorted(self.systems, key=lambda s: -self.scores[s]["f1"])

    def significance(self, settings: SignificanceSettings | None = None,
                     metrics: Sequence[str] | None = None,
                     progress: Callable[[int, int], None] | None = None) -> SignificanceResult:
        """Every pairwise difference tested by paired randomization over the units (as
        ``muceval significance`` tests them); ``settings`` default to MUC-4's preset."""
        from muceval.significance.engine import METRICS, compare
        from muceval.significance.ratios import RATIO_METRICS, compare_ratios
        from muceval.significance.settings import SignificanceSettings

        chosen = settings or SignificanceSettings()
        if isinstance(self.tallies, RatioTallies):
            return compare_ratios(self.tallies, tuple(metrics or RATIO_METRICS), chosen,
                                  progress=progress)
        return compare(self.tallies, tuple(metrics or METRICS), chosen, progress=progress)

    def rows(self) -> list[dict[str, Any]]:
        """One row per system, best first: its rank, scores and counts."""
        return [{"rank": n, "system": s, **self.scores[s], **self.counts[s]}
                for n, s in enumerate(self.ranking(), start=1)]

    def to_pandas(self) -> Any:
        """The scores as a data frame: one row per system, best first (needs pandas:
        ``pip install 'muceval[notebook]'``)."""
        rows = self.rows()
        return data_frame(rows, list(rows[0]) if rows else ["rank", "system", *_MEASURES])

    def _repr_html_(self) -> str:
        rows = [{"rank": r["rank"], "system": r["system"],
                 **{m.upper() if m == "f1" else m[0].upper(): f"{100 * r[m]:.2f}"
                    for m in _MEASURES}} for r in self.rows()]
        caption = (f"scorer {self.scorer}; {len(self.tallies.units)} {self.unit}s; "
                   f"{len(self.warnings)} warning(s)")
        return html_table(rows, ["rank", "system", "R", "P", "F1"], caption)


def evaluate(key: str | Path, systems: Sequence[str | Path], *,
             config: str | Path | None = None, history: str | Path | None = None,
             scoring: ScoringOptions | None = None, unit: str = "message",
             scorer: str | None = None, phi: str | None = None,
             schema: str | Path | None = None, parse: str = "strict",
             names: Mapping[str, str] | None = None) -> Evaluation:
    """Score every system against ``key``, ready for a table and the significance tests.

    A 1992 key (with ``config``, ``history``, ``scoring`` and ``unit``) is scored by the MUC-4
    Scoring System; a modern key (JSON; with ``scorer``, ``phi``, ``schema`` and ``parse``) by
    the modern scorer named, or the first its schema reports. ``systems``: one file per system;
    ``config``: None is the bundled MUC-4 configuration; ``names``: new system names by file.

    Raises
    ------
    UsageError
        If an option does not go with the key.
    InputError
        If a file is unreadable or malformed.

    Examples
    --------
    >>> import muceval
    >>> from importlib.resources import files
    >>> example = files("muceval") / "data" / "example"
    >>> ev = muceval.evaluate(example / "key.txt", [example / "alpha.txt", example / "beta.txt"],
    ...                       config=example / "config.toml", history=example / "history.lisp")
    >>> ev.ranking(), round(ev.scores["alpha"]["f1"], 4)
    (['alpha', 'beta'], 0.873)
    >>> result = ev.significance(muceval.SignificanceSettings(seed=1, shuffles=999))
    >>> result.comparison("alpha", "beta", "f1").significant
    True
    """
    source = resolve_inputs(systems, key, config=None if config is None else str(config),
                            history=None if history is None else str(history),
                            scoring=scoring, unit=unit, names=names, parse=parse,
                            schema=None if schema is None else str(schema))
    if isinstance(source, Responses):
        if scorer is not None or phi is not None:
            raise UsageError("goes with a modern key (JSON): this key is a 1992 one",
                             parameter="scorer" if scorer is not None else "phi")
        return _from_responses(source)
    if isinstance(source, ModernPredictions):
        if config is not None or history is not None:
            raise UsageError("goes with a 1992 key: this key is a modern one (JSON)",
                             parameter="config" if config is not None else "history")
        return _from_predictions(source, scorer, phi)
    raise UsageError("evaluate scores systems against a key", parameter="key")


def _from_responses(source: Responses) -> Evaluation:
    from muceval.pipelines.score import score_responses

    scored = score_responses(source)
    _, tallies = scored.summaries()
    sums = np.asarray(tallies.counts).sum(axis=1)
    counts: dict[str, dict[str, float]] = {
        s: dict(zip(("pos", "act", "cor", "par"), map(int, row), strict=True))
        for s, row in zip(tallies.systems, sums, strict=True)}
    scores = {s: {m: metric_of_counts(m, c["pos"], c["act"], 2 * c["cor"] + c["par"])
                  for m in _MEASURES} for s, c in counts.items()}
    session = scored.session
    return Evaluation(tuple(tallies.systems), "1992", source.unit, counts, scores,
                      (*session.file_warnings, *session.warnings), tallies)


def _from_predictions(source: ModernPredictions, scorer: str | None,
                      phi: str | None) -> Evaluation:
    from muceval.scoring.modern import ModernOptions, ratio_tallies
    from muceval.scoring.modern.files import reported_scorers, score_modern_files

    def chosen(schema: str) -> list[ModernOptions]:
        return [ModernOptions(scorer if scorer is not None
                              else reported_scorers(schema)[0].metric, phi)]

    run = score_modern_files(source.key, source.predictions, chosen, dict(source.names),
                             source.parse, source.schema)
    systems = run.scores[0]
    counts = {s.system: {k: getattr(s.overall, k) for k in ("p_num", "p_den", "r_num", "r_den")}
              for s in systems}
    scores = {s.system: {m: getattr(s.overall, m) for m in _MEASURES} for s in systems}
    return Evaluation(tuple(s.system for s in systems), run.options[0].label, "document",
                      counts, scores, run.warnings, ratio_tallies(list(systems)))
