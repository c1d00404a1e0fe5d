"""Compare a read answer with the expected value of one answer key, by the kind of quantity asked.

Kinds:

* ``count``: whole things (blocks, warps, lanes, an index): exact; ``8``, ``8.0``, ``8 blocks``
  and ``16/2`` are all 8.
* ``fraction``: a quantity in [0, 1] such as occupancy: ``0.25``, ``25%``, ``16/64``; a bare
  number above 1 (and at most 100) cannot be a fraction, so it is read as a percentage
  (``25`` → 25%, noted in the verdict). Default tolerance 0.0005 absolute.
* ``percent``: the reverse, the expected value is in percent (25 means 25%): ``25``, ``25%``; a
  bare number from 0 to 1 that matches once multiplied by 100 is read as a fraction (``0.25`` →
  25%, noted). Default tolerance 0.05 percentage points.
* ``ratio``: a slowdown such as ``2``, ``2x``, ``2.0×``; default tolerance 0.005 (two decimals).
* ``bytes``: ``49152``, ``49152 B``, ``48 KB`` (KB = 1024 B, the course's convention): exact.
* ``cycles``: ``400``, ``400 cycles``; default tolerance 0.005.
* ``real``: any other number; default tolerance max(0.0005, 0.1% of the expected value).

An explicit ``tolerance`` is absolute, in the units of ``expected`` (percentage points for
``percent``), and replaces the default (a count compared with ``tolerance=1`` accepts ±1).

Units: an answer whose unit contradicts the kind (``8 KB`` for a block count, ``3 cycles`` for an
occupancy, ``200%`` for a slowdown) was read fine, so it is scored **wrong** with a note naming
the unit, never *invalid*: *invalid* is kept for text that cannot be read at all, which is
reported to the student and not scored. When the caller knows the expected unit (``unit=``,
e.g. ``"warps"``), a count in another count unit (``8 blocks`` where warps are asked) is wrong too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Literal

from quizgen.errors import QuizgenError
from quizgen.grade.notes import Note, note
from quizgen.grade.parse import Parsed, parse_answer
from quizgen.problems.specs import COMPARE_KINDS, COUNT_UNITS, canonical_unit

#: Default absolute tolerance per kind ("real" also allows 0.1% of the expected value).
DEFAULT_TOLERANCE: dict[str, Fraction] = {
    "count": Fraction(0),
    "fraction": Fraction(5, 10_000),
    "percent": Fraction(5, 100),
    "ratio": Fraction(5, 1000),
    "bytes": Fraction(0),
    "cycles": Fraction(5, 1000),
    "real": Fraction(5, 10_000),
}
_REAL_RELATIVE = Fraction(1, 1000)

# Units each kind accepts besides a bare number ("real" accepts any).
_KIND_UNITS: dict[str, frozenset[str] | None] = {
    "count": COUNT_UNITS,
    "fraction": frozenset({"%"}),
    "percent": frozenset({"%"}),
    "ratio": frozenset({"x"}),
    "bytes": frozenset({"B"}),
    "cycles": frozenset({"cycles"}),
    "real": None,
}

Status = Literal["correct", "wrong", "invalid"]


@dataclass(frozen=True, slots=True)
class Verdict:
    """The grade of one answer: correct, wrong (read but not right) or invalid (unreadable)."""

    status: Status
    value_used: Fraction | None     # the answer's value as interpreted, in expected's units
    note: Note | str | None = None  # how it was read, why it is wrong (phrase [grade_note]),
    #                                 or the reader's error


def _exact(value: object, field: str) -> Fraction:
    """An expected value or tolerance as an exact Fraction (floats by their shortest decimal)."""
    if type(value) is Fraction:
        return value
    if isinstance(value, bool):
        raise QuizgenError(f"got {value!r}; expected a number", field=field)
    if isinstance(value, (int, Fraction)):
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise QuizgenError(f"got {value!r}; expected a finite number", field=field)
        return Fraction(repr(value))            # 0.1 → 1/10, not the binary approximation
    if isinstance(value, (Decimal, str)):
        try:
            result = Fraction(value)
        except (ValueError, ArithmeticError):
            raise QuizgenError(f"got {value!r}; expected a number", field=field) from None
        return result
    raise QuizgenError(f"got {type(value).__name__}; expected a number", field=field)


def _fmt(value: Fraction) -> str:
    """A value as a short readable number: 8, 65,536, 0.375, 1/3."""
    if value.denominator == 1:
        from quizgen.render.numbers import count

        return count(value.numerator)
    d = value.denominator
    while d % 2 == 0:
        d //= 2
    while d % 5 == 0:
        d //= 5
    if d == 1:
        return f"{Decimal(value.numerator) / Decimal(value.denominator):f}"
    return f"{value.numerator}/{value.denominator}"


def _within(value: Fraction, expected: Fraction, tolerance: Fraction) -> bool:
    """|value − expected| ≤ tolerance, in whole-number arithmetic (no Fraction is built)."""
    if not tolerance:
        return value == expected
    # Denominators are positive, so the inequality keeps its sense once multiplied out.
    vd, ed = value.denominator, expected.denominator
    gap = abs(value.numerator * ed - expected.numerator * vd)
    return gap * tolerance.denominator <= tolerance.numerator * vd * ed


_canonical_unit = lru_cache(maxsize=256)(canonical_unit)


def compare(parsed: Parsed | str, expected: float | int | Fraction, *, kind: str,
            tolerance: float | None = None, unit: str | None = None) -> Verdict:
    """Grade one read answer against ``expected``, interpreting it for the ``kind`` asked.

    ``parsed`` may also be the raw text (it is read with `parse_answer`). ``unit`` optionally
    names the expected unit (``"warps"``), so a count in another unit is marked wrong. Bad
    ``expected``/``tolerance``/``kind`` (a malformed manifest) raise `QuizgenError`.
    """
    want, tol = _key(expected, kind, tolerance)
    if isinstance(parsed, str):
        parsed = parse_answer(parsed)
    if not parsed.ok or parsed.value is None:
        return Verdict("invalid", None, parsed.error or note("unreadable"))
    misfit = _unit_misfit(parsed, kind, unit)
    if misfit is not None:
        return misfit
    if kind == "fraction":
        return _as_fraction(parsed, want, tol)
    if kind == "percent":
        return _as_percent(parsed, want, tol)
    value = parsed.value
    if _within(value, want, tol):
        return Verdict("correct", value)
    remark = None
    if kind == "count" and value.denominator != 1:
        remark = note("whole_count")
    elif kind == "bytes" and parsed.unit is None and value * 1024 == want:
        remark = note("read_bytes", written=parsed.raw.strip(), bytes=_fmt(want))
    return Verdict("wrong", value, remark)


def _key(expected: object, kind: str, tolerance: object) -> tuple[Fraction, Fraction]:
    """The expected value and the tolerance of a key, exact; a malformed key raises."""
    if kind not in COMPARE_KINDS:
        raise QuizgenError(f"got {kind!r}; expected one of {', '.join(COMPARE_KINDS)}",
                           field="kind")
    want = _exact(expected, "expected")
    if tolerance is None:
        tol = DEFAULT_TOLERANCE[kind]
        if kind == "real":
            tol = max(tol, abs(want) * _REAL_RELATIVE)
    else:
        tol = _exact(tolerance, "tolerance")
        if tol < 0:
            raise QuizgenError(f"got {tolerance!r}; expected a tolerance ≥ 0", field="tolerance")
    return want, tol


def _unit_misfit(parsed: Parsed, kind: str, unit: str | None) -> Verdict | None:
    """The wrong verdict of an answer whose unit contradicts the kind or the expected count
    unit (it was read fine, so it is wrong, not invalid); None when its unit fits."""
    allowed = _KIND_UNITS[kind]
    if parsed.unit is not None and allowed is not None and parsed.unit not in allowed:
        shown = note(f"unit_{parsed.unit}") if parsed.unit in ("B", "x") else parsed.unit
        return Verdict("wrong", parsed.value, note(f"unit_misfit_{kind}", unit=shown))
    want_unit = (_canonical_unit(unit) if type(unit) is str else canonical_unit(unit)) \
        if unit else None
    if want_unit is not None and parsed.unit is not None and parsed.unit != want_unit \
            and parsed.unit in COUNT_UNITS and want_unit in COUNT_UNITS:
        return Verdict("wrong", parsed.value,
                       note("other_unit", unit=parsed.unit, wanted=want_unit))
    return None


def _as_fraction(parsed: Parsed, want: Fraction, tol: Fraction) -> Verdict:
    value = parsed.value
    if _within(value, want, tol):
        return Verdict("correct", value)
    if parsed.unit is None and 1 < value <= 100 and 0 <= want <= 1:
        # A fraction cannot exceed 1: "25" can only mean 25%.
        used = value / 100
        read = note("read_percent", written=parsed.raw.strip(), value=_fmt(value))
        return Verdict("correct" if _within(used, want, tol) else "wrong", used, read)
    return Verdict("wrong", value, note("fraction_range") if not 0 <= value <= 1 else None)


def _as_percent(parsed: Parsed, want: Fraction, tol: Fraction) -> Verdict:
    value = parsed.value
    if parsed.unit == "%":
        used = value * 100
        return Verdict("correct" if _within(used, want, tol) else "wrong", used)
    if _within(value, want, tol):
        return Verdict("correct", value)
    if 0 <= value <= 1 and _within(value * 100, want, tol):
        return Verdict("correct", value * 100,
                       note("read_percent", written=parsed.raw.strip(), value=_fmt(value * 100)))
    return Verdict("wrong", value)
