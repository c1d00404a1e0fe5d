"""Calculators over code: ``quizgen divergence --if/--loop/--reduction`` (the options are declared
here and used by the divergence command) and ``quizgen barrier`` (waiting at ``__syncthreads()``,
or the least barrier a shared-memory exchange needs).

Conditions, trip counts and reads are C expressions over ``threadIdx``, ``blockIdx``,
``blockDim``, ``gridDim`` and the ``--let`` definitions, read by quizgen's own grammar and never
run by Python (`quizgen.engine.cexpr`): anything else is one error line and exit code 2.
"""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer

from quizgen.cli.options import JsonOpt, LangOpt, check_lang
from quizgen.cli.root import app
from quizgen.errors import QuizgenError
from quizgen.languages import DEFAULT_LANG

IfOpt = Annotated[Optional[str], typer.Option(
    "--if", help="A condition over thread indices, as CUDA writes it: 'threadIdx.x < 40 || threadIdx.x >= 104', "
                 "'i % 2 == 0' (with --let). Counts, warp by warp, the lanes on each path.")]
LoopOpt = Annotated[Optional[str], typer.Option(
    "--loop", help="A per-thread trip count: for (k = 0; k < TRIP; k++), e.g. '5 - (i % 3)' or 'threadIdx.x'.")]
ReductionOpt = Annotated[Optional[str], typer.Option(
    "--reduction", help="interleaved (t % (2*s) == 0) or sequential (t < s): a shared-memory reduction over --block threads.")]
BlockOpt = Annotated[Optional[str], typer.Option(
    "--block", help="Block shape x,y,z (e.g. 128 or 16,16) for --if, --loop and --reduction.")]
GridOpt = Annotated[str, typer.Option("--grid", help="Grid shape x,y,z in blocks (default 1).")]
LetOpt = Annotated[Optional[list[str]], typer.Option(
    "--let", help="A definition the expressions may use, repeatable: 'int i = blockIdx.x * blockDim.x + threadIdx.x'.")]
NOpt = Annotated[Optional[int], typer.Option("--n", help="Elements n, as 'int n = N' (for an 'i < n' boundary check).")]
ExitOpt = Annotated[Optional[str], typer.Option(
    "--exit", help="An earlier exit: lanes for which it holds return before the if (e.g. 'i >= n'); they are idle, not a path.")]
CostsOpt = Annotated[Optional[str], typer.Option(
    "--costs", help="Cycles of the if-path and the else-path, e.g. 20,12: warp times and SIMD efficiency over the branch.")]
WarpOpt = Annotated[Optional[str], typer.Option(
    "--warp", help="A warp to look at: its index in block 0, or block,warp.")]
IterationOpt = Annotated[Optional[int], typer.Option(
    "--iteration", help="One iteration (1 = the first) of --loop or --reduction to look at.")]


def _emit(data: dict[str, Any] | None, solution, lang: str, title: str, as_json: bool) -> None:
    """One JSON object, or the worked solution as text (as every calculator prints)."""
    if as_json:
        import json

        typer.echo(json.dumps(data or {}, ensure_ascii=False))
        return
    from quizgen.render.text import render_solution

    typer.echo(render_solution(solution, lang, "txt", title=title).rstrip())


def _pair(field: str, text: str | None, *, count: int = 2) -> list[int] | None:
    """'20,12' → [20, 12]; whole numbers ≥ 0."""
    if text is None:
        return None
    from quizgen.cli.options import parse_whole

    parts = text.split(",")
    if len(parts) != count or any(not p.strip() for p in parts):
        raise QuizgenError(f"got {text!r}; expected {count} whole numbers like 20,12", field=field)
    return [parse_whole(field, p.strip(), maximum=1 << 30) for p in parts]


def _code(block: str | None, grid: str, lets: list[str] | None, n: int | None):
    from quizgen.cli.options import parse_block
    from quizgen.engine import threads as th

    if block is None:
        raise QuizgenError("give the block shape, e.g. --block 128 or --block 16,16", field="block")
    parse_block("block", block)
    parse_block("grid", grid)
    definitions = list(lets or [])
    if n is not None:
        definitions.append(f"int n = {n}")
    return th.code(th.launch(block, grid), definitions)


def _shape(launch) -> str:
    return "×".join(map(str, launch.block))


