"""Run every benchmark and print one table: each figure, its floor (measured in the same run),
the ratio, and the target.

    python3 bench/run.py            # full sizes (a few minutes)
    python3 bench/run.py --quick    # smaller sizes, same table
    python3 bench/run.py --smoke    # tiny sizes: proves every benchmark runs (figures mean nothing)
    python3 bench/run.py cli gen    # only some benchmarks

Numbers are for one core; ratios matter more than seconds, since machines differ. The first row
times a plain Python loop, so a reader can see how fast this machine is next to their own.
"""

from __future__ import annotations

import importlib
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import Row, best_of, print_table  # noqa: E402

BENCHES = {
    "cli": "bench_cli",
    "gen": "bench_generate",
    "occupancy": "bench_occupancy",
    "deck": "bench_deck",
    "sheet": "bench_sheet",
    "grade": "bench_grade",
    "scan": "bench_scan",
}


def machine_row() -> Row:
    """How long this machine takes for 10 million steps of a plain Python loop (best of 3)."""
    def loop() -> int:
        total = 0
        for i in range(10_000_000):
            total += i
        return total

    seconds = best_of(loop, 3)
    return Row("machine: a 10-million-step Python loop", seconds, "s", "", 0.0,
               "(for scale: about 0.4 s on an idle desktop core)", True)


def main(argv: list[str]) -> int:
    size = "smoke" if "--smoke" in argv else "quick" if "--quick" in argv else "full"
    flags = [a for a in argv if a.startswith("-") and a not in ("--smoke", "--quick")]
    if flags:
        print(f"unknown option {flags[0]!r}; options: --quick, --smoke", file=sys.stderr)
        return 2
    chosen = [a for a in argv if not a.startswith("-")] or list(BENCHES)
    unknown = [a for a in chosen if a not in BENCHES]
    if unknown:
        print(f"unknown benchmark {unknown[0]!r}; choose from: {', '.join(BENCHES)}", file=sys.stderr)
        return 2
    rows = [machine_row()]
    for name in chosen:
        module = importlib.import_module(BENCHES[name])
        start = time.perf_counter()
        print(f"… {name}", file=sys.stderr, flush=True)
        rows.extend(module.measure(size))
        print(f"  {name} took {time.perf_counter() - start:.1f} s", file=sys.stderr, flush=True)
    print()
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
