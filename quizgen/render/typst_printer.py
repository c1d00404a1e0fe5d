"""Typst math for the engine's sympy formulas: `TypstPrinter`, a `sympy.printing.Printer` with
one ``_print_<Class>`` method per node our formulas use, the way sympy's own printers are built.

sympy ships printers for LaTeX, MathML and code but none for Typst: ``floor(R_SM/(T*r))`` prints
as ``floor(frac(R_"SM", T r))``, which Typst typesets as ⌊R_SM/(T r)⌋. This module imports sympy;
import it only where a formula is printed (`quizgen.render.math` does so lazily, and the printed
formulas ship in ``formulas.json``), so that starting the command stays fast.
"""

from __future__ import annotations

import re
from typing import Any

import sympy
from sympy import S
from sympy.printing.printer import Printer

from quizgen.render.typst import typst_string

__all__ = ["TypstPrinter", "typst_math"]

# Names Typst's math mode knows as Greek letters (sympy symbols named like this print as the letter).
_GREEK = frozenset(
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma "
    "tau upsilon phi chi psi omega Alpha Beta Gamma Delta Epsilon Zeta Eta Theta Iota Kappa Lambda "
    "Mu Nu Xi Omicron Pi Rho Sigma Tau Upsilon Phi Chi Psi Omega".split())

# quizgen.render.math replaces each symbol by a placeholder named qz + two letters, prints, then
# swaps numbers in by plain string replacement; placeholders must print as the bare name.
_PLACEHOLDER = re.compile(r"qz[a-z]{2}")

# Binding strength, weakest first: how tightly a printed node holds together next to its neighbours.
_PREC_ADD = 10
_PREC_MUL = 20
_PREC_POW = 30
_PREC_ATOM = 100


def _name_part(part: str) -> str:
    """One part of a symbol name (base or subscript) as a Typst math atom."""
    if len(part) == 1 and part.isalpha() and part.isascii():
        return part
    if part.isdigit():
        return part
    if part in _GREEK:
        return part
    return typst_string(part)


def _symbol(name: str) -> str:
    """R_SM → R_"SM", W_max → W_"max", g_R → g_R, x_10 → x_10, qzab → qzab."""
    if _PLACEHOLDER.fullmatch(name):
        return name
    base, sep, sub = name.partition("_")
    if not base:
        return typst_string(name)
    out = _name_part(base)
    if sep and sub:
        out += "_" + _name_part(sub)
    return out


def _is_negative_term(term) -> bool:
    """A term written with a leading minus: -3, -x, -2·x/y."""
    if term.is_Number:
        return bool(term.is_negative)
    if term.is_Mul and term.args:
        first = term.args[0]
        return bool(first.is_Number and first.is_negative)
    return False


def _negate(term):
    if term.is_Number:
        return -term
    first, rest = term.args[0], term.args[1:]
    if first == -1:
        return rest[0] if len(rest) == 1 else sympy.Mul(*rest, evaluate=False)
    return sympy.Mul(-first, *rest, evaluate=False)


def _multi_letter(text: str) -> bool:
    """True for a bare multi-letter word (a placeholder, a Greek name): juxtaposed, it would merge."""
    return text.isalpha() and len(text) > 1


