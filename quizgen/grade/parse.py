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
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Collection
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Literal

from quizgen.grade.notes import Note
from quizgen.problems.specs import (  # noqa: F401  (UNITS, canonical_unit: read here too)
    BYTE_WORDS, PERCENT_WORDS, RATIO_WORDS, UNIT_WORDS, UNITS, canonical_unit)

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

# What a unit word means is declared with the answer specs; the reader reads by it.
_UNIT_WORDS, _BYTE_WORDS = UNIT_WORDS, BYTE_WORDS
_PERCENT_WORDS, _RATIO_WORDS = PERCENT_WORDS, RATIO_WORDS

# A bare multiplier; bytes unless a unit word follows (``64K registers``).
_MULTIPLIERS: dict[str, int] = {"k": 1024, "ki": 1024, "m": 1024**2, "mi": 1024**2}
# What may follow "/" or "per" after a unit: ``8 blocks/SM``, ``48 KB per block``.
_PER_WORDS = frozenset({"sm", "sms", "block", "blocks", "warp", "warps", "thread", "threads",
                        "scheduler", "schedulers", "wave", "waves", "lane", "lanes", "kernel"})
_FUNCTIONS = {"ceil": "ceil", "ceiling": "ceil", "floor": "floor", "min": "min", "max": "max"}

#: Every word the reader knows (lower case); any other run of letters makes an answer invalid.
KNOWN_WORDS = frozenset(_UNIT_WORDS) | frozenset(_BYTE_WORDS) | frozenset(_MULTIPLIERS) \
    | _PERCENT_WORDS | _RATIO_WORDS | _PER_WORDS | frozenset(_FUNCTIONS) \
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
_OPEN_TO_CLOSE = {"(": ")", "⌈": "⌉", "⌊": "⌋"}


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
    """How much work one reading did; bounded by the module's caps whatever the input."""

    chars_read: int = 0      # characters the tokenizer looked at
    tokens: int = 0          # tokens produced
    nodes: int = 0           # tree nodes built
    max_depth: int = 0       # deepest nesting reached while parsing
    max_bits: int = 0        # largest bit length of any numerator or denominator computed


def _why(key: str, **values: object) -> Note:
    """Why an answer cannot be read: phrase ``[grade_read].key`` with its values."""
    return Note(key, tuple(values.items()), "grade_read")


class _Unreadable(Exception):
    """Internal: the answer cannot be read; carries why, as a `Note` of ``[grade_read]``."""

    def __init__(self, key: str, **values: object) -> None:
        super().__init__(key)
        self.note = _why(key, **values)


def _digit(ch: str) -> bool:
    return "0" <= ch <= "9"


def _quote(snippet: str) -> str:
    return f'"{snippet}"' if "'" in snippet else f"'{snippet}'"


# ----------------------------------------------------------------------------- tokens

@dataclass(frozen=True, slots=True)
class _Token:
    kind: str                 # "num", "word", "op", "sup", "end"
    text: str                 # as typed (after the one-for-one character map)
    col: int                  # 1-based column of the first character
    value: Fraction | None = None
    whole: bool = False       # a number literal with no decimal point or exponent


def _normalise(text: str) -> str:
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


def _checked(value: Fraction, col: int, work: Work, what: str = "value") -> Fraction:
    bits = max(value.numerator.bit_length(), value.denominator.bit_length())
    work.max_bits = max(work.max_bits, bits)
    if abs(value.numerator) > MAX_MAGNITUDE or value.denominator > MAX_MAGNITUDE:
        raise _Unreadable(f"{what}_out_of_range", col=col)
    return value


