"""The notes' lessons that no numeric cell teaches, as L-6 concept cards in both languages: each
card is tied to the passage of the notes it comes from."""

from __future__ import annotations

import pytest

from conftest import seeds_dir
from quizgen.generator import generate_one
from quizgen.problems.concepts import load_cards

#: card id → (seed file, a passage of it that the card teaches)
LESSONS = {
    "warp-is-32-threads": ("004_edfc64fa581d3886.txt", "cache lines 128B = 32× 4-byte floats"),
    "roofline-machine-balance": ("004_edfc64fa581d3886.txt", "7.1.3-Roofline-Model"),
    "nsight-stalled-at-low-occupancy": ("004_edfc64fa581d3886.txt",
                                        'Agar Nsight "Warp was stalled waiting for memory" dikhaye, lekin occupancy 30% hai'),
    "fp16-halves-registers": ("004_edfc64fa581d3886.txt", "precision reduce karo (FP32 → FP16 jahan safe ho)"),
    "carveout-call": ("004_edfc64fa581d3886.txt", "L1 cache use karo (`cudaFuncSetCacheConfig`)"),
    "warp-count-proof": ("001_d0e24682c8db7b9b.txt", "Likho $P = 32 q + r$"),
    "a100-sm-holds-64-warps": ("004_edfc64fa581d3886.txt", "64 warps/SM (2048 threads, kyunki har warp = 32 threads)"),
    "homework-hides-latency": ("004_edfc64fa581d3886.txt", "Socho tum homework kar rahe ho"),
}


@pytest.mark.skipif(seeds_dir() is None, reason="the source notes are not beside this checkout")
@pytest.mark.parametrize("card_id", LESSONS)
def test_each_lesson_names_a_real_passage_of_the_notes(card_id):
    name, passage = LESSONS[card_id]
    assert passage in (seeds_dir() / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("lang", ["en", "hinglish"])
@pytest.mark.parametrize("card_id", LESSONS)
def test_each_lesson_is_a_card_with_its_misconceptions_in_both_languages(card_id, lang):
    card = load_cards(lang).cards[card_id]
    assert len(card.wrong) >= 3      # three wrong beliefs: four options on the card
    level = card.level
    for seed in range(60):
        problem = generate_one("L-6", level=level, seed=seed, lang=lang)
        if problem.answers["concept"] == card_id:
            break
    else:
        pytest.fail(f"{card_id} never comes up at level {level}")
    assert problem.question == card.question
    keys = {c.misconception for c in problem.choices if not c.correct}
    assert keys == {w.key for w in card.wrong}


def test_the_proof_card_says_both_cases():
    answer = load_cards("en").cards["warp-count-proof"].answer
    assert "P = 32q + r" in answer and "r = 0" in answer and "r > 0" in answer
    for P in range(1, 1025):
        assert (P - 1) // 32 + 1 == -(-P // 32)
