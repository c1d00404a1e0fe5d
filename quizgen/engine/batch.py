"""Occupancy for many launches: JSON Lines in, JSON Lines out, numbers only (no derivation).

Each input line is an object with ``gpu`` (a preset name, or an object of GPU fields with an
optional ``"base"`` preset), ``threads_per_block`` (or ``block``), ``regs_per_thread``,
``smem_per_block`` (static), ``dyn_smem``, ``optin``, ``carveout``, ``barriers`` and ``model``.
A bad line gets ``{"line": n, "error": "..."}`` on its own output line; the other lines still run.
"""

from __future__ import annotations

import json
from typing import IO, Any, Iterable

from quizgen.engine.occupancy import launch_config, occupancy
from quizgen.errors import QuizgenError
from quizgen.gpus import GPU, resolve_gpu

_KEYS = {"gpu", "threads_per_block", "block", "regs_per_thread", "smem_per_block", "dyn_smem",
         "optin", "carveout", "barriers", "model", "id"}


def solve_line(obj: Any, gpu_cache: dict[str, GPU]) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise QuizgenError("each line must be a JSON object", field="line")
    unknown = sorted(set(obj) - _KEYS)
    if unknown:
        raise QuizgenError(f"unknown key {unknown[0]!r}; keys are: {', '.join(sorted(_KEYS))}",
                           field="line")
    spec = obj.get("gpu", "textbook")
    if isinstance(spec, str):
        gpu = gpu_cache.get(spec)
        if gpu is None:
            gpu = gpu_cache[spec] = resolve_gpu(spec)
    else:
        key = json.dumps(spec, sort_keys=True)
        gpu = gpu_cache.get(key)
        if gpu is None:
            gpu = gpu_cache[key] = resolve_gpu(spec)
    config = launch_config(obj.get("threads_per_block"), obj.get("regs_per_thread", 0),
                           obj.get("smem_per_block", 0), obj.get("dyn_smem", 0), obj.get("optin"),
                           obj.get("carveout", -1), obj.get("barriers", 1), obj.get("block"))
    out = occupancy(gpu, config, model=obj.get("model")).to_dict()
    if "id" in obj:
        out["id"] = obj["id"]
    return out


def run_batch(lines: Iterable[str], out: IO[str]) -> tuple[int, int]:
    """Solve every line; returns (solved, errors)."""
    gpu_cache: dict[str, GPU] = {}
    solved = errors = 0
    dumps = json.dumps
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            result = solve_line(obj, gpu_cache)
            solved += 1
        except json.JSONDecodeError as exc:
            result = {"line": number, "error": f"not valid JSON ({exc.msg} at column {exc.colno})"}
            errors += 1
        except QuizgenError as exc:
            result = {"line": number, "error": str(exc)}
            errors += 1
        out.write(dumps(result, ensure_ascii=False) + "\n")
    return solved, errors
