"""Is my new version really better? One baseline against one or more candidates, like
sacrebleu's ``--paired-ar`` but exact where it can be."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from muceval.core.signature import document_header
from muceval.core.units import RatioTallies, UnitTallies
from muceval.errors import UsageError
from muceval.significance.settings import PRESETS, RunRecord, SignificanceSettings, known_systems

__all__ = ["BaselineComparison", "BaselineResult", "compare_to_baseline", "BASELINE_FORMAT"]

BASELINE_FORMAT = "muceval-compare"
BASELINE_VERSION = 2


@dataclass(frozen=True)
class BaselineComparison:
    """One candidate against the baseline on one metric (scores as fractions)."""

    candidate: str
    metric: str
    baseline: float
    candidate_score: float
    difference: float
    ci: tuple[float, float] | None
    p_value: float
    method: str
    significant: bool
    verdict: str
    checks: dict[str, float] | None = None
    """Yeh's checks of a test over responses (``sign_test_p``, ``second_seed_p``)."""

    def to_dict(self) -> dict[str, Any]:
        """As JSON: the baseline's score as ``baseline_score`` (``baseline`` is its name)."""
        out = asdict(self)
        out["baseline_score"] = out.pop("baseline")
        out["candidate_score"] = out.pop("candidate_score")
        out["ci"] = list(self.ci) if self.ci is not None else None
        return out


@dataclass(frozen=True)
class BaselineResult:
    baseline: str
    candidates: tuple[str, ...]
    comparisons: tuple[BaselineComparison, ...]
    settings: RunRecord

    def to_dict(self) -> dict[str, Any]:
        return {**document_header(BASELINE_FORMAT, self.settings, BASELINE_VERSION),
                "baseline": self.baseline, "candidates": list(self.candidates),
                "comparisons": [c.to_dict() for c in self.comparisons]}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1)

    def to_csv(self) -> str:
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["baseline", "candidate", "metric", "baseline_score", "candidate_score",
                         "difference", "ci_low", "ci_high", "p_value", "method", "significant",
                         "verdict"])
        for c in self.comparisons:
            writer.writerow([self.baseline, c.candidate, c.metric, c.baseline, c.candidate_score,
                             c.difference, *(c.ci if c.ci else ("", "")), c.p_value, c.method,
                             int(c.significant), c.verdict])
        return buffer.getvalue()


def verdict(difference: float, significant: bool) -> str:
    """The comparison in words.

    >>> verdict(0.021, True)
    'better'
    >>> verdict(-0.004, False)
    'not significant'
    """
    if not significant or difference == 0:
        return "not significant"
    return "better" if difference > 0 else "worse"


def compare_to_baseline(
    tallies: UnitTallies | RatioTallies,
    baseline: str,
    candidates: Sequence[str] | None = None,
    *,
    metrics: Sequence[str] = PRESETS["ab"].metrics,
    settings: SignificanceSettings = PRESETS["ab"].settings,
    threads: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    unit: str = "message",
) -> BaselineResult:
    """Is the new version really better? Test candidates against a baseline, one pair at a time.

    For each candidate and metric: both scores, the difference (candidate − baseline) with its
    bootstrap interval, the p-value and a verdict in words; each pair tested on its own.

    Parameters
    ----------
    tallies : UnitTallies or RatioTallies
        MUC tallies (tested by :func:`compare`) or modern counts (:func:`compare_ratios`).
    baseline : str
    candidates : sequence of str or None, default None
        The systems to compare; None or empty: every other system of ``tallies``.
    metrics : sequence of str, default ('recall', 'precision', 'f1')
    settings : SignificanceSettings, default the ``ab`` preset
        ``method='auto'``, ``alpha=0.05``, ``seed=1``, 1,000 bootstrap samples.
    threads, progress
        As in :func:`compare` (MUC tallies only).
    unit : str, default 'message'
        What one unit is, recorded in the result's settings.

    Returns
    -------
    muceval.significance.baseline.BaselineResult
        One :class:`BaselineComparison` per candidate and metric, the settings recorded.

    Raises
    ------
    UsageError
        If ``baseline`` or a candidate is not among the systems, no candidate is left, or
        as :func:`compare` and :func:`compare_ratios`.

    Examples
    --------
    >>> from muceval.core.units import from_arrays
    >>> from dataclasses import replace
    >>> t = from_arrays(["old", "new"], ["m1", "m2", "m3"],
    ...                 [[[2, 2, 1, 0], [2, 2, 1, 0], [2, 2, 1, 0]],
    ...                  [[2, 2, 2, 0], [2, 2, 2, 0], [2, 2, 2, 0]]])
    >>> ab = replace(PRESETS["ab"].settings, bootstrap=0)
    >>> result = compare_to_baseline(t, "old", metrics=["recall"], settings=ab)
    >>> c = result.comparisons[0]
    >>> (c.candidate, c.baseline, c.candidate_score, c.p_value, c.method)
    ('new', 0.5, 1.0, 0.25, 'exact')
    >>> c.verdict  # on three messages, no two-sided p-value is below 2/8
    'not significant'
    """
    from muceval.significance.engine import compare
    from muceval.significance.ratios import compare_ratios

    known_systems(tallies.systems, [baseline])
    chosen = tuple(candidates) if candidates else tuple(s for s in tallies.systems
                                                        if s != baseline)
    if not chosen:
        raise UsageError("give at least one candidate to compare with the baseline")
    comparisons: list[BaselineComparison] = []
    tested = settings.with_seed()  # one seed for every candidate
    recorded = None
    for candidate in chosen:
        pair = tallies.select([baseline, candidate])
        if isinstance(pair, RatioTallies):
            result = compare_ratios(pair, metrics, tested)
        else:
            result = compare(pair, metrics, tested, threads=threads, progress=progress)
        recorded = result.settings
        for metric in result.metrics:
            c = result.comparison(candidate, baseline, metric)  # candidate − baseline
            comparisons.append(BaselineComparison(
                candidate, metric, result.scores[baseline][metric],
                result.scores[candidate][metric], c.difference, c.ci, c.p_value, c.method,
                c.significant, verdict(c.difference, c.significant)))
    assert recorded is not None
    recorded = (replace(recorded, level=unit) if recorded.level is not None
                else recorded.with_more(unit=unit))
    return BaselineResult(baseline, chosen, tuple(comparisons), recorded)
