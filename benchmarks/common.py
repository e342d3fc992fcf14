"""What every benchmark needs: the shared data folder and a median timing."""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple, TypeVar

T = TypeVar("T")


def shared_folder(given: str | None, part: str) -> Path:
    """``part`` (``muc4``, ``modern``) of the shared data: ``--shared``, else ``$MUCEVAL_SHARED``,
    else ``../shared`` beside the repository; exits with a clear message when it is absent."""
    base = Path(given or os.environ.get("MUCEVAL_SHARED")
                or Path(__file__).resolve().parents[2] / "shared")
    folder = base / part
    if not folder.is_dir():
        sys.exit(f"{part} not found at {folder} (use --shared DIR or MUCEVAL_SHARED)")
    return folder


def installed_environment() -> dict[str, str]:
    """This process's environment for a fresh muceval process, as an installed muceval runs:
    with Python's bytecode cache (``PYTHONDONTWRITEBYTECODE`` would recompile every module
    on every start)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def child_cpu() -> float:
    """CPU seconds (user and system) of this process's finished children so far: a run's
    CPU time is the difference before and after it."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def median_time(work: Callable[[], T], repeat: int) -> tuple[float, T]:
    """The median wall time of ``repeat`` runs of ``work``, and what the last run returned."""
    if repeat < 1:
        raise ValueError("repeat at least once")
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def median_times(work: Callable[[], T], repeat: int) -> tuple[float, float, T]:
    """The median wall and CPU seconds (this process's, its threads included) of ``repeat``
    runs of ``work``, and what the last run returned."""
    if repeat < 1:
        raise ValueError("repeat at least once")
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        result = work()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus), result


def synthetic_counts(systems: int, units: int, seed: int = 2):
    """``systems × units × 4`` POS/ACT/COR/PAR counts of correlated synthetic systems (one
    key; each system a little better than the last)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    pos = rng.integers(1, 8, size=units)
    counts = np.zeros((systems, units, 4), dtype=np.int64)
    for s in range(systems):
        act = np.maximum(1, pos + rng.integers(-2, 3, size=units))
        cor = np.minimum(act, rng.binomial(pos, min(0.95, 0.3 + 0.002 * s)))
        par = np.minimum(np.minimum(act, pos) - cor, rng.integers(0, 2, size=units))
        counts[s] = np.stack([pos, act, cor, par], 1)
    return counts


def synthetic_tallies(systems: int, units: int, seed: int = 2):
    """:func:`synthetic_counts` as unit tallies (systems ``S0…``, units ``u0…``)."""
    from muceval.core.units import UnitTallies

    return UnitTallies(tuple(f"S{i}" for i in range(systems)),
                       tuple(f"u{i}" for i in range(units)), synthetic_counts(systems, units, seed))


_MEASURE = (
    "import resource, subprocess, sys\n"
    "with open(sys.argv[1], 'w') as out:\n"
    "    subprocess.run(sys.argv[2:], check=True, stdout=out)\n"
    "usage = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(usage.ru_maxrss, usage.ru_utime + usage.ru_stime)\n"
)


class Measured(NamedTuple):
    """A fresh process's wall seconds, peak resident megabytes and CPU seconds (user and
    system, its threads included: above the wall time when a second core worked)."""

    seconds: float
    peak_mb: float
    cpu: float


def measured(args: list[str], stdout: Path, source: str | None = None) -> Measured:
    """``muceval ARGS`` in a fresh process (its stdout to a file), measured; ``source``: the
    ``src`` folder of another version to run instead."""
    import subprocess

    env = installed_environment()
    if source:
        env["PYTHONPATH"] = source
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _MEASURE, str(stdout), sys.executable, "-m",
                           "muceval", *args], check=True, capture_output=True, text=True,
                          env=env)
    peak, cpu = done.stdout.split()[-2:]
    return Measured(time.perf_counter() - start, int(peak) / 1024, float(cpu))