class _Tokenizer:
    def __init__(self, text: str, work: Work) -> None:
        self.s = text
        self.n = len(text)
        self.work = work
        self.tokens: list[_Token] = []
        self.brackets: list[str] = []   # "call" or "group", innermost last

    def run(self) -> list[_Token]:
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
                    raise _Unreadable("not_a_unit" if after_number else "unexpected",
                                      text=_quote(word), col=i + 1)
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
                raise _Unreadable("unexpected", text=_quote(ch), col=i + 1)
        self.work.chars_read = self.n
        self.tokens.append(_Token("end", "", self.n + 1))
        return self.tokens

    def _add(self, kind: str, text: str, start: int, value: Fraction | None = None,
             whole: bool = False) -> None:
        self.tokens.append(_Token(kind, text, start + 1, value, whole))
        self.work.tokens += 1

    def _bracket(self, ch: str) -> None:
        if ch in _OPEN_TO_CLOSE:
            prev = self.tokens[-1] if self.tokens else None
            call = ch == "(" and prev is not None and prev.kind == "word" \
                and prev.text.lower() in _FUNCTIONS
            self.brackets.append("call" if call else "group")
        elif ch in ")⌉⌋" and self.brackets:
            self.brackets.pop()

    def _group_follows(self, j: int) -> bool:
        """Exactly three digits start at j and no digit follows them."""
        s = self.s
        return j + 3 <= self.n and all(_digit(c) for c in s[j:j + 3]) \
            and not (j + 3 < self.n and (_digit(s[j + 3]) or s[j + 3] == "_"))

    def _number(self, start: int) -> int:
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
                    raise _Unreadable("ambiguous_comma", text=_quote(s[start:j]), col=i + 1)
                separator, group = ",", 0
                i += 1
            elif ch == " " and digits and self._group_follows(i + 1) and (
                    (separator is None and 1 <= group <= 3 and digits[0] != "0")
                    or (separator == " " and group == 3)):
                separator, group = " ", 0
                i += 1
            else:
                break
        int_part = "".join(digits)
        frac_part = ""
        whole = True
        if i < n and s[i] == "." and i + 1 < n and _digit(s[i + 1]):
            whole = False
            i += 1
            while i < n and _digit(s[i]):
                frac_part += s[i]
                i += 1
        exponent = 0
        if i < n and s[i] in "eE":
            j = i + 1
            if j < n and s[j] in "+-":
                j += 1
            if j < n and _digit(s[j]):
                k = j
                while k < n and _digit(s[k]):
                    k += 1
                exponent = int(s[j:k]) * (-1 if s[i + 1] == "-" else 1)
                if abs(exponent) > MAX_SCIENTIFIC_EXPONENT:
                    raise _Unreadable("scientific_too_large", text=_quote(s[start:k]),
                                      col=start + 1, most=MAX_SCIENTIFIC_EXPONENT)
                whole = False
                i = k
        text = s[start:i]
        if int_part in ("0", "") and i < n and s[i] in "xXbBoO" and i + 1 < n \
                and s[i + 1].isascii() and s[i + 1].isalnum() and frac_part == "" and whole:
            j = i
            while j < n and s[j].isascii() and s[j].isalnum():
                j += 1
            raise _Unreadable("not_decimal", text=_quote(s[start:j]), col=start + 1)
        mantissa = int((int_part or "0") + frac_part)
        scale = exponent - len(frac_part)
        value = Fraction(mantissa * 10**scale) if scale >= 0 else Fraction(mantissa, 10**-scale)
        _checked(value, start + 1, self.work, what="number")
        self._add("num", text, start, value, whole)
        return i


# ----------------------------------------------------------------------------- tree

@dataclass(frozen=True, slots=True)
class _Num:
    value: Fraction
    whole: bool
    col: int


@dataclass(frozen=True, slots=True)
class _Neg:
    operand: object
    col: int


@dataclass(frozen=True, slots=True)
class _Bin:
    op: str                   # "+", "-", "*", "/", "^"
    left: object
    right: object
    col: int


@dataclass(frozen=True, slots=True)
class _Call:
    name: str                 # "ceil", "floor", "min", "max"
    args: tuple[object, ...]
    col: int


