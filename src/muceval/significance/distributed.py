"""Running a significance plan on a Dask cluster (``--scheduler tcp://HOST:8786`` or ``local:N``),
bit for bit as in process (the coins come from seed, shuffle and unit alone); a checkpoint
file lets a run started again skip its finished batches.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from muceval.cluster import connect, distributed_module, parse_address
from muceval.errors import InputError, OutputError
from muceval.significance.execute import Outcomes, Progress
from muceval.significance.kernels import ExactResult, PairData, approximate_counts, exact_pvalue
from muceval.significance.plan import ExactJob, Plan
from muceval.significance.settings import SignificanceSettings

__all__ = ["TASK_WORK", "DaskExecutor", "parse_scheduler"]

TASK_WORK = 1 << 24
"""Pair-shuffles per task: about 0.4 s of kernel time, far above Dask's ~1 ms per task."""


def parse_scheduler(text: str) -> DaskExecutor:
    """``local:N`` (a local cluster of N worker processes) or a scheduler address."""
    address, workers = parse_address(text)
    return DaskExecutor(address=address, workers=workers)


def _pair(reduced: np.ndarray | None, item: Any) -> PairData:
    """A task's pair: sent whole, or two system indices into the tallies sent once."""
    if isinstance(item, PairData):
        return item
    assert reduced is not None
    return PairData.of(reduced[item[0]], reduced[item[1]])


def _approximate_task(reduced: np.ndarray | None, items: list[Any], metrics: tuple[str, ...],
                      shuffles: int, seed: int, two_sided: bool) -> np.ndarray:
    pairs = [_pair(reduced, item) for item in items]
    return approximate_counts(pairs, metrics, shuffles, seed, two_sided, threads=1)


def _exact_task(reduced: np.ndarray | None, jobs: list[tuple[int, str, Any]], two_sided: bool,
                budget: int) -> list[tuple[int, str, ExactResult]]:
    return [(k, metric, exact_pvalue(_pair(reduced, item), metric, two_sided, budget))
            for k, metric, item in jobs]


@dataclass
class DaskExecutor:
    """A plan's jobs on a Dask cluster: ``address`` of a running scheduler, or ``workers``
    processes of a local cluster; ``checkpoint``: a file of finished batches."""

    address: str | None = None
    workers: int | None = None
    checkpoint: str | None = None
    retries: int = 3

    def describe(self) -> str:
        return self.address or f"local:{self.workers}"

    def parallelism(self) -> int:
        """Worker threads the jobs run on (asks a running scheduler)."""
        if self.address is None:
            return self.workers or 1
        distributed = distributed_module()
        with distributed.Client(self.address, timeout=10) as client:
            threads: int = max(1, sum(client.nthreads().values()))
            return threads

    def run(self, plan: Plan, pairs: Sequence[PairData], metrics: Sequence[str],
            settings: SignificanceSettings, progress: Progress | None = None,
            source: tuple[np.ndarray, Sequence[tuple[int, int]]] | None = None) -> Outcomes:
        """Run the plan (``source`` sent to every worker once, the tasks carrying indices)."""
        assert settings.seed is not None, "the seed is drawn before the plan runs"
        distributed = distributed_module()
        batches = _batches(plan, settings)
        nge = np.zeros((len(pairs), len(metrics)), dtype=np.int64)
        exact: dict[ExactJob, ExactResult] = {}
        book = _Checkpoint(self.checkpoint, _fingerprint(pairs, metrics, settings, plan))
        book.check(batches, metrics, settings.shuffles)
        done_work = 0
        for number, result in book.finished().items():  # all of this run (book.check)
            done_work += _apply(batches[number], result, nge, exact, metrics, settings.shuffles)
        total = plan.work
        if progress is not None and done_work:
            progress(done_work, total)
        pending = [n for n in range(len(batches)) if n not in book.finished()]
        if not pending:
            return Outcomes(nge, exact)

        def item(k: int) -> Any:
            return tuple(source[1][k]) if source is not None else pairs[k]

        with connect(self.address, self.workers) as client:
            # A key of its own (hash=False): on a shared scheduler, another run's copy of
            # the same tallies could be released just as this run asks for it.
            reduced = (client.scatter(source[0], broadcast=True, hash=False)
                       if source is not None else None)
            futures = {}
            for n in pending:
                kind, items = batches[n]
                if kind == "approximate":
                    future = client.submit(
                        _approximate_task, reduced, [item(k) for k in items], tuple(metrics),
                        settings.shuffles, settings.seed, settings.two_sided,
                        retries=self.retries, pure=False)
                else:
                    future = client.submit(
                        _exact_task, reduced, [(job.pair, metrics[job.metric], item(job.pair))
                                               for job in items],
                        settings.two_sided, settings.exact_budget, retries=self.retries,
                        pure=False)
                futures[future] = n
            for future in distributed.as_completed(futures):
                n = futures[future]
                result = _encode(batches[n][0], future.result())
                book.record(n, result)
                done_work += _apply(batches[n], result, nge, exact, metrics, settings.shuffles)
                if progress is not None:
                    progress(done_work, total)
        return Outcomes(nge, exact)


