"""Systems scored in forked processes: the session of one process, and its errors."""

from __future__ import annotations

import os
import threading
from dataclasses import replace
from importlib.resources import files
from pathlib import Path

import pytest

from muceval.core import processes
from muceval.errors import InputError, UsageError
from muceval.formats.config import load_configuration
from muceval.scoring import session
from muceval.scoring.muc1992.options import ScoringOptions
from muceval.scoring.session import score_files

EXAMPLE = Path(str(files("muceval") / "data" / "example"))
SYSTEMS = [EXAMPLE / f"{name}.txt" for name in ("alpha", "beta", "gamma", "delta")]


@pytest.fixture(autouse=True)
def _forks(request, monkeypatch) -> None:
    """A thread another test left running (a server, a cluster's client) would keep this
    worker from forking: these tests fork all the same, into work that takes no lock."""
    if "thread" not in request.node.name:
        monkeypatch.setattr(processes, "fork_safe", lambda: True)
        monkeypatch.setattr(session, "fork_safe", lambda: True)


def _session(config, key, responses, jobs, monkeypatch=None, **options):
    done: list[tuple[int, int]] = []
    if monkeypatch is not None:  # the processes must have done the work, not a fallback
        forked = []

        def spy(work, parts):
            forked.append(processes.in_processes(work, parts))
            return forked[-1]
        monkeypatch.setattr(session, "in_processes", spy)
    chosen = replace(options.pop("options", ScoringOptions()), jobs=jobs)
    result = score_files(config, key, responses, options=chosen,
                         progress=lambda n, total: done.append((n, total)), **options)
    if monkeypatch is not None:
        assert len(forked) == 1 and forked[0] is not None
    return result, done


@pytest.mark.parametrize("jobs", [2, 3, 4])
def test_forked_processes_give_the_session_of_one(jobs: int, monkeypatch) -> None:
    config = load_configuration(EXAMPLE / "config.toml")
    options = {"history_path": EXAMPLE / "history.lisp", "alignment": "any-slot",
               "options": ScoringOptions(fills=True)}  # each fill's credit comes back too
    one, _ = _session(config, EXAMPLE / "key.txt", SYSTEMS, 1, **options)
    many, progress = _session(config, EXAMPLE / "key.txt", SYSTEMS, jobs, monkeypatch,
                              **options)
    assert list(many.systems) == list(one.systems) == ["alpha", "beta", "gamma", "delta"]
    assert replace(many, options=None, record=None) == replace(one, options=None, record=None)
    assert many.settings == one.settings and many.options == replace(one.options, jobs=jobs)
    assert progress[-1] == (4, 4) and many.systems["alpha"][0].fills
    done = [n for n, _ in progress]
    assert done == sorted(done) and done.count(4) == 1  # complete only when all are


def test_forked_processes_give_the_tst3_session_of_one(muc4: Path, monkeypatch) -> None:
    tst3 = muc4 / "tst3"
    config = load_configuration(tst3 / "config-tst3.el")
    responses = sorted((tst3 / "responses").glob("*.tst3"))
    options = {"history_path": tst3 / "final-history-nrad.tst3"}
    key = muc4 / "corpora" / "tst3" / "key-tst3.v2"
    one, _ = _session(config, key, responses, 1, **options)
    many, _ = _session(config, key, responses, 2, monkeypatch, **options)
    assert one.file_warnings and one.unanswered  # both merged below
    assert replace(many, options=None, record=None) == replace(one, options=None, record=None)
    assert many.settings == one.settings and many.options == replace(one.options, jobs=2)


@pytest.mark.parametrize("bad", [1, 2])  # a child's share, the first process's share
def test_a_bad_response_gives_the_error_of_one_process(tmp_path: Path, bad: int,
                                                       monkeypatch) -> None:
    config = load_configuration(EXAMPLE / "config.toml")
    responses = [tmp_path / p.name for p in SYSTEMS]
    for source, target in zip(SYSTEMS, responses, strict=True):
        target.write_text(source.read_text())
    text = responses[bad].read_text().replace("MESSAGE: TEMPLATE               1",
                                                "MESSAGE: TEMPLATE               1 (SOMETIMES)", 1)
    responses[bad].write_text(text)
    responses[3].write_text("not templates at all\n")  # later in reading order: not reported
    errors = []
    calls: list[int] = []

    def spy(work, parts):
        calls.append(len(parts))
        return processes.in_processes(work, parts)

    monkeypatch.setattr(session, "in_processes", spy)
    for jobs in (1, 2):
        with pytest.raises(InputError) as error:
            score_files(config, EXAMPLE / "key.txt", responses,
                        options=ScoringOptions(jobs=jobs))
        errors.append(str(error.value))
    assert errors[0] == errors[1] and responses[bad].name in errors[0]
    assert calls == [2]  # the processes met the error, and one process raised it


