"""The cells worked out from code (D-1 … D-5): every answer recomputed by another route, the code
shown as code, the slips diagnosed by the grader, the words true for the numbers.

The second routes do not use the engine: the code's expressions (the families' own, over
non-negative values, where C's ``/`` is Python's ``//``) are evaluated thread by thread in plain
Python, warps are cut by hand from the linear index, waits are added one by one.
"""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from quizgen.generator import generate_one
from quizgen.grade import check_answer

WARP = 32
SEEDS = range(12)
LANGS = ("en", "hinglish")


def py(expr: str):
    """A family's C expression over non-negative ints as a Python function of the thread's
    names (test code only: the expressions are the families' fixed templates)."""
    source = re.sub(r"(?<![/])/(?![/])", "//", expr).replace("&&", " and ").replace("||", " or ")
    source = source.replace("blockIdx.x", "bx").replace("blockDim.x", "dx").replace("blockDim.y", "dy")
    source = source.replace("threadIdx.x", "tx").replace("threadIdx.y", "ty").replace("~1", "-2")
    return lambda **names: int(eval(source, {}, names))     # noqa: S307 - fixed test templates


def threads(block, grid=1):
    """(block, linear, tx, ty) for every thread, in warp order."""
    dx, dy, dz = block
    for b in range(grid):
        for lin in range(dx * dy * dz):
            yield b, lin, lin % dx, lin // dx % dy


def lets_env(p, b, tx, ty):
    env = {"tx": tx, "ty": ty, "bx": b, "dx": p["block"][0], "dy": p["block"][1]}
    for let in p.get("lets", ()):
        name, _, expr = let.replace("int ", "").partition("=")
        env[name.strip()] = py(expr.strip())(**env)
    if "n" in p:
        env["n"] = p["n"]
    return env


