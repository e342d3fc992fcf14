"""How the 1992 scorer scores (:class:`ScoringOptions`): apart from the scorer, which a
command on modern files need not import."""

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
    """An alignment criterion other than the 1992 mapping (:mod:`muceval.scoring.alignment`):
    ``judge`` allows and scores the pairs of a key, ``assignment`` chooses among them."""

    @property
    def assignment(self) -> str: ...

    def judge(self, evaluator: PairEvaluator, key: TemplateFile) -> PairJudge: ...


MappingKind = Literal["greedy", "optimal"]
"""The automatic template mappings: the 1992 greedy one, or an optimal assignment."""


@dataclass(frozen=True)
class ScoringOptions:
    """How a :class:`Scorer` scores: questions, mapping, and what it records.

    The defaults score as the 1992 program did with a history and no operator: recorded
    answers are used, questions without one give no credit.

    Attributes
    ----------
    query_pass : bool, default True
        False: 1992 batch mode, no questions (the history still serves the automatic look-up).
    unresolved : {'incorrect', 'partial', 'correct', 'ask'}, default 'incorrect'
        What a question without a recorded answer gives: no credit; the first offered key
        fill credited partially (PAR, IPA) or fully (COR, ICR), an upper bound of what an
        operator could grant; or ``ask``'s answer, added to this scorer's history.
    ask : callable or None, default None
        Called with each :class:`~muceval.scoring.muc1992.judgements.Query`; returns a
        :class:`~muceval.core.model.Judgement` (crediting the first offered key fill), a
        ``(judgement, index)`` pair naming the offered key fill, or None (no credit).
    mapping : {'greedy', 'optimal'}, default 'greedy'
        The 1992 greedy mapping, or the one with the greatest total pair score (then most pairs).
    manual_mappings : mapping or None, default None
        Per message id, ``(key id, response id)`` pairs (None for an unmapped side) replayed
        as given, duplicates included, without the restriction check.
    use_history_mappings : bool, default True
        Honour the manual mappings a 1992 history records (``":MAP"`` entries).
    on_judgement : callable or None, default None
        Called with each :class:`~muceval.scoring.muc1992.judgements.NewJudgement` the
        moment ``ask`` answers (so that an interrupted session loses nothing).
    alignment : AlignmentHook or None, default None
        An alignment criterion whose restriction and assignment replace the 1992 ones;
        manual and history mappings still come first.
    on_reuse : callable or None, default None
        Called with each question that the history answers.
    fills : bool, default False
        Record the credit of every scored fill in ``PairScore.fills`` (for response-level
        significance units).
    jobs : int or None, default None
        How many forked processes :func:`~muceval.scoring.session.score_files` scores in,
        in batch mode; None: one per idle core (one where a fork is not safe).

    Raises
    ------
    UsageError
        If ``unresolved`` or ``mapping`` is not one of its choices, or if
        ``unresolved='ask'`` comes without ``ask``.

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
