"""``muceval alignment`` as library calls, on 1992 responses or on modern predictions.

>>> from importlib.resources import files
>>> from muceval import SignificanceSettings
>>> from muceval.pipelines.inputs import resolve_inputs
>>> example = files("muceval") / "data" / "example"
>>> source = resolve_inputs([example / "alpha.txt", example / "gamma.txt"], example / "key.txt",
...                         config=str(example / "config.toml"))
>>> run = audit_alignment(source, "1992,any-slot",
...                       settings=SignificanceSettings(shuffles=99, seed=1))
>>> run.audit.scored, run.recorded["command"]  # the flag criterion, strict, joins them
(('1992', 'any-slot', 'strict'), 'alignment')
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from muceval.core.heap import building
from muceval.pipelines.inputs import ModernPredictions, Responses

if TYPE_CHECKING:
    from muceval.core.model import Configuration
    from muceval.errors import Problem
    from muceval.reporting.alignment import AlignmentComparison
    from muceval.scoring.alignment.audit import AlignmentAudit
    from muceval.scoring.modern.alignment import GttAlignmentAudit
    from muceval.significance.settings import SignificanceSettings

__all__ = ["AlignmentRun", "ModernAlignmentRun", "audit_alignment", "audit_modern_alignment"]


@dataclass(frozen=True)
class AlignmentRun:
    """The criteria audited on 1992 responses, each change of F tested (None with one)."""

    audit: AlignmentAudit
    comparison: AlignmentComparison | None
    warnings: tuple[Problem, ...]
    recorded: dict[str, Any]


@building()
def audit_alignment(source: Responses, criteria: str | None = None, *,
                    settings: SignificanceSettings | None = None, pairs: bool = False,
                    removal: bool = False, calibrate: bool = False, entropy: bool = False,
                    audit: str | None = None, command: str = "alignment",
                    config: Configuration | None = None,
                    progress: Callable[[int, int], None] | None = None) -> AlignmentRun:
    """Score ``source`` under the alignment ``criteria`` (names of its configuration; None or
    ``'compare'``: its compare list) and test each change of F against the default criterion;
    ``audit`` and ``command`` are only recorded in the JSON output."""
    from muceval.reporting.alignment import compare_criteria
    from muceval.scoring.alignment.criteria import parse_criteria
    from muceval.scoring.session import audit_files
    from muceval.version import __version__

    config = config or source.configuration()
    chosen = None if criteria in (None, "compare") else parse_criteria(criteria, config)
    found, warnings = audit_files(
        config, source.key, source.responses, history_path=source.history,
        names=dict(source.names), criteria=chosen, progress=progress, pairs=pairs,
        removal=removal, calibrate=calibrate, entropy=entropy,
        query_pass=source.scoring.query_pass)
    comparison = compare_criteria(found, settings) if len(found.scored) > 1 else None
    recorded = {"command": command, "muceval": __version__, "key": source.key,
                "config": source.config or "muc4", "history": source.history,
                "alignment_file": source.alignment_file, "criteria": list(found.scored),
                "default": found.default, "flag": found.flag, "audit": audit,
                "query_pass": source.scoring.query_pass, "unit": "message"}
    return AlignmentRun(found, comparison, tuple(warnings), recorded)


@dataclass(frozen=True)
class ModernAlignmentRun:
    """GTT's criterion audited on each system's predictions against ``gtt-role-match``."""

    audits: tuple[GttAlignmentAudit, ...]
    comparison: AlignmentComparison
    warnings: tuple[Problem, ...]
    recorded: dict[str, Any]


@building()
def audit_modern_alignment(source: ModernPredictions,
                           settings: SignificanceSettings | None = None) -> ModernAlignmentRun:
    """Audit GTT's alignment criterion against ``gtt-role-match`` on modern predictions, the
    change of F tested by a paired randomization over documents."""
    from muceval.formats.files import system_names
    from muceval.formats.modern import read_modern
    from muceval.reporting.modern_alignment import compare_gtt_alignment
    from muceval.scoring.modern.alignment import audit_gtt
    from muceval.version import __version__

    gold = read_modern(source.key)
    chosen = system_names(source.predictions, dict(source.names))
    audits = tuple(audit_gtt(gold, read_modern(p), name)
                   for p, name in zip(source.predictions, chosen, strict=True))
    recorded = {"command": "alignment", "muceval": __version__, "key": source.key,
                "predictions": list(source.predictions), "metric": "gtt",
                "criteria": ["gtt", "gtt-role-match"], "unit": "document"}
    return ModernAlignmentRun(audits, compare_gtt_alignment(list(audits), settings),
                              tuple(w for a in audits for w in a.scores.warnings), recorded)
