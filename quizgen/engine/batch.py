"""Occupancy for many launches: JSON Lines in, JSON Lines out, numbers only (no derivation).

Each input line is an object with ``gpu`` (a preset name, or an object of GPU fields with an
optional ``"base"`` preset), ``threads_per_block`` (or ``block``), ``regs_per_thread``,
``smem_per_block`` (static), ``dyn_smem``, ``optin``, ``carveout``, ``barriers`` and ``model``.
The command line's names are accepted too: ``threads``, ``regs``, ``smem``, ``dyn-smem`` (a
size may then be written as on the command line, ``"48KB"``).
A bad line (not UTF-8, not JSON, nested too deeply, longer than 1 MB, or a launch the engine
refuses) gets ``{"line": n, "error": "..."}`` on its own output line; the other lines still run.
Every line is decoded and checked on its own, so one bad byte spoils only its own line.
"""

from __future__ import annotations

import json
import re
from typing import IO, Any, Iterable, Iterator

from quizgen.engine.occupancy import OccupancyResult, launch_config, occupancy
from quizgen.errors import QuizgenError
from quizgen.gpus import GPU, resolve_gpu

_KEYS = frozenset({"gpu", "threads_per_block", "block", "regs_per_thread", "smem_per_block",
                   "dyn_smem", "optin", "carveout", "barriers", "model", "id"})


#: The command line's option names (`quizgen occupancy --threads 256 --regs 64 --smem 48KB`),
#: accepted as keys for the line's own names.
ALIASES = {"threads": "threads_per_block", "regs": "regs_per_thread", "smem": "smem_per_block",
           "dyn-smem": "dyn_smem", "dyn_smem": "dyn_smem", "threads-per-block": "threads_per_block",
           "regs-per-thread": "regs_per_thread", "smem-per-block": "smem_per_block"}
_SIZES = ("smem_per_block", "dyn_smem")


def _canonical(obj: dict[str, Any]) -> dict[str, Any]:
    """The line with the command line's names (and sizes such as "48KB") in the line's own."""
    out: dict[str, Any] = {}
    given: dict[str, str] = {}
    for key, value in obj.items():
        name = ALIASES.get(key, key)
        if name in out:
            raise QuizgenError(f"{given[name]!r} and {key!r} name the same field; give one",
                               field="line")
        given[name] = key
        if name in _SIZES and isinstance(value, str):
            value = _size(key, value)
        out[name] = value
    return out


_SIZE = re.compile(r"\s*(\d{1,10})\s*(|B|K|KB|KiB)\s*", re.IGNORECASE)


def _size(key: str, text: str) -> int:
    """Bytes from a size as the command line writes it: 49152, 48K, 48KB, 48 KiB (KB = 1024 B)."""
    match = _SIZE.fullmatch(text)
    if match is None:
        raise QuizgenError(f"got {text!r}; expected bytes like 49152, 48K or 48KB", field=key)
    number, unit = int(match.group(1)), match.group(2).lower()
    return number * 1024 if unit.startswith("k") else number


#: The longest batch line read (bytes); a longer one is reported and skipped.
MAX_LINE = 1 << 20


class LongLine:
    """Stands in for a line longer than `MAX_LINE` (it is never held in memory)."""

    def __init__(self, size: int) -> None:
        self.size = size


def read_lines(stream: IO[bytes], limit: int = MAX_LINE) -> Iterator[bytes | LongLine]:
    """The lines of a binary stream, each at most `limit` bytes (longer ones as `LongLine`)."""
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if len(line) > limit and not line.endswith(b"\n"):
            size = len(line)
            while True:                       # skip the rest of the line without keeping it
                chunk = stream.readline(1 << 20)
                size += len(chunk)
                if not chunk or chunk.endswith(b"\n"):
                    break
            yield LongLine(size)
            continue
        yield line


def solve_line(obj: Any, gpu_cache: dict[str, GPU], default_gpu: GPU | None = None,
               extra: dict[str, GPU] | None = None) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise QuizgenError("each line must be a JSON object", field="line")
    if not _KEYS.issuperset(obj):
        obj = _canonical(obj)
    if not _KEYS.issuperset(obj):
        unknown = sorted(set(obj) - _KEYS)
        raise QuizgenError(f"unknown key {unknown[0]!r}; keys are: {', '.join(sorted(_KEYS))} "
                           "(or the command line's threads, regs, smem, dyn-smem)", field="line")
    if "gpu" not in obj and default_gpu is not None:
        spec: Any = default_gpu
    else:
        spec = obj.get("gpu", "textbook")
    if isinstance(spec, GPU):
        gpu = spec
    elif isinstance(spec, str):
        gpu = gpu_cache.get(spec)
        if gpu is None:
            gpu = gpu_cache[spec] = resolve_gpu(spec, extra=extra)
    else:
        key = json.dumps(spec, sort_keys=True)
        gpu = gpu_cache.get(key)
        if gpu is None:
            gpu = gpu_cache[key] = resolve_gpu(spec)
    config = launch_config(obj.get("threads_per_block"), obj.get("regs_per_thread", 0),
                           obj.get("smem_per_block", 0), obj.get("dyn_smem", 0), obj.get("optin"),
                           obj.get("carveout", -1), obj.get("barriers", 1), obj.get("block"))
    result = occupancy(gpu, config, model=obj.get("model"))
    if "id" in obj:
        out = result.to_dict()
        out["id"] = obj["id"]
        return out
    return result


