"""The Typst math printer (a table of expression → output, like sympy's printer tests), the
escaping of user text, and every registered formula compiled by real Typst."""

from __future__ import annotations

import io
import string

import pypdf
import pytest
import sympy
import typst
from sympy import Abs, Eq, Float, Integer, Le, Max, Min, Mul, Piecewise, Pow, Rational, Symbol
from sympy import ceiling, floor, oo, sqrt

from quizgen.engine import formulas
from quizgen.render.math import substituted, symbolic
from quizgen.render.typst import typst_escape, typst_string
from quizgen.render.typst_printer import TypstPrinter, typst_math

a, b, c, x, n, r, T = (Symbol(s, positive=True) for s in "abcxnrT")
R_SM, W_max, g_R, s_static = (Symbol(s, positive=True) for s in ("R_SM", "W_max", "g_R", "s_static"))


def _m(*args):
    return Mul(*args, evaluate=False)


def _p(base, exp):
    return Pow(base, exp, evaluate=False)


CASES = [
    # symbols: subscripts, quoted multi-letter names, placeholders, Greek
    (x, "x"),
    (R_SM, 'R_"SM"'),
    (W_max, 'W_"max"'),
    (g_R, "g_R"),
    (s_static, 's_"static"'),
    (Symbol("x_10"), "x_10"),
    (Symbol("alpha"), "alpha"),
    (Symbol("eta_c"), "eta_c"),
    (Symbol("IPC"), '"IPC"'),
    (Symbol("qzab"), "qzab"),
    (Symbol('a"b'), '"a\\"b"'),
    # numbers
    (Integer(65536), "65536"),
    (Integer(-3), "-3"),
    (Rational(1, 3), "frac(1, 3)"),
    (Rational(-2, 3), "-frac(2, 3)"),
    (Float(0.375), "0.375"),
    (Float(2.0), "2"),
    (oo, "infinity"),
    # sums and products
    (a + b, "a + b"),
    (sympy.Add(a, _m(Integer(-1), b), evaluate=False), "a - b"),
    (sympy.Add(a, _m(Integer(-2), b), evaluate=False), "a - 2 b"),
    (sympy.Add(a, Integer(-1), evaluate=False), "a - 1"),
    (_m(T, r), "T r"),
    (_m(Integer(32), r), "32 r"),
    (_m(Integer(2), Integer(3)), "2 dot 3"),
    (_m(r, Integer(32)), "r dot 32"),
    (_m(a, sympy.Add(b, c, evaluate=False)), "a (b + c)"),
    (_m(Integer(-1), a), "-a"),
    (_m(Symbol("qzaa"), Symbol("qzab")), "qzaa dot qzab"),
    # division
    (_m(a, _p(b, -1)), "frac(a, b)"),
    (_m(R_SM, _p(_m(T, r), -1)), 'frac(R_"SM", T r)'),
    (_m(sympy.Add(a, b, evaluate=False), _p(c, -1)), "frac(a + b, c)"),
    (_m(Integer(-1), a, _p(b, -1)), "-frac(a, b)"),
    (_m(c, Symbol("S_SM"), _p(Integer(100), -1)), 'frac(c S_"SM", 100)'),
    (_p(x, -1), "frac(1, x)"),
    (_m(Rational(1, 2), x), "frac(x, 2)"),
    # powers and roots
    (_p(x, 2), "x^2"),
    (_p(sympy.Add(a, b, evaluate=False), 2), "(a + b)^2"),
    (_p(x, sympy.Add(n, 1, evaluate=False)), "x^(n + 1)"),
    (_p(x, n), "x^n"),
    (sqrt(x), "sqrt(x)"),
    (_p(x, Rational(1, 3)), "root(3, x)"),
    # functions the formulas use
    (floor(_m(T, _p(Integer(32), -1)), evaluate=False), "floor(frac(T, 32))"),
    (ceiling(_m(T, _p(Integer(32), -1)), evaluate=False), "ceil(frac(T, 32))"),
    (_m(ceiling(_m(Integer(32), r, _p(g_R, -1)), evaluate=False), g_R), "ceil(frac(32 r, g_R)) g_R"),
    (Min(a, b, c, evaluate=False), "min(a, b, c)"),
    (Max(Integer(0), sympy.Add(a, _m(Integer(-1), b), evaluate=False), evaluate=False),
     "max(0, a - b)"),
    (Abs(Symbol("x", real=True)), "abs(x)"),
    (sympy.Function("f")(x), "f(x)"),
    (sympy.Function("speed")(x), 'op("speed")(x)'),
    # relations and cases
    (Eq(x, 1, evaluate=False), "x = 1"),
    (Le(x, 1, evaluate=False), "x <= 1"),
    (Piecewise((a, Symbol("y", real=True) < 1), (b, True)), 'cases(a & "if " y < 1, b & "otherwise")'),
    (sympy.Sum(Symbol("i"), (Symbol("i"), 1, n)), "sum_(i = 1)^(n) i"),
]


