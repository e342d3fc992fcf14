"""Score N systems and test their differences: everything a report needs, in one object.

>>> from muceval.core.units import from_arrays
>>> from muceval.core.tallies import Tally
>>> a = SystemScores.of_tally("A", "x", "arrays", Tally(pos=2, act=2, cor=2))
>>> a.all_templates.recall
1.0
"""

from __future__ import annotations

import json
import platform
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from muceval.core.metrics import FloatScores, f_measures_1992, scores
from muceval.core.model import Configuration
from muceval.core.systems import MANNER_LABELS, Row, SystemScores
from muceval.core.tallies import MANNERS, PairScore, Tally, summarize
from muceval.core.unit_levels import units_of
from muceval.core.units import UnitTallies, from_arrays
from muceval.significance.engine import METRICS, SignificanceResult, compare, parse_metrics
from muceval.significance.settings import SignificanceSettings
from muceval.version import __version__

if TYPE_CHECKING:
    from muceval.reporting.alignment_section import AlignmentSection
    from muceval.reporting.errors_section import ErrorSection
    from muceval.reporting.sections import ReportSection

__all__ = [
    "Analysis",
    "Provenance",
    "analyze",
    "systems_from_pairs",
]


def systems_from_pairs(
    results: Mapping[str, Sequence[PairScore]],
    config: Configuration,
    sources: Mapping[str, str] | None = None,
    unit: str = "message",
) -> tuple[list[SystemScores], UnitTallies]:
    """Summaries and per-unit tallies (ALL TEMPLATES totals) of scored systems, the rows as in
    the 1992 summary; a ``fill`` unit needs pairs scored with ``ScoringOptions(fills=True)``.

    >>> import muceval
    >>> from importlib.resources import files
    >>> example = files("muceval") / "data" / "example"
    >>> config = muceval.load_configuration(example / "config.toml")
    >>> session = muceval.score_files(config, example / "key.txt",
    ...                               [example / "alpha.txt", example / "gamma.txt"])
    >>> systems, tallies = systems_from_pairs(session.systems, config)
    >>> [s.name for s in systems], len(tallies.units)
    (['alpha', 'gamma'], 10)
    """
    systems: list[SystemScores] = []
    per_unit: list[dict[str, Tally]] = []
    for name, pairs in results.items():
        summary = summarize(pairs, config)
        set_slots = set(summary.layout.set_slots)
        accs = summary.accumulators
        at, mm = accs.all_templates.total, accs.matched_missing
        s = scores(at)
        slots = tuple(Row.of(n, "slot", t, FloatScores.of(t).fallout if n in set_slots else None)
                      for n, t in summary.display.slots)
        manners = tuple(Row.of(MANNER_LABELS[m.value], "total", accs.get(m).total) for m in MANNERS)
        objects = (*(Row.of(n, "subtotal", t) for n, t in summary.display.subtotals), *manners,
                   Row.of("SET FILLS ONLY", "set-fills", mm.set_fills,
                          FloatScores.of(mm.set_fills).fallout),
                   Row.of("STRING FILLS ONLY", "string-fills", mm.string_fills))
        systems.append(SystemScores(name, (sources or {}).get(name, name), "scored",
                                    Row.of("ALL TEMPLATES", "total", at), manners, slots,
                                    objects, f_measures_1992(s.rec, s.pre)))
        per_unit.append(
            summary.message_totals if unit == "message" else units_of(pairs, config, unit))
    return systems, _tallies_of(systems, per_unit, unit)


def _tallies_of(systems: Sequence[SystemScores], per_unit: Sequence[Mapping[str, Tally]],
                level: str) -> UnitTallies:
    units = sorted({u for d in per_unit for u in d})
    counts = np.zeros((len(systems), len(units), 4), dtype=np.int64)
    position = {u: i for i, u in enumerate(units)}
    for s, d in enumerate(per_unit):
        for unit, t in d.items():
            counts[s, position[unit]] = (t.pos, t.act, t.cor, t.par)
    return from_arrays([s.name for s in systems], units, counts, level)


def _versions() -> tuple[tuple[str, str], ...]:
    from importlib.metadata import PackageNotFoundError, version

    out = [("muceval", __version__), ("python", platform.python_version())]
    for package in ("numpy", "scipy", "numba", "matplotlib", "click"):
        try:
            out.append((package, version(package)))
        except PackageNotFoundError:  # pragma: no cover - declared dependencies
            out.append((package, "not installed"))
    return tuple(out)