Batch = tuple[str, list[Any]]


def _batches(plan: Plan, settings: SignificanceSettings) -> list[Batch]:
    """The plan cut into tasks (the same list for the same plan)."""
    size = max(1, TASK_WORK // max(1, settings.shuffles))
    approximate = list(plan.approximate_pairs)
    out: list[Batch] = [("approximate", approximate[i:i + size])
                        for i in range(0, len(approximate), size)]
    jobs = list(plan.exact_jobs)
    out += [("exact", jobs[i:i + 32]) for i in range(0, len(jobs), 32)]
    return out


def _encode(kind: str, result: Any) -> dict[str, Any]:
    if kind == "approximate":
        return {"nge": np.asarray(result).tolist()}
    # repr-exact floats: a resumed run gives the same p-values as an uninterrupted one.
    return {"exact": [[k, metric, r.p_value, r.error_bound, r.cells] for k, metric, r in result]}


def _apply(batch: Batch, result: dict[str, Any], nge: np.ndarray,
           exact: dict[ExactJob, ExactResult], metrics: Sequence[str], shuffles: int) -> int:
    """Fold a batch's result into the outcomes; returns its work."""
    kind, items = batch
    if kind == "approximate":
        nge[items] = np.asarray(result["nge"], dtype=np.int64).reshape(len(items), len(metrics))
        return len(items) * shuffles
    position = {m: i for i, m in enumerate(metrics)}
    for k, metric, p_value, error_bound, cells in result["exact"]:
        exact[ExactJob(int(k), position[metric])] = ExactResult(float(p_value),
                                                                float(error_bound), int(cells))
    return len(items) * max(1, shuffles // 4)


def _fingerprint(pairs: Sequence[PairData], metrics: Sequence[str],
                 settings: SignificanceSettings, plan: Plan) -> str:
    """What a checkpoint belongs to: the pairs' data, the metrics, the settings, the plan."""
    digest = hashlib.sha256()
    digest.update(json.dumps([list(metrics), settings.seed, settings.shuffles,
                              settings.two_sided, settings.exact_budget]).encode())
    digest.update(plan.exact.tobytes())
    for pair in pairs:
        digest.update(pair.diffs.tobytes())
        digest.update(pair.total_x.tobytes())
        digest.update(pair.total_y.tobytes())
    return digest.hexdigest()


class _Checkpoint:
    """Finished batches, one JSON line each after a header line naming the run; a file that
    is not such a checkpoint, or does not fit the run, is refused with its line."""

    def __init__(self, path: str | None, fingerprint: str) -> None:
        self.path = path
        self._finished: dict[int, dict[str, Any]] = {}
        self._lines: dict[int, int] = {}
        if path is None:
            return
        try:
            info = os.stat(path)
        except FileNotFoundError:
            info = None
        except OSError as error:
            raise OutputError(f"cannot use {path} as a checkpoint: "
                              f"{error.strerror or error}") from None
        if info is not None and not stat.S_ISREG(info.st_mode):
            # A FIFO would never end; a device is not a file to append to.
            raise InputError.at(path, None, "not a regular file: a checkpoint is a file")
        if info is not None and info.st_size > 0:
            self._read(path, fingerprint)
            return
        self._append(json.dumps({"format": "muceval-checkpoint", "format_version": 1,
                                 "run": fingerprint}), "w")

    def _read(self, path: str, fingerprint: str) -> None:
        data = Path(path).read_bytes()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as bad:
            raise InputError.at(path, data.count(b"\n", 0, bad.start) + 1,
                                "not UTF-8: not a muceval checkpoint") from None
        lines = text.splitlines()
        try:
            header = json.loads(lines[0])
        except (json.JSONDecodeError, IndexError):
            raise InputError.at(path, 1, "not a muceval checkpoint") from None
        if not isinstance(header, dict) or header.get("format") != "muceval-checkpoint":
            raise InputError.at(path, 1, "not a muceval checkpoint")
        if header.get("run") != fingerprint:
            raise InputError.at(path, 1, "this checkpoint belongs to another run (other "
                                "inputs, metrics, seed or shuffles): give a new file, or "
                                "the settings of that run")
        for number, line in enumerate(lines[1:], start=2):
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                if number == len(lines):
                    break  # the last line was being written when the run stopped
                raise InputError.at(path, number, "a broken line in the middle") from None
            batch = entry.get("batch") if isinstance(entry, dict) else None
            if (not isinstance(batch, int) or isinstance(batch, bool) or batch < 0
                    or not isinstance(entry.get("result"), dict)):
                raise InputError.at(path, number, "not a finished batch of this checkpoint")
            if batch in self._finished:
                raise InputError.at(path, number, f"batch {batch} is given twice")
            self._finished[batch] = entry["result"]
            self._lines[batch] = number

    def check(self, batches: Sequence[Batch], metrics: Sequence[str], shuffles: int) -> None:
        """Refuse a finished batch that cannot be one of this run's (a tampered checkpoint
        would give p-values outside [0, 1])."""
        for number, result in self._finished.items():
            problem = (f"batch {number} is not one of the {len(batches)} of this run"
                       if number >= len(batches)
                       else _batch_problem(batches[number], result, metrics, shuffles))
            if problem is not None:
                assert self.path is not None
                raise InputError.at(self.path, self._lines[number], problem)

    def finished(self) -> dict[int, dict[str, Any]]:
        return self._finished

    def record(self, number: int, result: dict[str, Any]) -> None:
        self._finished[number] = result
        if self.path is not None:
            self._append(json.dumps({"batch": number, "result": result}), "a")

    def _append(self, line: str, mode: str) -> None:
        assert self.path is not None
        try:
            with open(self.path, mode, encoding="utf-8") as handle:
                handle.write(line + "\n")
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as error:
            raise OutputError(f"cannot write the checkpoint {self.path}: "
                              f"{error.strerror or error}") from None


def _batch_problem(batch: Batch, result: dict[str, Any], metrics: Sequence[str],
                   shuffles: int) -> str | None:
    """What makes ``result`` impossible as the result of ``batch``, or None."""
    kind, items = batch
    if kind == "approximate":
        counts = result.get("nge")
        try:
            nge = np.asarray(counts, dtype=np.int64)
        except (TypeError, ValueError, OverflowError):
            return "its counts are not whole numbers"
        # The shape is checked, not just the size: muceval writes one row per pair, and a
        # flat or transposed list could only come from another writer or a mutation.
        if nge.shape != (len(items), len(metrics)) or nge.dtype.kind != "i":
            return (f"counts of shape {list(nge.shape)} where the batch has "
                    f"{len(items)} pairs by {len(metrics)} measures")
        if (nge < 0).any() or (nge > shuffles).any():
            return f"a count outside 0..{shuffles} (the shuffles)"
        if not all(isinstance(v, int) and not isinstance(v, bool)
                   for v in np.asarray(counts, dtype=object).ravel()):
            return "its counts are not whole numbers"
        return None
    rows = result.get("exact")
    jobs = {(job.pair, metrics[job.metric]) for job in items}
    if not isinstance(rows, list) or len(rows) != len(items):
        return f"not the {len(items)} exact results of the batch"
    for row in rows:
        if not (isinstance(row, list) and len(row) == 5):
            return "an exact result that is not [pair, metric, p, error bound, cells]"
        k, metric, p_value, error_bound, cells = row
        if not (isinstance(k, int) and not isinstance(k, bool) and isinstance(metric, str)):
            return "an exact result whose pair is not a number or whose metric is not a name"
        if (k, metric) not in jobs:
            return f"an exact result for pair {k}, {metric}: not a job of the batch"
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                   for v in (p_value, error_bound, cells)):
            return "an exact result whose numbers are not numbers"
        if not (0.0 <= p_value <= 1.0 and 0.0 <= error_bound <= 1.0 and cells >= 0):
            return f"an exact p-value or error bound outside [0, 1] ({p_value}, {error_bound})"
    return None
