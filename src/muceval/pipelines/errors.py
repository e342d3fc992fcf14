"""``muceval errors`` as library calls: Das et al. (2022)'s error analysis, and a baseline's
error categories compared with other systems'.

>>> from importlib.resources import files
>>> example = files("muceval") / "data" / "example"
>>> analysis = analyse_errors(example / "key.txt", [example / "alpha.txt"],
...                           config=str(example / "config.toml"))
>>> [s.system for s in analysis.systems]
['alpha']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from muceval.core.heap import building
from muceval.errors import UsageError

if TYPE_CHECKING:
    from muceval.core.error_counts import ErrorCounts
    from muceval.scoring.errors import ErrorAnalysis, ErrorOptions
    from muceval.significance.error_counts import ErrorChange
    from muceval.significance.settings import SignificanceSettings

__all__ = ["ErrorComparison", "analyse_errors", "compare_errors"]


@building()
def analyse_errors(key: str | Path, predictions: Sequence[str | Path], *,
                   options: ErrorOptions | None = None, config: str | None = None,
                   slots: str | None = None, history: str | None = None,
                   query_pass: bool = True,
                   names: Mapping[str, str] | None = None,
                   schema: str | Path | None = None,
                   parse: str = "strict") -> ErrorAnalysis:
    """Das et al.'s error categories of every system: modern predictions against a modern
    gold (or ``'embedded'``), or 1992 responses against a 1992 key, sorted at the 1992 scorer's
    verdicts (its mapping is kept, so ``options`` may choose only the mode)."""
    from muceval.pipelines.inputs import is_templates
    from muceval.scoring.errors import EMBEDDED, ErrorOptions, analyse_error_files

    chosen = options or ErrorOptions()
    if str(key) != EMBEDDED and is_templates(key):
        if chosen.after_repair or chosen.canonical_order:
            raise UsageError("a repair and a canonical order are for modern files: 1992 "
                             "templates keep the 1992 mapping", parameter="after_repair")
        if schema is not None or parse != "strict":
            raise UsageError("a schema and a way to parse raw answers are for modern files: "
                             "1992 templates have MUC-4's slots", parameter="schema")
        from muceval.formats.config import resolve_configuration
        from muceval.scoring.errors.muc1992 import analyse_1992_files

        return analyse_1992_files(resolve_configuration(config, slots), key, predictions,
                                  history_path=history, query_pass=query_pass,
                                  mode=chosen.mode, names=names)
    given_1992 = [name for name, given in (("config", config is not None),
                                           ("slots", slots is not None),
                                           ("history", history is not None),
                                           ("query_pass", not query_pass)) if given]
    if given_1992:
        raise UsageError("a configuration, a history and the query pass are for 1992 template "
                         "files; the key is not one", parameter=given_1992[0])
    return analyse_error_files(key, predictions, chosen, names, schema=schema, parse=parse)


@dataclass(frozen=True)
class ErrorComparison:
    """The first system's error categories against each other system's."""

    counts: ErrorCounts
    baseline: str
    changes: tuple[ErrorChange, ...]
    settings: SignificanceSettings


@building()
def compare_errors(analysis: ErrorAnalysis,
                   settings: SignificanceSettings | None = None) -> ErrorComparison:
    """Each category of the first system tested against each other system's."""
    from muceval.significance.error_counts import error_changes
    from muceval.significance.settings import PRESETS

    # One seed drawn for every pair, and recorded (None would draw one per pair).
    chosen = (settings or PRESETS["ab"].settings).with_seed()
    counts = analysis.counts()
    baseline = analysis.systems[0].system
    return ErrorComparison(counts, baseline, tuple(error_changes(counts, baseline, chosen)),
                           chosen)