_MUL_OPS = {"*": "*", "×": "*", "/": "/"}


class _Parser:
    def __init__(self, tokens: list[_Token], work: Work) -> None:
        self.toks = tokens
        self.pos = 0
        self.depth = 0
        self.work = work

    # -- helpers
    def peek(self, ahead: int = 0) -> _Token:
        return self.toks[min(self.pos + ahead, len(self.toks) - 1)]

    def advance(self) -> _Token:
        tok = self.toks[self.pos]
        if tok.kind != "end":
            self.pos += 1
        return tok

    def is_op(self, text: str, ahead: int = 0) -> bool:
        tok = self.peek(ahead)
        return tok.kind == "op" and tok.text == text

    def is_word(self, words: Collection[str], ahead: int = 0) -> bool:
        tok = self.peek(ahead)
        return tok.kind == "word" and tok.text.lower() in words

    def node(self, node: object) -> object:
        self.work.nodes += 1
        return node

    def enter(self, col: int) -> None:
        self.depth += 1
        self.work.max_depth = max(self.work.max_depth, self.depth)
        if self.depth > MAX_DEPTH:
            raise _Unreadable("too_deep", col=col, most=MAX_DEPTH)

    def unexpected(self, tok: _Token) -> _Unreadable:
        if tok.kind == "end":
            return _Unreadable("number_missing", col=tok.col)
        return _Unreadable("unexpected", text=_quote(tok.text), col=tok.col)

    def starts_operand(self, ahead: int) -> bool:
        tok = self.peek(ahead)
        return tok.kind == "num" or (tok.kind == "op" and tok.text in "(⌈⌊+-") \
            or (tok.kind == "word" and tok.text.lower() in _FUNCTIONS)

    # -- grammar
    def answer(self) -> tuple[object, Fraction, str | None, bool]:
        if self.peek().kind == "op" and self.peek().text in "=≈~":
            self.advance()
        if self.peek().kind == "end":
            raise _Unreadable("empty")
        tree = self.expr()
        multiplier, unit, percent = self.suffix()
        end = self.peek()
        if end.kind != "end":
            if end.kind == "op" and end.text == ",":
                raise _Unreadable("one_answer", col=end.col)
            if end.kind == "op" and end.text in ")⌉⌋":
                raise _Unreadable("unmatched", text=_quote(end.text), col=end.col)
            raise self.unexpected(end)
        return tree, multiplier, unit, percent

    def expr(self) -> object:
        left = self.term()
        while self.peek().kind == "op" and self.peek().text in "+-":
            tok = self.advance()
            left = self.node(_Bin(tok.text, left, self.term(), tok.col))
        return left

    def term(self) -> object:
        left = self.unary()
        while True:
            tok = self.peek()
            if tok.kind == "op" and tok.text in _MUL_OPS:
                if tok.text == "×" and not self.starts_operand(1):
                    return left                      # "2×": the ratio unit, read by suffix()
                op = _MUL_OPS[tok.text]
            elif tok.kind == "word" and tok.text.lower() == "x" and self.starts_operand(1):
                op = "*"                             # "2 x 3"
            else:
                return left
            self.advance()
            left = self.node(_Bin(op, left, self.unary(), tok.col))

    def unary(self) -> object:
        tok = self.peek()
        if tok.kind == "op" and tok.text in "+-":
            self.advance()
            self.enter(tok.col)
            operand = self.unary()
            self.depth -= 1
            return operand if tok.text == "+" else self.node(_Neg(operand, tok.col))
        return self.power()

    def power(self) -> object:
        base = self.primary()
        if self.peek().kind == "sup":
            tok = self.advance()
            base = self.node(_Bin("^", base, self.node(_Num(tok.value, True, tok.col)), tok.col))
        if self.is_op("^"):
            tok = self.advance()
            self.enter(tok.col)
            exponent = self.unary()                  # right-associative: 2^3^2 = 2^9
            self.depth -= 1
            return self.node(_Bin("^", base, exponent, tok.col))
        return base

    def primary(self) -> object:
        tok = self.peek()
        if tok.kind == "num":
            self.advance()
            return self.node(_Num(tok.value, tok.whole, tok.col))
        if tok.kind == "op" and tok.text in _OPEN_TO_CLOSE:
            self.advance()
            self.enter(tok.col)
            inner = self.expr()
            self.close(tok)
            self.depth -= 1
            if tok.text == "(":
                return inner
            name = "ceil" if tok.text == "⌈" else "floor"
            return self.node(_Call(name, (inner,), tok.col))
        if tok.kind == "word" and tok.text.lower() in _FUNCTIONS:
            return self.call()
        if tok.kind == "word":
            raise _Unreadable("unexpected", text=_quote(tok.text), col=tok.col)
        raise self.unexpected(tok)

    def call(self) -> object:
        name_tok = self.advance()
        name = _FUNCTIONS[name_tok.text.lower()]
        if not self.is_op("("):
            raise _Unreadable("call_needs_bracket", text=_quote(name_tok.text), col=self.peek().col)
        open_tok = self.advance()
        self.enter(open_tok.col)
        args = [self.expr()]
        while self.is_op(","):
            self.advance()
            args.append(self.expr())
        self.close(open_tok)
        self.depth -= 1
        if name in ("ceil", "floor") and len(args) != 1:
            raise _Unreadable("one_argument", name=name_tok.text, count=len(args), col=name_tok.col)
        return self.node(_Call(name, tuple(args), name_tok.col))

    def close(self, open_tok: _Token) -> None:
        want = _OPEN_TO_CLOSE[open_tok.text]
        tok = self.peek()
        if tok.kind == "op" and tok.text == want:
            self.advance()
            return
        if tok.kind == "end":
            raise _Unreadable("missing_close", want=_quote(want), text=_quote(open_tok.text),
                              col=open_tok.col)
        if tok.kind == "op" and tok.text == "," and open_tok.text == "(":
            raise _Unreadable("comma_in_call", col=tok.col)
        raise _Unreadable("expected_close", want=_quote(want), text=_quote(tok.text), col=tok.col)

    def suffix(self) -> tuple[Fraction, str | None, bool]:
        """The unit after the number: (multiplier to canonical, canonical unit, is percent)."""
        tok = self.peek()
        if tok.kind == "op" and tok.text == "%":
            self.advance()
            return Fraction(1), "%", True
        if tok.kind == "op" and tok.text == "×":
            self.advance()
            self.skip_word("slower")
            return Fraction(1), "x", False
        if tok.kind != "word":
            return Fraction(1), None, False
        word = tok.text.lower()
        self.advance()
        if word in _PERCENT_WORDS or (word == "per" and self.skip_word("cent")):
            return Fraction(1), "%", True
        if word in _RATIO_WORDS:
            self.skip_word("slower")
            return Fraction(1), "x", False
        if word in _MULTIPLIERS:
            multiplier, unit = _MULTIPLIERS[word], "B"
            nxt = self.peek()
            if nxt.kind == "word" and nxt.text.lower() in _UNIT_WORDS:
                unit = _UNIT_WORDS[nxt.text.lower()]
                self.advance()
            elif nxt.kind == "word" and _BYTE_WORDS.get(nxt.text.lower()) == 1:
                self.advance()
        elif word in _BYTE_WORDS:
            multiplier, unit = _BYTE_WORDS[word], "B"
        elif word in _UNIT_WORDS:
            multiplier, unit = 1, _UNIT_WORDS[word]
        else:
            raise _Unreadable("not_a_unit", text=_quote(tok.text), col=tok.col)
        # "8 blocks/SM", "48 KB per block": the rate's denominator names where, not how much.
        if self.is_op("/") or self.is_word(("per",)):
            slash = self.advance()
            if not self.is_word(_PER_WORDS):
                nxt = self.peek()
                raise _Unreadable("per_what", text=_quote(slash.text), col=nxt.col,
                                  found=_quote(nxt.text) if nxt.kind != "end" else "")
            self.advance()
        return Fraction(multiplier), unit, False

    def skip_word(self, word: str) -> bool:
        if self.is_word((word,)):
            self.advance()
            return True
        return False


