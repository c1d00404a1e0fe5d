"""How a number is written for a person: the one formatter of solutions, cards, sheets, keys,
feedback, figures and calculators.

* `count`: a whole number, digits grouped in threes from 1,000 on (``9,750``, ``65,536``, ``999``).
* `number`: a count, or a decimal with at most `places` places, trailing zeros dropped (``0.375``).
* `percent`: a fraction as a percentage with at most `places` places (``0.9375`` → ``93.75%``).
* `kb`, `size`: bytes as KB (``48 KB``), or as bytes when not a whole KB (``49,000 B``).
* `share`: a fraction beside its percentage, to the same precision (``0.78125 = 78.125%``).
* `times`: a ratio (``1.5×``).
* `counted`, `agree`: the one plural and agreement rule, for both languages: a count with its
  noun (``1 block``, ``3 blocks``) and the verb form that agrees with it (``1 block fits``,
  ``2 blocks fit``; Hinglish ``1 lane leti hai``, ``13 lanes leti hain``).
* `ungrouped_arguments`: inside a function's argument list, ``min(3250, 40)``, numbers are
  written without group separators, since there a comma already separates the arguments
  (``min(3,250, 40)`` reads as three of them).
* `math_number`: `number` inside a formula, with the separator each printer needs: LaTeX ``{,}``
  (a bare comma in math mode is punctuation and takes a space after it), Typst
  ``class("normal", ",")`` (the same reason), plain text ``,``.

Numbers a program reads back (JSON, CSV answer cells, Moodle values, a type-in card's expected
answer) are not written here: they stay plain.
"""

from __future__ import annotations

import re
from typing import Any

#: The separator between digit groups inside a formula, per printer.
MATH_SEPARATOR = {"latex": "{,}", "typst": 'class("normal", ",")', "unicode": ","}


def count(value: int) -> str:
    """A whole number with its digits grouped from 1,000 on: 9750 → 9,750; 999 → 999."""
    return str(value) if -1000 < value < 1000 else f"{value:,}"


def decimal(value: float, places: int = 4) -> str:
    """A decimal with at most `places` places, trailing zeros dropped; whole numbers grouped."""
    text = f"{value:,.{places}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def number(value: Any, places: int = 4) -> str:
    """A count (grouped) or a decimal (at most `places` places); anything else as text."""
    if value.__class__ is int:
        return str(value) if -1000 < value < 1000 else f"{value:,}"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return count(int(value))
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return "∞" if value > 0 else ("-∞" if value < 0 else "NaN")
        if value.is_integer():
            return count(int(value))
        return decimal(value, places)
    return str(value)


def percent(fraction: Any, places: int = 3) -> str:
    """A fraction as a percentage with at most `places` places: 0.375 → 37.5%."""
    return decimal(float(fraction) * 100, places) + "%"


def share(fraction: Any, places: int = 3) -> str:
    """A fraction and its percentage, the fraction with as many places as the percentage shows
    (two more), so the two never disagree: 0.78125 → ``0.78125 = 78.125%``, 0.25 → ``0.25 = 25%``."""
    return f"{number(fraction, places + 2)} = {percent(fraction, places)}"


def counted(value: Any, noun: str) -> str:
    """`value` and its noun in the number it takes: 1 → ``1 block``, 3 → ``3 blocks``,
    1200 → ``1,200 lanes``. A noun whose plural is not noun + "s" is given as ``"one|many"``."""
    one, _, many = noun.partition("|")
    return f"{number(value)} {one if value == 1 else (many or one + 's')}"


def agree(value: Any, one: str, many: str) -> str:
    """The form of a verb (or any words) that agrees with a count of `value`: ``one`` for
    exactly 1, ``many`` otherwise (0 blocks fit, 1 block fits, 2 blocks fit)."""
    return one if value == 1 else many


def kb(value: Any) -> str:
    """Bytes as KB (1 KB = 1024 B): 49152 → 48 KB; 1000 → 0.98 KB."""
    return decimal(int(value) / 1024, 2) + " KB"


def size(value: Any) -> str:
    """A memory size as a student reads it: 48 KB when whole, else 49,000 B."""
    value = int(value)
    if value % 1024 == 0:
        return f"{count(value // 1024)} KB"
    return f"{count(value)} B"


def times(value: float, places: int = 2) -> str:
    """A ratio: 2×, 1.5×, 1.33×."""
    return decimal(round(float(value), places), places) + "×"


_GROUP = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")


def in_math(text: str, target: str) -> str:
    """Text written by this module, made ready to sit inside a formula for `target`: each digit
    group's comma becomes the printer's separator (a list's ", " stays as it is)."""
    if target == "unicode" or "," not in text:
        return text
    return _GROUP.sub(lambda _: MATH_SEPARATOR[target], text)


_ARGUMENTS = re.compile(r"\b(min|max)\(([^()]*)\)")
_ARGUMENT_GROUP = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")


def ungrouped_arguments(text: str) -> str:
    """`text` with the digit groups inside ``min(…)`` and ``max(…)`` joined: "min(3,250, 40)"
    → "min(3250, 40)"; an argument list's own ", " stays."""
    if "min(" not in text and "max(" not in text:
        return text
    return _ARGUMENTS.sub(lambda m: f"{m[1]}({_ARGUMENT_GROUP.sub('', m[2])})", text)


def shown(value: Any) -> Any:
    """What a phrase prints for ``{{ value }}``: a count grouped (a phrase that prints a raw
    count still reads 9,750), anything else unchanged (Jinja's ``finalize``)."""
    if value.__class__ is int and not -1000 < value < 1000:
        return f"{value:,}"
    return value if value.__class__ is str else str(value)


def math_number(value: Any, target: str = "latex") -> str:
    """`number` as it goes inside a formula printed for `target` (``latex``, ``typst`` or
    ``unicode``); booleans in lower case as the printers write them."""
    if isinstance(value, bool):
        return str(value).lower()
    return in_math(number(value), target)
