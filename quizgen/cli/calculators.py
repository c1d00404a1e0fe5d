"""Calculators for the warp, latency, divergence, grid and memory-bound engine (seed 000, 001, 004).

``quizgen warps``, ``latency``, ``divergence``, ``waves`` and ``bound``: each parses its options,
calls the engine, and prints the worked solution (in the phrasebook's default language, or ``--lang``) or, with
``--json``, one JSON object. In that object the main calculation's fields sit at the top level and
every optional part (a thread, a warp's members, a second block, η(N), Little's law, the occupancy
behind blocks per SM) is nested under its own key.
"""


import json
import re
from fractions import Fraction
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any, Optional

import typer

from quizgen.cli import code
from quizgen.cli.root import app
from quizgen.cli.options import (GpuFileOpt, GpuOpt, JsonOpt, LangOpt, ModelOpt, SetOpt, check_lang,
                                 load_gpu, parse_size, parse_whole)
from quizgen.languages import DEFAULT_LANG
from quizgen.errors import QuizgenError


@contextmanager
def option_names(names: dict[str, str]) -> Iterator[None]:
    """Report the engine's field names (grid_blocks, branches[1].lanes) as the options the user
    typed (grid, branch 2 lanes), so that the one error line points at the command line."""
    try:
        yield
    except QuizgenError as exc:
        field = exc.field or ""
        branch = re.fullmatch(r"branches\[(\d+)\](?:\.(lanes|cost))?", field)
        if branch:
            name = f"branch {int(branch.group(1)) + 1}" + (f" {branch.group(2)}" if branch.group(2) else "")
        else:
            name = names.get(field)
        if name is None:
            raise
        raise QuizgenError(str(exc)[len(field) + 2:], field=name) from None


def number(field: str, text: str | None, *, positive: bool = False) -> Fraction | None:
    """A calculator's number (a cost, a rate) read by the answer reader: '1e999999' or '1,5' is a
    one-line error; 0.5, 1/3 and 1,000 read as they look."""
    if text is None:
        return None
    from quizgen.grade.parse import read_number
    from quizgen.grade.reading import MAX_SCALAR

    value = read_number(field, text, minimum=0, maximum=MAX_SCALAR,
                        expected="a number > 0" if positive else "a number ≥ 0")
    if positive and value == 0:
        raise QuizgenError(f"got {text!r}; expected a number > 0", field=field)
    return value


def _emit_json(data: dict[str, Any]) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False))


def _emit_text(solution, lang: str, title: str, question: str = "") -> None:
    from quizgen.render.text import render_solution

    typer.echo(render_solution(solution, lang, "txt", title=title, question=question).rstrip())


# ------------------------------------------------------------------------------------------------


@app.command("warps")
def warps_command(
    block: Annotated[str, typer.Option("--block", "-b", help="Block shape x,y,z (e.g. 48,4,1 or 100; missing dimensions are 1).")],
    thread: Annotated[Optional[int], typer.Option("--thread", help="Linear index of one thread: find its (x, y, z), warp and lane.")] = None,
    coords: Annotated[Optional[str], typer.Option("--coords", help="One thread's coordinates x,y,z (e.g. 6,0,2): find its linear index, warp and lane.")] = None,
    warp: Annotated[Optional[int], typer.Option("--warp", help="A warp index: list that warp's threads as pieces of rows.")] = None,
    compare: Annotated[Optional[str], typer.Option("--compare", help="A second block shape (e.g. 30,30): compare idle lanes, warps and row alignment with --block.")] = None,
    grid: Annotated[Optional[str], typer.Option("--grid", help="Blocks in the grid (e.g. 8, or gridDim 4,2,1): count the whole grid's threads and warps.")] = None,
    elements: Annotated[Optional[int], typer.Option("--elements", help="Elements, one thread each (n in <<<(n + T - 1)/T, T>>>): the grid is ⌈n/T⌉ blocks; count its threads, its warps and the threads past the end.")] = None,
    lang: LangOpt = DEFAULT_LANG,
    as_json: JsonOpt = False,
) -> None:
    """Warps per block, the tail warp and its wasted lanes; where a thread sits; who is in a warp.

    Example: quizgen warps --block 8,4,3 --thread 70

    A whole grid: quizgen warps --block 512 --elements 2000 (or --grid 4).

    With --json the block's numbers are at the top level; thread, warp_members, compare and grid
    are nested objects.
    """
    from quizgen.engine.warps import (block_shape, block_warps, compare_blocks, locate_thread,
                                      warp_members)

    from quizgen.cli.options import parse_block

    lang = check_lang(lang)
    block = parse_block("block", block)
    compare = parse_block("compare", compare)
    coords = parse_block("coords", coords)
    if thread is not None and coords is not None:
        raise QuizgenError("give one thread, either --thread or --coords, not both", field="thread")
    explain = not as_json
    if compare is not None:
        with option_names({"block": "compare"}):
            block_shape(compare)
    with option_names({"block": "block", "linear_index": "thread", "coords": "coords",
                       "warp_id": "warp"}):
        result = block_warps(block, explain=explain)
        location = None
        if thread is not None or coords is not None:
            location = locate_thread(block, linear=thread, coords=coords, explain=explain)
        segments = warp_members(block, warp) if warp is not None else None
        comparison = compare_blocks(block, compare, explain=explain) if compare is not None else None
    whole = None
    if grid is not None or elements is not None:
        from quizgen.engine.grid import grid_count

        if grid is not None and elements is not None:
            raise QuizgenError("give --grid or --elements, not both (--elements sets the grid to "
                               "⌈n/T⌉ blocks)", field="grid")
        whole = grid_count(block, grid, elements=elements, explain=explain)
    _print_warps(result, location, segments, comparison, thread=thread, warp=warp, lang=lang,
                 as_json=as_json, whole=whole)


