"""Numbers that look like real kernels: powers of two and common sizes first, awkward ones later."""

from __future__ import annotations

import random

THREADS = {
    1: (64, 128, 256, 512, 1024),
    2: (64, 96, 128, 192, 256, 320, 384, 512, 640, 768, 1024),
    3: (96, 100, 160, 192, 200, 224, 288, 320, 352, 416, 480, 500, 576, 640, 700, 768, 800, 896, 960, 1000),
}
REGS = {
    1: (16, 32, 64, 128),
    2: (16, 24, 32, 40, 48, 56, 64, 72, 80, 96, 128),
    3: tuple(range(10, 256)),
}
SMEM_KB = {
    1: (0, 4, 8, 16, 32, 48),
    2: (0, 2, 4, 6, 8, 12, 16, 20, 24, 32, 40, 48),
    3: tuple(range(0, 49)),
}


def pick(rng: random.Random, options) -> int:
    return options[rng.randrange(len(options))]


def threads(rng: random.Random, level: int) -> int:
    return pick(rng, THREADS[level])


def regs(rng: random.Random, level: int) -> int:
    return pick(rng, REGS[level])


def smem_bytes(rng: random.Random, level: int) -> int:
    """Shared memory per block: whole KB on levels 1–2, sometimes odd byte counts on level 3."""
    kb = pick(rng, SMEM_KB[level])
    if level == 3 and kb and rng.random() < 0.4:
        return kb * 1024 - rng.choice((0, 256, 512, 1000))
    return kb * 1024


def block_dims(rng: random.Random, threads: int) -> list[int] | None:
    """A 2D shape (x, y, 1) for `threads`, as kernels write it; None when only 1D is natural."""
    shapes = [(x, threads // x) for x in (8, 16, 32, 64, 128, 256) if threads % x == 0 and threads // x > 1]
    if not shapes:
        return None
    x, y = shapes[rng.randrange(len(shapes))]
    return [x, y, 1]
