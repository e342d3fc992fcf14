"""The views of ``muceval alignment``: criteria side by side with the significance of each
change of F, and the audits of pairs, removal, calibration and entropy."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import numpy as np

from muceval.core.signature import document_header
from muceval.core.units import UnitTallies
from muceval.errors import UsageError
from muceval.reporting.outputs import csv_text, new_table, text_console
from muceval.scoring.alignment.audit import AlignmentAudit, CriterionScore, SystemAudit
from muceval.significance.engine import SignificanceResult, compare
from muceval.significance.settings import SignificanceSettings

__all__ = [
    "ALIGNMENT_FORMAT",
    "AlignmentComparison",
    "alignment_to_csv",
    "alignment_to_json",
    "alignment_table",
    "compare_criteria",
    "criteria_comparison",
    "rank_and_flip",
]

ALIGNMENT_FORMAT = "muceval-alignment"
FORMAT_VERSION = 1
T = TypeVar("T")


@dataclass(frozen=True)
class Flip:
    """A pair of systems significantly different under one criterion and not the other."""

    a: str
    b: str
    default_significant: bool
    significant: bool
    p_default: float
    p_value: float

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "significant_default": self.default_significant,
                "significant": self.significant, "p_default": self.p_default,
                "p_value": self.p_value}


@dataclass(frozen=True)
class AlignmentComparison:
    """Per system and criterion: ΔF against the default and its p-value; ranks, τ and flips."""

    p_values: Mapping[tuple[str, str], float]
    ranks: Mapping[tuple[str, str], int]
    kendall_tau: Mapping[str, float | None]
    flips: Mapping[str, tuple[Flip, ...]]
    settings: dict[str, Any] = field(default_factory=dict)

    def tested(self, system: str, criterion: str) -> tuple[float | None, int | None]:
        """The p-value and rank of ``system`` under ``criterion``."""
        return self.p_values.get((system, criterion)), self.ranks.get((system, criterion))


def rank_and_flip(
    names: Sequence[str], f1: Mapping[str, Sequence[float]],
    decisions: Mapping[str, Mapping[tuple[str, str], tuple[bool, float]]], default: str,
) -> tuple[dict[tuple[str, str], int], dict[str, float | None], dict[str, tuple[Flip, ...]]]:
    """Ranks per (system, criterion), Kendall's τ against the default, and the flips."""
    from scipy.stats import kendalltau, rankdata

    ranks: dict[tuple[str, str], int] = {}
    tau: dict[str, float | None] = {}
    flips: dict[str, tuple[Flip, ...]] = {}
    for c, values in f1.items():
        ranks.update(((name, c), int(r)) for name, r in
                     zip(names, rankdata([-x for x in values], method="min"), strict=True))
        if c == default:
            continue
        tau[c] = float(kendalltau(f1[default], values).statistic) if len(names) >= 2 else None
        if c in decisions:
            flips[c] = tuple(
                Flip(a, b, d0, d1, p0, p1)
                for (a, b), (d1, p1) in decisions[c].items()
                for d0, p0 in (decisions[default][(a, b)],) if d0 != d1)
    return ranks, tau, flips


def _units(audit: AlignmentAudit) -> list[str]:
    return sorted({unit for s in audit.systems for score in s.scores.values()
                   for unit in score.units})


def _tallies(rows: Sequence[tuple[str, Mapping[str, Any]]], units: Sequence[str]) -> UnitTallies:
    counts = np.zeros((len(rows), len(units), 4), dtype=np.int64)
    for i, (_, per_unit) in enumerate(rows):
        for j, unit in enumerate(units):
            t = per_unit.get(unit)
            if t is not None:
                counts[i, j] = (t.pos, t.act, t.cor, t.par)
    return UnitTallies(tuple(n for n, _ in rows), tuple(units), counts)


def criteria_comparison(
    systems: Mapping[str, Mapping[str, T]], criteria: Sequence[str], default: str,
    f1: Callable[[T], float],
    test: Callable[[list[tuple[str, T]], SignificanceSettings], SignificanceResult],
    settings: SignificanceSettings | None,
) -> AlignmentComparison:
    """Each system's change of F from ``default`` (``systems``: its scores by criterion),
    tested by ``test`` as the difference of the pseudo-systems ``SYS@default`` and
    ``SYS@criterion``, as ``muceval significance`` tests two systems; and the flips."""
    # Only the randomization p-values are needed here: no classic tests, no intervals.
    chosen = replace((settings or SignificanceSettings()).with_seed(), classic=False, bootstrap=0)
    p_values: dict[tuple[str, str], float] = {}
    for name, scores in systems.items():
        for c in criteria:
            if c != default:
                pair = [(f"{name}@{default}", scores[default]), (f"{name}@{c}", scores[c])]
                p_values[(name, c)] = test(pair, chosen).comparison(
                    pair[0][0], pair[1][0], "f1").p_value
    decisions = {c: {(x.a, x.b): (x.significant, x.p_value)
                     for x in test([(n, s[c]) for n, s in systems.items()], chosen).comparisons}
                 for c in criteria} if len(systems) >= 2 else {}
    ranks, tau, flips = rank_and_flip(
        list(systems), {c: [f1(s[c]) for s in systems.values()] for c in criteria}, decisions,
        default)
    return AlignmentComparison(p_values, ranks, tau, flips, chosen.to_json())


