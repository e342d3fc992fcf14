"""Every comparison of a run as columns (a leaderboard has hundreds of thousands), its JSON
and CSV written from the arrays, much faster, in the text of the objects.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields
from functools import cached_property
from typing import Any, overload

import numpy as np

from muceval.core.jsontext import number_texts
from muceval.significance.classic import CLASSIC_FIELDS, ClassicColumns, ClassicTests
from muceval.significance.comparison import CSV_FIELDS, FIELDS, Comparison, csv_cell

__all__ = ["ComparisonTable"]


@dataclass(frozen=True, eq=False)
class ComparisonTable(Sequence[Comparison]):
    """Comparisons of pairs ``(names[first[k]], names[second[k]])`` on ``metrics``, pair by
    pair and metric by metric, made when read. ``values``: systems × metrics; ``units``: per
    pair; the other arrays pairs × metrics, ``nge`` -1 where exact; ``ci``: pairs × metrics
    × 2 or None; ``classic``: per metric or None."""

    names: tuple[str, ...]
    metrics: tuple[str, ...]
    first: np.ndarray
    second: np.ndarray
    values: np.ndarray
    p_value: np.ndarray
    exact: np.ndarray
    nge: np.ndarray
    shuffles: int | None
    confidence: np.ndarray
    error_bound: np.ndarray
    alternative: str
    p_adjusted: np.ndarray
    significant: np.ndarray
    units: np.ndarray
    ci: np.ndarray | None = None
    classic: tuple[ClassicColumns, ...] | None = None

    def __len__(self) -> int:
        return len(self.first) * len(self.metrics)

    @overload
    def __getitem__(self, i: int) -> Comparison: ...

    @overload
    def __getitem__(self, i: slice) -> list[Comparison]: ...

    def __getitem__(self, i: int | slice) -> Comparison | list[Comparison]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if not -len(self) <= i < len(self):
            raise IndexError(i)
        k, m = divmod(i % len(self), len(self.metrics))
        return self._make(k, m)

    def __iter__(self) -> Iterator[Comparison]:
        for k in range(len(self.first)):
            for m in range(len(self.metrics)):
                yield self._make(k, m)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(x == y for x, y in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def _make(self, k: int, m: int) -> Comparison:
        a, b = int(self.first[k]), int(self.second[k])
        value_a, value_b = float(self.values[a, m]), float(self.values[b, m])
        exact = bool(self.exact[k, m])
        classic: ClassicTests | None = None if self.classic is None else self.classic[m].row(k)
        return Comparison(
            a=self.names[a], b=self.names[b], metric=self.metrics[m], value_a=value_a,
            value_b=value_b, difference=value_a - value_b, p_value=float(self.p_value[k, m]),
            method="exact" if exact else "approximate",
            shuffles=None if exact else self.shuffles,
            nge=None if exact else int(self.nge[k, m]),
            confidence=float(self.confidence[k, m]),
            error_bound=float(self.error_bound[k, m]), alternative=self.alternative,
            p_adjusted=float(self.p_adjusted[k, m]), significant=bool(self.significant[k, m]),
            units=int(self.units[k]),
            ci=None if self.ci is None else (float(self.ci[k, m, 0]), float(self.ci[k, m, 1])),
            classic=classic)

    @cached_property
    def _pair_index(self) -> dict[tuple[int, int], int]:
        return {pair: k for k, pair in enumerate(zip(self.first.tolist(), self.second.tolist(),
                                                     strict=True))}

    @cached_property
    def _positions(self) -> tuple[dict[str, int], dict[str, int]]:
        return ({n: i for i, n in enumerate(self.names)},
                {m: i for i, m in enumerate(self.metrics)})

    def find(self, a: str, b: str, metric: str) -> Comparison | None:
        """The comparison of ``a`` (first) with ``b`` for ``metric``, or None."""
        systems, metrics = self._positions
        if a not in systems or b not in systems or metric not in metrics:
            return None
        k = self._pair_index.get((systems[a], systems[b]))
        return None if k is None else self._make(k, metrics[metric])

    def _sources(self) -> dict[str, Any]:
        """Each field of :data:`~muceval.significance.comparison.FIELDS` for every comparison,
        which every writer follows: :class:`_Numbers` or :class:`_Choices`, a tuple of them
        (a pair), a dict of them (an object) or None (no value in any comparison)."""
        value_a, value_b = self.values[self.first], self.values[self.second]
        metric = np.arange(len(self.metrics))[None, :]
        classic = None
        if self.classic is not None:
            stacked = self._classic_arrays(self.classic)
            parts: dict[str, Any] = {
                "units": _Numbers(stacked["units"]),
                **{n: _Numbers(stacked[n], missing=True) for n in CLASSIC_FIELDS},
                "of": _Choices(tuple(c.of for c in self.classic), metric),
                "reason": _Choices(tuple(c.reason for c in self.classic), metric)}
            classic = {f.name: parts[f.name] for f in fields(ClassicTests)}
        return {
            "a": _Choices(self.names, self.first[:, None]),
            "b": _Choices(self.names, self.second[:, None]),
            "metric": _Choices(self.metrics, metric), "value_a": _Numbers(value_a),
            "value_b": _Numbers(value_b), "difference": _Numbers(value_a - value_b),
            "p_value": _Numbers(self.p_value),
            "method": _Choices(("approximate", "exact"), self.exact),
            "shuffles": _Choices((self.shuffles, None), self.exact),
            "nge": _Numbers(self.nge, missing=self.exact),
            "confidence": _Numbers(self.confidence), "error_bound": _Numbers(self.error_bound),
            "alternative": _Choices((self.alternative,)), "p_adjusted": _Numbers(self.p_adjusted),
            "significant": _Choices((False, True), self.significant),
            "units": _Numbers(self.units[:, None]),
            "ci": None if self.ci is None else (_Numbers(self.ci[..., 0]),
                                                _Numbers(self.ci[..., 1])),
            "classic": classic,
        }

    def _spread(self, each: list[Any], shape: tuple[int, ...]) -> list[Any]:
        """Values of an array of ``shape`` (C order) for every comparison it broadcasts to."""
        size = (len(self.first), len(self.metrics))
        if shape == size:
            return each
        spread: list[Any] = np.broadcast_to(np.array(each, dtype=object).reshape(shape),
                                            size).reshape(-1).tolist()
        return spread

    def _column(self, source: _Numbers | _Choices, style: str) -> str | list[Any]:
        """A field's values in ``style``, one per comparison, or one for all (a str)."""
        if isinstance(source, _Choices):
            options = [json.dumps(o) if style == "json" else csv_cell(o) for o in source.options]
            if style == "csv":
                options = [_csv_field(str(o)) for o in options]
            if source.codes is None or (style != "cells" and len(set(options)) == 1):
                return options[0] if style != "cells" else [options[0]] * len(self)
            codes = np.broadcast_to(source.codes, (len(self.first), len(self.metrics)))
            chosen: list[Any] = np.array(options, dtype=object)[
                codes.reshape(-1).astype(np.intp)].tolist()
            return chosen
        values = np.asarray(source.values)
        null = {"json": "null", "csv": "", "cells": ""}[style]
        if style == "cells":
            each = values.reshape(-1).tolist()
            if source.missing is True:
                each = [null if v != v else v for v in each]
        else:
            nan = null if source.missing is True else "NaN" if style == "json" else "nan"
            each = _texts(values, nan, "Infinity" if style == "json" else "inf")
        if isinstance(source.missing, np.ndarray):
            each = np.where(source.missing.reshape(-1), null,
                            np.array(each, dtype=object)).tolist()
        return self._spread(each, values.shape)

    def _json_columns(self) -> tuple[list[str], list[list[str]]]:
        """The texts between a comparison's varying values, and those values by column."""
        pieces: list[str] = [""]
        columns: list[list[str]] = []
        sources = self._sources()
        self._put({f.name: sources[f.name] for f in FIELDS}, pieces, columns)
        return pieces, columns

    def _put(self, source: Any, pieces: list[str], columns: list[list[str]]) -> None:
        """Lay ``source`` out (a method, not a closure that refers to itself: such a cycle
        held the whole text until a full collection)."""
        if isinstance(source, (_Numbers, _Choices)):
            column = self._column(source, "json")
            if isinstance(column, str):
                pieces[-1] += column
            else:
                columns.append(column)
                pieces.append("")
        elif isinstance(source, tuple):
            pieces[-1] += "["
            for i, part in enumerate(source):
                pieces[-1] += ", " if i else ""
                self._put(part, pieces, columns)
            pieces[-1] += "]"
        elif isinstance(source, dict):
            pieces[-1] += "{"
            for i, (key, part) in enumerate(source.items()):
                pieces[-1] += (", " if i else "") + json.dumps(key) + ": "
                self._put(part, pieces, columns)
            pieces[-1] += "}"
        else:
            pieces[-1] += "null"

    def json_joined(self, separator: str, block: int = 10_000) -> Iterator[str]:
        """Each comparison as ``json.dumps(comparison.to_dict())`` writes it, joined by
        ``separator``, in pieces of ``block`` rows (interleaved by slices of one list: twice
        as fast as filling a template row by row)."""
        if len(self) == 0:
            return
        pieces, columns = self._json_columns()
        step = len(pieces) + len(columns)
        for start in range(0, len(self), block):
            stop = min(len(self), start + block)
            rows = stop - start
            flat: list[str] = [""] * (rows * step)
            flat[0::step] = [separator + pieces[0]] * rows
            for j, column in enumerate(columns):
                flat[2 * j + 1::step] = column[start:stop]
                flat[2 * j + 2::step] = [pieces[j + 1]] * rows
            if start == 0:
                flat[0] = pieces[0]
            yield "".join(flat)

    def _csv_columns(self, style: str) -> list[str | list[Any]]:
        """The columns of :data:`~muceval.significance.comparison.CSV_HEADER` in ``style``."""
        sources = self._sources()
        columns: list[str | list[Any]] = []
        for f in CSV_FIELDS:
            source = sources[f.name]
            parts = ([source] if not f.columns else [None] * len(f.columns) if source is None
                     else list(source) if isinstance(source, tuple)
                     else [source[c] for c in f.columns])
            columns += [self._column(p, style) if p is not None
                        else "" if style == "csv" else [""] * len(self) for p in parts]
        return columns

    def csv_joined(self, block: int = 10_000) -> Iterator[str]:
        """The rows of :meth:`csv_rows` as ``csv.writer`` writes them, in pieces."""
        if len(self) == 0:
            return
        columns = self._csv_columns("csv")
        step = 2 * len(columns)
        for start in range(0, len(self), block):
            stop = min(len(self), start + block)
            rows = stop - start
            flat: list[str] = [","] * (rows * step)
            for j, column in enumerate(columns):
                flat[2 * j::step] = ([column] * rows if isinstance(column, str)
                                     else column[start:stop])
            flat[step - 1::step] = ["\n"] * rows
            yield "".join(flat)

    def arrays(self) -> dict[str, np.ndarray]:
        """The table as NumPy arrays (a leaderboard's pairs file), ``a`` and ``b`` indices into
        ``names``, NaN where a classic test is n/a; no scores."""
        out: dict[str, np.ndarray] = {
            "a": self.first.astype(np.int32), "b": self.second.astype(np.int32),
            "units": np.asarray(self.units, dtype=np.int64),
            "p_value": self.p_value, "p_adjusted": self.p_adjusted,
            "confidence": self.confidence, "error_bound": self.error_bound,
            "nge": self.nge.astype(np.int64),
            "exact": self.exact.astype(bool), "significant": self.significant.astype(bool)}
        if self.ci is not None:
            out["ci_low"], out["ci_high"] = self.ci[..., 0], self.ci[..., 1]
        if self.classic is not None:
            out |= {f"classic_{name}": v for name, v in self._classic_arrays(self.classic).items()}
        return out

    @staticmethod
    def _classic_arrays(classic: Sequence[ClassicColumns]) -> dict[str, np.ndarray]:
        """``units`` and each of :data:`CLASSIC_FIELDS`, pairs × metrics."""
        columns = {"units": [c.units for c in classic]}
        columns |= {name: [c.values[name] for c in classic] for name in CLASSIC_FIELDS}
        return {name: np.stack(values, axis=1) for name, values in columns.items()}

    def csv_rows(self) -> Iterator[list[Any]]:
        """Each comparison as :func:`~muceval.significance.comparison.csv_row` lays it out."""
        if len(self) == 0:
            return iter(())
        return (list(row) for row in zip(*self._csv_columns("cells"), strict=True))


