"""Significance on a Dask cluster: the same p-values as in-process, workers killed, resumed runs."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from muceval.cli import main
from muceval.core.units import UnitTallies
from muceval.errors import InputError, UsageError
from muceval.significance import distributed as dist
from muceval.significance.engine import compare
from muceval.significance.settings import SignificanceSettings

distributed = pytest.importorskip("distributed", reason="Dask not installed: pip install "
                                  "'muceval[distributed]' (the test extra has it)")


def _tallies(systems: int = 6, units: int = 24, seed: int = 3) -> UnitTallies:
    """Perturbations of one system: correlated, as systems on one test set are."""
    rng = np.random.default_rng(seed)
    pos = rng.integers(5, 20, size=units)
    base_act = pos + rng.integers(-3, 4, size=units)
    counts = np.zeros((systems, units, 4), dtype=np.int64)
    for s in range(systems):
        act = np.maximum(1, base_act + rng.integers(-2, 3, size=units))
        cor = np.minimum(act, rng.binomial(pos, 0.4 + 0.05 * s))
        par = np.minimum(np.minimum(act, pos) - cor, rng.integers(0, 3, size=units))
        counts[s] = np.stack([pos, act, cor, par], axis=1)
    return UnitTallies(tuple(f"S{s}" for s in range(systems)),
                       tuple(f"u{u}" for u in range(units)), counts)


SETTINGS = SignificanceSettings(seed=11, shuffles=4999, bootstrap=0, classic=False,
                                method="auto")


def _p_values(result) -> list[tuple[str, str, str, float]]:
    return [(c.a, c.b, c.metric, c.p_value) for c in result.comparisons]


def test_a_local_cluster_gives_the_in_process_p_values(tmp_path: Path) -> None:
    tallies = _tallies()
    here = compare(tallies, settings=SETTINGS)
    assert any(c.method == "exact" for c in here.comparisons)  # both kinds of job
    there = compare(tallies, settings=SETTINGS, executor=dist.DaskExecutor(workers=2))
    assert _p_values(there) == _p_values(here)


def test_a_checkpoint_resumes_and_refuses_another_run(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(dist, "TASK_WORK", 4999 * 3)  # many small batches
    tallies = _tallies()
    here = compare(tallies, settings=SETTINGS)
    checkpoint = tmp_path / "run.ckpt"
    first = compare(tallies, settings=SETTINGS,
                    executor=dist.DaskExecutor(workers=1, checkpoint=str(checkpoint)))
    lines = checkpoint.read_text().splitlines()
    assert json.loads(lines[0])["format"] == "muceval-checkpoint" and len(lines) > 3
    # Stopped after two batches, the last line half written: the rest is run again.
    checkpoint.write_text("\n".join(lines[:3]) + "\n" + lines[3][:10])
    resumed = compare(tallies, settings=SETTINGS,
                      executor=dist.DaskExecutor(workers=1, checkpoint=str(checkpoint)))
    assert _p_values(first) == _p_values(resumed) == _p_values(here)
    with pytest.raises(InputError, match="another run"):
        compare(tallies, settings=SignificanceSettings(seed=12, shuffles=4999, bootstrap=0,
                                                       classic=False),
                executor=dist.DaskExecutor(workers=1, checkpoint=str(checkpoint)))


def test_killed_workers_are_replaced_and_their_jobs_retried(monkeypatch) -> None:
    monkeypatch.setattr(dist, "TASK_WORK", 1 << 19)
    tallies = _tallies(systems=8, units=40)
    settings = SignificanceSettings(seed=5, shuffles=1 << 16, bootstrap=0, classic=False)
    here = compare(tallies, settings=settings)
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    try:
        with distributed.Client(cluster) as client:
            pids = list(client.run(os.getpid).values())
            outcome: dict[str, object] = {}

            def run() -> None:
                outcome["result"] = compare(tallies, settings=settings,
                                            executor=dist.DaskExecutor(
                                                address=cluster.scheduler_address))

            runner = threading.Thread(target=run)
            runner.start()
            deadline = time.monotonic() + 60
            while not client.processing() or not any(client.processing().values()):
                assert time.monotonic() < deadline, "no task ever ran"
                time.sleep(0.05)
            os.kill(pids[0], signal.SIGKILL)
            runner.join(timeout=300)
            assert not runner.is_alive()
    finally:
        cluster.close()
    assert _p_values(outcome["result"]) == _p_values(here)


def test_scheduler_option_errors_and_plan(tmp_path: Path, capsys) -> None:
    with pytest.raises(UsageError, match="local:N"):
        dist.parse_scheduler("local:zero")
    with pytest.raises(UsageError, match="scheduler address"):
        dist.parse_scheduler("somewhere")
    csv = tmp_path / "units.csv"
    tallies = _tallies(systems=4, units=10)
    rows = ["system,unit,POS,ACT,COR,PAR"] + [
        f"{s},{u},{','.join(str(int(v)) for v in tallies.counts[i, j])}"
        for i, s in enumerate(tallies.systems) for j, u in enumerate(tallies.units)]
    csv.write_text("\n".join(rows) + "\n")
    assert main(["significance", str(csv), "--plan", "--format", "json", "--seed", "1"]) == 0
    planned = json.loads(capsys.readouterr().out)
    assert planned["format"] == "muceval-significance-plan" and planned["pairs"] == 6
    assert planned["pair_shuffles"] + planned["exact_jobs"] > 0 and planned["seconds"] >= 0
    assert main(["significance", str(csv), "--checkpoint", str(tmp_path / "c")]) == 2
    assert "--checkpoint goes with --scheduler" in capsys.readouterr().err
    assert main(["significance", str(csv), "--seed", "1", "--format", "json",
                 "--scheduler", "local:1", "--bootstrap", "0"]) == 0
    remote = json.loads(capsys.readouterr().out)
    assert main(["significance", str(csv), "--seed", "1", "--format", "json",
                 "--bootstrap", "0"]) == 0
    local = json.loads(capsys.readouterr().out)
    assert [c["p_value"] for c in remote["comparisons"]] == \
        [c["p_value"] for c in local["comparisons"]]


def test_batch_scoring_on_a_cluster_gives_the_in_process_scores() -> None:
    from muceval.formats.config import load_configuration
    from muceval.reporting.demo import EXAMPLE_SYSTEMS, example_dir
    from muceval.scoring.muc1992.scorer import ScoringOptions
    from muceval.scoring.session import score_files

    example = example_dir()
    config = load_configuration(example / "config.toml")
    systems = [example / f"{name}.txt" for name in EXAMPLE_SYSTEMS]
    here = score_files(config, example / "key.txt", systems,
                       history_path=example / "history.lisp")
    there = score_files(config, example / "key.txt", systems,
                        history_path=example / "history.lisp", scheduler="local:2")
    assert list(there.systems) == list(here.systems) and there.systems == here.systems
    without_history = score_files(config, example / "key.txt", systems, scheduler="local:1")
    assert without_history.systems == score_files(config, example / "key.txt", systems).systems
    with pytest.raises(UsageError, match="unresolved: .ask. scores the systems in order"):
        score_files(config, example / "key.txt", systems, history_path=example / "history.lisp",
                    options=ScoringOptions(unresolved="ask", ask=lambda q: None),
                    scheduler="local:1")


def test_a_tampered_or_broken_checkpoint_is_refused_with_its_line(tmp_path: Path,
                                                                  monkeypatch) -> None:
    # A broken line gave a traceback, tampered counts p-values of 100.0 or -0.004 (issue 27).
    import os

    monkeypatch.setattr(dist, "TASK_WORK", 4999 * 3)
    tallies = _tallies()
    checkpoint = tmp_path / "run.ckpt"
    compare(tallies, settings=SETTINGS,
            executor=dist.DaskExecutor(workers=1, checkpoint=str(checkpoint)))
    lines = checkpoint.read_text().splitlines()
    first = json.loads(lines[1])
    counts = first["result"]["nge"]

    def with_counts(value) -> str:
        changed = json.loads(lines[1])
        changed["result"]["nge"] = [[value] * len(row) for row in counts]
        return json.dumps(changed)

    cases = {
        "a count outside 0..4999": [lines[0], with_counts(SETTINGS.shuffles * 20), *lines[2:]],
        "a count outside": [lines[0], with_counts(-7), *lines[2:]],
        "not whole numbers": [lines[0], with_counts(1.5), *lines[2:]],
        "not a finished batch": [lines[0], "[1, 2]", *lines[1:]],
        "is given twice": [lines[0], lines[1], lines[1], *lines[2:]],
        "is not one of the": [lines[0], json.dumps({"batch": 10**6, "result": first["result"]}),
                              *lines[2:]],
    }
    for fragment, text in cases.items():
        checkpoint.write_text("\n".join(text) + "\n")
        with pytest.raises(InputError, match=fragment) as caught:
            compare(tallies, settings=SETTINGS,
                    executor=dist.DaskExecutor(workers=1, checkpoint=str(checkpoint)))
        # The line of the batch at fault (the second copy, for a batch given twice).
        assert caught.value.problems[0].line == (3 if "twice" in fragment else 2), fragment
    checkpoint.write_bytes(lines[0].encode() + b"\n\xff\xfe\n")
    with pytest.raises(InputError, match="not UTF-8"):
        compare(tallies, settings=SETTINGS,
                executor=dist.DaskExecutor(workers=1, checkpoint=str(checkpoint)))
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="not a regular file"):
        compare(tallies, settings=SETTINGS,
                executor=dist.DaskExecutor(workers=1, checkpoint=str(fifo)))