def _warp(text: str | None, launch) -> tuple[int, int] | None:
    if text is None:
        return None
    parts = _pair("warp", text, count=2) if "," in text else [0, *(_pair("warp", text, count=1) or [])]
    block, warp = parts
    if not (0 <= block < launch.blocks and 0 <= warp < launch.warps_per_block):
        raise QuizgenError(f"warp {warp} of block {block} is not in {launch.blocks} block(s) of "
                           f"{launch.warps_per_block} warp(s)", field="warp")
    return block, warp


def divergence_from_code(*, cond: str | None, loop: str | None, reduction: str | None,
                         block: str | None, grid: str, lets: list[str] | None, n: int | None,
                         exit_: str | None, costs: str | None, warp: str | None,
                         iteration: int | None, lang: str, as_json: bool) -> None:
    """``quizgen divergence`` with --if, --loop or --reduction."""
    lang = check_lang(lang)
    modes = [name for name, v in (("--if", cond), ("--loop", loop), ("--reduction", reduction)) if v]
    if len(modes) != 1:
        raise QuizgenError(f"give one of --if, --loop, --reduction (got {', '.join(modes)})",
                           field="if")
    if reduction is not None:
        return _reduction(reduction, block, grid, iteration, lang, as_json)
    c = _code(block, grid, lets, n)
    if cond is not None:
        return _branch(c, cond, exit_, _pair("costs", costs), warp, lang, as_json)
    return _loop(c, loop, warp, iteration, lang, as_json)


def _branch(c, cond: str, exit_: str | None, costs: list[int] | None, warp: str | None,
            lang: str, as_json: bool) -> None:
    from quizgen.engine import branches as br
    from quizgen.engine import code_steps as cs
    from quizgen.render.code_calculators import branch_solution, code_title

    b = br.branching(c, cond, exit_)
    named = _warp(warp, c.launch)
    wb = b.warp(*named) if named else None
    data = None
    if as_json:
        data = {**b.to_dict(), "groups": [{k: v for k, v in g.items() if k != "example"}
                                           for g in cs.split_groups(b)]}
        if wb is not None:
            data["warp"] = wb.to_dict()
            if costs:
                data["warp"].update(time=wb.time(*costs), region_efficiency=wb.region_efficiency(*costs))
        if costs:
            data["grid_cycles"] = costs[0] * b.then_warps + costs[1] * b.else_warps
    title = code_title(lang, "branch", cond=b.cond.text, blocks=c.launch.blocks, shape=_shape(c.launch))
    _emit(data, None if as_json else branch_solution(b, lang, warp=wb, costs=tuple(costs) if costs else None),
          lang, title, as_json)


def _loop(c, trip: str, warp: str | None, iteration: int | None, lang: str, as_json: bool) -> None:
    from quizgen.engine import branches as br
    from quizgen.render.code_calculators import code_title, loop_solution

    lw = br.loop_warps(c, trip)
    if iteration is not None and iteration < 1:
        raise QuizgenError(f"got {iteration}; iterations count from 1", field="iteration")
    named = _warp(warp, c.launch)
    data = None
    if as_json:
        data = lw.to_dict()
        if iteration is not None:
            data["iteration"] = {"iteration": iteration, "running": lw.running(iteration),
                                 "diverging": lw.diverging(iteration),
                                 "lanes": lw.lanes_running(iteration)}
        if named is not None:
            b, w = named
            data["warp"] = {"block": b, "warp": w, "shortest": int(lw.t_min[b, w]),
                            "longest": int(lw.t_max[b, w]), "lane_iterations": int(lw.t_sum[b, w])}
    title = code_title(lang, "loop", trip=lw.trip.text, blocks=c.launch.blocks, shape=_shape(c.launch))
    _emit(data, None if as_json else loop_solution(lw, lang, iteration=iteration, warp=named),
          lang, title, as_json)


def _reduction(kind: str, block: str | None, grid: str, iteration: int | None, lang: str,
               as_json: bool) -> None:
    from quizgen.cli.options import parse_block, parse_whole
    from quizgen.engine import branches as br
    from quizgen.render.code_calculators import code_title, reduction_solution

    if block is None:
        raise QuizgenError("give the block's threads, e.g. --block 1024", field="block")
    parse_block("block", block)
    if "," in block.strip(" ()[]"):
        raise QuizgenError(f"got {block!r}; a reduction here runs over a 1-D block, e.g. --block 512",
                           field="block")
    threads = parse_whole("block", block.strip(" ()[]"), minimum=2, maximum=1024)
    blocks = parse_whole("grid", grid.strip(), minimum=1, maximum=1 << 22)
    r = br.reduction(kind.strip().lower(), threads, blocks)
    if iteration is not None:
        r.at(iteration)
    data = r.to_dict() if as_json else None
    title = code_title(lang, "reduction", kind=r.kind, T=threads, G=blocks)
    _emit(data, None if as_json else reduction_solution(r, lang, iteration=iteration), lang, title,
          as_json)