@pytest.mark.parametrize("expr, expected", CASES, ids=[e for _, e in CASES])
def test_printer_table(expr, expected):
    assert typst_math(expr) == expected


def test_mul_dot_writes_every_product_with_a_dot():
    assert typst_math(_m(T, r), mul_dot=True) == "T dot r"
    assert typst_math(_m(Integer(32), r), mul_dot=True) == "32 dot r"
    assert TypstPrinter(mul_dot=True).doprint(_m(a, _p(_m(b, c), -1))) == "frac(a, b dot c)"


def test_unknown_node_is_an_error_not_garbage():
    with pytest.raises(NotImplementedError):
        typst_math(sympy.Matrix([[1]]))


def _compile(body: str) -> str:
    pdf = typst.compile(body.encode("utf-8"))
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    return "\n".join(page.extract_text() for page in reader.pages)


def test_table_outputs_compile_in_typst():
    # placeholders (qz..) are replaced by numbers before Typst sees them
    body = "\n".join(f"$ {expected} $" for _, expected in CASES if "qz" not in expected)
    text = _compile(body)
    assert "⌊" in text and "⌈" in text and "∞" in text and "min" in text


def _values_for(name: str) -> dict:
    # distinct numbers so that a wrong substitution shows; ∞ where a limit can be absent
    syms = list(formulas.symbols_of(name))
    values = {s: 101 + 7 * i for i, s in enumerate(syms)}
    if name.startswith("blocks_per_sm"):
        values[syms[0]] = "∞"
    return values


def test_every_formula_prints_and_compiles():
    names = list(formulas.sources())
    assert "blocks_by_regs" in names
    lines = []
    for name in names:
        sym = symbolic(name, "typst")
        values = _values_for(name)
        sub = substituted(name, values, "typst")
        assert "qz" not in sub, name   # every placeholder replaced
        for value in values.values():
            assert str(value) in sub, (name, value)
        lines.append(f"$ {sym} = {sub} $")
    text = _compile("\n\n".join(lines))
    assert text.count("=") >= len(names)
    assert "65536" not in text and "∞" in text


def test_substituted_typst_known_output():
    assert symbolic("blocks_by_regs", "typst") == 'floor(frac(R_"SM", T r))'
    assert substituted("blocks_by_regs", {"R_SM": 65536, "T": 256, "r": 32}, "typst") == \
        'floor(frac(65class("normal", ",")536, 256 dot 32))'
    assert substituted("blocks_per_sm", {"B_R": "∞", "B_S": 4, "B_W": 8, "B_max": 32}, "typst") == \
        "min(∞, 4, 8, 32)"


# ---------------------------------------------------------------------------------------------
# Escaping

HOSTILE = [
    "#import \"x\": *",
    "#read(\"/etc/passwd\")",
    "$ x $",
    "*bold* _emph_ `raw` <label> @ref [content] \\ back~tie",
    "// a comment",
    "/* block */",
    "= Heading",
    "- item",
    "+ item",
    "/ Term: x",
    "1. enum",
    "'single' \"double\" -- --- ... ",
    "a#b$c*d_e[f]g\\h<i>j@k`l~m",
    "https://example.com",
    "#{panic(\"no\")}",
    "\\u{41} \\#",
]


def test_escape_escapes_every_punctuation_character():
    escaped = typst_escape(string.punctuation)
    assert escaped == "".join("\\" + ch for ch in string.punctuation)
    assert typst_escape("Asha Rao") == "Asha Rao"
    assert typst_escape("राम") == "राम"
    assert typst_escape("a\x00b\x1bc") == "abc"


def test_escaped_markup_prints_literally():
    marker = "QZMARK"
    body = "\n\n".join(f"{marker} {typst_escape(h)} {marker}" for h in HOSTILE)
    text = _compile(body)
    found = [line.split(marker)[1].strip() for line in text.splitlines() if line.count(marker) == 2]
    assert found == [" ".join(h.split()) for h in HOSTILE]


def test_string_literal_prints_literally():
    body = "\n\n".join(f"#{typst_string(h)}" for h in HOSTILE + ["new\nline", "tab\there"])
    text = _compile(body)
    for h in HOSTILE:
        assert " ".join(h.split()) in " ".join(text.split())
    assert typst_string('say "hi" \\ now') == '"say \\"hi\\" \\\\ now"'
    assert typst_string("a\nb\x01") == '"a\\nb\\u{1}"'
