"""`quizgen occupancy`: the occupancy calculator that explains itself."""


import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from quizgen.cli.root import app
from quizgen.cli.options import (LANG_CHOICES, GpuFileOpt, GpuOpt, JsonOpt, ModelOpt, SetOpt,
                                 check_lang, load_gpu, parse_block, parse_size)
from quizgen.languages import DEFAULT_LANG


@app.command("occupancy")
def occupancy_command(
    gpu: GpuOpt = None,
    threads: Annotated[Optional[int], typer.Option("--threads", "-t", help="Threads per block (T).")] = None,
    block: Annotated[Optional[list[str]], typer.Option("--block", help="Block shape x,y,z (its product is T); with --ptxas/--cu also NAME=x,y for one kernel (repeatable).")] = None,
    regs: Annotated[int, typer.Option("--regs", "-r", help="Registers per thread (r).")] = 0,
    smem: Annotated[Optional[str], typer.Option("--smem", "-s", help="Static shared memory per block: bytes, or 48K / 48KB (KB = 1024 B).")] = None,
    dyn_smem: Annotated[Optional[str], typer.Option("--dyn-smem", help="Dynamic shared memory per block (bytes or KB).")] = None,
    optin: Annotated[bool, typer.Option("--optin", help="The kernel opts in to large dynamic shared memory (cudaFuncAttributeMaxDynamicSharedMemorySize = --dyn-smem).")] = False,
    optin_limit: Annotated[Optional[str], typer.Option("--optin-limit", help="Opt in with an explicit max dynamic shared memory (bytes or KB).")] = None,
    carveout: Annotated[int, typer.Option("--carveout", help="Shared-memory carveout preference in percent (0-100), or -1 for the default.")] = -1,
    barriers: Annotated[int, typer.Option("--barriers", help="Block barriers the kernel uses (limits blocks from cc 9.0).")] = 1,
    model: ModelOpt = None,
    gpu_file: GpuFileOpt = None,
    set_: SetOpt = None,
    lang: Annotated[Optional[str], typer.Option("--lang", "-l", help=f"Language of the worked solution: {LANG_CHOICES} (default {DEFAULT_LANG}).")] = None,
    as_json: JsonOpt = False,
    batch: Annotated[Optional[Path], typer.Option("--batch", help="JSON Lines file of launches (one object per line; '-' = stdin); prints one JSON result per line.")] = None,
    plot: Annotated[Optional[Path], typer.Option("--plot", help="Also draw the occupancy sweep (vs block size) as an SVG file.")] = None,
    ptxas: Annotated[Optional[Path], typer.Option("--ptxas", help="Read registers, shared memory and barriers from `nvcc --resource-usage` / `-Xptxas -v` output ('-' = stdin); answers every kernel in it.")] = None,
    cu: Annotated[Optional[Path], typer.Option("--cu", help="Compile this .cu file with nvcc --resource-usage (nvcc must be on PATH) and answer for its kernels.")] = None,
    arch: Annotated[Optional[str], typer.Option("--arch", help="Architecture, e.g. sm_80: what --cu compiles for; with --ptxas or the shipped kernels, only this architecture.")] = None,
    kernel: Annotated[Optional[str], typer.Option("--kernel", "-k", help="One kernel (name, demangled name or symbol): its worked solution. Without --ptxas/--cu, a shipped kernel (see --list-kernels).")] = None,
    list_kernels: Annotated[bool, typer.Option("--list-kernels", help="List the shipped real kernels and the architectures they were compiled for.")] = False,
) -> None:
    """Blocks per SM, active warps, occupancy and the limiting resource, with a worked solution.

    Example: quizgen occupancy --gpu a100 --threads 256 --regs 64 --smem 48KB

    From compiled code: quizgen occupancy --ptxas build.log --threads 256 (a table of every
    kernel), --kernel NAME (its worked solution), --json (one JSON object per line);
    quizgen occupancy --cu kernel.cu --arch sm_80 --threads 256; quizgen occupancy --kernel sgemm_tiled_32 --arch sm_90.
    """
    if batch is not None:
        _run_batch(batch, gpu, gpu_file, set_, model=model, lang=lang, as_json=as_json,
                   plot=plot, given={"--threads": threads, "--block": block,
                                     "--regs": regs or None, "--smem": smem,
                                     "--dyn-smem": dyn_smem, "--optin": optin or None,
                                     "--optin-limit": optin_limit,
                                     "--carveout": None if carveout == -1 else carveout,
                                     "--barriers": None if barriers == 1 else barriers,
                                     "--ptxas": ptxas, "--cu": cu, "--kernel": kernel,
                                     "--arch": arch})
        return
    if ptxas is not None or cu is not None or kernel is not None or list_kernels:
        from quizgen.cli.kernels import kernels_command

        kernels_command(ptxas=ptxas, cu=cu, arch=arch, kernel=kernel, list_kernels=list_kernels,
                        gpu=gpu, gpu_file=gpu_file, set_=set_, threads=threads, block=block,
                        regs=regs, smem=smem, dyn_smem=dyn_smem, model=model, lang=lang or DEFAULT_LANG,
                        as_json=as_json,
                        optin=(parse_size("optin-limit", optin_limit) if optin_limit is not None
                               else True if optin else None))
        return
    _solve_one(gpu, gpu_file, set_, threads=threads, block=block, regs=regs, smem=smem,
               dyn_smem=dyn_smem, optin=optin, optin_limit=optin_limit, carveout=carveout,
               barriers=barriers, model=model, lang=lang, as_json=as_json, plot=plot)


