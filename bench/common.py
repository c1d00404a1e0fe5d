"""Shared helpers for the benchmarks: timing, and one table for every figure.

Each benchmark module has ``measure(size: str) -> list[Row]`` (size: full, quick or smoke); ``bench/run.py`` runs them all
and prints one table. A row is a figure, the floor it is compared with (measured in the same
run), their ratio and the target.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Callable


@dataclass
class Row:
    figure: str
    value: float
    unit: str
    floor: str
    floor_value: float
    target: str
    ok: bool

    @property
    def ratio(self) -> float:
        """How many times slower than the floor (for rates and for times alike)."""
        if not self.floor_value or not self.value:
            return float("nan")
        if self.unit.endswith("/s"):
            return self.floor_value / self.value
        return self.value / self.floor_value


SIZES = ("full", "quick", "smoke")


def pick(size: str, full, quick, smoke):
    """The value of a benchmark parameter at `size`: full (the targets' sizes), quick (smaller,
    same table), smoke (tiny: proves the benchmark runs, its figures mean nothing)."""
    return {"full": full, "quick": quick, "smoke": smoke}[size]


def best_of(fn: Callable[[], object], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def command_time(args: list[str], repeat: int = 7) -> float:
    """Median wall time of a command (seconds), after one untimed run.

    Commands run as on a user's machine, where Python keeps compiled bytecode: the untimed run
    writes it even when this shell sets PYTHONDONTWRITEBYTECODE (pip compiles it at install).
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    run = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env)
    subprocess.run(args, **run)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(args, **run)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def python() -> str:
    return sys.executable


def print_table(rows: list[Row]) -> None:
    head = ("figure", "value", "floor (same run)", "floor value", "× floor", "target", "met")
    body = []
    for r in rows:
        body.append((r.figure, f"{r.value:,.3f} {r.unit}".strip(), r.floor, f"{r.floor_value:,.3f}",
                     f"{r.ratio:.2f}", r.target, "yes" if r.ok else "NO"))
    widths = [max(len(str(x[i])) for x in [head, *body]) for i in range(len(head))]
    line = "  ".join(h.ljust(w) for h, w in zip(head, widths))
    print(line)
    print("-" * len(line))
    for b in body:
        print("  ".join(str(c).ljust(w) for c, w in zip(b, widths)))
