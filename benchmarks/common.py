"""What every benchmark needs: the shared data folder and a median timing."""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

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
