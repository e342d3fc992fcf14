"""Measures derived from tallies, in two flavours kept strictly apart: the 1992 integers of
the reports (SCORER-SPEC §9; F from the *rounded* recall and precision) and unrounded floats
from the raw counts, for machine-readable output and the tests.

>>> from muceval.core.tallies import Tally
>>> t = Tally(pos=232, act=160, cor=60, par=3)
>>> scores(t).rec, round(recall(t), 4)
(26, 0.2651)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from muceval.core.measures import (
    _F_INDEX,
    F_MEASURES,
    F_WEIGHTS,
    MEASURE_NAMES,
    MEASURES,
    METRIC_IDS,
    METRIC_LABELS,
    MeasureSpec,
    metric_of_counts,
)
from muceval.core.tallies import Tally, TextFiltering
from muceval.errors import UsageError

__all__ = [
    "F_MEASURES",
    "F_WEIGHTS",
    "MEASURES",
    "MEASURE_NAMES",
    "MeasureSpec",
    "METRIC_IDS",
    "METRIC_LABELS",
    "FloatScores",
    "MeasureValues",
    "Scores",
    "f_measure",
    "f_measure_1992",
    "f_measures_1992",
    "fallout",
    "metric_of_counts",
    "float_scores",
    "format_f",
    "overgeneration",
    "pct",
    "precision",
    "recall",
    "round_f_1992",
    "scores",
    "text_filtering_scores",
]


def pct(a: int, b: int, d: int) -> int | None:
    """``(a + b/2) / d`` as the 1992 scorer's rounded integer percentage; ``None`` if ``d == 0``.

    Truncated to tenths of a percent, then rounded half to even on that tenth (SCORER-SPEC
    §9.1), unlike exact rounding: 26.51 % becomes 26.

    >>> pct(60, 3, 232), pct(1, 0, 8), pct(1, 0, 0) is None
    (26, 12, True)
    """
    if d == 0:
        return None
    # Python's floor division equals the Lisp truncation here: the counts are
    # never negative.
    permil = (500 * (2 * a + b)) // d
    q, r = divmod(permil, 10)
    return _half_to_even(q, r / 10)


def _half_to_even(whole: int, rest: float | Fraction) -> int:
    """``whole`` rounded by ``rest``, its fraction: up above one half, to even at one half."""
    return whole + 1 if rest > 0.5 or (rest == 0.5 and whole % 2 == 1) else whole


@dataclass(frozen=True, slots=True)
class Scores:
    """The four integer measures of one report row; ``None`` prints as ``*``.

    >>> scores(Tally(pos=4, act=2, cor=1, par=1, inc=0, spu=0, mis=2))
    Scores(rec=38, pre=75, ovg=0, fal=None)
    """

    rec: int | None
    pre: int | None
    ovg: int | None
    fal: int | None


def scores(tally: Tally) -> Scores:
    """The 1992 integer REC, PRE, OVG, FAL of ``tally`` (§9.1).

    >>> scores(Tally(pos=1, act=1, cor=1, pie=6))
    Scores(rec=100, pre=100, ovg=0, fal=0)
    """
    return Scores(
        rec=pct(tally.cor, tally.par, tally.pos),
        pre=pct(tally.cor, tally.par, tally.act),
        ovg=pct(tally.spu, 0, tally.act),
        fal=pct(tally.inc + tally.spu, 0, tally.pie),
    )


def round_f_1992(f: float) -> float:
    """Round an F value (in percent) to two decimals the 1992 way (§9.2): ``100·f`` truncated,
    plus one if the remainder is above one half, or is one half and the value odd.

    >>> round_f_1992(34.638888), round_f_1992(0.125), round_f_1992(0.135)
    (34.64, 0.12, 0.14)
    """
    x = 100.0 * f
    t = math.trunc(x)
    return _half_to_even(t, x - t) / 100


def f_measure_1992(rec: int, pre: int, a: float) -> float:
    """F(a) from integer REC and PRE, rounded as printed in 1992; 0 when either is 0.

    >>> f_measure_1992(29, 43, 1 / 2)
    34.64
    >>> f_measure_1992(3, 84, 4 / 5)  # exactly 13.125: the tie goes to the even digit
    13.12
    """
    if rec == 0 or pre == 0:
        return 0.0
    # In exact arithmetic: a double's error can push an exact tie (13.125) over
    # the half, where the 1992 program rounded the tie to even (13.12).
    weight = Fraction(a).limit_denominator(1000)
    x = 100 * Fraction(pre * rec) / (weight * rec + (1 - weight) * pre)
    t = math.floor(x)
    return _half_to_even(t, x - t) / 100


def f_measures_1992(rec: int | None, pre: int | None) -> tuple[float, float, float] | None:
    """P&R, 2P&R, P&2R as printed by the 1992 report, or ``None`` if REC or PRE is undefined.

    >>> f_measures_1992(29, 43)
    (34.64, 39.21, 31.02)
    >>> f_measures_1992(None, 43) is None
    True
    """
    if rec is None or pre is None:
        return None
    return tuple(f_measure_1992(rec, pre, a) for _, _, a in F_WEIGHTS)  # type: ignore[return-value]


def format_f(value: float) -> str:
    """The 1992 text of an F value: up to six significant digits, at least one decimal, ``0`` for zero.

    >>> format_f(24.0), format_f(9.6), format_f(35.68), format_f(0.0)
    ('24.0', '9.6', '35.68', '0')
    """
    if value == 0:
        return "0"
    text = f"{value:.6g}"
    if "e" not in text and "." not in text:
        text += ".0"
    return text


def _ratio(num: float, den: int) -> float | None:
    return None if den == 0 else num / den


def recall(tally: Tally) -> float | None:
    """(COR + PAR/2) / POS as a fraction, ``None`` when POS is 0.

    >>> recall(Tally(pos=4, cor=1, par=1))
    0.375
    """
    return _ratio(tally.cor + 0.5 * tally.par, tally.pos)


def precision(tally: Tally) -> float | None:
    """(COR + PAR/2) / ACT as a fraction, ``None`` when ACT is 0.

    >>> precision(Tally(act=2, cor=1, par=1))
    0.75
    """
    return _ratio(tally.cor + 0.5 * tally.par, tally.act)


def overgeneration(tally: Tally) -> float | None:
    """SPU / ACT as a fraction, ``None`` when ACT is 0.

    >>> overgeneration(Tally(act=4, spu=1))
    0.25
    """
    return _ratio(tally.spu, tally.act)


def fallout(tally: Tally) -> float | None:
    """(INC + SPU) / PIE as a fraction, ``None`` when PIE is 0 (not a set-fill row).

    >>> fallout(Tally(inc=1, spu=1, pie=20))
    0.1
    """
    return _ratio(tally.inc + tally.spu, tally.pie)


def f_measure(precision: float | None, recall: float | None, beta: float = 1.0) -> float | None:
    """F_beta = (beta² + 1)·P·R / (beta²·P + R); ``None`` if P or R is undefined, 0 if both are 0.

    >>> round(f_measure(0.43, 0.29), 6)
    0.346389
    >>> f_measure(0.0, 0.0), f_measure(None, 0.5)
    (0.0, None)
    """
    if precision is None or recall is None:
        return None
    b2 = beta * beta
    den = b2 * precision + recall
    return (b2 + 1.0) * precision * recall / den if den != 0 else 0.0


class MeasureValues:
    """The measures of a row by name: ``f`` holds the F-measures of :data:`F_MEASURES` in
    order, ``f_pr``, ``f_2pr`` and ``f_p2r`` are F with beta 1, 0.5 and 2."""

    __slots__ = ()
    f: tuple[float | None, ...]

    @property
    def f_pr(self) -> float | None:
        return self.value("f1")

    @property
    def f_2pr(self) -> float | None:
        return self.value("f0.5")

    @property
    def f_p2r(self) -> float | None:
        return self.value("f2")

    def value(self, measure: str) -> float | None:
        """The measure named ``measure`` (an id of :data:`MEASURE_NAMES`).

        >>> FloatScores.of(Tally(pos=4, act=2, cor=2)).value("f0.5")
        0.8333333333333334
        """
        if measure in _F_INDEX:
            return self.f[_F_INDEX[measure]]
        if measure not in MEASURE_NAMES:
            raise UsageError(f"{measure!r}: choose from {', '.join(MEASURE_NAMES)}",
                             parameter="measure")
        return getattr(self, measure)  # type: ignore[no-any-return]


@dataclass(frozen=True, slots=True)
class FloatScores(MeasureValues):
    """Unrounded measures of one tally (fractions in [0, 1]; ``None`` when undefined).

    >>> FloatScores.of(Tally(pos=2, act=2, cor=1)).f_pr
    0.5
    """

    recall: float | None
    precision: float | None
    overgeneration: float | None
    fallout: float | None
    f: tuple[float | None, ...]

    def as_dict(self) -> dict[str, float | None]:
        """The measures under their public names (as in JSON, CSV and ``--metrics``).

        >>> list(FloatScores.of(Tally(pos=1, act=1, cor=1)).as_dict())
        ['recall', 'precision', 'overgeneration', 'fallout', 'f1', 'f0.5', 'f2']
        """
        return {"recall": self.recall, "precision": self.precision,
                "overgeneration": self.overgeneration, "fallout": self.fallout,
                **dict(zip(_F_INDEX, self.f, strict=True))}

    @classmethod
    def of(cls, tally: Tally) -> FloatScores:
        r, p = recall(tally), precision(tally)
        f: tuple[float | None, ...] = (None,) * len(F_MEASURES)
        if r is not None and p is not None:
            # F from the counts in one division, as the tests and rankings compute it
            # (metric_of_counts), not from the rounded P and R.
            n2 = 2 * tally.cor + tally.par
            f = tuple(metric_of_counts(m.id, tally.pos, tally.act, n2) for m in F_MEASURES)
        return cls(r, p, overgeneration(tally), fallout(tally), f)


def float_scores(tally: Tally) -> FloatScores:
    """Unrounded recall, precision, overgeneration, fallout and the three F-measures of ``tally``.

    In floating point from the counts, without the 1992 report's rounding: what
    machine-readable output and the significance tests use.

    Returns
    -------
    muceval.core.metrics.FloatScores
        Fractions in [0, 1], each None when its denominator is 0; ``f_pr``, ``f_2pr``,
        ``f_p2r``: F with β = 1 (P&R), 0.5 (2P&R) and 2 (P&2R); ``as_dict()`` gives them
        under their public names.

    Examples
    --------
    >>> from muceval import Tally, float_scores
    >>> float_scores(Tally(pos=4, act=2, cor=2)).recall
    0.5
    >>> scores = float_scores(Tally(pos=10, act=8, cor=5, par=2, inc=1, spu=0, mis=2))
    >>> scores.recall, scores.precision, round(scores.f_pr, 4), scores.fallout
    (0.6, 0.75, 0.6667, None)
    >>> float_scores(Tally()).recall is None
    True
    """
    return FloatScores.of(tally)


def text_filtering_scores(filtering: TextFiltering) -> Scores:
    """REC a/(a+c), PRE a/(a+b), OVG b/(a+b), FAL b/(b+d) for the TEXT FILTERING row (§11).

    Unlike every other row, an empty denominator gives 0, not ``*``.

    >>> text_filtering_scores(TextFiltering(a=8, b=2, c=5, d=2))
    Scores(rec=62, pre=80, ovg=20, fal=50)
    >>> text_filtering_scores(TextFiltering())
    Scores(rec=0, pre=0, ovg=0, fal=0)
    """
    a, b, c, d = filtering.a, filtering.b, filtering.c, filtering.d
    return Scores(
        rec=pct(a, 0, a + c) or 0,
        pre=pct(a, 0, a + b) or 0,
        ovg=pct(b, 0, a + b) or 0,
        fal=pct(b, 0, b + d) or 0,
    )
