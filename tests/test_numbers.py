"""The one number formatter: each form, and its separators inside each printer's math."""

from __future__ import annotations

import pytest

from quizgen.render import numbers
from quizgen.render.math import substituted


@pytest.mark.parametrize("value, text", [
    (0, "0"), (999, "999"), (1000, "1,000"), (9750, "9,750"), (65536, "65,536"),
    (-1024, "-1,024"), (1234567, "1,234,567"), (4096.0, "4,096"), (0.375, "0.375"),
    (1 / 3, "0.3333"), (1234.5, "1,234.5"), (float("inf"), "∞"), (True, "True"), ("x", "x"),
])
def test_number(value, text):
    assert numbers.number(value) == text


@pytest.mark.parametrize("call, text", [
    (lambda: numbers.count(9750), "9,750"),
    (lambda: numbers.percent(0.9375), "93.75%"),
    (lambda: numbers.percent(2 / 3), "66.667%"),
    (lambda: numbers.percent(64 / 300, 1), "21.3%"),
    (lambda: numbers.percent(12.5), "1,250%"),
    (lambda: numbers.kb(49152), "48 KB"),
    (lambda: numbers.kb(1000), "0.98 KB"),
    (lambda: numbers.size(49152), "48 KB"),
    (lambda: numbers.size(49000), "49,000 B"),
    (lambda: numbers.size(2048 * 1024), "2,048 KB"),
    (lambda: numbers.times(1.5), "1.5×"),
    (lambda: numbers.times(4 / 3), "1.33×"),
    (lambda: numbers.decimal(3.10, 2), "3.1"),
    (lambda: numbers.decimal(-0.00001, 2), "0"),
])
def test_forms(call, text):
    assert call() == text


@pytest.mark.parametrize("target, text", [
    ("latex", "65{,}536"), ("typst", '65class("normal", ",")536'), ("unicode", "65,536"),
])
def test_separator_inside_math(target, text):
    assert numbers.math_number(65536, target) == text
    assert numbers.math_number(512, target) == "512"
    # a list's ", " is not a digit group
    assert numbers.in_math("(1, 200, 3)", target) == "(1, 200, 3)"


def test_formulas_print_grouped_counts_for_each_printer():
    values = {"R_SM": 65536, "T": 256, "r": 64}
    assert "65{,}536" in substituted("blocks_by_regs", values, "latex")
    assert '65class("normal", ",")536' in substituted("blocks_by_regs", values, "typst")
    assert "65,536" in substituted("blocks_by_regs", values, "unicode")
