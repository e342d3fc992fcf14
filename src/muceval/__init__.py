"""muceval: MUC-style template scoring, significance testing and alignment diagnostics.

The names a user needs, each loaded on first use (``import muceval`` loads no NumPy), with
a numpydoc docstring whose examples run on the bundled example,
``importlib.resources.files("muceval") / "data" / "example"``.

Files to model
    load_configuration, bundled_configuration, read_templates, read_history,
    save_history, read_report, validate_files, load_inputs, load_systems, read_modern
Scoring
    Scorer, ScoringOptions, score_files, score_systems, ModernOptions, score_modern
Tallies and metrics
    Tally, PairScore, summarize, float_scores, UnitTallies, from_arrays, RatioTallies
Significance
    compare, SignificanceResult, SignificanceSettings, compare_ratios,
    compare_to_baseline
Reports
    format_report, analyze, write_report, run_demo
Pipelines (each command as one call)
    resolve_inputs, build_report, report_from_responses, report_from_scores,
    report_from_modern, ReportOptions
Notebooks (one call to evaluate; tables, data frames and figures drawn inline)
    evaluate, Evaluation, groups_plot, matrix_plot
Errors
    MucevalError, InputError, UsageError, OutputError, Problem
``__version__``
    The version of muceval, a string.

>>> import muceval
>>> config = muceval.bundled_configuration("muc4")
>>> config.slot("inc-type").label
'4.  INCIDENT: TYPE'
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from muceval.version import __version__

# module -> the names it defines: the curated public API.
_MODULES: dict[str, tuple[str, ...]] = {
    "muceval.errors": ("MucevalError", "InputError", "UsageError", "OutputError", "Problem"),
    "muceval.formats.config": ("load_configuration", "bundled_configuration"),
    "muceval.formats.muc.templates": ("read_templates",),
    "muceval.formats.muc.history": ("read_history", "save_history"),
    "muceval.formats.muc.reports": ("read_report",),
    "muceval.formats.validation": ("validate_files",),
    "muceval.formats.registry": ("load_inputs", "load_systems"),
    "muceval.formats.modern": ("read_modern",),
    "muceval.scoring.muc1992.scorer": ("Scorer",),
    "muceval.scoring.muc1992.options": ("ScoringOptions",),
    "muceval.scoring.session": ("score_files", "score_systems"),
    "muceval.scoring.modern": ("ModernOptions", "score_modern"),
    "muceval.core.tallies": ("Tally", "PairScore", "summarize"),
    "muceval.core.metrics": ("float_scores",),
    "muceval.core.units": ("UnitTallies", "from_arrays", "RatioTallies"),
    "muceval.significance.engine": ("compare", "SignificanceResult"),
    "muceval.significance.settings": ("SignificanceSettings",),
    "muceval.significance.ratios": ("compare_ratios",),
    "muceval.significance.baseline": ("compare_to_baseline",),
    "muceval.reporting.muc1992": ("format_report",),
    "muceval.reporting.analysis": ("analyze",),
    "muceval.reporting.html": ("write_report",),
    "muceval.reporting.demo": ("run_demo",),
    "muceval.pipelines.inputs": ("resolve_inputs",),
    "muceval.pipelines.report": (
        "build_report", "report_from_responses", "report_from_scores", "report_from_modern",
    ),
    "muceval.reporting.options": ("ReportOptions",),
    "muceval.pipelines.compare": ("compare_systems",),
    "muceval.pipelines.significance": ("run_significance",),
    "muceval.pipelines.evaluate": ("evaluate", "Evaluation"),
    "muceval.reporting.plots": ("groups_plot", "matrix_plot"),
}
_PUBLIC: dict[str, str] = {name: module for module, names in _MODULES.items() for name in names}

__all__ = [
    "__version__",
    "MucevalError",
    "InputError",
    "UsageError",
    "OutputError",
    "Problem",
    "load_configuration",
    "bundled_configuration",
    "read_templates",
    "read_history",
    "save_history",
    "read_report",
    "validate_files",
    "load_inputs",
    "load_systems",
    "read_modern",
    "Scorer",
    "ScoringOptions",
    "score_files",
    "score_systems",
    "ModernOptions",
    "score_modern",
    "Tally",
    "PairScore",
    "summarize",
    "float_scores",
    "UnitTallies",
    "from_arrays",
    "RatioTallies",
    "compare",
    "SignificanceResult",
    "SignificanceSettings",
    "compare_ratios",
    "compare_to_baseline",
    "format_report",
    "analyze",
    "write_report",
    "run_demo",
    "resolve_inputs",
    "build_report",
    "report_from_responses",
    "report_from_scores",
    "report_from_modern",
    "ReportOptions",
    "compare_systems",
    "run_significance",
    "evaluate",
    "Evaluation",
    "groups_plot",
    "matrix_plot",
]


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'muceval' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:  # the same names, for type checkers and IDEs
    from muceval.core.metrics import float_scores
    from muceval.core.tallies import PairScore, Tally, summarize
    from muceval.core.units import RatioTallies, UnitTallies, from_arrays
    from muceval.errors import InputError, MucevalError, OutputError, Problem, UsageError
    from muceval.formats.config import bundled_configuration, load_configuration
    from muceval.formats.modern import read_modern
    from muceval.formats.muc.history import read_history, save_history
    from muceval.formats.muc.reports import read_report
    from muceval.formats.muc.templates import read_templates
    from muceval.formats.registry import load_inputs, load_systems
    from muceval.formats.validation import validate_files
    from muceval.pipelines.compare import compare_systems
    from muceval.pipelines.evaluate import Evaluation, evaluate
    from muceval.pipelines.inputs import resolve_inputs
    from muceval.pipelines.report import (
        build_report,
        report_from_modern,
        report_from_responses,
        report_from_scores,
    )
    from muceval.pipelines.significance import run_significance
    from muceval.reporting.analysis import analyze
    from muceval.reporting.demo import run_demo
    from muceval.reporting.html import write_report
    from muceval.reporting.muc1992 import format_report
    from muceval.reporting.options import ReportOptions
    from muceval.reporting.plots import groups_plot, matrix_plot
    from muceval.scoring.modern import ModernOptions, score_modern
    from muceval.scoring.muc1992.scorer import Scorer, ScoringOptions
    from muceval.scoring.session import score_files, score_systems
    from muceval.significance.baseline import compare_to_baseline
    from muceval.significance.engine import SignificanceResult, compare
    from muceval.significance.ratios import compare_ratios
    from muceval.significance.settings import SignificanceSettings
