"""Pausing Python's cycle collector around work that makes many objects and no garbage cycles.

Reference counting still frees everything; only the collector's passes, which walk every live
object again and again, are held off. Two places use it: a problem pool's candidates (thousands
of parameter dicts that live as long as the process, about a tenth of a default deck's build)
and grading a class (a few hundred thousand small objects, about a third of grading time).

Work inside such a block that does make cycles (statsmodels' models and their results refer to
each other) runs in `collector_for_new`: the collector runs again, over the objects made since
the block began only, so that the fits' arrays are freed as the collector's passes come round
rather than all held until the class is written (a few tens of MB for a class of thousands).
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def collector_paused(*, lasting: bool = False) -> Iterator[None]:
    """The block runs with the cycle collector off; it is restored as it was.

    `lasting`: what the block makes lives as long as the process (a pool's candidates), so it
    is put straight into the oldest generation (`gc.freeze` then `gc.unfreeze`), which the
    collector's frequent passes leave alone: otherwise the next passes walk every object the
    block made, and the full ones they set off walk everything. Young objects made before the
    block go there too, collected by the next full pass. Skipped while objects are frozen (the
    unfreeze would release them)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if lasting and gc.get_freeze_count() == 0:
            gc.freeze()
            gc.unfreeze()
        if was_enabled:
            gc.enable()


@contextmanager
def collector_for_new() -> Iterator[None]:
    """The block runs with the cycle collector on, over the objects it makes: everything older
    is frozen out of the collector's passes (`gc.freeze`), and whatever cycles the block leaves
    are collected as it ends. The collector is then restored as it was."""
    was_enabled = gc.isenabled()
    gc.freeze()
    gc.enable()
    try:
        yield
    finally:
        gc.collect()
        if not was_enabled:
            gc.disable()
        gc.unfreeze()
