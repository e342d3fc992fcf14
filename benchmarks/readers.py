"""Benchmark: the history reader on one long line, against the same history over many lines.

Emacs' ``prin1`` writes a whole history on one line. The reader must take time
linear in the size whatever the layout: for each size this prints the median
time of the one-line file and of the same forms one per line (the baseline,
measured in the same run), their ratio, and the growth exponent of the
one-line time (1.0 is linear, 2.0 quadratic). Before the fix a 2.1 MB one-line
history took 25 s.

Usage: python3 benchmarks/readers.py [--repeat N]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

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


if __name__ == "__main__":
    main()
