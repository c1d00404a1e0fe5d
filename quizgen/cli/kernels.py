"""`quizgen occupancy --ptxas / --cu / --kernel`: occupancy of real compiled kernels."""


import json
import sys
from pathlib import Path

import typer

from quizgen.cli.options import check_lang, load_gpu, parse_size
from quizgen.errors import QuizgenError


def kernels_command(*, ptxas, cu, arch, kernel, list_kernels, gpu, gpu_file, set_, threads, block,
                    regs, smem, dyn_smem, model, lang, as_json, optin=None) -> None:
    from quizgen import kernels as shipped
    from quizgen.engine.ptxas import arch_capability, find_kernels

    lang = check_lang(lang)
    if list_kernels:
        _list(as_json)
        return
    if ptxas is not None and cu is not None:
        raise QuizgenError("give --ptxas or --cu, not both", field="ptxas")
    if regs or smem is not None:
        raise QuizgenError("registers and static shared memory come from the compiler's report; "
                           "drop --regs/--smem (use --dyn-smem for dynamic shared memory)", field="regs")
    if arch is not None:
        arch_capability(arch)
    the_gpu = load_gpu(gpu, gpu_file, set_) if gpu is not None else None
    default_block = None
    if ptxas is not None:
        usages = _read_log(ptxas)
    elif cu is not None:
        if arch is None:
            raise QuizgenError("--cu needs --arch (e.g. --arch sm_80)", field="arch")
        usages = _named(shipped.compile_resource_usage(cu, arch))
    else:
        usages, default_block, dyn_smem = _shipped_usages(kernel, arch, the_gpu, threads, block,
                                                          dyn_smem)
    if arch is not None and (ptxas is not None or cu is not None):
        usages = [u for u in usages if u.arch in (None, arch)] or _none_for(arch, usages)
    if kernel is not None and (ptxas is not None or cu is not None):
        picked = find_kernels(usages, kernel)
        if not picked:
            raise QuizgenError(f"no kernel named {kernel!r} in the log; kernels: "
                               + ", ".join(dict.fromkeys(u.shown for u in usages)), field="kernel")
        usages = picked
    per_kernel, common = _split_blocks(block)
    if threads is None and common is None and default_block is not None and not per_kernel:
        common = default_block
    answers = shipped.answer_kernels(usages, gpu=the_gpu, arch=arch, threads=threads,
                                     blocks=per_kernel, block=common,
                                     dyn_smem=parse_size("dyn-smem", dyn_smem), optin=optin, model=model,
                                     explain=not as_json and kernel is not None)
    _print_answers(answers, kernel, lang, as_json)


def _shipped_usages(kernel, arch, the_gpu, threads, block, dyn_smem):
    """The shipped kernel `kernel` names: its resource usage for each architecture asked (or
    shipped), its first block shape, and the dynamic shared memory it takes at that block."""
    from quizgen import kernels as shipped

    keys = shipped.find_shipped(kernel)
    if not keys:
        raise QuizgenError(f"no shipped kernel named {kernel!r}; shipped kernels are: "
                           + ", ".join(shipped.kernel_names()), field="kernel")
    if len(keys) > 1:
        raise QuizgenError(f"{kernel!r} names {len(keys)} shipped kernels ({', '.join(keys)}); "
                           "pick one", field="kernel")
    archs = [arch] if arch else ([_arch_of(the_gpu)] if the_gpu is not None and _arch_of(the_gpu)
                                 in shipped.shipped_archs() else shipped.shipped_archs())
    usages = [shipped.kernel_usage(keys[0], a) for a in archs]
    default_block = shipped.kernel_meta(keys[0])["blocks"][0]
    if dyn_smem is None:
        shape = _shape(block[0]) if block else ([threads, 1, 1] if threads else default_block)
        dyn_smem = str(shipped.dyn_smem_for(keys[0], shape[0] * shape[1] * shape[2]))
    return usages, default_block, dyn_smem


def _print_answers(answers, kernel, lang: str, as_json: bool) -> None:
    """Warnings on stderr, then one JSON object per kernel, the worked solution of the kernel
    asked for, or the table of every kernel."""
    for warning in dict.fromkeys(a.warning for a in answers if a.warning):
        typer.echo(f"warning: {warning}", err=True)
    if as_json:
        for a in answers:
            typer.echo(json.dumps(a.to_dict(), ensure_ascii=False))
        return
    if kernel is not None:
        for i, a in enumerate(answers):
            if i:
                typer.echo("")
            typer.echo(worked(a, lang))
        return
    typer.echo(table(answers))


def _arch_of(gpu) -> str | None:
    cc = gpu.compute_capability
    return f"sm_{cc.replace('.', '')}" if cc else None