def _solve_one(gpu, gpu_file, set_, *, threads, block, regs, smem, dyn_smem, optin, optin_limit,
               carveout, barriers, model, lang, as_json, plot) -> None:
    """One launch from the options: its worked solution, or its JSON (and the sweep's SVG)."""
    from quizgen.engine.occupancy import launch_config, occupancy

    lang = check_lang(lang or DEFAULT_LANG)
    the_gpu = load_gpu(gpu or "textbook", gpu_file, set_)
    block = parse_block("block", _one_block(block))
    if optin_limit is not None:
        optin_value: object = parse_size("optin-limit", optin_limit)
    else:
        optin_value = True if optin else None
    config = launch_config(threads, regs, parse_size("smem", smem), parse_size("dyn-smem", dyn_smem),
                           optin_value, carveout, barriers, block)
    result = occupancy(the_gpu, config, model=model, explain=not as_json)
    if plot is not None:
        _write_plot(plot, the_gpu, config, result.model, lang)
    if as_json:
        typer.echo(json.dumps(result.to_dict(), ensure_ascii=False))
        return
    from quizgen.render.occupancy import occupancy_solution
    from quizgen.render.phrases import phrase
    from quizgen.render.text import render_solution

    title = phrase(lang, "calc-title-occupancy", "occupancy",
                   {"gpu": the_gpu.name, "model": result.model})
    typer.echo(render_solution(occupancy_solution(result, the_gpu, lang), lang, "txt", title=title).rstrip())


def _one_block(block: list[str] | None) -> str | None:
    from quizgen.errors import QuizgenError

    if not block:
        return None
    if len(block) > 1 or "=" in block[0]:
        raise QuizgenError("one block shape x,y,z; NAME=x,y is for --ptxas or --cu", field="block")
    return block[0]


def _run_batch(batch: Path, gpu: str, gpu_file, set_, *, model, lang, as_json, plot,
               given: dict) -> None:
    """Every launch comes from the batch's lines; options that describe one launch are refused,
    --gpu (with --gpu-file and --set) is the GPU of every line without its own "gpu"."""
    from quizgen.engine.batch import read_lines, run_batch
    from quizgen.errors import QuizgenError
    from quizgen.gpus import load_gpu_file

    clash = [name for name, value in given.items() if value is not None]
    if model is not None:
        clash.append("--model")
    if plot is not None:
        clash.append("--plot")
    if clash:
        raise QuizgenError(f"{clash[0]} describes one launch; with --batch put it in each line "
                           "(keys: threads_per_block, block, regs_per_thread, smem_per_block, "
                           "dyn_smem, optin, carveout, barriers, model)", field="batch")
    if lang is not None:
        raise QuizgenError("the batch prints numbers only (JSON), in no language; leave --lang "
                           "out", field="batch")
    extra = load_gpu_file(gpu_file) if gpu_file else None
    default = load_gpu(gpu or "textbook", gpu_file, set_)
    if str(batch) == "-":
        if sys.stdin is None:
            raise QuizgenError("standard input is closed; pipe JSON Lines into it or give a file",
                               field="batch")
        solved, errors = run_batch(read_lines(sys.stdin.buffer), sys.stdout, default_gpu=default,
                                   extra=extra)
    else:
        try:
            stream = batch.open("rb")
        except IsADirectoryError:
            raise QuizgenError(f"{batch} is a folder; give a JSON Lines file", field="batch") from None
        except OSError as exc:
            raise QuizgenError(f"cannot read {batch}: {exc.strerror}", field="batch") from None
        with stream:
            solved, errors = run_batch(read_lines(stream), sys.stdout, default_gpu=default,
                                       extra=extra)
    if errors:
        raise QuizgenError(f"{errors} of {solved + errors} lines failed; each has an "
                           "{\"line\": n, \"error\": ...} object in the output", field="batch")


#: The widest block-size sweep --plot draws (a point per 32 threads).
PLOT_MAX_THREADS = 32768


def _write_plot(path: Path, gpu, config, model: str, lang: str) -> None:
    from quizgen.errors import QuizgenError

    try:
        from quizgen.render.figures import occupancy_sweep
    except ImportError:
        raise QuizgenError("figures are not available in this installation", field="plot") from None
    from quizgen.files import atomic_write

    top = max(gpu.max_threads_per_block, config.threads_per_block)
    if top > PLOT_MAX_THREADS:
        raise QuizgenError(f"the sweep draws block sizes up to {top:,} threads; a plot goes up to "
                           f"{PLOT_MAX_THREADS:,} (drop --plot for this launch)", field="plot")
    svg = occupancy_sweep(gpu, config, vary="threads", model=model, lang=lang)
    atomic_write(path, svg, field="plot")
