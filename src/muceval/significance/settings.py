"""The settings of a significance analysis: one frozen declaration, validated in one place.

The command line (``significance``, ``compare``, ``report``) and the library
(:func:`~muceval.significance.engine.compare`, ``analyze``, ``compare_to_baseline``)
all build a :class:`SignificanceSettings`; the result records :meth:`to_json`.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from muceval.errors import UsageError

__all__ = ["ALTERNATIVES", "METHODS", "SignificanceSettings"]

METHODS = ("approximate", "exact", "auto")
ALTERNATIVES = ("two-sided", "one-sided")
_ADJUSTMENTS = ("none", "holm", "bh")


@dataclass(frozen=True)
class SignificanceSettings:
    """How to test: method, shuffles, seed, sidedness, decision levels, intervals, classic tests.

    ``seed`` None draws one when the analysis starts (:meth:`with_seed`);
    ``exact_budget`` > 0 lets the exact test prune (its error bound is reported).

    >>> SignificanceSettings(method="exact", shuffles=0).validated().method
    'exact'
    >>> SignificanceSettings(alpha=1.5).validated()
    Traceback (most recent call last):
    ...
    muceval.errors.UsageError: alpha, confidence and the interval level must lie strictly between 0 and 1
    """

    method: str = "approximate"
    shuffles: int = 9_999
    seed: int | None = None
    alternative: str = "two-sided"
    alpha: float = 0.10
    confidence: float = 0.99
    adjust: str = "none"
    bootstrap: int = 1_000
    ci_level: float = 0.95
    classic: bool = True
    exact_budget: float = 0.0

    def validated(self) -> SignificanceSettings:
        """The settings, checked; :class:`UsageError` naming what is wrong."""
        if self.method not in METHODS:
            raise UsageError(f"unknown method {self.method!r}; choose from {', '.join(METHODS)}")
        if self.alternative not in ALTERNATIVES:
            raise UsageError(f"unknown alternative {self.alternative!r}; choose from "
                             f"{', '.join(ALTERNATIVES)}")
        if self.adjust not in _ADJUSTMENTS:
            raise UsageError(f"unknown adjustment {self.adjust!r}; choose from "
                             f"{', '.join(_ADJUSTMENTS)}")
        if self.shuffles < 1 and self.method != "exact":
            raise UsageError("the number of shuffles must be at least 1")
        if not (0 < self.alpha < 1 and 0 < self.confidence < 1 and 0 < self.ci_level < 1):
            raise UsageError(
                "alpha, confidence and the interval level must lie strictly between 0 and 1")
        if self.seed is not None and self.seed < 0:
            raise UsageError("the seed must not be negative")
        if self.bootstrap < 0:
            raise UsageError("the number of bootstrap samples must not be negative")
        return self

    def with_seed(self) -> SignificanceSettings:
        """These settings with a seed: the given one, or one drawn now (and then recorded)."""
        return self if self.seed is not None else replace(self, seed=secrets.randbits(63))

    @property
    def two_sided(self) -> bool:
        return self.alternative == "two-sided"

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        del out["exact_budget"], out["classic"]
        return out

    def recorded(self, units: int, metrics: Sequence[str], level: str | None = None,
                 **more: Any) -> dict[str, Any]:
        """What a result records of the run that produced it: these settings, the number
        of units, the metrics, the unit level when known, and ``more``."""
        return {**self.to_json(), "units": units, "metrics": list(metrics),
                **({"unit": level} if level is not None else {}), **more}
