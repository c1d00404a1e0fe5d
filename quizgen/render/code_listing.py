"""The CUDA a question of the cells worked from code shows: a short kernel and its launch, built
from the problem's parameters (the condition, the trip count, the block and grid), the same in
every language. Each line is code a student could compile; the comments name the paths and
their costs where the question gives them.
"""

from __future__ import annotations

from typing import Any, Callable

INDENT = "    "


def _launch(params: dict[str, Any], args: str) -> list[str]:
    """The launch line: ``kernel<<<G, T>>>(…)``, with a dim3 block when the block is 2-D."""
    x, y, z = params["block"]
    grid = params.get("grid", 1)
    if y > 1 or z > 1:
        dims = f"{x}, {y}" if z == 1 else f"{x}, {y}, {z}"
        return [f"dim3 block({dims});", f"kernel<<<{grid}, block>>>({args});"]
    return [f"kernel<<<{grid}, {x}>>>({args});"]


def _flat_index(params: dict[str, Any]) -> str:
    """The index a thread reads its element with (its own, so the branch is the only question)."""
    if "n" in params:
        return "i"
    _, y, _ = params["block"]
    return "threadIdx.y * blockDim.x + threadIdx.x" if y > 1 else "threadIdx.x"


def branch_listing(params: dict[str, Any]) -> str:
    """D-1: ``if (cond) … else …`` in a kernel, after its definitions and an earlier exit."""
    costs = params.get("costs")
    grid = "n" in params
    lines = ["__global__ void kernel(float* data" + (", int n) {" if grid else ") {")]
    for let in params.get("lets", ()):
        lines.append(INDENT + let.rstrip(";") + ";")
    if params.get("exit"):
        lines.append(INDENT + f"if ({params['exit']}) return;")
    at = _flat_index(params)
    then_note = f"// if-path: {costs[0]} cycles" if costs else "// if-path"
    else_note = f"// else-path: {costs[1]} cycles" if costs else "// else-path"
    lines += [INDENT + f"float x = data[{at}];",
              INDENT + f"if ({params['cond']}) {{",
              INDENT * 2 + "x = x * x + 1.0f;   " + then_note,
              INDENT + "} else {",
              INDENT * 2 + "x = 0.5f * x;       " + else_note,
              INDENT + "}",
              INDENT + f"data[{at}] = x;", "}"]
    args = "d_data, n" if grid else "d_data"
    return "\n".join(lines + _launch(params, args))


def loop_listing(params: dict[str, Any]) -> str:
    """D-2: a loop whose trip count depends on the thread."""
    cost = params.get("cost")
    note = f"   // {cost} cycles per iteration" if cost else ""
    lines = ["__global__ void kernel(float* data) {"]
    for let in params.get("lets", ()):
        lines.append(INDENT + let.rstrip(";") + ";")
    at = "i" if any(let.startswith("int i ") for let in params.get("lets", ())) else "threadIdx.x"
    lines += [INDENT + f"float x = data[{at}];",
              INDENT + f"for (int k = 0; k < {params['trip']}; k++) {{",
              INDENT * 2 + "x = x * 0.5f + 1.0f;" + note,
              INDENT + "}",
              INDENT + f"data[{at}] = x;", "}"]
    return "\n".join(lines + _launch(params, "d_data"))


def reduction_listing(params: dict[str, Any]) -> str:
    """D-3: the shared-memory reduction, interleaved or sequential addressing (both for a
    comparison)."""
    from quizgen.engine.branches import REDUCTIONS

    kinds = ("interleaved", "sequential") if params["kind"] == "both" else (params["kind"],)
    out = []
    for kind in kinds:
        loop, cond = REDUCTIONS[kind]
        add = "sdata[t] += sdata[t + s];"
        lines = [f"// {kind} addressing" if len(kinds) > 1 else "",
                 f"__global__ void reduce_{kind}(const float* in, float* out) {{",
                 INDENT + f"__shared__ float sdata[{params['block'][0]}];",
                 INDENT + "unsigned int t = threadIdx.x;",
                 INDENT + "sdata[t] = in[blockIdx.x * blockDim.x + t];",
                 INDENT + "__syncthreads();",
                 INDENT + loop + " {",
                 INDENT * 2 + f"if ({cond}) {add}",
                 INDENT * 2 + "__syncthreads();",
                 INDENT + "}",
                 INDENT + "if (t == 0) out[blockIdx.x] = sdata[0];", "}"]
        out.append("\n".join(line for line in lines if line))
    launch = [f"reduce_{k}<<<{params.get('grid', 1)}, {params['block'][0]}>>>(d_in, d_out);"
              for k in kinds]
    return "\n".join(out + launch)


def partner_listing(params: dict[str, Any]) -> str:
    """D-5: each thread writes its own slot of shared memory, waits, and reads another's."""
    x, y, _ = params["block"]
    two_d = y > 1
    lines = ["__global__ void kernel(const float* in, float* out) {"]
    if two_d:
        lines += [INDENT + f"__shared__ float tile[{y}][{x}];",
                  INDENT + "int tx = threadIdx.x, ty = threadIdx.y;",
                  INDENT + "int g = (blockIdx.x * blockDim.y + ty) * blockDim.x + tx;",
                  INDENT + "tile[ty][tx] = in[g];",
                  INDENT + "__syncthreads();",
                  INDENT + f"out[g] = tile[{params['read'][0]}][{params['read'][1]}];", "}"]
    else:
        lines += [INDENT + f"__shared__ float s[{x}];",
                  INDENT + "int t = threadIdx.x;",
                  INDENT + "int g = blockIdx.x * blockDim.x + t;",
                  INDENT + "s[t] = in[g];",
                  INDENT + "__syncthreads();",
                  INDENT + f"out[g] = s[{params['read']}];", "}"]
    return "\n".join(lines + _launch(params, "d_in, d_out"))


LISTINGS: dict[str, Callable[[dict[str, Any]], str]] = {
    "D-1": branch_listing, "D-2": loop_listing, "D-3": reduction_listing, "D-5": partner_listing,
}


def listing(cell: str, params: dict[str, Any]) -> str:
    """The code a problem of `cell` shows ("" for a cell that shows none)."""
    make = LISTINGS.get(cell)
    return make(params) if make else ""