def _none_for(arch, usages):
    raise QuizgenError(f"the log has no kernel compiled for {arch}; it has "
                       + ", ".join(dict.fromkeys(str(u.arch) for u in usages)), field="arch")


def _shape(text: str) -> list[int]:
    from quizgen.engine.warps import block_shape

    return list(block_shape(text))


def _split_blocks(block: list[str] | None):
    per_kernel: dict[str, str] = {}
    common = None
    for item in block or []:
        if "=" in item:
            name, shape = item.rsplit("=", 1)
            per_kernel[name.strip()] = shape
        elif common is None:
            common = item
        else:
            raise QuizgenError("one common block shape; name the others as NAME=x,y", field="block")
    return per_kernel, common


def _named(text: str):
    from quizgen.engine.ptxas import parse_ptxas, with_display_names

    return with_display_names(parse_ptxas(text))


def _read_log(path: Path):
    from quizgen.files import LIMITS, read_stream_limited, size_text

    if str(path) == "-":
        return _named(read_stream_limited(sys.stdin, "ptxas").decode("utf-8", errors="replace"))
    limit = LIMITS["ptxas"]
    try:
        with path.open("rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise QuizgenError(f"cannot read {path}: {exc.strerror}", field="ptxas") from None
    if len(data) > limit:
        raise QuizgenError(f"{path} is larger than {size_text(limit)}, far more than any ptxas "
                           "log; give the right file", field="ptxas")
    return _named(data.decode("utf-8", errors="replace"))


def _list(as_json: bool) -> None:
    from quizgen import kernels as shipped

    for key in shipped.kernel_names():
        meta = shipped.kernel_meta(key)
        archs = shipped.load_usage()["kernels"][key]
        if as_json:
            typer.echo(json.dumps({"kernel": key, "entry": meta["entry"], "source": meta["source"],
                                   "blocks": meta["blocks"], "archs": sorted(archs)}))
        else:
            regs = " ".join(f"{a}:{archs[a]['regs_per_thread']}" for a in shipped.shipped_archs() if a in archs)
            typer.echo(f"{key:22} {meta['entry']}\n{'':22} registers {regs}")


def _pct(x: float) -> str:
    from quizgen.render.numbers import percent

    return percent(x, 2)


def table(answers) -> str:
    """One row per kernel × architecture."""
    head = ("kernel", "arch", "GPU", "block", "regs", "smem", "bar", "spill st/ld", "blocks/SM",
            "warps", "occupancy", "limiter")
    rows = [head]
    for a in answers:
        u, r, cfg = a.usage, a.result, a.result.config
        shape = "×".join(map(str, cfg.block)) if cfg.block else str(cfg.threads_per_block)
        smem = str(cfg.smem_per_block) + (f"+{cfg.dyn_smem}" if cfg.dyn_smem else "")
        rows.append((_short(u), u.arch or "?", a.gpu.name, shape, str(u.registers), smem,
                     "?" if u.barriers is None else str(u.barriers),
                     f"{u.spill_stores}/{u.spill_loads}" if u.spills else "-",
                     str(r.blocks_per_sm), f"{r.active_warps}/{r.max_warps_per_sm}",
                     _pct(r.occupancy), "+".join(r.limiter) + (" (fails)" if r.launch_fails else "")))
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _short(usage) -> str:
    from quizgen.engine.ptxas import short_name

    return short_name(usage)


def worked(answer, lang: str) -> str:
    """The worked solution for one kernel, opened by what the compiler reported."""
    from quizgen.render.occupancy import occupancy_solution
    from quizgen.render.phrases import phrase
    from quizgen.render.text import render_solution

    u, res = answer.usage, answer.result
    ctx = {"kernel": u.shown, "arch": u.arch or "?", "line": u.line, "r": u.registers, "s": u.smem,
           "b": 1 if u.barriers is None else u.barriers, "gpu": answer.gpu.name,
           "stores": u.spill_stores, "loads": u.spill_loads, "stack": u.stack,
           "dyn": res.config.dyn_smem}
    head = [phrase(lang, "kernel-cli", "read", ctx)]
    if res.config.dyn_smem:
        head.append(phrase(lang, "kernel-cli", "dynamic", ctx))
    if u.spills:
        head.append(phrase(lang, "kernel-cli", "spills", ctx))
    title = phrase(lang, "calc-title-occupancy", "kernel",
                   {"kernel": u.shown, "arch": u.arch or "?", "gpu": answer.gpu.name,
                    "model": res.model})
    body = render_solution(occupancy_solution(res, answer.gpu, lang), lang, "txt", title=title).rstrip()
    lines = body.splitlines()
    return "\n".join(lines[:2] + head + lines[2:])
