"""The tree of a typed answer and its exact value: a recursive-descent parser over the tokens
(sums, products, signs, powers, brackets, ``ceil``/``floor``/``min``/``max``, then one unit) that
builds a tiny tree, evaluated with `fractions.Fraction` within the reading's caps. Nothing a
student typed is ever run.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass
from fractions import Fraction

from quizgen.grade.reading import (MAX_DEPTH, MAX_EXPONENT, MAX_MAGNITUDE, Kind, Unreadable, Work,
                                   checked, quote)
from quizgen.grade.tokens import FUNCTIONS, MULTIPLIERS, OPEN_TO_CLOSE, PER_WORDS, Token
from quizgen.problems.specs import BYTE_WORDS, PERCENT_WORDS, RATIO_WORDS, UNIT_WORDS

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


class Parser:
    def __init__(self, tokens: list[Token], work: Work) -> None:
        self.toks = tokens
        self.pos = 0
        self.depth = 0
        self.work = work

    # -- helpers
    def peek(self, ahead: int = 0) -> Token:
        return self.toks[min(self.pos + ahead, len(self.toks) - 1)]

    def advance(self) -> Token:
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
            raise Unreadable("too_deep", col=col, most=MAX_DEPTH)

    def unexpected(self, tok: Token) -> Unreadable:
        if tok.kind == "end":
            return Unreadable("number_missing", col=tok.col)
        return Unreadable("unexpected", text=quote(tok.text), col=tok.col)

    def starts_operand(self, ahead: int) -> bool:
        tok = self.peek(ahead)
        return tok.kind == "num" or (tok.kind == "op" and tok.text in "(⌈⌊+-") \
            or (tok.kind == "word" and tok.text.lower() in FUNCTIONS)

    # -- grammar
    def answer(self) -> tuple[object, Fraction, str | None, bool]:
        if self.peek().kind == "op" and self.peek().text in "=≈~":
            self.advance()
        if self.peek().kind == "end":
            raise Unreadable("empty")
        tree = self.expr()
        multiplier, unit, percent = self.suffix()
        end = self.peek()
        if end.kind != "end":
            if end.kind == "op" and end.text == ",":
                raise Unreadable("one_answer", col=end.col)
            if end.kind == "op" and end.text in ")⌉⌋":
                raise Unreadable("unmatched", text=quote(end.text), col=end.col)
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
        if tok.kind == "op" and tok.text in OPEN_TO_CLOSE:
            self.advance()
            self.enter(tok.col)
            inner = self.expr()
            self.close(tok)
            self.depth -= 1
            if tok.text == "(":
                return inner
            name = "ceil" if tok.text == "⌈" else "floor"
            return self.node(_Call(name, (inner,), tok.col))
        if tok.kind == "word" and tok.text.lower() in FUNCTIONS:
            return self.call()
        if tok.kind == "word":
            raise Unreadable("unexpected", text=quote(tok.text), col=tok.col)
        raise self.unexpected(tok)

    def call(self) -> object:
        name_tok = self.advance()
        name = FUNCTIONS[name_tok.text.lower()]
        if not self.is_op("("):
            raise Unreadable("call_needs_bracket", text=quote(name_tok.text), col=self.peek().col)
        open_tok = self.advance()
        self.enter(open_tok.col)
        args = [self.expr()]
        while self.is_op(","):
            self.advance()
            args.append(self.expr())
        self.close(open_tok)
        self.depth -= 1
        if name in ("ceil", "floor") and len(args) != 1:
            raise Unreadable("one_argument", name=name_tok.text, count=len(args), col=name_tok.col)
        return self.node(_Call(name, tuple(args), name_tok.col))

    def close(self, open_tok: Token) -> None:
        want = OPEN_TO_CLOSE[open_tok.text]
        tok = self.peek()
        if tok.kind == "op" and tok.text == want:
            self.advance()
            return
        if tok.kind == "end":
            raise Unreadable("missing_close", want=quote(want), text=quote(open_tok.text),
                              col=open_tok.col)
        if tok.kind == "op" and tok.text == "," and open_tok.text == "(":
            raise Unreadable("comma_in_call", col=tok.col)
        raise Unreadable("expected_close", want=quote(want), text=quote(tok.text), col=tok.col)

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
        if word in PERCENT_WORDS or (word == "per" and self.skip_word("cent")):
            return Fraction(1), "%", True
        if word in RATIO_WORDS:
            self.skip_word("slower")
            return Fraction(1), "x", False
        if word in MULTIPLIERS:
            multiplier, unit = MULTIPLIERS[word], "B"
            nxt = self.peek()
            if nxt.kind == "word" and nxt.text.lower() in UNIT_WORDS:
                unit = UNIT_WORDS[nxt.text.lower()]
                self.advance()
            elif nxt.kind == "word" and BYTE_WORDS.get(nxt.text.lower()) == 1:
                self.advance()
        elif word in BYTE_WORDS:
            multiplier, unit = BYTE_WORDS[word], "B"
        elif word in UNIT_WORDS:
            multiplier, unit = 1, UNIT_WORDS[word]
        else:
            raise Unreadable("not_a_unit", text=quote(tok.text), col=tok.col)
        # "8 blocks/SM", "48 KB per block": the rate's denominator names where, not how much.
        if self.is_op("/") or self.is_word(("per",)):
            slash = self.advance()
            if not self.is_word(PER_WORDS):
                nxt = self.peek()
                raise Unreadable("per_what", text=quote(slash.text), col=nxt.col,
                                  found=quote(nxt.text) if nxt.kind != "end" else "")
            self.advance()
        return Fraction(multiplier), unit, False

    def skip_word(self, word: str) -> bool:
        if self.is_word((word,)):
            self.advance()
            return True
        return False


# ----------------------------------------------------------------------------- evaluation

def evaluate(node: object, work: Work) -> Fraction:
    if isinstance(node, _Num):
        return node.value
    if isinstance(node, _Neg):
        return -evaluate(node.operand, work)
    if isinstance(node, _Call):
        values = [evaluate(arg, work) for arg in node.args]
        if node.name == "ceil":
            return Fraction(math.ceil(values[0]))
        if node.name == "floor":
            return Fraction(math.floor(values[0]))
        return min(values) if node.name == "min" else max(values)
    assert isinstance(node, _Bin)
    left = evaluate(node.left, work)
    right = evaluate(node.right, work)
    if node.op == "+":
        result = left + right
    elif node.op == "-":
        result = left - right
    elif node.op == "*":
        result = left * right
    elif node.op == "/":
        if right == 0:
            raise Unreadable("division_by_zero", col=node.col)
        result = left / right
    else:
        result = _power(left, right, node.col)
    return checked(result, node.col, work)


def _power(base: Fraction, exponent: Fraction, col: int) -> Fraction:
    if exponent.denominator != 1:
        raise Unreadable("exponent_whole", col=col)
    e = exponent.numerator
    if abs(e) > MAX_EXPONENT:
        raise Unreadable("exponent_too_large", exponent=str(e), col=col, most=MAX_EXPONENT)
    if base == 0 and e < 0:
        raise Unreadable("zero_negative_power", col=col)
    # Refuse before computing when the result surely exceeds the cap: a part of `bits` bits
    # raised to |e| has at least (bits - 1)·|e| + 1 bits, and 10^30 < 2^100.
    bits = max(base.numerator.bit_length(), base.denominator.bit_length())
    if (bits - 1) * abs(e) >= MAX_MAGNITUDE.bit_length():
        raise Unreadable("value_out_of_range", col=col)
    return base ** e


def classify(node: object) -> Kind:
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
