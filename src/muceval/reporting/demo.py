"""``muceval demo``: the bundled example (ten invented messages, four systems) scored and
reported."""

from __future__ import annotations

from dataclasses import dataclass
from importlib.resources import as_file, files
from pathlib import Path

from muceval.core.metrics import FloatScores, float_scores
from muceval.core.model import Configuration
from muceval.core.tallies import PairScore, summarize
from muceval.formats.config import load_configuration
from muceval.formats.files import write_atomic
from muceval.formats.scores.json import scores_to_json
from muceval.reporting.muc1992 import format_report
from muceval.scoring.alignment.audit import AlignmentAudit
from muceval.scoring.session import audit_files, score_files

EXAMPLE_SYSTEMS = ("alpha", "beta", "gamma", "delta")
KEHLER_STEPS = ("before", "removed", "added", "both")


def example_dir() -> Path:
    with as_file(files("muceval") / "data" / "example") as path:
        return Path(path)


@dataclass(frozen=True)
class ExampleFiles:
    key: str
    config: str
    history: str
    texts: str
    responses: tuple[str, ...]


def example_files() -> ExampleFiles:
    """
    >>> [Path(p).name for p in example_files().responses]
    ['alpha.txt', 'beta.txt', 'gamma.txt', 'delta.txt']
    """
    source = example_dir()
    return ExampleFiles(str(source / "key.txt"), str(source / "config.toml"),
                        str(source / "history.lisp"), str(source / "texts.txt"),
                        tuple(str(source / f"{name}.txt") for name in EXAMPLE_SYSTEMS))


@dataclass(frozen=True)
class SystemResult:
    name: str
    pairs: tuple[PairScore, ...]
    all_templates: FloatScores
    matched_only: FloatScores
    report_path: Path


@dataclass(frozen=True)
class DemoResult:
    config: Configuration
    systems: tuple[SystemResult, ...]
    out_dir: Path
    json_path: Path
    report_path: Path | None = None
    kehler: AlignmentAudit | None = None
    kehler_path: Path | None = None


DEMO_SEED = 1992


def run_demo(out_dir: str | Path, html_report: bool = True) -> DemoResult:
    """Run ``muceval demo``: score the bundled example's four systems (alpha strong, beta
    overgenerating, gamma cautious, delta weak), and write to ``out_dir`` each one's 1992
    report, ``scores.json``, Kehler's trap (``kehler-alignment.txt``) and the HTML report.

    Parameters
    ----------
    out_dir : str or pathlib.Path
        The folder, created if needed; files of the same names in it are replaced.
    html_report : bool, default True
        Also write the HTML report (the slowest part).

    Raises
    ------
    OutputError
        If a file cannot be written.

    Examples
    --------
    >>> import muceval, tempfile
    >>> result = muceval.run_demo(tempfile.mkdtemp(), html_report=False)
    >>> [(s.name, round(s.all_templates.f_pr, 3)) for s in result.systems]
    [('alpha', 0.873), ('beta', 0.668), ('gamma', 0.557), ('delta', 0.258)]
    >>> sorted(path.name for path in result.out_dir.iterdir())
    ['alpha.report', 'beta.report', 'delta.report', 'gamma.report', \
'kehler-alignment.txt', 'scores.json']
    """
    source = example_dir()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    config = load_configuration(source / "config.toml")
    session = score_files(config, source / "key.txt",
                          [source / f"{name}.txt" for name in EXAMPLE_SYSTEMS],
                          history_path=source / "history.lisp")
    results = []
    for name, pairs in session.systems.items():
        summary = summarize(pairs, config)
        report_path = out / f"{name}.report"
        write_atomic(report_path, format_report(pairs, config, config_label="config.toml"))
        results.append(SystemResult(name, pairs, float_scores(summary.all_templates.total),
                                    float_scores(summary.accumulators.matched_only.total),
                                    report_path))
    json_path = out / "scores.json"
    write_atomic(json_path, scores_to_json({r.name: r.pairs for r in results}, config,
                                           config_label="config.toml"))
    html_path = _html_report(config, results, out / "report") if html_report else None
    kehler, kehler_path = _kehler(config, source, out)
    return DemoResult(config, tuple(results), out, json_path, html_path, kehler, kehler_path)


def _kehler(config: Configuration, source: Path, out: Path) -> tuple[AlignmentAudit, Path]:
    """Kehler's trap: a wholly wrong template aligned by luck, then fixed."""
    from muceval.reporting.alignment import alignment_table, compare_criteria
    from muceval.significance.settings import SignificanceSettings

    folder = source / "kehler"
    audit, _ = audit_files(config, folder / "key.txt",
                           [folder / f"{step}.txt" for step in KEHLER_STEPS],
                           pairs=True, removal=True)
    comparison = compare_criteria(audit, SignificanceSettings(seed=DEMO_SEED, shuffles=999))
    path = out / "kehler-alignment.txt"
    write_atomic(path, alignment_table(audit, comparison))
    return audit, path


def _html_report(config: Configuration, results: list[SystemResult], folder: Path) -> Path:
    from muceval.reporting.analysis import analyze, systems_from_pairs
    from muceval.reporting.html import write_report
    from muceval.reporting.options import ReportOptions
    from muceval.significance.settings import SignificanceSettings

    systems, tallies = systems_from_pairs({r.name: r.pairs for r in results}, config,
                                          {r.name: f"{r.name}.txt (bundled example)" for r in results})
    analysis = analyze(systems, tallies, settings=SignificanceSettings(seed=DEMO_SEED),
                       inputs={"example": "bundled example (muceval/data/example)"})
    # The demo's own folder: running the demo again replaces what it wrote.
    return write_report(analysis, folder, ReportOptions(
        title="muceval demo: the bundled example", overwrite=True)).html
