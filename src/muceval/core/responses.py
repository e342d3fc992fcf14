"""Response-level units of a pair of systems (Yeh 2000): the data, as
:func:`muceval.scoring.responses.response_units` makes it and
:func:`muceval.significance.responses.randomize_responses` tests it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

__all__ = ["PairResponses", "Response", "ResponseGroup"]


@dataclass(frozen=True)
class Response:
    """One exchangeable response: where it is (``MESSAGE#key:ID#SLOT`` or
    ``MESSAGE#spurious#SLOT``), the fill in normal form, and the system that produced it."""

    where: str
    fill: str
    owner: Literal["a", "b"]


@dataclass(frozen=True)
class ResponseGroup:
    """Competing responses of one slot and the tallies of every assignment.

    ``outcomes[i]`` holds the POS, ACT, COR and PAR of the two pseudo-systems (row 0: the
    first system's, row 1: the second's) when response ``j`` goes to the first pseudo-system
    exactly when bit ``j`` of ``i`` is set.
    """

    responses: tuple[Response, ...]
    outcomes: np.ndarray

    @property
    def observed(self) -> int:
        """The index of the systems as they are: each response with its owner."""
        return sum(1 << j for j, r in enumerate(self.responses) if r.owner == "a")


@dataclass(frozen=True)
class PairResponses:
    """The response-level units of a pair of systems ``a`` and ``b``.

    ``base`` (2 × 4: POS, ACT, COR, PAR of the first and the second pseudo-system) is what
    never moves; each of ``singles`` adds its row of ``contributions`` to whichever
    pseudo-system receives it; each group adds the outcome of its assignment.
    """

    a: str
    b: str
    base: np.ndarray
    singles: tuple[Response, ...]
    contributions: np.ndarray
    groups: tuple[ResponseGroup, ...]
    held: int = 0
    """Responses held with their system (an optional key template matched by one system)."""

    @property
    def n(self) -> int:
        """The number of exchangeable responses (2^n assignments)."""
        return len(self.singles) + sum(len(g.responses) for g in self.groups)

    @property
    def observed(self) -> np.ndarray:
        """The 2 × 4 totals of the two systems as they are."""
        out = self.base.copy()
        for response, row in zip(self.singles, self.contributions, strict=True):
            out[0 if response.owner == "a" else 1] += row
        for group in self.groups:
            out += group.outcomes[group.observed]
        return out
