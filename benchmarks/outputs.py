"""Benchmark: the 17 TST3 systems scored and written as JSON, by default and with every detail.

The default JSON holds each system's summary and per-message totals; ``--detail
pairs`` (every row of every message and template pair, what every output held
before) is the baseline, measured in the same run. Prints the median time of the
whole command and the size of its output.

Usage: python3 benchmarks/outputs.py [--shared ../shared] [--repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import shared_folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", help="folder holding muc4/ (default: ../shared)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    muc4 = shared_folder(args.shared, "muc4")
    base = [sys.executable, "-m", "muceval", "score",
            "--key", str(muc4 / "corpora/tst3/key-tst3.v2"),
            "--config", str(muc4 / "tst3/config-tst3.el"),
            "--history", str(muc4 / "tst3/final-history-nrad.tst3"), "--no-query-pass",
            "--format", "json", str(muc4 / "tst3/responses")]
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        for label, extra in (("--detail pairs (baseline)", ["--detail", "pairs"]),
                             ("default (summary)", [])):
            out = Path(folder) / "scores.json"
            times = []
            for _ in range(args.repeat):
                start = time.perf_counter()
                subprocess.run([*base, *extra, "-o", str(out), "--force"], check=True,
                               capture_output=True)
                times.append(time.perf_counter() - start)
            results[label] = (statistics.median(times), out.stat().st_size)
    for label, (seconds, size) in results.items():
        print(f"{label:28s} {seconds:6.2f} s   {size / 1e6:8.2f} MB")
    (t0, s0), (t1, s1) = results.values()
    print(f"{'ratio':28s} {t0 / t1:6.1f}x   {s0 / s1:8.0f}x smaller")


if __name__ == "__main__":
    main()
