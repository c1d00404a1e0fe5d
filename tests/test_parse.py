"""The answer reader: every accepted form gives the exact value; hostile text is invalid, cheaply."""

from __future__ import annotations

import builtins
import re
from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quizgen.grade.parse import Parsed, parse_answer, parse_with_work
from quizgen.grade.reading import MAX_DEPTH, MAX_EXPONENT, MAX_LENGTH, MAX_MAGNITUDE
from quizgen.grade.tokens import KNOWN_WORDS
from quizgen.problems.specs import canonical_unit

# text, value, kind, unit
ACCEPTED = [
    # plain numbers
    ("8", F(8), "number", None),
    ("0", F(0), "number", None),
    ("0.375", F(3, 8), "number", None),
    (".5", F(1, 2), "number", None),
    ("5.", F(5), "number", None),
    ("-3", F(-3), "number", None),
    ("+3", F(3), "number", None),
    ("\u22128", F(-8), "number", None),               # unicode minus
    ("  42  ", F(42), "number", None),
    ("\u00a042\u00a0", F(42), "number", None),        # no-break spaces around
    ("\uff18\uff10", F(80), "number", None),          # full-width digits
    ("\u096e", F(8), "number", None),                 # Devanagari eight
    ("1e3", F(1000), "number", None),
    ("2.5E-2", F(1, 40), "number", None),
    ("=8", F(8), "number", None),
    ("≈ 0.33", F(33, 100), "number", None),
    ("8 blocks.", F(8), "number", "blocks"),
    # thousands separators
    ("65,536", F(65536), "number", None),
    ("1,048,576", F(1048576), "number", None),
    ("1,234.5", F(2469, 2), "number", None),
    ("65 536", F(65536), "number", None),
    ("65\u202f536", F(65536), "number", None),        # narrow no-break space
    ("1 048 576", F(1048576), "number", None),
    ("65_536", F(65536), "number", None),
    ("1_0", F(10), "number", None),
    ("(1,000)", F(1000), "number", None),
    # fractions and percentages
    ("16/64", F(1, 4), "fraction", None),
    ("-1/4", F(-1, 4), "fraction", None),
    ("4 ⁄ 8", F(1, 2), "fraction", None),
    ("12÷4", F(3), "fraction", None),
    ("25%", F(1, 4), "percent", "%"),
    ("25 %", F(1, 4), "percent", "%"),
    ("37.5 percent", F(3, 8), "percent", "%"),
    ("37.5 per cent", F(3, 8), "percent", "%"),
    ("12.5 pct", F(1, 8), "percent", "%"),
    ("\uff12\uff15\uff05", F(1, 4), "percent", "%"),  # full-width 25%
    ("16/64 %", F(1, 400), "percent", "%"),
    ("100%", F(1), "percent", "%"),
    # units
    ("8 warps", F(8), "number", "warps"),
    ("1 warp", F(1), "number", "warps"),
    ("8 blocks", F(8), "number", "blocks"),
    ("8 Blocks/SM", F(8), "number", "blocks"),
    ("48 warps per SM", F(48), "number", "warps"),
    ("256 threads", F(256), "number", "threads"),
    ("24 lanes", F(24), "number", "lanes"),
    ("1024 regs", F(1024), "number", "registers"),
    ("64K registers", F(65536), "number", "registers"),
    ("40 instructions", F(40), "number", "instructions"),
    ("80 SMs", F(80), "number", "SMs"),
    ("4 waves", F(4), "number", "waves"),
    ("49152 B", F(49152), "number", "B"),
    ("49152 bytes", F(49152), "number", "B"),
    ("48 KB", F(49152), "number", "B"),
    ("48KB", F(49152), "number", "B"),
    ("48 kB", F(49152), "number", "B"),
    ("48 KiB", F(49152), "number", "B"),
    ("48K", F(49152), "number", "B"),
    ("1.5K", F(1536), "number", "B"),
    ("0.5 KB", F(512), "number", "B"),
    ("48 KB per block", F(49152), "number", "B"),
    ("2 MB", F(2 * 1024**2), "number", "B"),
    ("1 MiB", F(1024**2), "number", "B"),
    ("400 cycles", F(400), "number", "cycles"),
    ("400 cyc", F(400), "number", "cycles"),
    ("1 cycle", F(1), "number", "cycles"),
    ("2x", F(2), "number", "x"),
    ("2X", F(2), "number", "x"),
    ("2×", F(2), "number", "x"),
    ("2.0 ×", F(2), "number", "x"),
    ("2x slower", F(2), "number", "x"),
    ("3 times", F(3), "number", "x"),
    ("65536/(256*32) blocks", F(8), "expression", "blocks"),
    # expressions
    ("65536/(256*32)", F(8), "expression", None),
    ("65536 / (256 × 32)", F(8), "expression", None),
    ("256·32", F(8192), "expression", None),
    ("2 x 3", F(6), "expression", None),
    ("2x3", F(6), "expression", None),
    ("ceil(100/32)", F(4), "expression", None),
    ("CEIL(100/32)", F(4), "expression", None),
    ("ceiling(100/32)", F(4), "expression", None),
    ("⌈100/32⌉", F(4), "expression", None),
    ("floor(65536/33280)", F(1), "expression", None),
    ("⌊65536/33280⌋", F(1), "expression", None),
    ("floor(-1/2)", F(-1), "expression", None),
    ("min(8, 2, 8)", F(2), "expression", None),
    ("min(8,2,8)", F(2), "expression", None),
    ("max(3)", F(3), "expression", None),
    ("min(⌊65536/(64*256)⌋, ⌊98304/49152⌋, 64/8, 32)", F(2), "expression", None),
    ("max(65,536)", F(536), "expression", None),      # inside a call, a comma separates
    ("2^16", F(65536), "expression", None),
    ("2**16", F(65536), "expression", None),
    ("2¹⁶", F(65536), "expression", None),
    ("2⁻¹", F(1, 2), "expression", None),
    ("2^-1", F(1, 2), "expression", None),
    ("2^3^2", F(512), "expression", None),            # right-associative
    ("(2^3)^2", F(64), "expression", None),
    ("-2^2", F(-4), "expression", None),              # the power binds tighter than the sign
    ("2^64", F(2**64), "expression", None),
    ("3 - -2", F(5), "expression", None),
    ("1 + 2 * 3", F(7), "expression", None),
    ("(1 + 2) * 3", F(9), "expression", None),
    ("10 - 4 - 3", F(3), "expression", None),         # left-associative
    ("64 / 4 / 2", F(8), "expression", None),
    ("0.5/2", F(1, 4), "expression", None),
    ("(16/64)", F(1, 4), "fraction", None),
    ("1e30", F(10**30), "number", None),
]


