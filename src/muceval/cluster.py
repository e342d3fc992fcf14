"""A Dask cluster for one run (``--scheduler`` of ``significance`` and ``score``): a running
scheduler's address, or ``local:N`` worker processes."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from muceval.errors import UsageError

__all__ = ["connect", "distributed_module", "parse_address"]


def distributed_module() -> Any:
    """Dask's ``distributed``, or a UsageError saying what to install."""
    try:
        import distributed
    except ImportError:
        raise UsageError("needs Dask: pip install 'muceval[distributed]'",
                         parameter="scheduler") from None
    return distributed


def parse_address(text: str) -> tuple[str | None, int | None]:
    """``(address, None)`` for a scheduler address, ``(None, N)`` for ``local:N``.

    >>> parse_address("local:2"), parse_address("tcp://10.0.0.1:8786")
    ((None, 2), ('tcp://10.0.0.1:8786', None))
    """
    if text.startswith("local:"):
        count = text.removeprefix("local:")
        if not count.isdigit() or int(count) < 1:
            raise UsageError(f"{text!r}: local:N needs a number of workers N >= 1",
                             parameter="scheduler")
        return None, int(count)
    if "://" not in text:
        raise UsageError(f"{text!r}: give a Dask scheduler address "
                         "(tcp://HOST:8786) or local:N", parameter="scheduler")
    return text, None


@contextlib.contextmanager
def connect(address: str | None, workers: int | None) -> Iterator[Any]:
    """A client of the scheduler at ``address``, or of ``workers`` local worker processes
    (one thread each) started here and stopped at the end."""
    distributed = distributed_module()
    cluster = None
    if address is None:
        cluster = distributed.LocalCluster(n_workers=workers or 1, threads_per_worker=1,
                                           processes=True, dashboard_address=None)
    try:
        with distributed.Client(cluster or address) as client:
            yield client
    finally:
        if cluster is not None:
            cluster.close()