@app.command("barrier")
def barrier_command(
    arrivals: Annotated[Optional[str], typer.Option("--arrivals", help="When each thread (or warp) reaches __syncthreads(), comma-separated: 2.0,2.3,3.0,2.8 …")] = None,
    weights: Annotated[Optional[str], typer.Option("--weights", help="Threads behind each arrival (a warp's lanes arrive together), e.g. 32,32,8; default 1 each.")] = None,
    unit: Annotated[str, typer.Option("--unit", help="The unit of the arrival times (cycles, ns, µs); words only.")] = "cycles",
    read: Annotated[Optional[str], typer.Option("--read", help="The slot each thread reads after thread t wrote slot t (t: its linear index in the block; tx, ty are defined too), e.g. 't ^ 1', '(t + 32) % blockDim.x', 'tx * blockDim.x + ty': which barrier does the exchange need?")] = None,
    block: BlockOpt = None,
    lang: LangOpt = DEFAULT_LANG,
    as_json: JsonOpt = False,
) -> None:
    """Waiting at __syncthreads() (--arrivals), or the least barrier between a shared-memory
    write and a read of another thread's slot (--read with --block).

    Examples: quizgen barrier --arrivals 2.0,2.3,3.0,2.8,2.4,1.9,2.6,2.9 --unit µs
              quizgen barrier --read 't ^ 1' --block 32
    """
    lang = check_lang(lang)
    if (arrivals is None) == (read is None):
        raise QuizgenError("give --arrivals (waiting at the barrier) or --read with --block "
                           "(which barrier an exchange needs)", field="arrivals")
    if read is not None:
        return _partners(read, block, lang, as_json)
    _waits(arrivals, weights, unit, lang, as_json)


def _waits(arrivals: str, weights: str | None, unit: str, lang: str, as_json: bool) -> None:
    from quizgen.engine.barrier import MAX_ARRIVALS, barrier_wait
    from quizgen.grade.parse import read_number
    from quizgen.grade.reading import MAX_SCALAR
    from quizgen.render.code_calculators import code_title, wait_solution

    if len(arrivals) > 20 * MAX_ARRIVALS:
        raise QuizgenError(f"at most {MAX_ARRIVALS:,} arrivals", field="arrivals")
    if len(unit) > 12 or not unit.strip() or any(ch in unit for ch in "{}<>"):
        raise QuizgenError(f"got {unit!r}; expected a short unit such as cycles, ns or µs", field="unit")
    times = [read_number(f"arrivals {i + 1}", t.strip(), minimum=0, maximum=MAX_SCALAR,
                         expected="a time ≥ 0") for i, t in enumerate(arrivals.split(","))]
    counts = None
    if weights is not None:
        counts = _pair("weights", weights, count=len(weights.split(",")))
        if len(counts) != len(times):
            raise QuizgenError(f"{len(counts)} weights for {len(times)} arrivals", field="weights")
    r = barrier_wait(times, counts, explain=not as_json, unit=unit.strip())
    _emit({**r.to_dict(), "unit": unit.strip()} if as_json else None,
          None if as_json else wait_solution(r, lang, unit.strip()), lang,
          code_title(lang, "wait", n=len(times)), as_json)


def _partners(read: str, block: str | None, lang: str, as_json: bool) -> None:
    from quizgen.engine import branches as br
    from quizgen.render.code_calculators import code_title, partner_solution

    c = _code(block, "1", ["int tx = threadIdx.x", "int ty = threadIdx.y",
                           "int t = (threadIdx.z * blockDim.y + ty) * blockDim.x + tx"], None)
    p = br.partners(c, read)
    title = code_title(lang, "partner", shape=_shape(c.launch), read=p.partner.text)
    _emit(p.to_dict() if as_json else None, None if as_json else partner_solution(p, lang), lang,
          title, as_json)
