"""The engine for code over thread indices, checked by other routes.

* C semantics: random expressions (hypothesis) evaluated by the engine for every thread against a
  plain scalar interpreter written here (Python ints, C's rules spelled out one operation at a
  time), and, where a C compiler is installed, against the compiler itself.
* Warp counts: the vectorised per-warp counts against a plain Python loop over every thread.
* The physics of CELLS.md's *Divergence, loops, barriers*, as numbers: the 5 − (i % 3) loop, the
  two reductions at 1,024 threads, eight threads at a barrier (4.1 ÷ 24.0 = 17.1%), a partial tail
  warp and lanes that left early never counted as divergence.
* Examples in the style of PMPP's exercises, written here, each recomputed by hand in the test.
"""

from __future__ import annotations

import shutil
import subprocess
from fractions import Fraction

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from quizgen.engine import barrier as bar
from quizgen.engine import branches as br
from quizgen.engine import cexpr
from quizgen.engine import threads as th
from quizgen.errors import QuizgenError

WARP = 32
U32 = 1 << 32


# ---------------------------------------------------------------------------------------------
# A reference interpreter: one thread at a time, C's rules written out


class UB(Exception):
    """What C leaves undefined (the engine refuses these too)."""


def conv(v: int, src: str, dst: str) -> int:
    if src == dst:
        return v
    if dst == "unsigned":
        return v % U32
    return v - U32 if v >= 1 << 31 else v


def signed(v: int) -> int:
    if not -(1 << 31) <= v < 1 << 31:
        raise UB("overflow")
    return v


def ref(node, env: dict) -> tuple[int, str]:
    """(value, C type) of a node: ("num", v, t) | ("var", name) | ("un", op, a) | ("bin", op, a, b)
    | ("cond", c, a, b)."""
    kind = node[0]
    if kind == "num":
        return node[1], node[2]
    if kind == "var":
        return env[node[1]]
    if kind == "un":
        v, t = ref(node[2], env)
        op = node[1]
        if op == "!":
            return int(v == 0), "int"
        if op == "-":
            return ((-v) % U32, t) if t == "unsigned" else (signed(-v), t)
        return ((~v) % U32, t) if t == "unsigned" else (~v, t)
    if kind == "cond":
        c, _ = ref(node[1], env)
        a_t, b_t = _type(node[2], env), _type(node[3], env)
        t = "unsigned" if "unsigned" in (a_t, b_t) else "int"
        v, vt = ref(node[2] if c else node[3], env)
        return conv(v, vt, t), t
    op = node[1]
    if op in ("&&", "||"):
        a, _ = ref(node[2], env)
        if op == "&&":
            return (int(ref(node[3], env)[0] != 0) if a else 0), "int"
        return (1 if a else int(ref(node[3], env)[0] != 0)), "int"
    a, at = ref(node[2], env)
    b, bt = ref(node[3], env)
    if op in ("<<", ">>"):
        if not 0 <= b < 32:
            raise UB("shift")
        if op == ">>":
            return a >> b, at
        if at == "unsigned":
            return (a << b) % U32, at
        if a < 0:
            raise UB("negative shift")
        return signed(a << b), at
    t = "unsigned" if "unsigned" in (at, bt) else "int"
    a, b = conv(a, at, t), conv(b, bt, t)
    if op in ("<", "<=", ">", ">=", "==", "!="):
        return int({"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b,
                    "!=": a != b}[op]), "int"
    if op in ("/", "%"):
        if b == 0:
            raise UB("division by zero")
        q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)     # toward zero
        if op == "/":
            return (q, t) if t == "unsigned" else (signed(q), t)
        return a - b * q, t
    v = {"+": a + b, "-": a - b, "*": a * b, "&": a & b, "|": a | b, "^": a ^ b}[op]
    return (v % U32, t) if t == "unsigned" else (signed(v), t)


def _type(node, env) -> str:
    kind = node[0]
    if kind == "num":
        return node[2]
    if kind == "var":
        return env[node[1]][1]
    if kind == "un":
        return "int" if node[1] == "!" else _type(node[2], env)
    if kind == "cond":
        return "unsigned" if "unsigned" in (_type(node[2], env), _type(node[3], env)) else "int"
    if node[1] in ("<", "<=", ">", ">=", "==", "!=", "&&", "||"):
        return "int"
    if node[1] in ("<<", ">>"):
        return _type(node[2], env)
    return "unsigned" if "unsigned" in (_type(node[2], env), _type(node[3], env)) else "int"


