"""The registry of the files muceval reads (:data:`INPUTS`): what a file is, and how to load it.

A kind is recognised from the decoded text (the name helps only for ``.toml``, ``.csv`` and
``.json``), so the 1992 files with their varied names need no flags.

>>> INPUTS.detect('((\"TST3-MUC4-0001\" (\"1\" (inc-date (\"1 JAN 90\" fail)))))').name
'history'
>>> INPUTS.detect("system,unit,POS,ACT,COR,PAR\\n").label
'unit tallies'
"""

from __future__ import annotations

import importlib
import os
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from muceval.core.heap import building
from muceval.core.model import Configuration, SlotType
from muceval.errors import InputError, MucevalError, Problem, UsageError
from muceval.formats.files import first_line, parse_json, read_text, system_name
from muceval.formats.modern import LAYOUTS, REGISTRY, Layout, detect_layout, parse_modern

if TYPE_CHECKING:
    from muceval.core.systems import ScoredSystem, SystemScores
    from muceval.core.units import UnitTallies
    from muceval.formats.muc.reports import ScoreReport

__all__ = [
    "INPUTS",
    "InputKind",
    "Loaded",
    "ReadOptions",
    "Registry",
    "load_inputs",
    "load_systems",
]


@dataclass(frozen=True)
class ReadOptions:
    """What some kinds need besides the text (None: the bundled MUC-4 one, the layout's schema)."""

    config: Configuration | None = None
    schema: str | None = None


@dataclass(frozen=True)
class Loaded:
    """What a kind's loader found in one file; ``counts`` in display order."""

    value: Any
    counts: dict[str, int] = field(default_factory=dict)
    problems: tuple[Problem, ...] = ()
    warnings: tuple[Problem, ...] = ()


@dataclass(frozen=True)
class InputKind:
    """One kind of file muceval reads; kinds of scores files also have ``scores``, the systems in
    what ``load`` returned (``summaries``: with the summary rows a report shows)."""

    name: str
    label: str
    description: str
    sniff: Callable[[str, str], bool]
    load: Callable[[str, str, ReadOptions], Loaded]
    scores: Callable[[Any, ReadOptions], Sequence[ScoredSystem]] | None = None
    summaries: bool = False
    family: str | None = None  # how "not a file muceval knows" lists it, with its siblings


_HINTS = {
    "templates": "it holds templates, not scores: give the answer key too (compare and report "
                 "take --key), or score it first (muceval score --key KEY FILE --format json)",
    "modern": "it holds templates, not scores: give the gold file too (compare and report take "
              "--key), or score it first (muceval score --key GOLD FILE --metric all --format "
              "json)",
    "history": "a history goes with responses scored against a key (--history)",
    "error-analysis": "its error counts are tested with muceval significance --errors",
}
"""What to do instead, for kinds a command often receives by mistake."""

_GIVE_AS = {"templates": "--key or as a response", "history": "--history",
            "toml-configuration": "--config", "configuration-1992": "--config",
            "slots-1992": "--slots",
            **dict.fromkeys(("report-1992", "scores-json", "scores-csv", "unit-csv"),
                            "an input of compare, significance or report"),
            "modern-scores": "an input of compare or significance",
            "error-analysis": "an input of significance --errors"}
"""Where a file of each kind belongs on the command line."""


def wrong_kind(text: str, path: str, expected: str,
               accepted: Collection[str]) -> InputError | None:
    """The error for a file of another kind than ``expected``, saying where it belongs; None if
    it is of an ``accepted`` kind or of none (then the reader's own error says what is wrong).

    >>> from importlib.resources import files
    >>> text = (files("muceval") / "data" / "muc4.toml").read_text()
    >>> str(wrong_kind(text, "muc4.toml", "a history", {"history"}))
    'muc4.toml: a muceval TOML configuration (*.toml), not a history: give it as --config'
    """
    kind = INPUTS.detect(text, path)
    if kind is None or kind.name in accepted:
        return None
    try:  # a loose sniff (a broken configuration starts with '(' as a history does) is confirmed
        kind.load(text, path, ReadOptions())
    except MucevalError:
        return None
    if kind.name in LAYOUTS:
        where = ("a modern key (--key) or its predictions; for the 1992 scorer convert it to "
                 "templates (muceval convert)")
    else:
        where = _GIVE_AS.get(kind.name, "another input")
    return InputError.at(path, None, f"a {kind.description}, not {expected}: give it as {where}")


