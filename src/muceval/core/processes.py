"""Work split over forked processes on the cores nobody else is using: :func:`in_processes`.

Not :mod:`multiprocessing` or ``ProcessPoolExecutor``: they pickle the work, and a share of a
session is a closure over the key, history and options that does not pickle; they start
helper threads here; and this process would wait idle instead of doing the first share.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, TypeVar

__all__ = ["fork_safe", "idle_cores", "in_processes"]

T = TypeVar("T")
R = TypeVar("R")


def fork_safe() -> bool:
    """Whether this process may fork: only on Linux (macOS's system libraries may not survive
    a fork) and with one Python thread (another may hold a lock the child then waits on
    forever).

    >>> isinstance(fork_safe(), bool)
    True
    """
    return sys.platform == "linux" and threading.active_count() == 1


def idle_cores() -> int:
    """How many processes may run at once now: the cores this process may use, less those
    another process is running on (Linux's runnable tasks in ``/proc/loadavg``, this one
    included); 1 where a fork is not safe or the count is unknown.

    >>> idle_cores() >= 1
    True
    """
    if not fork_safe():
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
    in a forked child at the same time (all here without a safe fork, :func:`fork_safe`); None
    if a child failed or could not be forked (the caller then does the work itself, which
    raises the error a child met, in the order it would have met it).

    A child inherits what this process built and sends back its result pickled through a
    pipe, with the warnings this process's filters let it record (an error filter fails the
    child), given again here after the work. It ends with ``os._exit``, so it neither flushes
    this process's buffers nor runs its exit handlers. No child outlives the call.

    >>> in_processes(lambda n: n * n, [2, 3, 4])
    [4, 9, 16]
    """
    if not fork_safe():
        return [work(part) for part in parts]
    pids: list[int] = []
    reads: list[int] = []  # the pipes of the children not heard yet, in order
    sent: list[tuple[R, list[tuple[Warning | str, type[Warning], str, int]]] | None] = []
    try:
        for part in parts[1:]:
            try:
                read, write = os.pipe()
            except OSError:
                return None
            try:
                pid = os.fork()
            except OSError:  # no process to be had (a limit on processes, memory)
                os.close(read)
                os.close(write)
                return None
            if pid == 0:  # pragma: no cover (the child; coverage does not follow it)
                _child(work, part, read, write, reads)
            os.close(write)
            pids.append(pid)
            reads.append(read)
        results = [work(parts[0])]
        for pid in list(pids):
            with os.fdopen(reads.pop(0), "rb") as file:
                data = file.read()
            _, status = os.waitpid(pid, 0)
            pids.remove(pid)
            sent.append(_loaded(data) if status == 0 else None)
    finally:
        for read in reads:
            with contextlib.suppress(OSError):
                os.close(read)
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.waitpid(pid, 0)
    if None in sent:
        return None
    elsewhere: dict[Any, Any] = {}
    for done, said in filter(None, sent):
        for message, category, filename, lineno in said:
            # The registry of the module that warned, as warnings.warn uses it: a warning this
            # process (or an earlier child) has shown is shown again only if its filter says so.
            warnings.warn_explicit(message, category, filename, lineno,
                                   registry=_registry(filename, elsewhere))
        results.append(done)
    return results


def _registry(filename: str, elsewhere: dict[Any, Any]) -> dict[Any, Any]:
    for module in list(sys.modules.values()):
        if getattr(module, "__file__", None) == filename:
            registry: dict[Any, Any] = vars(module).setdefault("__warningregistry__", {})
            return registry
    return elsewhere


def _loaded(data: bytes) -> Any:
    """What a child sent; None if it cannot be read back (then the work is done here)."""
    try:
        return pickle.loads(data)
    except Exception:
        return None


def _child(work: Callable[[T], R], part: T, read: int, write: int,
           siblings: list[int]) -> NoReturn:  # pragma: no cover (runs in the child)
    """A forked child's life: ``work(part)`` and its warnings into ``write``, then the end."""
    status = 1
    try:
        # Held open here, an earlier sibling's pipe would not end when the parent stops.
        for fd in (read, *siblings):
            os.close(fd)
        # Collected as they would be shown: unlike catch_warnings, this keeps the registries
        # inherited from the parent, so what the parent has shown once is not collected again.
        said: list[tuple[Any, type[Warning], str, int]] = []
        warnings.showwarning = lambda message, category, filename, lineno, *_: said.append(
            (message, category, filename, lineno))
        done = work(part)
        data = pickle.dumps((done, said), pickle.HIGHEST_PROTOCOL)
        with os.fdopen(write, "wb") as out:
            out.write(data)
        status = 0
    finally:
        os._exit(status)