def _print_warps(result, location, segments, comparison, *, thread: int | None, warp: int | None,
                 lang: str, as_json: bool, whole=None) -> None:
    """The block's warps (and the thread, the warp's members, the comparison asked for) as one
    JSON object, or as worked solutions: the block's, then the comparison's."""
    if as_json:
        data = result.to_dict()
        if location is not None:
            data["thread"] = location.to_dict()
        if segments is not None:
            data["warp_members"] = {"warp_id": warp, "segments": [s.to_dict() for s in segments]}
        if comparison is not None:
            data["compare"] = comparison.to_dict()
        if whole is not None:
            data["grid"] = whole.to_dict()
        _emit_json(data)
        return

    from quizgen.render.calculators import (calculator_title, compare_solution, shape_text,
                                            warps_solution)

    solution = warps_solution(result, lang, thread=location, from_linear=thread is not None,
                              warp_id=warp, segments=segments)
    _emit_text(solution, lang, calculator_title(lang, "warps", shape=shape_text(result.block)))
    if comparison is not None:
        typer.echo("")
        title = calculator_title(lang, "compare", a=shape_text(comparison.first.block),
                                 b=shape_text(comparison.second.block))
        _emit_text(compare_solution(comparison, lang), lang, title)
    if whole is not None:
        from quizgen.render.calculators import grid_solution

        typer.echo("")
        _emit_text(grid_solution(whole, lang), lang,
                   calculator_title(lang, "grid", G=whole.blocks, shape=shape_text(result.block)))


# ------------------------------------------------------------------------------------------------


LATENCY_OPTIONS = {"latency": "latency", "work_per_warp": "work", "schedulers": "schedulers",
                   "stall": "stall",
                   "issue_interval": "issue-interval", "max_warps": "max-warps",
                   "resident_warps": "resident", "throughput": "throughput", "ilp": "ilp"}