def text(node) -> str:
    kind = node[0]
    if kind == "num":
        return f"{node[1]}{'u' if node[2] == 'unsigned' else ''}"
    if kind == "var":
        return node[1]
    if kind == "un":
        return f"{node[1]}({text(node[2])})"
    if kind == "cond":
        return f"(({text(node[1])}) ? ({text(node[2])}) : ({text(node[3])}))"
    return f"({text(node[2])} {node[1]} {text(node[3])})"


VARS = ("threadIdx.x", "threadIdx.y", "i", "n")
leaves = st.one_of(st.sampled_from([("var", v) for v in VARS]),
                   st.builds(lambda v, u: ("num", v, "unsigned" if u else "int"),
                             st.integers(0, 70), st.booleans()))
OPS = ("+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", "<=", ">", ">=", "==", "!=",
       "&&", "||")
trees = st.recursive(leaves, lambda kids: st.one_of(
    st.builds(lambda op, a: ("un", op, a), st.sampled_from("-!~"), kids),
    st.builds(lambda op, a, b: ("bin", op, a, b), st.sampled_from(OPS), kids, kids),
    st.builds(lambda c, a, b: ("cond", c, a, b), kids, kids, kids)), max_leaves=7)


def thread_env(tx: int, ty: int, bx: int, dx: int) -> dict:
    i = conv(bx * dx + tx, "unsigned", "int")                    # int i = blockIdx.x * …
    return {"threadIdx.x": (tx, "unsigned"), "threadIdx.y": (ty, "unsigned"), "i": (i, "int"),
            "n": (37, "int")}


@settings(max_examples=300)
@given(trees)
# A branch no thread takes is never evaluated, whether the condition is one value for all
# threads or differs between them.
@example(("cond", ("var", "n"), ("var", "threadIdx.x"), ("bin", "<<", ("var", "n"), ("var", "n"))))
@example(("cond", ("bin", ">", ("var", "threadIdx.x"), ("num", 99, "int")),
          ("bin", "<<", ("var", "n"), ("var", "n")), ("var", "i")))
def test_the_engine_evaluates_c_as_a_one_thread_interpreter_does(tree):
    """Every thread of a (16, 4) block in 3 blocks: the engine's value, or its refusal, is the
    reference interpreter's, thread by thread."""
    code = th.code(th.launch((16, 4), 3), ["int i = blockIdx.x * blockDim.x + threadIdx.x",
                                          "int n = 37"])
    source = text(tree)
    expected = []
    undefined = False
    for b in range(3):
        for ty in range(4):
            for tx in range(16):
                try:
                    expected.append(ref(tree, thread_env(tx, ty, b, 16))[0])
                except UB:
                    undefined = True
    try:
        expr = code.parse(source, "if")
        values = []
        for chunk in th.chunks(code, per_block=True):
            values += th.per_thread(th.run(expr, chunk.env, code, chunk.first, None, "if"),
                                    chunk.count * 64).tolist()
    except QuizgenError as exc:
        assert undefined, (source, str(exc))
        return
    assert not undefined, source
    assert values == expected, source


@pytest.mark.parametrize("source, value", [
    ("-7 / 2", -3), ("-7 % 2", -1), ("7 % -2", 1), ("7 / -2", -3),       # toward zero
    ("threadIdx.x - 1 < 0", 0),            # threadIdx is unsigned: 0 - 1 wraps, never below 0
    ("(int)threadIdx.x - 1 < 0", 1), ("-1 >> 1", -1), ("0x80000000 > 0", 1), ("~0u", U32 - 1),
    ("1u << 31", 1 << 31), ("1 ? 2 : 3u", 2), ("0 && 5 / 0", 0), ("1 || 5 / 0", 1),
    ("warpSize", 32), ("010", 8),
])
def test_c_rules_one_value(source, value):
    expr = cexpr.parse_expression(source)
    assert int(cexpr.evaluate(expr, {"threadIdx.x": 0, "warpSize": 32})) == value


