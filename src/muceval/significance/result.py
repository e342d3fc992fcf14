"""What a significance analysis found: :class:`SignificanceResult`."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from muceval.core.measures import ranking_measure
from muceval.core.metrics import METRIC_LABELS
from muceval.core.signature import document_header
from muceval.errors import UsageError
from muceval.significance.comparison import CSV_HEADER, Comparison, csv_row
from muceval.significance.settings import RunRecord
from muceval.significance.table import ComparisonTable

__all__ = ["CSV_HEADER", "GROUPINGS_ABOUT", "Comparison", "SignificanceResult", "csv_row",
           "metric_label"]

_RATIO_LABELS = {"precision": "P", "recall": "R", "f1": "F1"}


def metric_label(metric: str, settings: Mapping[str, Any]) -> str:
    """The MUC name of a metric, or P, R and F1 for the modern scorers' counts."""
    if settings.get("ratio"):
        return _RATIO_LABELS.get(metric, metric)
    return METRIC_LABELS.get(metric, metric)


GROUPINGS_ABOUT = {
    "groups": "MUC-4's groupings: maximal runs of neighbours in the ranking with no "
              "significant difference inside (a system may be in several)",
    "letters": "the compact letter display the terminal and the report show: systems sharing "
               "a letter are not significantly different, systems with none in common are",
    "letter_groups": "the systems of each letter: maximal sets of mutually non-different "
                     "systems, not only neighbours",
}


# Where the comparisons go in a one-line JSON document (a string no result holds).
_PLACE = "\0comparisons\0"


