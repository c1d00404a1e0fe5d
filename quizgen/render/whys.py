"""Why-lines written for some cells' own words (``[why] <prefix><formula>`` in the phrasebook).

The engine gives every step a why of its own; some cells explain the same formula with their own
numbers (the latency cells ``lat_…``, L-2 ``l2_…``, the warp cells ``w_<engine why>``, a cell's
own keys by formula). Which key a step is said with is a choice of words, made here when a
writer writes the step.
"""

from __future__ import annotations

from functools import cache

from quizgen.engine.derivation import Step
from quizgen.render.phrases import book


@cache
def _why_keys(lang: str) -> frozenset[str]:
    return frozenset(book(lang).get("why", {}))


def own_whys(steps: list[Step], lang: str, prefix: str = "lat_") -> list[Step]:
    """Give each step the why written for these cells (``[why] <prefix><formula>``), which names
    the step's own numbers, where `lang`'s phrasebook has one; other steps keep the engine's
    why."""
    keys = _why_keys(lang)
    for st in steps:
        key = prefix + st.formula
        if key in keys:
            st.why = key
    return steps


#: lang → engine why key → the warp cells' own key for it (``w_<key>``, where one exists).
_NUMBERED: dict[str, dict[str, str]] = {}


def numbered_whys(steps: list[Step], lang: str) -> list[Step]:
    """The steps with the warp cells' own why-lines: an engine why key ``k`` becomes ``w_k`` when
    the phrasebook has one (those name the step's own numbers; the calculators keep the engine's
    general sentences). The steps are this problem's own (a fresh solve), so they are renamed
    in place."""
    own = _NUMBERED.get(lang)
    if own is None:
        whys = book(lang).get("why", {})
        own = _NUMBERED[lang] = {k[2:]: k for k in whys if k.startswith("w_")}
    for s in steps:
        key = own.get(s.why)
        if key is not None:
            s.why = key
    return steps


def formula_whys(steps: list[Step], whys: dict[str, str]) -> list[Step]:
    """A cell's own why for each engine step it names (by formula): a why that speaks of this
    problem's numbers in this cell's terms."""
    for step in steps:
        step.why = whys.get(step.formula, step.why)
    return steps