# ----------------------------------------------------------------------------- evaluation

def _evaluate(node: object, work: Work) -> Fraction:
    if isinstance(node, _Num):
        return node.value
    if isinstance(node, _Neg):
        return -_evaluate(node.operand, work)
    if isinstance(node, _Call):
        values = [_evaluate(arg, work) for arg in node.args]
        if node.name == "ceil":
            return Fraction(math.ceil(values[0]))
        if node.name == "floor":
            return Fraction(math.floor(values[0]))
        return min(values) if node.name == "min" else max(values)
    assert isinstance(node, _Bin)
    left = _evaluate(node.left, work)
    right = _evaluate(node.right, work)
    if node.op == "+":
        result = left + right
    elif node.op == "-":
        result = left - right
    elif node.op == "*":
        result = left * right
    elif node.op == "/":
        if right == 0:
            raise _Unreadable("division_by_zero", col=node.col)
        result = left / right
    else:
        result = _power(left, right, node.col)
    return _checked(result, node.col, work)


def _power(base: Fraction, exponent: Fraction, col: int) -> Fraction:
    if exponent.denominator != 1:
        raise _Unreadable("exponent_whole", col=col)
    e = exponent.numerator
    if abs(e) > MAX_EXPONENT:
        raise _Unreadable("exponent_too_large", exponent=str(e), col=col, most=MAX_EXPONENT)
    if base == 0 and e < 0:
        raise _Unreadable("zero_negative_power", col=col)
    # Refuse before computing when the result surely exceeds the cap: a part of `bits` bits
    # raised to |e| has at least (bits - 1)·|e| + 1 bits, and 10^30 < 2^100.
    bits = max(base.numerator.bit_length(), base.denominator.bit_length())
    if (bits - 1) * abs(e) >= MAX_MAGNITUDE.bit_length():
        raise _Unreadable("value_out_of_range", col=col)
    return base ** e


