"""Every comparison of a run as columns: what :func:`~muceval.significance.engine.compare`
returns for its hundreds of thousands of pairs and metrics at a leaderboard's size.

A :class:`ComparisonTable` is a sequence of :class:`~muceval.significance.comparison.Comparison`
that keeps arrays (pairs × metrics) and makes a comparison only when one is read. Its JSON
and CSV are written from the arrays, each number formatted by the encoder that formats a
:class:`Comparison`'s (Python's ``repr`` of a float), so that the text is the same as that
of the objects (``tests/test_comparison_table.py``), at a fraction of the time (issue 30).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, overload

import numpy as np

from muceval.core.jsontext import number_texts
from muceval.significance.classic import CLASSIC_FIELDS, ClassicColumns, ClassicTests
from muceval.significance.comparison import CSV_CLASSIC, Comparison

__all__ = ["ComparisonTable"]

@dataclass(frozen=True, eq=False)
class ComparisonTable(Sequence[Comparison]):
    """Comparisons of pairs ``(names[first[k]], names[second[k]])`` on ``metrics``, pair by
    pair and metric by metric (comparison ``i`` is pair ``i // len(metrics)``, metric
    ``i % len(metrics)``).

    ``values``: systems × metrics; ``units``: per pair; the other arrays pairs × metrics,
    ``nge`` -1 where exact; ``ci``: pairs × metrics × 2 or None; ``classic``: per metric
    or None.
    """

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
        """The comparison of ``a`` (first) with ``b`` for ``metric``, or None if the table
        has none in that order."""
        systems, metrics = self._positions
        if a not in systems or b not in systems or metric not in metrics:
            return None
        k = self._pair_index.get((systems[a], systems[b]))
        return None if k is None else self._make(k, metrics[metric])

    # -- text -----------------------------------------------------------------------------

    def _flat(self, array: np.ndarray) -> np.ndarray:
        """A pairs × metrics array in the order of the comparisons."""
        return array.reshape(len(self.first) * len(self.metrics))

    def _per_pair(self, values: Sequence[Any]) -> list[Any]:
        """A value per pair, repeated for each metric."""
        return np.repeat(np.asarray(values, dtype=object), len(self.metrics)).tolist()

    def _per_metric(self, values: Sequence[Any]) -> list[Any]:
        """A value per metric, for each pair."""
        return list(values) * len(self.first)

    def _chosen(self, mask: np.ndarray, yes: str, no: str) -> list[str]:
        """``yes`` where ``mask`` (pairs × metrics) holds, else ``no``."""
        chosen: list[str] = np.array([no, yes], dtype=object)[
            self._flat(mask).astype(np.intp)].tolist()
        return chosen

    def json_rows(self) -> list[str]:
        """Each comparison as ``json.dumps(comparison.to_dict())`` writes it: one template
        filled per comparison, from columns of JSON texts (each number formatted once by
        the C encoder, :func:`_literals`)."""
        if len(self) == 0:
            return []
        template, columns = self._json_columns()
        return [template % row for row in zip(*columns, strict=True)]

    def json_joined(self, separator: str, block: int = 10_000) -> Iterator[str]:
        """``separator.join(self.json_rows())`` in pieces of ``block`` rows: the template's
        pieces and the columns' texts interleaved by slices of one list and joined once
        (about twice as fast as filling the template row by row)."""
        if len(self) == 0:
            return
        template, columns = self._json_columns()
        pieces = _pieces(template)
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

    def _json_columns(self) -> tuple[str, list[list[str]]]:
        """The %-template of one comparison's JSON and the texts that fill it, by column."""
        encode = json.dumps
        names = np.array([encode(n) for n in self.names], dtype=object)
        value_a = self.values[self.first]
        value_b = self.values[self.second]
        shuffles = "null" if self.shuffles is None else encode(self.shuffles)
        nge = np.where(self._flat(self.exact), "null", self._flat(self.nge).astype(str))
        columns: list[list[str]] = [
            self._per_pair(names[self.first]), self._per_pair(names[self.second]),
            self._per_metric([encode(m) for m in self.metrics]),
            _literals(value_a), _literals(value_b), _literals(value_a - value_b),
            _literals(self.p_value), self._chosen(self.exact, '"exact"', '"approximate"'),
            self._chosen(self.exact, "null", shuffles), nge.tolist(),
            _literals(self.confidence), _literals(self.error_bound),
            _literals(self.p_adjusted), self._chosen(self.significant, "true", "false"),
            self._per_pair(_literals(self.units)),
        ]
        template = ('{"a": %s, "b": %s, "metric": %s, "value_a": %s, "value_b": %s, '
                    '"difference": %s, "p_value": %s, "method": %s, "shuffles": %s, '
                    f'"nge": %s, "confidence": %s, "error_bound": %s, '
                    f'"alternative": {_percent(encode(self.alternative))}, '
                    '"p_adjusted": %s, "significant": %s, "units": %s, "ci": ')
        if self.ci is None:
            template += "null"
        else:
            template += "[%s, %s]"
            columns += [_literals(self.ci[..., 0]), _literals(self.ci[..., 1])]
        template += ', "classic": '
        if self.classic is None:
            template += "null}"
        else:
            # Each field interleaved metric by metric, as the comparisons are.
            def interleaved(name: str) -> np.ndarray:
                return np.stack([c.values[name] for c in self.classic or ()], axis=1)

            columns.append(_literals(np.stack([c.units for c in self.classic], axis=1)))
            columns += [_literals(interleaved(n), none_for_nan=True)
                        for n in CLASSIC_FIELDS[:-1]]
            columns.append(self._per_metric([f'"of": {encode(c.of)}, "reason": '
                                             f'{encode(c.reason)}' for c in self.classic]))
            columns.append(_literals(interleaved("yeh_factor"), none_for_nan=True))
            template += ('{"units": %s, "correlation": %s, "sign": %s, "wilcoxon": %s, '
                         '"paired_t": %s, "two_sample_t": %s, "chi2": %s, "binomial": %s, %s, '
                         '"yeh_factor": %s}}')
        return template, columns

    def csv_joined(self, block: int = 10_000) -> Iterator[str]:
        """The rows of :meth:`csv_rows` as ``csv.writer(f, lineterminator="\\n")`` writes
        them, in pieces of ``block`` rows: every number formatted by
        :func:`~muceval.core.jsontext.number_texts` (as ``str`` writes it), every name
        quoted once, the fields joined by slices of one list."""
        if len(self) == 0:
            return
        columns = self._csv_columns()
        step = 2 * len(columns)
        for start in range(0, len(self), block):
            stop = min(len(self), start + block)
            rows = stop - start
            flat: list[str] = [","] * (rows * step)
            for j, column in enumerate(columns):
                flat[2 * j::step] = column[start:stop]
            flat[step - 1::step] = ["\n"] * rows
            yield "".join(flat)

    def _csv_columns(self) -> list[list[str]]:
        """The fields of :meth:`csv_rows` as CSV text, by column."""
        n = len(self)
        value_a = self.values[self.first]
        value_b = self.values[self.second]
        names = np.array([_csv_field(name) for name in self.names], dtype=object)
        shuffles = "" if self.shuffles is None else str(self.shuffles)
        empty = [""] * n
        if self.ci is None:
            ci_low = ci_high = empty
        else:
            ci_low, ci_high = _csv_numbers(self.ci[..., 0]), _csv_numbers(self.ci[..., 1])
        if self.classic is None:
            classic = [empty] * len(CSV_CLASSIC)
        else:
            classic = [_csv_numbers(np.stack([c.values[name] for c in self.classic], axis=1),
                                    nan="") for name in CSV_CLASSIC]
        return [
            self._per_metric([_csv_field(m) for m in self.metrics]),
            self._per_pair(names[self.first]), self._per_pair(names[self.second]),
            _csv_numbers(value_a), _csv_numbers(value_b), _csv_numbers(value_a - value_b),
            _csv_numbers(self.p_value), _csv_numbers(self.p_adjusted),
            self._chosen(self.exact, "exact", "approximate"),
            self._chosen(self.exact, "", shuffles),
            _csv_numbers(self.confidence), _csv_numbers(self.error_bound),
            self._chosen(self.significant, "1", "0"),
            [_csv_field(self.alternative)] * n, self._per_pair(_csv_numbers(self.units)),
            ci_low, ci_high, *classic,
        ]

    def csv_rows(self) -> Iterator[list[Any]]:
        """Each comparison as :func:`~muceval.significance.comparison.csv_row` lays it out."""
        if len(self) == 0:
            return iter(())
        value_a = self.values[self.first]
        value_b = self.values[self.second]
        exact = self._flat(self.exact).tolist()
        shuffles = "" if self.shuffles is None else self.shuffles
        if self.ci is None:
            ci_low = ci_high = [""] * len(self)
        else:
            ci_low = self._flat(self.ci[..., 0]).tolist()
            ci_high = self._flat(self.ci[..., 1]).tolist()
        if self.classic is None:
            classic = [[""] * len(self)] * len(CSV_CLASSIC)
        else:
            classic = [["" if v != v else v for v in np.stack(
                [c.values[name] for c in self.classic], axis=1).reshape(-1).tolist()]
                for name in CSV_CLASSIC]
        columns: list[list[Any]] = [
            self._per_metric(self.metrics),
            self._per_pair([self.names[i] for i in self.first.tolist()]),
            self._per_pair([self.names[i] for i in self.second.tolist()]),
            self._flat(value_a).tolist(), self._flat(value_b).tolist(),
            self._flat(value_a - value_b).tolist(), self._flat(self.p_value).tolist(),
            self._flat(self.p_adjusted).tolist(),
            ["exact" if e else "approximate" for e in exact],
            ["" if e else shuffles for e in exact],
            self._flat(self.confidence).tolist(), self._flat(self.error_bound).tolist(),
            self._flat(self.significant).astype(np.int64).tolist(),
            [self.alternative] * len(self), self._per_pair(self.units.tolist()),
            ci_low, ci_high, *classic,
        ]
        return (list(row) for row in zip(*columns, strict=True))


def _literals(values: np.ndarray, *, none_for_nan: bool = False) -> list[str]:
    """Each value as JSON text, in C order (``none_for_nan``: NaN is null), by
    :func:`_texts`."""
    return _texts(values, "null" if none_for_nan else "NaN", "Infinity")


def _csv_numbers(values: np.ndarray, nan: str = "nan") -> list[str]:
    """Each value as the csv module writes it (``str``), in C order; NaN as ``nan``."""
    return _texts(values, nan, "inf")


def _texts(values: np.ndarray, nan: str, infinity: str) -> list[str]:
    """:func:`~muceval.core.jsontext.number_texts` of ``values``. A column of few distinct
    floats (scores, p-values of a shuffle count) has each formatted once and its texts
    shared; -0.0, which sorts with 0.0 but reads "-0.0", keeps every value apart."""
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


def _pieces(template: str) -> list[str]:
    """The literal text between a %-template's ``%s`` (``%%`` read as ``%``)."""
    pieces = [""]
    for token in re.split(r"(%.)", template):
        if token == "%s":
            pieces.append("")
        else:
            pieces[-1] += "%" if token == "%%" else token
    return pieces


def _percent(text: str) -> str:
    """``text`` as a literal part of a %-template."""
    return text.replace("%", "%%")
