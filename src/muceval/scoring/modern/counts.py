"""Counts of the modern metrics: precision and recall with numerators of their own."""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Callable
from dataclasses import asdict, dataclass

__all__ = ["Counts", "normalize", "normaliser"]

_PUNCTUATION = str.maketrans("", "", string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize(mention: str) -> str:
    """A mention as every modern MUC-4 scorer compares it (the SQuAD answer normalisation).

    >>> normalize("The Shining  Path's leaders!")
    'shining paths leaders'
    """
    text = _ARTICLES.sub(" ", mention.lower().translate(_PUNCTUATION))
    return " ".join(text.split())


def _lower_tokens(mention: str) -> str:
    return " ".join(mention.lower().split())


def _unicode(mention: str) -> str:
    text = unicodedata.normalize("NFKC", mention).casefold()
    kept = "".join(" " if unicodedata.category(c).startswith("P") else c for c in text)
    return " ".join(kept.split())


def normaliser(name: str) -> Callable[[str], str]:
    """The normalisation a schema names (:data:`muceval.core.schema.NORMALISATIONS`).

    >>> [normaliser(n)("L'Été,  “Paris”") for n in ("squad", "none", "lower-tokens", "unicode")]
    ['lété “paris”', "L'Été,  “Paris”", "l'été, “paris”", 'l été paris']
    """
    found: dict[str, Callable[[str], str]] = {"squad": normalize, "none": str,
                                              "lower-tokens": _lower_tokens,
                                              "unicode": _unicode}
    return found[name]


@dataclass(frozen=True)
class Counts:
    """Precision and recall counts: the numerators differ, and are fractions under ``prop``."""

    p_num: float = 0
    p_den: int = 0
    r_num: float = 0
    r_den: int = 0

    def __add__(self, other: Counts) -> Counts:
        return Counts(self.p_num + other.p_num, self.p_den + other.p_den,
                      self.r_num + other.r_num, self.r_den + other.r_den)

    @property
    def precision(self) -> float:
        return 0.0 if self.p_num == 0 else self.p_num / self.p_den

    @property
    def recall(self) -> float:
        return 0.0 if self.r_num == 0 else self.r_num / self.r_den

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 0.0 if p + r == 0 else 2 * p * r / (p + r)

    def to_dict(self) -> dict[str, float]:
        return {**asdict(self), "precision": self.precision, "recall": self.recall,
                "f1": self.f1}
