"""The tokens of a typed answer: look-alike characters rewritten one for one, then numbers (with
their thousands separators, decimals and exponents), the words the reader knows, and operators.

The course's conventions for writing a number are `quizgen.grade.parse`'s; a number literal is
checked against the reading's caps as soon as it is read.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from fractions import Fraction

from quizgen.grade.reading import MAX_SCIENTIFIC_EXPONENT, Unreadable, Work, checked, quote
from quizgen.problems.specs import BYTE_WORDS, PERCENT_WORDS, RATIO_WORDS, UNIT_WORDS

# A bare multiplier; bytes unless a unit word follows (``64K registers``).
MULTIPLIERS: dict[str, int] = {"k": 1024, "ki": 1024, "m": 1024**2, "mi": 1024**2}
# What may follow "/" or "per" after a unit: ``8 blocks/SM``, ``48 KB per block``.
PER_WORDS = frozenset({"sm", "sms", "block", "blocks", "warp", "warps", "thread", "threads",
                        "scheduler", "schedulers", "wave", "waves", "lane", "lanes", "kernel"})
FUNCTIONS = {"ceil": "ceil", "ceiling": "ceil", "floor": "floor", "min": "min", "max": "max"}

#: Every word the reader knows (lower case); any other run of letters makes an answer invalid.
KNOWN_WORDS = frozenset(UNIT_WORDS) | frozenset(BYTE_WORDS) | frozenset(MULTIPLIERS) \
    | PERCENT_WORDS | RATIO_WORDS | PER_WORDS | frozenset(FUNCTIONS) \
    | frozenset({"per", "cent", "slower"})

# Characters rewritten one for one before tokenizing (so columns still match the typed text).
_CHAR_MAP = {
    "\u2212": "-", "\ufe63": "-",                      # minus sign, small hyphen-minus
    "\u00d7": "×", "\u2715": "×", "\u2a09": "×",     # multiplication signs
    "\u00b7": "*", "\u22c5": "*", "\u2219": "*", "\u2217": "*",   # dot and asterisk operators
    "\u00f7": "/", "\u2215": "/", "\u2044": "/",     # division sign and slashes
    "\ufe6a": "%", "\u2248": "≈",
}
_SPACES = frozenset(" \t\n\r\u00a0\u2007\u2009\u202f\u2002\u2003\u2004\u2005\u2006\u2008"
                    "\u200a\u3000")
_SUPERSCRIPTS = {"⁰": 0, "¹": 1, "²": 2, "³": 3, "⁴": 4, "⁵": 5, "⁶": 6, "⁷": 7, "⁸": 8, "⁹": 9}
_OPERATORS = frozenset("+-*/^(),%×⌈⌉⌊⌋=≈~")
OPEN_TO_CLOSE = {"(": ")", "⌈": "⌉", "⌊": "⌋"}


def _digit(ch: str) -> bool:
    return "0" <= ch <= "9"


@dataclass(frozen=True, slots=True)
class Token:
    kind: str                 # "num", "word", "op", "sup", "end"
    text: str                 # as typed (after the one-for-one character map)
    col: int                  # 1-based column of the first character
    value: Fraction | None = None
    whole: bool = False       # a number literal with no decimal point or exponent


def normalise(text: str) -> str:
    """Rewrite look-alike characters one for one (full-width, other digit scripts, spaces)."""
    out = []
    for ch in text:
        if ch in _SPACES:
            out.append(" ")
        elif ch in _CHAR_MAP:
            out.append(_CHAR_MAP[ch])
        elif "\uff01" <= ch <= "\uff5e":                 # full-width ASCII block
            out.append(_CHAR_MAP.get(chr(ord(ch) - 0xFEE0), chr(ord(ch) - 0xFEE0)))
        elif not ch.isascii() and unicodedata.decimal(ch, None) is not None:
            out.append(str(unicodedata.decimal(ch)))     # e.g. Devanagari ८ → 8
        else:
            out.append(ch)
    return "".join(out)


class Tokenizer:
    def __init__(self, text: str, work: Work) -> None:
        self.s = text
        self.n = len(text)
        self.work = work
        self.tokens: list[Token] = []
        self.brackets: list[str] = []   # "call" or "group", innermost last

    def run(self) -> list[Token]:
        s, i = self.s, 0
        while i < self.n:
            ch = s[i]
            if ch == " ":
                i += 1
            elif _digit(ch) or (ch == "." and i + 1 < self.n and _digit(s[i + 1])):
                i = self._number(i)
            elif ch.isascii() and (ch.isalpha() or ch == "_"):
                j = i
                while j < self.n and s[j].isascii() and (s[j].isalpha() or s[j] == "_"):
                    j += 1
                word = s[i:j]
                if word.lower() not in KNOWN_WORDS:
                    after_number = bool(self.tokens) and (
                        self.tokens[-1].kind in ("num", "sup") or self.tokens[-1].text in ")⌉⌋")
                    raise Unreadable("not_a_unit" if after_number else "unexpected",
                                      text=quote(word), col=i + 1)
                self._add("word", word, i)
                i = j
            elif ch in _SUPERSCRIPTS or (ch == "⁻" and i + 1 < self.n and s[i + 1] in _SUPERSCRIPTS):
                j = i + 1
                while j < self.n and s[j] in _SUPERSCRIPTS:
                    j += 1
                digits = "".join(str(_SUPERSCRIPTS[c]) for c in s[i:j] if c != "⁻")
                exponent = int(digits) * (-1 if ch == "⁻" else 1)
                self._add("sup", s[i:j], i, Fraction(exponent))
                i = j
            elif ch == "*" and i + 1 < self.n and s[i + 1] == "*":
                self._add("op", "^", i)
                i += 2
            elif ch == "." and s[i + 1:].strip() == "":
                i = self.n                                 # a full stop ending the answer
            elif ch in _OPERATORS:
                self._bracket(ch)
                self._add("op", ch, i)
                i += 1
            else:
                raise Unreadable("unexpected", text=quote(ch), col=i + 1)
        self.work.chars_read = self.n
        self.tokens.append(Token("end", "", self.n + 1))
        return self.tokens

    def _add(self, kind: str, text: str, start: int, value: Fraction | None = None,
             whole: bool = False) -> None:
        self.tokens.append(Token(kind, text, start + 1, value, whole))
        self.work.tokens += 1

    def _bracket(self, ch: str) -> None:
        if ch in OPEN_TO_CLOSE:
            prev = self.tokens[-1] if self.tokens else None
            call = ch == "(" and prev is not None and prev.kind == "word" \
                and prev.text.lower() in FUNCTIONS
            self.brackets.append("call" if call else "group")
        elif ch in ")⌉⌋" and self.brackets:
            self.brackets.pop()

    def _group_follows(self, j: int) -> bool:
        """Exactly three digits start at j and no digit follows them."""
        s = self.s
        return j + 3 <= self.n and all(_digit(c) for c in s[j:j + 3]) \
            and not (j + 3 < self.n and (_digit(s[j + 3]) or s[j + 3] == "_"))

    def _number(self, start: int) -> int:
        """Read the number literal at `start` (grouped digits, decimals, an exponent) into a
        token; returns where it ends."""
        s, n = self.s, self.n
        i, int_part = self._grouped_digits(start)
        frac_part = ""
        if i < n and s[i] == "." and i + 1 < n and _digit(s[i + 1]):
            j = i + 1
            while j < n and _digit(s[j]):
                j += 1
            frac_part, i = s[i + 1:j], j
        i, exponent, scientific = self._exponent(start, i)
        whole = not frac_part and not scientific
        if int_part in ("0", "") and whole:
            self._refuse_other_base(start, i)
        mantissa = int((int_part or "0") + frac_part)
        scale = exponent - len(frac_part)
        value = Fraction(mantissa * 10**scale) if scale >= 0 else Fraction(mantissa, 10**-scale)
        checked(value, start + 1, self.work, what="number")
        self._add("num", s[start:i], start, value, whole)
        return i

    def _grouped_digits(self, start: int) -> tuple[int, str]:
        """The whole part's digits from `start`, with their thousands separators read (and a
        comma that could be a decimal comma refused): (where they end, the digits)."""
        s, n, i = self.s, self.n, start
        digits: list[str] = []
        group = 0                 # digits in the current group
        separator = None          # "," or " " once used for grouping
        in_call = bool(self.brackets) and self.brackets[-1] == "call"
        while i < n:
            ch = s[i]
            if _digit(ch):
                digits.append(ch)
                group += 1
                i += 1
            elif ch == "_" and digits and i + 1 < n and _digit(s[i + 1]):
                i += 1            # 65_536: always a separator, any grouping
            elif ch == "," and digits and not in_call and i + 1 < n and _digit(s[i + 1]):
                if separator is None:      # "0,500" is a decimal comma, not 500
                    grouping_ok = 1 <= group <= 3 and digits[0] != "0"
                else:
                    grouping_ok = separator == "," and group == 3
                if not (grouping_ok and self._group_follows(i + 1)):
                    j = i + 1
                    while j < n and _digit(s[j]):
                        j += 1
                    raise Unreadable("ambiguous_comma", text=quote(s[start:j]), col=i + 1)
                separator, group = ",", 0
                i += 1
            elif ch == " " and digits and self._group_follows(i + 1) and (
                    (separator is None and 1 <= group <= 3 and digits[0] != "0")
                    or (separator == " " and group == 3)):
                separator, group = " ", 0
                i += 1
            else:
                break
        return i, "".join(digits)

    def _exponent(self, start: int, i: int) -> tuple[int, int, bool]:
        """The scientific exponent at `i` (``e-3``), if any: (where it ends, its value, whether
        there is one)."""
        s, n = self.s, self.n
        if not (i < n and s[i] in "eE"):
            return i, 0, False
        j = i + 1
        if j < n and s[j] in "+-":
            j += 1
        if not (j < n and _digit(s[j])):
            return i, 0, False
        k = j
        while k < n and _digit(s[k]):
            k += 1
        exponent = int(s[j:k]) * (-1 if s[i + 1] == "-" else 1)
        if abs(exponent) > MAX_SCIENTIFIC_EXPONENT:
            raise Unreadable("scientific_too_large", text=quote(s[start:k]),
                             col=start + 1, most=MAX_SCIENTIFIC_EXPONENT)
        return k, exponent, True

    def _refuse_other_base(self, start: int, i: int) -> None:
        """``0x1f``, ``0b101``, ``0o17``: a number in another base is refused, never read as 0."""
        s, n = self.s, self.n
        if i + 1 < n and s[i] in "xXbBoO" and s[i + 1].isascii() and s[i + 1].isalnum():
            j = i
            while j < n and s[j].isascii() and s[j].isalnum():
                j += 1
            raise Unreadable("not_decimal", text=quote(s[start:j]), col=start + 1)
