"""The settings of a significance analysis: one frozen declaration, validated in one place,
built by the command line and the library alike; the result records them."""

from __future__ import annotations

import functools
import secrets
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from numbers import Integral, Real
from typing import Any, Literal, NoReturn, get_args

from muceval.core.measures import METRIC_IDS
from muceval.errors import UsageError

__all__ = ["ADJUSTMENTS", "ALTERNATIVES", "METHODS", "PRESETS", "Adjustment", "Alternative", "Method", "Preset",
           "PresetName", "RunRecord", "SignificanceSettings"]

Method = Literal["approximate", "exact", "auto"]
Alternative = Literal["two-sided", "one-sided"]
Adjustment = Literal["none", "holm", "bh"]
PresetName = Literal["muc4", "ab"]
METHODS: tuple[Method, ...] = get_args(Method)
ALTERNATIVES: tuple[Alternative, ...] = get_args(Alternative)
ADJUSTMENTS: tuple[Adjustment, ...] = get_args(Adjustment)


@dataclass(frozen=True)
class SignificanceSettings:
    """How to test: method, shuffles, seed, sidedness, decision levels, intervals, classic tests.

    For :func:`compare`, :func:`compare_ratios`, :func:`compare_to_baseline` and
    :func:`analyze`; checked when made. The defaults are the ``'muc4'`` preset.

    Attributes
    ----------
    method : {'approximate', 'exact', 'auto'}, default 'approximate'
        The randomization test, stratified by unit: ``shuffles`` random exchanges, p = (nge
        + 1) / (shuffles + 1); all 2^n exchanges of the n units where the two systems differ,
        p = count / 2^n; or the exact test wherever it costs less, per pair and metric.
    shuffles : int, default 9999
        Shuffles of the approximate test (MUC-4: 9,999); at least 1, except for ``'exact'``.
    seed : int or None, default None
        Seeds the shuffles and the bootstrap, whatever the threads; None: drawn and recorded.
    alternative : {'two-sided', 'one-sided'}, default 'two-sided'
        ``'one-sided'`` counts only the shuffles in the direction observed.
    alpha : float, default 0.10
        The significance cutoff for the (adjusted) p-value, strictly between 0 and 1.
    confidence : float, default 0.99
        The confidence an approximate decision needs (Chinchor 1992: the probability that
        the exact test would decide the same at ``alpha``), else it is not significant.
    adjust : {'none', 'holm', 'bh'}, default 'none'
        Across the pairs of a metric: none (MUC-4), Holm's or Benjamini–Hochberg.
    bootstrap : int, default 1000
        Paired bootstrap samples for the intervals of every score and difference; 0: none.
    ci_level : float, default 0.95
        The level of those intervals, strictly between 0 and 1.
    classic : bool, default True
        Also compute the classic tests (MUC tallies only); those of per-unit values and Yeh's
        factor are n/a for precision and F, unless ``unit_means``.
    unit_means : bool, default False
        Also give the tests of per-unit values for precision and F, labelled as tests of the
        mean per-unit value, which is not the systems' precision or F.
    exact_budget : float, default 0.0
        The probability mass, in [0, 1), the exact test may leave out to save time (added to
        the p-value, reported as ``error_bound``).
    preset : {'muc4', 'ab'} or None, default 'muc4'
        Which preset these settings started from (recorded, not applied).

    Raises
    ------
    UsageError
        If a choice is unknown or a number is out of its range.

    Examples
    --------
    >>> from muceval import SignificanceSettings
    >>> from muceval.significance.settings import PRESETS
    >>> PRESETS["ab"].settings.method, PRESETS["ab"].settings.alpha, PRESETS["ab"].metrics
    ('auto', 0.05, ('recall', 'precision', 'f1'))
    >>> SignificanceSettings(method="exact", shuffles=0).method
    'exact'
    >>> SignificanceSettings(alpha=1.5)
    Traceback (most recent call last):
    ...
    muceval.errors.UsageError: alpha: must lie strictly between 0 and 1 (SignificanceSettings(alpha=1.5))
    """

    method: Method = "approximate"
    shuffles: int = 9_999
    seed: int | None = None
    alternative: Alternative = "two-sided"
    alpha: float = 0.10
    confidence: float = 0.99
    adjust: Adjustment = "none"
    bootstrap: int = 1_000
    ci_level: float = 0.95
    classic: bool = True
    unit_means: bool = False
    exact_budget: float = 0.0
    preset: PresetName | None = "muc4"

    def __post_init__(self) -> None:
        def refuse(name: str, why: str) -> NoReturn:
            raise UsageError(f"{why} (SignificanceSettings({name}={getattr(self, name)!r}))",
                             parameter=name)

        for name, choices in (("method", METHODS), ("alternative", ALTERNATIVES),
                              ("adjust", ADJUSTMENTS)):
            if getattr(self, name) not in choices:
                refuse(name, "choose " + ", ".join(repr(c) for c in choices))
        for name in ("shuffles", "bootstrap"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, Integral):
                refuse(name, "must be a whole number")
        if self.seed is not None and (isinstance(self.seed, bool)
                                      or not isinstance(self.seed, Integral) or int(self.seed) < 0):
            refuse("seed", "must be a whole number, not negative (or None: drawn)")
        if self.shuffles < 1 and self.method != "exact":
            refuse("shuffles", "at least 1 shuffle (only method='exact' needs none)")
        for name in ("alpha", "confidence", "ci_level"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, Real) or not 0 < float(value) < 1:
                refuse(name, "must lie strictly between 0 and 1")
        if self.bootstrap < 0:
            refuse("bootstrap", "must not be negative")
        if not isinstance(self.exact_budget, Real) or not 0 <= float(self.exact_budget) < 1:
            refuse("exact_budget", "the pruned probability mass must lie in [0, 1)")
        if self.preset is not None and self.preset not in get_args(PresetName):
            refuse("preset", "choose " + ", ".join(repr(p) for p in get_args(PresetName))
                   + " or None")

    def with_seed(self) -> SignificanceSettings:
        """These settings with a seed: the given one, or one drawn now."""
        return self if self.seed is not None else replace(self, seed=secrets.randbits(63))

    @property
    def two_sided(self) -> bool:
        return self.alternative == "two-sided"

    def to_json(self) -> dict[str, Any]:
        """The settings a result records (all but ``exact_budget`` and ``classic``)."""
        out = asdict(self)
        del out["exact_budget"], out["classic"]
        return out

    def recorded(self, units: int, metrics: Sequence[str], level: str | None = None,
                 **more: Any) -> RunRecord:
        """A :class:`RunRecord` of the run."""
        return RunRecord(self, units, tuple(metrics), level, tuple(more.items()))


