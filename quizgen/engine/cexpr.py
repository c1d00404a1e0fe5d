"""C expressions over thread indices: read by a small grammar of our own, evaluated with C's rules.

A condition or a trip count is written the way exams write it: ``threadIdx.x < 40 ||
threadIdx.x >= 104``, ``5 - (i % 3)``, ``idx % 32 < 16``, with definitions such as
``int i = blockIdx.x * blockDim.x + threadIdx.x``. The text is tokenised and parsed here, never
handed to Python (no eval, no compile): names come from a whitelist (CUDA's built-in index
variables, ``warpSize`` and the caller's definitions), numbers are whole, and the operators are
C's ``+ - * / % << >> & | ^ ~ ! < <= > >= == != && || ?:`` with C's precedence.

Evaluation follows C on 32-bit ``int`` and ``unsigned int`` (CUDA's ``threadIdx`` and friends
are unsigned): the usual arithmetic conversions (an unsigned operand makes the other unsigned),
division truncating toward zero, ``%`` taking the dividend's sign, unsigned arithmetic modulo
2³², arithmetic right shift of a negative int. What C leaves undefined is refused, naming the
first thread where it happens: division by zero, a signed result outside the 32-bit range, a
shift by a negative count or by 32 or more, a left shift of a negative int. ``&&``, ``||`` and
``?:`` evaluate their right side only for the threads that reach it, so ``n > 0 && 100 / n > 2``
is fine for ``n = 0``.

Every thread is evaluated at once with NumPy (an int64 array per value: 32-bit values and their
products fit), so a condition over a million threads takes milliseconds. Input is bounded before
anything runs: the text's length, its tokens and its nesting.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Mapping

import numpy as np

from quizgen.errors import QuizgenError

MAX_TEXT = 400            # characters of one expression or definition
MAX_TOKENS = 160
MAX_DEPTH = 32            # nesting of parentheses and operators
INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1
UINT_MAX = (1 << 32) - 1
WORD = 32

#: CUDA's built-in variables (unsigned int components) and warpSize (an int).
BUILTIN_VECTORS = ("threadIdx", "blockIdx", "blockDim", "gridDim")
BUILTINS: dict[str, str] = {f"{v}.{c}": "unsigned" for v in BUILTIN_VECTORS for c in "xyz"}
BUILTINS["warpSize"] = "int"

#: Words a definition may not take as its name.
RESERVED = frozenset({"int", "unsigned", "const", "signed", "long", "short", "char", "if", "else",
                      "for", "while", "do", "return", "sizeof", "warpSize", "true", "false",
                      *BUILTIN_VECTORS})

_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<num>0[xX][0-9a-fA-F]+[uU]?|[0-9]+[uU]?)(?![\w.])
  | (?P<name>[A-Za-z_][A-Za-z_0-9]*(?:\.[A-Za-z_][A-Za-z_0-9]*)?)
  | (?P<op><<|>>|<=|>=|==|!=|&&|\|\||[-+*/%<>&|^!~?:()])
""", re.VERBOSE)

#: Binary operators by precedence level, loosest first (C's table, without assignment and comma).
_LEVELS: tuple[tuple[str, ...], ...] = (
    ("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", "<=", ">", ">="),
    ("<<", ">>"), ("+", "-"), ("*", "/", "%"))


@dataclass(frozen=True, slots=True)
class Expr:
    """A parsed expression: its text, its tree (tuples), its C type and the names it reads."""

    text: str
    tree: tuple
    ctype: str                  # "int" or "unsigned"
    names: frozenset[str]


def _short(text: str) -> str:
    return text if len(text) <= 40 else text[:39] + "…"


