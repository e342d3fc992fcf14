"""Work split over forked processes on the cores nobody else is using: :func:`in_processes`."""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = ["idle_cores", "in_processes"]

T = TypeVar("T")
R = TypeVar("R")


def idle_cores() -> int:
    """How many processes may run at once now: the cores this process may use, less those
    another process is running on at this moment (Linux's count of runnable tasks in
    ``/proc/loadavg``, this one included); 1 where a fork is not safe or the count is unknown.

    A fork is safe only on Linux (macOS's system libraries may not survive one) and only in a
    process with one thread (another may hold a lock the child then waits on forever).

    >>> idle_cores() >= 1
    True
    """
    if sys.platform != "linux" or threading.active_count() != 1:
        return 1
    try:
        usable = len(os.sched_getaffinity(0))
        with open("/proc/loadavg", encoding="ascii") as file:
            running = int(file.read().split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return 1
    return max(1, usable - (running - 1))


def in_processes(work: Callable[[T], R], parts: Sequence[T]) -> list[R] | None:
    """``[work(part) for part in parts]``, the first part in this process and each other one
    in a forked child at the same time; None if a child failed (the caller does the work
    itself, which raises the error a child met, in the order it would have met it).

    A child inherits what this process built (nothing is sent to it) and sends back its
    result pickled through a pipe, with the warnings it met, which are given again here
    after the work (where this process's filters decide what is shown). It writes nothing
    else and ends with ``os._exit``, so it neither flushes this process's buffers nor runs
    its exit handlers.

    Without ``os.fork`` (Windows), every part is done here, one after the other.

    >>> in_processes(lambda n: n * n, [2, 3, 4])
    [4, 9, 16]
    """
    if not hasattr(os, "fork"):
        return [work(part) for part in parts]
    children: list[tuple[int, int]] = []
    try:
        for part in parts[1:]:
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:  # pragma: no cover (the child; coverage does not follow it)
                status = 1
                try:
                    os.close(read)
                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always")
                        done = work(part)
                    said = [(w.message, w.category, w.filename, w.lineno) for w in caught]
                    data = pickle.dumps((done, said), pickle.HIGHEST_PROTOCOL)
                    with os.fdopen(write, "wb") as out:
                        out.write(data)
                    status = 0
                finally:
                    os._exit(status)
            os.close(write)
            children.append((pid, read))
        results = [work(parts[0])]
    except BaseException:
        for pid, read in children:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            os.close(read)
            os.waitpid(pid, 0)
        raise
    sent: list[tuple[R, list[tuple[Warning | str, type[Warning], str, int]]] | None] = []
    for pid, read in children:
        with os.fdopen(read, "rb") as file:
            data = file.read()
        _, status = os.waitpid(pid, 0)
        sent.append(pickle.loads(data) if status == 0 else None)
    if None in sent:
        return None
    for done, said in filter(None, sent):
        for message, category, filename, lineno in said:
            warnings.warn_explicit(message, category, filename, lineno)
        results.append(done)
    return results