@dataclass(frozen=True)
class RunRecord(Mapping[str, Any]):
    """What a significance result records of the run that produced it (``more``: ``ratio``,
    ``pairs_file``), read like the JSON it is written as (``record["alpha"]``).

    >>> record = SignificanceSettings(seed=3).recorded(10, ["f1"], "message")
    >>> record.settings.seed, record["units"], record["unit"]
    (3, 10, 'message')
    """

    settings: SignificanceSettings
    units: int
    metrics: tuple[str, ...]
    level: str | None = None
    more: tuple[tuple[str, Any], ...] = ()

    @functools.cached_property
    def _json(self) -> dict[str, Any]:
        # Made once: a page reads the record cell by cell.
        return {**self.settings.to_json(), "units": self.units, "metrics": list(self.metrics),
                **({"unit": self.level} if self.level is not None else {}), **dict(self.more)}

    def to_json(self) -> dict[str, Any]:
        return dict(self._json)

    def with_more(self, **more: Any) -> RunRecord:
        """The record with ``more`` recorded too (a key recorded already is replaced)."""
        return replace(self, more=tuple({**dict(self.more), **more}.items()))

    def __getitem__(self, key: str) -> Any:
        return self._json[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._json)

    def __len__(self) -> int:
        return len(self._json)


@dataclass(frozen=True)
class Preset:
    """Defaults for one kind of question: the settings, the metrics, and why."""

    name: PresetName
    settings: SignificanceSettings
    metrics: tuple[str, ...]
    purpose: str


PRESETS: dict[PresetName, Preset] = {}
PRESETS["muc4"] = Preset(
    "muc4", SignificanceSettings(preset="muc4"), METRIC_IDS,
    "a leaderboard (which of many systems differ?) tested as MUC-4 tested its 17 (Chinchor "
    "1992): approximate randomization with 9,999 shuffles, every measure, cutoff 0.10 (a "
    "decision needs 0.99 confidence), a seed drawn and recorded")
PRESETS["ab"] = Preset(
    "ab", SignificanceSettings(method="auto", seed=1, alpha=0.05, preset="ab"),
    ("recall", "precision", "f1"),
    "an A/B test (is a new version better than the old?): the exact test whenever it is cheap, "
    "recall, precision and F1, the conventional 0.05, seed 1 so that the same inputs give the "
    "same verdict")
"""``muc4``: ``significance``, ``report`` and the defaults; ``ab``: ``compare``,
:func:`~muceval.significance.baseline.compare_to_baseline`."""


def known_metrics(given: Sequence[str], known: Sequence[str], where: str = "") -> tuple[str, ...]:
    """``given`` metric names as ``known`` spells them (whatever the case), each once.

    >>> known_metrics(["F1", "recall", "f1"], ["recall", "precision", "f1"])
    ('f1', 'recall')
    >>> known_metrics(["recal"], ["recall", "precision", "f1"])
    Traceback (most recent call last):
    ...
    muceval.errors.UsageError: metrics: unknown metric 'recal' (did you mean 'recall'?); choose from recall, precision, f1
    """
    import difflib

    by_folded = {name.lower(): name for name in known}
    chosen: list[str] = []
    for name in (g.strip() for g in given if g.strip()):
        found = by_folded.get(name.lower())
        if found is None:
            near = difflib.get_close_matches(name.lower(), list(by_folded), n=1)
            hint = f" (did you mean {by_folded[near[0]]!r}?)" if near else ""
            raise UsageError(f"unknown metric {name!r}{hint}{where}; choose from "
                             + ", ".join(known), parameter="metrics")
        chosen.append(found)
    if not chosen:
        raise UsageError("name at least one metric; choose from " + ", ".join(known),
                         parameter="metrics")
    return tuple(dict.fromkeys(chosen))


def known_systems(systems: Sequence[str], names: Iterable[str]) -> None:
    """A :class:`UsageError` naming the first of ``names`` that is not among ``systems``."""
    for name in names:
        if name not in systems:
            raise UsageError(f"no system {name!r} among {', '.join(systems)}")