def tokenize(text: str, field: str) -> list[tuple[str, str]]:
    """(kind, text) tokens of `text`; anything outside the grammar is a one-line error."""
    if not isinstance(text, str):
        raise QuizgenError(f"got {type(text).__name__}; expected the expression as text", field=field)
    if len(text) > MAX_TEXT:
        raise QuizgenError(f"the expression is {len(text):,} characters long; at most {MAX_TEXT} "
                           "are read", field=field)
    out: list[tuple[str, str]] = []
    at = 0
    while at < len(text):
        m = _TOKEN.match(text, at)
        if m is None:
            raise QuizgenError(f"cannot read {text[at:at + 12]!r} in {_short(text)!r}: only whole "
                               "numbers, the index variables, your definitions and C's operators "
                               "are allowed", field=field)
        at = m.end()
        kind = m.lastgroup or ""
        if kind != "space":
            out.append((kind, m.group()))
        if len(out) > MAX_TOKENS:
            raise QuizgenError(f"the expression has more than {MAX_TOKENS} tokens; write a shorter "
                               "one", field=field)
    if not out:
        raise QuizgenError("the expression is empty", field=field)
    return out


def _literal(text: str, field: str) -> tuple[int, str]:
    """A C integer literal: its value and type (hexadecimal above INT_MAX, or a u suffix, is
    unsigned; a decimal above INT_MAX would be a long in C and is refused)."""
    unsigned = text[-1] in "uU"
    digits = text.rstrip("uU")
    octal = len(digits) > 1 and digits[0] == "0" and digits[1] not in "xX"
    if octal and not set(digits) <= set("01234567"):
        raise QuizgenError(f"{text} is not a number: a leading 0 makes it octal in C, and octal "
                           "has no 8 or 9", field=field)
    value = int(digits, 16) if digits[:2].lower() == "0x" else int(digits, 8 if octal else 10)
    if value > UINT_MAX or (value > INT_MAX and not unsigned and digits[:2].lower() != "0x"):
        raise QuizgenError(f"the number {text} is too large for a 32-bit int (at most "
                           f"{INT_MAX:,}, or {UINT_MAX:,} written with a u)", field=field)
    return value, "unsigned" if unsigned or value > INT_MAX else "int"


def _common(a: str, b: str) -> str:
    """C's usual arithmetic conversions for two 32-bit types."""
    return "unsigned" if "unsigned" in (a, b) else "int"


class _Parser:
    """Recursive descent over the tokens, building (kind, …, ctype) tuples."""

    def __init__(self, tokens: list[tuple[str, str]], types: Mapping[str, str], field: str,
                 text: str) -> None:
        self.tokens, self.types, self.field, self.text = tokens, types, field, text
        self.at = 0
        self.names: set[str] = set()

    def fail(self, message: str) -> QuizgenError:
        return QuizgenError(f"{message} in {_short(self.text)!r}", field=self.field)

    def peek(self) -> str | None:
        return self.tokens[self.at][1] if self.at < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        if self.at >= len(self.tokens):
            raise self.fail("the expression ends too early")
        token = self.tokens[self.at]
        self.at += 1
        return token

    def expect(self, op: str) -> None:
        kind, text = self.take()
        if text != op or kind != "op":
            raise self.fail(f"expected {op!r} but found {text!r}")

    def parse(self) -> tuple:
        tree = self.ternary(0)
        if self.at != len(self.tokens):
            raise self.fail(f"unexpected {self.tokens[self.at][1]!r}")
        return tree

    def ternary(self, depth: int) -> tuple:
        if depth > MAX_DEPTH:
            raise self.fail(f"nested more than {MAX_DEPTH} deep")
        cond = self.binary(0, depth)
        if self.peek() != "?":
            return cond
        self.take()
        yes = self.ternary(depth + 1)
        self.expect(":")
        no = self.ternary(depth + 1)
        return ("cond", cond, yes, no, _common(yes[-1], no[-1]))

    def binary(self, level: int, depth: int) -> tuple:
        if level == len(_LEVELS):
            return self.unary(depth)
        left = self.binary(level + 1, depth)
        while self.peek() in _LEVELS[level] and self.tokens[self.at][0] == "op":
            op = self.take()[1]
            right = self.binary(level + 1, depth)
            left = ("bin", op, left, right, self._type_of(op, left[-1], right[-1]))
        return left

    @staticmethod
    def _type_of(op: str, a: str, b: str) -> str:
        if op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||"):
            return "int"
        if op in ("<<", ">>"):
            return a
        return _common(a, b)

    def unary(self, depth: int) -> tuple:
        if depth > MAX_DEPTH:
            raise self.fail(f"nested more than {MAX_DEPTH} deep")
        kind, text = self.take()
        if kind == "op" and text in ("-", "+", "!", "~"):
            operand = self.unary(depth + 1)
            return ("un", text, operand, "int" if text == "!" else operand[-1])
        if kind == "op" and text == "(" and self.peek() in ("int", "unsigned"):
            return self.cast(depth)
        if kind == "op" and text == "(":
            inner = self.ternary(depth + 1)
            self.expect(")")
            return inner
        if kind == "num":
            value, ctype = _literal(text, self.field)
            return ("num", value, ctype)
        if kind == "name":
            if self.peek() == "(":
                raise self.fail(f"{text}(…) is a call; a condition holds no calls")
            ctype = self.types.get(text)
            if ctype is None:
                known = ", ".join(n for n in self.types if n != "warpSize" and "." not in n)
                raise self.fail(f"unknown name {_short(text)!r} (the index variables are "
                                f"threadIdx, blockIdx, blockDim and gridDim .x/.y/.z"
                                + (f"; defined here: {known}" if known else "") + ")")
            self.names.add(text)
            return ("name", text, ctype)
        raise self.fail(f"unexpected {text!r}")


    def cast(self, depth: int) -> tuple:
        """``(int) x``, ``(unsigned) x`` or ``(unsigned int) x``: a conversion."""
        ctype = "unsigned" if self.take()[1] == "unsigned" else "int"
        if ctype == "unsigned" and self.peek() == "int":
            self.take()
        self.expect(")")
        operand = self.unary(depth + 1)
        return ("cast", operand, ctype)


