"""Run every benchmark and print one table: each figure, its floor (measured in the same run),
the ratio, and the target.

    python3 bench/run.py            # full sizes (a few minutes)
    python3 bench/run.py --quick    # smaller sizes, same table
    python3 bench/run.py cli gen    # only some benchmarks

Numbers are for one core; ratios matter more than seconds, since machines differ.
"""

from __future__ import annotations

import importlib
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import print_table  # noqa: E402

BENCHES = {
    "cli": "bench_cli",
    "gen": "bench_generate",
    "occupancy": "bench_occupancy",
    "deck": "bench_deck",
    "sheet": "bench_sheet",
    "grade": "bench_grade",
}


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    chosen = [a for a in argv if not a.startswith("-")] or list(BENCHES)
    unknown = [a for a in chosen if a not in BENCHES]
    if unknown:
        print(f"unknown benchmark {unknown[0]!r}; choose from: {', '.join(BENCHES)}", file=sys.stderr)
        return 2
    rows = []
    for name in chosen:
        module = importlib.import_module(BENCHES[name])
        start = time.perf_counter()
        print(f"… {name}", file=sys.stderr, flush=True)
        rows.extend(module.measure(quick))
        print(f"  {name} took {time.perf_counter() - start:.1f} s", file=sys.stderr, flush=True)
    print()
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
