"""Where a mention is in its document (its first occurrence: offsets are not read), and how
much two such places overlap (Das et al. 2022's span comparison score, SCS)."""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["NOT_FOUND", "Span", "SpanFinder", "chars", "document_string", "nearest", "scs"]

Span = tuple[int, int]  # in the normalised document, the end inclusive

# The span of every absent mention, so that they match one another exactly: a defect of the
# original kept on purpose (docs/error-analysis.md).
NOT_FOUND: Span = (1, 0)

_ARTICLES = re.compile(r"\b(a|an|the)\b")


def chars(text: str) -> str:
    """``text`` lower-cased, the articles replaced by a space, then only letters and digits.

    >>> chars("The Shining-Path's  1st front"), chars("the-army"), chars("thearmy")
    ('shiningpaths1stfront', 'army', 'thearmy')
    """
    return "".join(filter(str.isalnum, _ARTICLES.sub(" ", text.lower())))


def document_string(doctext: str) -> str:
    """The string mentions are looked for in: word pieces re-joined, then :func:`chars`.

    >>> document_string("the salvador ##an army")
    'salvadoranarmy'
    """
    return chars(doctext.replace(" ##", ""))


class SpanFinder:
    """The spans of mentions in one document, each string looked up once.

    >>> find = SpanFinder("In San Salvador, the army...")
    >>> find("san salvador"), find("Salvador"), find("zebra"), find("the")
    ((2, 12), (5, 12), (1, 0), (1, 0))
    """

    def __init__(self, doctext: str) -> None:
        self.document = document_string(doctext)
        self._spans: dict[str, Span] = {}

    def __call__(self, mention: str) -> Span:
        span = self._spans.get(mention)
        if span is None:
            m = chars(mention)
            start = self.document.find(m) if m else -1
            span = NOT_FOUND if start < 0 else (start, start + len(m) - 1)
            self._spans[mention] = span
        return span


def scs(a: Span, b: Span) -> float:
    """The SCS of a predicted span ``a`` and a gold span ``b``: 0 (exact) for equal spans,
    ``1 - I²/(la·lb)`` for overlapping ones (below 1: a partial match), else 1.

    >>> scs((2, 12), (2, 12)), scs((5, 12), (2, 12)), scs((1, 0), (2, 12)), scs((3, 3), (3, 3))
    (0, 0.30000000000000004, 1.0, 0)
    """
    if a == b:
        return 0
    la = abs(a[1] - a[0])
    lb = abs(b[1] - b[0])
    inter = max(0, min(a[1], b[1]) - max(a[0], b[0]))
    if la * lb > 0:
        return 1 - inter ** 2 / (la * lb)
    return 1


def nearest(span: Span, mentions: Iterable[str], find: SpanFinder) -> tuple[float, int]:
    """The smallest SCS of ``span`` to ``mentions`` and the first index reaching it (2.0, -1)."""
    best, where = 2.0, -1
    for n, mention in enumerate(mentions):
        value = scs(span, find(mention))
        if value < best:
            best, where = value, n
    return best, where
