"""Many test sets scored in one run (``muceval batch``), in-process or on one Dask cluster,
with the pairs :func:`muceval.scoring.session.score_files` gives each test set alone."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from muceval.core.model import Configuration
from muceval.errors import Problem
from muceval.formats.batch import TestSetSpec
from muceval.formats.muc.history import read_history
from muceval.scoring.muc1992.scorer import ScoringOptions
from muceval.scoring.session import (
    SessionResult,
    SubmittedSystems,
    gather_systems,
    on_cluster,
    read_systems,
    score_files,
    submit_systems,
)

__all__ = ["score_test_sets"]


def score_test_sets(
    test_sets: Sequence[tuple[TestSetSpec, Configuration]],
    *,
    scheduler: str | None = None,
    fills: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, SessionResult]:
    """Test-set name → its scored systems, each test set with its own configuration (in
    batch mode: unresolved questions score as incorrect).

    >>> import muceval
    >>> from importlib.resources import files
    >>> example = files("muceval") / "data" / "example"
    >>> config = muceval.load_configuration(example / "config.toml")
    >>> from muceval.formats.batch import TestSetSpec
    >>> spec = TestSetSpec("example", str(example / "key.txt"),
    ...                    (str(example / "alpha.txt"), str(example / "beta.txt")))
    >>> list(score_test_sets([(spec, config)])["example"].systems)
    ['alpha', 'beta']
    """
    total = sum(len(spec.responses) for spec, _ in test_sets)
    if scheduler is None:
        out: dict[str, SessionResult] = {}
        done = 0
        for spec, config in test_sets:
            out[spec.name] = score_files(
                config, spec.key, spec.responses, history_path=spec.history,
                options=ScoringOptions(query_pass=spec.query_pass, fills=fills))
            done += len(spec.responses)
            if progress is not None:
                progress(done, total)
        return out
    with on_cluster(scheduler) as (client, distributed):
        # Every task submitted before any result is awaited: the workers stay busy across
        # test sets.
        pending = {spec.name: _submit(client, spec, config, fills) for spec, config in test_sets}
        out = {}
        finished = 0
        for name, (submitted, file_warnings) in pending.items():
            def advance(done: int, _of: int, before: int = finished) -> None:
                if progress is not None:
                    progress(before + done, total)

            result = gather_systems(distributed, submitted, advance)
            out[name] = SessionResult(result.systems, (), warnings=result.warnings,
                                      file_warnings=tuple(file_warnings))
            finished += len(result.systems)
    return out


def _submit(client: Any, spec: TestSetSpec, config: Configuration,
            fills: bool) -> tuple[SubmittedSystems, list[Problem]]:
    file_warnings: list[Problem] = []
    key, responses = read_systems(config, spec.key, spec.responses, None, file_warnings)
    history = read_history(spec.history) if spec.history else None
    options = ScoringOptions(query_pass=spec.query_pass, fills=fills)
    return submit_systems(client, config, key, responses, history, options, {}), file_warnings