@dataclass(frozen=True)
class Provenance:
    """What an analysis was made from: its inputs by role, and the libraries' versions."""

    inputs: tuple[tuple[str, Any], ...] = ()
    versions: tuple[tuple[str, str], ...] = field(default_factory=_versions)

    @classmethod
    def of(cls, inputs: Mapping[str, Any] | None) -> Provenance:
        return cls(tuple((inputs or {}).items()))

    def to_dict(self) -> dict[str, Any]:
        return {"inputs": dict(self.inputs), "versions": dict(self.versions)}


@dataclass(frozen=True)
class Analysis:
    """Scores of every system, their significance, the report's sections, and their origin."""

    systems: tuple[SystemScores, ...]
    tallies: UnitTallies = field(repr=False)
    significance: SignificanceResult
    settings: SignificanceSettings
    provenance: Provenance = field(default_factory=Provenance)
    sections: tuple[ReportSection, ...] = ()
    files: tuple[tuple[str, str], ...] = field(default=(), repr=False)

    def section(self, id: str) -> ReportSection | None:
        return next((s for s in self.sections if s.id == id), None)

    @property
    def ranked(self) -> tuple[SystemScores, ...]:
        """The systems in the page's one ranking, as every panel and table shows them."""
        sig = self.significance
        by_name = {s.name: s for s in self.systems}
        return tuple(by_name[name] for name in sig.ranking(sig.ranking_metric))

    @property
    def alignment(self) -> AlignmentSection | None:
        return cast("AlignmentSection | None", self.section("alignment"))

    @property
    def errors(self) -> ErrorSection | None:
        return cast("ErrorSection | None", self.section("errors"))

    def with_section(self, section: ReportSection) -> Analysis:
        """The analysis with ``section`` added (replacing one of that id)."""
        return replace(self, sections=(*(s for s in self.sections if s.id != section.id),
                                       section))

    def system(self, name: str) -> SystemScores:
        for s in self.systems:
            if s.name == name:
                return s
        raise KeyError(name)

    @property
    def ranking_metric(self) -> str:
        return self.significance.ranking_metric

    def recorded(self) -> dict[str, Any]:
        return {**self.significance.settings, "systems": len(self.systems),
                **self.provenance.to_dict()}

    def data_files(self) -> dict[str, str]:
        return {**{name: text for section in self.sections
                   for name, text in section.files().items()}, **dict(self.files)}

    def to_dict(self) -> dict[str, Any]:
        out = {
            "format": "muceval-report",
            "format_version": 1,
            "settings": self.recorded(),
            "systems": [s.to_dict() for s in self.systems],
            "significance": self.significance.to_dict(),
        }
        out.update((section.id, section.to_dict()) for section in self.sections)
        return out

    def to_json(self, indent: int | None = 1) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False) + "\n"


def analyze(
    systems: Sequence[SystemScores],
    tallies: UnitTallies,
    *,
    metrics: str | Sequence[str] = METRICS,
    settings: SignificanceSettings | None = None,
    threads: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    inputs: Mapping[str, Any] | None = None,
) -> Analysis:
    """Run :func:`compare` on ``tallies`` and keep the result with the systems' summaries and
    what produced them: what :func:`write_report` turns into the HTML report.

    Parameters
    ----------
    systems : sequence of muceval.core.systems.SystemScores
        The systems' summaries (:func:`load_systems`, or
        :func:`~muceval.reporting.analysis.systems_from_pairs`).
    tallies : UnitTallies
        Their per-unit tallies, the same systems in the same order.
    metrics, threads, progress
        As in :func:`compare`.
    settings : SignificanceSettings or None, default None
        None: the ``muc4`` preset.
    inputs : mapping of str to object or None, default None
        What the analysis was made from, recorded in the report.

    Raises
    ------
    ValueError
        If ``systems`` and ``tallies`` do not list the same systems in the same order.

    Examples
    --------
    >>> from muceval.core.tallies import Tally
    >>> from muceval.significance.settings import SignificanceSettings
    >>> t = from_arrays(["A", "B"], ["m1", "m2"], [[[2, 2, 2, 0], [2, 2, 1, 0]],
    ...                                           [[2, 2, 1, 0], [2, 2, 0, 0]]])
    >>> s = [SystemScores.of_tally(n, n, "arrays", Tally(*map(int, t.totals(n))))
    ...      for n in t.systems]
    >>> a = analyze(s, t, settings=SignificanceSettings(method="exact", bootstrap=0))
    >>> a.significance.comparison("A", "B", "recall").p_value
    0.5
    """
    if [s.name for s in systems] != list(tallies.systems):
        raise ValueError("systems and tallies must list the same systems in the same order")
    chosen = (settings or SignificanceSettings()).with_seed()
    result = compare(tallies, parse_metrics(metrics), chosen, threads=threads,
                     progress=progress)
    return Analysis(tuple(systems), tallies, result, chosen, Provenance.of(inputs))