_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-*.+ ")


def _j(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    kind = type(value)
    if kind is int:
        return str(value)
    if kind is float and value == value and value not in (float("inf"), float("-inf")):
        return repr(value)
    if kind is str and _PLAIN.issuperset(value):
        return f'"{value}"'
    return json.dumps(value, ensure_ascii=False)


def result_json(r: OccupancyResult) -> str:
    """One result as a JSON line, the same object `to_dict()` gives, written without json.dumps
    (the batch path's hot spot); a test holds the two to the same text."""
    c = r.config
    lim = r.limits
    block = f', "block": [{c.block[0]}, {c.block[1]}, {c.block[2]}]' if c.block is not None else ""
    limiter = ", ".join(f'"{name}"' for name in r.limiter)
    return (
        f'{{"model": "{r.model}", "gpu": {_j(r.gpu)}, "threads_per_block": {c.threads_per_block}, '
        f'"regs_per_thread": {c.regs_per_thread}, "smem_per_block": {c.smem_per_block}, '
        f'"dyn_smem": {c.dyn_smem}, "optin": {_j(c.optin)}, "carveout": {c.carveout}, '
        f'"barriers": {c.barriers}{block}, "warps_per_block": {r.warps_per_block}, '
        f'"blocks_per_sm": {r.blocks_per_sm}, "active_warps": {r.active_warps}, '
        f'"max_warps_per_sm": {r.max_warps_per_sm}, "occupancy": {_j(r.occupancy)}, '
        f'"limiter": [{limiter}], "limits": {{"registers": {_j(lim["registers"])}, '
        f'"shared_memory": {_j(lim["shared_memory"])}, "warps": {_j(lim["warps"])}, '
        f'"blocks": {_j(lim["blocks"])}, "barriers": {_j(lim["barriers"])}}}, '
        f'"regs_per_block_allocated": {r.regs_per_block_allocated}, '
        f'"smem_per_block_allocated": {r.smem_per_block_allocated}, '
        f'"smem_per_sm_available": {r.smem_per_sm_available}, '
        f'"launch_fails": {_j(r.launch_fails)}, "failure": {_j(r.failure)}}}\n')


_DECODER = json.JSONDecoder()


def run_batch(lines: Iterable[str | bytes | LongLine], out: IO[str], *,
              default_gpu: GPU | None = None,
              extra: dict[str, GPU] | None = None) -> tuple[int, int]:
    """Solve every line; returns (solved, errors).

    default_gpu  the GPU of a line without a "gpu" key (default: the textbook GPU)
    extra        GPUs a line may name besides the presets (from a --gpu-file)
    """
    gpu_cache: dict[str, GPU] = {}
    solved = errors = 0
    dumps = json.dumps
    raw_decode = _DECODER.raw_decode
    for number, line in enumerate(lines, 1):
        try:
            if line.__class__ is not str:
                if isinstance(line, LongLine):
                    raise QuizgenError(f"longer than {MAX_LINE >> 20} MB ({line.size:,} bytes); "
                                       "one launch fits in a few hundred bytes", field="line")
                try:
                    line = line.decode("utf-8-sig" if number == 1 else "utf-8")
                except UnicodeDecodeError as exc:
                    raise QuizgenError(f"not UTF-8 text (bad byte at column {exc.start + 1})",
                                       field="line") from None
            if not line.strip():
                continue
            if len(line) > MAX_LINE:
                raise QuizgenError(f"longer than {MAX_LINE >> 20} MB; one launch fits in a few "
                                   "hundred bytes", field="line")
            # A line that starts with its object and ends with it (the usual case) is decoded
            # without json.loads's whitespace passes; anything else goes through json.loads.
            if line[0] == "{" and line.endswith("}\n"):
                obj, end = raw_decode(line)
                if end != len(line) - 1:
                    obj = json.loads(line)
            else:
                obj = json.loads(line)
            result = solve_line(obj, gpu_cache, default_gpu, extra)
            solved += 1
            if not isinstance(result, dict):
                out.write(result_json(result))
                continue
        except json.JSONDecodeError as exc:
            result = {"line": number, "error": f"not valid JSON ({exc.msg} at column {exc.colno})"}
            errors += 1
        except QuizgenError as exc:
            result = {"line": number, "error": str(exc)}
            errors += 1
        except RecursionError:
            result = {"line": number, "error": "line: nested too deeply; one launch is a flat "
                                               "object"}
            errors += 1
        except (ValueError, ArithmeticError) as exc:     # e.g. a 5,000-digit number
            why = ("a number has more than 4,300 digits" if "limit" in str(exc) and "digits"
                   in str(exc) else str(exc))
            result = {"line": number, "error": f"line: {why}"}
            errors += 1
        out.write(dumps(result, ensure_ascii=False) + "\n")
    return solved, errors
