"""The common shapes of a typed answer, read without the full reader.

Most answers are one plain number, maybe signed, grouped by commas, a decimal, an a/b of whole
numbers, with a % or one unit word. `fast_parse` reads only those (ASCII only, spaces the
tokenizer also skips) and gives the full reader's `Parsed`; anything else, or anything it is
unsure of, goes to the full reader.
"""

from __future__ import annotations

import re
from fractions import Fraction

from quizgen.grade.reading import MAX_MAGNITUDE, Kind, Parsed
from quizgen.grade.tokens import KNOWN_WORDS, MULTIPLIERS
from quizgen.problems.specs import BYTE_WORDS, PERCENT_WORDS, RATIO_WORDS, UNIT_WORDS

_WS = r"[ \t\n\r]*"
_WHOLE = r"(?:[1-9][0-9]{0,2}(?:,[0-9]{3})+|[0-9]+)"
_FAST = re.compile(
    rf"{_WS}(?P<sign>[+-]?){_WS}"
    rf"(?P<num>{_WHOLE}(?:\.[0-9]+)?|\.[0-9]+)"
    rf"(?:{_WS}/{_WS}(?P<den>{_WHOLE}))?"
    rf"(?P<gap>{_WS})(?:(?P<pct>%)|(?P<word>[A-Za-z]+))?{_WS}",
    re.ASCII)

# A lone unit word after the number, as `Parser.suffix` reads it when nothing follows:
# lower-cased word → (multiplier to canonical, canonical unit, is percent).
_FAST_WORDS: dict[str, tuple[int, str, bool]] = {}
for _word in KNOWN_WORDS:
    if _word in PERCENT_WORDS:
        _FAST_WORDS[_word] = (1, "%", True)
    elif _word in RATIO_WORDS:
        _FAST_WORDS[_word] = (1, "x", False)
    elif _word in MULTIPLIERS:
        _FAST_WORDS[_word] = (MULTIPLIERS[_word], "B", False)
    elif _word in BYTE_WORDS:
        _FAST_WORDS[_word] = (BYTE_WORDS[_word], "B", False)
    elif _word in UNIT_WORDS:
        _FAST_WORDS[_word] = (1, UNIT_WORDS[_word], False)


def fast_parse(text: str) -> Parsed | None:
    """The `Parsed` of a common-shape answer, equal to the full reader's; None for any other."""
    match = _FAST.fullmatch(text)
    if match is None:
        return None
    num, den, word = match.group("num", "den", "word")
    if word is not None:
        # "0b1"/"0x1f" is refused as a non-decimal number by the full reader: leave "0<letters>"
        # to it, and unknown words (their message names the column) too.
        if not match.group("gap") and (den or num) == "0":
            return None
        suffix = _FAST_WORDS.get(word.lower())
        if suffix is None:
            return None
        multiplier, unit, percent = suffix
    elif match.group("pct"):
        multiplier, unit, percent = 1, "%", True
    else:
        multiplier, unit, percent = 1, None, False
    whole, dot, frac = num.replace(",", "").partition(".")
    if dot:
        if den is not None:
            return None                          # "1.5/3": an expression, read in full
        value = Fraction(int(whole + frac), 10 ** len(frac))
    else:
        value = Fraction(int(whole))
    kind: Kind = "number"
    # Every number met is within the caps (as the full reader checks), else the full reader
    # writes the message.
    if value.numerator > MAX_MAGNITUDE or value.denominator > MAX_MAGNITUDE:
        return None
    if den is not None:
        denominator = int(den.replace(",", ""))
        if denominator == 0 or denominator > MAX_MAGNITUDE:
            return None
        value /= denominator
        kind = "fraction"
    if match.group("sign") == "-":
        value = -value
    if multiplier != 1:
        value *= multiplier
    if percent:
        value /= 100
        kind = "percent"
    if abs(value.numerator) > MAX_MAGNITUDE or value.denominator > MAX_MAGNITUDE:
        return None
    return Parsed(True, value, kind, unit, text, None)
