"""Arithmetic as a sentence writes it, recomputed: the equations a worked solution states
(``⌊65,536/(256·65)⌋ = 3``, ``24/32 = 75%``, ``min(3250, 40) = 40``), read out of the text and
evaluated, so a check can hold every stated rule to the problem's own numbers.

    equations("3 blocks; 3·8 = 24 warps; 24/32 = 75%.")   # [(24.0, 24.0, ...), (0.75, 0.75, ...)]

An equation is a run ``expr = expr (= expr …)`` where each side is made of numbers (digits grouped
by commas, decimals, a trailing %), ``+ − - · × / ÷``, parentheses, ``⌊ ⌋ ⌈ ⌉``, ``min(…)`` and
``max(…)`` and ∞. A side is the longest run of such tokens next to the ``=``; words end it, so
"3 blocks × 8 warps = 24 warps" states no equation this reader can check (its left side is a unit)
and is skipped rather than misread.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

#: One token of a written formula.
_TOKEN = re.compile(r"""
    (?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?%?|\d+(?:\.\d+)?%?)   # 65,536  0.75  75%
  | (?P<fn>min|max)\(                                        # min(  max(
  | (?P<op>[+\-−·×/÷(),⌊⌋⌈⌉])
  | (?P<inf>∞)
  | (?P<space>[ \u00a0\u202f]+)
""", re.VERBOSE)


class _Unparsed(Exception):
    pass


def _tokens(text: str) -> list[tuple[str, str]] | None:
    """`text` as (kind, value) tokens, or None when it holds anything else (a word)."""
    out, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            return None
        pos = m.end()
        kind = m.lastgroup
        if kind != "space":
            out.append((kind, m.group(kind)))
    return out


@dataclass
class _Parser:
    toks: list[tuple[str, str]]
    i: int = 0

    def peek(self) -> tuple[str, str] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, value: str) -> None:
        if self.peek() != ("op", value):
            raise _Unparsed(value)
        self.i += 1

    def expr(self) -> float:
        value = self.term()
        while (t := self.peek()) and t[0] == "op" and t[1] in "+-−":
            self.i += 1
            right = self.term()
            value = value + right if t[1] == "+" else value - right
        return value

    def term(self) -> float:
        value = self.factor()
        while (t := self.peek()) and t[0] == "op" and t[1] in "·×/÷":
            self.i += 1
            right = self.factor()
            if t[1] in "·×":
                value *= right
            elif right == 0:
                raise _Unparsed("division by zero")
            else:
                value /= right
        return value

    def factor(self) -> float:
        t = self.peek()
        if t is None:
            raise _Unparsed("end")
        self.i += 1
        kind, text = t
        if kind == "num":
            number = float(text.rstrip("%").replace(",", ""))
            return number / 100 if text.endswith("%") else number
        if kind == "inf":
            return math.inf
        if kind == "fn":
            args = [self.expr()]
            while self.peek() == ("op", ","):
                self.i += 1
                args.append(self.expr())
            self.take(")")
            return min(args) if text == "min" else max(args)
        if text == "(":
            value = self.expr()
            self.take(")")
            return value
        if text in "⌊⌈":
            value = self.expr()
            self.take("⌋" if text == "⌊" else "⌉")
            return math.floor(value + 1e-9) if text == "⌊" else math.ceil(value - 1e-9)
        if text in "-−":
            return -self.factor()
        raise _Unparsed(text)


def evaluate(text: str) -> float | None:
    """The value of a written formula (``⌊65,536/(256·65)⌋``), or None when it is not one."""
    toks = _tokens(text.strip())
    if not toks:
        return None
    p = _Parser(toks)
    try:
        value = p.expr()
    except (_Unparsed, OverflowError):
        return None
    return value if p.i == len(toks) else None


def _precision(text: str) -> float:
    """Half a unit in the last place `text` prints (0.5 for 24, 0.0005 for 33.333%)."""
    m = re.search(r"\d+(?:\.(\d+))?(%?)", text)
    places = len(m.group(1) or "") if m else 0
    scale = 0.01 if m and m.group(2) else 1.0
    return 0.5 * 10 ** -places * scale


def _rounded_inputs(text: str) -> float:
    """The relative error a result may carry from the decimals rounded in `text` (0.4062 for
    0.40625: 0.00005/0.4062), summed over them, as for a product or a quotient."""
    total = 0.0
    for m in re.finditer(r"(\d+)\.(\d+)", text.replace(",", "")):
        value = float(m.group(0))
        if value:
            total += 0.5 * 10 ** -len(m.group(2)) / value
    return total


#: Characters a written formula is made of (min( and max( are masked before the scan).
_FORMULA_CHARS = set("0123456789,.%+-−·×/÷()⌊⌋⌈⌉∞ \u00a0\u202f\x01\x02")


def _masked(text: str) -> str:
    return text.replace("min(", "\x01\x01\x01(").replace("max(", "\x02\x02\x02(")


#: Words that join a number to what stands before it ("36 mod 32", "62.5% of 64", "64 ka"):
#: a formula next to one of them is part of a longer statement this reader does not parse.
_JOINING_WORDS = ("mod", "of", "ka", "ki", "ke", "se", "per", "x", "ilp", "times", "plus", "minus",
                  "by", "into", "guna")
_OPERATORS = "+-−·×/÷(⌊⌈"


def _joined_before(before: str) -> bool:
    """Whether the text before a left side continues the formula (an operator, a word stuck to
    it as in η(56), or a joining word), so the side read is only part of what is stated."""
    if before and not before[-1].isspace() and before[-1] not in ":;,[":
        return True
    stripped = before.rstrip()
    if stripped.endswith(tuple(_OPERATORS)) or stripped.endswith(("…", "–")):
        return True
    word = stripped.rsplit(None, 1)[-1].lower() if stripped else ""
    return word in _JOINING_WORDS


def _left_side(text: str) -> str | None:
    """The longest formula that ends `text` (the left side of an '=' that follows it), or None
    when there is none or it is only the tail of a longer statement."""
    masked = _masked(text)
    begin = len(masked)
    while begin and masked[begin - 1] in _FORMULA_CHARS:
        begin -= 1
    for start in range(begin, len(text)):
        if text[start].isspace():
            continue
        candidate = text[start:].strip()
        if candidate[0] in ",.)⌋⌉" or evaluate(candidate) is None:
            continue
        if (_joined_before(text[:start]) or (candidate[0] in "-−" and text[:start].strip())
                or re.fullmatch(r"\([\d,.]+\)", candidate)):
            return None
        return candidate
    return None


def _right_side(text: str) -> str | None:
    """The longest formula that starts `text` (the right side of an '=' before it), or None
    when there is none or the statement goes on with an operator after it."""
    masked = _masked(text)
    stop = 0
    while stop < len(masked) and masked[stop] in _FORMULA_CHARS:
        stop += 1
    for end in range(stop, 0, -1):
        candidate = text[:end].strip().rstrip(",;:.")
        if candidate and evaluate(candidate) is not None:
            after = text[text.index(candidate) + len(candidate):].lstrip()
            if after.startswith(tuple("×·/÷")) and re.match(r"[×·/÷]\s*[\d(⌊⌈]", after):
                return None
            return candidate
    return None


@dataclass(frozen=True)
class Equation:
    left: str
    right: str
    left_value: float
    right_value: float

    @property
    def holds(self) -> bool:
        a, b = self.left_value, self.right_value
        if math.isinf(a) or math.isinf(b):
            return a == b
        tol = _precision(self.right) + _rounded_inputs(self.left) * max(abs(a), abs(b))
        return abs(a - b) <= tol + 1e-9 * max(1.0, abs(a), abs(b))

    def __str__(self) -> str:
        return f"{self.left} = {self.right}"


def equations(text: str) -> list[Equation]:
    """Every equation `text` states that this reader can read, each link of a chain
    ``a = b = c`` as its own (a = b, b = c)."""
    parts = text.split("=")
    out = []
    for k in range(len(parts) - 1):
        left = _left_side(parts[k])
        right = _right_side(parts[k + 1])
        if left is None or right is None:
            continue
        lv, rv = evaluate(left), evaluate(right)
        out.append(Equation(left, right, lv, rv))
    return out


def false_equations(text: str) -> list[Equation]:
    """The equations `text` states that do not hold."""
    return [e for e in equations(text) if not e.holds]


def last_value(text: str) -> float | None:
    """The value the last equation of `text` arrives at (None: `text` states no equation)."""
    found = equations(text)
    return found[-1].right_value if found else None
