"""What a type-in card expects: the main answer's exact canonical text, the hint that says how
to type it, the hidden data the back side's check reads, and which card kind a problem becomes.
Every one of them is read from the answer's spec (`quizgen.problems.records.answer_spec`)."""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from functools import lru_cache

from quizgen.export.anki.meaning import count_unit
from quizgen.problems.model import Problem
from quizgen.problems.records import answer_spec
from quizgen.render.cards import labels


#: Cells whose problems are concept questions (no numbers): question → answer + reason.
CONCEPT_CELLS = frozenset({"L-6"})


#: Longest exact decimal an answer field holds; a value that needs more places is rounded.
EXACT_PLACES = 6


#: Places of a rounded answer, by the grader's kind of quantity (each within its tolerance).
ROUNDED_PLACES = {"fraction": 6, "percent": 4, "ratio": 3, "cycles": 3, "real": 4}


@dataclass(frozen=True, slots=True)
class TypedAnswer:
    """What a type-in card expects: the field's exact canonical text and how to check a typed one.

    `kind` is the spec's kind of quantity (``count``, ``fraction``, ``ratio``, …) or ``list`` /
    ``text``; `tolerance` the spec's absolute tolerance; `unit` the count unit asked
    (``blocks``), if any; `places` the decimal places of a rounded value (None: exact);
    `format` the spec's format.
    """

    text: str
    kind: str
    tolerance: Fraction
    unit: str
    places: int | None = None
    format: str = "number"      # the spec's format: number, percent, times, tuple, text


def decimal_text(value: Fraction, places: int | None) -> str:
    """`value` as a plain decimal, as a typed answer is written: exact (`places` None, the value
    must terminate) or rounded half up to `places` (trailing zeros dropped)."""
    if places is None:
        text = f"{Decimal(value.numerator) / Decimal(value.denominator):f}"
    else:
        quantum = Decimal(1).scaleb(-places)
        exact = Decimal(value.numerator) / Decimal(value.denominator)
        text = f"{exact.quantize(quantum, rounding=ROUND_HALF_UP):f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _terminating_places(value: Fraction) -> int | None:
    """How many decimal places `value` needs exactly (None: it never ends)."""
    d = value.denominator
    twos = fives = 0
    while d % 2 == 0:
        d //= 2
        twos += 1
    while d % 5 == 0:
        d //= 5
        fives += 1
    return max(twos, fives) if d == 1 else None


@lru_cache(maxsize=4096)
def _exact(text: str) -> Fraction:
    """The fraction a number's text writes exactly (a float's repr: each read once, since a
    deck asks for the same few answers and tolerances on note after note)."""
    return Fraction(text)


def typed_answer(problem: Problem) -> TypedAnswer | None:
    """The main answer as a type-in card holds it, read from its answer spec, or None when it
    cannot be typed exactly (yes/no, a set of limits, prose): such a problem becomes a
    multiple-choice or concept card.

    Numbers (the spec's numeric kinds) whole are exact; others are exact decimals when they end
    within `EXACT_PLACES` places (0.40625), else rounded half up to the kind's `ROUNDED_PLACES`,
    which the format hint states. Coordinates read ``27, 1, 0``; a named option is one word.
    """
    from quizgen.problems.specs import NUMERIC_KINDS

    key = problem.main_answer
    if not key or key not in problem.answers:
        return None
    value = problem.answers[key]
    spec = answer_spec(problem, key)
    tolerance = _exact(repr(float(spec.tolerance))) if spec.tolerance else Fraction(0)
    if spec.kind in NUMERIC_KINDS:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (
                isinstance(value, float) and not math.isfinite(value)):
            return None
        unit = count_unit(spec.unit)
        exact = Fraction(value) if isinstance(value, int) else _exact(repr(value))
        if exact.denominator == 1:
            return TypedAnswer(str(exact.numerator), spec.kind, tolerance, unit, None, spec.format)
        places = _terminating_places(exact)
        if places is not None and places <= EXACT_PLACES:
            return TypedAnswer(decimal_text(exact, None), spec.kind, tolerance, unit, None,
                               spec.format)
        rounded = ROUNDED_PLACES.get(spec.kind, 4)
        return TypedAnswer(decimal_text(exact, rounded), spec.kind, tolerance, unit, rounded,
                           spec.format)
    if spec.kind == "coords" and isinstance(value, (list, tuple)) and value and all(
            isinstance(v, int) and not isinstance(v, bool) for v in value):
        return TypedAnswer(", ".join(str(v) for v in value), "list", Fraction(0), "", None,
                           spec.format)
    if spec.kind == "choice" and isinstance(value, str) and value.strip() and \
            " " not in value.strip() and len(value) <= 40:
        return TypedAnswer(value.strip(), "text", Fraction(0), "", None, spec.format)
    return None