@dataclass(frozen=True)
class _Numbers:
    """A field's numbers (broadcast to pairs × metrics); none where ``missing`` (True: NaN)."""

    values: np.ndarray
    missing: np.ndarray | bool = False


@dataclass(frozen=True)
class _Choices:
    """A field of a few ``options``: ``codes`` (broadcast) says which, None the first."""

    options: Sequence[Any]
    codes: np.ndarray | None = None


def _texts(values: np.ndarray, nan: str, infinity: str) -> list[str]:
    """:func:`~muceval.core.jsontext.number_texts` of ``values``, each of few distinct floats
    formatted once; -0.0, which sorts with 0.0 but reads "-0.0", keeps every value apart."""
    flat = np.asarray(values).reshape(-1)
    if flat.dtype.kind == "f" and flat.size > 64 and not np.any((flat == 0) & np.signbit(flat)):
        unique, inverse = np.unique(flat, return_inverse=True)
        if 2 * len(unique) < flat.size:
            texts = np.array(number_texts(unique, nan, infinity), dtype=object)
            each: list[str] = texts[inverse.reshape(-1)].tolist()
            return each
    return number_texts(flat, nan, infinity)


def _csv_field(text: str) -> str:
    """``text`` as a field of a row the csv module writes (quoted where it must be)."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow([text, ""])
    return buffer.getvalue()[:-2]
