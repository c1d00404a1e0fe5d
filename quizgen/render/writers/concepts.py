"""The words of a concept card (cell L-6): its question, reason, worked number and wrong beliefs.

A card's sentences are data (``templates/concepts/l6.<lang>.toml``, read by
`quizgen.problems.concepts`); this writer lays them out as a problem: the reason as a prose step,
then the card's worked number with the latency cells' numbered why-lines, one verify line per
wrong belief, and the beliefs as the options of a multiple-choice card.
"""

from __future__ import annotations

import dataclasses
import hashlib

from quizgen.gpus import get_gpu
from quizgen.problems.concept_examples import KINDS
from quizgen.problems.concepts import ConceptCards, get_card, load_cards, worked_number
from quizgen.problems.model import Choice, Solution, SolutionStep
from quizgen.render.phrases import phrase
from quizgen.render.solution import solution_steps
from quizgen.render.whys import formula_whys, numbered_whys, own_whys
from quizgen.render.writers import writes
from quizgen.render.writers.base import Writer
from quizgen.render.writers.family import gpu_label


def _pick(options: tuple[str, ...], salt: str) -> str:
    """A variant chosen by a stable hash: the same problem always reads the same."""
    digest = hashlib.blake2b(salt.encode(), digest_size=4).digest()
    return options[int.from_bytes(digest, "big") % len(options)]


#: The grid cell's own whys for the steps of a launch smaller than the GPU (they name the numbers).
GRID_WHYS = {"sms_with_blocks": "occ7_sms_used", "idle_sms": "occ7_idle",
             "sm_utilisation": "occ7_sm_util"}


def example_context(facts: dict, on, card_gpu, lang: str) -> dict:
    """What a worked number's note names: its numbers, the GPU it is worked on and that GPU's
    limits, whether it uses the notes' formulas on a real chip (``book``) and whether it moved
    to another GPU than the card's (``moved``: the card's GPU cannot show the claim) and the card's
    GPU's limits that say why (``card_*``)."""
    return {**facts, "gpu": gpu_label(on, lang), "regs_sm": on.regs_per_sm,
            "w_max": on.max_warps_per_sm, "b_max": on.max_blocks_per_sm,
            "n_sched": on.schedulers_per_sm, "moved": on.name != card_gpu.name,
            "card_gpu": gpu_label(card_gpu, lang), "card_b_max": card_gpu.max_blocks_per_sm,
            "card_w_max": card_gpu.max_warps_per_sm, "card_regs_sm": card_gpu.regs_per_sm,
            "card_T_max": card_gpu.max_threads_per_block, "card_r_max": card_gpu.max_regs_per_thread,
            "card_book": card_gpu.is_textbook,
            "book": facts.get("model") == "textbook" and not on.is_textbook}


@writes(ConceptCards)
class ConceptWriter(Writer):
    def write(self, params, gpu, solved, lang, salt):
        deck = load_cards(lang)
        card = get_card(solved.answers["concept"], lang)
        title = deck.title.format(topic=deck.topics[card.topic])
        reason = SolutionStep(title=deck.reason_title, formula=None, values={}, result="",
                              unit="", why=card.reason)
        steps, numbered_from, facts, on = worked_number(card.id, gpu.name)
        steps = [*steps[:numbered_from],
                 *own_whys([dataclasses.replace(st) for st in steps[numbered_from:]], lang)]
        numbered_whys(formula_whys(steps, GRID_WHYS), lang)
        worked = solution_steps(steps, lang, salt=salt, gpu=get_gpu(on).to_dict())
        if worked:                      # say what the worked number is about, on its first step
            worked[0].note = phrase(lang, "L-6-example", KINDS[get_card(card.id).example].note,
                                    {**example_context(facts, get_gpu(on), gpu, lang),
                                     "kind": get_card(card.id).example}, salt=salt)
        verify = [deck.wrong_line.format(belief=w.belief, why_wrong=w.why_wrong)
                  for w in card.wrong]
        solution = Solution(forecast=_pick(deck.forecasts, salt), steps=[reason, *worked],
                            verify=verify, answer=card.answer, trap=card.trap)
        return title, card.question, solution

    def mcq_stem(self, params, gpu, solved, lang, salt):
        """A card asks one thing already: its question is the stem."""
        return get_card(solved.answers["concept"], lang).question

    def choices(self, params, gpu, solved, lang, salt):
        """The card as a multiple-choice question: its answer and its wrong beliefs, shuffled
        stably by `salt`; None when the card has no wrong belief to offer."""
        card = get_card(solved.answers["concept"], lang)
        if not card.wrong:
            return None
        options = [Choice(text=card.answer, value=card.id, correct=True, why=card.reason)]
        options += [Choice(text=w.belief, value=w.key, correct=False, why=w.why_wrong,
                           misconception=w.key) for w in card.wrong]
        # Ordered by the language-free value, so both languages show the same letter order.
        options.sort(key=lambda c: hashlib.blake2b(f"{salt}|{c.value}".encode(),
                                                   digest_size=4).digest())
        return options