def answer_value(problem: Problem) -> str | None:
    """The main answer's exact canonical text (``4``, ``0.40625``, ``27, 1, 0``), or None when
    it cannot be typed (see `typed_answer`)."""
    typed = typed_answer(problem)
    return typed.text if typed is not None else None


def answer_format(problem: Problem, lang: str) -> str:
    """A one-line hint from the answer's spec: which quantity to type, in which form, with how
    many places, in which unit."""
    from quizgen.render.answers import answer_name

    words = labels(lang)
    key = problem.main_answer or ""
    typed = typed_answer(problem)
    if typed is None or typed.kind == "text":
        hint = words["type_text"]
    elif typed.kind == "list":
        count = typed.text.count(",") + 1
        example = ", ".join(str(i % 3) for i in range(1, count + 1))
        hint = words["type_list"].format(count=count, example=example)
    elif typed.format == "percent":
        if typed.places is None:
            hint = words["as_fraction"]
        else:
            example = decimal_text(Fraction(1, 3), typed.places)
            hint = words["as_fraction_rounded"].format(places=typed.places, example=example,
                                                       pct_places=max(typed.places - 2, 0))
    elif typed.kind in ("count", "bytes") or (not typed.tolerance and "." not in typed.text):
        hint = words["type_int"]
    elif typed.places is not None:
        hint = words["type_rounded"].format(places=typed.places)
    else:
        hint = words["type_exact"]
    text = f"{words['type']}: {answer_name(key, lang)} ({hint}"
    unit = answer_spec(problem, key).printed_unit if key in problem.answers else ""
    if typed is None or typed.format == "percent" or not unit:
        return text + ")"
    return text + f"; {words['in_unit']}: {unit})"


def check_html(problem: Problem) -> str:
    """A hidden element that tells the back side's script how to check a typed answer (kind,
    tolerance, unit, the canonical answer and the verdict's words); '' when not typeable."""
    typed = typed_answer(problem)
    if typed is None:
        return ""
    words = labels(problem.lang)
    tolerance = decimal_text(typed.tolerance, None) if _terminating_places(typed.tolerance) \
        is not None else repr(float(typed.tolerance))
    attrs = {"kind": typed.kind, "tol": tolerance, "unit": typed.unit, "answer": typed.text,
             "yes": words["equal"], "no": words["unequal"]}
    return '<span class="qz-check" hidden ' + " ".join(
        f'data-{name}="{html.escape(value, quote=True)}"' for name, value in attrs.items()) + "></span>"


def note_kind(problem: Problem, kinds: tuple[str, ...] | list[str], slot: int) -> str | None:
    """Which card kind a problem becomes: ``numeric``, ``mcq``, ``concept`` or None (skipped).

    Concept cells give concept cards. Other problems give a type-in card, or a multiple-choice
    card when they have options; with both kinds enabled they alternate by slot so a deck has
    both. A problem that fits neither becomes a concept card (question → answer + reason).
    """
    if problem.cell in CONCEPT_CELLS:
        if "concept" in kinds:
            return "concept"
        return "mcq" if "mcq" in kinds and len(problem.choices) >= 2 else None
    numeric = "numeric" in kinds and answer_value(problem) is not None
    mcq = "mcq" in kinds and len(problem.choices) >= 2 and any(c.correct for c in problem.choices)
    if numeric and mcq:
        return "mcq" if slot % 2 else "numeric"
    if numeric:
        return "numeric"
    if mcq:
        return "mcq"
    return "concept" if "concept" in kinds else None