@app.command("latency")
def latency_command(
    latency: Annotated[Optional[int], typer.Option("--latency", "-L", help="Stall latency L in cycles (e.g. a global load, about 400).")] = None,
    work: Annotated[Optional[int], typer.Option("--work", "-W", help="Independent instructions one warp issues between stalls (W, or I_warp): each scheduler needs ⌈L/W⌉ warps.")] = None,
    schedulers: Annotated[Optional[int], typer.Option("--schedulers", help="Warp schedulers per SM (N_sched; default: the GPU's). Each needs its own warps, so the SM needs N_sched times one scheduler's.")] = None,
    issue_interval: Annotated[int, typer.Option("--issue-interval", help="Cycles between two issues of one scheduler (T_issue).")] = 1,
    max_warps: Annotated[Optional[int], typer.Option("--max-warps", help="The SM's cap on resident warps (default: the GPU's; 64 on the textbook SM).")] = None,
    resident: Annotated[Optional[int], typer.Option("--resident", help="Resident warps N on one scheduler: also print the efficiency η(N) = min(N, L)/L (at most the SM's cap of resident warps).")] = None,
    throughput: Annotated[Optional[str], typer.Option("--throughput", help="Operations one scheduler must start per cycle (X_s, e.g. 1 or 0.5), for Little's law; instead of --issue-interval.")] = None,
    ilp: Annotated[Optional[str], typer.Option("--ilp", help="Independent operations in flight per warp (ILP, default 1); multiplies the work a warp brings.")] = None,
    stall: Annotated[Optional[str], typer.Option("--stall", help="What the warps wait for: memory (a load; an unhidden one makes the kernel memory-bound) or arithmetic (a dependent instruction's latency: never memory-bound, ILP closes the gap). Default: not said.")] = None,
    bandwidth: Annotated[Optional[str], typer.Option("--bandwidth", help="Little's law in bytes: peak memory bandwidth in GB/s (default: the GPU's); bytes in flight = bandwidth × latency.")] = None,
    latency_ns: Annotated[Optional[str], typer.Option("--latency-ns", help="Little's law in bytes: the load latency in ns (or give --latency in cycles with --clock).")] = None,
    clock: Annotated[Optional[str], typer.Option("--clock", help="Little's law in bytes: the SM clock in GHz, to turn --latency (cycles) into ns.")] = None,
    lane_bytes: Annotated[int, typer.Option("--lane-bytes", help="Little's law in bytes: bytes one thread loads at a time (a float 4, a float4 16).")] = 4,
    gpu: GpuOpt = "textbook",
    gpu_file: GpuFileOpt = None,
    set_: SetOpt = None,
    lang: LangOpt = DEFAULT_LANG,
    as_json: JsonOpt = False,
) -> None:
    """Warps needed to hide a stall, against the SM's cap; η(N); Little's law.

    Example: quizgen latency --latency 400 --work 20 --schedulers 4

    An arithmetic latency (GK110: 4 schedulers, 2 instructions per cycle each, 10 cycles):
    quizgen latency --latency 10 --schedulers 4 --throughput 2 --stall arithmetic

    Little's law in bytes: quizgen latency --gpu a100 --latency-ns 500 --lane-bytes 16

    With --json the warps-needed numbers are at the top level; efficiency (--resident) and
    bytes (Little's law in bytes) are nested objects.
    """
    from quizgen.engine.latency import efficiency, hide_latency

    lang = check_lang(lang)
    in_bytes = _check_latency_asks(latency, work, resident, throughput, ilp, stall, issue_interval,
                                   bandwidth, latency_ns, clock)
    the_gpu = load_gpu(gpu, gpu_file, set_)
    cap = max_warps if max_warps is not None else the_gpu.max_warps_per_sm
    explain = not as_json
    hiding = eta = None
    in_flight = _bytes_in_flight(the_gpu, cap, latency, latency_ns, bandwidth, clock, lane_bytes,
                                 ilp, explain) if in_bytes else None
    with option_names(LATENCY_OPTIONS):
        if work is not None or throughput is not None or (ilp is not None and not in_bytes):
            hiding = hide_latency(latency, work if work is not None else 1,
                                  schedulers=(schedulers if schedulers is not None
                                              else the_gpu.schedulers_per_sm),
                                  issue_interval=issue_interval,
                                  throughput=(number("throughput", throughput, positive=True)
                                              if throughput is not None else None),
                                  ilp=number("ilp", ilp, positive=True) if ilp is not None else 1,
                                  max_warps=cap, stall=stall, explain=explain)
        if resident is not None:
            if isinstance(resident, int) and isinstance(cap, int) and resident > cap >= 1:
                # an SM holds at most its cap of warps: more are not resident (CELLS.md, OCC-6)
                raise QuizgenError(f"got {resident}; at most {cap} warps can be resident on one "
                                   "SM (--max-warps sets another cap)", field="resident_warps")
            eta = efficiency(resident, latency, max_warps=cap, explain=explain)
    _print_latency(latency, hiding, eta, lang, as_json, in_flight)


