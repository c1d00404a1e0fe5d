"""When a family's words apply: predicates over a solved problem.

A misconception is offered as a distractor, and diagnosed by the grader, only when every predicate
its family declares for it holds (`Family.misconception_when`), and only when its answers differ
from the right ones. "Ignored the shared-memory lid, which is the binding one here" is said only
where shared memory is used and binds; "forgot B_max" only where B_max binds; and so on.

A predicate takes the problem's `Facts` (what the solved problem shows, computed on demand) and the
misconception, and returns a bool.
"""

from __future__ import annotations

from typing import Any, Callable

Predicate = Callable[["Facts", Any], bool]


class Facts:
    """What one solved problem shows: which lids bind, ties, what the launch uses, …"""

    __slots__ = ("params", "gpu", "solved", "_limiter")

    def __init__(self, params: dict[str, Any], gpu: Any, solved: Any) -> None:
        self.params, self.gpu, self.solved = params, gpu, solved
        self._limiter: frozenset[str] | None = None

    @property
    def answers(self) -> dict[str, Any]:
        return self.solved.answers

    @property
    def limiter(self) -> frozenset[str]:
        """The binding lids of the problem's own occupancy result (empty when it has none)."""
        if self._limiter is None:
            data = self.solved.data
            res = data.get("result") or data.get("occ")
            found = self.solved.answers.get("limiter")
            if found is None and res is not None:
                found = getattr(res, "limiter", None)
            self._limiter = frozenset(found or ())
        return self._limiter

    @property
    def smem(self) -> int:
        return int(self.params.get("smem_per_block", 0) or 0) + int(self.params.get("dyn_smem", 0) or 0)

    @property
    def threads(self) -> int:
        return int(self.params.get("threads_per_block", 0) or 0)


# The predicates families name ----------------------------------------------------------------


def binds(lid: str) -> Predicate:
    """The named lid (registers, shared_memory, warps, blocks, barriers) is a binding one."""
    def holds(facts: Facts, m: Any) -> bool:
        return lid in facts.limiter
    holds.__name__ = f"binds_{lid}"
    return holds


def uses_smem(facts: Facts, m: Any) -> bool:
    """The launch asks for shared memory."""
    return facts.smem > 0


def uses_regs(facts: Facts, m: Any) -> bool:
    return bool(facts.params.get("regs_per_thread"))


def whole_kilobytes(facts: Facts, m: Any) -> bool:
    """The shared-memory request holds at least one kilobyte (so "1 KB = 1000 B" can change it)."""
    return facts.smem >= 1024


def partial_warp(facts: Facts, m: Any) -> bool:
    """The block is not a multiple of 32 threads: its last warp is partial."""
    return facts.threads % 32 != 0


def several_warps_per_block(facts: Facts, m: Any) -> bool:
    """A block has more than one warp (so "blocks counted as warps" changes the answer)."""
    return facts.threads > 32


def several_blocks(facts: Facts, m: Any) -> bool:
    """An SM holds more than one block (so "one block per SM" is a real slip)."""
    return facts.answers.get("blocks_per_sm", 0) > 1


def ragged_tail(facts: Facts, m: Any) -> bool:
    """The grid takes several waves and the last one is partial."""
    a = facts.answers
    return a.get("waves", 0) > 1 and a.get("tail_blocks", 0) > 0


def never(facts: Facts, m: Any) -> bool:
    """A word the family never says (a cell whose trap is "none")."""
    return False


def below_full(facts: Facts, m: Any) -> bool:
    """The SM is not full: occupancy below 100%."""
    return facts.answers.get("occupancy", 0) < 1


def carveout_set(facts: Facts, m: Any) -> bool:
    return facts.params.get("carveout", -1) != -1


def tie(facts: Facts, m: Any) -> bool:
    return len(facts.limiter) >= 2


def changes_answer(facts: Facts, m: Any) -> bool:
    """The wrong method gives another value for at least one of the problem's answers (numbers
    compared to six decimals, as the options are)."""
    answers = facts.answers
    for key, value in m.answers.items():
        if key not in answers:
            continue
        right = answers[key]
        if value == right:
            continue
        try:
            if round(value, 6) == round(right, 6):
                continue
        except TypeError:              # lists, names, None: unequal above means changed
            pass
        return True
    return False


def applies(when: dict[str, tuple[Predicate, ...]], facts: Facts, m: Any) -> bool:
    """Whether misconception `m` applies: its declared predicates hold. (One that changes no
    answer is never offered, since options must differ, nor diagnosed, since a student's answer
    equal to it is right; `changes_answer` states that for the tests.)"""
    preds = when.get(m.key)
    return not preds or all(p(facts, m) for p in preds)


# Notes on solution steps -----------------------------------------------------------------------

#: The lid each occupancy step computes (the engine's step keys).
LID_STEPS = {"blocks_by_regs": "registers", "blocks_by_smem": "shared_memory",
             "blocks_by_warps": "warps"}


def keep_applicable_notes(steps: list[Any], limiter: Any) -> list[Any]:
    """The occupancy cliff ("the floor throws away a fractional block") is remarked only on a
    lid that binds: on a lid above the minimum the floor changes nothing the student sees."""
    binding = frozenset(limiter or ())
    for step in steps:
        if step.note == "floor_drops" and LID_STEPS.get(step.key) not in binding:
            step.note = None
    return steps
