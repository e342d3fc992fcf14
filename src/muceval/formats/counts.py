"""Counts read from text: every reader of counts uses :func:`parse_count`, so ``1_0``, ``+3``,
``1e3``, ``²`` and ``10**30`` are refused the same way everywhere."""

from __future__ import annotations

import re

from muceval.core.units import MAX_COUNT

__all__ = ["parse_count"]

_DIGITS = re.compile(r"[0-9]+")


def parse_count(text: str) -> int:
    """The non-negative integer written in ``text``; ``ValueError`` saying why not.

    >>> parse_count("42")
    42
    >>> parse_count("1_0")
    Traceback (most recent call last):
    ...
    ValueError: not a count (digits 0-9 only): '1_0'
    """
    token = text.strip()
    if token.isascii() and token.isdigit() and len(token) < 10:
        return int(token)  # the common case, fast: nine digits stay below MAX_COUNT
    if not _DIGITS.fullmatch(token):
        raise ValueError(f"not a count (digits 0-9 only): {token!r}")
    if len(token) > 12 or int(token) > MAX_COUNT:
        raise ValueError(f"count {token[:20]}{'...' if len(token) > 20 else ''} is larger than "
                         f"any tally can be (at most {MAX_COUNT:,})")
    return int(token)
