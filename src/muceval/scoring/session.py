"""A scoring session: several systems scored against one key in a row, as an operator ran
the 1992 program (the answers given for one system serve the next ones)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from muceval.core.checks import unknown_history_slots
from muceval.core.heap import building
from muceval.core.model import (
    Alternatives,
    Configuration,
    History,
    ManualMappings,
    OptionalValue,
    TemplateFile,
    Value,
)
from muceval.core.processes import fork_safe, idle_cores, in_processes
from muceval.core.tallies import PairScore
from muceval.errors import InputError, Problem, UsageError
from muceval.formats.files import read_text, system_names
from muceval.formats.muc.history import parse_history, read_history
from muceval.formats.muc.mappings import read_mapping_file
from muceval.formats.muc.templates import parse_templates
from muceval.scoring.muc1992.judgements import NewJudgement
from muceval.scoring.muc1992.scorer import (
    Scorer,
    ScoringOptions,
    add_judgements,
)

if TYPE_CHECKING:
    from muceval.formats.muc.store import HistoryStore
    from muceval.scoring.alignment.audit import AlignmentAudit

__all__ = ["SessionRecord", "SessionResult", "audit_files", "check_pairing", "on_cluster",
           "read_template_file", "score_files", "score_systems"]


@dataclass(frozen=True)
class SessionRecord:
    """What a scoring session was made of (:attr:`SessionResult.record`)."""

    key: str
    configuration: str
    history: str | None
    responses: tuple[str, ...]
    options: ScoringOptions
    alignment: str
    manual_mappings: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        return {"key": self.key, "configuration": self.configuration, "history": self.history,
                "responses": list(self.responses), "query_pass": self.options.query_pass,
                "mapping": self.options.mapping, "alignment": self.alignment,
                "manual_mappings": list(self.manual_mappings),
                "unresolved": self.options.unresolved}


@dataclass(frozen=True)
class SessionResult:
    """The pair scores of every system (in the order given), the answers given on the way, the
    warnings of the session (pairing, history) and, apart, the readers' (often many per file),
    and how many questions no recorded answer settled."""

    systems: Mapping[str, tuple[PairScore, ...]]
    new_judgements: tuple[NewJudgement, ...] = field(default=())
    answers_file: str | None = None
    warnings: tuple[Problem, ...] = field(default=())
    file_warnings: tuple[Problem, ...] = field(default=())
    options: ScoringOptions | None = None
    unanswered: int = 0
    record: SessionRecord | None = None

    @property
    def settings(self) -> dict[str, object]:
        """:attr:`record` as JSON outputs record it (empty without one)."""
        return {} if self.record is None else self.record.to_json()

    @property
    def signature(self) -> str:
        """The one-line signature of :attr:`settings` (:func:`muceval.core.signature.signature`)."""
        from muceval.core.signature import signature

        return signature(self.settings)


def score_systems(
    config: Configuration,
    key: TemplateFile,
    responses: Mapping[str, TemplateFile],
    *,
    history: History | None = None,
    options: ScoringOptions | None = None,
    manual_mappings: Mapping[str, ManualMappings] | None = None,
    progress: Callable[[int, int], None] | None = None,
    allow_swapped: bool = False,
) -> SessionResult:
    """Score every response against ``key`` in one session, on templates already read.

    One :class:`Scorer` serves all systems, so an answer given for one system (through
    ``options.ask``) is used for the next ones (a system with manual mappings of its own gets
    a new scorer, which learns them through the history). :func:`score_files` reads the files.

    Parameters
    ----------
    responses : mapping of str to muceval.core.model.TemplateFile
        Each system's name and response templates, scored in this order.
    options : ScoringOptions or None, default None
        How to score; its own ``manual_mappings`` are not used.
    manual_mappings : mapping of str to mapping, or None, default None
        Per system name, its :attr:`ScoringOptions.manual_mappings`.
    progress : callable or None, default None
        Called as ``progress(done, total)`` after each system.
    allow_swapped : bool, default False
        Score a response that looks like a key, with a warning.

    Raises
    ------
    InputError
        If the key has no templates, or a response shares no message with it.

    Examples
    --------
    The key scored as a response gets full marks:

    >>> from importlib.resources import files
    >>> from muceval.formats.config import load_configuration
    >>> from muceval.formats.muc.templates import parse_templates
    >>> example = files("muceval") / "data" / "example"
    >>> config = load_configuration(example / "config.toml")
    >>> key = parse_templates((example / "key.txt").read_text(), config).templates
    >>> result = score_systems(config, key, {"key": key})
    >>> from muceval.core.tallies import summarize
    >>> total = summarize(result.systems["key"], config).all_templates.total
    >>> total.cor == total.pos == total.act
    True
    """
    options = options or ScoringOptions()
    manual_mappings = manual_mappings or {}
    warnings = _session_warnings(config, key, responses, history, allow_swapped)
    results: dict[str, tuple[PairScore, ...]] = {}
    new_judgements: list[NewJudgement] = []
    unanswered = 0
    scorer: Scorer | None = None
    scorer_mappings: ManualMappings | None = None
    for name, response in responses.items():
        mappings = manual_mappings.get(name)
        if scorer is None or mappings is not scorer_mappings:
            known = add_judgements(history, new_judgements) if new_judgements else history
            scorer = Scorer(config, known, replace(options, manual_mappings=mappings))
            scorer_mappings = mappings
        result = scorer.score(key, response)
        results[name] = result.pairs
        new_judgements.extend(result.new_judgements)
        unanswered += result.unanswered
        if progress is not None:
            progress(len(results), len(responses))
    return SessionResult(results, tuple(new_judgements), warnings=tuple(warnings),
                         unanswered=unanswered)


def _session_warnings(config: Configuration, key: TemplateFile,
                      responses: Mapping[str, TemplateFile], history: History | None,
                      allow_swapped: bool) -> list[Problem]:
    warnings = list(unknown_history_slots(history, config)) if history is not None else []
    warnings += [w for response in responses.values()
                 for w in check_pairing(key, response, allow_swapped)]
    return warnings


def check_pairing(key: TemplateFile, response: TemplateFile,
                  allow_swapped: bool = False) -> tuple[Problem, ...]:
    """Refuse a key with no templates, or a response for another test set (it would score 0
    without a word) or that looks swapped with the key; warn when in doubt.

    >>> from muceval.core.model import Template
    >>> key = TemplateFile("key", (Template("TST3-MUC4-0001", "1", False, ()),))
    >>> check_pairing(key, TemplateFile("sys", ()))[0].message
    'this response has no template: a system that answered nothing, every key template missing'
    >>> check_pairing(key, TemplateFile("tst4", (Template("TST4-MUC4-0001", "1", False, ()),)))
    Traceback (most recent call last):
    ...
    muceval.errors.InputError: tst4: no message of this response is in the key key (1 messages, \
e.g. TST3-MUC4-0001; the response has e.g. TST4-MUC4-0001): a response for another test set?
    """
    key_messages = {t.message_id for t in key.templates}
    if not key_messages:
        raise InputError.at(key.path, None, "the key has no templates: nothing to score against")
    messages = {t.message_id for t in response.templates}
    if not messages:
        return (Problem(response.path, None, "this response has no template: a system that "
                        "answered nothing, every key template missing"),)
    shared = messages & key_messages
    if not shared:
        raise InputError.at(
            response.path, None,
            f"no message of this response is in the key {key.path} ({len(key_messages)} "
            f"messages, e.g. {min(key_messages)}; the response has e.g. {min(messages)}): "
            "a response for another test set?")
    warnings = []
    if 2 * len(shared) < len(messages):
        warnings.append(Problem(
            response.path, None,
            f"only {len(shared)} of its {len(messages)} messages are in the key {key.path}: "
            "the others are scored as spurious"))
    if _key_marks(response) and not _key_marks(key):
        swapped = (f"this response has optional templates, '?' values or '/' alternatives and "
                   f"the key {key.path} has none: are the key and the response swapped?")
        if not allow_swapped and _key_marks(response, strong=True):
            raise InputError.at(response.path, None, swapped + " (scored anyway only with "
                                "--force; library: allow_swapped=True)")
        warnings.append(Problem(response.path, None, swapped))
    marked = [slot for t in response.templates for slot in t.slots
              if _holds(slot.fills, OptionalValue)]
    if marked:
        warnings.append(Problem(
            response.path, marked[0].line,
            f"{len(marked)} slot(s) of this response mark fills optional with '?', which is meant "
            "for keys: as in the 1992 program, a lone fill is compared without the marker (and "
            "is noncommittal against a blank key); among several, a marked fill equals no "
            "cross-reference, gets no automatic partial, and left over is never spurious "
            "(docs/fidelity.md)"))
    return tuple(warnings)


def _key_marks(templates: TemplateFile, strong: bool = False) -> bool:
    """Whether ``templates`` uses what keys use (``strong``: not the '?' values that some
    1992 systems wrote)."""
    marks = Alternatives if strong else OptionalValue | Alternatives
    for template in templates.templates:
        if template.optional:
            return True
        for slot in template.slots:
            if slot.fills and _holds(slot.fills, marks):
                return True
    return False


def _holds(fills: tuple[Value, ...], kind: Any) -> bool:
    # A loop, not any() over a generator: called for every slot of every file, most of
    # them blank or of one fill.
    for fill in fills:
        if isinstance(fill, kind):
            return True
    return False


def score_files(
    config: Configuration,
    key_path: str | Path,
    response_paths: Sequence[str | Path],
    *,
    options: ScoringOptions | None = None,
    history_path: str | Path | None = None,
    mapping_paths: Sequence[str | Path] | Mapping[str, str | Path] = (),
    save_history: str | Path | None = None,
    names: Mapping[str, str] | None = None,
    progress: Callable[[int, int], None] | None = None,
    alignment: str | None = None,
    scheduler: str | None = None,
    allow_swapped: bool = False,
) -> SessionResult:
    """Read the key, the responses and the history, and score every response in one session.

    Parameters
    ----------
    options : ScoringOptions or None, default None
        How to score; its ``alignment`` hook is set from ``alignment``, and its
        ``on_judgement`` is called after each answer is saved.
    history_path : str or pathlib.Path or None, default None
        A 1992 history of judgements (with ``'ask'``, created if it does not exist).
    mapping_paths : sequence of paths, or mapping of system name to path, default ()
        Manual mapping files: one for all responses, one per response, or by system name.
    save_history : str or pathlib.Path or None, default None
        With ``'ask'``: a new file for the history and its answers, instead of ``history_path``.
    names : mapping of str to str or None, default None
        System names by response path; by default, the file's name (``alpha.txt``: ``alpha``).
    progress : callable or None, default None
        Called as ``progress(done, total)`` after each system.
    alignment : str or None, default None
        The configuration's alignment criterion to map with; None: its default.
    scheduler : str or None, default None
        A Dask scheduler address or ``local:N``: one task per system there (not with ``'ask'``).
    allow_swapped : bool, default False
        As in :func:`check_pairing`: score a response that looks like a key, with a warning.

    Raises
    ------
    InputError
        If a file is unreadable or malformed, the key is empty, or a response has no key message.
    UsageError
        If options cannot work together, a criterion is unknown, or two systems share a name.
    muceval.formats.muc.store.HistorySaveError
        If an answer cannot be saved (an :class:`OutputError` holding every answer so far).

    Examples
    --------
    >>> import importlib.resources, muceval
    >>> example = importlib.resources.files("muceval") / "data" / "example"
    >>> config = muceval.load_configuration(example / "config.toml")
    >>> result = muceval.score_files(config, example / "key.txt", [example / "alpha.txt",
    ...     example / "gamma.txt"], history_path=example / "history.lisp")
    >>> {name: muceval.summarize(pairs, config).all_templates.total.cor
    ...  for name, pairs in result.systems.items()}
    {'alpha': 81, 'gamma': 29}
    """
    paths = [str(p) for p in response_paths]
    chosen = options or ScoringOptions()
    _check_request(paths, () if isinstance(mapping_paths, Mapping) else mapping_paths, chosen,
                   history_path, save_history, scheduler)
    # Not while an operator answers, or a cluster scores: those sessions last.
    with building(chosen.unresolved != "ask" and scheduler is None):
        if (scheduler is None and chosen.unresolved != "ask" and chosen.on_judgement is None
                and chosen.on_reuse is None and len(paths) > 1):
            # Without questions to ask, systems do not depend on each other: on idle cores,
            # a forked process each reads and scores a share of them.
            forked = _score_forked(config, key_path, paths, chosen, history_path,
                                   mapping_paths, names, progress, alignment, allow_swapped,
                                   min(len(paths), idle_cores() if chosen.jobs is None
                                       else chosen.jobs if fork_safe() else 1))
            if forked is not None:
                return forked
        return _score_files(config, key_path, paths, chosen, history_path, mapping_paths,
                            save_history, names, progress, alignment, scheduler, allow_swapped)


def _score_files(config: Configuration, key_path: str | Path, paths: list[str],
                 options: ScoringOptions, history_path: str | Path | None,
                 mapping_paths: Sequence[str | Path] | Mapping[str, str | Path],
                 save_history: str | Path | None, names: Mapping[str, str] | None,
                 progress: Callable[[int, int], None] | None, alignment: str | None,
                 scheduler: str | None, allow_swapped: bool) -> SessionResult:
    chosen = options
    answers_file = str(save_history or history_path) if chosen.unresolved == "ask" else None
    file_warnings: list[Problem] = []
    key, responses = read_systems(config, key_path, paths, names, file_warnings)
    for response in responses.values():  # refused before any scoring
        check_pairing(key, response, allow_swapped)
    per_system = _read_mappings(mapping_paths, list(responses))
    with contextlib.ExitStack() as held:
        store = None
        if answers_file is not None:
            # Locked before the history is read: a second session would otherwise
            # start from a copy that misses this session's answers.
            from muceval.formats.muc.store import HistoryStore  # with its lock: only to ask

            store = held.enter_context(HistoryStore(answers_file, None))
        history = text = None
        if history_path is not None and (store is None or Path(history_path).exists()):
            text = read_text(history_path)
            history = parse_history(text, str(history_path))
        if store is not None:
            if history is not None:
                store.start_from(history, text)
            chosen = replace(chosen, on_judgement=_recorder(store, chosen.on_judgement))
        chosen = _with_criterion(config, chosen, alignment, file_warnings)
        if scheduler is not None:
            # Without questions, systems do not depend on each other: one task per system.
            with on_cluster(scheduler) as (client, distributed):
                pending = submit_systems(client, config, key, responses, history, chosen,
                                         per_system, allow_swapped)
                result = gather_systems(distributed, pending, progress)
        else:
            result = score_systems(config, key, responses, history=history, options=chosen,
                                   manual_mappings=per_system, progress=progress,
                                   allow_swapped=allow_swapped)
    return SessionResult(result.systems, result.new_judgements, answers_file, result.warnings,
                         tuple(file_warnings), options, unanswered=result.unanswered,
                         record=_record(config, key_path, paths, history_path, chosen,
                                        alignment, mapping_paths))


def _score_forked(config: Configuration, key_path: str | Path, paths: list[str],
                  options: ScoringOptions, history_path: str | Path | None,
                  mapping_paths: Sequence[str | Path] | Mapping[str, str | Path],
                  names: Mapping[str, str] | None,
                  progress: Callable[[int, int], None] | None, alignment: str | None,
                  allow_swapped: bool, jobs: int) -> SessionResult | None:
    """:func:`_score_files` in batch mode, each of ``jobs`` processes reading and scoring every
    ``jobs``-th system; None for one job or when anything is wrong (reading the files in one
    process, in their order, then meets the same error first)."""
    if jobs < 2:
        return None
    names_list = system_names(paths, names)
    hook_warnings: list[Problem] = []
    try:
        key_warnings: list[Problem] = []
        key = read_template_file(key_path, config, key_warnings)
        per_system = _read_mappings(mapping_paths, names_list)
        history = None if history_path is None else read_history(history_path)
        chosen = _with_criterion(config, options, alignment, hook_warnings)

        def share(first: int) -> tuple[list[tuple[Problem, ...]], list[tuple[Problem, ...]],
                                       SessionResult]:
            read: list[tuple[Problem, ...]] = []
            responses = {}
            for n in range(first, len(paths), jobs):
                warnings: list[Problem] = []
                responses[names_list[n]] = read_template_file(paths[n], config, warnings)
                read.append(tuple(warnings))
            pairing = [check_pairing(key, response, allow_swapped)
                       for response in responses.values()]
            done = score_systems(config, key, responses, history=history, options=chosen,
                                 manual_mappings=per_system, allow_swapped=allow_swapped,
                                 # The other processes keep pace with this one's share.
                                 progress=None if first or progress is None
                                 else lambda n, _: progress(min(n * jobs, len(paths) - 1),
                                                            len(paths)))
            return read, pairing, done

        shares = in_processes(share, range(jobs))
    except (InputError, UsageError):
        return None
    if shares is None or any(done.new_judgements for _, _, done in shares):
        return None
    order = [n for first in range(jobs) for n in range(first, len(paths), jobs)]
    # Per system, in the order of the files: what reading it and pairing it with the key noted.
    noted = dict(zip(order, (w for reads, pairings, _ in shares
                             for w in zip(reads, pairings, strict=True)), strict=True))
    systems = {name: pairs for _, _, done in shares for name, pairs in done.systems.items()}
    if progress is not None:
        progress(len(paths), len(paths))
    history_warnings = unknown_history_slots(history, config) if history is not None else ()
    return SessionResult(
        {name: systems[name] for name in names_list}, (), None,
        (*history_warnings, *(w for n in range(len(paths)) for w in noted[n][1])),
        (*key_warnings, *(w for n in range(len(paths)) for w in noted[n][0]), *hook_warnings),
        options, unanswered=sum(done.unanswered for _, _, done in shares),
        record=_record(config, key_path, paths, history_path, chosen, alignment, mapping_paths))


def _record(config: Configuration, key_path: str | Path, paths: list[str],
            history_path: str | Path | None, options: ScoringOptions, alignment: str | None,
            mapping_paths: Sequence[str | Path] | Mapping[str, str | Path]) -> SessionRecord:
    return SessionRecord(
        str(key_path), config.source or "muc4",
        None if history_path is None else str(history_path), tuple(paths), options,
        alignment or (config.alignment.default if config.alignment else "1992"),
        tuple(str(p) for p in (mapping_paths.values() if isinstance(mapping_paths, Mapping)
                               else mapping_paths)))


def _read_mappings(mapping_paths: Sequence[str | Path] | Mapping[str, str | Path],
                   names: Sequence[str]) -> dict[str, ManualMappings]:
    """Each system's manual mappings: by system name, one file for all, or one per system."""
    if isinstance(mapping_paths, Mapping):
        return {name: read_mapping_file(p) for name, p in mapping_paths.items()}
    mappings = [read_mapping_file(p) for p in mapping_paths]
    if not mappings:
        return {}
    return {name: mappings[0] if len(mappings) == 1 else mappings[n]
            for n, name in enumerate(names)}


