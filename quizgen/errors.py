"""Errors a user can cause: each one is a single readable line (the CLI prints it and exits 2)."""

from __future__ import annotations


class QuizgenError(ValueError):
    """Bad input from a user: a value out of range, an unknown name, a malformed file."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        self.field = field
        super().__init__(f"{field}: {message}" if field else message)


def require_int(field: str, value: object, *, minimum: int | None = None,
                maximum: int | None = None, allowed: str | None = None) -> int:
    """Return `value` as an int, or raise a one-line QuizgenError naming the field.

    Booleans and non-whole floats are refused: a block of 2.5 threads is a typo, not a request.
    """
    if isinstance(value, bool):
        ok = False
    elif isinstance(value, int):
        ok = True
    elif isinstance(value, float) and value.is_integer():
        value, ok = int(value), True
    elif isinstance(value, str) and value.strip().lstrip("+-").isdigit():
        value, ok = int(value.strip()), True
    else:
        ok = False
    if ok and (minimum is None or value >= minimum) and (maximum is None or value <= maximum):
        return value  # type: ignore[return-value]
    if allowed is None:
        if minimum is not None and maximum is not None:
            allowed = f"a whole number from {minimum} to {maximum}"
        elif minimum is not None:
            allowed = f"a whole number ≥ {minimum}"
        else:
            allowed = "a whole number"
    raise QuizgenError(f"got {value!r}; expected {allowed}", field=field)


def finite_number(value: object, field: str) -> float:
    """`value` (a number or its text) as a float, refusing what is not a finite number.

    One rule for every number a teacher gives: ``inf``, ``nan`` and a number too large for a
    float (``1e309``, which would otherwise be kept as a 310-digit exact value) are refused alike.
    """
    import math

    try:
        number = float(value) if not isinstance(value, bool) else math.nan   # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        number = math.nan
    if not math.isfinite(number):
        shown = repr(value)
        shown = shown if len(shown) <= 40 else shown[:39] + "…"
        raise QuizgenError(f"got {shown}; expected a finite number (inf, nan and numbers beyond "
                           "±1.8e308 are refused)", field=field)
    return number
