"""Building many long-lived objects without the cyclic garbage collector walking them again
and again: :func:`building`."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["building", "freeze_after_building"]

_FREEZE = [False]


@contextmanager
def building(when: bool = True) -> Iterator[None]:
    """Pause the cyclic garbage collector while the block builds many objects that live to
    the end of the run, and resume it after (``when`` False: change nothing).

    Reading and scoring 17 MUC-4 systems makes hundreds of thousands of templates, fills and
    tallies, none in a reference cycle; each automatic collection walks every object alive,
    and they came hundreds of times over the growing heap: paused, reading and scoring the
    17 TST3 systems takes 0.90–0.93 s instead of 1.26–1.53 s (benchmarks/score.py, two runs
    on 2026-11-28). Nothing
    is kept longer: reference counting frees what the block drops, as before, and a cycle it
    leaves is collected after it (unless frozen, below).

    In a process that ends with the command (:func:`freeze_after_building`), what the block
    built is then frozen (``gc.freeze``): else the collections that follow walk all of it once
    more, up to three times, before the process ends.

    >>> import gc
    >>> with building():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    if not when or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if _FREEZE[0]:
            gc.freeze()
        gc.enable()


def freeze_after_building(on: bool = True) -> None:
    """Freeze what each :func:`building` block built, from now on in this process (``on``
    False: no longer): for a command line that exits after one command. Never for a library
    caller or a server: a reference cycle among frozen objects (theirs too) is never
    collected."""
    _FREEZE[0] = on
