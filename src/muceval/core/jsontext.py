"""JSON texts of many numbers at once, each exactly as :func:`json.dumps` writes it.

A leaderboard's JSON holds millions of distinct floats: ``repr`` takes about a microsecond
each, orjson some fifty nanoseconds, with the same digits and notation except between 1e-9 and
1e-4 (``0.00005`` for ``5e-05``); those, NaN and the infinities go through :mod:`json`. A probe
when first used checks the installed orjson agrees; if not, every value goes through it.
"""

from __future__ import annotations

import json
from functools import cache

import numpy as np

__all__ = ["number_texts"]


def number_texts(values: np.ndarray, nan: str = "NaN", infinity: str = "Infinity") -> list[str]:
    """Each value of ``values`` (integers or floats, any shape, in C order) as JSON text,
    NaN written as ``nan`` and the infinities as ``infinity`` and ``-`` + ``infinity``
    (``nan="nan", infinity="inf"``: what ``str`` writes, as the csv module does).

    >>> number_texts(np.array([0.5, 5e-05, np.nan, 3.0]), nan="null")
    ['0.5', '5e-05', 'null', '3.0']
    >>> number_texts(np.array([np.inf, -np.inf, 0.25]), nan="nan", infinity="inf")
    ['inf', '-inf', '0.25']
    >>> number_texts(np.array([[1, 2], [3, 4]]))
    ['1', '2', '3', '4']
    """
    flat = np.asarray(values).reshape(-1)
    if flat.size == 0:
        return []
    kind = flat.dtype.kind
    if kind not in "iuf" or not _orjson_agrees():
        return _by_json(flat, nan, infinity)
    import orjson

    flat = np.ascontiguousarray(flat, dtype={"f": np.float64, "u": np.uint64}.get(kind, np.int64))
    texts = orjson.dumps(flat, option=orjson.OPT_SERIALIZE_NUMPY).decode()[1:-1].split(",")
    if kind == "f":
        magnitude = np.abs(flat)
        other = np.flatnonzero(~np.isfinite(flat) | ((magnitude < 1e-4) & (magnitude > 0)))
        for i, text in zip(other.tolist(), _by_json(flat[other], nan, infinity), strict=True):
            texts[i] = text
    return texts


def _by_json(flat: np.ndarray, nan: str, infinity: str) -> list[str]:
    """:func:`number_texts` by :mod:`json` alone (one call of its C encoder)."""
    if flat.size == 0:
        return []
    texts = json.dumps(flat.tolist())[1:-1].split(", ")
    if (nan, infinity) != ("NaN", "Infinity") and flat.dtype.kind == "f":
        other = {"NaN": nan, "Infinity": infinity, "-Infinity": "-" + infinity}
        texts = [other.get(t, t) for t in texts]
    return texts


_PROBE = (0.0, -0.0, 1.0, -2.5, 0.1, 1 / 3, 100.0, 12345678.0, 123456789012345.6,
          1e15, 9999999999999998.0, 1e16, 1.2345678901234568e17, 1.7976931348623157e308,
          1e-4, 0.00010000000000000002, 0.001234, 2.2250738585072014e-308, 5e-324, -7e22)
"""Values whose notation changes or whose digits are hard, on both sides of each limit."""


@cache
def _orjson_agrees() -> bool:
    """Whether the installed orjson writes the probe values and integers as :mod:`json` does."""
    try:
        import orjson
    except ImportError:  # pragma: no cover - a declared dependency
        return False
    floats = np.array(_PROBE, dtype=np.float64)
    ints = np.array([0, -1, 2**53 + 1, -(2**63)], dtype=np.int64)
    return (orjson.dumps(floats, option=orjson.OPT_SERIALIZE_NUMPY).decode()
            == json.dumps(list(_PROBE)).replace(", ", ",")
            and orjson.dumps(ints, option=orjson.OPT_SERIALIZE_NUMPY).decode()
            == json.dumps(ints.tolist()).replace(", ", ","))
