"""Pausing Python's cycle collector around work that makes many objects and no garbage cycles.

Reference counting still frees everything; only the collector's passes, which walk every live
object again and again, are held off. Two places use it: a problem pool's candidates (thousands
of parameter dicts that live as long as the process, about a tenth of a default deck's build)
and grading a class (a few hundred thousand small objects, about a third of grading time).
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def collector_paused() -> Iterator[None]:
    """The block runs with the cycle collector off; it is restored as it was."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