@pytest.mark.parametrize("text, value, kind, unit", ACCEPTED)
def test_accepted_forms(text, value, kind, unit):
    parsed = parse_answer(text)
    assert parsed == Parsed(True, value, kind, unit, text, None)


# text, words that must appear in the error
INVALID = [
    ("", ["empty"]),
    ("   ", ["empty"]),
    ("abc", ["'abc'", "column 1"]),
    ("8 abc", ["'abc'", "column 3", "unit"]),
    ("1,5", ["ambiguous comma", "'1,5'", "column 2"]),
    ("0,375", ["ambiguous comma", "column 2"]),
    ("1,2345", ["ambiguous comma"]),
    ("12,345,67", ["ambiguous comma", "column 7"]),
    ("1234,567", ["ambiguous comma"]),
    ("8, 16", ["','", "column 2", "single answer"]),
    ("1/0", ["division by zero", "column 2"]),
    ("1/(2-2)", ["division by zero", "column 2"]),
    ("ceil(5/0)", ["division by zero", "column 7"]),
    ("0^-1", ["division by zero"]),
    ("1+", ["expected a number", "column 3"]),
    ("(1+2", ["missing ')'", "column 1"]),
    ("ceil(1", ["missing ')'", "column 5"]),
    ("⌈1/2", ["missing '⌉'"]),
    ("⌈1/2⌋", ["expected '⌉'", "column 5"]),
    ("1)", ["')'", "column 2"]),
    ("ceil 3", ["expected '('", "column 6"]),
    ("ceil(1, 2)", ["one argument"]),
    ("(1, 2)", ["','", "column 3"]),
    ("2^0.5", ["whole number", "column 2"]),
    ("2(3)", ["'('", "column 2"]),
    ("25%%", ["'%'", "column 4"]),
    ("%25", ["'%'", "column 1"]),
    ("8 blocks per", ["after 'per'"]),
    ("8 blocks/8", ["after '/'", "'8'"]),
    ("x2", ["'x'", "column 1"]),
    ("0x10", ["'0x10'", "decimal"]),
    ("1..2", ["'.'", "column 2"]),
    ("2 3", ["'3'", "column 3"]),
    ("8 wraps", ["'wraps'", "unit"]),
    ("8 b1ocks", ["'ocks'", "column 5"]),
    ("१,५", ["ambiguous comma"]),                      # Devanagari digits, decimal comma
]