class Registry:
    """Input kinds in the order they are tried: the first whose sniffer says yes wins.

    >>> registry = Registry([])
    >>> registry.detect("anything") is None
    True
    """

    def __init__(self, kinds: Iterable[InputKind] = ()) -> None:
        self._kinds: list[InputKind] = []
        for kind in kinds:
            self.register(kind)

    @property
    def kinds(self) -> tuple[InputKind, ...]:
        return tuple(self._kinds)

    def register(self, kind: InputKind, *, before: str | None = None) -> None:
        """Add a kind, last or just before the kind named ``before``."""
        if any(k.name == kind.name for k in self._kinds):
            raise ValueError(f"input kind {kind.name!r} is already registered")
        at = len(self._kinds) if before is None else self._kinds.index(self.get(before))
        self._kinds.insert(at, kind)

    def get(self, name: str) -> InputKind:
        for kind in self._kinds:
            if kind.name == name:
                return kind
        raise KeyError(name)

    def detect(self, text: str, path: str = "") -> InputKind | None:
        """The first kind whose sniffer recognises ``text`` (read from ``path``), or ``None``."""
        try:
            return next((k for k in self._kinds if k.sniff(text, path)), None)
        finally:
            _DETECTED.clear()

    def kind_of(self, path: str | Path) -> InputKind | None:
        """The kind of the file at ``path`` (read as every input is: no FIFO hangs), or None."""
        return self.detect(read_text(path), str(path))

    def unknown(self, path: str) -> InputError:
        """The error for a file no kind recognises."""
        listed = "; ".join(dict.fromkeys(k.family or k.description for k in self._kinds))
        return InputError.at(path, None, f"not a file muceval knows; it reads: {listed}")

    def load(
        self,
        text: str,
        path: str,
        options: ReadOptions | None = None,
        *,
        accept: Sequence[InputKind] | None = None,
        purpose: str = "",
    ) -> tuple[InputKind, Loaded]:
        """Recognise and load a decoded text; ``purpose`` names the command to a refused kind."""
        kind = self.detect(text, path)
        if kind is None:
            raise self.unknown(path)
        if accept is not None and kind not in accept:
            wanted = "; ".join(k.description for k in accept)
            hint = _HINTS.get("modern" if kind.name in LAYOUTS else kind.name, "")
            raise InputError.at(
                path,
                None,
                f"a {kind.description} is not an input of {purpose or 'this command'}"
                f"{'; ' + hint if hint else ''}; it reads: {wanted}",
            )
        return kind, kind.load(text, path, options or ReadOptions())

    def read(
        self,
        path: str | Path,
        options: ReadOptions | None = None,
        *,
        accept: Sequence[InputKind] | None = None,
        purpose: str = "",
    ) -> tuple[InputKind, Loaded]:
        """Read, recognise and load the file at ``path`` (see :meth:`load`)."""
        return self.load(read_text(path), str(path), options, accept=accept, purpose=purpose)

    def scored_systems(
        self,
        paths: Sequence[str | Path],
        options: ReadOptions | None = None,
        *,
        summaries: bool = False,
        purpose: str = "",
    ) -> list[ScoredSystem]:
        """Every system of the scores files, in order (``summaries``: kinds with summary rows)."""
        options = options or ReadOptions()
        accept = [k for k in self._kinds if k.scores and (k.summaries or not summaries)]
        systems: list[ScoredSystem] = []
        with building():  # a report is a hundred thousand rows
            for path in paths:
                kind, loaded = self.read(path, options, accept=accept, purpose=purpose)
                if kind.scores is not None:  # always: only such kinds are accepted
                    systems.extend(kind.scores(loaded.value, options))
        return systems


_REPORT_HEADING = re.compile(r"^SLOT\s+POS ACT\|COR PAR INC\|", re.MULTILINE)
_LISP_FORM = re.compile(r"\(\s*(define-muc-configuration-options|define-muc-template-slots|setq)\b")
_TEMPLATE_LINE = re.compile(r"^\d+\.\s+\S", re.MULTILINE)


