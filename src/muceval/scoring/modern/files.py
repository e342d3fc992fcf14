"""Score modern MUC-4 prediction files against a gold file, under one scorer or several."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from muceval.core.modern import ModernFile
from muceval.errors import Problem, UsageError
from muceval.formats.files import system_name
from muceval.formats.modern import read_modern
from muceval.scoring.modern import ModernOptions, ModernScores, score_modern
from muceval.scoring.scorers import SCORERS

__all__ = ["ModernRun", "score_modern_files"]


@dataclass(frozen=True)
class ModernRun:
    """The scores of every system under each scorer asked for, in order.

    ``skipped`` names what a scorer could not score (a layout without templates under a
    scorer that needs them, when several scorers were asked for); ``warnings`` are those of
    every score, each once; ``layout`` is the gold file's.
    """

    options: tuple[ModernOptions, ...]
    scores: tuple[tuple[ModernScores, ...], ...]
    skipped: tuple[str, ...]
    layout: str
    warnings: tuple[Problem, ...]


def score_modern_files(key_path: str | Path, predictions: Sequence[str | Path],
                       options: Sequence[ModernOptions],
                       names: Mapping[str, str] | None = None) -> ModernRun:
    """Score each prediction file under each of ``options``.

    With more than one scorer, a prediction (or gold) file of per-role extracts only is
    left out of the scorers that need templates and named in ``skipped``; with one, it is
    scored, and that scorer's refusal is the answer.

    Raises
    ------
    UsageError
        If two prediction files give the same system name.
    InputError
        If a file is unreadable or not a modern MUC-4 file.
    """
    gold = read_modern(key_path)
    preds = [((names or {}).get(str(p)) or system_name(str(p)), read_modern(p))
             for p in predictions]
    chosen = [name for name, _ in preds]
    if len(set(chosen)) != len(chosen):
        raise UsageError("two prediction files give the same system name: " + ", ".join(chosen))
    scores: list[tuple[ModernScores, ...]] = []
    skipped: list[str] = []
    for option in options:
        systems = []
        for name, pred in preds:
            if len(options) > 1 and _cannot(option.metric, gold, pred):
                skipped.append(f"{name} under {option.metric} ({pred.layout} has no templates)")
                continue
            systems.append(score_modern(gold, pred, option, name))
        scores.append(tuple(systems))
    warnings = {str(w): w for systems in scores for s in systems for w in s.warnings}
    return ModernRun(tuple(options), tuple(scores), tuple(skipped), gold.layout,
                     tuple(warnings.values()))


def _cannot(metric: str, gold: ModernFile, pred: ModernFile) -> bool:
    """Whether ``metric`` needs templates and one of the files has per-role extracts only."""
    def extracts_only(file: ModernFile) -> bool:
        return bool(file.documents) and file.documents[0].templates is None

    return SCORERS[metric].needs_templates and (extracts_only(pred) or extracts_only(gold))