@pytest.mark.parametrize("level", [1, 2, 3])
def test_d1_counts_by_a_loop_over_threads(level):
    for seed in SEEDS:
        p = generate_one("D-1", level=level, seed=seed, lang="en")
        prm = p.params
        cond = py(prm["cond"])
        warps: dict[tuple[int, int], list[int]] = {}
        for b, lin, tx, ty in threads(prm["block"], prm.get("grid", 1)):
            env = lets_env(prm, b, tx, ty)
            if prm.get("exit") and env["i"] >= env["n"]:
                continue                                   # returned: idle, on no path
            warps.setdefault((b, lin // WARP), []).append(cond(**env) != 0)
        then = sum(1 for v in warps.values() if any(v))
        div = sum(1 for v in warps.values() if any(v) and not all(v))
        assert (p.answers["then_warps"], p.answers["divergent_warps"]) == (then, div), p.params
        T = prm["block"][0] * prm["block"][1]
        assert p.answers["warps"] == -(-T // WARP)
        if level == 2:
            assert p.answers["simd_efficiency"] == sum(warps[(0, prm["warp"])]) / WARP
        if level == 3:
            last = prm["n"] - 1
            key = (last // T, last % T // WARP)
            lanes = warps[key]
            c_t, c_e = prm["costs"]
            time = c_t * any(lanes) + c_e * (not all(lanes))
            useful = c_t * sum(lanes) + c_e * (len(lanes) - sum(lanes))
            assert p.answers["warp_time"] == time
            assert p.answers["region_efficiency"] == pytest.approx(useful / (WARP * time))
            assert p.answers["grid_warps"] == prm["grid"] * -(-T // WARP)


@pytest.mark.parametrize("level", [1, 2, 3])
def test_d2_iterations_by_a_loop_over_threads(level):
    for seed in SEEDS:
        p = generate_one("D-2", level=level, seed=seed, lang="en")
        prm = p.params
        trip = py(prm["trip"])
        by_warp: dict[tuple[int, int], list[int]] = {}
        for b, lin, tx, ty in threads(prm["block"], prm.get("grid", 1)):
            by_warp.setdefault((b, lin // WARP), []).append(max(0, trip(**lets_env(prm, b, tx, ty))))
        a = p.answers
        if level == 3:
            k = prm["iteration"]
            running = [v for v in by_warp.values() if max(v) >= k]
            assert a["running_warps"] == len(running)
            assert a["diverging_warps"] == sum(1 for v in running if min(v) < k)
            assert a["issued_iterations"] == sum(max(v) for v in by_warp.values())
            continue
        lanes = by_warp[(0, prm.get("warp", 0))]
        assert (a["warp_iterations"], a["divergent_iterations"]) == (max(lanes), max(lanes) - min(lanes))
        if level == 2:
            assert a["warp_efficiency"] == pytest.approx(sum(lanes) / (WARP * max(lanes)))
            assert a["issued_iterations"] == sum(max(v) for v in by_warp.values())


@pytest.mark.parametrize("level", [1, 2, 3])
def test_d3_reductions_by_a_loop_over_threads(level):
    for seed in SEEDS:
        p = generate_one("D-3", level=level, seed=seed, lang="en")
        T, G = p.params["block"][0], p.params["grid"]

        def issued(kind):
            strides = ([1 << k for k in range(T.bit_length() - 1)] if kind == "interleaved"
                       else [T >> k for k in range(1, T.bit_length())])
            rows = []
            for s in strides:
                adding = [t for t in range(T) if (t % (2 * s) == 0 if kind == "interleaved" else t < s)]
                rows.append((s, adding, {t // WARP for t in adding}))
            return rows

        if level == 3:
            inter, seq = issued("interleaved"), issued("sequential")
            assert p.answers["issued_interleaved"] == sum(len(w) for _, _, w in inter)
            assert p.answers["issued_sequential"] == sum(len(w) for _, _, w in seq)
            assert p.answers["grid_saved"] == G * (p.answers["issued_interleaved"] - p.answers["issued_sequential"])
            continue
        s, adding, warps = issued(p.params["kind"])[p.params["iteration"] - 1]
        assert s == p.params["stride"]
        div = sum(1 for w in warps if sum(1 for t in adding if t // WARP == w) < WARP)
        assert (p.answers["active_threads"], p.answers["adding_warps"], p.answers["block_divergent"],
                p.answers["grid_divergent"]) == (len(adding), len(warps), div, G * div)


@pytest.mark.parametrize("level", [1, 2, 3])
def test_d4_waits_added_one_by_one(level):
    for seed in SEEDS:
        p = generate_one("D-4", level=level, seed=seed, lang="en")
        times = p.params["arrivals"]
        T = p.params.get("block", [len(times)])[0]
        weights = ([min(WARP, T - WARP * w) for w in range(len(times))] if "block" in p.params
                   else [1] * len(times))
        last = max(times)
        waits = sum((last - t) * w for t, w in zip(times, weights))
        assert p.answers["release"] == last and p.answers["total_wait"] == waits
        assert p.answers["wait_share"] == pytest.approx(float(Fraction(waits, sum(weights) * last)))
        if level == 3:
            nxt = sorted(set(times))[-2]
            moved = [nxt if t == last else t for t in times]
            waits2 = sum((nxt - t) * w for t, w in zip(moved, weights))
            assert p.answers["release_gain"] == last - nxt
            assert p.answers["new_share"] == pytest.approx(waits2 / (sum(weights) * nxt))


@pytest.mark.parametrize("level", [1, 2, 3])
def test_d5_barriers_by_each_threads_writer(level):
    for seed in range(30):
        try:
            p = generate_one("D-5", level=level, seed=seed, lang="en")
        except Exception:
            break
        x, y, _ = p.params["block"]
        if y == 1:
            read = py(p.params["read"])
            writers = [read(t=t, dx=x) for t in range(x)]
        else:
            row, col = (py(e) for e in p.params["read"])
            writers = [row(tx=t % x, ty=t // x, dx=x, dy=y) * x + col(tx=t % x, ty=t // x, dx=x, dy=y)
                       for t in range(x * y)]
        cross = sum(1 for t, w in enumerate(writers) if t // WARP != w // WARP)
        own = all(t == w for t, w in enumerate(writers))
        assert p.answers["cross_warp_reads"] == cross
        assert p.answers["barrier"] == ("syncthreads" if cross else "none" if own else "syncwarp")
        assert sum(c.correct for c in p.choices) == 1 and len(p.choices) >= 3


# ---------------------------------------------------------------------------------------------
# The code as code, the words true for the numbers


@pytest.mark.parametrize("cell", ["D-1", "D-2", "D-3", "D-5"])
def test_the_code_is_a_fenced_block_on_cards_and_its_expression_is_in_it(cell):
    from quizgen.render.cards import question_html

    for level in (1, 2, 3):
        p = generate_one(cell, level=level, seed=0, lang="hinglish")
        assert "\n\n```cuda\n" in p.question and p.question.endswith("\n```")
        html = question_html(p)
        assert '<pre class="qz-code">' in html and "__global__ void" in html
        key = p.params.get("cond") or p.params.get("trip") or "sdata[t] +="
        if cell == "D-5":
            key = "__syncthreads();"
        assert key.replace("<", "&lt;").replace(">", "&gt;").replace("&", "&amp;").replace(
            "&amp;lt;", "&lt;").replace("&amp;gt;", "&gt;") in html or key in p.question


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("cell", ["D-1", "D-2", "D-3", "D-4"])
def test_the_answer_line_states_the_answers(cell, lang):
    from quizgen.render.numbers import number, percent

    for level in (1, 2, 3):
        for seed in range(6):
            p = generate_one(cell, level=level, seed=seed, lang=lang)
            text = p.solution.answer
            for key, value in p.answers.items():
                if isinstance(value, float) and not value.is_integer():
                    shown = percent(value, 3)
                else:
                    shown = number(value)
                assert shown in text, (cell, level, seed, key, shown, text)


def test_the_trap_names_the_situation_of_these_numbers():
    tails = traps = 0
    for seed in range(40):
        p = generate_one("D-1", level=1, seed=seed, lang="en")
        T = p.params["block"][0]
        if p.solution.trap.startswith(f"A {T}-thread block ends inside"):
            tails += 1
            assert T % WARP
        if "alternating" in p.solution.trap:
            traps += 1
            assert p.answers["divergent_warps"] == p.answers["warps"]
    assert tails and traps


# ---------------------------------------------------------------------------------------------
# The slips, diagnosed


@pytest.mark.parametrize("cell, level, key, slip", [
    ("D-1", 1, "divergent_warps", "every_warp_diverges"),
    ("D-1", 2, "simd_efficiency", "simd_per_block"),
    ("D-1", 3, "divergent_warps", "divergence_per_block"),
    ("D-2", 1, "divergent_iterations", "all_iterations_diverge"),
    ("D-2", 3, "diverging_warps", "finished_as_absent"),
    ("D-3", 1, "grid_divergent", "grid_one_block"),
    ("D-4", 1, "wait_share", "share_of_work"),
    ("D-5", 1, "barrier", "warp_lockstep"),
])
def test_a_slip_is_diagnosed_by_name(cell, level, key, slip):
    from quizgen.gpus import gpu_from_dict
    from quizgen.problems import family

    found = 0
    for seed in range(20):
        p = generate_one(cell, level=level, seed=seed, lang="en")
        fam = family(cell)
        gpu = gpu_from_dict(p.gpu)
        slips = {m.key: m for m in fam.applicable_misconceptions(p.params, gpu, fam.solve(p.params, gpu))}
        if slip not in slips or slips[slip].answers.get(key) in (None, p.answers.get(key)):
            continue
        value = slips[slip].answers[key]
        typed = {"none": "Nothing: delete the barrier"}.get(value, value)
        if isinstance(typed, float):
            typed = f"{typed * 100:.4f}%"
        result = check_answer(p, key, str(typed))
        assert result.status == "wrong" and slip in result.misconceptions, (seed, typed, result)
        found += 1
    assert found, f"{slip} never arose in {cell} level {level}"


def test_the_lockstep_belief_is_wrong_on_a_one_warp_block():
    """D-5's one-warp blocks: deleting the barrier is right only when each thread reads its own
    slot; otherwise "a warp runs in lockstep" is the slip, and __syncwarp() the answer."""
    seen = set()
    for seed in range(12):
        p = generate_one("D-5", level=1, seed=seed, lang="en")
        seen.add(p.answers["barrier"])
        if p.answers["barrier"] == "syncwarp":
            lockstep = [c for c in p.choices if c.misconception == "warp_lockstep"]
            assert lockstep and lockstep[0].value == "none" and not lockstep[0].correct
            assert "lockstep" in p.solution.trap and "7.0" in p.solution.trap
    assert seen == {"none", "syncwarp"}
