"""Shared test fixtures.

Tests that need the public MUC-3/MUC-4 distribution read it in place from
``../shared`` beside the repository (or from ``$MUCEVAL_SHARED``) and are
skipped with a clear reason when it is not there.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# The machines are shared and noisy: no per-example deadline. Under CI the
# examples are derandomized, so that a run is repeatable and a red CI is never
# a coin flip; locally they vary, to keep finding new cases.
settings.register_profile("muceval", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("muceval-ci", parent=settings.get_profile("muceval"), derandomize=True)
settings.load_profile("muceval-ci" if os.environ.get("CI") else "muceval")

REPO_ROOT = Path(__file__).resolve().parent.parent

# .ci/run sets MUCEVAL_NO_SKIPS=1: there every package, Chromium and ../shared are present, so a
# skip can only mean something is missing that a user would miss too (an undeclared package, a
# file left out). Outside CI a skip stays a skip, with its reason.
NO_SKIPS = os.environ.get("MUCEVAL_NO_SKIPS") == "1"


def _fail_skip(report: pytest.CollectReport | pytest.TestReport) -> None:
    if NO_SKIPS and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped, and MUCEVAL_NO_SKIPS=1 allows no skip: {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    _fail_skip(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    _fail_skip(outcome.get_result())


def shared_root() -> Path:
    override = os.environ.get("MUCEVAL_SHARED")
    return Path(override) if override else REPO_ROOT.parent / "shared"


def muc4_root() -> Path | None:
    root = shared_root() / "muc4"
    return root if root.is_dir() else None


@pytest.fixture(scope="session")
def muc4() -> Path:
    """Path of ``shared/muc4``; skips the test when the distribution is absent."""
    root = muc4_root()
    if root is None:
        pytest.skip(
            f"MUC-4 distribution not found at {shared_root() / 'muc4'} "
            "(set MUCEVAL_SHARED to the folder that holds muc4/)"
        )
    return root


@pytest.fixture(scope="session")
def modern() -> Path:
    """Path of ``shared/modern`` (GTT, GRIT, IterX); skips the test when it is absent."""
    root = shared_root() / "modern"
    if not root.is_dir():
        pytest.skip(f"modern MUC-4 data not found at {root} "
                    "(set MUCEVAL_SHARED to the folder that holds modern/)")
    return root


@pytest.fixture(scope="session")
def famus() -> Path:
    """Path of ``shared/datasets/famus`` (FAMuS's dev prompts and raw answers); skips the test
    when it is absent."""
    root = shared_root() / "datasets" / "famus"
    if not root.is_dir():
        pytest.skip(f"FAMuS data not found at {root} "
                    "(set MUCEVAL_SHARED to the folder that holds datasets/famus/)")
    return root


def assert_one_problem(error, path: Path, line: int, fragment: str) -> None:
    """``error`` (an InputError) reports exactly one problem, at ``path:line``, saying ``fragment``."""
    (problem,) = error.problems
    assert problem.path == str(path)
    assert problem.line == line, str(error)
    assert fragment in problem.message
    assert str(error).startswith(f"{path}:{line}")


def serve_until_address(argv: list[str], **popen: object) -> str:
    """Start ``argv`` (a command that serves the adjudication page), wait for the line with
    its address, stop it, and return what it wrote on stderr."""
    import subprocess

    server = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, **popen)  # type: ignore[call-overload]
    line = ""
    try:
        assert server.stdout is not None
        for _ in range(20):
            line = server.stdout.readline()
            if not line or "adjudication page: http://127.0.0.1:" in line:
                break
    finally:
        server.terminate()
        _, err = server.communicate(timeout=30)
    assert "adjudication page: http://127.0.0.1:" in line, (argv, err)
    return str(err)
