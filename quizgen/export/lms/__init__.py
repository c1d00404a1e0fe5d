"""Question banks for learning-management systems: what Moodle XML, GIFT and Canvas QTI share.

A bank is a list of categories, one per scenario cell (or per exam question), each holding N
variants of its problem, so that a quiz can draw "a random question from this category" and
every student gets their own numbers. Each bank question is the problem record turned into
answer boxes:

* a number → a *numerical* box: the record's value with its tolerance at 100%, then each
  misconception's value (a wrong method the family models) with its own partial grade and its
  own feedback; where the prompt offers a percentage, each of them also in its percent form
  (× 100, same grade, same feedback);
* a choice (the record's multiple-choice options, yes/no, memory/compute, coordinates) → a
  *choice* box, the traps' texts as per-option feedback;
* a set of binding limits → a *multi* box (tick every one that binds).

One box makes a numerical or multiple-choice question; several make an embedded-answer (cloze)
question. Nothing here recomputes an answer: right answers are read from the record; the
family's misconception models are run (as the grader runs them) only to list the wrong answers
worth their own feedback.

Grades are percentages from Moodle's fixed list (`MOODLE_GRADES`); Moodle refuses a file that
uses any other. The teacher sets a misconception's partial grade in the recipe::

    [lms]
    default_partial = 0                 # every modelled wrong answer (default 0)
    partial = { no_floor = 50 }         # by misconception key

Its rooms: `plan` (which problems, drawn one at a time: `build_bank`, `stream_bank`), `boxes`
(a record's answers as boxes), `bank` (what a bank holds), `layout` (the HTML and names every
format shows), `grades` (Moodle's list), `recipe` (the recipe as an export reads it), and one
module per format that lays out and writes its file: `moodle`, `gift`, `qti`.
"""

from __future__ import annotations

from quizgen.export.lms.bank import (Answer, Bank, BankQuestion, BankStream, Box,
                                     figure_bytes)
from quizgen.export.lms.boxes import (LIMITS, answer_spec, answer_tolerance, answer_unit,
                                      box_for, choice_box, idnumber_for, misconception_answers,
                                      multi_box, numerical_box, offers_percent, percent_of,
                                      question_for)
from quizgen.export.lms.grades import number_text
from quizgen.export.lms.layout import (box_prompt_html, category_path, category_runs,
                                       lms_labels, question_html, solution_html)
from quizgen.export.lms.plan import Progress, build_bank, stream_bank
from quizgen.recipes import (MOODLE_GRADES, BankRecipe, LmsOptions, grade_text, is_moodle_grade,
                             lms_options, load_bank_recipe, moodle_grade)

__all__ = [
    "MOODLE_GRADES", "FORMATS", "Answer", "Box", "BankQuestion", "Bank", "LmsOptions",
    "load_bank_recipe", "build_bank", "stream_bank", "BankStream", "figure_bytes", "is_moodle_grade", "category_path",
]

FORMATS = ("moodle", "gift", "qti")
