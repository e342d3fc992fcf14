"""Score modern MUC-4 prediction files against a gold file, under one scorer or several."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from muceval.core.heap import building
from muceval.core.modern import ModernFile
from muceval.core.schema import schema_named
from muceval.errors import InputError, Problem, UsageError
from muceval.formats.files import read_text, system_names
from muceval.formats.modern import detect_layout, layout_named, parse_modern, read_modern
from muceval.formats.modern.answers import roles_by_type
from muceval.formats.schema import resolve_schema
from muceval.scoring.modern import ModernOptions, ModernScores, score_modern
from muceval.scoring.scorers import SCORERS, modern_scorers

__all__ = ["ModernRun", "read_predictions", "reported_scorers", "score_modern_files"]


@dataclass(frozen=True)
class ModernRun:
    """The scores of every system under each scorer asked for; ``layout``: the gold file's."""

    options: tuple[ModernOptions, ...]
    scores: tuple[tuple[ModernScores, ...], ...]
    skipped: tuple[str, ...]
    layout: str
    warnings: tuple[Problem, ...]
    schema: str = "muc4"


def read_predictions(path: str | Path, gold: ModernFile, parse: str = "strict") -> ModernFile:
    """A prediction file read for ``gold``: in its schema and role names; a FAMuS prompt file
    read as predictions, as FAMuS's report baseline is."""
    text = read_text(path)
    layout = detect_layout(text)
    options = layout_named(layout).read_options if layout else frozenset()
    as_prediction = layout is not None and layout_named(layout).gold \
        and "as_prediction" in options
    if as_prediction and Path(path).resolve() == Path(gold.path).resolve():
        raise InputError.at(str(path), None, "the key itself, given as predictions")
    return parse_modern(text, str(path), layout, as_prediction=as_prediction, parse=parse,
                        schema=gold.schema if "schema" in options else None,
                        roles_of=roles_by_type(gold.documents) if "roles_of" in options
                        else None)


def reported_scorers(schema: str) -> list[ModernOptions]:
    """The scorers a report shows for a schema: those it names, else every modern scorer
    that takes it, each with its first similarity.

    >>> [(o.metric, o.phi) for o in reported_scorers("famus")]
    [('ceaf-rme', 'phi3'), ('ceaf-rme', 'phi-a')]
    """
    found = schema_named(schema)
    if found.reported:
        try:
            return [ModernOptions(metric, phi) for metric, phi in found.reported]
        except UsageError as error:
            raise UsageError(f"schema {found.name} ({found.source or 'built in'}), reported: "
                             f"{error}", parameter="schema") from None
    return [ModernOptions(m) for m in modern_scorers()
            if schema in (SCORERS[m].schemas or {schema})]


@building()
def score_modern_files(key_path: str | Path, predictions: Sequence[str | Path],
                       options: Sequence[ModernOptions] | None
                       | Callable[[str], Sequence[ModernOptions]],
                       names: Mapping[str, str] | None = None,
                       parse: str = "strict", schema: str | Path | None = None) -> ModernRun:
    """Score each prediction file under each of ``options``.

    With more than one scorer, a file a scorer cannot take is left out of it and named in
    ``skipped``; with one, that scorer's refusal is the answer. Read ``'lenient'``, each score
    also holds the counts of the answers read ``'strict'``. ``options`` may be None
    (:func:`reported_scorers` of the key's schema) or a function of that schema.
    """
    gold = read_modern(key_path, schema=None if schema is None else resolve_schema(schema))
    if options is None:
        options = reported_scorers(gold.schema)
    elif callable(options):
        options = options(gold.schema)
    paths = [str(p) for p in predictions]
    preds = [(name, read_predictions(p, gold, parse))
             for name, p in zip(system_names(paths, names), paths, strict=True)]
    # Read leniently, the same answers read strictly too, once, for every scorer's "strict".
    strictly = {name: read_predictions(pred.path, gold, "strict") for name, pred in preds
                if pred.parse == "lenient"}
    scores: list[tuple[ModernScores, ...]] = []
    skipped: list[str] = []
    for option in options:
        systems = []
        for name, pred in preds:
            if len(options) > 1 and _cannot(option.metric, gold, pred):
                skipped.append(f"{name} under {option.metric} ({pred.layout} has no templates)")
                continue
            takes = SCORERS[option.metric].schemas
            if len(options) > 1 and takes is not None and gold.schema not in takes:
                skipped.append(f"{name} under {option.metric} (it scores "
                               f"{', '.join(sorted(takes))} templates; the key is {gold.schema})")
                continue
            scored = score_modern(gold, pred, option, name)
            if name in strictly:
                strict = score_modern(gold, strictly[name], option, name)
                scored = replace(scored, strict=strict.overall)
            systems.append(scored)
        scores.append(tuple(systems))
    warnings = {str(w): w for systems in scores for s in systems for w in s.warnings}
    return ModernRun(tuple(options), tuple(scores), tuple(skipped), gold.layout,
                     tuple(warnings.values()), gold.schema)


def _cannot(metric: str, gold: ModernFile, pred: ModernFile) -> bool:
    """Whether ``metric`` needs templates and one of the files has per-role extracts only."""
    def extracts_only(file: ModernFile) -> bool:
        return bool(file.documents) and file.documents[0].templates is None

    return SCORERS[metric].needs_templates and (extracts_only(pred) or extracts_only(gold))
