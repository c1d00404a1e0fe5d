"""`quizgen occupancy`: the occupancy calculator that explains itself."""


import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from quizgen.cli import app
from quizgen.cli.options import (GpuFileOpt, GpuOpt, JsonOpt, LangOpt, ModelOpt, SetOpt, check_lang,
                                 load_gpu, parse_size)


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
    lang: LangOpt = "hinglish",
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
        from quizgen.engine.batch import run_batch

        source = sys.stdin if str(batch) == "-" else _open_batch(batch)
        run_batch(source, sys.stdout)
        return
    if ptxas is not None or cu is not None or kernel is not None or list_kernels:
        from quizgen.cli.kernels import kernels_command

        kernels_command(ptxas=ptxas, cu=cu, arch=arch, kernel=kernel, list_kernels=list_kernels,
                        gpu=gpu, gpu_file=gpu_file, set_=set_, threads=threads, block=block,
                        regs=regs, smem=smem, dyn_smem=dyn_smem, model=model, lang=lang,
                        as_json=as_json)
        return
    from quizgen.engine.occupancy import launch_config, occupancy

    lang = check_lang(lang)
    the_gpu = load_gpu(gpu or "textbook", gpu_file, set_)
    block = _one_block(block)
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
    from quizgen.render.text import render_solution

    title = f"Occupancy · {the_gpu.name} · {result.model} model"
    typer.echo(render_solution(occupancy_solution(result, the_gpu, lang), lang, "txt", title=title).rstrip())


def _one_block(block: list[str] | None) -> str | None:
    from quizgen.errors import QuizgenError

    if not block:
        return None
    if len(block) > 1 or "=" in block[0]:
        raise QuizgenError("one block shape x,y,z; NAME=x,y is for --ptxas or --cu", field="block")
    return block[0]


def _open_batch(path: Path):
    from quizgen.errors import QuizgenError

    try:
        return path.open(encoding="utf-8-sig")
    except OSError as exc:
        raise QuizgenError(f"cannot read {path}: {exc.strerror}", field="batch") from None


def _write_plot(path: Path, gpu, config, model: str, lang: str) -> None:
    from quizgen.errors import QuizgenError

    try:
        from quizgen.render.figures import occupancy_sweep
    except ImportError:
        raise QuizgenError("figures are not available in this installation", field="plot") from None
    svg = occupancy_sweep(gpu, config, vary="threads", model=model, lang=lang)
    path.write_text(svg, encoding="utf-8")
