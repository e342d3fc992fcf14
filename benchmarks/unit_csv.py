"""Benchmark: reading a large unit-tallies CSV (system,unit,POS,ACT,COR,PAR), in time and memory.

Issue 27 found a 200 MB unit CSV still running after 180 s at 4.7 GB: each row became a
tally object, checked with NumPy one row at a time. The reader now keeps the rows as columns
and checks the counts all at once. For each size this prints the median time of
:func:`muceval.formats.registry.load_inputs` (reader and unit tallies), the median time of
Python's csv module merely iterating the same rows (the floor, measured in the same run),
their ratio, and the peak memory the load allocates per row (tracemalloc; the file's text
itself counts about 30 bytes per row).

Usage: python3 benchmarks/unit_csv.py [--rows 100000,400000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import random
import tempfile
import tracemalloc

from common import median_time
from muceval.formats.registry import load_inputs


def write(path: str, rows: int, systems: int = 10) -> None:
    rng = random.Random(1)
    with open(path, "w", encoding="utf-8") as out:
        out.write("system,unit,POS,ACT,COR,PAR\n")
        for s in range(systems):
            for u in range(rows // systems):
                pos, act = rng.randint(0, 5), rng.randint(0, 5)
                out.write(f"SYS{s},TST-MSG-{u:07d},{pos},{act},{rng.randint(0, min(pos, act))},0\n")


def csv_floor(path: str) -> int:
    with open(path, encoding="utf-8") as handle:
        return sum(1 for _ in csv.reader(io.StringIO(handle.read(), newline="")))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="100000,400000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{'rows':>9} {'MB':>6} {'load s':>7} {'csv floor s':>11} {'ratio':>6} "
          f"{'µs/row':>7} {'peak B/row':>10}")
    with tempfile.TemporaryDirectory() as folder:
        for rows in (int(r) for r in args.rows.split(",")):
            path = os.path.join(folder, f"{rows}.csv")
            write(path, rows)
            load, tallies = median_time(lambda path=path: load_inputs([path]), args.repeat)
            floor, _ = median_time(lambda path=path: csv_floor(path), args.repeat)
            tracemalloc.start()
            load_inputs([path])
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            size = os.path.getsize(path) / 1e6
            print(f"{rows:>9,} {size:>6.1f} {load:>7.2f} {floor:>11.2f} {load / floor:>6.1f} "
                  f"{1e6 * load / rows:>7.2f} {peak / rows:>10.0f}")
            assert tallies.counts.shape[0] == 10


if __name__ == "__main__":
    main()
