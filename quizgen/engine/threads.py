"""Code over thread indices, warp by warp: which lanes of which warp run a statement.

A launch (block and grid shapes) and a few definitions (``int i = blockIdx.x * blockDim.x +
threadIdx.x``, ``n = 1000``) give every thread its values; an expression of them (a condition, a
trip count, a partner index) is evaluated for every thread at once (`quizgen.engine.cexpr`) and
counted per warp. Warps come from the linear index inside one block, x fastest, then y, then z
(CELLS.md: warps never span blocks); the missing lanes of a partial tail warp are absent, not
lanes that disagree.

The grid is evaluated a chunk of blocks at a time, so memory stays bounded whatever the grid;
an expression that never reads ``blockIdx`` is evaluated on one block and stands for them all.
The analyses that count on these numbers are in `quizgen.engine.branches` (conditions, loops,
reductions, barriers' partners).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping, Sequence

import numpy as np

from quizgen.engine import cexpr
from quizgen.engine.arith import ceiling
from quizgen.engine.cexpr import Definition, EvalError, Expr
from quizgen.engine.warps import WARP_SIZE
from quizgen.errors import QuizgenError, require_int

WARP = WARP_SIZE
#: CUDA's limits on a block (threads, and each side) and on the grid's sides.
MAX_BLOCK_THREADS = 1024
MAX_BLOCK_DIMS = (1024, 1024, 64)
MAX_GRID_DIMS = ((1 << 31) - 1, 65535, 65535)
#: Threads one analysis evaluates at most (a grid of 4,096 blocks of 1,024 threads).
MAX_THREADS = 1 << 22
#: Threads evaluated at once: a chunk of whole blocks of about this many threads.
CHUNK_THREADS = 1 << 16
#: Definitions a program holds at most.
MAX_DEFINITIONS = 8


def _dims(value: Any, field: str, limits: Sequence[int]) -> tuple[int, int, int]:
    """(x, y, z) from 256, "32,8", [32, 8, 1]: missing sides are 1."""
    if isinstance(value, str):
        parts = [p for p in value.replace("x", ",").replace("×", ",").split(",")]
        if not 1 <= len(parts) <= 3 or any(not p.strip() for p in parts):
            raise QuizgenError(f"got {value!r}; expected 1 to 3 sides like 32,8", field=field)
        dims: list[Any] = [p.strip() for p in parts]
    elif isinstance(value, (list, tuple)):
        dims = list(value)
    else:
        dims = [value]
    if not 1 <= len(dims) <= 3:
        raise QuizgenError(f"got {value!r}; expected 1 to 3 sides like 32,8", field=field)
    dims += [1] * (3 - len(dims))
    out = tuple(require_int(f"{field}.{axis}", d, minimum=1, maximum=top)
                for d, axis, top in zip(dims, "xyz", limits))
    return out  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class Launch:
    """The block and grid shapes of a launch."""

    block: tuple[int, int, int]
    grid: tuple[int, int, int] = (1, 1, 1)

    @property
    def threads_per_block(self) -> int:
        x, y, z = self.block
        return x * y * z

    @property
    def warps_per_block(self) -> int:
        return ceiling(self.threads_per_block, WARP)

    @property
    def blocks(self) -> int:
        x, y, z = self.grid
        return x * y * z

    @property
    def grid_warps(self) -> int:
        return self.blocks * self.warps_per_block

    @property
    def tail_lanes(self) -> int:
        """Lanes present in the block's last warp (32 when the block fills whole warps)."""
        return self.threads_per_block - WARP * (self.warps_per_block - 1)

    def present(self) -> np.ndarray:
        """Lanes present in each warp of one block."""
        out = np.full(self.warps_per_block, WARP, dtype=np.int64)
        out[-1] = self.tail_lanes
        return out

    def block_coords(self, b: int) -> tuple[int, int, int]:
        gx, gy, _ = self.grid
        return (b % gx, b // gx % gy, b // (gx * gy))

    def thread_coords(self, linear: int) -> tuple[int, int, int]:
        dx, dy, _ = self.block
        return (linear % dx, linear // dx % dy, linear // (dx * dy))

    def to_dict(self) -> dict[str, Any]:
        return {"block": list(self.block), "grid": list(self.grid),
                "threads_per_block": self.threads_per_block,
                "warps_per_block": self.warps_per_block, "blocks": self.blocks,
                "grid_warps": self.grid_warps}


def launch(block: Any, grid: Any = 1) -> Launch:
    """A launch, checked against CUDA's limits and the threads one analysis evaluates."""
    shape = _dims(block, "block", MAX_BLOCK_DIMS)
    if shape[0] * shape[1] * shape[2] > MAX_BLOCK_THREADS:
        raise QuizgenError(f"a block of {shape[0]}×{shape[1]}×{shape[2]} = "
                           f"{shape[0] * shape[1] * shape[2]:,} threads is over CUDA's "
                           f"{MAX_BLOCK_THREADS:,}", field="block")
    result = Launch(shape, _dims(grid, "grid", MAX_GRID_DIMS))
    total = result.blocks * result.threads_per_block
    if total > MAX_THREADS:
        raise QuizgenError(f"the launch has {total:,} threads; at most {MAX_THREADS:,} are "
                           "evaluated (fewer blocks ask the same question)", field="grid")
    return result


@dataclass(frozen=True, slots=True)
class Code:
    """A launch and the definitions its expressions read (in order; each may use the ones
    before it)."""

    launch: Launch
    definitions: tuple[Definition, ...] = ()
    types: Mapping[str, str] = field(default_factory=dict)

    def parse(self, text: str, field_name: str) -> Expr:
        return cexpr.parse_expression(text, self.types, field=field_name)

    def reads_block_index(self, expr: Expr) -> bool:
        """Whether `expr` depends on blockIdx, directly or through a definition."""
        return "blockIdx" in {n.split(".")[0] for n in self.builtins_of(expr.names)}

    def builtins_of(self, names: frozenset[str]) -> set[str]:
        defs = {d.name: d for d in self.definitions}
        out: set[str] = set()
        todo = list(names)
        while todo:
            name = todo.pop()
            if name in defs:
                todo.extend(defs[name].expr.names)
            else:
                out.add(name)
        return out


def code(launch_: Launch, lets: Sequence[str | Definition] = ()) -> Code:
    """`launch_` with the definitions `lets` (texts like ``int i = …`` or parsed ones)."""
    if len(lets) > MAX_DEFINITIONS:
        raise QuizgenError(f"{len(lets)} definitions; at most {MAX_DEFINITIONS}", field="let")
    types: dict[str, str] = {}
    defs: list[Definition] = []
    for item in lets:
        d = item if isinstance(item, Definition) else cexpr.parse_definition(item, types)
        if d.name in types:
            raise QuizgenError(f"{d.name!r} is defined twice", field="let")
        types[d.name] = d.ctype
        defs.append(d)
    return Code(launch_, tuple(defs), types)


@dataclass(slots=True)
class Chunk:
    """Whole blocks `first` … `first + count - 1`, their threads in (block, linear) order."""

    first: int
    count: int
    env: dict[str, Any]


class ThreadEnv(dict):
    """The names of a chunk's threads: the index variables are made when an expression first
    reads one (most read only threadIdx.x), the sizes are plain ints."""

    def __init__(self, launch_: Launch, first: int, count: int) -> None:
        super().__init__(warpSize=WARP)
        for axis, b, g in zip("xyz", launch_.block, launch_.grid):
            self[f"blockDim.{axis}"] = b
            self[f"gridDim.{axis}"] = g
        self._launch, self._first, self._count = launch_, first, count

    def __missing__(self, name: str) -> Any:
        la, T = self._launch, self._launch.threads_per_block
        dx, dy, _ = la.block
        gx, gy, _ = la.grid
        flat = np.arange(self._count * T, dtype=np.int64)
        if name.startswith("threadIdx."):
            linear = flat % T if self._count > 1 else flat
            value = {"x": linear % dx, "y": linear // dx % dy, "z": linear // (dx * dy)}[name[-1]]
        elif name.startswith("blockIdx."):
            block = flat // T + self._first
            value = {"x": block % gx, "y": block // gx % gy, "z": block // (gx * gy)}[name[-1]]
        else:
            raise KeyError(name)
        self[name] = value
        return value


def _chunk_env(c: Code, first: int, count: int) -> dict[str, Any]:
    return ThreadEnv(c.launch, first, count)


def chunks(c: Code, *, per_block: bool, only: int | None = None) -> Iterator[Chunk]:
    """The grid's blocks a chunk at a time (`per_block` False: one block stands for all; `only`:
    that block alone), with every definition evaluated and converted to its declared type."""
    la = c.launch
    start, stop = (only, only + 1) if only is not None else (0, la.blocks if per_block else 1)
    step = max(1, CHUNK_THREADS // la.threads_per_block)
    for first in range(start, stop, step):
        count = min(step, stop - first)
        env = _chunk_env(c, first, count)
        for d in c.definitions:
            value = run(d.expr, env, c, first, None, f"let {d.name}")
            env[d.name] = cexpr.convert(value, d.expr.ctype, d.ctype)
        yield Chunk(first, count, env)


def run(expr: Expr, env: Mapping[str, Any], c: Code, first: int, live: Any, field: str) -> Any:
    """`expr` over a chunk's threads; what C leaves undefined is one line naming the thread."""
    try:
        return cexpr.evaluate(expr, env, live)
    except EvalError as exc:
        T = c.launch.threads_per_block
        block = first + exc.index // T
        thread = c.launch.thread_coords(exc.index % T)
        where = f"threadIdx {_xyz(thread)}" + (f" of blockIdx {_xyz(c.launch.block_coords(block))}"
                                                if c.launch.blocks > 1 else "")
        raise QuizgenError(f"{exc} at {where} in {expr.text!r}", field=field) from None


def _xyz(v: tuple[int, int, int]) -> str:
    return "(" + ", ".join(map(str, v)) + ")"


def per_thread(value: Any, size: int) -> np.ndarray:
    """A value (an array, or one int for every thread) as an int64 array of `size` entries."""
    if isinstance(value, np.ndarray) and value.shape == (size,):
        return value
    return np.broadcast_to(np.asarray(value, dtype=np.int64), (size,))


def by_warp(values: np.ndarray, la: Launch, count: int, pad: int) -> np.ndarray:
    """Per-thread values of `count` blocks as (blocks, warps, 32), absent lanes set to `pad`."""
    T, W = la.threads_per_block, la.warps_per_block
    grid = values.reshape(count, T)
    if W * WARP != T:
        grid = np.pad(grid, ((0, 0), (0, W * WARP - T)), constant_values=pad)
    return grid.reshape(count, W, WARP)


def broadcast_blocks(rows: np.ndarray, la: Launch) -> np.ndarray:
    """Per-warp rows of one block standing for every block of the grid: (blocks, warps)."""
    return np.broadcast_to(rows, (la.blocks, rows.shape[-1]))


def lane_runs(flags: Sequence[bool]) -> list[tuple[int, int]]:
    """The runs of True in `flags` as (first, last) index pairs: lanes 8–15 and 24–31."""
    runs: list[tuple[int, int]] = []
    start = None
    for i, f in enumerate(flags):
        if f and start is None:
            start = i
        elif not f and start is not None:
            runs.append((start, i - 1))
            start = None
    if start is not None:
        runs.append((start, len(flags) - 1))
    return runs
