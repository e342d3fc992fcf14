"""How a system's name is shown: one rule for the terminal, the HTML page and its figures;
machine-readable output keeps the full name."""

from __future__ import annotations

import os
from collections.abc import Iterable

__all__ = ["display_names", "short_names"]

_SEPARATORS = "._- "


def display_names(names: Iterable[str]) -> dict[str, str]:
    """Each name without the start and the end that all ``names`` share, cut at a separator
    (``.``, ``_``, ``-``, space); the full names if that would leave one empty or two equal.

    >>> display_names(["GE.tst3-pass1", "BBN.tst3-pass1"])
    {'GE.tst3-pass1': 'GE', 'BBN.tst3-pass1': 'BBN'}
    >>> display_names(["preds.bart-base.test", "preds.t5-large.test"])
    {'preds.bart-base.test': 'bart-base', 'preds.t5-large.test': 't5-large'}
    >>> display_names(["alpha"])
    {'alpha': 'alpha'}
    """
    names = list(dict.fromkeys(names))
    if len(names) < 2:
        return {n: n for n in names}
    start = _at_separator(os.path.commonprefix(names))
    end = _at_separator(os.path.commonprefix([n[::-1] for n in names]))
    cores = [n[start: len(n) - end] if start + end < len(n) else "" for n in names]
    if all(cores) and len(set(cores)) == len(cores):
        return dict(zip(names, cores, strict=True))
    return {n: n for n in names}


def short_names(names: Iterable[str], limit: int = 12) -> dict[str, str]:
    """:func:`display_names` of at most ``limit`` characters, kept distinct: a longer one
    loses its middle to ``…``, numbered where two cuts would still read the same.

    >>> short_names(["preds.bart-base.test", "preds.bart-large.test"], limit=6)
    {'preds.bart-base.test': 'base', 'preds.bart-large.test': 'large'}
    >>> short_names(["system-one-a", "system-one-b", "other"], limit=5)
    {'system-one-a': 'sy…-a', 'system-one-b': 'sy…-b', 'other': 'other'}
    >>> short_names(["x-aaaa-1-zzz", "x-aaaa-2-zzz", "b"], limit=5)
    {'x-aaaa-1-zzz': 'x-…zz', 'x-aaaa-2-zzz': 'x-a…2', 'b': 'b'}
    """
    shown = display_names(names)
    out: dict[str, str] = {}
    used: set[str] = set()
    for name, core in shown.items():
        short = core if len(core) <= limit else _middle_cut(core, limit)
        n = 2
        while short in used:
            short = f"{core[: max(0, limit - 1 - len(str(n)))]}…{n}"
            n += 1
        used.add(short)
        out[name] = short
    return out


def _middle_cut(text: str, limit: int) -> str:
    head = limit // 2
    return text[:head] + "…" + text[len(text) - (limit - 1 - head):]


def _at_separator(shared: str) -> int:
    return max(shared.rfind(c) for c in _SEPARATORS) + 1
