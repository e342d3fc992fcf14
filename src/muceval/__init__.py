"""muceval: MUC-style template scoring, significance testing and alignment diagnostics.

The public names (``__all__``, grouped in ``_PUBLIC`` below) are each loaded on first use
(``import muceval`` loads no NumPy); their examples run on the bundled example,
``importlib.resources.files("muceval") / "data" / "example"``.

>>> import muceval
>>> config = muceval.bundled_configuration("muc4")
>>> config.slot("inc-type").label
'4.  INCIDENT: TYPE'
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from muceval.version import __version__

# name -> module that defines it: the curated public API, in the order of the API reference
# (docs/site/hooks.py reads this literal).
_PUBLIC: dict[str, str] = {
    # errors
    "MucevalError": "muceval.errors",
    "InputError": "muceval.errors",
    "UsageError": "muceval.errors",
    "OutputError": "muceval.errors",
    "Problem": "muceval.errors",
    # files to model
    "load_configuration": "muceval.formats.config",
    "bundled_configuration": "muceval.formats.config",
    "read_templates": "muceval.formats.muc.templates",
    "read_history": "muceval.formats.muc.history",
    "save_history": "muceval.formats.muc.history",
    "read_report": "muceval.formats.muc.reports",
    "validate_files": "muceval.formats.validation",
    "load_inputs": "muceval.formats.registry",
    "load_systems": "muceval.formats.registry",
    "read_modern": "muceval.formats.modern",
    # scoring
    "Scorer": "muceval.scoring.muc1992.scorer",
    "ScoringOptions": "muceval.scoring.muc1992.options",
    "score_files": "muceval.scoring.session",
    "score_systems": "muceval.scoring.session",
    "ModernOptions": "muceval.scoring.modern",
    "score_modern": "muceval.scoring.modern",
    # tallies and metrics
    "Tally": "muceval.core.tallies",
    "PairScore": "muceval.core.tallies",
    "summarize": "muceval.core.tallies",
    "float_scores": "muceval.core.metrics",
    "UnitTallies": "muceval.core.units",
    "from_arrays": "muceval.core.units",
    "RatioTallies": "muceval.core.units",
    # significance
    "compare": "muceval.significance.engine",
    "SignificanceResult": "muceval.significance.engine",
    "SignificanceSettings": "muceval.significance.settings",
    "compare_ratios": "muceval.significance.ratios",
    "compare_to_baseline": "muceval.significance.baseline",
    # reports
    "format_report": "muceval.reporting.muc1992",
    "analyze": "muceval.reporting.analysis",
    "write_report": "muceval.reporting.html",
    "run_demo": "muceval.reporting.demo",
    # pipelines (each command as one call)
    "resolve_inputs": "muceval.pipelines.inputs",
    "build_report": "muceval.pipelines.report",
    "report_from_responses": "muceval.pipelines.report",
    "report_from_scores": "muceval.pipelines.report",
    "report_from_modern": "muceval.pipelines.report",
    "ReportOptions": "muceval.reporting.options",
    "compare_systems": "muceval.pipelines.compare",
    "run_significance": "muceval.pipelines.significance",
    # notebooks (one call to evaluate; tables, data frames and figures inline)
    "evaluate": "muceval.pipelines.evaluate",
    "Evaluation": "muceval.pipelines.evaluate",
    "groups_plot": "muceval.reporting.plots",
    "matrix_plot": "muceval.reporting.plots",
}

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