def audit_files(
    config: Configuration,
    key_path: str | Path,
    response_paths: Sequence[str | Path],
    *,
    history_path: str | Path | None = None,
    names: Mapping[str, str] | None = None,
    criteria: Sequence[str] | None = None,
    pairs: bool = False,
    removal: bool = False,
    calibrate: bool = False,
    entropy: bool = False,
    query_pass: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[AlignmentAudit, tuple[Problem, ...]]:
    """Read the files and audit the alignment criteria of ``config``
    (:func:`~muceval.scoring.alignment.audit.audit_alignment`); with the readers' warnings."""
    from muceval.scoring.alignment.audit import audit_alignment

    warnings: list[Problem] = []
    key, responses = read_systems(config, key_path, response_paths, names, warnings)
    for response in responses.values():
        warnings.extend(check_pairing(key, response))
    history = None if history_path is None else read_history(history_path)
    audit = audit_alignment(config, key, responses, history=history, criteria=criteria,
                            chance_keys=_chance_keys(config, warnings), pairs=pairs,
                            removal=removal, calibrate=calibrate, entropy=entropy,
                            query_pass=query_pass, progress=progress)
    return audit, tuple(warnings)


def _chance_keys(config: Configuration, warnings: list[Problem]) -> list[TemplateFile]:
    """The key files value chances come from (``[alignment.chance] source = "files"``), given
    relative to the configuration."""
    settings = config.alignment
    if settings is None or settings.chance.source != "files":
        return []
    base = Path(config.source).parent if config.source else Path()
    return [read_template_file(base / k, config, warnings) for k in settings.chance.keys]


def _with_criterion(config: Configuration, options: ScoringOptions, name: str | None,
                    warnings: list[Problem]) -> ScoringOptions:
    """``options`` with the hook of criterion ``name`` (else the configuration's default, or
    the caller's own hook); none for the 1992 mapping, which keeps the 1992 code path."""
    from muceval.core.alignment import AlignmentSettings
    from muceval.scoring.alignment.criteria import CriterionHook

    if name is None and options.alignment is not None:
        return options
    settings = config.alignment or AlignmentSettings()
    criterion = settings.criterion(name or settings.default)
    if criterion.is_1992:
        return replace(options, alignment=None)
    if options.mapping != "greedy":
        raise UsageError(f"{options.mapping!r} and the alignment criterion {criterion.name!r} "
                         "both choose the mapping: a criterion says greedy or optimal itself",
                         parameter="mapping")
    return replace(options, alignment=CriterionHook(criterion, config, settings.chance,
                                                    _chance_keys(config, warnings)))


def read_template_file(path: str | Path, config: Configuration,
                       warnings: list[Problem]) -> TemplateFile:
    """A key or response file: its problems refused, its warnings added to ``warnings``."""
    text = read_text(path)
    parsed = parse_templates(text, config, str(path))
    if parsed.problems:
        if not parsed.templates.templates:
            # Perhaps a file of another kind: say what it is.
            from muceval.formats.registry import wrong_kind

            error = wrong_kind(text, str(path), "a MUC template file", {"templates"})
            if error is not None:
                raise error
        raise InputError(parsed.problems)
    warnings.extend(parsed.warnings)
    return parsed.templates


def read_systems(config: Configuration, key_path: str | Path,
                 response_paths: Sequence[str | Path], names: Mapping[str, str] | None,
                 warnings: list[Problem]) -> tuple[TemplateFile, dict[str, TemplateFile]]:
    """The key, and each system's response file by system name (:func:`read_template_file`)."""
    paths = [str(p) for p in response_paths]
    chosen = system_names(paths, names)  # a clash of names is refused before any file is read
    key = read_template_file(key_path, config, warnings)
    return key, {name: read_template_file(path, config, warnings)
                 for name, path in zip(chosen, paths, strict=True)}


def _recorder(store: HistoryStore, then: Callable[[NewJudgement], None] | None,
              ) -> Callable[[NewJudgement], None]:
    """Saves each answer at once, then tells the caller's own ``on_judgement``."""
    def record(judgement: NewJudgement) -> None:
        store.record(judgement.message_id, judgement.template_id, judgement.slot_id,
                     judgement.entry)
        if then is not None:
            then(judgement)

    return record


def _score_one(config: Configuration, key: TemplateFile, response: TemplateFile,
               history: History | None, options: ScoringOptions,
               ) -> tuple[tuple[PairScore, ...], int]:
    result = Scorer(config, history, options).score(key, response)
    return result.pairs, result.unanswered


@contextlib.contextmanager
def on_cluster(scheduler: str) -> Iterator[tuple[Any, Any]]:
    """A client of the Dask ``scheduler`` (an address or ``local:N``), and dask.distributed."""
    from muceval.cluster import connect, distributed_module, parse_address

    distributed = distributed_module()
    with connect(*parse_address(scheduler)) as client:
        yield client, distributed


@dataclass(frozen=True)
class SubmittedSystems:
    """One test set on a Dask cluster; ``shared``, the data sent once, is held until every
    result is in."""

    futures: dict[Any, str]
    order: list[str]
    warnings: list[Problem]
    shared: list[Any]


def submit_systems(client: Any, config: Configuration, key: TemplateFile,
                   responses: Mapping[str, TemplateFile], history: History | None,
                   options: ScoringOptions,
                   manual: Mapping[str, ManualMappings],
                   allow_swapped: bool = False) -> SubmittedSystems:
    """Send one test set to a Dask ``client``: its key, configuration and history once, then
    one task per system."""
    warnings = _session_warnings(config, key, responses, history, allow_swapped)
    # Keys of their own (hash=False), not keys named by content: two test sets with the same key
    # file would otherwise share a key, and the release of the first one's copy could reach the
    # scheduler just as the second asks for it ("lost dependencies").
    shared = client.scatter([config, key, history], broadcast=True, hash=False)
    futures = {client.submit(_score_one, shared[0], shared[1], response, shared[2],
                             replace(options, manual_mappings=manual.get(name)), retries=3,
                             pure=False): name
               for name, response in responses.items()}
    return SubmittedSystems(futures, list(responses), warnings, shared)


def gather_systems(distributed: Any, pending: SubmittedSystems,
                   progress: Callable[[int, int], None] | None) -> SessionResult:
    """The results of :func:`submit_systems` as they finish, in the systems' order."""
    results: dict[str, tuple[PairScore, ...]] = {}
    unanswered = 0
    for future in distributed.as_completed(pending.futures):
        results[pending.futures[future]], questions = future.result()
        unanswered += questions
        if progress is not None:
            progress(len(results), len(pending.futures))
    return SessionResult({name: results[name] for name in pending.order}, (),
                         warnings=tuple(pending.warnings), unanswered=unanswered)


def _check_request(
    paths: Sequence[str],
    mapping_paths: Sequence[str | Path],
    options: ScoringOptions,
    history_path: str | Path | None,
    save_history: str | Path | None,
    scheduler: str | None = None,
) -> None:
    if scheduler is not None and options.unresolved == "ask":
        raise UsageError("'ask' scores the systems in order (each answer serves the next ones): "
                         "not on a scheduler", parameter="unresolved")
    if len(mapping_paths) not in (0, 1, len(paths)):
        raise UsageError(
            f"given {len(mapping_paths)} times for {len(paths)} response files: give it once "
            "for all, or once per response file", parameter="mapping_paths")
    if save_history is not None and options.unresolved != "ask":
        raise UsageError("only makes sense when unresolved questions are asked ('ask')",
                         parameter="save_history")
    if (save_history is not None and Path(save_history).exists()
            and not (history_path is not None and Path(history_path).exists()
                     and Path(save_history).samefile(history_path))):
        raise UsageError(
            f"{save_history} exists: it would be replaced by the history's judgements and the "
            "answers of this session; to continue it, give it as the history",
            parameter="save_history")
    # ScoringOptions refuses 'ask' without its callback.
    if options.unresolved == "ask" and history_path is None and save_history is None:
        raise UsageError(
            "'ask' stores every answer in a history file: give a history (created if it "
            "does not exist) or a file to save it to", parameter="history_path")
