"""Scoring modern MUC-4 predictions as the official scorers of GTT, GRIT and IterX do.

Input the originals accept but that can only be a mistake is refused (``compat=True``
reproduces the original behaviour where there is one).

>>> from muceval.core.modern import ModernDocument, ModernFile, ModernTemplate
>>> t = ModernTemplate("attack", ((("shining path",),), (), (), (), ()))
>>> gold = ModernFile("gold", "gtt-gold", (ModernDocument("TST3-MUC4-0001", (t,)),))
>>> pred = ModernFile("pred", "gtt-pred", (ModernDocument("TST3-MUC4-0001", (t,)),))
>>> score_modern(gold, pred, ModernOptions("gtt")).overall.f1
1.0
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from muceval.core.modern import ROLES, ModernDocument, ModernFile, ParseNote, role_union
from muceval.core.schema import MUC4, Schema, schema_named
from muceval.core.units import RatioTallies
from muceval.errors import InputError, Problem, UsageError
from muceval.formats.modern.answers import unread_answers
from muceval.scoring.modern import gtt
from muceval.scoring.modern.counts import Counts, normaliser, normalize
from muceval.scoring.scorers import EVENT_N, MODERN_OPTIONS, SCORERS, EventN, modern_scorers

__all__ = ["EVENT_N", "EventN", "Counts", "DocumentCounts", "ModernOptions", "ModernScores",
           "normalize", "ratio_tallies", "score_modern"]


@dataclass(frozen=True)
class ModernOptions:
    """A modern MUC-4 scorer and its options, as :func:`score_modern` takes them.

    Each reproduces an official scorer (``reproduces`` names it). An option the scorer does
    not take is refused when made rather than ignored.

    Attributes
    ----------
    metric : {'gtt', 'ceaf-ree', 'ceaf-rme'}
        GTT's template F1, GRIT's CEAF-REE (entities aligned per role) or IterX's CEAF-RME
        (templates aligned, mentions typed by incident).
    phi : str or None, default None
        The entity similarity of the CEAF scorers (None: the scorer's first).
        ``'ceaf-ree'``: ``'strict'`` or ``'prop'``; ``'ceaf-rme'``: ``'subset'``, ``'phi3'``
        (shared mentions, as IterX's code counts) or ``'phi3-entities'`` (as IterX's files count).
    event_n : {'1', '2', '3', '4', '>=2'} or None, default None
        For ``'gtt'``: score only the documents with this many gold templates (``'4'``: or
        more), as listed by ``event_n_file`` or else counted by muceval (some differ from GTT's).
    ignore_empty_docs : bool, default False
        For ``'ceaf-rme'``: leave out documents whose gold lists no template, as IterX can.
    compat : bool, default False
        Reproduce the originals where they err: accept predicted entities without mentions,
        templates without an incident type, and documents not in the gold.
    event_n_file : str or None, default None
        For ``'gtt'`` with ``event_n``: GTT's buckets file, ``docids_event_n.json``.

    Raises
    ------
    UsageError
        If an option is not one of its choices, is missing or belongs to another scorer.

    Examples
    --------
    >>> ModernOptions("ceaf-rme").phi
    'subset'
    >>> ModernOptions("gtt", phi="strict")
    Traceback (most recent call last):
    ...
    muceval.errors.UsageError: phi: goes with ceaf-ree, ceaf-rme
    """

    metric: str
    phi: str | None = None
    event_n: EventN | None = None
    ignore_empty_docs: bool = False
    compat: bool = False
    event_n_file: str | None = None

    def __post_init__(self) -> None:
        modern = modern_scorers()
        if self.metric not in modern:
            raise UsageError(f"{self.metric!r}: choose from {', '.join(modern)}",
                             parameter="metric")
        spec = SCORERS[self.metric]
        if spec.similarities:
            phi = self.phi or spec.similarities[0]
            if phi not in spec.similarities:
                raise UsageError(f"{phi!r} does not go with {self.metric}; choose from "
                                 f"{', '.join(spec.similarities)}", parameter="phi")
            object.__setattr__(self, "phi", phi)
        elif self.phi is not None:
            raise UsageError("goes with " + ", ".join(m for m in modern
                                                      if SCORERS[m].similarities),
                             parameter="phi")
        self._check_event_n()
        for option in MODERN_OPTIONS:
            if getattr(self, option) not in (None, False) and option not in spec.options:
                raise UsageError("goes with " + ", ".join(
                    m for m in modern if option in SCORERS[m].options), parameter=option)

    def _check_event_n(self) -> None:
        if self.event_n is not None and self.event_n not in EVENT_N:
            raise UsageError(f"{self.event_n!r}: choose from {', '.join(EVENT_N)}",
                             parameter="event_n")
        if self.event_n_file is None:
            return
        if isinstance(self.event_n_file, os.PathLike):
            object.__setattr__(self, "event_n_file", os.fspath(self.event_n_file))
        if not isinstance(self.event_n_file, str) or not self.event_n_file:
            raise UsageError(f"{self.event_n_file!r}: the path of a buckets file (GTT's "
                             "docids_event_n.json) expected", parameter="event_n_file")
        if self.event_n is None and self.metric == "gtt":
            raise UsageError("needs the bucket to score (event_n: 1, 2, 3, 4 or >=2)",
                             parameter="event_n_file")

    @property
    def reproduces(self) -> str:
        return SCORERS[self.metric].reproduces

    @property
    def label(self) -> str:
        """The scorer and its similarity, as pages and tables name it.

        >>> ModernOptions("ceaf-rme", "phi3").label, ModernOptions("gtt").label
        ('ceaf-rme (phi3)', 'gtt')
        """
        return self.metric + (f" ({self.phi})" if self.phi else "")

    @property
    def event_n_buckets(self) -> str | None:
        """Where the documents of ``event_n`` come from, in words.

        >>> ModernOptions("gtt", event_n="2").event_n_buckets
        "counted from the gold templates (muceval's choice; GTT reads docids_event_n.json)"
        """
        if self.event_n is None:
            return None
        if self.event_n_file is not None:
            return f"read from {self.event_n_file}, as GTT does"
        return "counted from the gold templates (muceval's choice; GTT reads docids_event_n.json)"

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "phi": self.phi, "event_n": self.event_n,
                "event_n_file": self.event_n_file, "event_n_buckets": self.event_n_buckets,
                "ignore_empty_docs": self.ignore_empty_docs, "compat": self.compat,
                "reproduces": self.reproduces}


@dataclass(frozen=True)
class DocumentCounts:
    """The counts of one document, overall and per field where the metric has them."""

    docid: str
    overall: Counts
    roles: Mapping[str, Counts] = field(default_factory=dict)
    kind: str | None = None  # the type of its gold templates, by which ModernScores.types sums


@dataclass(frozen=True)
class ModernScores:
    """One system's scores under one metric: per document, summed on demand."""

    system: str
    options: ModernOptions
    documents: tuple[DocumentCounts, ...]
    warnings: tuple[Problem, ...] = ()
    parse: str | None = None  # how raw answers were read (None: not raw answers)
    notes: tuple[ParseNote, ...] = ()
    strict: Counts | None = None  # read 'lenient': the overall counts when read 'strict'

    def note_counts(self) -> dict[str, int]:
        """How many notes of each kind, most frequent first."""
        counts = Counter(note.kind for note in self.notes)
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

    def parse_to_dict(self, examples: int = 3) -> dict[str, Any] | None:
        """How the answers were read, as JSON."""
        if self.parse is None:
            return None
        return {"mode": self.parse,
                "notes": {kind: {"count": n, "examples": [
                    note.to_dict() for note in self.notes if note.kind == kind][:examples]}
                    for kind, n in self.note_counts().items()},
                "strict": None if self.strict is None else self.strict.to_dict()}

    @property
    def overall(self) -> Counts:
        return sum((d.overall for d in self.documents), Counts())

    @property
    def roles(self) -> dict[str, Counts]:
        return _summed(item for d in self.documents for item in d.roles.items())

    @property
    def types(self) -> dict[str, Counts]:
        """The counts summed per type of the documents' gold templates, alphabetically."""
        return dict(sorted(_summed((d.kind or "(none)", d.overall)
                                   for d in self.documents).items()))


def _summed(items: Iterable[tuple[str, Counts]]) -> dict[str, Counts]:
    out: dict[str, Counts] = {}
    for key, counts in items:
        out[key] = out.get(key, Counts()) + counts
    return out


def score_modern(gold: ModernFile, pred: ModernFile, options: ModernOptions,
                 system: str | None = None) -> ModernScores:
    """Score one system's predictions against the gold, as the chosen official scorer does.

    Every metric counts per document ``(p_num, p_den, r_num, r_den)``: the units of
    :func:`compare_ratios`. ``gold`` and ``pred`` are read by :func:`read_modern`; ``system``
    names the system (None: the path of ``pred``).

    Raises
    ------
    InputError
        If ``gold`` is not a gold file or ``pred`` is one; if the metric needs templates a file
        lacks; without ``compat``, for what ``compat`` accepts.

    Examples
    --------
    >>> import muceval
    >>> from muceval.core.modern import ModernDocument, ModernFile, ModernTemplate
    >>> gold_template = ModernTemplate("attack", ((), (("shining path",),), (),
    ...                                           (("mayor",), ("driver",)), ()))
    >>> predicted = ModernTemplate("attack", ((), (("Shining Path",),), (), (("the mayor",),), ()))
    >>> gold = ModernFile("gold", "gtt-gold", (ModernDocument("TST3-MUC4-0001", (gold_template,)),))
    >>> pred = ModernFile("pred", "gtt-pred", (ModernDocument("TST3-MUC4-0001", (predicted,)),))
    >>> scores = muceval.score_modern(gold, pred, muceval.ModernOptions("gtt"), system="mine")
    >>> scores.overall
    Counts(p_num=3, p_den=3, r_num=3, r_den=4)
    >>> round(scores.overall.f1, 4), scores.roles["Victim"].recall
    (0.8571, 0.5)
    """
    schema = _schema(gold, pred, options)
    warnings = _check(gold, pred, options, schema)
    spec = SCORERS[options.metric]
    extra = {"schema": schema} if spec.schemas is None else {}
    golds = gold.by_id()
    documents = [replace(d, kind=_kind(golds.get(d.docid))) for d in
                 spec.scorer()(golds, _prepared(pred, schema).by_id(), options, **extra)]
    return ModernScores(system or pred.path, options, tuple(documents), tuple(warnings),
                        pred.parse, pred.notes)


def _kind(document: ModernDocument | None) -> str:
    """The type of a gold document's templates, for the per-type sums."""
    kinds = {t.incident_type or "" for t in (document.templates or () if document else ())}
    if len(kinds) > 1:
        return "(mixed)"
    return kinds.pop() if kinds else "(none)"


def _prepared(pred: ModernFile, schema: Schema) -> ModernFile:
    """The predictions as every scorer of the schema takes them (FAMuS: grouped by substring)."""
    if schema.group_predictions != "substring":
        return pred
    from muceval.scoring.modern import ceaf  # SciPy, imported by the scorers that align

    return replace(pred, documents=tuple(
        replace(d, templates=tuple(ceaf.grouped(t) for t in d.templates))
        if d.templates is not None else d for d in pred.documents))


def _schema(gold: ModernFile, pred: ModernFile, options: ModernOptions) -> Schema:
    """The gold's schema, which the predictions and the scorer must take."""
    schema = schema_named(gold.schema)
    if pred.schema != gold.schema:
        raise InputError.at(pred.path, None, f"predictions of schema {pred.schema} against a "
                            f"gold of schema {gold.schema} ({gold.path})")
    spec = SCORERS[options.metric]
    if spec.schemas is not None and schema.name not in spec.schemas:
        raise UsageError(f"{options.metric} scores {', '.join(sorted(spec.schemas))} "
                         f"templates; {gold.path} is {schema.name}: use "
                         + ", ".join(m for m in modern_scorers()
                                     if SCORERS[m].schemas is None), parameter="metric")
    return schema


def _check(gold: ModernFile, pred: ModernFile, options: ModernOptions,
           schema: Schema) -> list[Problem]:
    """Refuse what can only be a mistake; return what the user should know."""
    if not gold.gold:
        raise InputError.at(gold.path, None, f"not a gold file ({gold.layout}): give the gold "
                            "file as --key and predictions as the other arguments")
    if pred.gold:
        raise InputError.at(pred.path, None, f"a gold file ({pred.layout}), given as predictions")
    needs_templates = SCORERS[options.metric].needs_templates
    if needs_templates and any(d.templates is None for d in gold.documents):
        raise InputError.at(gold.path, None, f"{options.metric} needs gold templates; "
                            f"{gold.layout} has per-role extracts only (use ceaf-ree)")
    if needs_templates and any(d.templates is None for d in pred.documents):
        raise InputError.at(pred.path, None, f"{options.metric} scores templates; these are "
                            f"per-role extracts ({pred.layout}): use ceaf-ree")
    known = gold.by_id()
    unknown = [d for d in pred.documents if d.docid not in known]
    if unknown and not options.compat:
        shown = ", ".join(d.docid for d in unknown[:3]) + (", ..." if len(unknown) > 3 else "")
        raise InputError.at(pred.path, unknown[0].line, f"{len(unknown)} document(s) not in the "
                            f"gold {gold.path}: {shown} (predictions for another test set?)")
    # --compat reproduces GTT's full credit for an empty entity or type; GRIT's scorer fails on
    # an entity without mentions (a division by zero), so under ceaf-ree there is nothing to
    # reproduce and it stays refused.
    warnings = [] if options.compat and options.metric != "ceaf-ree" else \
        _refuse_empty(pred, None if schema.normalisation == "none"
                      else normaliser(schema.normalisation))
    return warnings + unpredicted(gold, pred, "scored as predicting nothing")


def unpredicted(gold: ModernFile, pred: ModernFile, outcome: str) -> list[Problem]:
    """Warnings of unread answers, then of gold documents without a prediction."""
    unread = unread_answers(pred, outcome)
    warnings = [] if unread is None else [unread]
    predicted = pred.by_id()
    missing = [d.docid for d in gold.documents if d.docid not in predicted]
    if missing:
        warnings.append(Problem(pred.path, None, f"{len(missing)} gold document(s) have no "
                                f"prediction (e.g. {missing[0]}): {outcome}"))
    return warnings


def _refuse_empty(pred: ModernFile, norm: Callable[[str], str] | None) -> list[Problem]:
    """Refuse entities without mentions and templates without an incident type; warn of
    mentions that normalise to nothing (``norm`` None: as written, where "" matches "")."""
    blank: list[str] = []
    for document in pred.documents:
        for n, template in enumerate(document.templates or (), start=1):
            if template.incident_type is None or not template.incident_type.strip():
                raise InputError.at(pred.path, document.line, f"document {document.docid}, "
                                    f"template {n}: no incident type (the original GTT scorer "
                                    "gives it full credit; --compat reproduces that)")
            blank += _empty_entities(pred.path, document, template.named_roles(),
                                     f"template {n}, ", norm)
        if document.extracts is not None:
            blank += _empty_entities(pred.path, document,
                                     tuple(zip(ROLES, document.extracts, strict=True)), "", norm)
    if not blank:
        return []
    return [Problem(pred.path, None, f"{len(blank)} predicted mention(s) normalise to nothing "
                    f"and match no gold mention (first: {blank[0]})")]


def _empty_entities(path: str, document: ModernDocument,
                    roles: Sequence[tuple[str, Sequence[tuple[str, ...]]]], where: str,
                    norm: Callable[[str], str] | None) -> list[str]:
    blank = []
    for role, entities in roles:
        for k, entity in enumerate(entities, start=1):
            if not entity:
                raise InputError.at(path, document.line, f"document {document.docid}, {where}"
                                    f"{role} entity {k}: an entity without mentions (the original "
                                    "GTT scorer gives it full credit, GRIT's fails; --compat "
                                    "reproduces GTT)")
            if norm is not None and any(not norm(m) for m in entity):
                blank.append(f"document {document.docid}, {where}{role} entity {k}")
    return blank


def document_roles(schema: Schema, *documents: ModernDocument | None) -> tuple[str, ...]:
    """The roles a document is scored on: the schema's, or (open roles) those its gold and
    predicted templates name, in first-seen order, gold first.

    >>> document_roles(MUC4)
    ('PerpInd', 'PerpOrg', 'Target', 'Victim', 'Weapon')
    """
    if schema.roles is not None:
        return schema.roles
    return tuple(dict.fromkeys(r for d in documents if d is not None
                               for t in d.templates or () for r in t.role_names))


def gtt_documents(golds: Mapping[str, ModernDocument], preds: Mapping[str, ModernDocument],
                  options: ModernOptions, schema: Schema = MUC4) -> list[DocumentCounts]:
    """GTT's counts per gold document (of the ``event_n`` bucket, when given), per role."""
    listed = _listed_documents(golds, options)
    norm = normaliser(schema.normalisation)
    out = []
    for docid, document in golds.items():
        predicted = preds.get(docid)
        roles = document_roles(schema, document, predicted)
        gold_templates = gtt.gold_templates(document.templates or (), roles, norm)
        if listed is not None and docid not in listed:
            continue
        if listed is None and options.event_n is not None \
                and not _in_bucket(len(gold_templates), options.event_n):
            continue
        fields = gtt.score_document(
            gtt.predicted_templates(predicted.templates or () if predicted else (), roles, norm),
            gold_templates, fields=("incident_type", *roles))
        out.append(DocumentCounts(docid, sum(fields.values(), Counts()), fields))
    if options.event_n is not None and not out:
        raise UsageError(f"no document of the key is in bucket {options.event_n!r}: nothing to "
                         "score (scores of no document would read 0.00)", parameter="event_n")
    return out


def _listed_documents(golds: Mapping[str, ModernDocument],
                      options: ModernOptions) -> frozenset[str] | None:
    """The documents ``event_n_file`` lists under ``event_n`` (None without a file)."""
    if options.event_n_file is None or options.event_n is None:
        return None
    from muceval.formats.modern.buckets import read_event_buckets

    path = options.event_n_file
    buckets = read_event_buckets(path)
    if options.event_n not in buckets:
        raise InputError.at(path, None, f"no bucket {options.event_n!r} (the file has "
                            f"{', '.join(map(repr, buckets)) or 'none'})")
    listed = buckets[options.event_n]
    unknown = [d for d in listed if d not in golds]
    if unknown:
        shown = ", ".join(unknown[:3]) + (", ..." if len(unknown) > 3 else "")
        raise InputError.at(path, None, f"bucket {options.event_n!r} lists {len(unknown)} "
                            f"document(s) not in the gold: {shown} (buckets of another "
                            "test set?)")
    return frozenset(listed)


def _in_bucket(n: int, bucket: str) -> bool:
    return n >= 2 if bucket == ">=2" else n >= 4 if bucket == "4" else n == int(bucket)


def _extracts(document: ModernDocument | None,
              roles: tuple[str, ...]) -> tuple[tuple[tuple[str, ...], ...], ...]:
    if document is None:
        return tuple(() for _ in roles)
    if document.extracts is not None:
        return document.extracts
    return role_union(document.templates or (), roles)


def ree_documents(golds: Mapping[str, ModernDocument], preds: Mapping[str, ModernDocument],
                  options: ModernOptions, schema: Schema = MUC4) -> list[DocumentCounts]:
    """GRIT's CEAF-REE counts per gold document, per role."""
    from muceval.scoring.modern import ceaf  # SciPy: imported by the scorers that align
    norm = normaliser(schema.normalisation)
    out = []
    for docid, document in golds.items():
        names = document_roles(schema, document, preds.get(docid))
        roles = ceaf.ree_document(_extracts(preds.get(docid), names), _extracts(document, names),
                                  options.phi or "strict", names, norm)
        out.append(DocumentCounts(docid, sum(roles.values(), Counts()), roles))
    return out


def rme_documents(golds: Mapping[str, ModernDocument], preds: Mapping[str, ModernDocument],
                  options: ModernOptions, schema: Schema = MUC4) -> list[DocumentCounts]:
    """IterX's CEAF-RME counts per document of the gold or the predictions (FAMuS's, for it)."""
    from muceval.scoring.modern import ceaf  # SciPy: imported by the scorers that align
    norm = normaliser(schema.normalisation)
    out = []
    for docid in sorted(set(golds) | set(preds)):
        gold_templates = golds[docid].templates or () if docid in golds else ()
        # IterX (iterx_muc.get_metric) leaves out a document whose gold lists no template;
        # one that lists only templates without entities is scored.
        if options.ignore_empty_docs and not gold_templates:
            continue
        predicted = preds[docid].templates or () if docid in preds else ()
        counts = ceaf.rme_document(predicted, gold_templates, options.phi or "subset", norm,
                                   schema.sanitise_gold)
        out.append(DocumentCounts(docid, counts))
    return out


def ratio_tallies(systems: Sequence[ModernScores]) -> RatioTallies:
    """The per-document counts of several systems (same metric) as significance units; a
    document a system lacks (only possible with ``compat``) counts as zeros."""
    names = [s.system for s in systems]
    if len(set(names)) != len(names):
        raise UsageError("two systems have the same name: " + ", ".join(names))
    units = sorted({d.docid for s in systems for d in s.documents})
    position = {u: i for i, u in enumerate(units)}
    import numpy as np  # imported here: scoring needs no NumPy, only the tallies do

    counts = np.zeros((len(systems), len(units), 4))
    for n, s in enumerate(systems):
        for d in s.documents:
            c = d.overall
            counts[n, position[d.docid]] = (c.p_num, c.p_den, c.r_num, c.r_den)
    return RatioTallies(tuple(names), tuple(units), counts)