def compare_criteria(audit: AlignmentAudit,
                     settings: SignificanceSettings | None = None) -> AlignmentComparison:
    """Test every change of F against the default criterion, paired by message."""
    units = _units(audit)

    def test(rows: list[tuple[str, CriterionScore]],
             chosen: SignificanceSettings) -> SignificanceResult:
        return compare(_tallies([(n, s.units) for n, s in rows], units), metrics=("f1",),
                       settings=chosen)

    return criteria_comparison({s.system: s.scores for s in audit.systems}, audit.scored,
                               audit.default, lambda s: s.f1 or 0.0, test, settings)


def _r(value: float | None, digits: int = 6) -> float | None:
    return None if value is None else round(value, digits)


def _system_json(s: SystemAudit, audit: AlignmentAudit,
                 comparison: AlignmentComparison | None) -> dict[str, Any]:
    base = s.scores[audit.default].f1
    criteria = {}
    for c in audit.scored:
        score = s.scores[c]
        entry: dict[str, Any] = {
            "recall": _r(score.recall), "precision": _r(score.precision), "f1": _r(score.f1),
            "mapped_pairs": score.mapped_pairs,
            "delta_f1": _r(None if score.f1 is None or base is None else score.f1 - base),
            "tally": {k: getattr(score.tally, k) for k in ("pos", "act", "cor", "par")},
        }
        if comparison is not None:
            entry["p_value"], entry["rank"] = comparison.tested(s.system, c)
        criteria[c] = entry
    return {
        "system": s.system,
        "criteria": criteria,
        "pairs": [{**p.evidence.to_dict(), "verdicts": dict(p.verdicts), "flagged": p.flagged}
                  for p in s.pairs],
        "removal": [{"message": r.message_id, "response": r.response_id, "key": r.key_id,
                     "anomaly": r.anomaly,
                     "deltas": {c: {"recall": _r(d[0]), "precision": _r(d[1]), "f1": _r(d[2])}
                                for c, d in r.deltas.items()}} for r in s.removal],
        "splits": [{"criterion": x.criterion, "message": x.message_id, "key": x.key_id,
                    "responses": list(x.response_ids)} for x in s.splits],
    }


def alignment_to_dict(audit: AlignmentAudit, comparison: AlignmentComparison | None,
                      settings: Mapping[str, Any]) -> dict[str, Any]:
    """The whole audit as the ``muceval-alignment`` document."""
    header = document_header(ALIGNMENT_FORMAT, settings, FORMAT_VERSION)
    if comparison is not None:
        header["settings"]["significance"] = comparison.settings
    return {
        **header,
        "criteria": {c.name: {**c.to_dict(), "describe": c.describe()} for c in audit.criteria},
        "default": audit.default,
        "flag": audit.flag,
        "systems": [_system_json(s, audit, comparison) for s in audit.systems],
        "comparisons": [] if comparison is None else [
            {"criterion": c, "kendall_tau": _r(comparison.kendall_tau.get(c)),
             "flips": [f.to_dict() for f in comparison.flips.get(c, ())]}
            for c in audit.scored if c != audit.default],
        "calibration": [{"criterion": c.criterion,
                         "same_message": {"pairs": c.same_message_pairs,
                                          "aligned": c.same_message_aligned,
                                          "share": _r(c.same_message_share)},
                         "other_messages": {"pairs": c.other_message_pairs,
                                            "aligned": c.other_message_aligned,
                                            "share": _r(c.other_message_share),
                                            "sampled": c.other_message_sampled}}
                        for c in audit.calibration],
        "entropy": [{"slot": e.slot_id, "templates": e.templates, "filled": e.filled,
                     "distinct": e.distinct, "entropy": _r(e.entropy, 4),
                     "top": [{"value": v, "share": _r(p, 4)} for v, p in e.top]}
                    for e in audit.entropy],
    }


