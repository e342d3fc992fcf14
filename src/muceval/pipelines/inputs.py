"""What a command's input files are: :func:`resolve_inputs`, and one variant per kind of input,
each listing the files it reads by role (``files``), which no output may replace.

>>> from importlib.resources import files
>>> example = files("muceval") / "data" / "example"
>>> source = resolve_inputs([example / "alpha.txt"], example / "key.txt")
>>> type(source).__name__, source.files[source.key]
('Responses', 'key')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from muceval.errors import MucevalError, UsageError
from muceval.scoring.muc1992.options import ScoringOptions

if TYPE_CHECKING:
    from muceval.core.model import Configuration

__all__ = [
    "ErrorAnalyses",
    "InputSource",
    "ModernPredictions",
    "ModernScoreFiles",
    "Responses",
    "ScoreFiles",
    "is_modern",
    "is_templates",
    "resolve_inputs",
]

Names = tuple[tuple[str, str], ...]
"""Input path and the system name it is given instead of its file name."""


def names_of(names: Mapping[str, str] | None) -> Names:
    return tuple((str(path), name) for path, name in (names or {}).items())


@dataclass(frozen=True)
class Responses:
    """1992 system responses, scored against a key."""

    key: str
    responses: tuple[str, ...]
    config: str | None = None
    slots: str | None = None
    alignment_file: str | None = None
    history: str | None = None
    scoring: ScoringOptions = field(default_factory=ScoringOptions)
    unit: str = "message"
    names: Names = ()
    allow_swapped: bool = False

    def configuration(self) -> Configuration:
        from muceval.formats.config import resolve_configuration

        return resolve_configuration(self.config, self.slots, self.alignment_file)

    @property
    def files(self) -> dict[str | None, str]:
        return {self.key: "key", self.config: "configuration", self.slots: "slot file",
                self.alignment_file: "alignment file", self.history: "history",
                **{path: "input" for path in self.responses}}


@dataclass(frozen=True)
class ScoreFiles:
    """Systems read from 1992 score reports and muceval scores."""

    paths: tuple[str, ...]
    config: str | None = None
    slots: str | None = None
    units: str = "same"
    unit: str | None = None
    names: Names = ()

    @property
    def files(self) -> dict[str | None, str]:
        return {self.config: "configuration", self.slots: "slot file",
                **{path: "input" for path in self.paths}}


@dataclass(frozen=True)
class ModernPredictions:
    """Modern predictions (or raw answers of a language model), scored against a modern key."""

    key: str
    predictions: tuple[str, ...]
    names: Names = ()
    parse: str = "strict"
    schema: str | None = None

    def __post_init__(self) -> None:
        from muceval.formats.modern.answers import check_parse

        check_parse(self.parse)

    @property
    def files(self) -> dict[str | None, str]:
        return {self.key: "key", **{path: "prediction file" for path in self.predictions},
                **({self.schema: "schema file"} if self.schema and Path(self.schema).is_file()
                   else {})}


@dataclass(frozen=True)
class ModernScoreFiles:
    """muceval's modern scores (``score --metric ... --format json``)."""

    paths: tuple[str, ...]
    names: Names = ()

    @property
    def files(self) -> dict[str | None, str]:
        return {path: "input" for path in self.paths}


@dataclass(frozen=True)
class ErrorAnalyses:
    """muceval error analyses (``errors --format json``)."""

    paths: tuple[str, ...]
    names: Names = ()
    units: str = "same"

    @property
    def files(self) -> dict[str | None, str]:
        return {path: "input" for path in self.paths}


InputSource = Responses | ScoreFiles | ModernPredictions | ModernScoreFiles | ErrorAnalyses
"""What a command reads its systems from."""


def is_modern(path: str | Path) -> bool:
    """Whether a file is in a modern MUC-4 layout (GTT, GRIT, IterX, neutral)."""
    from muceval.formats.modern import LAYOUTS

    return _kind_name(path, strict=True) in LAYOUTS


def is_templates(path: str | Path) -> bool:
    """Whether a file holds MUC templates (a 1992 key or response)."""
    return _kind_name(path, strict=True) == "templates"


def _kind_name(path: str | Path, strict: bool = False) -> str | None:
    """The registry's name of the file's kind; None when unknown or (unless ``strict``)
    unreadable: its reader then says what is wrong, with the line."""
    from muceval.formats.registry import INPUTS

    try:
        kind = INPUTS.kind_of(path)
    except MucevalError:
        if strict:
            raise
        return None
    return None if kind is None else kind.name


_KEYLESS = {"modern-scores": "modern scores (score --metric gtt|ceaf-ree|ceaf-rme)",
            "error-analysis": "error analyses (errors --format json)"}


def resolve_inputs(inputs: Sequence[str | Path], key: str | Path | None = None, *,
                   config: str | None = None, slots: str | None = None,
                   alignment_file: str | None = None, history: str | None = None,
                   scoring: ScoringOptions | None = None, unit: str | None = None,
                   units: str = "same", names: Mapping[str, str] | None = None,
                   parse: str = "strict", schema: str | None = None) -> InputSource:
    """What ``inputs`` are: responses to score against ``key``, modern predictions (with a
    modern ``key``), or, without a key, score files, modern scores or error analyses (a mix is
    refused). The other arguments are kept in the variant they apply to; ``names``: new
    system names by input path.

    Raises
    ------
    UsageError
        If there are no inputs, or score files of different kinds are mixed.
    """
    paths = tuple(str(p) for p in inputs)
    if not paths:
        raise UsageError("give the files to read", parameter="inputs")
    chosen = names_of(names)
    if schema is not None and (key is None or not is_modern(key)):
        raise UsageError("a template schema goes with a modern key (JSON) and its predictions",
                         parameter="schema")
    if key is not None:
        if is_modern(key):
            return ModernPredictions(str(key), paths, chosen, parse, schema)
        return Responses(str(key), paths, config, slots, alignment_file, history,
                         scoring or ScoringOptions(), unit or "message", chosen)
    kinds = [_kind_name(path) for path in paths]
    found = {k for k in kinds if k is not None and k in _KEYLESS}
    if found and (len(found) > 1 or any(k not in found for k in kinds)):
        named = sorted(_KEYLESS[k] for k in found)
        raise UsageError(f"{' and '.join(named)} cannot be tested together with other files: "
                         "give files of one kind", parameter="inputs")
    if found == {"modern-scores"}:
        return ModernScoreFiles(paths, chosen)
    if found == {"error-analysis"}:
        return ErrorAnalyses(paths, chosen, units)
    return ScoreFiles(paths, config, slots, units, unit, chosen)
