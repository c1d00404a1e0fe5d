"""What reading one typed answer gives (`Parsed`), what the reading did (`Work`), and its bounds.

The reader's modules (`tokens`, `expression`, `dates`, `shapes`, and `parse`, which joins them)
share these: the caps every reading is bounded by, and `Unreadable`, raised inside a reading with
why the text cannot be read (a `Note` of ``[grade_read]``) and never out of `parse.parse_answer`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from quizgen.grade.notes import Note

#: Longest answer read, in characters; longer text is refused before any other work.
MAX_LENGTH = 200
#: Deepest nesting of brackets, function calls, signs and powers.
MAX_DEPTH = 20
#: Largest exponent size allowed in ``a^n``.
MAX_EXPONENT = 64
#: Largest numerator or denominator of any number met while reading.
MAX_MAGNITUDE = 10**30
#: Largest number a calculator option takes (a cost, a rate, a count of FLOPs).
MAX_SCALAR = 10**15
#: Largest decimal exponent in scientific notation (``1e30``), checked before it is applied.
MAX_SCIENTIFIC_EXPONENT = 60

Kind = Literal["number", "percent", "fraction", "expression"]


@dataclass(frozen=True, slots=True)
class Parsed:
    """A student's answer as read: an exact value, how it was written, or why it was unreadable.

    ``kind`` is ``"number"`` (one literal, maybe signed), ``"fraction"`` (``a/b`` of whole
    numbers), ``"percent"`` (ends in ``%``/``percent``) or ``"expression"`` (anything else);
    it is ``"expression"`` and meaningless when ``ok`` is false.
    """

    ok: bool
    value: Fraction | None
    kind: Kind
    unit: str | None
    raw: str
    error: Note | None = None       # why it could not be read ([grade_read]); str() in English


@dataclass(slots=True)
class Work:
    """How much work one reading did; bounded by the caps above whatever the input."""

    chars_read: int = 0      # characters the tokenizer looked at
    tokens: int = 0          # tokens produced
    nodes: int = 0           # tree nodes built
    max_depth: int = 0       # deepest nesting reached while parsing
    max_bits: int = 0        # largest bit length of any numerator or denominator computed


def why(key: str, **values: object) -> Note:
    """Why an answer cannot be read: phrase ``[grade_read].key`` with its values."""
    return Note(key, tuple(values.items()), "grade_read")


class Unreadable(Exception):
    """Internal: the answer cannot be read; carries why, as a `Note` of ``[grade_read]``."""

    def __init__(self, key: str, **values: object) -> None:
        super().__init__(key)
        self.note = why(key, **values)


def quote(snippet: str) -> str:
    return f'"{snippet}"' if "'" in snippet else f"'{snippet}'"


def checked(value: Fraction, col: int, work: Work, what: str = "value") -> Fraction:
    """`value`, its size noted in `work`; refused (at column `col`) beyond `MAX_MAGNITUDE`."""
    bits = max(value.numerator.bit_length(), value.denominator.bit_length())
    work.max_bits = max(work.max_bits, bits)
    if abs(value.numerator) > MAX_MAGNITUDE or value.denominator > MAX_MAGNITUDE:
        raise Unreadable(f"{what}_out_of_range", col=col)
    return value