def alignment_to_json(audit: AlignmentAudit, comparison: AlignmentComparison | None,
                      settings: Mapping[str, Any]) -> str:
    return json.dumps(alignment_to_dict(audit, comparison, settings), ensure_ascii=False,
                      separators=(",", ":")) + "\n"


def _score_rows(audit: AlignmentAudit,
                comparison: AlignmentComparison | None) -> Iterator[Sequence[Any]]:
    yield ("system", "criterion", "recall", "precision", "f1", "delta_f1", "p_value", "rank",
           "mapped_pairs", "pos", "act", "cor", "par")
    for s in audit.systems:
        base = s.scores[audit.default].f1
        for c in audit.scored:
            x = s.scores[c]
            p, rank = comparison.tested(s.system, c) if comparison else (None, None)
            yield (s.system, c, _r(x.recall), _r(x.precision), _r(x.f1),
                   _r(None if x.f1 is None or base is None else x.f1 - base),
                   "" if p is None else p, "" if rank is None else rank,
                   x.mapped_pairs, x.tally.pos, x.tally.act, x.tally.cor, x.tally.par)


def _pair_rows(audit: AlignmentAudit,
               comparison: AlignmentComparison | None) -> Iterator[Sequence[Any]]:
    yield ("system", "message", "key", "response", "pair_score", "evidence_bits", "flags",
           "flagged", *audit.scored)
    for s in audit.systems:
        for record in s.pairs:
            e = record.evidence
            yield (s.system, e.message_id, e.key_id, e.response_id, e.pair_score,
                   round(e.bits, 4), " ".join(e.flags), record.flagged,
                   *(record.verdicts.get(c, "") for c in audit.scored))


def _removal_rows(audit: AlignmentAudit,
                  comparison: AlignmentComparison | None) -> Iterator[Sequence[Any]]:
    yield ("system", "message", "response", "key", "criterion", "delta_recall",
           "delta_precision", "delta_f1", "anomaly")
    for s in audit.systems:
        for r in s.removal:
            for c, d in r.deltas.items():
                yield (s.system, r.message_id, r.response_id, r.key_id or "", c,
                       _r(d[0]), _r(d[1]), _r(d[2]), r.anomaly)


def _calibration_rows(audit: AlignmentAudit,
                      comparison: AlignmentComparison | None) -> Iterator[Sequence[Any]]:
    yield ("criterion", "same_message_pairs", "same_message_aligned", "other_message_pairs",
           "other_message_aligned", "other_message_sampled")
    for cal in audit.calibration:
        yield (cal.criterion, cal.same_message_pairs, cal.same_message_aligned,
               cal.other_message_pairs, cal.other_message_aligned, cal.other_message_sampled)


def _entropy_rows(audit: AlignmentAudit,
                  comparison: AlignmentComparison | None) -> Iterator[Sequence[Any]]:
    yield ("slot", "templates", "filled", "distinct", "entropy", "value", "share")
    for slot in audit.entropy:
        for v, share in slot.top or (("", 0.0),):
            yield (slot.slot_id, slot.templates, slot.filled, slot.distinct,
                   round(slot.entropy, 4), v, round(share, 4))


_CSV_ROWS: dict[str, Callable[[AlignmentAudit, AlignmentComparison | None],
                              Iterator[Sequence[Any]]]] = {
    "scores": _score_rows, "pairs": _pair_rows, "removal": _removal_rows,
    "calibration": _calibration_rows, "entropy": _entropy_rows,
}
CSV_VIEWS = tuple(_CSV_ROWS)


def alignment_to_csv(audit: AlignmentAudit, comparison: AlignmentComparison | None,
                     view: str = "scores") -> str:
    rows = _CSV_ROWS.get(view)
    if rows is None:
        raise UsageError(f"unknown CSV view {view!r} (choose from {', '.join(CSV_VIEWS)})",
                         parameter="view")
    return csv_text(rows(audit, comparison))


def _pc(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.2f}"


def signed_pct(value: float | None) -> str:
    return "" if value is None else f"{100 * value:+.2f}"


