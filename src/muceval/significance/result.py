"""What a significance analysis found: one :class:`Comparison` per pair and metric, and the
:class:`SignificanceResult` that holds them with scores, groups and settings."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict, dataclass, field

from muceval.core.metrics import METRIC_LABELS
from muceval.significance.classic import ClassicTests


@dataclass(frozen=True)
class Comparison:
    """The result of one pair (a, b) and one metric; ``difference`` = value_a − value_b."""

    a: str
    b: str
    metric: str
    value_a: float
    value_b: float
    difference: float
    p_value: float
    method: str
    shuffles: int | None
    nge: int | None
    confidence: float
    error_bound: float
    alternative: str
    p_adjusted: float
    significant: bool
    units: int
    ci: tuple[float, float] | None = None
    classic: ClassicTests | None = None

    def to_dict(self) -> dict:
        out = asdict(self)
        out["ci"] = list(self.ci) if self.ci is not None else None
        return out


@dataclass(frozen=True)
class SignificanceResult:
    """Everything :func:`compare` found; ``to_json()`` is the machine-readable form."""

    systems: tuple[str, ...]
    metrics: tuple[str, ...]
    scores: dict[str, dict[str, float]]
    comparisons: tuple[Comparison, ...]
    groups: dict[str, list[list[str]]]
    letters: dict[str, dict[str, str]]
    settings: dict
    system_ci: dict[str, dict[str, tuple[float, float]]] | None = None
    _index: dict = field(default_factory=dict, repr=False, compare=False)

    def comparison(self, a: str, b: str, metric: str) -> Comparison:
        """The comparison of ``a`` and ``b`` (either order) for ``metric``."""
        if not self._index:
            for c in self.comparisons:
                self._index[(c.a, c.b, c.metric)] = c
        found = self._index.get((a, b, metric)) or self._index.get((b, a, metric))
        if found is None:
            raise KeyError((a, b, metric))
        return found

    def ranking(self, metric: str) -> list[str]:
        """Systems by decreasing score (ties by name)."""
        return sorted(self.systems, key=lambda s: (-self.scores[s][metric], s))

    def to_dict(self) -> dict:
        return {
            "settings": self.settings,
            "systems": self.scores,
            "system_ci": (
                {s: {m: list(ci) for m, ci in v.items()} for s, v in self.system_ci.items()}
                if self.system_ci is not None
                else None
            ),
            "comparisons": [c.to_dict() for c in self.comparisons],
            "groups": self.groups,
            "letters": self.letters,
        }

    def to_json(self, indent: int | None = 2) -> str:
        """JSON with at least ``systems``, ``comparisons`` and ``groups``."""
        return json.dumps(self.to_dict(), indent=indent)

    def to_csv(self) -> str:
        """One row per comparison."""
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        header = [
            "metric", "a", "b", "value_a", "value_b", "difference", "p_value", "p_adjusted",
            "method", "shuffles", "confidence", "error_bound", "significant", "alternative",
            "units", "ci_low", "ci_high", "correlation", "sign", "wilcoxon", "paired_t",
            "two_sample_t", "chi2",
        ]  # fmt: skip
        writer.writerow(header)
        for c in self.comparisons:
            classic = c.classic
            row = [
                c.metric, c.a, c.b, c.value_a, c.value_b, c.difference, c.p_value, c.p_adjusted,
                c.method, c.shuffles if c.shuffles is not None else "", c.confidence,
                c.error_bound, int(c.significant), c.alternative, c.units,
                c.ci[0] if c.ci else "", c.ci[1] if c.ci else "",
            ]  # fmt: skip
            for name in ("correlation", "sign", "wilcoxon", "paired_t", "two_sample_t", "chi2"):
                value = getattr(classic, name) if classic is not None else None
                row.append("" if value is None else value)
            writer.writerow(row)
        return buffer.getvalue()

    def render(self, console) -> None:
        """Readable pairwise matrices, one per metric, on a rich console."""
        from rich.table import Table

        settings = self.settings
        console.print(
            f"[bold]{len(self.systems)} systems, {settings['units']} units[/bold] — "
            f"method {settings['method']}, {settings['alternative']}, α = {settings['alpha']}, "
            f"confidence {settings['confidence']}, seed {settings['seed']}"
        )
        for metric in self.metrics:
            order = self.ranking(metric)
            table = Table(
                title=f"{METRIC_LABELS[metric]}: p-values (* = significant)",
                show_lines=False,
                title_justify="left",
            )
            table.add_column("system")
            table.add_column("score", justify="right")
            table.add_column("groups")
            for name in order:
                table.add_column(name[:8], justify="right")
            for row_name in order:
                cells = []
                for col_name in order:
                    if col_name == row_name:
                        cells.append("—")
                        continue
                    c = self.comparison(row_name, col_name, metric)
                    p = c.p_adjusted
                    text = f"{p:.3f}" if p >= 0.001 else f"{p:.0e}"
                    cells.append(f"[bold]{text}*[/bold]" if c.significant else text)
                table.add_row(
                    row_name,
                    f"{100 * self.scores[row_name][metric]:.2f}",
                    self.letters[metric][row_name],
                    *cells,
                )
            console.print(table)
