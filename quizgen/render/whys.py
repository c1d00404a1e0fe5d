"""Why-lines written for some cells' own words (``[why] <prefix><formula>`` in the phrasebook).

The engine gives every step a why of its own; some cells explain the same formula with their own
numbers (the latency cells ``lat_…``, L-2 ``l2_…``). Which key a step is said with is a choice
of words, made here when a writer writes the step.
"""

from __future__ import annotations

from functools import cache

from quizgen.engine.derivation import Step
from quizgen.render.phrases import book


@cache
def _why_keys() -> frozenset[str]:
    return frozenset(book("en").get("why", {}))


def own_whys(steps: list[Step], prefix: str = "lat_") -> list[Step]:
    """Give each step the why written for these cells (``[why] <prefix><formula>``), which names
    the step's own numbers, where one exists; other steps keep the engine's why."""
    keys = _why_keys()
    for st in steps:
        key = prefix + st.formula
        if key in keys:
            st.why = key
    return steps