def _check_latency_asks(latency, work, resident, throughput, ilp, stall, issue_interval,
                        bandwidth, latency_ns, clock) -> bool:
    """One line for options that ask nothing or clash; True when Little's law in bytes is asked."""
    from quizgen.engine.latency import STALLS

    if stall is not None and stall not in STALLS:
        raise QuizgenError(f"got {stall!r}; expected {' or '.join(STALLS)}", field="stall")
    in_bytes = bandwidth is not None or latency_ns is not None or clock is not None
    if work is None and resident is None and throughput is None and ilp is None and not in_bytes:
        raise QuizgenError("nothing to compute: give --work (warps needed), --resident (η(N)), "
                           "--throughput (Little's law) or --latency-ns / --bandwidth (Little's "
                           "law in bytes)", field="work")
    warps_asked = work is not None or throughput is not None or resident is not None or (
        ilp is not None and not in_bytes)
    if latency is None and (warps_asked or latency_ns is None):
        raise QuizgenError("missing; give the stall latency in cycles (--latency)"
                           + ("" if warps_asked else ", or in ns (--latency-ns)"), field="latency")
    if throughput is not None and issue_interval != 1:
        raise QuizgenError("give --throughput or --issue-interval, not both (X_s = 1/T_issue)",
                           field="throughput")
    return in_bytes


def _bytes_in_flight(gpu, cap, latency, latency_ns, bandwidth, clock, lane_bytes, ilp, explain):
    """Little's law in bytes on `gpu`: its bandwidth (or --bandwidth) × the latency in ns
    (--latency-ns, or --latency cycles at --clock GHz), shared by its SMs."""
    from quizgen.engine.flight import bytes_to_hide

    if latency_ns is None and clock is None:
        raise QuizgenError("Little's law in bytes needs the latency in ns: give --latency-ns, or "
                           "--clock (GHz) to turn --latency cycles into ns", field="latency-ns")
    if latency_ns is not None and clock is not None:
        raise QuizgenError("give --latency-ns, or --latency with --clock, not both", field="clock")
    peak = number("bandwidth", bandwidth, positive=True) if bandwidth is not None else gpu.mem_bandwidth_gbs
    if not peak:
        raise QuizgenError(f"GPU {gpu.name!r} has no mem_bandwidth_gbs: give --bandwidth",
                           field="bandwidth")
    with option_names({"latency_ns": "latency-ns" if latency_ns is not None else "latency",
                       "lane_bytes": "lane-bytes", "max_warps": "max-warps"}):
        return bytes_to_hide(peak, number("latency-ns", latency_ns, positive=True)
                             if latency_ns is not None else latency, gpu.num_sms,
                             lane_bytes=lane_bytes,
                             ilp=parse_whole("ilp", ilp, minimum=1) if ilp is not None else 1,
                             max_warps=cap, clock_ghz=number("clock", clock, positive=True)
                             if clock is not None else None, explain=explain)


def _print_latency(latency: int | None, hiding, eta, lang: str, as_json: bool,
                   in_flight=None) -> None:
    """The warps needed and η(N) as one JSON object (η and the bytes nested), or as worked
    solutions."""
    if as_json:
        data: dict[str, Any] = {"latency": latency}
        if hiding is not None:
            data.update(hiding.to_dict())
        if eta is not None:
            data["efficiency"] = eta.to_dict()
        if in_flight is not None:
            data["bytes"] = in_flight.to_dict()
        _emit_json(data)
        return

    from quizgen.render.calculators import bytes_solution, calculator_title, latency_solution

    if hiding is not None or eta is not None:
        solution = latency_solution(lang, hiding=hiding, eta=eta)
        _emit_text(solution, lang, calculator_title(lang, "latency", L=latency))
    if in_flight is not None:
        if hiding is not None or eta is not None:
            typer.echo("")
        _emit_text(bytes_solution(in_flight, lang), lang,
                   calculator_title(lang, "bytes", B=in_flight.bandwidth, t=in_flight.latency_ns))


# ------------------------------------------------------------------------------------------------


def parse_branch(text: str, index: int) -> tuple[int, Fraction]:
    """'20:30' → (20, 30): lanes and cost as numbers, bounded; the engine checks the rest."""
    parts = text.split(":")
    if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
        raise QuizgenError(f"got {text!r}; expected lanes:cost like 20:30", field=f"branch {index + 1}")
    from quizgen.cli.options import parse_whole

    where = f"branch {index + 1}"
    lanes = parse_whole(f"{where} lanes", parts[0].strip(), maximum=1 << 20)
    return lanes, number(f"{where} cost", parts[1].strip())