@dataclass(frozen=True)
class SignificanceResult:
    """Everything :func:`compare` or :func:`compare_ratios` found; ``to_json()`` is the
    machine-readable form.

    Attributes
    ----------
    systems, metrics : tuple of str
        The systems, in the order of the tallies, and the metrics tested.
    scores : dict of str to dict of str to float
        Each system's score on each metric, a fraction from its summed tallies.
    comparisons : sequence of Comparison
        One per pair (``a`` before ``b`` in system order) and metric.
    groups : dict of str to list of list of str
        Per metric, the MUC-4 groupings: maximal runs of systems, by score, none two of which
        differ significantly.
    letters : dict of str to dict of str to str
        Per metric, the compact letter display: two systems share a letter exactly when
        they do not differ significantly.
    settings : RunRecord
        What produced the result: the settings (the seed drawn included), units, metrics.
    system_ci : dict of str to dict of str to (float, float), or None
        Per system and metric, the bootstrap interval of the score (None without bootstrap).
    letter_groups : dict of str to list of list of str, or None
        Per metric, the groups behind the letters (unlike ``groups``, they may skip a system).

    Examples
    --------
    >>> import muceval
    >>> t = muceval.from_arrays(["A", "B"], ["m1", "m2", "m3", "m4"],
    ...                         [[[2, 2, 2, 0]] * 4, [[2, 2, 1, 0]] * 4])
    >>> settings = muceval.SignificanceSettings(method="exact", bootstrap=0)
    >>> result = muceval.compare(t, ["recall", "precision"], settings)
    >>> result.scores["B"], result.ranking("recall")
    ({'recall': 0.5, 'precision': 0.5}, ['A', 'B'])
    >>> c = result.comparison("B", "A", "recall")  # B − A, whichever order was tested
    >>> c.difference, c.p_value, c.method, c.significant
    (-0.5, 0.125, 'exact', False)
    >>> import json
    >>> json.loads(result.to_json())["groups"]
    {'recall': [['A', 'B']], 'precision': [['A', 'B']]}
    """

    systems: tuple[str, ...]
    metrics: tuple[str, ...]
    scores: dict[str, dict[str, float]]
    comparisons: Sequence[Comparison]
    groups: dict[str, list[list[str]]]
    letters: dict[str, dict[str, str]]
    settings: RunRecord
    system_ci: dict[str, dict[str, tuple[float, float]]] | None = None
    letter_groups: dict[str, list[list[str]]] | None = None
    _index: dict[tuple[str, str, str], Comparison] = field(default_factory=dict, repr=False, compare=False)

    def comparison(self, a: str, b: str, metric: str) -> Comparison:
        """The comparison of ``a`` with ``b`` for ``metric`` (``difference``: a − b)."""
        # Called for every cell of a p-value matrix: two plain branches, no closure.
        if isinstance(self.comparisons, ComparisonTable):
            found = self.comparisons.find(a, b, metric)
            if found is not None:
                return found
            found = self.comparisons.find(b, a, metric)
            if found is None:
                raise KeyError((a, b, metric))
            return found.mirrored()
        if not self._index:
            self._index.update(((c.a, c.b, c.metric), c) for c in self.comparisons)
        found = self._index.get((a, b, metric))
        if found is not None:
            return found
        found = self._index.get((b, a, metric))
        if found is None:
            raise KeyError((a, b, metric))
        return found.mirrored()

    def label(self, metric: str) -> str:
        """:func:`metric_label`."""
        return metric_label(metric, self.settings)

    def ranking(self, metric: str) -> list[str]:
        """Systems by decreasing score (ties by name)."""
        return sorted(self.systems, key=lambda s: (-self.scores[s][metric], s))

    def to_dict(self, comparisons: bool = True) -> dict[str, Any]:
        """The JSON document as Python objects (``comparisons`` False: without them)."""
        return {
            **document_header("muceval-significance", self.settings),
            "systems": self.scores,
            "system_ci": (
                {s: {m: list(ci) for m, ci in v.items()} for s, v in self.system_ci.items()}
                if self.system_ci is not None
                else None
            ),
            "comparisons": [c.to_dict() for c in self.comparisons] if comparisons else None,
            "groups": self.groups,
            "letters": self.letters,
            "letter_groups": self.letter_groups,
            "letters_from_runs": self.letters_from_runs,
            "about": GROUPINGS_ABOUT,
        }

    def to_pandas(self, what: str = "comparisons") -> Any:
        """A data frame (needs pandas): ``what='comparisons'``, one row per pair and metric;
        ``what='systems'``, one row per system in ranking order, its scores and letters."""
        from muceval.core.frames import data_frame

        if what == "systems":
            rows = self._system_rows()
            return data_frame(rows, list(rows[0]) if rows else ["system"])
        if what != "comparisons":
            raise UsageError(f"{what!r}: choose 'comparisons' or 'systems'", parameter="what")
        columns = ["a", "b", "metric", "value_a", "value_b", "difference", "ci_low", "ci_high",
                   "p_value", "p_adjusted", "significant", "method", "units"]
        plain = [k for k in columns if not k.startswith("ci_")]
        return data_frame([{**{k: getattr(c, k) for k in plain},
                            "ci_low": c.ci[0] if c.ci else None,
                            "ci_high": c.ci[1] if c.ci else None}
                           for c in self.comparisons], columns)

    def _system_rows(self) -> list[dict[str, Any]]:
        return [{"rank": n, "system": s,
                 **{k: v for m in self.metrics
                    for k, v in ((m, self.scores[s][m]), (f"{m} letters",
                                                           self.letters[m].get(s, "")))}}
                for n, s in enumerate(self.matrix_order, start=1)]

    def _repr_html_(self) -> str:
        """Scores in percent and letters, ranked."""
        from muceval.core.frames import html_table

        rows = [{k: (f"{100 * v:.2f}" if isinstance(v, float) else v) for k, v in r.items()}
                for r in self._system_rows()]
        chosen = self.settings.settings
        caption = (f"significance: {chosen.method} randomization, {chosen.shuffles} shuffles, "
                   f"seed {chosen.seed}, alpha {chosen.alpha}; systems sharing a letter do not "
                   "differ significantly")
        return html_table(rows, list(rows[0]) if rows else ["system"], caption)

    @property
    def matrix_order(self) -> list[str]:
        """One order of the systems for every metric's matrix."""
        return self.ranking(self.ranking_metric)

    @property
    def ranking_metric(self) -> str:
        """The metric rankings follow: F P&R when tested, else the first metric."""
        return ranking_measure(self.metrics)

    @property
    def letters_from_runs(self) -> list[str]:
        """The metrics whose letters are the MUC-4 groupings' (too many maximal sets of
        non-different systems): there, two systems with no letter in common need not differ."""
        cld = self.letter_groups or {}
        return [m for m in self.metrics if m in cld and cld[m] is self.groups.get(m)]

    def to_json(self, indent: int | None = 2) -> str:
        """JSON; with ``indent``, one comparison per line (the C encoder's: an indented dump
        takes Python's, many times slower)."""
        return "".join(self.json_parts(indent))

    def json_parts(self, indent: int | None = 2) -> Iterator[str]:
        """:meth:`to_json` in consecutive pieces (hundreds of megabytes for a leaderboard)."""
        doc = self.to_dict(comparisons=False)
        if indent is None:
            doc["comparisons"] = _PLACE
            before, after = json.dumps(doc).split(json.dumps(_PLACE), 1)
            yield before + "["
            yield from self._comparison_texts(", ")
            yield "]" + after
            return
        del doc["comparisons"]
        head = json.dumps(doc, indent=indent)
        pad = " " * indent
        yield head[:-2] + f',\n{pad}"comparisons": ['
        if self.comparisons:
            yield f"\n{pad * 2}"
            yield from self._comparison_texts(",\n" + pad * 2)
            yield f"\n{pad}"
        yield "]\n}"

    def _comparison_texts(self, separator: str) -> Iterator[str]:
        """Every comparison as ``json.dumps(c.to_dict())``, joined by ``separator``, in
        pieces. Objects go through the C encoder in one call, split at '}, {"a": ', which
        marks exactly the boundaries: it cannot occur inside a JSON string (its quote would
        be escaped) nor between nested values (no nested object has a key "a")."""
        if isinstance(self.comparisons, ComparisonTable):
            yield from self.comparisons.json_joined(separator)
            return
        if not self.comparisons:
            return
        text = json.dumps([c.to_dict() for c in self.comparisons])[1:-1]
        rows = text.replace('}, {"a": ', '}\0{"a": ').split("\0")
        for start in range(0, len(rows), 10_000):
            yield (separator if start else "") + separator.join(rows[start:start + 10_000])

    def to_csv(self) -> str:
        """One row per comparison (columns :data:`CSV_HEADER`)."""
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(CSV_HEADER)
        if isinstance(self.comparisons, ComparisonTable):
            buffer.writelines(self.comparisons.csv_joined())
        else:
            writer.writerows(csv_row(c) for c in self.comparisons)
        return buffer.getvalue()

    def classic_disagreements(self, metric: str = "recall") -> list[Comparison]:
        """Pairs whose randomization decision (p ≤ α) differs from the sign test's."""
        alpha = self.settings["alpha"]
        return [c for c in self.comparisons if c.metric == metric and c.classic is not None
                and c.classic.sign is not None
                and (c.p_adjusted <= alpha) != (c.classic.sign <= alpha)]