def parse_expression(text: str, types: Mapping[str, str] | None = None, *,
                     field: str = "expression") -> Expr:
    """Parse `text` over the built-in names and `types` (name → "int" | "unsigned")."""
    if not isinstance(text, str):
        tokenize(text, field)             # the one-line error for a value that is not text
    return _parse(text, tuple(sorted((types or {}).items())), field)


@lru_cache(maxsize=4096)
def _parse(text: str, types: tuple[tuple[str, str], ...], field: str) -> Expr:
    """Parsed once per text and names (an Expr is immutable; problems repeat their code)."""
    known = dict(BUILTINS)
    known.update(types)
    parser = _Parser(tokenize(text, field), known, field, text)
    tree = parser.parse()
    return Expr(text.strip(), tree, tree[-1], frozenset(parser.names))


_DEFINITION = re.compile(r"^\s*(?:const\s+)?(?P<type>unsigned\s+int|unsigned|int)?\s*"
                         r"(?P<name>[A-Za-z_][A-Za-z_0-9]*)\s*=(?!=)(?P<expr>.*?);?\s*$", re.S)


@dataclass(frozen=True, slots=True)
class Definition:
    """``int i = blockIdx.x * blockDim.x + threadIdx.x``: a name, its declared type, its value."""

    name: str
    ctype: str
    expr: Expr

    @property
    def text(self) -> str:
        return f"{'unsigned' if self.ctype == 'unsigned' else 'int'} {self.name} = {self.expr.text};"


def parse_definition(text: str, types: Mapping[str, str] | None = None, *,
                     field: str = "let") -> Definition:
    """``[const] [int|unsigned] NAME = EXPR[;]``; without a type the name is an int, as exam code
    declares it."""
    if not isinstance(text, str) or len(text) > MAX_TEXT:
        raise QuizgenError(f"a definition is NAME = EXPRESSION of at most {MAX_TEXT} characters",
                           field=field)
    m = _DEFINITION.match(text)
    if m is None:
        raise QuizgenError(f"got {_short(text)!r}; expected NAME = EXPRESSION, like "
                           "'int i = blockIdx.x * blockDim.x + threadIdx.x'", field=field)
    name = m.group("name")
    if name in RESERVED or name.startswith("__"):
        raise QuizgenError(f"{name!r} cannot be defined (it is a C word or a built-in name)",
                           field=field)
    if types and name in types:
        raise QuizgenError(f"{name!r} is defined twice", field=field)
    expr = parse_expression(m.group("expr"), types, field=field)
    ctype = "unsigned" if (m.group("type") or "").startswith("unsigned") else "int"
    return Definition(name, ctype, expr)


