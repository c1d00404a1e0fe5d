"""Recipes: what a deck, an exam or an LMS bank holds, read from TOML once and validated once.

* `quizgen.recipes.deck`: deck recipes (`DeckRecipe`), their slots and seeds;
* `quizgen.recipes.exam`: exam recipes (`ExamRecipe`, `ExamQuestion`) and their grade bands;
* `quizgen.recipes.roster`: the class roster an exam is built for;
* `quizgen.recipes.lms`: the ``[lms]`` table (Moodle's grades for modelled wrong answers);
* `quizgen.recipes.bank`: a deck or exam recipe as ``quizgen export`` reads it;
* `quizgen.recipes.packaged`: the recipes shipped with quizgen;
* `quizgen.recipes.read`: the one reader of recipe files, so that every command refuses a bad
  file the same way.
"""

from quizgen.recipes.bank import BankRecipe, load_bank_recipe
from quizgen.recipes.deck import (DEFAULT_RECIPE, DEFAULT_VARIANTS, KINDS, MAX_PER_CELL, MAX_SEED,
                                  MAX_VARIANTS, PROBLEM_KINDS, SEED_WINDOW, DeckRecipe, Slot,
                                  apply_overrides, known_cells, load_deck_recipe, plan_slots,
                                  problem_seed, recipe_from_dict)
from quizgen.recipes.exam import (ExamQuestion, ExamRecipe, grade_bands, load_exam_recipe,
                                  parse_exam_recipe)
from quizgen.recipes.lms import (MOODLE_GRADES, LmsOptions, check_misconception_keys, grade_text,
                                 is_moodle_grade, lms_options, misconception_keys, moodle_grade)
from quizgen.recipes.packaged import (PackagedRecipe, packaged_names_hint, packaged_path,
                                      packaged_recipe, packaged_recipes)
from quizgen.recipes.read import find_recipe, read_recipe
from quizgen.recipes.roster import RosterWarning, Student, parse_roster, read_roster

__all__ = [
    "BankRecipe", "load_bank_recipe", "DEFAULT_RECIPE", "DEFAULT_VARIANTS", "KINDS",
    "MAX_PER_CELL", "MAX_SEED", "MAX_VARIANTS", "PROBLEM_KINDS", "SEED_WINDOW", "DeckRecipe",
    "Slot", "apply_overrides", "known_cells", "load_deck_recipe", "plan_slots", "problem_seed",
    "recipe_from_dict", "ExamQuestion", "ExamRecipe", "grade_bands", "load_exam_recipe",
    "parse_exam_recipe", "MOODLE_GRADES", "LmsOptions", "check_misconception_keys", "grade_text",
    "is_moodle_grade", "lms_options", "misconception_keys", "moodle_grade", "PackagedRecipe",
    "packaged_names_hint", "packaged_path", "packaged_recipe", "packaged_recipes", "find_recipe",
    "read_recipe", "RosterWarning", "Student", "parse_roster", "read_roster",
]
