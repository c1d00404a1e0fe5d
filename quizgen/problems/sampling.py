"""Numbers that look like real kernels: powers of two and common sizes first, awkward ones later."""

from __future__ import annotations


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