def test_a_failed_child_is_said_and_the_first_share_raises(monkeypatch) -> None:
    def square_or_fail(n: int) -> int:
        if n == 3:
            raise ValueError(n)
        return n * n

    forked: list[int] = []
    fork = os.fork

    def counted() -> int:
        pid = fork()
        if pid:
            forked.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", counted)
    assert processes.in_processes(square_or_fail, [1, 2, 4]) == [1, 4, 16]
    assert processes.in_processes(square_or_fail, [1, 3]) is None
    with pytest.raises(ValueError, match="3"):
        processes.in_processes(square_or_fail, [3, 1, 2])
    assert len(forked) == 5
    for pid in forked:  # every child reaped, also when this process's share raised
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def test_no_process_to_fork_is_one_process(monkeypatch) -> None:
    config = load_configuration(EXAMPLE / "config.toml")
    one = score_files(config, EXAMPLE / "key.txt", SYSTEMS, options=ScoringOptions(jobs=1))
    fds = len(os.listdir("/proc/self/fd"))

    def no_fork() -> int:
        raise BlockingIOError("Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork)
    many = score_files(config, EXAMPLE / "key.txt", SYSTEMS, options=ScoringOptions(jobs=3))
    assert len(os.listdir("/proc/self/fd")) == fds  # the pipe closed again
    assert replace(many, options=None, record=None) == replace(one, options=None, record=None)
    assert many.settings == one.settings


def test_no_fork_with_another_thread_running() -> None:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert processes.idle_cores() == 1
    finally:
        stop.set()
        thread.join()


@pytest.mark.parametrize("jobs", [0, -1, 1.5, "2"])
def test_a_number_of_processes_below_one_is_refused(jobs) -> None:
    with pytest.raises(UsageError, match="jobs"):
        ScoringOptions(jobs=jobs)


def test_a_childs_warnings_are_given_again_here() -> None:
    import warnings

    def warn(n: int) -> int:
        warnings.warn(f"part {n}", UserWarning, stacklevel=1)
        return n

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert processes.in_processes(warn, [1, 2, 3]) == [1, 2, 3]
    assert [str(w.message) for w in caught] == ["part 1", "part 2", "part 3"]


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_clash_of_names_is_refused_before_the_key_is_read(jobs, tmp_path) -> None:
    # The same error whatever the number of processes (which, by default, depends on how busy
    # the machine is): the names are checked before any file is read.
    config = load_configuration(EXAMPLE / "config.toml")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    twins = [tmp_path / "a" / "alpha.txt", tmp_path / "b" / "alpha.txt"]
    for path in twins:
        path.write_bytes(SYSTEMS[0].read_bytes())
    with pytest.raises(UsageError, match="two files give the system name 'alpha'"):
        score_files(config, tmp_path / "missing-key.txt", twins,
                    options=ScoringOptions(jobs=jobs))


def test_a_warning_is_shown_as_often_as_one_process_shows_it() -> None:
    # Under the default filter, once per place: one the parent has shown is not shown again
    # for a child, nor once per child (a fresh process: no other test's filters or threads).
    import subprocess
    import sys

    code = ("import warnings\n"
            "from muceval.core import processes\n"
            "def work(n):\n"
            "    warnings.warn('same warning', UserWarning)\n"
            "    return n\n"
            "work(-1)\n"
            "assert processes.in_processes(work, [0, 1, 2]) == [0, 1, 2]\n"
            "assert processes.in_processes(work, [3, 4]) == [3, 4]\n")
    run = subprocess.run([sys.executable, "-W", "default", "-c", code], capture_output=True,
                         text=True, check=True)
    assert run.stderr.count("same warning") == 1, run.stderr
