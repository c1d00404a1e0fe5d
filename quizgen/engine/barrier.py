"""Waiting at a barrier: ``__syncthreads()`` lets no thread of the block past until the last
one arrives (CELLS.md, *Barriers*).

A thread that arrives at time t waits T_last − t; over N threads the waits add up to
N·T_last − Σ t, and the share of the threads' time spent waiting is that sum over N·T_last
(PMPP's eight threads at 2.0 … 3.0 µs: 4.1 ÷ 24.0 = 17.1%). Arrivals may stand for groups of
threads that arrive together (a warp's lanes): each counts with its number of threads.

Times are exact decimals (Fractions), so 2.3 + 0.7 is 3.0 and a share is rounded only when it
is shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Sequence

from quizgen.engine.derivation import Step
from quizgen.errors import QuizgenError

#: Arrivals one calculation takes at most (a block's threads, or its warps).
MAX_ARRIVALS = 1024

#: Formulas of this module: name → (sympy source, {symbol: meaning}).
FORMULAS: dict[str, tuple[str, dict[str, str]]] = {
    "barrier_wait_total": ("N*T_last - S_t", {
        "N": "threads that wait at the barrier", "T_last": "the last thread's arrival (the release)",
        "S_t": "the threads' arrival times added up"}),
    "barrier_wait_share": ("W/(N*T_last)", {
        "W": "time the threads spend waiting, added up", "N": "threads at the barrier",
        "T_last": "the last thread's arrival (the release)"}),
    "barrier_one_wait": ("T_last - t_j", {
        "T_last": "the last thread's arrival (the release)", "t_j": "this thread's arrival"}),
    "barrier_release_gain": ("T_last - T_next", {
        "T_last": "the last arrival", "T_next": "the arrival that becomes the last"}),
}
SHARES = frozenset({"barrier_wait_share"})


def plain(value: Any) -> int | float:
    """A time as the number a person reads: whole as int, else a float."""
    if value.__class__ is int:
        return value
    return value.numerator if value.denominator == 1 else float(value)


def _time(value: Any, where: str) -> Any:
    if value.__class__ is int and 0 <= value <= 10**12:
        return value
    if isinstance(value, bool):
        raise QuizgenError(f"got {value!r}; expected a time ≥ 0", field=where)
    if isinstance(value, Fraction):
        out = value
    elif isinstance(value, int):
        out = Fraction(value)
    elif isinstance(value, float):
        out = Fraction(repr(value))
    elif isinstance(value, str):
        try:
            out = Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            raise QuizgenError(f"got {value!r}; expected a time like 2.3", field=where) from None
    else:
        raise QuizgenError(f"got {value!r}; expected a time like 2.3", field=where)
    if out < 0 or out > 10**12:
        raise QuizgenError(f"got {value!r}; expected a time from 0 to 10¹²", field=where)
    return out.numerator if out.denominator == 1 else out


@dataclass(slots=True)
class BarrierWait:
    """Arrivals at one barrier (each with its thread count), the release and the waits (worked
    out once, when made: whole times stay ints, others are Fractions)."""

    arrivals: tuple[Any, ...]
    weights: tuple[int, ...]
    steps: list[Step] = field(default_factory=list)
    threads: int = 0
    release: Any = 0
    last: int = 0                 # index of the (first) arrival that releases the barrier
    waits: tuple[Any, ...] = ()
    arrival_sum: Any = 0
    total_wait: Any = 0
    share: Fraction = Fraction(0)
    longest_wait: Any = 0

    def __post_init__(self) -> None:
        self.threads = sum(self.weights)
        self.release = max(self.arrivals)
        self.last = self.arrivals.index(self.release)
        self.waits = tuple(self.release - t for t in self.arrivals)
        self.arrival_sum = sum(t * w for t, w in zip(self.arrivals, self.weights))
        self.total_wait = self.threads * self.release - self.arrival_sum
        whole = self.threads * self.release
        self.share = Fraction(self.total_wait) / whole if whole else Fraction(0)
        self.longest_wait = max(self.waits)

    def to_dict(self) -> dict[str, Any]:
        return {"arrivals": [plain(t) for t in self.arrivals], "weights": list(self.weights),
                "threads": self.threads, "release": plain(self.release), "last": self.last,
                "waits": [plain(w) for w in self.waits], "total_wait": plain(self.total_wait),
                "share": float(self.share), "longest_wait": plain(self.longest_wait)}


def barrier_wait(arrivals: Sequence[Any], weights: Sequence[int] | None = None, *,
                 explain: bool = False, unit: str = "cycles") -> BarrierWait:
    """The waits at a barrier for these arrival times (and threads per arrival, default 1), in
    `unit` (cycles, or a time unit such as µs)."""
    if isinstance(arrivals, (str, bytes)) or not hasattr(arrivals, "__len__"):
        raise QuizgenError("expected a list of arrival times", field="arrivals")
    if not 2 <= len(arrivals) <= MAX_ARRIVALS:
        raise QuizgenError(f"got {len(arrivals)} arrival(s); expected 2 to {MAX_ARRIVALS:,}",
                           field="arrivals")
    times = tuple(_time(t, f"arrivals[{i}]") for i, t in enumerate(arrivals))
    counts = tuple(weights) if weights is not None else (1,) * len(times)
    if len(counts) != len(times) or any(isinstance(w, bool) or not isinstance(w, int) or not 1 <= w <= 1024
                                        for w in counts):
        raise QuizgenError("expected one thread count from 1 to 1,024 per arrival", field="weights")
    result = BarrierWait(times, counts)
    if max(times) == 0:
        raise QuizgenError("every thread arrives at time 0; there is no time to share out",
                           field="arrivals")
    if explain:
        result.steps = wait_steps(result, unit)
    return result


def wait_steps(r: BarrierWait, unit: str = "cycles") -> list[Step]:
    """The release, the waits added up (N·T_last − Σ t), and their share of the threads' time."""
    N, T = r.threads, plain(r.release)
    grouped = any(w > 1 for w in r.weights)
    times = " + ".join(f"{plain(t):,}" if w == 1 else f"{w} × {plain(t):,}"
                       for t, w in zip(r.arrivals, r.weights))
    return [
        Step("bar_release", "", {"T_last": T, "j": r.last, "n_arr": len(r.arrivals),
                                 "grouped": grouped, "unit": unit}, T, unit,
             "bar_release", "bar_grouped" if grouped else None),
        Step("bar_wait_total", "barrier_wait_total",
             {"N": N, "T_last": T, "S_t": plain(r.arrival_sum), "times": times,
              "grouped": grouped, "unit": unit}, plain(r.total_wait), unit, "bar_wait_total"),
        Step("bar_wait_share", "barrier_wait_share",
             {"W": plain(r.total_wait), "N": N, "T_last": T, "unit": unit}, float(r.share), "",
             "bar_wait_share"),
    ]


def balanced(r: BarrierWait, explain: bool = False) -> tuple[BarrierWait, Step | None]:
    """What-if: the last arrival's work is split so that it arrives with the next latest one;
    the barrier then releases at that time (what the block gains per barrier)."""
    ordered = sorted(set(r.arrivals))
    if len(ordered) < 2:
        raise QuizgenError("every thread arrives at once; nothing to balance", field="arrivals")
    nxt = ordered[-2]
    moved = tuple(nxt if t == r.release else t for t in r.arrivals)
    after = barrier_wait(list(moved), list(r.weights), explain=False)
    step = Step("bar_release_gain", "barrier_release_gain",
                {"T_last": plain(r.release), "T_next": plain(nxt)}, plain(r.release - nxt), "cycles",
                "bar_release_gain") if explain else None
    return after, step