class TypstPrinter(Printer):
    """Print a sympy expression as Typst math (the inside of ``$ ... $``).

    Settings as sympy's printers take them (a dict, or keywords): ``mul_dot=True`` writes every
    product with an explicit ``dot`` (needed once numbers are substituted: 256 · 32, not 256 32);
    ``order`` is sympy's term order (``"none"``: as the formula was written).
    """

    printmethod = "_typst"
    _default_settings = {"order": "none", "mul_dot": False}

    def __init__(self, settings: dict[str, Any] | None = None, **options: Any) -> None:
        super().__init__({**(settings or {}), **options})

    # -- helpers ----------------------------------------------------------------------
    def _prec(self, expr) -> int:
        if expr.is_Add:
            return _PREC_ADD
        if expr.is_Mul:
            coeff, _ = expr.as_coeff_Mul()
            if coeff.is_negative:
                return _PREC_ADD
            return _PREC_MUL
        if expr.is_Rational and not expr.is_Integer:
            return _PREC_MUL if expr.p > 0 else _PREC_ADD
        if (expr.is_Integer or expr.is_Float) and expr.is_negative:
            return _PREC_ADD
        if expr.is_Pow:
            return _PREC_POW
        return _PREC_ATOM

    def _paren(self, expr, level: int) -> str:
        text = self._print(expr)
        if self._prec(expr) < level:
            return "(" + text + ")"
        return text

    # -- atoms ------------------------------------------------------------------------
    def _print_Symbol(self, expr) -> str:
        return _symbol(expr.name)

    _print_Dummy = _print_Symbol

    def _print_Integer(self, expr) -> str:
        return str(expr.p)

    def _print_Rational(self, expr) -> str:
        if expr.q == 1:
            return str(expr.p)
        sign = "-" if expr.p < 0 else ""
        return f"{sign}frac({abs(expr.p)}, {expr.q})"

    def _print_Float(self, expr) -> str:
        value = float(expr)
        if value.is_integer():
            return str(int(value))
        text = repr(value)
        if "e" in text or "E" in text:
            mantissa, _, exp = f"{value:.6e}".partition("e")
            mantissa = mantissa.rstrip("0").rstrip(".")
            return f"{mantissa} dot 10^({int(exp)})"
        return text

    def _print_Infinity(self, expr) -> str:
        return "infinity"

    def _print_NegativeInfinity(self, expr) -> str:
        return "-infinity"

    def _print_Pi(self, expr) -> str:
        return "pi"

    def _print_Exp1(self, expr) -> str:
        return "e"

    def _print_ImaginaryUnit(self, expr) -> str:
        return "i"

    def _print_BooleanTrue(self, expr) -> str:
        return '"true"'

    def _print_BooleanFalse(self, expr) -> str:
        return '"false"'

    # -- arithmetic -------------------------------------------------------------------
    def _print_Add(self, expr) -> str:
        terms = list(expr.args) if self._settings["order"] == "none" else \
            self._as_ordered_terms(expr, order=self._settings["order"])
        out = ""
        for i, term in enumerate(terms):
            negative = i > 0 and _is_negative_term(term)
            shown = _negate(term) if negative else term
            text = self._print(shown)
            if i > 0 and self._prec(shown) <= _PREC_ADD:
                text = "(" + text + ")"
            out += text if i == 0 else (" - " if negative else " + ") + text
        return out

    def _print_Mul(self, expr) -> str:
        # Split into numerator and denominator, in the order the formula was written.
        num, den = [], []
        for factor in expr.args:
            if factor.is_Pow and factor.exp.is_Rational and factor.exp.is_negative:
                den.append(factor.base if factor.exp == S.NegativeOne
                           else sympy.Pow(factor.base, -factor.exp, evaluate=False))
            elif factor.is_Rational and not factor.is_Integer:
                if abs(factor.p) != 1:
                    num.append(sympy.Integer(factor.p))
                elif factor.p == -1:
                    num.append(S.NegativeOne)
                den.append(sympy.Integer(factor.q))
            else:
                num.append(factor)
        sign = ""
        if num and num[0] == S.NegativeOne and (len(num) > 1 or den):
            sign = "-"
            num = num[1:]
        elif num and num[0].is_Number and num[0].is_negative:
            sign = "-"
            num = [-num[0]] + num[1:]
        if not den:
            return sign + (self._product(num) if num else "1")
        top = self._product(num, whole=True) if num else "1"
        return sign + f"frac({top}, {self._product(den, whole=True)})"

    def _product(self, factors, whole: bool = False) -> str:
        if whole and len(factors) == 1:
            return self._print(factors[0])   # the whole numerator or denominator of a frac
        texts: list[str] = []
        previous = None
        for factor in factors:
            text = self._paren(factor, _PREC_MUL)
            if previous is not None:
                # Juxtaposition reads as a product only between a number and a letter; two
                # numbers, two quoted names or a placeholder (a number later) need a dot.
                needs_dot = (self._settings["mul_dot"] or factor.is_Number
                             or text[:1].isdigit() or text.startswith("-")
                             or _multi_letter(texts[-1]) or _multi_letter(text)
                             or text.startswith('"') or texts[-1].startswith('"'))
                texts.append(" dot " if needs_dot else " ")
            texts.append(text)
            previous = factor
        return "".join(texts)

    def _print_Pow(self, expr) -> str:
        base, exp = expr.args
        if exp == S.Half:
            return f"sqrt({self._print(base)})"
        if exp.is_Rational and exp.is_negative:
            inverse = base if exp == S.NegativeOne else sympy.Pow(base, -exp, evaluate=False)
            return f"frac(1, {self._print(inverse)})"
        if exp.is_Rational and exp.q != 1:
            inner = base if exp.p == 1 else sympy.Pow(base, exp.p, evaluate=False)
            return f"root({exp.q}, {self._print(inner)})"
        base_text = self._paren(base, _PREC_POW + 1)
        if base.is_Function and base.func.__name__ not in ("floor", "ceiling", "Abs"):
            base_text = "(" + base_text + ")"
        exp_text = self._print(exp)
        if not (exp.is_Integer and exp >= 0) and not exp.is_Symbol:
            exp_text = "(" + exp_text + ")"
        return f"{base_text}^{exp_text}"

    # -- functions --------------------------------------------------------------------
    def _args(self, expr) -> str:
        return ", ".join(self._print(a) for a in expr.args)

    def _print_floor(self, expr) -> str:
        return f"floor({self._print(expr.args[0])})"

    def _print_ceiling(self, expr) -> str:
        return f"ceil({self._print(expr.args[0])})"

    def _print_Abs(self, expr) -> str:
        return f"abs({self._print(expr.args[0])})"

    def _print_Min(self, expr) -> str:
        return f"min({self._args(expr)})"

    def _print_Max(self, expr) -> str:
        return f"max({self._args(expr)})"

    def _print_Mod(self, expr) -> str:
        a, b = expr.args
        return f'{self._paren(a, _PREC_MUL)} space "mod" space {self._paren(b, _PREC_MUL + 1)}'

    def _print_Function(self, expr) -> str:
        name = type(expr).__name__
        head = name if (len(name) == 1 and name.isalpha()) else f"op({typst_string(name)})"
        return f"{head}({self._args(expr)})"

    def _print_Sum(self, expr) -> str:
        body = self._paren(expr.function, _PREC_MUL)
        limits = ""
        for var, low, high in reversed(expr.limits):
            limits = f"sum_({self._print(var)} = {self._print(low)})^({self._print(high)}) "
            body = limits + body
        return body

    # -- relations and cases ----------------------------------------------------------
    _REL = {"==": "=", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}

    def _print_Relational(self, expr) -> str:
        op = self._REL[expr.rel_op]
        return f"{self._print(expr.lhs)} {op} {self._print(expr.rhs)}"

    def _print_Piecewise(self, expr) -> str:
        rows = []
        for value, cond in expr.args:
            if cond == S.true:
                rows.append(f'{self._print(value)} & "otherwise"')
            else:
                rows.append(f'{self._print(value)} & "if " {self._print(cond)}')
        return "cases(" + ", ".join(rows) + ")"

    def _print_And(self, expr) -> str:
        return ' "and" '.join(self._print(a) for a in expr.args)

    def _print_Or(self, expr) -> str:
        return ' "or" '.join(self._print(a) for a in expr.args)

    def emptyPrinter(self, expr) -> str:  # noqa: N802 (sympy's name)
        raise NotImplementedError(f"no Typst printing for {type(expr).__name__}")


def typst_math(expr: Any, mul_dot: bool = False) -> str:
    """`expr` (a sympy expression) as Typst math, e.g. ``floor(frac(R_"SM", T r))``."""
    return TypstPrinter(mul_dot=mul_dot).doprint(expr)