@pytest.mark.parametrize("text, words", INVALID)
def test_invalid_forms_say_what_and_where(text, words):
    parsed = parse_answer(text)
    assert not parsed.ok and parsed.value is None and parsed.raw == text
    for word in words:
        assert word in str(parsed.error)


HUGE = "9" * 31
HOSTILE = [
    ("__import__('os').system('ls')", ["'__import__'", "column 1"]),
    ("os.system('rm -rf /')", ["'os'", "column 1"]),
    ("$(rm -rf ~)", ["'$'", "column 1"]),
    ("`ls`", ["'`'", "column 1"]),
    ("; DROP TABLE answers", ["';'", "column 1"]),
    ("lambda: 1", ["'lambda'"]),
    ("[x for x in ()]", ["'['", "column 1"]),
    ("exec('1')", ["'exec'"]),
    ("eval", ["'eval'"]),
    ("'a'*10**9", ["\"'\"", "column 1"]),
    ("{}.__class__", ["'{'"]),
    ("1 if 1 else 2", ["'if'"]),
    ("9**9**9", ["exponent", "too large", "column 2"]),
    ("2^1000", ["exponent 1000", f"at most {MAX_EXPONENT}"]),
    ("10^31", ["out of range"]),
    ("(10^20)*(10^20)", ["out of range", "column 8"]),
    ("2^64^64", ["out of range", "column 5"]),
    ((str(10**30) + "^64"), ["out of range", "column 32"]),
    ("1e999999", ["'1e999999'", "too large"]),
    ("1e-31", ["out of range"]),
    (HUGE, ["out of range", "column 1"]),
    ("0." + "0" * 40 + "1", ["out of range"]),
    ("(" * (MAX_DEPTH + 5) + "1" + ")" * (MAX_DEPTH + 5), ["too deeply nested"]),
    ("-" * (MAX_DEPTH + 5) + "1", ["too deeply nested"]),
    ("⌈" * (MAX_DEPTH + 1) + "1" + "⌉" * (MAX_DEPTH + 1), ["too deeply nested"]),
    ("2^" * (MAX_DEPTH + 1) + "2", ["too deeply nested"]),
    ("1" * (MAX_LENGTH + 1), ["too long", str(MAX_LENGTH)]),
    ("x" * 1_000_000, ["too long", "1000000"]),
    ("(" * 100_000, ["too long"]),
    ("\x00", ["column 1"]),
    ("8\u200b", ["column 2"]),                         # zero-width space is not a space
]