def alignment_table(audit: AlignmentAudit, comparison: AlignmentComparison | None,
                    terminal: bool = False, width: int = 140) -> str:
    """The audit as rich tables (exported as text unless printing to a terminal)."""
    # No markup: criteria, values and names may hold brackets.
    console = text_console(width, terminal, markup=False, highlight=False)
    console.print("Criteria:")
    for criterion in audit.criteria:
        role = [r for r, n in (("default", audit.default), ("flag", audit.flag))
                if n == criterion.name]
        console.print(f"  {criterion.name}{' (' + ', '.join(role) + ')' if role else ''}: "
                      f"{criterion.describe()}", highlight=False)
    heads = [f"{c}\n{head}" for c in audit.scored
             for head in (("R", "P", "F", "pairs") if c == audit.default
                          else ("F", "ΔF", "p", "rank"))]
    table = new_table("Scores per criterion (ALL TEMPLATES, %); ΔF and its p-value against "
                      f"{audit.default}", ("system",), heads)
    for s in audit.systems:
        row = [s.system]
        base = s.scores[audit.default].f1
        for c in audit.scored:
            x = s.scores[c]
            if c == audit.default:
                row += [_pc(x.recall), _pc(x.precision), _pc(x.f1), str(x.mapped_pairs)]
                continue
            p, rank = comparison.tested(s.system, c) if comparison else (None, None)
            row += [_pc(x.f1), signed_pct(None if x.f1 is None or base is None else x.f1 - base),
                    "" if p is None else f"{p:.4f}", "" if rank is None else str(rank)]
        table.add_row(*row)
    console.print(table)
    if comparison is not None:
        for c in audit.scored:
            if c == audit.default:
                continue
            print_flips(console, comparison, c, audit.default)
    _pairs_table(console, audit)
    _removal_table(console, audit)
    _calibration_table(console, audit)
    _entropy_table(console, audit)
    return "" if terminal else console.export_text()


def print_flips(console: Any, comparison: AlignmentComparison, criterion: str,
                default: str) -> None:
    """Kendall's τ of ``criterion`` against ``default``, and the decisions that flip."""
    tau = comparison.kendall_tau.get(criterion)
    flips = comparison.flips.get(criterion, ())
    console.print(f"{criterion}: Kendall τ against {default} "
                  f"{'-' if tau is None else f'{tau:.3f}'}; "
                  f"{len(flips)} significance decision(s) flip", highlight=False)
    for f in flips:
        console.print(f"  {f.a} vs {f.b}: {'different' if f.default_significant else 'same'}"
                      f" (p {f.p_default:.4f}) → {'different' if f.significant else 'same'}"
                      f" (p {f.p_value:.4f})", highlight=False)


def _pairs_table(console: Any, audit: AlignmentAudit) -> None:
    records = [p for s in audit.systems for p in s.pairs]
    if not records:
        return
    table = new_table(f"Pairs ({sum(p.flagged for p in records)} flagged: mapped under "
                      f"{audit.default}, refused by {audit.flag})",
                      ("system", "message", "key", "resp", "score", "bits", "flags",
                       *audit.scored, "matching slots"))
    for p in records:
        e = p.evidence
        table.add_row(p.system, e.message_id, e.key_id, e.response_id, str(e.pair_score),
                      f"{e.bits:.1f}", " ".join(e.flags) + (" FLAGGED" if p.flagged else ""),
                      *(p.verdicts.get(c, "") for c in audit.scored),
                      ", ".join(e.matching_slots))
    console.print(table)


def _removal_table(console: Any, audit: AlignmentAudit) -> None:
    records = [r for s in audit.systems for r in s.removal]
    if not records:
        return
    table = new_table(f"Removal audit: ΔF when one response template is removed "
                      f"({sum(r.anomaly for r in records)} with Kehler's anomaly: F falls "
                      f"under {audit.default}, rises under {audit.flag})",
                      ("system", "message", "response", "key",
                       *(f"ΔF {c}" for c in audit.scored), "anomaly"))
    for r in records:
        table.add_row(r.system, r.message_id, r.response_id, r.key_id or "-",
                      *(signed_pct(r.deltas[c][2]) for c in audit.scored),
                      "ANOMALY" if r.anomaly else "")
    console.print(table)


def _calibration_table(console: Any, audit: AlignmentAudit) -> None:
    if not audit.calibration:
        return
    table = new_table("Calibration from the key alone: pairs of different key templates "
                      "each criterion would align", ("criterion",),
                      ("same message", "other messages"))
    for c in audit.calibration:
        table.add_row(
            c.criterion,
            f"{_pc(c.same_message_share)}% of {c.same_message_pairs}",
            f"{_pc(c.other_message_share)}% of {c.other_message_pairs}"
            + (" (sample)" if c.other_message_sampled else ""))
    console.print(table)


def _entropy_table(console: Any, audit: AlignmentAudit) -> None:
    if not audit.entropy:
        return
    table = new_table("Key values per slot (share of key templates)",
                      ("slot", "filled", "distinct", "entropy (bits)", "most frequent"))
    for e in audit.entropy:
        table.add_row(e.slot_id, f"{e.filled}/{e.templates}", str(e.distinct),
                      f"{e.entropy:.2f}",
                      "; ".join(f"{v} {100 * p:.0f}%" for v, p in e.top[:3]))
    console.print(table)
