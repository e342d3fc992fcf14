"""Benchmark: one answer on the adjudication page, as the user feels it (issue 30).

An answer is a POST (the answer saved in the history, the scores brought up to date) and the
GET of the next question's page that its redirect asks for (with the score table). Measured
through the application (Starlette's TestClient, no network) on a copy of the official TST3
history, with the 17 TST3 systems and with one (BBN): each round answers one of the first open
questions ("incorrect"), then takes the answer back (undo, also timed), so that every round
starts from the same state.

Two paths are measured in the same run:

* muceval: the session scores again only the messages whose scoring looked up the history
  where the answer went, and the page shows totals it keeps up to date;
* baseline: the session before issue 30, every change scoring every system over every
  message again, and every page summarising every system's pairs again for its table.

The history save is part of the POST on both paths (the file is re-read and rewritten with
the user's text kept byte for byte); its median is printed apart ("save"), and the round
trip without it ("no save"): the save depends on the size of the history, not on the
systems. Target: a round trip (POST + GET) under 0.2 s with 17 systems.

Usage: python3 benchmarks/adjudication.py [--repeat N] [--shared DIR]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

import muceval.web.app as web
from common import shared_folder
from muceval.formats.config import load_configuration
from muceval.reporting.analysis import systems_from_pairs
from muceval.scoring.adjudication import Adjudication
from muceval.web.views import scores_view

SYSTEMS = (
    "BBN GE GE-CMU HUGHES LSI MDC MITRE NMSU NYU PARAMAX PRC SRA SRI SYNCH UMASS UMICH USC".split()
)
TARGET = 0.2
TOKEN = "bench"


class FullRescoring(Adjudication):
    """The session before issue 30: every answer, undo or mapping scores everything again."""

    def _rescore(self, stale: Iterable[tuple[str, str]]) -> None:
        self.refresh()


def full_table(session: Adjudication) -> list[dict[str, Any]]:
    """The score table as every page computed it before issue 30: every pair summarised."""
    systems_from_pairs(session.pairs, session.config)
    return scores_view(session)


@contextmanager
def served(kind: type[Adjudication], root: Path, systems: list[str]) -> Iterator[TestClient]:
    tst3 = root / "tst3"
    config = load_configuration(tst3 / "config-tst3.el")
    with tempfile.TemporaryDirectory() as folder:
        history = Path(folder) / "history.tst3"
        # copyfile: the shared file is read-only, and a read-only history is refused.
        shutil.copyfile(tst3 / "final-history-nrad.tst3", history)
        responses = [tst3 / "responses" / f"{s}.tst3" for s in systems]
        with kind(config, root / "corpora/tst3/key-tst3.v2", responses, history) as session:
            app = web.create_app(session, TOKEN)
            with TestClient(app, base_url="http://127.0.0.1:8000") as client:
                client.session = session  # type: ignore[attr-defined]
                yield client


def rounds(client: TestClient, repeat: int) -> dict[str, float]:
    """Median seconds of the POST, the next page, their sum, the undo, the history save, and
    the round without the save."""
    session: Adjudication = client.session  # type: ignore[attr-defined]
    saves: list[float] = []
    record = session.store.record

    def timed_record(*args: Any) -> None:
        start = time.perf_counter()
        record(*args)
        saves.append(time.perf_counter() - start)

    session.store.record = timed_record  # type: ignore[method-assign]
    client.get(f"/{TOKEN}/")  # the first page: templates compiled, table computed
    times: dict[str, list[float]] = {"post": [], "get": [], "round": [], "undo": []}
    open_questions = min(len(session.questions), 5)
    for n in range(repeat):
        question = session.questions[n % open_questions]
        start = time.perf_counter()
        posted = client.post(f"/{TOKEN}/answer", data={"question": question.id,
                                                        "answer": "incorrect"},
                             follow_redirects=False)
        middle = time.perf_counter()
        page = client.get(posted.headers["location"])
        end = time.perf_counter()
        if posted.status_code != 303 or page.status_code != 200:
            sys.exit(f"answer failed: {posted.status_code} {page.status_code}")
        client.post(f"/{TOKEN}/undo", follow_redirects=False)
        times["post"].append(middle - start)
        times["get"].append(end - middle)
        times["round"].append(end - start)
        times["undo"].append(time.perf_counter() - end)
    out = {name: statistics.median(values) for name, values in times.items()}
    out["save"] = statistics.median(saves)
    # One save per answer: what the round costs besides it.
    out["rest"] = statistics.median(r - s for r, s in zip(times["round"], saves, strict=True))
    return out


def measure(root: Path, systems: list[str], repeat: int) -> tuple[dict[str, float],
                                                                  dict[str, float]]:
    with served(Adjudication, root, systems) as client:
        fast = rounds(client, repeat)
        pairs = dict(client.session.pairs)  # type: ignore[attr-defined]
    web.scores_view = full_table  # type: ignore[assignment]
    try:
        with served(FullRescoring, root, systems) as client:
            slow = rounds(client, repeat)
            if client.session.pairs != pairs:  # type: ignore[attr-defined]
                sys.exit("the two paths disagree: benchmark invalid")
    finally:
        web.scores_view = scores_view
    return fast, slow


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9, help="answers per path (default 9)")
    parser.add_argument("--shared", help="folder holding muc4/ (default: ../shared)")
    args = parser.parse_args()
    root = shared_folder(args.shared, "muc4")
    print(f"adjudicate on the official TST3 history: median of {args.repeat} answers, seconds")
    print(f"{'systems':>8} {'path':<9} {'POST':>7} {'GET':>7} {'round':>7} {'undo':>7} "
          f"{'save':>7} {'no save':>8}")
    for systems in (SYSTEMS[:1], SYSTEMS):
        fast, slow = measure(root, list(systems), args.repeat)
        for name, row in (("muceval", fast), ("baseline", slow)):
            print(f"{len(systems):>8} {name:<9} {row['post']:>7.3f} {row['get']:>7.3f} "
                  f"{row['round']:>7.3f} {row['undo']:>7.3f} {row['save']:>7.3f} "
                  f"{row['rest']:>8.3f}")
        verdict = "met" if fast["round"] < TARGET else "NOT met"
        print(f"{'':>8} round trip {slow['round'] / fast['round']:.1f}x faster than the "
              f"baseline; target < {TARGET} s: {verdict} ({fast['round']:.3f} s)")


if __name__ == "__main__":
    main()
