"""A small one-line Unicode printer for the terminal: ⌊R_SM/(T·r)⌋, ⌈T/32⌉, min(B_R, B_S, B_W, B_max).

A subclass of sympy's `StrPrinter` with the ``_print_<Class>`` methods where the notes write a
formula differently from sympy's ``str``. This module imports sympy; `quizgen.render.math` imports
it only when a formula is printed afresh (the printed formulas ship in ``formulas.json``).
"""

from __future__ import annotations

from sympy import Add, Mul, Pow, S
from sympy.printing.str import StrPrinter

__all__ = ["UnicodePrinter"]


class UnicodePrinter(StrPrinter):
    """Print sympy expressions on one line with ⌊⌋, ⌈⌉, · and min(), as the notes write them:
    terms and factors in the order the formula was written."""

    _default_settings = {**StrPrinter._default_settings, "order": "none"}

    def _print_floor(self, expr):
        return "⌊" + self._print(expr.args[0]) + "⌋"

    def _print_ceiling(self, expr):
        return "⌈" + self._print(expr.args[0]) + "⌉"

    def _print_Min(self, expr):
        return "min(" + ", ".join(self._print(a) for a in expr.args) + ")"

    def _print_Max(self, expr):
        return "max(" + ", ".join(self._print(a) for a in expr.args) + ")"

    def _print_Mul(self, expr):
        args = list(expr.args)
        if args and args[0] == S.NegativeOne and len(args) > 1:
            rest = Mul(*args[1:], evaluate=False)
            text = self._print(rest)
            if isinstance(rest, Add):
                text = "(" + text + ")"
            return "-" + text
        num, den = [], []
        for factor in expr.args:
            if isinstance(factor, Pow) and factor.exp.is_negative:
                base = factor.base if factor.exp == S.NegativeOne else Pow(factor.base, -factor.exp)
                den.append(base)
            else:
                num.append(factor)

        top = self._product(num)
        if not den:
            return top
        bottom = self._product(den)
        if len(den) > 1 or isinstance(den[0], (Mul, Add)):
            bottom = "(" + bottom + ")"
        return top + "/" + bottom

    def _product(self, parts) -> str:
        """Factors joined by ·, a sum among them in parentheses; 1 for none."""
        if not parts:
            return "1"
        texts = []
        for part in parts:
            text = self._print(part)
            if isinstance(part, Add):
                text = "(" + text + ")"
            texts.append(text)
        return "·".join(texts)

    def _print_Add(self, expr, order=None):
        terms = list(expr.args)
        out = self._print(terms[0])
        for term in terms[1:]:
            text = self._print(term)
            if text.startswith("-"):
                out += " - " + text[1:]
            else:
                out += " + " + text
        return out

    def _print_Pow(self, expr):
        if expr.exp == S.NegativeOne:
            return "1/" + self.parenthesize(expr.base, 60)
        return super()._print_Pow(expr)

    def _print_Symbol(self, expr):
        return expr.name

