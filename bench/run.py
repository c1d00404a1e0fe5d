"""Run every benchmark and print one table: each figure, its floor (measured in the same run),
the ratio, and the target.

    python3 bench/run.py            # full sizes (a few minutes)
    python3 bench/run.py --quick    # smaller sizes, same table
    python3 bench/run.py --smoke    # tiny sizes: proves every benchmark runs (figures mean nothing)
    python3 bench/run.py cli gen    # only some benchmarks
    python3 bench/run.py --smoke --json rows.json   # the table also as JSON (what the tests read)

Numbers are for one core; ratios matter more than seconds, since machines differ. The first row
times a plain Python loop (the machine loop). A target in seconds or per second is set for the
reference machine, where that loop takes `REFERENCE_LOOP_S`; on another machine it is scaled by
the loop's time here over the reference's (a machine twice as slow may take twice as long), and
the table prints both: `< 2.5 s (× 2.10 here: 5.25 s)`. A target against a floor measured in the
same run (`≤ 3× floor`) needs no scaling. A figure is "met" against the scaled target.
"""

from __future__ import annotations

import importlib
import re
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
    "code": "bench_code",
    "deck": "bench_deck",
    "sheet": "bench_sheet",
    "grade": "bench_grade",
    "scan": "bench_scan",
}


#: The machine loop's time on the reference machine (an idle desktop core), where the absolute
#: targets hold as written.
REFERENCE_LOOP_S = 0.34

_ABSOLUTE = re.compile(r"^(<|≤|<=|>|≥|>=)\s*([0-9][0-9,]*(?:\.[0-9]+)?)\s*(s|/s)$")


def scaled(row: Row, factor: float) -> Row:
    """`row` with an absolute time or rate target scaled to this machine (the others as they were)."""
    match = _ABSOLUTE.match(row.target.strip())
    if match is None or not row.value:
        return row
    op, number, unit = match.groups()
    limit = float(number.replace(",", ""))
    here = limit * factor if unit == "s" else limit / factor
    if op in ("<", "≤", "<="):
        ok = row.value <= here
    else:
        ok = row.value >= here
    shown = f"{here:,.2f} s" if unit == "s" else f"{here:,.0f}/s"
    return Row(row.figure, row.value, row.unit, row.floor, row.floor_value,
               f"{row.target} (× {factor:.2f} here: {shown})", ok)


def machine_row() -> Row:
    """How long this machine takes for 10 million steps of a plain Python loop (best of 3)."""
    def loop() -> int:
        total = 0
        for i in range(10_000_000):
            total += i
        return total

    seconds = best_of(loop, 3)
    return Row("machine: a 10-million-step Python loop", seconds, "s", "", 0.0,
               f"(reference machine: {REFERENCE_LOOP_S} s; targets scale by × "
               f"{seconds / REFERENCE_LOOP_S:.2f})", True)


def main(argv: list[str]) -> int:
    argv = list(argv)
    json_path = None
    if "--json" in argv:
        at = argv.index("--json")
        if at + 1 >= len(argv) or argv[at + 1].startswith("-"):
            print("--json needs a file name", file=sys.stderr)
            return 2
        json_path = Path(argv.pop(at + 1))
        argv.pop(at)
    size = "smoke" if "--smoke" in argv else "quick" if "--quick" in argv else "full"
    flags = [a for a in argv if a.startswith("-") and a not in ("--smoke", "--quick")]
    if flags:
        print(f"unknown option {flags[0]!r}; options: --quick, --smoke, --json FILE",
              file=sys.stderr)
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
    factor = rows[0].value / REFERENCE_LOOP_S
    rows = [rows[0], *(scaled(row, factor) for row in rows[1:])]
    print()
    print_table(rows)
    if json_path is not None:
        import json

        json_path.write_text(json.dumps({
            "size": size, "reference_loop_s": REFERENCE_LOOP_S, "factor": factor,
            "rows": [{**vars(row), "ratio": row.ratio} for row in rows]}, indent=1) + "\n",
            encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