def _lisp_forms(text: str) -> set[str]:
    return {m.group(1) for m in _LISP_FORM.finditer(text)}


def _strip_lisp_comments(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(";"))


def _looks_like_report(text: str, path: str) -> bool:
    return (
        bool(_REPORT_HEADING.search(text))
        or first_line(text).startswith("Configuration:")
        or "* * * TOTAL SLOT SCORES * * *" in text
    )


# The sniffers are here, so that recognising a file imports no reader (formats.scores.csv).
SCORES_CSV_START = "format_version,system,scope,"


def _looks_like_unit_csv(text: str, path: str) -> bool:
    """True for a ``.csv`` file or a text whose first non-blank line starts ``system,unit``.

    >>> _looks_like_unit_csv("System, Unit, POS, ACT, COR, PAR\\n", "")
    True
    """
    return (path.lower().endswith(".csv")
            or first_line(text).replace(" ", "").lower().startswith("system,unit"))


def _load_templates(text: str, path: str, options: ReadOptions) -> Loaded:
    from muceval.formats.config import bundled_configuration
    from muceval.formats.muc.templates import parse_templates

    config = options.config if options.config is not None else bundled_configuration()
    result = parse_templates(text, config, path)
    templates = result.templates.templates
    return Loaded(result.templates, {
        "messages": len(result.templates.message_ids()),
        "templates": len(templates),
        "irrelevant templates": sum(1 for t in templates if t.irrelevant),
        "optional templates": sum(1 for t in templates if t.optional),
        "fills": sum(len(slot.fills) for t in templates for slot in t.slots),
    }, result.problems, result.warnings)  # fmt: skip


def _load_lisp_configuration(text: str, path: str, options: ReadOptions) -> Loaded:
    # A 1992 configuration names its slot file, looked for next to it on disk.
    # Validating a slot file reads it as the configuration it defines (1992 defaults).
    from muceval.formats.config import load_configuration

    return _configuration(load_configuration(path, slot_file_alone=True))


def _load_toml_configuration(text: str, path: str, options: ReadOptions) -> Loaded:
    from muceval.formats.config import parse_configuration_toml

    return _configuration(parse_configuration_toml(text, path))


def _configuration(config: Configuration) -> Loaded:
    return Loaded(config, {
        "slots": len(config.slots),
        "set-fill slots": sum(1 for s in config.slots if s.type is SlotType.SET),
        "string-fill slots": sum(1 for s in config.slots if s.type is SlotType.STRING),
        "premodifiers": len(config.string_premodifiers),
        "subtotal rows": len(config.subtotal_rows),
    })  # fmt: skip


def _load_history(text: str, path: str, options: ReadOptions) -> Loaded:
    from muceval.core.checks import unknown_history_slots
    from muceval.formats.config import bundled_configuration
    from muceval.formats.muc.history import parse_history

    history = parse_history(text, path)
    # Judgements for slots the configuration lacks (a typo) are never used.
    config = options.config if options.config is not None else bundled_configuration()
    judged = Counter(entry.judgement.value for _, _, _, entry in history.entries())
    counts = {"messages": len(history.messages), "judgements": judged.total(), **judged,
              "manual mappings": len(history.mappings())}
    return Loaded(history, counts, warnings=unknown_history_slots(history, config))


def _load_report(text: str, path: str, options: ReadOptions) -> Loaded:
    from muceval.formats.muc.reports import parse_report

    report = parse_report(text, path)
    return Loaded(report, {
        "messages": len({b.message_id for b in report.blocks}),
        "template pairs": len(report.blocks),
        "summary rows": len(report.summary),
    })  # fmt: skip


def _report_scores(report: ScoreReport, options: ReadOptions) -> tuple[ScoredSystem, ...]:
    from muceval.formats.scores.reports import report_system

    return (report_system(report, system_name(report.path), options.config),)


def _later(module: str, name: str) -> Callable[..., Any]:
    """``module.name``, imported when first called: a command imports only the readers of the
    kinds it meets (NumPy, the 1992 parsers)."""
    def call(*args: Any) -> Any:
        return getattr(importlib.import_module(module), name)(*args)

    return call