@pytest.mark.parametrize("source, says", [
    ("__import__('os').system('echo no')", "cannot read"), ("exec(1)", "is a call"),
    ("threadIdx.x.__class__", "cannot read"), ("foo < 3", "unknown name 'foo'"),
    ("1 << 1000", "a shift by 1000"), ("1 << 31", "outside a 32-bit int"),
    ("threadIdx.x / 0", "division by zero"), ("2147483648", "too large"),
    ("(" * 40 + "1" + ")" * 40, "nested more than"), ("1+" * 300 + "1", "characters long"),
    ("2.5", "cannot read"), ("threadIdx.x < 40 ||", "ends too early"), ("09", "octal"),
    ("", "empty"), ("a[0]", "cannot read"), ("1;2", "cannot read"),
])
def test_bad_or_hostile_expressions_are_one_line_errors(source, says):
    code = th.code(th.launch(64))
    with pytest.raises(QuizgenError) as err:
        br.branching(code, source)
    assert says in str(err.value) and "\n" not in str(err.value)


def test_a_division_by_zero_behind_a_false_guard_is_not_an_error():
    """&&, || and ?: reach their right side only in the threads that evaluate it."""
    code = th.code(th.launch(64), ["int d = threadIdx.x % 4"])
    b = br.branching(code, "d != 0 && 12 / d > 3")
    assert b.threads_taking == sum(1 for t in range(64) if t % 4 and 12 // (t % 4) > 3)
    b = br.branching(code, "d == 0 ? 1 : 12 % d == 0")
    assert b.threads_taking == sum(1 for t in range(64) if t % 4 == 0 or 12 % (t % 4) == 0)


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
def test_a_c_compiler_agrees_on_every_thread(tmp_path):
    """The same expressions compiled by the machine's C compiler (threadIdx as unsigned int,
    i and n as int), every thread of two blocks of (16, 4)."""
    sources = ["threadIdx.x < 40 || threadIdx.x >= 104", "i % 3 == 0", "(i - 70) / 4 < -3",
               "(threadIdx.x - 5) % 7", "-i % 5", "(i * 7 ^ threadIdx.y) >> 2", "i / 2 * 2 == i",
               "threadIdx.x * 2654435761u % 97", "i < n ? i % 8 : -(i % 8)", "(int)(threadIdx.x - 9) / 4"]
    body = "\n".join(f'    printf("%lld\\n", (long long)({s}));' for s in sources)
    program = ("#include <stdio.h>\nint main(void) {\n int n = 37;\n"
               " for (unsigned bx = 0; bx < 2; bx++) for (unsigned y = 0; y < 4; y++)"
               " for (unsigned x = 0; x < 16; x++) {\n"
               "  struct { unsigned x, y; } threadIdx = {x, y};\n"
               "  int i = (int)(bx * 16u + x);\n" + body + "\n }\n return 0;\n}\n")
    (tmp_path / "e.c").write_text(program)
    subprocess.run(["cc", "-O0", "-o", str(tmp_path / "e"), str(tmp_path / "e.c")], check=True,
                   capture_output=True, timeout=120)
    out = subprocess.run([str(tmp_path / "e")], check=True, capture_output=True, text=True,
                         timeout=60).stdout.split()
    code = th.code(th.launch((16, 4), 2), ["int i = blockIdx.x * 16 + threadIdx.x", "int n = 37"])
    got: list[int] = []
    for chunk in th.chunks(code, per_block=True):
        per = [th.per_thread(th.run(code.parse(s, "if"), chunk.env, code, chunk.first, None, "if"),
                             chunk.count * 64).tolist() for s in sources]
        got += [per[k][t] for t in range(chunk.count * 64) for k in range(len(sources))]
    assert got == [int(v) for v in out]


# ---------------------------------------------------------------------------------------------
# Warps, warp by warp: the vectorised counts against a loop over every thread


def per_thread_counts(block, grid, cond, lets=(), exit=None):
    """(then warps, else warps, divergent warps, divergent blocks, threads taking) by a plain
    loop: one thread at a time, warps cut from the linear index inside each block."""
    dx, dy, dz = (list(block) + [1, 1])[:3]
    T = dx * dy * dz
    code = th.code(th.launch(block, grid), list(lets))
    expr, gone = code.parse(cond, "if"), code.parse(exit, "exit") if exit else None
    then_w = else_w = div_w = taking = 0
    div_blocks = set()
    for b in range(grid):
        chunk = next(th.chunks(code, per_block=True, only=b))
        values = th.per_thread(th.run(expr, chunk.env, code, b, None, "if"), T).tolist()
        left = (th.per_thread(th.run(gone, chunk.env, code, b, None, "exit"), T).tolist()
                if gone else [0] * T)
        for w in range(-(-T // WARP)):
            lanes = range(w * WARP, min(T, (w + 1) * WARP))
            takes = [values[t] != 0 for t in lanes if not left[t]]
            taking += sum(takes)
            then_w += any(takes)
            else_w += not all(takes) if takes else 0
            if any(takes) and not all(takes):
                div_w += 1
                div_blocks.add(b)
    return then_w, else_w, div_w, len(div_blocks), taking


CASES = [
    ((128,), 8, "threadIdx.x < 40 || threadIdx.x >= 104", (), None),
    ((32, 32), 1, "idx % 32 < 16", ("int idx = threadIdx.y + 32 * threadIdx.x",), None),
    ((16, 16), 1, "threadIdx.y % 2 == 0", (), None),
    ((100,), 3, "threadIdx.x % 3 == 0", (), None),
    ((256,), 4, "i % 2 == 0", ("int i = blockIdx.x * blockDim.x + threadIdx.x", "int n = 1000"), "i >= n"),
    ((8, 4, 3), 2, "(threadIdx.z + blockIdx.x) % 2 == 0", (), None),
    ((96,), 5, "i < n", ("int i = blockIdx.x * blockDim.x + threadIdx.x", "int n = 400"), None),
]


@pytest.mark.parametrize("block, grid, cond, lets, exit", CASES)
def test_warp_counts_equal_a_loop_over_every_thread(block, grid, cond, lets, exit):
    b = br.branching(th.code(th.launch(block, grid), list(lets)), cond, exit)
    assert (b.then_warps, b.else_warps, b.divergent_warps, b.divergent_blocks,
            b.threads_taking) == per_thread_counts(block, grid, cond, lets, exit)


def test_issue_example_two_ranges_in_128_thread_blocks():
    """threadIdx.x < 40 || threadIdx.x >= 104 in 8 blocks of 128: warps 1 and 3 of each block
    split (lanes 32–39 and 104–127 take the if), 0 and 2 agree: 16 divergent warps of 32."""
    b = br.branching(th.code(th.launch(128, 8)), "threadIdx.x < 40 || threadIdx.x >= 104")
    assert (b.launch.grid_warps, b.then_warps, b.divergent_warps) == (32, 24, 16)
    assert br.lane_paths(b.code, b.cond, None, 0, b) == [
        "T" * 32, "T" * 8 + "E" * 24, "E" * 32, "E" * 8 + "T" * 24]
    wb = b.warp(0, 1)
    assert (wb.take, wb.simd_then, wb.simd_else) == (8, 0.25, 0.75)


def test_a_column_index_in_a_32_by_32_block_never_splits_a_warp():
    """idx = threadIdx.y + 32*threadIdx.x: a warp is one row y (x = 0…31), and idx % 32 = y,
    so all its lanes agree: half the warps take the if, none diverges."""
    b = br.branching(th.code(th.launch((32, 32)), ["int idx = threadIdx.y + 32 * threadIdx.x"]),
                     "idx % 32 < 16")
    assert (b.then_warps, b.else_warps, b.divergent_warps) == (16, 16, 0)


def test_parity_splits_every_warp_and_a_range_only_the_edge():
    code = th.code(th.launch(256))
    assert br.branching(code, "threadIdx.x % 2 == 0").divergent_warps == 8
    assert br.branching(code, "threadIdx.x < 16").divergent_warps == 1


def test_a_partial_tail_warp_whose_lanes_agree_does_not_diverge():
    """100 threads: warp 3 holds 4 lanes, all < 100 take the if; its 28 missing lanes are
    absent, not the else side."""
    b = br.branching(th.code(th.launch(100)), "threadIdx.x >= 50")
    assert b.divergent_warps == 1                      # warp 1 (32–63) only
    assert b.warp(0, 3).present == 4 and not b.warp(0, 3).divergent
    assert br.lane_paths(b.code, b.cond, None, 0, b)[3] == "T" * 4 + "." * 28


def test_lanes_that_returned_are_idle_not_divergent():
    """n = 1000, blocks of 256: the boundary warp (block 3, warp 7: i 992–1023) keeps 8 lanes;
    i % 8 == 0 takes one of them (i = 992), so it diverges; i % 64 >= 32 holds for all 8 (992–999)."""
    lets = ["int i = blockIdx.x * blockDim.x + threadIdx.x", "int n = 1000"]
    code = th.code(th.launch(256, 4), lets)
    split = br.branching(code, "i % 8 == 0", "i >= n").warp(3, 7)
    agree = br.branching(code, "i % 64 >= 32", "i >= n").warp(3, 7)
    assert (split.reach, split.take, split.divergent) == (8, 1, True)
    assert (agree.reach, agree.take, agree.divergent) == (8, 8, False)
    assert agree.time(20, 12) == 20 and agree.region_efficiency(20, 12) == 8 / 32


def test_a_million_threads_in_well_under_a_second():
    import time

    code = th.code(th.launch(1024, 1000), ["int i = blockIdx.x * blockDim.x + threadIdx.x",
                                           "int n = 1000000"])
    start = time.perf_counter()
    b = br.branching(code, "i < n && (i % 3 == 0 || threadIdx.x < 40)")
    seconds = time.perf_counter() - start
    assert b.launch.grid_warps == 32000 and b.threads_reaching == 1024 * 1000
    assert b.threads_taking == sum(1 for i in range(1_000_000) if i % 3 == 0 or i % 1024 < 40)
    from conftest import scaled
    assert seconds < scaled(0.5)


def test_a_launch_over_the_limit_is_refused_before_anything_runs():
    with pytest.raises(QuizgenError, match="at most 4,194,304"):
        th.launch(1024, 100_000)
    with pytest.raises(QuizgenError, match="over CUDA's 1,024"):
        th.launch((64, 32))


# ---------------------------------------------------------------------------------------------
# Loops and reductions (CELLS.md)


def test_five_minus_i_mod_three():
    """Every full warp holds trip counts 5, 4, 3: iterations 1–3 run on every lane, 4–5
    diverge (a lane with 3 or 4 trips has finished)."""
    lw = br.loop_warps(th.code(th.launch(256), ["int i = threadIdx.x"]), "5 - (i % 3)")
    assert {int(v) for v in lw.t_max.flat} == {5} and {int(v) for v in lw.t_min.flat} == {3}
    assert [lw.diverging(k) for k in range(1, 6)] == [0, 0, 0, 8, 8]
    assert lw.issued == 8 * 5 and lw.useful == sum(5 - t % 3 for t in range(256))


def test_a_loop_of_thread_index_iterations_by_a_loop_over_threads():
    """for (k = 0; k < threadIdx.x; k++): warp w runs 32w + 31 iterations, lane 0 of warp 0
    never enters (it has finished, so iteration 1 already diverges)."""
    lw = br.loop_warps(th.code(th.launch(128)), "threadIdx.x")
    for w in range(4):
        assert (int(lw.t_min[0, w]), int(lw.t_max[0, w])) == (32 * w, 32 * w + 31)
    for k in (1, 31, 32, 33, 100, 127):
        running = sum(1 for w in range(4) if 32 * w + 31 >= k)
        full = sum(1 for w in range(4) if 32 * w >= k)
        assert (lw.running(k), lw.diverging(k)) == (running, running - full)
        assert lw.lanes_running(k) == sum(1 for t in range(128) if t >= k)


@pytest.mark.parametrize("kind, issued, divergent", [
    ("interleaved", [32, 32, 32, 32, 32, 16, 8, 4, 2, 1], [32, 32, 32, 32, 32, 16, 8, 4, 2, 1]),
    ("sequential", [16, 8, 4, 2, 1, 1, 1, 1, 1, 1], [0, 0, 0, 0, 0, 1, 1, 1, 1, 1]),
])
def test_the_two_reductions_at_1024_threads(kind, issued, divergent):
    """Interleaved: iteration 5 (s = 16) keeps one lane in each of the 32 warps, all divergent;
    sequential: nothing diverges while s ≥ 32, then warp 0 alone."""
    r = br.reduction(kind, 1024)
    assert [s.active_warps for s in r.strides] == issued
    assert [s.divergent_warps for s in r.strides] == divergent
    assert r.issued == sum(issued) == (191 if kind == "interleaved" else 36)
    assert r.useful == 1023


@pytest.mark.parametrize("T", [64, 96, 100, 128, 200, 512])
def test_reductions_of_any_block_size_by_a_loop_over_threads(T):
    for kind in ("interleaved", "sequential"):
        r = br.reduction(kind, T)
        for s in r.strides:
            adding = [t for t in range(T) if (t % (2 * s.stride) == 0 if kind == "interleaved"
                                              else t < s.stride)]
            warps = {t // WARP for t in adding}
            present = lambda w: min(T, WARP * (w + 1)) - WARP * w
            div = sum(1 for w in warps if sum(1 for t in adding if t // WARP == w) < present(w))
            assert (s.active_threads, s.active_warps, s.divergent_warps) == (len(adding), len(warps), div)


# ---------------------------------------------------------------------------------------------
# Barriers


def test_eight_threads_at_a_barrier_wait_seventeen_percent():
    """Eight threads arrive at 2.0, 2.3, 3.0, 2.8, 2.4, 1.9, 2.6, 2.9: release at 3.0, waits
    1.0 + 0.7 + 0 + 0.2 + 0.6 + 1.1 + 0.4 + 0.1 = 4.1 of 8 × 3.0 = 24.0 → 17.1%."""
    r = bar.barrier_wait(["2.0", "2.3", "3.0", "2.8", "2.4", "1.9", "2.6", "2.9"])
    assert r.release == 3 and r.total_wait == Fraction(41, 10)
    assert r.share == Fraction(41, 240) and round(float(r.share) * 100, 1) == 17.1
    assert sum(r.waits) == r.total_wait                      # wait by wait


def test_warps_weigh_their_waits_by_their_threads():
    r = bar.barrier_wait([500, 740, 920], [32, 32, 8])
    assert r.total_wait == 32 * 420 + 32 * 180 + 0
    assert r.share == Fraction(32 * 420 + 32 * 180, 72 * 920)
    after, _ = bar.balanced(r)
    assert after.release == 740 and after.total_wait == 32 * 240


@pytest.mark.parametrize("block, read, barrier, writer", [
    (32, "t ^ 1", "syncwarp", lambda t, x, y, dx, dy: t ^ 1),
    (32, "t", "none", lambda t, x, y, dx, dy: t),
    (128, "(t + 1) % blockDim.x", "syncthreads", lambda t, x, y, dx, dy: (t + 1) % dx),
    (128, "t ^ 16", "syncwarp", lambda t, x, y, dx, dy: t ^ 16),
    (128, "blockDim.x - 1 - t", "syncthreads", lambda t, x, y, dx, dy: dx - 1 - t),
    ((16, 16), "tx * blockDim.x + ty", "syncthreads", lambda t, x, y, dx, dy: x * dx + y),
    ((16, 8), "ty * blockDim.x + (tx ^ 1)", "syncwarp", lambda t, x, y, dx, dy: y * dx + (x ^ 1)),
])
def test_the_least_barrier_of_an_exchange(block, read, barrier, writer):
    """A thread reading its own write needs no barrier; one reading a lane of its own warp
    __syncwarp() (no lockstep promise); one reading another warp __syncthreads(). The writer of
    each read is worked out here thread by thread."""
    dx, dy = (list(block) if isinstance(block, tuple) else [block, 1])[:2]
    code = th.code(th.launch(block), ["int tx = threadIdx.x", "int ty = threadIdx.y",
                                      "int t = ty * blockDim.x + tx"])
    p = br.partners(code, read)
    writers = [writer(t, t % dx, t // dx, dx, dy) for t in range(dx * dy)]
    cross = sum(1 for t, w in enumerate(writers) if t // WARP != w // WARP)
    own = sum(1 for t, w in enumerate(writers) if t == w)
    assert (p.cross_warp, p.own, list(p.who)) == (cross, own, writers)
    assert p.barrier == barrier == ("syncthreads" if cross else "none" if own == dx * dy else "syncwarp")