def _classify(node: object) -> Kind:
    def literal(n: object, whole: bool) -> bool:
        if isinstance(n, _Neg):
            n = n.operand
        return isinstance(n, _Num) and (n.whole or not whole)

    if literal(node, whole=False):
        return "number"
    if isinstance(node, _Bin) and node.op == "/" and literal(node.left, True) \
            and literal(node.right, True):
        return "fraction"
    return "expression"


# ----------------------------------------------------------------------------- entry points

# A spreadsheet turns a typed fraction into a date ("4/1" → 4/1/2026 or 1-Apr, "3/8" → 8-Mar):
# such an answer is what a program made of the student's, not the student's answer, so it is
# unreadable (a teacher reviews it), never a number that happens to be wrong (4/1/2026 would be
# 2/1013 and 2026-01-04 would be 2021).
_MONTHS = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*"
_DATE = re.compile(
    r"\s*(?:"
    r"\d{1,2}[/.-]\d{1,2}[/.-](?:19|20)\d\d"                    # 4/1/2026, 01-04-2026, 1.4.2026
    r"|(?:19|20)\d\d[/.-]\d{1,2}[/.-]\d{1,2}(?:[ T]\d\d?:\d\d(?::\d\d)?)?"   # 2026-04-01
    rf"|\d{{1,2}}[ -]{_MONTHS}(?:[ -]\d{{2,4}})?"                   # 1-Apr, 01-Apr-26
    rf"|{_MONTHS}[ -]\d{{1,4}}(?:[ -,]+\d{{2,4}})?"                  # Apr-01, April 1, 2026
    r")\s*", re.IGNORECASE | re.ASCII)


