"""Read a student's typed answer into an exact number, safely.

Answers come from paper sheets typed into a CSV or from a form, so every reasonable way of
writing a number is accepted: ``8``, ``0.375``, ``.5``, ``65,536``, ``65 536``, ``65_536``,
``16/64``, ``25%``, ``37.5 percent``, ``8 warps``, ``48 KB``, ``2x``, ``2.0 ×``, a Unicode minus,
full-width or Devanagari digits, and small arithmetic such as ``65536/(256*32)``,
``ceil(100/32)``, ``⌊65536/33280⌋``, ``min(8, 2, 8)`` or ``2^16``.

Nothing a student typed is ever run. A tokenizer over a whitelist feeds a recursive-descent
parser that builds a tiny tree, evaluated with `fractions.Fraction`. The work is bounded before
it starts: at most `MAX_LENGTH` characters are read, brackets nest at most `MAX_DEPTH` levels,
exponents are whole numbers of size at most `MAX_EXPONENT`, and every number met on the way
(literal, intermediate or final) has numerator and denominator at most `MAX_MAGNITUDE`.
Anything else is *invalid*: `parse_answer` returns ``ok=False`` with a one-line message naming
what could not be read and its column (1-based, in the text as typed). It never raises.

Conventions of the course (seed 000 converts ``96 KB = 96 × 1024 = 98304 bytes``):

* ``KB``, ``KiB`` and a bare ``K`` all mean 1024 bytes; ``MB``, ``MiB`` and ``M`` mean 1024² bytes.
  ``64K registers`` is 65536 registers.
* A comma is a thousands separator only between groups of exactly three digits after a first
  group of one to three digits that is not ``0`` (``65,536``, ``1,048,576``); ``1,5`` or
  ``0,375`` is refused as ambiguous (a decimal comma or a typo?). Inside ``min(…)``/``max(…)``
  a comma always separates arguments. A single space (or no-break space) between digit groups
  of three is a thousands separator too; an underscore between digits is always one.
* ``Parsed.value`` is the number in canonical units: ``48 KB`` gives 49152 with unit ``B``,
  ``25%`` gives 1/4 with unit ``%`` (multiply by 100 for the figure the student wrote).
* ``x`` or ``×`` at the end is the unit of a ratio (``2x`` slower); between two operands it is
  multiplication (``2 × 3``).

The reader's rooms: `quizgen.grade.tokens` (characters to tokens), `quizgen.grade.expression`
(tokens to a tree and its exact value), `quizgen.grade.dates` (answers a spreadsheet made
into dates), `quizgen.grade.shapes` (the common shapes, read fast) and `quizgen.grade.reading`
(what they share: `Parsed`, `Work`, the caps). What a unit word means is declared with the
answer specs (`quizgen.problems.specs.canonical_unit`).
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

from quizgen.grade.dates import date_shaped
from quizgen.grade.expression import Parser, classify, evaluate
from quizgen.grade.reading import (MAX_LENGTH, MAX_MAGNITUDE, Kind, Parsed, Unreadable, Work,
                                   checked, why)
from quizgen.grade.shapes import fast_parse
from quizgen.grade.tokens import Tokenizer, normalise


def parse_with_work(text: str) -> tuple[Parsed, Work]:
    """The full reader (tokenizer, parser, evaluator), also returning how much work it did.

    `parse_answer` gives the same `Parsed`; it only reads the common shapes faster and
    remembers texts it has read. This one always takes the general path (tests and benches).
    """
    work = Work()
    if not isinstance(text, str):
        return Parsed(False, None, "expression", None, "",
                      why("not_text", type=type(text).__name__)), work
    if len(text) > MAX_LENGTH:
        return Parsed(False, None, "expression", None, text,
                      why("too_long", length=str(len(text)), most=MAX_LENGTH)), work
    dated = date_shaped(text)
    if dated is not None:
        return dated, work
    try:
        tokens = Tokenizer(normalise(text), work).run()
        tree, multiplier, unit, percent = Parser(tokens, work).answer()
        value = evaluate(tree, work) * multiplier
        if percent:
            value /= 100
        value = checked(value, tokens[0].col, work)
    except Unreadable as exc:
        return Parsed(False, None, "expression", None, text, exc.note), work
    except (ArithmeticError, ValueError, RecursionError) as exc:   # a safety net, not a path
        return Parsed(False, None, "expression", None, text,
                      why("safety_net", error=type(exc).__name__)), work
    kind: Kind = "percent" if percent else classify(tree)
    return Parsed(True, value, kind, unit, text, None), work


#: How many distinct answer texts `parse_answer` remembers.
CACHE_SIZE = 1 << 16


@lru_cache(maxsize=CACHE_SIZE)
def _parse_text(text: str) -> Parsed:
    # A class writes the same few answers again and again ("8", "25%"): each is read once.
    fast = fast_parse(text)
    return fast if fast is not None else parse_with_work(text)[0]


def clear_cache() -> None:
    """Forget the texts `parse_answer` has read (to time a cold reading; results never change)."""
    _parse_text.cache_clear()


def parse_answer(text: str) -> Parsed:
    """Read one typed answer into an exact `Parsed`; never raises, never runs the text."""
    if type(text) is not str or len(text) > MAX_LENGTH:
        return parse_with_work(text)[0]          # refused before any reading, never cached
    return _parse_text(text)


def read_number(field: str, text: object, *, units: tuple[str | None, ...] = (None,),
                minimum: Fraction | int | None = None, maximum: Fraction | int = MAX_MAGNITUDE,
                whole: bool = False, percent: bool = False,
                expected: str = "a number") -> Fraction:
    """A number typed on the command line, read by the answer reader: bounded (no ``1e999999``,
    nothing beyond `maximum`), and strict (``1,5`` is an error, never 15). One-line error naming
    `field` otherwise. `units` are the units the text may carry (None = a bare number)."""
    from quizgen.errors import QuizgenError

    raw = text if isinstance(text, str) else str(text)
    parsed = parse_answer(raw)
    if not parsed.ok:
        raise QuizgenError(f"got {raw!r}; expected {expected} ({parsed.error})", field=field)
    value = parsed.value
    if parsed.unit not in units or (parsed.kind == "percent" and not percent):
        raise QuizgenError(f"got {raw!r}; expected {expected}", field=field)
    if whole and value.denominator != 1:
        raise QuizgenError(f"got {raw!r}; expected {expected} (a whole number)", field=field)
    if (minimum is not None and value < minimum) or value > maximum:
        low = f"from {minimum} " if minimum is not None else ""
        raise QuizgenError(f"got {raw!r}; expected {expected} {low}up to {maximum}", field=field)
    return value