def _systems_loader(module: str, parse: str, unit: str) -> Callable[[str, str, ReadOptions], Loaded]:
    def load(text: str, path: str, options: ReadOptions) -> Loaded:
        systems = tuple(_later(module, parse)(text, path))
        units = {u for s in systems for u in s.units}
        return Loaded(systems, {"systems": len(systems), unit: len(units)})

    return load


_LISP_FAMILY = "1992 configuration or slot file (*.el)"
_MODERN_FAMILY = "modern MUC-4 JSON (GTT, GRIT, IterX) and its scores"


# The text the modern kinds last asked about, and its layout, worked out once for them all;
# Registry.detect forgets it, so that no text (hundreds of megabytes) outlives the question.
_DETECTED: list[tuple[str, str | None]] = []


def _modern_layout(text: str) -> str | None:
    if not (_DETECTED and _DETECTED[0][0] is text):
        _DETECTED[:] = [(text, detect_layout(text))]
    return _DETECTED[0][1]


def _modern_kind(layout: Layout) -> InputKind:
    def sniff(text: str, path: str) -> bool:
        return _modern_layout(text) == layout.name

    def load(text: str, path: str, options: ReadOptions) -> Loaded:
        return _load_modern(text, path, layout.name, options.schema)

    return InputKind(layout.name, layout.name, f"{layout.label} (modern MUC-4 JSON)", sniff,
                     load, family=_MODERN_FAMILY)


def _load_modern(text: str, path: str, layout: str, schema: str | None = None) -> Loaded:
    read = parse_modern(text, path, layout, schema=schema)
    templates = [t for d in read.documents for t in d.templates or ()]
    entities = sum(len(e) for t in templates for e in t.roles) + sum(
        len(e) for d in read.documents for e in d.extracts or ())
    counts = {"documents": len(read.documents)}
    if templates or read.documents and read.documents[0].templates is not None:
        counts["templates"] = len(templates)
    counts["entities"] = entities
    return Loaded(read, counts, warnings=tuple(
        Problem(path, note.line, f"document {note.docid}: {note.kind} ({note.example})")
        for note in read.notes))


def _load_modern_scores(text: str, path: str, options: ReadOptions) -> Loaded:
    doc = parse_json(text, path)
    results = doc.get("results") if isinstance(doc, dict) else None
    if not isinstance(results, list):
        raise InputError.at(path, None, "no results in this modern scores file")
    systems = {s.get("system") for r in results if isinstance(r, dict)
               for s in r.get("systems", ()) if isinstance(s, dict)}
    return Loaded(doc, {"scorers": len(results), "systems": len(systems)})


def _load_error_counts(text: str, path: str, options: ReadOptions) -> Loaded:
    from muceval.formats.error_counts import parse_error_counts

    counts = parse_error_counts(text, path)
    return Loaded(counts, {"systems": len(counts.systems), "documents": len(counts.documents)})


def _the_systems(systems: Sequence[ScoredSystem], options: ReadOptions) -> Sequence[ScoredSystem]:
    return systems


_MUCEVAL_JSON = "muceval JSON (score or errors --format json)"
_CSV, _UNITS = "muceval.formats.scores.csv", "muceval.formats.scores.unit_csv"