@app.command("divergence")
def divergence_command(
    branch: Annotated[Optional[list[str]], typer.Option("--branch", "-b", help="One branch as lanes:cost, e.g. 20:30 = 20 lanes take it, 30 cycles; repeat for every branch (0 lanes = nobody takes it).")] = None,
    baseline: Annotated[Optional[str], typer.Option("--baseline", help="Convergent time to compare with, in cycles (default: the time if every lane of a warp agreed).")] = None,
    active_lanes: Annotated[int, typer.Option("--active-lanes", help="Active lanes in the warp; the branches' lanes must add up to it.")] = 32,
    cond: code.IfOpt = None,
    loop: code.LoopOpt = None,
    reduction: code.ReductionOpt = None,
    block: code.BlockOpt = None,
    grid: code.GridOpt = "1",
    let: code.LetOpt = None,
    n: code.NOpt = None,
    exit_: code.ExitOpt = None,
    costs: code.CostsOpt = None,
    warp: code.WarpOpt = None,
    iteration: code.IterationOpt = None,
    lang: LangOpt = DEFAULT_LANG,
    as_json: JsonOpt = False,
) -> None:
    """Divergence of a warp: from its lanes per branch (--branch), or worked out from the code:
    a condition (--if), a thread-dependent loop (--loop) or a reduction (--reduction).

    Examples: quizgen divergence --branch 20:30 --branch 12:30
              quizgen divergence --if 'threadIdx.x < 40 || threadIdx.x >= 104' --block 128 --grid 8
    """
    from quizgen.engine.divergence import divergence

    if branch is None or cond or loop or reduction:
        if branch is not None:
            raise QuizgenError("give --branch, or one of --if, --loop, --reduction, not both",
                               field="branch")
        return code.divergence_from_code(cond=cond, loop=loop, reduction=reduction, block=block,
                                         grid=grid, lets=let, n=n, exit_=exit_, costs=costs,
                                         warp=warp, iteration=iteration, lang=lang, as_json=as_json)
    lang = check_lang(lang)
    pairs = [parse_branch(text, i) for i, text in enumerate(branch)]
    with option_names({"branches": "branch", "active_lanes": "active-lanes",
                       "baseline": "baseline"}):
        result = divergence(pairs, active_lanes=active_lanes,
                            baseline=number("baseline", baseline),
                            explain=not as_json)
    if as_json:
        _emit_json(result.to_dict())
        return
    from quizgen.render.calculators import calculator_title, divergence_solution

    _emit_text(divergence_solution(result, lang), lang,
               calculator_title(lang, "divergence", n=len(result.branches)))


# ------------------------------------------------------------------------------------------------


