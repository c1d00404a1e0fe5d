"""A grid across the GPU: block slots, idle SMs, waves and the ragged tail (seed 000 Ex 7).

The notes' model, used here:

* one wave = as many blocks as the GPU holds at once: slots = SMs × resident blocks per SM;
* the first blocks are handed out one per SM, so a grid smaller than the SM count lights
  min(grid, SMs) SMs and leaves the rest idle;
* waves = ⌈grid/slots⌉; the last wave holds the tail, grid − full waves × slots blocks (0 when the
  last wave is full);
* blocks go out breadth-first (CELLS.md; measured on an H200: 200 blocks that could fit 16 per
  SM land on all 132 SMs, at most 2 on any one): the tail's t blocks spread one per SM first, so
  min(t, SMs) SMs hold them, and the tail's cost is its share of the slots, t/slots. Packing the
  tail onto ⌈t/blocks per SM⌉ SMs (seed 000 Ex 7's "10 SMs") is the misconception `packed_tail`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from quizgen.engine.arith import ceiling
from quizgen.engine.derivation import Step
from quizgen.errors import require_int

#: Formulas of this module: name → (sympy source, {symbol: meaning}).
FORMULAS: dict[str, tuple[str, dict[str, str]]] = {
    "grid_slots": ("N_SM*B_SM", {
        "N_SM": "SMs on the GPU", "B_SM": "resident blocks per SM"}),
    "sms_with_blocks": ("Min(G, N_SM)", {"G": "blocks in the grid", "N_SM": "SMs on the GPU"}),
    "idle_sms": ("N_SM - U_SM", {"N_SM": "SMs on the GPU", "U_SM": "SMs that hold a block"}),
    "wave_count": ("ceiling(G/C_slots)", {
        "G": "blocks in the grid", "C_slots": "block slots of one wave"}),
    "full_waves": ("floor(G/C_slots)", {
        "G": "blocks in the grid", "C_slots": "block slots of one wave"}),
    "tail_blocks": ("G - F_w*C_slots", {
        "G": "blocks in the grid", "F_w": "full waves", "C_slots": "block slots of one wave"}),
    "tail_sms": ("Min(R_tail, N_SM)", {
        "R_tail": "blocks in the tail wave", "N_SM": "SMs on the GPU"}),
    "sm_utilisation": ("U_SM/N_SM", {"U_SM": "SMs that hold a block", "N_SM": "SMs on the GPU"}),
    "slot_utilisation": ("G/(N_waves*C_slots)", {
        "G": "blocks in the grid", "N_waves": "waves", "C_slots": "block slots of one wave"}),
}


@dataclass(slots=True)
class Waves:
    """How a grid of blocks runs on the whole GPU."""

    grid_blocks: int
    num_sms: int
    blocks_per_sm: int
    slots: int
    sms_with_blocks: int
    idle_sms: int
    waves: int
    full_waves: int
    tail_blocks: int
    tail_sms: int
    sm_utilisation: float
    slot_utilisation: float
    steps: list[Step] = field(default_factory=list)

    @property
    def tail_idle_sms(self) -> int:
        """SMs with nothing to do during the last wave (0 when it is full)."""
        return self.num_sms - self.tail_sms if self.tail_blocks else 0

    @property
    def tail_sm_utilisation(self) -> float:
        return self.tail_sms / self.num_sms if self.tail_blocks else 1.0

    @property
    def tail_utilisation(self) -> float:
        """The share of the block slots the last wave uses: t/slots (1 when it is full)."""
        return self.tail_blocks / self.slots if self.tail_blocks else 1.0

    @property
    def packed_tail_sms(self) -> int:
        """The misconception `packed_tail`: the tail packed B blocks per SM, ⌈t/B⌉ SMs."""
        return ceiling(self.tail_blocks, self.blocks_per_sm)

    @property
    def small_grid(self) -> bool:
        """Fewer blocks than SMs: some SMs get nothing at all."""
        return self.grid_blocks < self.num_sms

    def to_dict(self, *, with_steps: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "grid_blocks": self.grid_blocks, "num_sms": self.num_sms,
            "blocks_per_sm": self.blocks_per_sm, "slots": self.slots,
            "sms_with_blocks": self.sms_with_blocks, "idle_sms": self.idle_sms,
            "waves": self.waves, "full_waves": self.full_waves, "tail_blocks": self.tail_blocks,
            "tail_sms": self.tail_sms, "tail_idle_sms": self.tail_idle_sms,
            "sm_utilisation": self.sm_utilisation, "slot_utilisation": self.slot_utilisation,
            "tail_sm_utilisation": self.tail_sm_utilisation,
            "tail_utilisation": self.tail_utilisation, "small_grid": self.small_grid,
        }
        if with_steps:
            out["steps"] = [s.to_dict() for s in self.steps]
        return out


def waves(grid_blocks: Any, num_sms: Any, blocks_per_sm: Any, *, explain: bool = False) -> Waves:
    """Slots, SMs used and idle, waves, the tail wave and utilisation for one launch."""
    G = require_int("grid_blocks", grid_blocks, minimum=1)
    S = require_int("num_sms", num_sms, minimum=1)
    B = require_int("blocks_per_sm", blocks_per_sm, minimum=1,
                    allowed="a whole number ≥ 1 (a block that cannot fit never launches)")
    slots = S * B
    used = min(G, S)
    idle = S - used
    n_waves = ceiling(G, slots)
    full = G // slots
    tail = G - full * slots
    tail_sms = min(tail, S)        # breadth-first: one block per SM first (0 when no tail)
    sm_util = used / S
    slot_util = G / (n_waves * slots)

    steps: list[Step] = []
    if explain:
        steps.append(Step("slots", "grid_slots", {"N_SM": S, "B_SM": B}, slots, "blocks",
                          "one_wave_capacity"))
        steps.append(Step("sms_with_blocks", "sms_with_blocks", {"G": G, "N_SM": S}, used, "SMs",
                          "one_block_per_sm_first", "too_few_blocks" if G < S else None))
        steps.append(Step("idle_sms", "idle_sms", {"N_SM": S, "U_SM": used}, idle, "SMs",
                          "blocks_are_the_unit", "idle_sms" if idle else None))
        steps.append(Step("waves", "wave_count", {"G": G, "C_slots": slots}, n_waves, "waves",
                          "rounds_of_blocks",
                          "single_wave" if n_waves == 1 else None if tail == 0 else "ragged_tail"))
        if n_waves > 1:
            steps.append(Step("full_waves", "full_waves", {"G": G, "C_slots": slots}, full, "waves",
                              "count_full_waves"))
            steps.append(Step("tail_blocks", "tail_blocks", {"G": G, "F_w": full, "C_slots": slots},
                              tail, "blocks", "leftover_blocks", None if tail else "no_tail"))
            if tail:
                # (the tail's share of the slots, t/slots, is checked in the Verify lines)
                steps.append(Step("tail_sms", "tail_sms", {"R_tail": tail, "N_SM": S}, tail_sms, "SMs",
                                  "tail_breadth_first", "tail_idle_sms" if tail_sms < S else None))
        steps.append(Step("sm_utilisation", "sm_utilisation", {"U_SM": used, "N_SM": S}, sm_util, "",
                          "share_of_sms", "grid_too_small" if G < S else None))
        steps.append(Step("slot_utilisation", "slot_utilisation",
                          {"G": G, "N_waves": n_waves, "C_slots": slots}, slot_util, "",
                          "average_over_waves"))
    return Waves(G, S, B, slots, used, idle, n_waves, full, tail, tail_sms, sm_util, slot_util, steps)