INPUTS = Registry([
    InputKind("scores-csv", "scores CSV", "muceval scores CSV (score --format csv)",
              lambda text, path: first_line(text).strip().startswith(SCORES_CSV_START),
              _systems_loader(_CSV, "parse_scores_csv", "messages"), _the_systems),
    InputKind("unit-csv", "unit tallies", "unit-tallies CSV (system,unit,POS,ACT,COR,PAR)",
              _looks_like_unit_csv, _systems_loader(_UNITS, "parse_unit_csv", "units"),
              _the_systems),
    *(_modern_kind(layout) for layout in REGISTRY),
    InputKind("modern-scores", "modern scores", "muceval modern scores JSON (score --metric "
              "gtt|ceaf-ree|ceaf-rme|all --format json)",
              lambda text, path: _later("muceval.formats.scores.modern",
                                        "looks_like_modern_scores")(text), _load_modern_scores,
              family=_MODERN_FAMILY),
    InputKind("error-analysis", "error analysis", "muceval error analysis JSON (errors "
              "--format json)", lambda text, path: _later(
                  "muceval.formats.error_counts", "looks_like_error_analysis")(text),
              _load_error_counts, family=_MUCEVAL_JSON),
    InputKind("scores-json", "scores JSON", "muceval scores JSON (score --format json)",
              lambda text, path: path.lower().endswith(".json") or text.lstrip().startswith("{"),
              _systems_loader("muceval.formats.scores.json", "parse_scores_json", "messages"),
              _the_systems, summaries=True, family=_MUCEVAL_JSON),
    InputKind("toml-configuration", "configuration", "muceval TOML configuration (*.toml)",
              lambda text, path: path.endswith(".toml"), _load_toml_configuration),
    InputKind("report-1992", "score report", "1992 score report",
              _looks_like_report, _load_report, _report_scores, summaries=True),
    InputKind("configuration-1992", "configuration", "1992 configuration (config-*.el)",
              lambda text, path: "define-muc-configuration-options" in _lisp_forms(text),
              _load_lisp_configuration, family=_LISP_FAMILY),
    InputKind("slots-1992", "slot configuration", "1992 slot file (slotconfig-*.el)",
              lambda text, path: "define-muc-template-slots" in _lisp_forms(text),
              _load_lisp_configuration, family=_LISP_FAMILY),
    InputKind("history", "history", "1992 history of judgements",
              lambda text, path: _strip_lisp_comments(text).lstrip().startswith("("),
              _load_history),
    InputKind("templates", "templates", "MUC template file (a key or a response)",
              lambda text, path: bool(_TEMPLATE_LINE.search(text)), _load_templates),
])  # fmt: skip
"""Every kind of file muceval reads, in the order they are tried."""


def rename_systems(systems: Sequence[ScoredSystem], names: Mapping[str, str]) -> list[ScoredSystem]:
    """``systems`` with the system of each file in ``names`` (path → name) renamed."""
    if not names:
        return list(systems)
    wanted = {os.path.realpath(path): name for path, name in names.items()}
    count = Counter(os.path.realpath(s.source) for s in systems)
    out = []
    for system in systems:
        real = os.path.realpath(system.source)
        name = wanted.get(real)
        if name is None:
            out.append(system)
            continue
        if count[real] > 1:
            raise UsageError(f"{system.source} holds {count[real]} systems; only a file of one "
                             "system can be renamed", parameter="names")
        summary = replace(system.summary, name=name) if system.summary is not None else None
        out.append(replace(system, name=name, summary=summary))
    return out


def load_inputs(paths: Sequence[str | Path], units: str = "same",
                names: Mapping[str, str] | None = None,
                level: str | None = None) -> UnitTallies:
    """Per-unit tallies (POS, ACT, COR, PAR) of every system in some scores files: the input
    of :func:`compare`. Units are sorted: results do not depend on file order.

    Parameters
    ----------
    paths : sequence of str or pathlib.Path
        Any mix of 1992 score reports (one system each, named by
        :func:`~muceval.formats.files.system_name`), muceval scores (JSON or CSV: every
        system in the file) and unit-tallies CSV (``system,unit,POS,ACT,COR,PAR``).
    units : {'same', 'intersection'}, default 'same'
        ``'same'``: the union of the systems' units, a missing unit counting as zeros (one
        with key fills is refused: another test set). ``'intersection'``: the shared units.
    names : mapping of str to str or None, default None
        New system names by file path (the file must hold one system).
    level : {'message', 'template', 'fill'} or None, default None
        The unit level the files must hold (None: any).

    Returns
    -------
    UnitTallies
        The counts, ``systems × units × (POS, ACT, COR, PAR)``, systems in file order.

    Raises
    ------
    UsageError
        If ``paths`` is empty, a renamed file holds several systems, or ``'intersection'``
        leaves no unit.
    ValueError
        If ``units`` is neither ``'same'`` nor ``'intersection'``.
    InputError
        If a file cannot be read, is not a scores file, or is malformed; if a system comes
        from two files, from another test set (``'same'``) or is of another unit level.

    Examples
    --------
    >>> import muceval, tempfile
    >>> from pathlib import Path
    >>> path = Path(tempfile.mkdtemp(), "tallies.csv")
    >>> _ = path.write_text("system,unit,POS,ACT,COR,PAR\\n"
    ...                     "A,m1,2,2,2,0\\nA,m2,2,2,1,0\\nB,m1,2,2,1,0\\nB,m2,2,1,0,0\\n")
    >>> tallies = muceval.load_inputs([path])
    >>> tallies.systems, tallies.units
    (('A', 'B'), ('m1', 'm2'))
    >>> tallies.totals("B").tolist()
    [4, 3, 1, 0]
    """
    if not paths:
        raise UsageError("no input files")
    systems = INPUTS.scored_systems(paths, purpose="the significance tests")
    return _tallies_at(rename_systems(systems, names or {}), units, level)