# ---------------------------------------------------------------------------------------------
# Evaluation over arrays of threads


class EvalError(Exception):
    """What C leaves undefined happened at flat position `index` of the evaluated threads."""

    def __init__(self, message: str, index: int) -> None:
        super().__init__(message)
        self.index = index


Value = Any   # an int64 array (one entry per thread) or a Python int (the same for every thread)


def _first(bad: Any) -> int:
    return int(np.flatnonzero(np.broadcast_to(bad, bad.shape))[0])


def _first_live(live: Any) -> int:
    """The first thread that evaluates a value every thread shares."""
    return 0 if live is None or np.ndim(live) == 0 else _first(np.asarray(live))


def _check_int(value: Value, live: Any, what: str) -> Value:
    """A signed result outside the 32-bit range is undefined in C: refused where it is live."""
    if isinstance(value, int):
        if not INT_MIN <= value <= INT_MAX and (live is None or np.any(live)):
            raise EvalError(f"{what} gives {value:,}, outside a 32-bit int", _first_live(live))
        return value
    bad = (value < INT_MIN) | (value > INT_MAX)
    if live is not None:
        bad &= live
    if bad.any():
        at = _first(bad)
        raise EvalError(f"{what} gives {int(value.flat[at]):,}, outside a 32-bit int", at)
    return value


def convert(value: Value, src: str, dst: str) -> Value:
    """A value of type `src` as type `dst` (two's complement, as nvcc converts)."""
    if src == dst:
        return value
    if dst == "unsigned":
        return value & UINT_MAX
    return ((value + (1 << 31)) & UINT_MAX) - (1 << 31)


def _where(live: Any, mask: Any) -> Any:
    return mask if live is None else live & mask


def _pick(yes: Value, no: Value, cond: Value) -> Value:
    if isinstance(cond, int):
        return yes if cond else no
    return np.where(cond, yes, no)


def evaluate(expr: Expr | tuple, env: Mapping[str, Value], live: Any = None) -> Value:
    """The value of `expr` for every thread: `env` maps each name to an int64 array (one entry
    per thread) or an int; `live` (a boolean array or None) marks the threads that evaluate it."""
    tree = expr.tree if isinstance(expr, Expr) else expr
    kind = tree[0]
    if kind == "num":
        return tree[1]
    if kind == "name":
        return env[tree[1]]
    if kind == "un":
        return _unary(tree, env, live)
    if kind == "cast":
        return convert(evaluate(tree[1], env, live), tree[1][-1], tree[-1])
    if kind == "cond":
        c = _truth(evaluate(tree[1], env, live))
        t = tree[-1]
        if np.ndim(c) == 0:
            taken = tree[2] if c else tree[3]
            return convert(evaluate(taken, env, live), taken[-1], t)
        yes = convert(evaluate(tree[2], env, _where(live, c)), tree[2][-1], t)
        no = convert(evaluate(tree[3], env, _where(live, ~c if not isinstance(c, bool) else not c)),
                     tree[3][-1], t)
        return _pick(yes, no, c)
    return _binary(tree, env, live)


def _truth(value: Value) -> Any:
    return value != 0


def _as_int(flag: Any) -> Value:
    return int(flag) if isinstance(flag, (bool, np.bool_)) else flag.astype(np.int64)