def _date_shaped(text: str) -> Parsed | None:
    if len(text) <= 40 and _DATE.fullmatch(text):
        return Parsed(False, None, "expression", None, text,
                      _why("date_shaped", text=_quote(text.strip())))
    return None


def parse_with_work(text: str) -> tuple[Parsed, Work]:
    """The full reader (tokenizer, parser, evaluator), also returning how much work it did.

    `parse_answer` gives the same `Parsed`; it only reads the common shapes faster and
    remembers texts it has read. This one always takes the general path (tests and benches).
    """
    work = Work()
    if not isinstance(text, str):
        return Parsed(False, None, "expression", None, "",
                      _why("not_text", type=type(text).__name__)), work
    if len(text) > MAX_LENGTH:
        return Parsed(False, None, "expression", None, text,
                      _why("too_long", length=str(len(text)), most=MAX_LENGTH)), work
    dated = _date_shaped(text)
    if dated is not None:
        return dated, work
    try:
        tokens = _Tokenizer(_normalise(text), work).run()
        tree, multiplier, unit, percent = _Parser(tokens, work).answer()
        value = _evaluate(tree, work) * multiplier
        if percent:
            value /= 100
        value = _checked(value, tokens[0].col, work)
    except _Unreadable as exc:
        return Parsed(False, None, "expression", None, text, exc.note), work
    except (ArithmeticError, ValueError, RecursionError) as exc:   # a safety net, not a path
        return Parsed(False, None, "expression", None, text,
                      _why("safety_net", error=type(exc).__name__)), work
    kind: Kind = "percent" if percent else _classify(tree)
    return Parsed(True, value, kind, unit, text, None), work


# ----------------------------------------------------------------------------- the common shapes

# Most answers are one plain number, maybe signed, grouped by commas, a decimal, an a/b of whole
# numbers, with a % or one unit word. This pattern reads only those (ASCII only, spaces the
# tokenizer also skips); anything else, or anything it is unsure of, goes to the full reader.
_WS = r"[ \t\n\r]*"
_WHOLE = r"(?:[1-9][0-9]{0,2}(?:,[0-9]{3})+|[0-9]+)"
_FAST = re.compile(
    rf"{_WS}(?P<sign>[+-]?){_WS}"
    rf"(?P<num>{_WHOLE}(?:\.[0-9]+)?|\.[0-9]+)"
    rf"(?:{_WS}/{_WS}(?P<den>{_WHOLE}))?"
    rf"(?P<gap>{_WS})(?:(?P<pct>%)|(?P<word>[A-Za-z]+))?{_WS}",
    re.ASCII)

# A lone unit word after the number, as `_Parser.suffix` reads it when nothing follows:
# lower-cased word → (multiplier to canonical, canonical unit, is percent).
_FAST_WORDS: dict[str, tuple[int, str, bool]] = {}
for _word in KNOWN_WORDS:
    if _word in _PERCENT_WORDS:
        _FAST_WORDS[_word] = (1, "%", True)
    elif _word in _RATIO_WORDS:
        _FAST_WORDS[_word] = (1, "x", False)
    elif _word in _MULTIPLIERS:
        _FAST_WORDS[_word] = (_MULTIPLIERS[_word], "B", False)
    elif _word in _BYTE_WORDS:
        _FAST_WORDS[_word] = (_BYTE_WORDS[_word], "B", False)
    elif _word in _UNIT_WORDS:
        _FAST_WORDS[_word] = (1, _UNIT_WORDS[_word], False)


def _fast_parse(text: str) -> Parsed | None:
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


#: How many distinct answer texts `parse_answer` remembers.
CACHE_SIZE = 1 << 16


@lru_cache(maxsize=CACHE_SIZE)
def _parse_text(text: str) -> Parsed:
    # A class writes the same few answers again and again ("8", "25%"): each is read once.
    fast = _fast_parse(text)
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
