"""Skill notes (one Anki note per cell and level holding K pre-solved variants), under the name
other modules import them by; they are made in `quizgen.export.anki.skills`."""

from __future__ import annotations

from quizgen.export.anki.skills import (SKILL_FIELDS, SKILL_MODEL_ID, SKILL_MODEL_NAME,
                                        add_skills, answer_block, has_problem_kinds,
                                        question_block, skill_count, skill_deck_name, skill_guid,
                                        skill_key, skill_model, skill_name, skill_notes,
                                        skill_script, split_progress, typed_check, variant_slots,
                                        words_html)

__all__ = [
    "SKILL_FIELDS", "SKILL_MODEL_ID", "SKILL_MODEL_NAME", "add_skills", "answer_block",
    "has_problem_kinds", "question_block", "skill_count", "skill_deck_name", "skill_guid",
    "skill_key", "skill_model", "skill_name", "skill_notes", "skill_script", "split_progress",
    "typed_check", "variant_slots", "words_html",
]