@pytest.mark.parametrize("text, words", HOSTILE)
def test_hostile_input_is_invalid_and_bounded(text, words):
    parsed, work = parse_with_work(text)
    assert not parsed.ok and parsed.value is None
    for word in words:
        assert word in str(parsed.error)
    # The parser's own work is bounded by its caps, whatever the text.
    assert work.chars_read <= MAX_LENGTH
    assert work.tokens <= MAX_LENGTH
    assert work.nodes <= MAX_LENGTH
    assert work.max_depth <= MAX_DEPTH + 1
    assert work.max_bits <= 3 * MAX_MAGNITUDE.bit_length()


def test_overlong_text_is_refused_before_tokenizing():
    _, work = parse_with_work("1" * 1_000_000)
    assert (work.chars_read, work.tokens, work.nodes) == (0, 0, 0)


def test_huge_power_is_refused_before_it_is_computed():
    # 9**9 = 387420489 is computed (29 bits); 9**387420489 never is.
    parsed, work = parse_with_work("9**9**9")
    assert not parsed.ok and work.max_bits < 64


def test_exponent_cap_is_inclusive():
    assert parse_answer(f"1^{MAX_EXPONENT}").value == 1
    assert not parse_answer(f"1^{MAX_EXPONENT + 1}").ok


def test_depth_cap_is_exact():
    ok = "(" * MAX_DEPTH + "7" + ")" * MAX_DEPTH
    too_deep = "(" + ok + ")"
    assert parse_answer(ok).value == 7
    assert "too deeply nested" in str(parse_answer(too_deep).error)


def test_magnitude_cap_is_inclusive():
    assert parse_answer("10^30").value == 10**30
    assert parse_answer("1/10^30").value == F(1, 10**30)
    assert not parse_answer("10^30 + 1").ok


@pytest.mark.parametrize("value", [None, 8, 8.0, b"8", ["8"]])
def test_non_text_is_invalid_not_an_exception(value):
    parsed = parse_answer(value)
    assert not parsed.ok and "not text" in str(parsed.error)


def test_columns_count_leading_spaces_of_the_typed_text():
    assert str(parse_answer("   8 abc").error).startswith("unexpected 'abc' at column 6")


