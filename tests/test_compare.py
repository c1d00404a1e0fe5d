"""Grading one read answer by the kind of quantity asked: correct, wrong or invalid, and why."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizgen.errors import QuizgenError
from quizgen.grade.compare import Verdict, compare
from quizgen.grade.notes import note_text
from quizgen.grade.parse import parse_answer

# text, expected, kind, status, value_used, words in the note (None: no note)
CASES = [
    # count: exact whole numbers, count units welcome, other units wrong with a reason
    ("8", 8, "count", "correct", F(8), None),
    ("8.0", 8, "count", "correct", F(8), None),
    ("8 blocks", 8, "count", "correct", F(8), None),
    ("8 warps", 8, "count", "correct", F(8), None),
    ("16/2", 8, "count", "correct", F(8), None),
    ("65536/(256*32)", 8, "count", "correct", F(8), None),
    ("min(8, 2, 8)", 2, "count", "correct", F(2), None),
    ("ceil(100/32)", 4, "count", "correct", F(4), None),
    ("8", 8.0, "count", "correct", F(8), None),
    ("8", F(8), "count", "correct", F(8), None),
    ("7", 8, "count", "wrong", F(7), None),
    ("8.5", 8, "count", "wrong", F(17, 2), ["whole number"]),
    ("8.001", 8, "count", "wrong", F(8001, 1000), ["whole number"]),
    ("8 KB", 8, "count", "wrong", F(8192), ["bytes", "count"]),
    ("8 B", 8, "count", "wrong", F(8), ["bytes", "count"]),
    ("8 cycles", 8, "count", "wrong", F(8), ["cycles", "count"]),
    ("8%", 8, "count", "wrong", F(8, 100), ["%"]),
    ("8x", 8, "count", "wrong", F(8), ["ratio", "count"]),
    ("eight", 8, "count", "invalid", None, ["'eight'", "column 1"]),
    ("1,5", 1, "count", "invalid", None, ["ambiguous comma"]),
    # fraction: [0, 1] quantities; a bare 1 < v ≤ 100 is a percentage
    ("0.25", 0.25, "fraction", "correct", F(1, 4), None),
    (".25", 0.25, "fraction", "correct", F(1, 4), None),
    ("25%", 0.25, "fraction", "correct", F(1, 4), None),
    ("25 percent", 0.25, "fraction", "correct", F(1, 4), None),
    ("16/64", 0.25, "fraction", "correct", F(1, 4), None),
    ("1/4", F(1, 4), "fraction", "correct", F(1, 4), None),
    ("25", 0.25, "fraction", "correct", F(1, 4), ["read 25 as 25%"]),
    ("37.5", 0.375, "fraction", "correct", F(3, 8), ["read 37.5 as 37.5%"]),
    ("100", 1, "fraction", "correct", F(1), ["read 100 as 100%"]),
    ("1", 1, "fraction", "correct", F(1), None),
    ("0", 0, "fraction", "correct", F(0), None),
    ("0.333", F(1, 3), "fraction", "correct", F(333, 1000), None),
    ("33.3%", F(1, 3), "fraction", "correct", F(333, 1000), None),
    ("0.2505", 0.25, "fraction", "correct", F(501, 2000), None),     # edge of 0.0005, inclusive
    ("0.2506", 0.25, "fraction", "wrong", F(1253, 5000), None),
    ("0.33", F(1, 3), "fraction", "wrong", F(33, 100), None),
    ("30", 0.25, "fraction", "wrong", F(3, 10), ["read 30 as 30%"]),
    ("150", 0.5, "fraction", "wrong", F(150), ["between 0 and 1"]),
    ("-0.25", 0.25, "fraction", "wrong", F(-1, 4), ["between 0 and 1"]),
    ("0.5", 0.25, "fraction", "wrong", F(1, 2), None),
    ("1", 0.01, "fraction", "wrong", F(1), None),        # 1 is a fraction (100%), not 1%
    ("32 warps", 0.5, "fraction", "wrong", F(32), ["warps", "fraction"]),
    ("zero point five", 0.5, "fraction", "invalid", None, ["'zero'"]),
    # percent: expected in percent; a bare 0..1 that matches ×100 is a fraction
    ("25", 25, "percent", "correct", F(25), None),
    ("25%", 25, "percent", "correct", F(25), None),
    ("37.5 %", 37.5, "percent", "correct", F(75, 2), None),
    ("0.25", 25, "percent", "correct", F(25), ["read 0.25 as 25%"]),
    ("16/64", 25, "percent", "correct", F(25), ["read 16/64 as 25%"]),
    ("1", 100, "percent", "correct", F(100), ["read 1 as 100%"]),
    ("0.5", 0.5, "percent", "correct", F(1, 2), None),   # half a percent, read as written
    ("33.33", F(100, 3), "percent", "correct", F(3333, 100), None),
    ("33.3", F(100, 3), "percent", "correct", F(333, 10), None),  # as 0.333 for a fraction
    ("33.2", F(100, 3), "percent", "wrong", F(166, 5), None),
    ("0.3", 25, "percent", "wrong", F(3, 10), None),
    ("30%", 25, "percent", "wrong", F(30), None),
    ("25 blocks", 25, "percent", "wrong", F(25), ["blocks", "percentage"]),
    # ratio (slowdown)
    ("2", 2, "ratio", "correct", F(2), None),
    ("2x", 2, "ratio", "correct", F(2), None),
    ("2.0×", 2, "ratio", "correct", F(2), None),
    ("2 x slower", 2, "ratio", "correct", F(2), None),
    ("(100+100)/100", 2, "ratio", "correct", F(2), None),
    ("2.33", F(7, 3), "ratio", "correct", F(233, 100), None),
    ("7/3", F(7, 3), "ratio", "correct", F(7, 3), None),
    ("2.3", F(7, 3), "ratio", "wrong", F(23, 10), None),
    ("1.5x", 2, "ratio", "wrong", F(3, 2), None),
    ("200%", 2, "ratio", "wrong", F(2), ["%", "ratio"]),
    ("2 cycles", 2, "ratio", "wrong", F(2), ["cycles", "ratio"]),
    # bytes
    ("49152", 49152, "bytes", "correct", F(49152), None),
    ("49,152 B", 49152, "bytes", "correct", F(49152), None),
    ("48 KB", 49152, "bytes", "correct", F(49152), None),
    ("48 KiB", 49152, "bytes", "correct", F(49152), None),
    ("48K", 49152, "bytes", "correct", F(49152), None),
    ("48*1024", 49152, "bytes", "correct", F(49152), None),
    ("48", 49152, "bytes", "wrong", F(48), ["48 KB would be 49,152 B"]),
    ("48000", 49152, "bytes", "wrong", F(48000), None),
    ("48 warps", 49152, "bytes", "wrong", F(48), ["warps", "bytes"]),
    # cycles
    ("400", 400, "cycles", "correct", F(400), None),
    ("400 cycles", 400, "cycles", "correct", F(400), None),
    ("400 cyc", 400, "cycles", "correct", F(400), None),
    ("4*100", 400, "cycles", "correct", F(400), None),
    ("401", 400, "cycles", "wrong", F(401), None),
    ("400 B", 400, "cycles", "wrong", F(400), ["bytes", "cycles"]),
    # real: 0.1% of the expected value, at least 0.0005
    ("3.1416", 3.14159, "real", "correct", F(3927, 1250), None),
    ("3.14", 3.14159, "real", "correct", F(157, 50), None),
    ("3.13", 3.14159, "real", "wrong", F(313, 100), None),
    ("1000.9", 1000, "real", "correct", F(10009, 10), None),
    ("1001.1", 1000, "real", "wrong", F(10011, 10), None),
    ("0.0004", 0, "real", "correct", F(4, 10_000), None),
    ("50%", 0.5, "real", "correct", F(1, 2), None),
    ("12 warps", 12, "real", "correct", F(12), None),
]


@pytest.mark.parametrize("text, expected, kind, status, used, words", CASES)
def test_compare_table(text, expected, kind, status, used, words):
    verdict = compare(parse_answer(text), expected, kind=kind)
    assert (verdict.status, verdict.value_used) == (status, used)
    if words is None:
        assert verdict.note is None
    else:
        for word in words:
            assert word in note_text(verdict.note, "en")


@pytest.mark.parametrize("text, expected, kind, tolerance, status", [
    ("9", 8, "count", 1, "correct"),
    ("10", 8, "count", 1, "wrong"),
    ("0.26", 0.25, "fraction", 0.01, "correct"),
    ("0.27", 0.25, "fraction", 0.01, "wrong"),
    ("26", 0.25, "fraction", 0.01, "correct"),           # 26 → 26%, within 0.01
    ("0.2505", 0.25, "fraction", 0, "wrong"),
    ("24", 25, "percent", 1, "correct"),
    ("0.24", 25, "percent", 1, "correct"),
    ("2.3", F(7, 3), "ratio", 0.05, "correct"),
    ("1000.9", 1000, "real", 0.5, "wrong"),
    ("3.14", 3.14159, "real", 0.001, "wrong"),
    ("405", 400, "cycles", 5, "correct"),
])
def test_explicit_tolerance_replaces_the_default(text, expected, kind, tolerance, status):
    assert compare(parse_answer(text), expected, kind=kind, tolerance=tolerance).status == status


@pytest.mark.parametrize("text, unit, status, words", [
    ("8 warps", "warps", "correct", None),
    ("8 warp", "warp", "correct", None),
    ("8", "warps", "correct", None),
    ("8 blocks", "warps", "wrong", ["blocks", "warps"]),
    ("8 threads", "warps", "wrong", ["threads", "warps"]),
    ("8 lanes", "Lanes", "correct", None),
    ("8 lanes", "threads", "wrong", ["lanes", "threads"]),
    ("8 KB", "warps", "wrong", ["bytes"]),
])
def test_expected_unit_separates_counts(text, unit, status, words):
    verdict = compare(parse_answer(text), 8, kind="count", unit=unit)
    assert verdict.status == status
    if words:
        assert all(word in note_text(verdict.note, "en") for word in words)


def test_invalid_keeps_the_readers_message_and_scores_nothing():
    verdict = compare(parse_answer("8 abc"), 8, kind="count")
    assert (verdict.status, verdict.value_used) == ("invalid", None)
    assert note_text(verdict.note, "en") == "unexpected 'abc' at column 3: not a known unit"


def test_raw_text_is_read_first():
    assert compare("25%", 0.25, kind="fraction") == compare(parse_answer("25%"), 0.25,
                                                            kind="fraction")
    assert compare("__import__('os')", 1, kind="count").status == "invalid"


def test_float_expected_is_taken_at_its_decimal_value():
    # 0.1 as a float is not 1/10 in binary; the grader compares with the decimal the key shows.
    assert compare("1/10", 0.1, kind="count").status == "correct"
    assert compare("0.3", 0.1 + 0.2, kind="bytes").status == "wrong"   # 0.30000000000000004


@pytest.mark.parametrize("kwargs, field", [
    ({"kind": "banana"}, "kind"),
    ({"kind": "count", "expected": float("nan")}, "expected"),
    ({"kind": "count", "expected": float("inf")}, "expected"),
    ({"kind": "count", "expected": True}, "expected"),
    ({"kind": "count", "expected": "eight"}, "expected"),
    ({"kind": "count", "expected": None}, "expected"),
    ({"kind": "count", "tolerance": -1}, "tolerance"),
])
def test_malformed_grading_data_is_a_one_line_error(kwargs, field):
    kwargs = {"expected": 8, **kwargs}
    expected = kwargs.pop("expected")
    with pytest.raises(QuizgenError) as info:
        compare(parse_answer("8"), expected, **kwargs)
    assert info.value.field == field and "\n" not in str(info.value)


@given(st.integers(min_value=0, max_value=10_000), st.integers(min_value=1, max_value=10_000))
def test_fraction_forms_agree(num, den):
    # For any occupancy-like value, the fraction, decimal and percent forms grade alike.
    if num > den:
        num, den = den, num
    expected = F(num, den)
    forms = [f"{num}/{den}", f"{float(expected):.6f}", f"{float(expected * 100):.4f}%"]
    for form in forms:
        assert compare(parse_answer(form), expected, kind="fraction").status == "correct", form
    for form in [f"{float(expected * 100):.4f}", f"{float(expected * 100):.4f} %",
                 f"{float(expected):.6f}", f"{num}/{den}"]:
        assert compare(parse_answer(form), expected * 100, kind="percent").status == "correct", form


@given(st.integers(min_value=0, max_value=2**20), st.integers(min_value=1, max_value=5))
def test_counts_are_exact(n, delta):
    assert compare(parse_answer(f"{n:,}"), n, kind="count").status == "correct"
    assert compare(parse_answer(str(n + delta)), n, kind="count").status == "wrong"
    assert compare(parse_answer(f"{n} blocks"), n, kind="count").status == "correct"


def test_a_note_is_written_in_the_readers_language():
    verdict = compare(parse_answer("48"), 48 * 1024, kind="bytes")
    assert note_text(verdict.note, "en") == "read 48 as bytes; 48 KB would be 49,152 B"
    assert note_text(verdict.note, "hinglish") == "48 ko bytes padha; 48 KB hota toh 49,152 B banta"
