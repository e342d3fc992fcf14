"""Benchmark: reading GTT's buckets file (``--event-n-file``) up to a million document ids.

The check that no document is listed twice in a bucket was quadratic (90,000 ids gave no
answer in 120 s); it is a set now. Prints the median time of
:func:`muceval.formats.modern.buckets.read_event_buckets` on files with one bucket of
10,000 ids, of every numeric MUC id there is (89,991), and of 1,000,000 ids (which must
repeat some: the file is refused at the first repeat, after the whole text is decoded), and,
as the baseline measured in the same run, the time of ``json.loads`` of the same text (the
floor), with the ratio, wall and CPU time (medians). Linear means the ratio stays about the
same from size to size. One process, one thread: an idle core is not needed, but a busy
machine moves the wall times (the CPU times less).

Usage: python3 benchmarks/buckets.py [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from common import median_times
from muceval.errors import InputError
from muceval.formats.modern.buckets import read_event_buckets

ALL_IDS = [str(test_set * 10_000 + message) for test_set in range(1, 10)
           for message in range(1, 10_000)]


def _read(path: Path) -> object:
    try:
        return read_event_buckets(path)
    except InputError as refused:  # the 1,000,000-id file repeats ids
        return refused


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    print(f"{'ids':>10}  {'read_event_buckets wall/CPU':>28}  {'json.loads wall/CPU':>20}  "
          "ratio  outcome")
    for size in (10_000, len(ALL_IDS), 1_000_000):
        path = folder / f"buckets-{size}.json"
        path.write_text(json.dumps({"2": [ALL_IDS[n % len(ALL_IDS)] for n in range(size)]}))
        ours, ours_cpu, outcome = median_times(lambda p=path: _read(p), args.repeat)
        floor, floor_cpu, _ = median_times(lambda p=path: json.loads(p.read_text()), args.repeat)
        said = "refused: an id repeats" if isinstance(outcome, InputError) else "read"
        print(f"{size:>10,}  {ours:>12.3f} s / {ours_cpu:.3f} s  {floor:>7.3f} s / "
              f"{floor_cpu:.3f} s  {ours / floor:5.1f}×  {said}")


if __name__ == "__main__":
    main()
