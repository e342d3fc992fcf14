"""Memory of all-pairs significance: the pairwise table streamed to a file (``--pairs``)
against the same table built from comparison objects (``--format csv``), same run.

For each number of synthetic systems (× 100 units, 999 shuffles by default) both commands
run in a fresh process; the script prints wall time and peak resident memory of each, and
checks that the two tables are the same bytes.

    python3 benchmarks/pairs_memory.py                 # 150 and 600 systems
    python3 benchmarks/pairs_memory.py --systems 300 --shuffles 9999
"""

from __future__ import annotations

import argparse
import filecmp
import tempfile
from pathlib import Path

from common import measured, synthetic_tallies
from engine import write_csv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", default="150,600")
    parser.add_argument("--units", type=int, default=100)
    parser.add_argument("--shuffles", type=int, default=999)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for n in (int(x) for x in args.systems.split(",")):
            data = folder / f"s{n}.csv"
            write_csv(data, synthetic_tallies(n, args.units))
            common = ["significance", str(data), "--seed", "1", "--shuffles", str(args.shuffles)]
            whole_t, whole_mb, _ = measured([*common, "--format", "csv"], folder / "whole.csv")
            pairs = folder / "pairs.csv"
            stream_t, stream_mb, _ = measured([*common, "--pairs", str(pairs), "--force"],
                                           folder / "summary.txt")
            same = filecmp.cmp(folder / "whole.csv", pairs, shallow=False)
            count = n * (n - 1) // 2
            print(f"{n} systems ({count:,} pairs × 5 metrics): objects {whole_t:.1f} s, "
                  f"{whole_mb:,.0f} MB peak; streamed (--pairs) {stream_t:.1f} s, "
                  f"{stream_mb:,.0f} MB peak ({whole_mb / stream_mb:.1f}× less); "
                  f"tables {'identical' if same else 'DIFFERENT'}")


if __name__ == "__main__":
    main()