def test_reading_never_calls_eval_exec_or_compile(monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("the reader must never evaluate text")

    for name in ("eval", "exec", "compile"):
        monkeypatch.setattr(builtins, name, forbidden)
    texts = [t for t, *_ in ACCEPTED] + [t for t, _ in INVALID] + [t for t, _ in HOSTILE]
    results = [parse_answer(t) for t in texts]
    assert sum(r.ok for r in results) == len(ACCEPTED)


# ----------------------------------------------------------------------------- properties

def _group(n: int, sep: str) -> str:
    digits = str(n)
    head = len(digits) % 3 or 3
    return sep.join([digits[:head]] + [digits[i:i + 3] for i in range(head, len(digits), 3)])


def _decimal(value: F, places: int) -> str:
    """value (whose denominator divides 10**places) written as a decimal with a point."""
    scaled = value * 10**places
    assert scaled.denominator == 1
    sign = "-" if scaled < 0 else ""
    digits = str(abs(scaled.numerator)).rjust(places + 1, "0")
    return f"{sign}{digits[:-places]}.{digits[-places:]}" if places else f"{sign}{digits}"


@given(st.integers(min_value=0, max_value=10**15), st.sampled_from([",", " ", "_", "\u00a0"]))
def test_grouped_integers_read_back(n, sep):
    text = _group(n, sep)
    assert parse_answer(text).value == n
    assert parse_answer("-" + text).value == -n
    assert parse_answer(f"{text} blocks").value == n


@given(st.integers(min_value=-10**12, max_value=10**12), st.integers(min_value=0, max_value=6))
def test_decimals_read_back(mantissa, places):
    value = F(mantissa, 10**places)
    assert parse_answer(_decimal(value, places)).value == value


@given(st.integers(min_value=0, max_value=10**8), st.integers(min_value=0, max_value=3))
def test_percentages_read_back(mantissa, places):
    shown = F(mantissa, 10**places)                   # the figure before the % sign
    text = _decimal(shown, places)
    for form in (f"{text}%", f"{text} %", f"{text} percent"):
        parsed = parse_answer(form)
        assert (parsed.value, parsed.kind, parsed.unit) == (shown / 100, "percent", "%")


@given(st.integers(min_value=-10**9, max_value=10**9), st.integers(min_value=1, max_value=10**9),
       st.integers(min_value=1, max_value=10**6))
def test_expressions_read_back(a, b, c):
    assert parse_answer(f"{a}/{b}").value == F(a, b)
    assert parse_answer(f"{a}*{b}/{c}").value == F(a * b, c)
    assert parse_answer(f"{a} × {b} ÷ {c}").value == F(a * b, c)
    assert parse_answer(f"({a}) / ({b} * {c})").value == F(a, b * c)
    assert parse_answer(f"ceil({a}/{b})").value == -(-a // b)
    assert parse_answer(f"⌊{a}/{b}⌋").value == a // b
    assert parse_answer(f"min({a}, {b}, {c})").value == min(a, b, c)
    assert parse_answer(f"max({a},{b},{c})").value == max(a, b, c)


@given(st.integers(min_value=0, max_value=10**6), st.sampled_from(["KB", "KiB", "K", "kb"]))
def test_kilobytes_are_1024_bytes(n, suffix):
    parsed = parse_answer(f"{n} {suffix}")
    assert (parsed.value, parsed.unit) == (n * 1024, "B")


JUNK = st.lists(st.sampled_from(list("0123456789+-*/^(),.%×·÷⌈⌉⌊⌋ _eExXkKbB'\";q")
                                + ["ceil", "min", "blocks", "os", "import", "abc", "lambda",
                                   "percent", "per"]),
                max_size=40).map("".join)


def _letter_runs(text: str) -> list[str]:
    text = re.sub(r"(?<=[0-9])_(?=[0-9])", "", text)          # 65_536 is a number
    return [w.lower() for w in re.findall(r"[A-Za-z_]+", text)]


@settings(max_examples=400)
@given(JUNK)
def test_junk_never_raises_and_unknown_words_never_evaluate(text):
    parsed, work = parse_with_work(text)
    assert parsed.ok == (parsed.error is None) == (parsed.value is not None)
    assert work.tokens <= MAX_LENGTH and work.max_depth <= MAX_DEPTH + 1
    # "e" may only appear inside a number (1e3), which the reader consumes as a number.
    if any(w not in KNOWN_WORDS for w in _letter_runs(text) if w != "e"):
        assert not parsed.ok


@settings(max_examples=300)
@given(st.text(max_size=MAX_LENGTH + 20))
def test_arbitrary_unicode_never_raises(text):
    parsed = parse_answer(text)
    assert parsed.raw == text
    assert parsed.ok == (parsed.error is None) == (parsed.value is not None)
    if parsed.ok:
        assert abs(parsed.value.numerator) <= MAX_MAGNITUDE
        assert parsed.value.denominator <= MAX_MAGNITUDE
    else:
        assert parsed.error and "\n" not in str(parsed.error)


@pytest.mark.parametrize("word, unit", [
    ("warp", "warps"), ("Warps", "warps"), ("SM", "SMs"), ("KiB", "B"), ("bytes", "B"),
    ("×", "x"), ("times", "x"), ("percent", "%"), ("%", "%"), ("cyc", "cycles"),
    ("regs", "registers"), ("furlongs", None), ("ceil", None),
])
def test_canonical_unit(word, unit):
    assert canonical_unit(word) == unit


# ----------------------------------------------------------------------------- the fast path

from quizgen.grade.shapes import fast_parse as _fast_parse  # noqa: E402

_WHITE = st.sampled_from(["", "", " ", "  ", "\t", "\n", "\u00a0"])


def _shaped_number(draw) -> str:
    digits = draw(st.integers(min_value=0, max_value=10**33))
    grouped = draw(st.booleans())
    whole = _group(digits, ",") if grouped else str(digits)
    if draw(st.booleans()):
        whole = draw(st.sampled_from(["0", "00", "0,", ""])) + whole      # leading zeros, typos
    if draw(st.booleans()):
        whole += "." + str(draw(st.integers(min_value=0, max_value=10**35)))
    return whole or draw(st.sampled_from([".5", "5.", "."]))


@st.composite
def common_shapes(draw) -> str:
    """Answers in the shapes the fast path reads (and near misses it must hand over)."""
    text = draw(st.sampled_from(["", "", "-", "+", "\u2212", "--"])) + draw(_WHITE)
    text += _shaped_number(draw)
    if draw(st.booleans()):
        text += draw(_WHITE) + draw(st.sampled_from(["/", "//", "÷"])) + draw(_WHITE)
        text += draw(st.sampled_from(["0", "-2"])) if draw(st.integers(0, 5)) == 0 \
            else _shaped_number(draw)
    suffix = draw(st.integers(0, 3))
    if suffix == 1:
        text += draw(_WHITE) + draw(st.sampled_from(["%", "%%", "percent", "per cent"]))
    elif suffix >= 2:
        word = draw(st.sampled_from(sorted(KNOWN_WORDS) + ["e", "E", "bytes", "xff", "wraps",
                                                           "blocks/SM", "b1", "x 3"]))
        text += draw(_WHITE) + (word.upper() if draw(st.booleans()) else word)
    return draw(_WHITE) + text + draw(_WHITE)


@settings(max_examples=1500)
@given(common_shapes())
def test_fast_path_agrees_with_the_full_reader(text):
    slow, _ = parse_with_work(text)
    fast = _fast_parse(text)
    assert fast is None or fast == slow, (text, fast, slow)
    assert parse_answer(text) == slow


@given(st.integers(min_value=-10**12, max_value=10**12), st.integers(min_value=0, max_value=4),
       st.sampled_from(["", "%", " %", " warps", "KB", " blocks", "x"]))
def test_fast_path_takes_the_common_shapes(mantissa, places, suffix):
    text = _decimal(F(mantissa, 10**places), places) + suffix
    assert _fast_parse(text) in (None, parse_with_work(text)[0])
    # "0KB" and "0x" are left to the full reader (it refuses "0x1f"); every other one is fast.
    assert _fast_parse(text) is not None or (mantissa == 0 and suffix[:1].isalpha())
    assert _fast_parse(f"{abs(mantissa)}/{places + 1}{suffix}") is not None


@pytest.mark.parametrize("text", [t for t, *_ in ACCEPTED] + [t for t, _ in INVALID]
                         + [t for t, _ in HOSTILE if len(t) <= MAX_LENGTH])
def test_fast_path_and_cache_agree_with_the_full_reader_on_the_tables(text):
    slow, _ = parse_with_work(text)
    assert _fast_parse(text) in (None, slow)
    assert parse_answer(text) == slow
    assert parse_answer(text) is parse_answer(text)          # read once, then remembered


def test_fast_path_leaves_non_decimal_and_odd_forms_to_the_full_reader():
    for text in ("0x10", "0b1", "0bytes", "1/0", "1.5/3", "8 blocks/SM", "1e3", "5.", "=8",
                 "65 536", "65_536", "1,5", "0,500", HUGE, "0." + "0" * 40 + "1",
                 HUGE + "/10", "8 per cent"):
        assert _fast_parse(text) is None, text
    assert str(parse_answer("0bytes").error).startswith("unexpected '0bytes'")
    assert str(parse_answer(HUGE + "/10").error).startswith("number out of range")
