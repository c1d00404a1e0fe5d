"""Real problems for exporter tests, built from the occupancy engine (no generator needed).

`engine_problem` has the signature of `quizgen.generator.generate_one`: it draws a launch from the
seed, solves it with the real engine and fills a `Problem` with the engine's numbers and steps.
Prose is deliberately awkward (``<``, ``&``, quotes) so escaping is exercised.
"""

from __future__ import annotations

import random

from quizgen.engine.occupancy import launch_config, occupancy
from quizgen.gpus import get_gpu
from quizgen.problems.model import Choice, Problem, Solution, SolutionStep

CONCEPT = {
    "hinglish": ("100% occupancy hamesha best kyun nahi hota?",
                 "Kyunki compute-bound kernel ko kam warps bhi busy rakhte hain.",
                 "Zyada warps ke liye registers kam karne padte hain, jo spills laate hain."),
    "en": ("Why is 100% occupancy not always best?",
           "A compute-bound kernel stays busy with few warps.",
           "More warps need fewer registers per thread, which can cause spills."),
}


def engine_problem(cell: str, *, level: int, seed: int, lang: str = "hinglish",
                   gpu: str | None = None, note: str = "") -> Problem:
    rng = random.Random(f"{cell}:{level}:{seed}")
    if cell == "L-6":
        question, answer, reason = CONCEPT[lang]
        steps = [SolutionStep(title="Reason", formula=None, values={}, result=None, unit="",
                              why=reason)]
        return Problem(
            id=f"{cell}-{seed}", cell=cell, level=level, lang=lang, seed=seed, gpu={},
            params={"variant": seed},
            answers={"answer": answer}, question=question,
            solution=Solution(forecast="", steps=steps, verify=[], answer=answer + note,
                              trap="Occupancy is a means, not the goal."),
            topics=["latency hiding"])
    preset = gpu or ("a100" if cell.startswith("X") else "textbook")
    spec = get_gpu(preset)
    threads = rng.choice([64, 96, 128, 192, 256, 320, 512])
    regs = rng.choice([16, 24, 32, 40, 48, 64])
    smem = rng.choice([0, 2048, 8192, 12288])
    result = occupancy(spec, launch_config(threads, regs, smem), explain=True)
    steps = [SolutionStep(title=s.key.replace("_", " "), formula=s.formula, values=dict(s.values),
                          result=s.result, unit=s.unit, why=f"because {s.why} (T < {threads})",
                          note=s.note or "") for s in result.steps]
    blocks = result.blocks_per_sm
    wrong = sorted({blocks + 1, blocks + 2, max(blocks * 2, blocks + 3)} - {blocks})[:3]
    choices = [Choice(f"{blocks} blocks", blocks, True, "the lowest lid binds")]
    choices += [Choice(f"{w} blocks", w, False, f"forgot the floor & took {w}", "no_floor")
                for w in wrong]
    rng.shuffle(choices)
    main = {"occupancy": "occupancy"}.get(cell, "blocks_per_sm")
    return Problem(
        id=f"{cell}-{level}-{seed}", cell=cell, level=level, lang=lang, seed=seed,
        gpu=spec.to_dict(), params={"threads_per_block": threads, "regs_per_thread": regs,
                                    "smem_per_block": smem},
        answers={"blocks_per_sm": blocks, "active_warps": result.active_warps,
                 "occupancy": result.occupancy},
        question=(f"A kernel <launch> uses T = {threads} threads & r = {regs} registers, "
                  f"{smem} B shared memory on \"{preset}\".\n\nHow many blocks fit on one SM?"),
        solution=Solution(forecast="Guess: full, half or starved?", steps=steps,
                          verify=[f"{blocks} × {threads} ≤ {spec.max_threads_per_sm}"],
                          answer=f"{blocks} blocks per SM{note}", trap="The floor drops a block."),
        title=f"{cell} blocks", model=result.model, units={"blocks_per_sm": "blocks"},
        choices=choices, main_answer=main, topics=["occupancy", "sm limits"])


def answer_some(col, count: int) -> dict[int, tuple]:
    """Study `count` cards with the v3 scheduler (Good); return their scheduling state."""
    from anki.scheduler.v3 import CardAnswer

    done = {}
    for _ in range(count):
        queued = col.sched.get_queued_cards(fetch_limit=1)
        top = queued.cards[0]
        card = col.get_card(top.card.id)
        card.start_timer()
        col.sched.answer_card(col.sched.build_answer(card=card, states=top.states,
                                                      rating=CardAnswer.GOOD))
        done[card.id] = None
    for cid in done:
        card = col.get_card(cid)
        done[cid] = (card.nid, card.type, card.queue, card.due, card.ivl, card.reps, card.left)
    return done