@app.command("waves")
def waves_command(
    grid: Annotated[int, typer.Option("--grid", help="Blocks in the grid (G).")],
    blocks_per_sm: Annotated[Optional[int], typer.Option("--blocks-per-sm", "-B", help="Resident blocks per SM; leave out to compute it from --threads/--regs/--smem.")] = None,
    threads: Annotated[Optional[int], typer.Option("--threads", "-t", help="Threads per block, to compute blocks per SM with the occupancy calculator.")] = None,
    regs: Annotated[int, typer.Option("--regs", "-r", help="Registers per thread, with --threads.")] = 0,
    smem: Annotated[Optional[str], typer.Option("--smem", "-s", help="Shared memory per block, with --threads: bytes, or 48K / 48KB (KB = 1024 B).")] = None,
    model: ModelOpt = None,
    gpu: GpuOpt = "textbook",
    gpu_file: GpuFileOpt = None,
    set_: SetOpt = None,
    lang: LangOpt = DEFAULT_LANG,
    as_json: JsonOpt = False,
) -> None:
    """Waves a grid takes on the whole GPU, the ragged tail wave and idle SMs.

    Example: quizgen waves --grid 2000 --blocks-per-sm 8   (the textbook GPU has 80 SMs)
    """
    from quizgen.engine.grid import waves

    lang = check_lang(lang)
    the_gpu = load_gpu(gpu, gpu_file, set_)
    occ = None
    if blocks_per_sm is None:
        if threads is None:
            raise QuizgenError("give --blocks-per-sm, or --threads (with --regs/--smem) to "
                               "compute it", field="blocks-per-sm")
        from quizgen.engine.occupancy import launch_config, occupancy

        with option_names({"threads_per_block": "threads", "regs_per_thread": "regs",
                           "smem_per_block": "smem"}):
            occ = occupancy(the_gpu, launch_config(threads, regs, parse_size("smem", smem)),
                            model=model, explain=not as_json)
        if occ.blocks_per_sm == 0:
            raise QuizgenError(f"not even one block of {threads} threads fits on an SM of "
                               f"{the_gpu.name} ({occ.model} model), so the grid never launches",
                               field="blocks-per-sm")
        blocks_per_sm = occ.blocks_per_sm
    elif threads is not None or regs or smem is not None or model is not None:
        raise QuizgenError("give either --blocks-per-sm or --threads/--regs/--smem, not both",
                           field="blocks-per-sm")
    with option_names({"grid_blocks": "grid", "blocks_per_sm": "blocks-per-sm"}):
        result = waves(grid, the_gpu.num_sms, blocks_per_sm, explain=not as_json)

    if as_json:
        data = {"gpu": the_gpu.name, **result.to_dict(),
                "blocks_per_sm_from": "occupancy" if occ is not None else "given"}
        if occ is not None:
            data["occupancy"] = occ.to_dict()
        _emit_json(data)
        return

    from quizgen.render.calculators import calculator_title, waves_given, waves_solution

    question = waves_given(lang, occ, the_gpu.name) if occ is not None else ""
    _emit_text(waves_solution(result, lang, occupancy=occ, gpu=the_gpu), lang,
               calculator_title(lang, "waves", gpu=the_gpu.name, G=grid), question)


# ------------------------------------------------------------------------------------------------


@app.command("bound")
def bound_command(
    load_bytes: Annotated[int, typer.Option("--load-bytes", help="Bytes one thread loads from global memory (a float4 is 16).")],
    flops: Annotated[str, typer.Option("--flops", help="Floating-point operations one thread does.")],
    load_latency: Annotated[Optional[int], typer.Option("--load-latency", help="Latency of the load in cycles (global memory: about 400), for one thread's critical path; leave it out when only the verdict is asked (the roofline needs no latency).")] = None,
    store_bytes: Annotated[int, typer.Option("--store-bytes", help="Bytes one thread stores (traffic, but not on the critical path).")] = 0,
    flop_latency: Annotated[str, typer.Option("--flop-latency", help="Latency of one FLOP in cycles (the shortest compute time).")] = "4",
    flops_per_cycle: Annotated[str, typer.Option("--flops-per-cycle", help="FLOPs one thread issues per cycle when pipelined.")] = "1",
    gpu: GpuOpt = "textbook",
    gpu_file: GpuFileOpt = None,
    set_: SetOpt = None,
    lang: LangOpt = DEFAULT_LANG,
    as_json: JsonOpt = False,
) -> None:
    """Memory-bound or compute-bound: bytes, arithmetic intensity and one thread's critical path.

    Example: quizgen bound --load-bytes 16 --store-bytes 4 --flops 10 --load-latency 400

    The verdict is the roofline's (arithmetic intensity against the GPU's machine balance, which
    --set peak_fp32_gflops=… --set mem_bandwidth_gbs=… changes); --load-latency only adds the
    critical path that explains the wait.
    """
    from quizgen.engine.bound import classify_kernel

    lang = check_lang(lang)
    the_gpu = load_gpu(gpu, gpu_file, set_)
    with option_names({"bytes_loaded": "load-bytes", "bytes_stored": "store-bytes",
                       "flops": "flops", "load_latency": "load-latency",
                       "flop_latency": "flop-latency", "flops_per_cycle": "flops-per-cycle"}):
        result = classify_kernel(load_bytes, store_bytes, number("flops", flops),
                                 load_latency=load_latency,
                                 flop_latency=number("flop-latency", flop_latency),
                                 flops_per_cycle=number("flops-per-cycle", flops_per_cycle,
                                                        positive=True),
                                 gpu=the_gpu, explain=not as_json)
    if as_json:
        _emit_json(result.to_dict())
        return
    from quizgen.render.calculators import bound_solution, calculator_title

    _emit_text(bound_solution(result, lang, gpu_name=the_gpu.spoken_name), lang, calculator_title(lang, "bound"))
