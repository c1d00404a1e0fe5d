"""Printing the engine's formulas: symbolic and with numbers substituted, in several languages.

One formula, written once (``quizgen.engine.formulas``), prints everywhere it is shown:

* LaTeX for Anki cards and Markdown (sympy's own printer),
* MathML for the HTML pages a person opens (feedback, ``generate --format html``): browsers
  typeset it themselves, so the math reads offline (sympy's presentation printer),
* plain Unicode for the terminal (``quizgen.render.unicode_printer``),
* Typst for PDFs (``quizgen.render.typst``).

Substitution never calls sympy per problem. For each (formula, printer) pair we print once a
*template* in which every symbol is replaced by a placeholder symbol whose name sorts like the
original (so sympy orders factors the same way), then fill placeholders with numbers by plain string
replacement. Printing ``floor(R_SM/(T*r))`` at 65536, 256, 32 costs a dict lookup and a few
``str.replace`` calls.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any, Callable

from quizgen.engine import formulas
from quizgen.render.numbers import math_number

_PLACEHOLDER_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _placeholder(i: int) -> str:
    return "qz" + _PLACEHOLDER_LETTERS[i // 26] + _PLACEHOLDER_LETTERS[i % 26]


def format_number(value: Any, target: str = "unicode") -> str:
    """A number as a person writes it in a formula printed for `target`: 65,536 (LaTeX
    ``65{,}536``, MathML ``<mn>65,536</mn>``), 0.375, 1/3 → 0.3333, ∞ (see
    `quizgen.render.numbers`)."""
    if target == "mathml":
        text = math_number(value, "unicode")
        return "<mi>∞</mi>" if text == "∞" else mathml_text(text)
    return math_number(value, target)


def mathml_text(text: str) -> str:
    """A number or a short text as a MathML token: ``<mn>`` for a number, ``<mtext>`` else."""
    import html

    plain = text.replace(",", "").replace(".", "", 1).lstrip("-")
    tag = "mn" if plain.isdigit() else "mtext"
    return f"<{tag}>{html.escape(text, quote=False)}</{tag}>"


# ---------------------------------------------------------------------------------------------
# Printers


def _latex_printer(mul_dot: bool) -> Callable[[Any], str]:
    import sympy

    def print_latex(expr) -> str:
        return sympy.latex(expr, mul_symbol="dot" if mul_dot else None, fold_short_frac=False,
                           order="none")

    return print_latex


def _mathml_printer(mul_dot: bool) -> Callable[[Any], str]:
    from sympy.printing.mathml import mathml

    def print_mathml(expr) -> str:
        return mathml(expr, printer="presentation", mul_symbol="dot" if mul_dot else None,
                      order="none").replace("&InvisibleTimes;", "&#8290;")

    return print_mathml


def _unicode_printer(mul_dot: bool) -> Callable[[Any], str]:
    # The notes write every product with a dot, symbols or numbers: ⌈T/32⌉·32, 256·32.
    from quizgen.render.unicode_printer import UnicodePrinter

    return UnicodePrinter().doprint


def _printer(target: str, substituted: bool) -> Callable[[Any], str]:
    if target == "latex":
        return _latex_printer(substituted)
    if target == "unicode":
        return _unicode_printer(substituted)
    if target == "mathml":
        return _mathml_printer(substituted)
    if target == "typst":
        from quizgen.render.typst_printer import typst_math

        return lambda expr: typst_math(expr, mul_dot=substituted)
    raise ValueError(f"unknown math target {target!r}")


TARGETS = ("latex", "unicode", "typst", "mathml")
CACHE_FILE = Path(__file__).resolve().parent.parent / "data" / "formulas.json"


@cache
def _printed_cache() -> dict[str, Any]:
    """Printed formulas shipped with the package (made by `write_cache`), so that showing a
    worked solution needs no sympy at run time. An entry is used only while its source matches
    the formula registry's; a changed or new formula is printed by sympy instead."""
    try:
        data = json.loads(CACHE_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    out = {}
    registry = formulas.sources()
    for name, entry in data.get("formulas", {}).items():
        spec = registry.get(name)
        if spec is not None and entry.get("source") == spec[0] and entry.get("symbols") == list(spec[1]):
            out[name] = entry
    return out


@cache
def symbolic(name: str, target: str = "latex") -> str:
    """Formula `name` in symbols, e.g. ``\\left\\lfloor{\\frac{R_{SM}}{T r}}\\right\\rfloor``."""
    entry = _printed_cache().get(name)
    if entry is not None and target in entry["targets"]:
        return entry["targets"][target]["symbolic"]
    return _symbolic_sympy(name, target)


def _symbolic_sympy(name: str, target: str) -> str:
    return _printer(target, False)(formulas.expression(name))


@cache
def _template(name: str, target: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    entry = _printed_cache().get(name)
    if entry is not None and target in entry["targets"]:
        printed = entry["targets"][target]
        return printed["template"], tuple((ph, sym) for ph, sym in printed["pairs"])
    return _template_sympy(name, target)


def _template_sympy(name: str, target: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    import sympy

    expr = formulas.expression(name)
    syms = formulas.symbols_of(name)
    ordered = sorted(syms, key=lambda s: sympy.default_sort_key(syms[s]))
    mapping = {}
    pairs = []
    for i, sym_name in enumerate(ordered):
        ph = _placeholder(i)
        mapping[syms[sym_name]] = sympy.Symbol(ph, positive=True)
        pairs.append((ph, sym_name))
    with sympy.evaluate(False):
        replaced = expr.xreplace(mapping)
    text = _printer(target, True)(replaced)
    return text, tuple(pairs)


def substituted(name: str, values: dict[str, Any], target: str = "latex") -> str:
    """Formula `name` with numbers in place of its symbols (cheap: string replacement). In a
    formula with min or max the numbers are not grouped: the argument list's commas already
    separate (min(3250, 40), never min(3,250, 40))."""
    text, pairs = _template(name, target)
    arguments = "min" in text or "max" in text
    for ph, sym_name in pairs:
        if sym_name in values:
            number = format_number(values[sym_name] if not arguments else _plain(values[sym_name]),
                                   target)
            if number == "∞" and target == "latex":
                number = r"\infty"
            if target == "mathml":   # the placeholder is a whole <mi> token; the number takes its place
                text = text.replace(f"<mi>{ph}</mi>", number)
            else:
                text = text.replace(ph, number)
    return text


def _plain(value: Any) -> Any:
    """A whole number as a string without group separators (in a min/max argument list)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 1000:
        return str(value)
    if isinstance(value, float) and value.is_integer() and abs(value) >= 1000:
        return str(int(value))
    return value


@cache
def symbol_latex(name: str) -> tuple[str, ...]:
    """Each symbol of formula `name` as LaTeX (R_SM → ``R_{SM}``), in the registry's order."""
    entry = _printed_cache().get(name)
    if entry is not None and "symbol_latex" in entry:
        return tuple(entry["symbol_latex"])
    return _symbol_latex_sympy(name)


def _symbol_latex_sympy(name: str) -> tuple[str, ...]:
    import sympy

    syms = formulas.symbols_of(name)
    return tuple(sympy.latex(syms[sym]) for sym in formulas.meaning(name))


def printed_formulas() -> dict[str, Any]:
    """Every formula printed by sympy in every target (what `write_cache` stores)."""
    out = {}
    for name, (source, meanings) in sorted(formulas.sources().items()):
        targets = {}
        for target in TARGETS:
            template, pairs = _template_sympy(name, target)
            targets[target] = {"symbolic": _symbolic_sympy(name, target), "template": template,
                               "pairs": [list(p) for p in pairs]}
        out[name] = {"source": source, "symbols": list(meanings), "targets": targets,
                     "symbol_latex": list(_symbol_latex_sympy(name))}
    return {"formulas": out}


def cache_text() -> str:
    """The contents of ``formulas.json`` made afresh: every formula printed by sympy (see
    `quizgen.build_data`)."""
    return json.dumps(printed_formulas(), ensure_ascii=False, indent=1, sort_keys=True) + "\n"
