"""How the 1992 scorer scores (:class:`ScoringOptions`): apart from the scorer, so that a
command makes its options without importing a scorer it may not run (on modern files)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol, get_args

from muceval.errors import UsageError

if TYPE_CHECKING:
    from muceval.core.model import ManualMappings, TemplateFile
    from muceval.scoring.muc1992.judgements import AnswerCallback, NewJudgement, Query
    from muceval.scoring.muc1992.mapping import PairEvaluator, PairJudge

__all__ = ["AlignmentHook", "MappingKind", "ScoringOptions", "Unresolved"]

Unresolved = Literal["incorrect", "partial", "correct", "ask"]
"""What a question without a recorded answer gives (:attr:`ScoringOptions.unresolved`)."""


class AlignmentHook(Protocol):
    """An alignment criterion other than the 1992 mapping (see :mod:`muceval.scoring.alignment`).

    ``judge`` gives, for the key being scored, which pairs are allowed and their
    scores; ``assignment`` (``greedy`` or ``optimal``) chooses among them.
    """

    @property
    def assignment(self) -> str: ...

    def judge(self, evaluator: PairEvaluator, key: TemplateFile) -> PairJudge: ...



MappingKind = Literal["greedy", "optimal"]
"""The automatic template mappings: the 1992 greedy one, or an optimal assignment."""



@dataclass(frozen=True)
class ScoringOptions:
    """How a :class:`Scorer` scores: questions, mapping, and what it records.

    The 1992 scorer decided most fills by rule; the rest (a string fill that only partly
    matches, a date inside a range...) it put to its operator as questions and stored the
    answers in a history, which later runs reused. The options say what happens to such
    questions here, and how templates are mapped. The defaults score as the 1992 program
    did with a history and no operator: recorded answers are used, questions without one
    give no credit. Checked when made.

    Attributes
    ----------
    query_pass : bool, default True
        True: the 1992 query pass; each question is answered from the history, or else by
        the ``unresolved`` policy. False: 1992 batch mode, without questions (the history
        still serves the automatic look-up); ``unresolved`` and ``ask`` are then unused.
    unresolved : {'incorrect', 'partial', 'correct', 'ask'}, default 'incorrect'
        What a question without a recorded answer gives. ``'incorrect'``: no credit, as a
        batch run would give. ``'partial'`` / ``'correct'``: the first key fill offered is
        credited as partially correct (PAR and IPA) / correct (COR and ICR), an upper bound
        of what an operator could grant. ``'ask'``: ``ask`` is called, and each answer is
        added to the history of this scorer and returned as a new judgement.
    ask : callable or None, default None
        With ``unresolved='ask'``, called with each question (a
        :class:`~muceval.scoring.muc1992.judgements.Query`: message, templates, slot, the
        response fill and the key fills ``offered``). It returns a
        :class:`~muceval.core.model.Judgement` (``MATCH``, ``PARTIAL``, ``FAIL``), which
        credits the first offered key fill, or a ``(judgement, index)`` pair naming the
        offered key fill, or None for no credit and no record.
    mapping : {'greedy', 'optimal'}, default 'greedy'
        The automatic mapping of key to response templates among the pairs the mapping
        restriction allows: ``'greedy'``, the 1992 one (pairs taken by decreasing score);
        ``'optimal'``, the assignment with the greatest total pair score (then the most
        pairs).
    manual_mappings : mapping or None, default None
        Per message id, ordered ``(key id, response id)`` pairs (None on either side for an
        unmapped template) that replace the automatic mapping of that message: replayed as
        given, duplicates included, without the restriction check.
    use_history_mappings : bool, default True
        Honour the manual mappings a 1992 history records (``":MAP"`` entries).
    on_judgement : callable or None, default None
        Called with each :class:`~muceval.scoring.muc1992.judgements.NewJudgement` the
        moment ``ask`` answers, so that a caller can store it at once (an interrupted
        session then loses nothing).
    alignment : AlignmentHook or None, default None
        An alignment criterion (:mod:`muceval.scoring.alignment`) whose restriction and
        assignment replace those of the automatic mapping; manual and history mappings
        still come first. None: the 1992 mapping.
    on_reuse : callable or None, default None
        Called with each question that the history answers.
    fills : bool, default False
        Record the credit of every scored fill in ``PairScore.fills`` (for response-level
        significance units); it changes no tally.
    jobs : int or None, default None
        How many processes :func:`~muceval.scoring.session.score_files` reads and scores the
        systems in at once (forked, and only in batch mode: answers given for one system
        serve the next); None: one per core no other process is running on
        (:func:`muceval.core.processes.idle_cores`). Never more than one where a fork is not
        safe (:func:`muceval.core.processes.fork_safe`: not on Linux, or beside another
        thread). It changes no tally.

    Raises
    ------
    UsageError
        If ``unresolved`` or ``mapping`` is not one of its choices, or if
        ``unresolved='ask'`` comes without ``ask``; the error names the parameter.

    See Also
    --------
    Scorer : Scores with these options.
    score_files : Builds them from its own arguments.

    Examples
    --------
    What the policies give for the questions that the example's history leaves open:

    >>> import muceval
    >>> from importlib.resources import files
    >>> example = files("muceval") / "data" / "example"
    >>> config = muceval.load_configuration(example / "config.toml")
    >>> key = muceval.read_templates(example / "key.txt", config)
    >>> alpha = muceval.read_templates(example / "alpha.txt", config)
    >>> history = muceval.read_history(example / "history.lisp")
    >>> for policy in ("incorrect", "partial", "correct"):
    ...     scorer = muceval.Scorer(config, history, muceval.ScoringOptions(unresolved=policy))
    ...     total = muceval.summarize(scorer.score(key, alpha), config).all_templates.total
    ...     print(policy, total.cor, total.par)
    incorrect 81 3
    partial 81 6
    correct 84 3
    >>> muceval.ScoringOptions(unresolved="ask")
    Traceback (most recent call last):
    ...
    muceval.errors.UsageError: unresolved: 'ask' needs an ask callback (ScoringOptions.ask)
    """

    query_pass: bool = True
    unresolved: Unresolved = "incorrect"
    ask: AnswerCallback | None = None
    mapping: MappingKind = "greedy"
    manual_mappings: ManualMappings | None = None
    use_history_mappings: bool = True
    on_judgement: Callable[[NewJudgement], None] | None = None
    alignment: AlignmentHook | None = None
    on_reuse: Callable[[Query], None] | None = None
    fills: bool = False
    jobs: int | None = None

    def __post_init__(self) -> None:
        for name, choices in (("unresolved", get_args(Unresolved)),
                              ("mapping", get_args(MappingKind))):
            value = getattr(self, name)
            if value not in choices:
                raise UsageError(f"{value!r}: choose " + ", ".join(repr(c) for c in choices),
                                 parameter=name)
        if self.unresolved == "ask" and self.ask is None:
            raise UsageError("'ask' needs an ask callback (ScoringOptions.ask)",
                             parameter="unresolved")
        if self.jobs is not None and (type(self.jobs) is not int or self.jobs < 1):
            raise UsageError(f"{self.jobs!r}: give a number of processes of 1 or more, or None",
                             parameter="jobs")