def _tallies_at(systems: Sequence[ScoredSystem], units: str, level: str | None) -> UnitTallies:
    """:func:`unit_tallies`, refusing systems whose units are not of ``level`` (if given)."""
    if level is not None:
        for system in systems:
            if system.unit_level not in (None, level):
                raise InputError.at(
                    system.source, None,
                    f"system {system.name!r} has {system.unit_level} units, not {level} units: "
                    f"score the responses with muceval score --unit {level} --format json")
    from muceval.core.systems import unit_tallies
    from muceval.core.units import UnitTallies

    tallies = unit_tallies(systems, units)
    if level is not None and tallies.level is None:
        tallies = UnitTallies(tallies.systems, tallies.units, tallies.counts, level)
    return tallies


def load_systems(
    paths: Sequence[str | Path], config: Configuration | None = None, units: str = "same",
    names: Mapping[str, str] | None = None, level: str | None = None,
) -> tuple[list[SystemScores], UnitTallies]:
    """Summaries and per-unit tallies of systems from their 1992 reports or muceval JSON scores.

    What ``muceval report`` reads; files without summary rows (CSV) are refused.

    Parameters
    ----------
    paths : sequence of str or pathlib.Path
        1992 score reports and muceval JSON scores, in any mix (as :func:`load_inputs`).
    config : muceval.core.model.Configuration or None, default None
        Tells subtotal rows from slot rows in 1992 reports (None: rows named ``...-total``).
    units, names, level
        As in :func:`load_inputs`.

    Returns
    -------
    systems : list of muceval.core.systems.SystemScores
        One summary per system, in file order.
    tallies : UnitTallies
        Their per-unit tallies, systems in the same order.

    Raises
    ------
    UsageError
        As :func:`load_inputs`.
    InputError
        As :func:`load_inputs`, or if a system has no summary.

    Examples
    --------
    Two systems of the bundled example, scored, written as 1992 reports and read back:

    >>> import muceval, tempfile
    >>> from importlib.resources import files
    >>> from pathlib import Path
    >>> example = files("muceval") / "data" / "example"
    >>> config = muceval.load_configuration(example / "config.toml")
    >>> session = muceval.score_files(config, example / "key.txt",
    ...                               [example / "alpha.txt", example / "gamma.txt"],
    ...                               history_path=example / "history.lisp")
    >>> folder = Path(tempfile.mkdtemp())
    >>> for name, pairs in session.systems.items():
    ...     _ = (folder / f"{name}.report").write_text(muceval.format_report(pairs, config))
    >>> systems, tallies = muceval.load_systems(
    ...     [folder / "alpha.report", folder / "gamma.report"], config)
    >>> [(s.name, round(s.all_templates.recall, 3)) for s in systems]
    [('alpha', 0.907), ('gamma', 0.4)]
    >>> len(tallies.units), tallies.level
    (10, 'message')
    """
    if not paths:
        raise UsageError("no input files")
    systems = rename_systems(INPUTS.scored_systems(
        paths, ReadOptions(config), summaries=True, purpose="muceval report"
    ), names or {})
    for system in systems:
        if system.summary is None:
            raise InputError.at(system.source, None, f"system {system.name!r} has no summary")
    return [s.summary for s in systems if s.summary is not None], _tallies_at(systems, units, level)