def _unary(tree: tuple, env: Mapping[str, Value], live: Any) -> Value:
    _, op, operand, t = tree
    a = evaluate(operand, env, live)
    if op == "!":
        return _as_int(a == 0)
    if op == "+":
        return a
    if op == "-":
        return (-a) & UINT_MAX if t == "unsigned" else _check_int(-a, live, "negation")
    return (~a) & UINT_MAX if t == "unsigned" else ~a


def _binary(tree: tuple, env: Mapping[str, Value], live: Any) -> Value:
    _, op, left, right, t = tree
    a = evaluate(left, env, live)
    if op in ("&&", "||"):
        ta = _truth(a)
        reach = ta if op == "&&" else (~ta if not isinstance(ta, (bool, np.bool_)) else not ta)
        if isinstance(reach, (bool, np.bool_)) and not reach:
            return int(op == "||")
        b = _truth(evaluate(right, env, _where(live, reach)))
        return _as_int((ta & b) if op == "&&" else (ta | b))
    b = evaluate(right, env, live)
    if op in ("<<", ">>"):
        return _shift(op, a, b, t, live)
    common = _common(left[-1], right[-1])
    a, b = convert(a, left[-1], common), convert(b, right[-1], common)
    if op in ("<", "<=", ">", ">=", "==", "!="):
        return _as_int(_COMPARE[op](a, b))
    if op in ("/", "%"):
        return _divide(op, a, b, common, live)
    if op == "*" and common == "unsigned":
        product = np.multiply(np.asarray(a, dtype=np.uint64), np.asarray(b, dtype=np.uint64))
        out = (product & np.uint64(UINT_MAX)).astype(np.int64)
        return int(out) if out.ndim == 0 else out
    value = _ARITH[op](a, b)
    if common == "unsigned":
        return value & UINT_MAX
    return _check_int(value, live, f"{op!r}")


_COMPARE = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
            ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}
_ARITH = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
          "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b}


def _live_any(bad: Any, live: Any) -> Any:
    if isinstance(bad, (bool, np.bool_)):
        if live is None:
            return bad
        return np.asarray(live) & bad
    return bad if live is None else bad & live


def _raise_at(bad: Any, message: str) -> None:
    if isinstance(bad, (bool, np.bool_)):
        if bad:
            raise EvalError(message, 0)
        return
    if bad.any():
        raise EvalError(message, _first(bad))


def _divide(op: str, a: Value, b: Value, common: str, live: Any) -> Value:
    """C division: truncation toward zero; the remainder takes the dividend's sign."""
    zero = _live_any(b == 0, live)
    _raise_at(zero, f"{'division' if op == '/' else 'remainder'} by zero")
    b = _pick(1, b, b == 0) if not isinstance(b, int) else (b or 1)
    if common == "unsigned":
        return a // b if op == "/" else a % b
    q = abs(a) // abs(b)
    negative = (a < 0) != (b < 0)
    q = _pick(-q, q, negative)
    if op == "%":
        return a - b * q
    return _check_int(q, live, "'/'")


def _shift(op: str, a: Value, count: Value, t: str, live: Any) -> Value:
    """Shifts: a count outside 0…31 is undefined, so is a left shift of a negative int or one
    past the int's range; >> of a negative int is arithmetic (nvcc's choice)."""
    bad = _live_any((count < 0) | (count >= WORD), live)
    if isinstance(bad, (bool, np.bool_)) and bad:
        raise EvalError(f"a shift by {count}: C allows counts 0 to 31 on a 32-bit value", 0)
    if not isinstance(bad, (bool, np.bool_)) and bad.any():
        at = _first(bad)
        shown = int(np.broadcast_to(count, bad.shape).flat[at])
        raise EvalError(f"a shift by {shown}: C allows counts 0 to 31 on a 32-bit value", at)
    count = _pick(0, count, (count < 0) | (count >= WORD)) if not isinstance(count, int) else count
    if op == ">>":
        return a >> count
    if t == "unsigned":
        return (a << count) & UINT_MAX
    _raise_at(_live_any(a < 0, live), "a left shift of a negative int")
    return _check_int(a << count, live, "'<<'")
