"""The formula registry: every formula the engine uses, written once, as sympy source.

Each engine module declares ``FORMULAS = {name: (source, symbols)}`` where ``source`` is sympy
syntax and ``symbols`` maps each symbol name to a one-line meaning. This module collects them and
builds the sympy expressions lazily (once per process), so the solvers never touch sympy: they
record a formula's name and the numbers substituted, and printers (LaTeX, Typst, plain text) turn
that into math when a solution is shown.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

#: Engine modules that declare FORMULAS; their names are collected into one registry.
FORMULA_MODULES = (
    "quizgen.engine.occupancy",
    "quizgen.engine.warps",
    "quizgen.engine.latency",
    "quizgen.engine.flight",
    "quizgen.engine.divergence",
    "quizgen.engine.grid",
    "quizgen.engine.bound",
    "quizgen.engine.inverse",
    "quizgen.engine.whatif",
    "quizgen.engine.compare",
    "quizgen.engine.code_steps",
    "quizgen.engine.barrier",
)


@cache
def sources() -> dict[str, tuple[str, dict[str, str]]]:
    """name → (sympy source, {symbol: meaning}) across every engine module."""
    out: dict[str, tuple[str, dict[str, str]]] = {}
    for module_name in FORMULA_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:  # a module not written yet
            if exc.name == module_name:
                continue
            raise
        for name, spec in getattr(module, "FORMULAS", {}).items():
            if name in out:
                raise RuntimeError(f"formula {name!r} declared twice")
            out[name] = spec
    return out


@cache
def shares() -> frozenset[str]:
    """The formulas whose result is a share from 0 to 1 (each module's ``SHARES``): a worked
    solution writes such a result with its percentage, 0.375 = 37.5%."""
    names: set[str] = set()
    for module_name in FORMULA_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                continue
            raise
        names.update(getattr(module, "SHARES", ()))
    return frozenset(names)


@cache
def symbols_of(name: str) -> dict[str, Any]:
    """The sympy symbols of formula `name`, by name (positive integers unless marked)."""
    import sympy

    _, meanings = sources()[name]
    return {sym: sympy.Symbol(sym, positive=True) for sym in meanings}


@cache
def expression(name: str):
    """The sympy expression of formula `name` (built once)."""
    import sympy
    from sympy.parsing.sympy_parser import parse_expr

    source, _ = sources()[name]
    local = dict(symbols_of(name))
    local.update({"floor": sympy.floor, "ceiling": sympy.ceiling, "Min": sympy.Min,
                  "Max": sympy.Max, "Sum": sympy.Sum, "Piecewise": sympy.Piecewise})
    return parse_expr(source, local_dict=local, evaluate=False)


def meaning(name: str) -> dict[str, str]:
    return dict(sources()[name][1])


def evaluate(name: str, values: dict[str, Any]):
    """Evaluate formula `name` at `values` with sympy (tests use it to check the fast path)."""
    expr = expression(name)
    syms = symbols_of(name)
    return expr.subs({syms[k]: v for k, v in values.items() if k in syms}).doit()
