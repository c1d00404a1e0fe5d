"""The words of a real kernel's problem (cell K-1): the kernel's source and ptxas lines, reading
the line, the exact occupancy derivation and, for a change, the kernel before it."""

from __future__ import annotations

from typing import Any

from quizgen import kernels as shipped
from quizgen.problems.kernel_families import RealKernel, trap_case
from quizgen.problems.model import SolutionStep
from quizgen.engine.attribution import attribute
from quizgen.render.occupancy import limiter_text, occupancy_solution
from quizgen.render.writers.real_gpu import because
from quizgen.render.phrases import phrase, phrase_list
from quizgen.render.writers import writes
from quizgen.render.writers.exact import ExactWriter, exact_whys


def kernel_listing(params: dict[str, Any]) -> str:
    """The kernel's CUDA source and its ptxas lines, as fenced code paragraphs that follow the
    question (cards show them as code blocks; before a change, both kernels' lines)."""
    key, arch = params["kernel"], params["arch"]
    source = shipped.kernel_code(key)
    runs = [params["before"]["kernel"], key] if "before" in params and params["before"]["kernel"] != key else [key]
    report = []
    for name in runs:
        usage = shipped.kernel_usage(name, arch)
        if len(runs) > 1:
            report.append(f"// {shipped.kernel_meta(name)['entry'].split('(')[0]}, {arch}")
        report.append(f"    {usage.stack} bytes stack frame, {usage.spill_stores} bytes spill stores, "
                      f"{usage.spill_loads} bytes spill loads")
        report.append(f"ptxas info    : {usage.line}")
    return "\n\n```cuda\n" + source + "\n```\n\n```\n" + "\n".join(report) + "\n```"


def shape_text(launch: dict[str, Any]) -> str:
    """A launch's block as the question gives it: "16 × 16" for a 2-D block, else its threads."""
    block = launch.get("block")
    return " × ".join(map(str, block[:2])) if block else str(launch["threads_per_block"])


@writes(RealKernel)
class RealKernelWriter(ExactWriter):
    def context(self, params, gpu, solved):
        """The family's numbers, with the block shapes and the calculator's block argument."""
        ctx = super().context(params, gpu, solved)
        ctx["shape"] = shape_text(params)
        ctx["block_arg"] = (" --block " + ",".join(map(str, params["block"])) if params.get("block")
                            else f" --threads {params['threads_per_block']}")
        # the self-check names everything the answer depends on: the GPU (two share sm_90) and
        # the launch's dynamic shared memory, which no ptxas line shows
        ctx["block_arg"] += f" --gpu {gpu.name}"
        if params.get("dyn_smem"):
            ctx["block_arg"] += f" --dyn-smem {params['dyn_smem']}"
        if params.get("optin") is not None:
            ctx["block_arg"] += " --optin"
        if params.get("carveout", -1) != -1:
            ctx["block_arg"] += f" --carveout {params['carveout']}"
        if "before" in params:
            ctx["shape0"] = shape_text(params["before"])
        return ctx

    def write(self, params, gpu, solved, lang, salt):
        ctx = self.shared_context(params, gpu, solved)
        solved.data["rendered_ctx"] = ctx          # the right option's reason reuses it
        ctx["what"] = phrase(lang, "K-1-kernel", params["kernel"], ctx, salt=salt)
        ctx["limiter_text"] = limiter_text(solved.data["result"], lang)
        res = solved.data["result"]
        exact_whys(res.steps)
        variant = params.get("change") or (trap_case(solved) if params.get("case") == "trap" else None) or "plain"
        title = phrase(lang, "K-1", "title", ctx, salt=salt)
        question = phrase(lang, "K-1", f"question_{variant}", ctx, salt=salt) + kernel_listing(params)
        forecast = phrase(lang, "K-1", f"forecast_{variant}", ctx, salt=salt)
        if variant == "exact":      # the rules that make the chip differ from the notes' formula
            ctx["because"] = because(attribute(gpu, res.config), lang)
        trap = (phrase(lang, "K-1", f"trap_{variant}", ctx, salt=salt)
                if self.trap_applies(params, gpu, solved) else "")
        solution = occupancy_solution(res, gpu, lang, salt=salt, forecast=forecast, trap=trap)
        read = [SolutionStep(phrase(lang, "K-1", "read_title", ctx, salt=salt), None, {},
                             params["regs_per_thread"], phrase(lang, "unit", "registers"),
                             phrase(lang, "K-1", "read_why", ctx, salt=salt),
                             phrase(lang, "K-1", "read_note_dyn", ctx, salt=salt) if ctx["dyn"]
                             else phrase(lang, "K-1", "read_note_spill", ctx, salt=salt)
                             if ctx["usage"].spills else "")]
        if "before" in params:
            w0 = ctx["A0"] // ctx["B0"] if ctx["B0"] else 0
            read.insert(0, SolutionStep(phrase(lang, "K-1", "before_title", ctx, salt=salt), None,
                                        {"B": ctx["B0"], "w": w0, "A": ctx["A0"]},
                                        f"{ctx['occ0'] * 100:.3f}".rstrip("0").rstrip(".") + "%", "",
                                        phrase(lang, "K-1", "before_why", ctx, salt=salt)))
            solution.answer = phrase(lang, "K-1", "answer_change", ctx, salt=salt) + " " + solution.answer
        solution.steps[:0] = read
        solution.verify.extend(phrase_list(lang, "K-1", "verify", ctx, salt=salt))
        return title, question, solution

    def mcq_stem(self, params, gpu, solved, lang, salt):
        ctx = self.shared_context(params, gpu, solved)
        ctx["what"] = phrase(lang, "K-1-kernel", params["kernel"], ctx, salt=salt)
        return phrase(lang, "K-1", "mcq_stem", ctx, salt=salt) + kernel_listing(params)
