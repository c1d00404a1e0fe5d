"""Concept cards (cell L-6): the card files, the family, and the language and originality rules."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import seeds_dir

import pytest

from quizgen.errors import QuizgenError
from quizgen.generator import generate_one
from quizgen.gpus import preset_names
from quizgen.problems.base import LEVELS
from quizgen.problems.concepts import (
    TOPICS, ConceptCards, _parse_card, card_ids, get_card, load_cards,
)
from quizgen.problems.model import Problem
from quizgen.render.writers import writer_for

LANGS = ("hinglish", "en")
SEEDS_DIR = seeds_dir() or Path("/nonexistent")
SEED_FILES = sorted(SEEDS_DIR.glob("0*.txt"))

#: Hindi function words: a Hinglish sentence uses some, an English one none of these.
HINDI_WORDS = {
    "hai", "hain", "ke", "ki", "ka", "nahi", "karta", "karte", "karti", "toh", "se", "mein", "ko",
    "bhi", "kyunki", "jab", "hota", "hote", "hoti", "woh", "yeh", "aur", "par", "tak", "sirf",
    "jaata", "jaate", "jaati", "kya", "kyun", "kaise", "chahiye", "kuch", "isliye", "apne", "liye",
}
#: Of those, the ones that are never English words (short ones like "par", "ka" are left out).
NEVER_ENGLISH = {"hai", "hain", "ke", "nahi", "karta", "karte", "karti", "kyunki", "mein", "toh",
                 "hota", "hote", "jaata", "chahiye", "isliye", "yeh", "woh"}

#: Concepts the cell must cover, each with the card that carries it.
REQUIRED = {
    "what occupancy is": "occupancy-definition",
    "why occupancy hides latency": "occupancy-hides-latency",
    "the limiters": "occupancy-limiters",
    "more warps do not lower one load's latency": "more-warps-same-latency",
    "Little's law": "littles-law",
    "ILP/MLP lower warps needed": "ilp-mlp-fewer-warps",
    "more schedulers need more warps (never divide by them)": "schedulers-need-more-warps",
    "blocks go out breadth-first; the tail is not packed": "blocks-go-out-breadth-first",
    "the L_eff mistake": "l-eff-mistake",
    "100% occupancy is not always best": "full-occupancy-not-best",
    "low occupancy can be fine": "compute-bound-low-occupancy",
    "stores retire asynchronously": "stores-retire-async",
    "one warp, one memory instruction": "one-warp-one-memory-instruction",
    "fix for registers": "fix-registers",
    "fix for shared memory": "fix-shared-memory",
    "fix for block size": "fix-block-size",
    "fix for synchronisation": "fix-synchronisation",
    "fix for divergence": "fix-divergence",
    "divergence cost ignores the split": "divergence-split-irrelevant",
    "an empty branch is free": "empty-branch-free",
    "occupancy counts warps, not lanes": "occupancy-counts-warps",
    "a warp is 32 lockstep threads": "warp-lockstep",
    "partial warps waste lanes": "partial-warp-wastes-lanes",
    "blockDim.x a multiple of 32": "blockdim-x-multiple-of-32",
    "too few blocks leave SMs idle": "too-few-blocks-idle-sms",
    "the tail wave": "tail-wave",
    "the block cap with tiny blocks": "tiny-blocks-block-cap",
    "the floor: no partial block": "floor-whole-blocks",
    "register allocation granularity": "register-granularity",
    "1 KB reserved shared memory per block": "reserved-smem-per-block",
    "dynamic shared memory opt-in above 48 KB": "dynamic-smem-optin",
    "occupancy tools": "occupancy-tools",
}


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9_]+", text.lower())


def card_texts(card) -> list[str]:
    return ([card.question, card.answer, card.reason, card.trap]
            + [t for w in card.wrong for t in (w.belief, w.why_wrong)])


def problems(lang: str):
    """Every card of every level, generated through the public entry point."""
    out = []
    for level in LEVELS:
        for seed in range(len(card_ids(level))):
            out.append(generate_one("L-6", level=level, seed=seed, lang=lang))
    return out


# ---------------------------------------------------------------------------------------------
# The card files


def test_both_languages_hold_the_same_thirty_or_more_cards():
    en, hi = load_cards("en"), load_cards("hinglish")
    assert len(en.cards) >= 30
    assert set(en.cards) == set(hi.cards)
    for card_id, card in en.cards.items():
        other = hi.cards[card_id]
        assert (other.topic, other.level) == (card.topic, card.level), card_id
        assert [w.key for w in other.wrong] == [w.key for w in card.wrong], card_id
        assert other.question != card.question and other.answer != card.answer, card_id


def test_every_level_and_topic_has_cards():
    for level in LEVELS:
        assert len(card_ids(level)) >= 5, level
    assert sorted(card_ids()) == sorted(card_ids(1) + card_ids(2) + card_ids(3))
    assert {get_card(c).topic for c in card_ids()} == set(TOPICS)


@pytest.mark.parametrize("concept, card_id", sorted(REQUIRED.items()))
def test_required_concept_has_a_card(concept, card_id):
    assert card_id in card_ids(), concept


def test_most_cards_offer_two_or_three_wrong_beliefs():
    cards = load_cards("en").cards.values()
    assert all(len(c.wrong) <= 3 for c in cards)
    with_options = [c for c in cards if 2 <= len(c.wrong) <= 3]
    assert len(with_options) >= 0.8 * len(cards)


@pytest.mark.parametrize("lang", LANGS)
def test_no_text_field_is_empty_and_answers_are_short(lang):
    deck = load_cards(lang)
    assert deck.forecasts and all(f.strip() for f in deck.forecasts)
    assert set(deck.topics) == set(TOPICS)
    for card in deck.cards.values():
        for text in card_texts(card):
            assert text.strip(), card.id
        sentences = re.findall(r"[.!?](?:\s|$)", card.answer)
        assert 1 <= len(sentences) <= 2, (card.id, card.answer)


def test_hinglish_is_hinglish():
    for card in load_cards("hinglish").cards.values():
        found = [set(words(t)) & HINDI_WORDS for t in card_texts(card)]
        assert all(found), (card.id, [t for t, f in zip(card_texts(card), found) if not f])
        assert len(set().union(*found)) >= 4, card.id
    # The notes' own voice: technical terms stay in English inside Hinglish sentences.
    text = " ".join(t for c in load_cards("hinglish").cards.values() for t in card_texts(c))
    for term in ("warp", "occupancy", "shared memory", "register", "latency", "scheduler"):
        assert term in text.lower(), term


def test_english_has_no_hindi():
    deck = load_cards("en")
    for card in deck.cards.values():
        for text in card_texts(card):
            assert not set(words(text)) & NEVER_ENGLISH, (card.id, text)
    for text in deck.forecasts:
        assert not set(words(text)) & NEVER_ENGLISH


@pytest.mark.skipif(not SEED_FILES, reason="the source notes are not in this checkout")
@pytest.mark.parametrize("lang", LANGS)
def test_no_eight_word_run_is_copied_from_the_notes(lang):
    seed_words = words(" ".join(p.read_text(encoding="utf-8") for p in SEED_FILES))
    windows = {tuple(seed_words[i:i + 8]) for i in range(len(seed_words) - 7)}
    deck = load_cards(lang)
    texts = [t for c in deck.cards.values() for t in card_texts(c)] + list(deck.forecasts)
    copied = []
    for text in texts:
        ws = words(text)
        copied += [" ".join(ws[i:i + 8]) for i in range(len(ws) - 7)
                   if tuple(ws[i:i + 8]) in windows]
    assert copied == []


# ---------------------------------------------------------------------------------------------
# The family through the generator


@pytest.mark.parametrize("lang", LANGS)
def test_every_card_renders_through_generate_one(lang):
    seen = set()
    for problem in problems(lang):
        card = get_card(problem.params["card"], lang)
        seen.add(card.id)
        assert problem.cell == "L-6" and card.level == problem.level
        assert problem.answers == {"concept": card.id}
        assert problem.main_answer is None
        assert problem.question == card.question
        sol = problem.solution
        assert sol.answer == card.answer and sol.trap == card.trap and sol.forecast
        # the reason, then the card's worked number: engine steps whose whys name their
        # numbers, the first saying what the numbers are (none for a card no number shows)
        step = sol.steps[0]
        assert step.formula is None and step.why == card.reason and step.title
        worked = sol.steps[1:]
        if get_card(card.id).example == "none":
            assert not worked
        else:
            assert len(worked) >= 3
            assert worked[0].note and all(st.formula and any(c.isdigit() for c in st.why)
                                          for st in worked)
        assert len(sol.verify) == len(card.wrong)
        for line, wrong in zip(sol.verify, card.wrong):
            assert wrong.belief in line and wrong.why_wrong in line
        assert load_cards(lang).topics[card.topic] in problem.title
        again = Problem.from_dict(json.loads(json.dumps(problem.to_dict(), ensure_ascii=False)))
        assert again == problem
    assert seen == set(card_ids())


@pytest.mark.parametrize("level", LEVELS)
def test_seeds_cover_every_card_of_a_level_once(level):
    n = len(card_ids(level))
    drawn = [generate_one("L-6", level=level, seed=s, lang="en").params["card"] for s in range(n)]
    assert sorted(drawn) == sorted(card_ids(level))
    # The card depends on the seed only, not on the language.
    hinglish = [generate_one("L-6", level=level, seed=s, lang="hinglish").params["card"]
                for s in range(n)]
    assert hinglish == drawn
    assert generate_one("L-6", level=level, seed=n, lang="en").params["card"] == drawn[0]


def test_same_arguments_same_problem():
    a = generate_one("L-6", level=2, seed=5, lang="hinglish")
    b = generate_one("L-6", level=2, seed=5, lang="hinglish")
    assert a.to_dict() == b.to_dict()


@pytest.mark.parametrize("lang", LANGS)
def test_choices_are_the_answer_and_the_wrong_beliefs(lang):
    fam = ConceptCards()
    for problem in problems(lang):
        card = get_card(problem.params["card"], lang)
        solved = fam.solve(problem.params, None)
        options = writer_for(fam).choices(problem.params, None, solved, lang, problem.id)
        if not card.wrong:
            assert options is None
            continue
        assert [o.correct for o in options].count(True) == 1
        right = next(o for o in options if o.correct)
        assert (right.text, right.value, right.why) == (card.answer, card.id, card.reason)
        wrong = {o.misconception: o for o in options if not o.correct}
        assert set(wrong) == {w.key for w in card.wrong}
        for w in card.wrong:
            assert (wrong[w.key].text, wrong[w.key].value, wrong[w.key].why) == (
                w.belief, w.key, w.why_wrong)
        assert len({o.text for o in options}) == len(options)
        # Once the generator uses the family's options, the problem carries exactly these.
        assert problem.choices in ([], options)


def test_choice_order_is_the_same_in_both_languages_and_not_always_first():
    fam = ConceptCards()
    first_right = 0
    for card_id in card_ids():
        params = {"card": card_id}
        solved = fam.solve(params, None)
        en = writer_for(fam).choices(params, None, solved, "en", f"L-6-{card_id}")
        hi = writer_for(fam).choices(params, None, solved, "hinglish", f"L-6-{card_id}")
        assert [o.value for o in en] == [o.value for o in hi]
        first_right += en[0].correct
    assert 0 < first_right < len(card_ids())


def test_misconceptions_name_each_wrong_belief():
    fam = ConceptCards()
    for card_id in card_ids():
        params = {"card": card_id}
        solved = fam.solve(params, None)
        miscs = fam.misconceptions(params, None, solved)
        assert [m.key for m in miscs] == [w.key for w in get_card(card_id).wrong]
        assert all(m.answers == {"concept": m.key} != solved.answers for m in miscs)


# ---------------------------------------------------------------------------------------------
# Errors


def test_unknown_card_is_a_clear_error():
    with pytest.raises(QuizgenError) as err:
        ConceptCards().solve({"card": "no-such-card"}, None)
    assert err.value.field == "card" and "no-such-card" in str(err.value)


def test_unknown_language_is_a_clear_error():
    with pytest.raises(QuizgenError) as err:
        load_cards("klingon")
    assert err.value.field == "lang"


GOOD = {"id": "a-card", "topic": "warps", "level": 1, "question": "Q?", "answer": "A.",
        "reason": "R.", "trap": "T.",
        "wrong": [{"key": "w-one", "belief": "B.", "why_wrong": "W."}]}


@pytest.mark.parametrize("change, message", [
    ({"id": "Not Kebab"}, "kebab-case"),
    ({"topic": "cooking"}, "topic"),
    ({"level": 4}, "level"),
    ({"level": True}, "level"),
    ({"answer": "  "}, "'answer'"),
    ({"trap": None}, "'trap'"),
    ({"wrong": [{"key": "w", "belief": "B.", "why_wrong": "W."}] * 2}, "distinct"),
    ({"wrong": [{"key": "w", "belief": "", "why_wrong": "W."}]}, "'belief'"),
])
def test_a_malformed_card_names_its_field(change, message):
    assert _parse_card(GOOD, "x.toml", 0).id == "a-card"
    with pytest.raises(QuizgenError) as err:
        _parse_card({**GOOD, **change}, "x.toml", 0)
    assert err.value.field == "card" and message in str(err.value) and "x.toml" in str(err.value)


@pytest.mark.parametrize("gpu", ["textbook", "a100", "t4", "h100"])
def test_a_cards_worked_number_is_on_the_cards_own_gpu(gpu):
    """The card's footer names its GPU; its worked number must be computed there and say so
    (an A100's numbers under a textbook footer was the slip)."""
    from quizgen.generator import generate_one
    from quizgen.gpus import get_gpu
    from quizgen.render.writers.family import gpu_label

    seen = set()
    for level in (1, 2, 3):
        for seed in range(20):
            problem = generate_one("L-6", level=level, seed=seed, gpu=gpu, lang="en")
            steps = problem.solution.steps
            note = next((st.note for st in steps if st.note and st.note.startswith("A worked number")), "")
            # a card that shows one of NVIDIA's rules the card's GPU lacks is worked on the A100
            # and says so; every other card on its own GPU
            the_gpu = get_gpu(gpu)
            if gpu_label(the_gpu, "en") not in note and "A100" in note:
                the_gpu = get_gpu("a100")
            values = {k: v for st in steps for k, v in st.values.items()}
            if "W_max" in values:               # occupancy and latency examples use the cap
                assert values["W_max"] == the_gpu.max_warps_per_sm, (problem.id, values)
                assert gpu_label(the_gpu, "en") in note, note
                seen.add("cap")
            if "R_SM" in values:
                assert values["R_SM"] == the_gpu.regs_per_sm
            if "N_sched" in values:
                assert values["N_sched"] == the_gpu.schedulers_per_sm
    assert "cap" in seen


# ---------------------------------------------------------------------------------------------
# Every card's worked number shows what the card says


@pytest.mark.parametrize("gpu", preset_names())
def test_every_cards_worked_number_shows_its_claim_on_every_gpu(gpu):
    """Drawn until the numbers show the card's claim (`concept_examples.KINDS[...].shows`); every
    card names a kind, and only a card no number can show has none."""
    from quizgen.gpus import get_gpu
    from quizgen.problems.concept_examples import KINDS, worked_example

    for card_id in card_ids():
        kind = get_card(card_id).example
        assert kind in KINDS or card_id in NO_NUMBER, (card_id, kind)
        if kind == "none":
            continue
        steps, _, facts, on = worked_example(kind, card_id, get_gpu(gpu))
        assert len(steps) >= 3 and KINDS[kind].shows(facts), (card_id, gpu, facts)


#: The cards whose point no worked number can show (the warp's width is a fact of the
#: instruction set; time at a barrier depends on the code between barriers).
NO_NUMBER = {"warp-is-32-threads", "fix-synchronisation"}


def _worked(card_id: str, gpu: str = "textbook") -> tuple[list, dict]:
    from quizgen.problems.concepts import worked_number

    steps, _, facts, _ = worked_number(card_id, gpu)
    return list(steps), facts


@pytest.mark.parametrize("gpu", ["textbook", "a100", "h100", "t4"])
def test_the_cards_the_old_examples_contradicted_now_show_their_point(gpu):
    """'Fewer blocks than SMs' was worked with 300 blocks on 132 SMs; 'why is occupancy low'
    came out at 100%; 'why rounded down' was worked in warps, not blocks."""
    from quizgen.gpus import get_gpu

    sms = get_gpu(gpu).num_sms
    steps, facts = _worked("too-few-blocks-idle-sms", gpu)
    assert facts["G"] < sms and [s.result for s in steps if s.key == "idle_sms"] == [sms - facts["G"]]
    steps, facts = _worked("tiny-blocks-block-cap", gpu)
    occupancy = [s for s in steps if s.key == "occupancy"][-1].result
    assert facts["limiter"] == ["blocks"] and occupancy < 1
    steps, facts = _worked("floor-whole-blocks", gpu)
    by_regs = next(s for s in steps if s.key == "blocks_by_regs")
    exact = by_regs.values["R_SM"] / (by_regs.values["T"] * by_regs.values["r"])
    assert by_regs.unit == "blocks" and by_regs.result == int(exact) and exact % 1 >= 0.5
    steps, facts = _worked("a100-sm-holds-64-warps", gpu)
    assert facts["warps"] == 32 and [s.values["W_max"] for s in steps if s.key == "occupancy"] == [64]
    steps, facts = _worked("divergence-split-irrelevant", gpu)
    assert min(facts["split"]) == 1 and facts["slowdown"] == 2


def test_the_warp_card_says_what_a_warp_is_on_each_chip():
    """32 is the width of one SIMT instruction; the lanes that run it differ by chip: 16 FP32
    lanes per sub-partition on an A100 (an FP32 warp instruction issues over 2 cycles), 32 on an
    H100. The card never calls 32 the number of lanes."""
    for lang in LANGS:
        card = get_card("warp-is-32-threads", lang)
        text = " ".join(card_texts(card))
        assert "SIMD width" not in text and "SIMD" not in card.answer
        assert "16" in card.answer and "2 cycles" in card.answer and "H100" in card.answer
        assert "128" in card.answer


# ---------------------------------------------------------------------------------------------
# Every misconception of the follow-up decks maps to a card about it

#: misconception → (the card slips.toml sends it to, a passage of that card that answers it).
#: Judged by hand: the passage must refute the wrong method the misconception names.
SLIP_CARDS = {
    "no_floor": ("floor-whole-blocks", "the fraction of a block left over cannot run"),
    "ceil_not_floor": ("floor-whole-blocks", "rounded down rather than to the nearest"),
    "warps_not_whole_blocks": ("floor-whole-blocks", "a block is resident only when all of its resources fit"),
    "occupancy_from_blocks": ("occupancy-definition", "active warps divided by the most warps"),
    "threads_not_warps": ("occupancy-counts-warps", "As one whole warp"),
    "ignore_regs": ("occupancy-limiters", "The register file"),
    "ignore_smem": ("occupancy-limiters", "the shared memory pool"),
    "ignore_warp_cap": ("occupancy-limiters", "the ceiling on resident warps"),
    "ignore_bmax": ("tiny-blocks-block-cap", "The SM's cap on resident blocks binds"),
    "no_reg_rounding": ("register-granularity", "allocated per warp in fixed-size chunks"),
    "no_reserved_smem": ("reserved-smem-per-block", "reserves 1 KB of shared memory for each resident block"),
    "ignore_dynamic_smem": ("ptxas-omits-dynamic-smem", "on top of the static bytes ptxas shows"),
    "launch_without_optin": ("dynamic-smem-optin", "The opt-in"),
    "ignore_carveout": ("carveout-call", "states a preference"),
    "forgot_tail_wave": ("tail-wave", "the last round is only partly full"),
    "every_sm_busy": ("too-few-blocks-idle-sms", "Some SMs receive no block"),
    "busy_as_idle": ("too-few-blocks-idle-sms", "sit idle for the whole launch"),
    "packed_tail": ("blocks-go-out-breadth-first", "one per SM first"),
    "divided_by_schedulers": ("schedulers-need-more-warps", "times the warps one scheduler needs"),
    "forgot_schedulers": ("schedulers-need-more-warps", "every scheduler issues only from its own warps"),
    "one_warp_per_scheduler": ("occupancy-hides-latency", "issues instructions from other warps"),
    "l_eff": ("l-eff-mistake", "none of them changes L"),
    "ilp_multiplies": ("ilp-mlp-fewer-warps", "fewer distinct warps are needed"),
    "no_ilp": ("ilp-mlp-fewer-warps", "more outstanding work"),
    "cap_is_enough": ("hardware-cap-vs-ideal", "above the SM's maximum resident warps"),
    "full_occupancy_needed": ("compute-bound-low-occupancy", "a few warps keep those units busy"),
    "occupancy_decides_speed": ("equal-occupancy-different-speed", "without any change in occupancy"),
    "store_on_critical_path": ("stores-retire-async", "drained to memory in the background"),
    "one_warp_per_load": ("no-compute-between-loads", "with nothing to overlap"),
    "no_partial_warp": ("warp-count-proof", "so q + 1 warps"),
    "top_id_as_count": ("warp-count-proof", "⌊(P − 1)/32⌋ + 1"),
    "exact_division": ("warp-count-proof", "⌈P/32⌉"),
    "wavefront_64": ("warp-is-32-threads", "32 threads of a warp"),
    "threads_as_warps": ("warp-is-32-threads", "issues each instruction once for all 32 threads of a warp"),
    "branches_overlap": ("divergence-serialises", "runs each taken path one after another"),
    "slowest_path": ("empty-branch-free", "pays only for the path it actually runs"),
    "count_empty_branch": ("empty-branch-free", "the warp skips it"),
    "minority_share": ("divergence-split-irrelevant", "both pay the same serialised time"),
    "square_is_balanced": ("blockdim-x-multiple-of-32", "no partial warp"),
    "warp_lockstep": ("warp-lockstep", "lockstep is not guaranteed"),
    "no_barrier_needed": ("fix-synchronisation", "a warp may read shared memory before another has written it"),
    "barrier_always_block_wide": ("fix-synchronisation", "replacing them with warp-level primitives"),
    "blocks_as_warps": ("occupancy-counts-warps", "occupancy counts warp slots taken"),
    "register_blocks_as_warps": ("occupancy-counts-warps", "occupancy counts warp slots taken"),
    "block_fill_as_occupancy": ("occupancy-definition", "active warps divided by the most warps"),
    "packed_grid": ("blocks-go-out-breadth-first", "one per SM first"),
    "exact_waves": ("tail-wave", "a grid runs in rounds of that size"),
    "no_ceiling": ("warp-count-proof", "any leftover thread needs a whole warp, so the count rounds up"),
    "half_warp": ("warp-is-32-threads", "32 threads of a warp"),
    "forgot_warp_size": ("warp-is-32-threads", "issues each instruction once for all 32 threads of a warp"),
}


def test_every_misconception_in_the_slips_map_goes_to_a_card_about_it():
    import tomllib

    from quizgen.resources import data_dir

    with (data_dir("templates") / "concepts" / "slips.toml").open("rb") as fh:
        slips = tomllib.load(fh)["card"]
    assert slips == {key: card for key, (card, _) in SLIP_CARDS.items()}, \
        "the map changed: judge the new pairs and record them in SLIP_CARDS"
    for key, (card_id, passage) in SLIP_CARDS.items():
        card = get_card(card_id, "en")
        text = " ".join([card.question, card.answer, card.reason, card.trap,
                         *(w.why_wrong for w in card.wrong)])
        assert passage in text, (key, card_id, passage)
