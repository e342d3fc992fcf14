"""Benchmark: the history reader on one long line, against the same history over many lines.

Emacs' ``prin1`` writes a whole history on one line. The reader must take time
linear in the size whatever the layout: for each size this prints the median
time of the one-line file and of the same forms one per line (the baseline,
measured in the same run), their ratio, and the growth exponent of the
one-line time (1.0 is linear, 2.0 quadratic). Before the fix a 2.1 MB one-line
history took 25 s.

Then the 1992 score-report reader on the 17 official TST3 reports, against the same reader
with every number taken through the general, message-building path (as before plain digits
got their fast path), in the same run.

Usage: python3 benchmarks/readers.py [--repeat N] [--shared DIR]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

from common import median_time, shared_folder
from muceval.formats.muc import reports
from muceval.formats.muc.history import parse_history


def history(entries: int, one_line: bool) -> str:
    sep = " " if one_line else "\n    "
    judgements = sep.join(f'("\\"TARGET {i}\\"" match "\\"TARGET {i}\\"")' for i in range(entries))
    return f'(("TST3-MUC4-0001" ("1" (hum-tgt-name{sep}{judgements}))))'


def median_seconds(text: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        parse_history(text, "bench")
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--shared", help="the shared data folder (default: ../shared)")
    args = parser.parse_args()
    print(f"{'entries':>8} {'MB':>6} {'one line s':>11} {'many lines s':>13} {'ratio':>6}")
    previous = None
    for entries in (12_500, 25_000, 50_000, 100_000):
        flat = history(entries, one_line=True)
        lines = history(entries, one_line=False)
        a, b = median_seconds(flat, args.repeat), median_seconds(lines, args.repeat)
        print(f"{entries:>8} {len(flat) / 1e6:>6.2f} {a:>11.3f} {b:>13.3f} {a / b:>6.2f}")
        if previous is not None:
            growth = math.log(a / previous[1]) / math.log(len(flat) / previous[0])
            print(f"{'':>8} growth exponent of the one-line time: {growth:.2f}")
        previous = (len(flat), a)
    report_reader(args.shared, args.repeat)


def report_reader(shared: str | None, repeat: int) -> None:
    folder = shared_folder(shared, "muc4") / "tst3" / "official-scores"
    texts = [p.read_text(encoding="latin-1") for p in sorted(folder.iterdir())]

    def parse_all() -> None:
        for text in texts:
            reports.parse_report(text)

    ours, _ = median_time(parse_all, repeat)
    fast = reports._plain_int
    reports._plain_int = lambda token: None  # every number through parse_count
    try:
        general, _ = median_time(parse_all, repeat)
    finally:
        reports._plain_int = fast
    print(f"{len(texts)} TST3 score reports: {ours:.2f} s (every number through the general "
          f"path: {general:.2f} s, {general / ours:.2f}×)")


if __name__ == "__main__":
    main()
