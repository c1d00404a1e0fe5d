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
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from quizgen.errors import QuizgenError, require_int
from quizgen.problems.model import Problem
from quizgen.recipes import (MOODLE_GRADES, BankRecipe, LmsOptions, grade_text, is_moodle_grade,
                             lms_options, load_bank_recipe, moodle_grade)

__all__ = [
    "MOODLE_GRADES", "FORMATS", "Answer", "Box", "BankQuestion", "Bank", "LmsOptions",
    "load_bank_recipe", "build_bank", "stream_bank", "BankStream", "figure_bytes", "is_moodle_grade", "category_path",
]

FORMATS = ("moodle", "gift", "qti")

#: Limits a launch can hit (CELLS.md's ``limiter`` values), in the order options are listed.
LIMITS = ("registers", "shared_memory", "warps", "blocks", "barriers")
#: Answer values with a known small set of alternatives (a choice box offers them all).
_DOMAINS = {"bound": ("memory", "compute")}


def number_text(value: float | int) -> str:
    """A number exactly as the record holds it (repr round-trips every float)."""
    if isinstance(value, bool):
        raise TypeError("a yes/no answer is not a number")
    if isinstance(value, int):
        return str(value)
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(float(value))


# ---------------------------------------------------------------------------------------------
# What a bank holds


@dataclass(frozen=True, slots=True)
class Answer:
    """One answer of a box: a number (numerical) or an option (choice, multi)."""

    text: str                   # the number as written, or the option's label
    value: Any                  # the record's value behind it
    grade: float                # percent, one of MOODLE_GRADES
    feedback: str               # plain text shown when a student gives this answer
    tolerance: float = 0.0      # numerical: absolute tolerance
    misconception: str | None = None
    percent: bool = False       # numerical: the same answer written as a percentage (×100)


@dataclass(frozen=True, slots=True)
class Box:
    """One answer box of a question."""

    key: str                    # answer key of the record ("occupancy")
    label: str                  # its name in the problem's language
    hint: str                   # how to write it ("a whole number; unit: blocks")
    kind: str                   # "numerical" | "choice" | "multi"
    answers: tuple[Answer, ...]
    weight: int = 1
    percent: bool = False       # numerical: its prompt offers a percentage ("or 37.5%")

    @property
    def right(self) -> Answer:
        """The right answer (numerical: the first; choice: the one at 100%)."""
        return max(self.answers, key=lambda a: a.grade)


@dataclass(frozen=True, slots=True)
class BankQuestion:
    problem: Problem
    category: tuple[str, ...]   # path under the course's question bank, one name per level
    name: str
    idnumber: str
    boxes: tuple[Box, ...]
    points: float = 1.0
    figure: str | None = None   # media file name of the figure (shown with the solution)
    figure_data: bytes | None = None   # its SVG bytes

    @property
    def kind(self) -> str:
        """numerical | multichoice | cloze (several boxes)."""
        if len(self.boxes) > 1:
            return "cloze"
        return "numerical" if self.boxes[0].kind == "numerical" else "multichoice"


@dataclass(slots=True)
class Bank:
    title: str
    questions: list[BankQuestion]
    figures: dict[str, bytes] = field(default_factory=dict)   # media name → SVG bytes
    skipped: int = 0            # problems with no answer a box can ask

    def categories(self) -> list[tuple[str, ...]]:
        return list(dict.fromkeys(q.category for q in self.questions))


def figure_bytes(question: BankQuestion, source: Any = None) -> bytes | None:
    """The SVG of `question`'s figure: carried by the question, or in the figure table of the
    bank it comes from (`source`: a Bank, or a stream, which has none)."""
    if question.figure is None:
        return None
    if question.figure_data is not None:
        return question.figure_data
    table = getattr(source, "figures", None)
    return table.get(question.figure) if isinstance(table, dict) else None


class BankStream:
    """A bank made one question at a time, as a writer takes them (see `stream_bank`): memory
    stays flat in the number of variants and cells. Iterate it once; afterwards `questions`,
    `categories`, `figures` and `skipped` count what was made. Iterating to the end raises
    QuizgenError when no problem gave a question (so that an atomic writer writes nothing)."""

    def __init__(self, title: str, made: Iterable[BankQuestion], *, empty_error: str | None,
                 empty_field: str = "recipe"):
        self.title = title
        self._made = made
        self._empty_error = empty_error
        self._empty_field = empty_field
        self.questions = 0
        self.categories = 0
        self.figures: set[str] = set()
        self.skipped = 0
        self.already = 0            # left out: already in the previous bank (only_new)
        self._last: tuple[str, ...] | None = None

    def __iter__(self):
        for question in self._made:
            self.questions += 1
            if question.category != self._last:
                self._last = question.category
                self.categories += 1
            if question.figure:
                self.figures.add(question.figure)
            yield question
        if self.questions == 0 and self._empty_error:
            raise QuizgenError(self._empty_error, field=self._empty_field)


# ---------------------------------------------------------------------------------------------
# Words


def _words(lang: str) -> dict[str, str]:
    from quizgen.render.phrases import book

    return dict(book(lang)["lms"])


def _misconception_feedback(lang: str, key: str, salt: str) -> str:
    from quizgen.render.phrases import has, phrase

    if has(lang, "misconception", key):
        return phrase(lang, "misconception", key, salt=salt)
    return phrase(lang, "lms", "unnamed_trap", {"name": key.replace("_", " ")}, salt=salt)


def _hint(problem: Problem, key: str, kind: str) -> str:
    from quizgen.export.cards import answer_spec as spec_of, labels
    from quizgen.render.solution import unit_text

    words = labels(problem.lang)
    lms = _words(problem.lang)
    if kind == "multi":
        return lms["tick_all"]
    if kind == "choice":
        return lms["pick_one"]
    value = problem.answers[key]
    unit = answer_unit(problem, key)
    if offers_percent(problem, key):
        hint = words["as_fraction"]
    elif isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        hint = words["type_int"]
    else:
        hint = words["type_float"]
    printed = spec_of(problem, key).printed_unit
    if not printed:
        return hint
    return f"{hint}; {words['in_unit']}: {unit_text(printed, 2, problem.lang)}"


# ---------------------------------------------------------------------------------------------
# Boxes from a record


def _is_number(value: Any) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


def answer_spec(problem: Problem, key: str) -> dict[str, Any]:
    """The record's answer spec for `key` (kind, unit, format, tolerance), {} when it has none."""
    specs = getattr(problem, "answer_specs", None) or {}
    spec = specs.get(key) if isinstance(specs, dict) else None
    return spec if isinstance(spec, dict) else {}


def offers_percent(problem: Problem, key: str) -> bool:
    """Whether the prompt of `key` invites a percentage ("0.375; or a percentage, like 37.5%")."""
    return (answer_unit(problem, key) == "fraction"
            or answer_spec(problem, key).get("kind") == "fraction")


def percent_of(value: float | int) -> float | int:
    """`value` × 100 as a person writes it (0.1 → 10, not 10.000000000000002)."""
    if isinstance(value, int):
        return value * 100
    shifted = float(Decimal(repr(float(value))).scaleb(2))
    return int(shifted) if shifted.is_integer() and abs(shifted) < 1e15 else shifted


def answer_unit(problem: Problem, key: str) -> str:
    return str(answer_spec(problem, key).get("unit", problem.units.get(key, "")) or "")


def answer_tolerance(problem: Problem, key: str) -> float:
    """The record's tolerance for `key` (its answer spec's when it has one)."""
    spec = answer_spec(problem, key)
    if _is_number(spec.get("tolerance")):
        return float(spec["tolerance"])
    tol = problem.tolerances.get(key, 0.0)
    return float(tol) if _is_number(tol) else 0.0


def misconception_answers(problem: Problem) -> list[tuple[str, dict[str, Any]]]:
    """The family's misconception models on this problem: [(key, the answers it gives)].

    The grader runs the same models to name a wrong answer; a problem from an unknown family
    has none."""
    from quizgen.gpus import gpu_from_dict
    from quizgen.problems import family

    try:
        fam = family(problem.cell)
        gpu = gpu_from_dict(problem.gpu)
        solved = fam.solve(dict(problem.params), gpu, explain=False)
        return [(m.key, dict(m.answers)) for m in fam.misconceptions(problem.params, gpu, solved)]
    except (QuizgenError, KeyError, TypeError, ValueError):
        return []


def _trap_tolerance(value: float, right_tolerance: float) -> float:
    """A wrong method's answer is matched as closely as the right one; a non-whole one (a
    forgotten floor: 3.908 blocks) to the rounding a student would write (3 decimals)."""
    if right_tolerance > 0:
        return right_tolerance
    return 0.0 if float(value).is_integer() else 0.0005


def numerical_box(problem: Problem, key: str, traps: list[tuple[str, dict[str, Any]]],
                  options: LmsOptions) -> Box:
    """The record's value at 100% with its tolerance, then every misconception whose answer
    for `key` lies outside every window already taken (else it could not be told apart).

    Where the prompt offers a percentage, every answer also has its percent form (the value
    and its tolerance × 100) at the same grade and with the same feedback: an LMS that reads
    "37.5%" as 37.5 then finds the answer meant. The percent forms come after every plain
    answer, and Moodle takes the first answer whose window holds the number, so a plain answer
    inside a (wider) percent window keeps its own grade; a percent form whose number an earlier
    window already holds is left out ("1%" for 0.01 where 1 is a misconception's answer: the
    two cannot be told apart once the "%" is read as nothing)."""
    from quizgen.render.answers import answer_name

    value = problem.answers[key]
    tolerance = answer_tolerance(problem, key)
    lms = _words(problem.lang)
    percent = offers_percent(problem, key)
    answers: list[Answer] = []
    windows: list[tuple[float, float]] = []

    def add(answer: Answer) -> None:
        low, high = answer.value - answer.tolerance, answer.value + answer.tolerance
        if not any(low <= b and a <= high for a, b in windows):
            windows.append((low, high))
            answers.append(answer)

    add(Answer(number_text(value), value, 100.0, lms["right"], tolerance))
    for name, given in traps:
        wrong = given.get(key)
        if _is_number(wrong):
            add(Answer(number_text(wrong), wrong, options.grade_for(name),
                       _misconception_feedback(problem.lang, name, problem.id),
                       _trap_tolerance(wrong, tolerance), name))
    if percent:
        for plain in list(answers):
            scaled = percent_of(plain.value)
            if not any(a.value - a.tolerance <= scaled <= a.value + a.tolerance for a in answers):
                answers.append(Answer(number_text(scaled), scaled, plain.grade, plain.feedback,
                                      percent_of(plain.tolerance), plain.misconception,
                                      percent=True))
    return Box(key, answer_name(key, problem.lang), _hint(problem, key, "numerical"),
               "numerical", tuple(answers), percent=percent)


def _option_text(value: Any, problem: Problem, key: str) -> str:
    from quizgen.render.answers import answer_text

    return answer_text(value, answer_unit(problem, key), problem.lang)


def choice_box(problem: Problem, key: str, traps: list[tuple[str, dict[str, Any]]],
               options: LmsOptions) -> Box | None:
    """A pick-one box: the record's multiple-choice options when `key` is the main answer,
    else the right value, its known alternatives and the traps' values. None: fewer than two."""
    from quizgen.render.answers import answer_name

    lms = _words(problem.lang)
    label = answer_name(key, problem.lang)
    hint = _hint(problem, key, "choice")
    if key == problem.main_answer or (not problem.main_answer and problem.choices):
        if len(problem.choices) >= 2 and sum(c.correct for c in problem.choices) == 1:
            answers = tuple(Answer(c.text, c.value, 100.0 if c.correct else
                                   options.grade_for(c.misconception), c.why or lms["right"],
                                   misconception=c.misconception)
                            for c in problem.choices)
            label = label if problem.main_answer else lms["pick_one"]
            return Box(key, label, hint, "choice", answers)
    value = problem.answers[key]
    right_text = _option_text(value, problem, key)
    answers = [Answer(right_text, value, 100.0, lms["right"])]
    shown = {right_text}
    if isinstance(value, bool):
        alternatives = [(None, not value)]
    elif isinstance(value, str) and key in _DOMAINS:
        alternatives = [(None, v) for v in _DOMAINS[key] if v != value]
    else:
        alternatives = []
    by_value = {}
    for name, given in traps:
        if key in given:
            by_value.setdefault(_option_text(given[key], problem, key), (name, given[key]))
    for text, (name, wrong) in by_value.items():
        alternatives.append((name, wrong))
    for name, wrong in alternatives:
        text = _option_text(wrong, problem, key)
        if text in shown:
            continue
        shown.add(text)
        if name is None:
            name = next((n for n, g in traps if key in g and _option_text(g[key], problem, key)
                         == text), None)
        feedback = (_misconception_feedback(problem.lang, name, problem.id) if name
                    else lms["not_this"])
        answers.append(Answer(text, wrong, options.grade_for(name) if name else 0.0, feedback,
                              misconception=name))
    if len(answers) < 2:
        return None
    return Box(key, label, hint, "choice", tuple(answers))


def multi_box(problem: Problem, key: str) -> Box:
    """Tick every binding limit: each right one earns an equal share, each wrong one takes an
    equal share away (Moodle's multiple-answer grading; both shares from its list)."""
    from quizgen.render.answers import answer_name

    value = [v for v in problem.answers[key] if isinstance(v, str)]
    limits = [lim for lim in LIMITS if lim != "barriers" or "barriers" in value]
    limits += [v for v in value if v not in limits]
    lms = _words(problem.lang)
    right = [lim for lim in limits if lim in value]
    wrong = [lim for lim in limits if lim not in value]
    plus = moodle_grade(100 / len(right))
    minus = -moodle_grade(100 / len(wrong)) if wrong else 0.0
    answers = tuple(Answer(_option_text([lim], problem, key), lim,
                           plus if lim in value else minus,
                           lms["binds"] if lim in value else lms["does_not_bind"])
                    for lim in limits)
    return Box(key, answer_name(key, problem.lang), _hint(problem, key, "multi"), "multi",
               answers)


def box_for(problem: Problem, key: str, traps, options: LmsOptions, *,
            prefer_choice: bool = False) -> Box | None:
    """The box that asks answer `key` of `problem` (None: nothing an LMS can ask for it)."""
    value = problem.answers.get(key)
    kind = answer_spec(problem, key).get("kind")
    if kind in ("limits", None) and isinstance(value, list) and value and all(
            isinstance(v, str) for v in value) and (kind or answer_unit(problem, key)) in (
            "limits", "limiter"):
        return multi_box(problem, key)
    if _is_number(value) and not prefer_choice and kind not in ("choice", "yes_no", "coords"):
        return numerical_box(problem, key, traps, options)
    return choice_box(problem, key, traps, options)


# ---------------------------------------------------------------------------------------------
# The bank


def _escape_category(name: str) -> str:
    return name.replace("/", "//")    # Moodle's category paths escape "/" as "//"


def category_path(parts: Iterable[str]) -> str:
    """``$course$/quizgen/OCC-2`` from the parts (each part's "/" escaped, and without the
    characters XML forbids: the path is a name in every format)."""
    from quizgen.xmltext import xml_text

    return xml_text("$course$/" + "/".join(_escape_category(p) for p in parts))


Progress = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class _Plan:
    category: tuple[str, ...]
    cell: str
    level: int
    seed: int
    lang: str
    gpu: str | None
    asked: tuple[str, ...] | None    # answer keys; None = the recipe's choice (main or all)
    points: float


def _deck_plans(recipe, variants: int | None) -> list[_Plan]:
    from quizgen.recipes import problem_seed

    deck = recipe.deck
    count = variants if variants is not None else deck.per_cell * len(deck.levels)
    plans = []
    for lang in deck.langs:
        root = ("quizgen",) if len(deck.langs) == 1 else ("quizgen", lang)
        for cell in deck.cells:
            for i in range(count):
                level = deck.levels[i % len(deck.levels)]
                index = i // len(deck.levels)
                gpu = deck.gpus[index % len(deck.gpus)] if deck.gpus else None
                plans.append(_Plan(root + (cell,), cell, level,
                                   problem_seed(deck.seed, cell, level, index), lang, gpu, None, 1))
    return plans


def _exam_plans(recipe, variants: int | None, lang: str | None) -> list[_Plan]:
    from quizgen.recipes import problem_seed

    exam = recipe.exam
    count = variants if variants is not None else 20
    plans = []
    for number, spec in enumerate(exam.questions, start=1):
        category = ("quizgen", exam.title, f"Q{number} {'+'.join(spec.cells)}")
        for i in range(count):
            cell = spec.cells[i % len(spec.cells)]      # a question may draw from several cells
            plans.append(_Plan(category, cell, spec.level,
                               problem_seed(exam.seed, f"Q{number}:{cell}", spec.level, i),
                               lang or exam.lang, spec.gpus[i % len(spec.gpus)] or exam.gpu,
                               spec.answers or (), float(spec.total)))
    return plans


def _asked_keys(problem: Problem, plan: _Plan, answers: str, kinds: tuple[str, ...]) -> list[str]:
    if plan.asked:
        missing = [k for k in plan.asked if k not in problem.answers]
        if missing:
            raise QuizgenError(f"{missing[0]!r} is not an answer of {problem.cell} (answers: "
                               f"{', '.join(problem.answers)})", field="answers")
        return list(plan.asked)
    if plan.asked == () or answers == "all":
        return list(problem.answers)
    if answers != "main":
        keys = [k.strip() for k in answers.split(",") if k.strip()]
        return [k for k in keys if k in problem.answers]
    if problem.main_answer and problem.main_answer in problem.answers:
        return [problem.main_answer]
    return ["choice"] if problem.choices else []


def idnumber_for(problem: Problem) -> str:
    """The question's Moodle idnumber: ``quizgen-<problem id>-<language>`` (the same seed makes
    the same problem, so a bank rebuilt with more variants repeats the earlier ones)."""
    return f"quizgen-{problem.id}-{problem.lang}"


def question_for(problem: Problem, plan_category: tuple[str, ...], keys: list[str],
                 options: LmsOptions, *, points: float = 1.0, prefer_choice: bool = False,
                 figure: str | None = None, figure_data: bytes | None = None,
                 suffix: str = "") -> BankQuestion | None:
    """One bank question asking `keys` of `problem` (None when no box can be asked)."""
    traps = misconception_answers(problem)
    boxes = []
    for key in keys:
        if key == "choice":      # a concept card: its options are the question
            box = choice_box(problem, key, traps, options) if problem.choices else None
        else:
            box = box_for(problem, key, traps, options, prefer_choice=prefer_choice)
        if box is not None:
            boxes.append(box)
    if not boxes:
        return None
    short = problem.id.rsplit("-", 1)[-1]
    name = f"{problem.cell} L{problem.level} {short}" + (f" · {problem.title}" if problem.title else "")
    return BankQuestion(problem, plan_category, name, idnumber_for(problem) + suffix,
                        tuple(boxes), points, figure, figure_data)


def _bank_plans(recipe: BankRecipe, variants: int | None, lang: str | None
                ) -> tuple[BankRecipe, list[_Plan]]:
    if variants is not None:
        variants = require_int("variants", variants, minimum=1, maximum=1000)
    if recipe.exam is not None:
        return recipe, _exam_plans(recipe, variants, lang)
    deck = recipe.deck
    if lang is not None:
        from quizgen.recipes import apply_overrides

        deck = apply_overrides(deck, lang=lang)
        recipe = BankRecipe(recipe.name, recipe.title, deck=deck, lms=recipe.lms)
    return recipe, _deck_plans(recipe, variants)


#: Distinct figures remembered at once: problems that share a figure are mostly neighbours
#: (the same cell), and a bounded table keeps a 1000-variant export's memory flat.
_FIGURE_MEMORY = 256


def _questions(recipe: BankRecipe, plans: list[_Plan], answers: str, figures: bool,
               generate: Callable[..., Problem], progress: Progress | None,
               skipped: Callable[[], None], known: Callable[[str], bool] = lambda _: False
               ) -> Iterator[BankQuestion]:
    from quizgen.export.cards import FigureMedia

    kinds = recipe.deck.kinds if recipe.deck is not None else ("numeric", "mcq")
    prefer_choice = "numeric" not in kinds and "mcq" in kinds
    media = FigureMedia() if figures else None
    seen: set[str] = set()
    category = None
    for done, plan in enumerate(plans, 1):
        if plan.category != category:      # a category's plans are contiguous
            category, seen = plan.category, set()
        problem = generate(plan.cell, level=plan.level, seed=plan.seed, lang=plan.lang,
                           gpu=plan.gpu)
        if problem.id in seen:
            continue
        seen.add(problem.id)
        if known(idnumber_for(problem)):
            continue
        keys = _asked_keys(problem, plan, answers, kinds)
        figure = data = None
        if media is not None:
            if len(media.files) > _FIGURE_MEMORY:
                media = FigureMedia()
            figure = media.add(problem)
            data = media.files.get(figure) if figure else None
        question = question_for(problem, plan.category, keys, recipe.lms, points=plan.points,
                                prefer_choice=prefer_choice and len(keys) == 1, figure=figure,
                                figure_data=data)
        if question is None:
            skipped()
            continue
        if progress is not None:
            progress(done, len(plans))
        yield question


def stream_bank(recipe: BankRecipe, *, variants: int | None = None, lang: str | None = None,
                answers: str = "main", figures: bool = True,
                generate: Callable[..., Problem] | None = None,
                progress: Progress | None = None,
                only_new: Iterable[str] | None = None) -> BankStream:
    """The bank of `build_bank`, made question by question as a writer consumes it.

    `only_new`: idnumbers of a bank already imported (`quizgen.export.moodle.bank_idnumbers`);
    their problems are left out (counted in `already`), so that importing this bank into the
    same categories adds only new problems, each keeping its idnumber (Moodle's import drops
    an idnumber that its category already holds, and adds the question all the same)."""
    if generate is None:
        from quizgen.generator import generate_one as generate
    recipe, plans = _bank_plans(recipe, variants, lang)
    stream: BankStream

    def skipped() -> None:
        stream.skipped += 1

    previous = frozenset(only_new or ())

    def known(idnumber: str) -> bool:
        if idnumber in previous:
            stream.already += 1
            return True
        return False

    if previous:
        empty = ("every problem of this bank is already in the previous one; ask for more "
                 "with --variants")
    else:
        empty = "no problem of this recipe has an answer an LMS can ask; try --answers all"
    stream = BankStream(recipe.title, _questions(recipe, plans, answers, figures, generate,
                                                 progress, skipped, known), empty_error=empty,
                        empty_field="only-new" if previous else "recipe")
    return stream


def build_bank(recipe: BankRecipe, *, variants: int | None = None, lang: str | None = None,
               answers: str = "main", figures: bool = True,
               generate: Callable[..., Problem] | None = None,
               progress: Progress | None = None) -> Bank:
    """Every question of the bank, category by category, held in a list.

    Deck recipes: one category per cell (and language), `variants` problems each (default: the
    recipe's per_cell × levels), levels taken in turn; `answers` is ``main`` (the card's one
    answer), ``all`` (every answer, as a cloze) or a comma list of answer keys. Exam recipes:
    one category per exam question, `variants` problems each (default 20), asking the
    question's answers. Within a category a repeated problem is left out, never doubled.
    A big bank is better written from `stream_bank`, which holds one question at a time.
    """
    if generate is None:
        from quizgen.generator import generate_one as generate
    recipe, plans = _bank_plans(recipe, variants, lang)
    bank = Bank(recipe.title, [])

    def skipped() -> None:
        bank.skipped += 1

    bank.questions = list(_questions(recipe, plans, answers, figures, generate, progress,
                                     skipped))
    bank.figures = {q.figure: q.figure_data for q in bank.questions
                    if q.figure and q.figure_data is not None}
    return bank


# ---------------------------------------------------------------------------------------------
# HTML every format shows


def question_html(question: BankQuestion) -> str:
    """The problem's question as HTML (no answer boxes)."""
    from quizgen.export.cards import question_html as card_question

    return card_question(question.problem)


def box_prompt_html(question: BankQuestion, index: int) -> str:
    """"(a) occupancy (between 0 and 1, like 0.375):" for box `index`."""
    from quizgen.export.cards import esc

    box = question.boxes[index]
    letter = chr(ord("a") + index) if index < 26 else str(index + 1)
    lead = f"({letter}) " if len(question.boxes) > 1 else ""
    return f"{lead}{esc(box.label)} <small>({esc(box.hint)})</small>"


_LABEL = re.compile(r'<span class="qz-label">([^<]*)</span>')


def lms_labels(card_html: str) -> str:
    """Card HTML with its label spans as ``<strong>``."""
    return _LABEL.sub(r'<strong class="qz-label">\1</strong>', card_html)


def solution_html(question: BankQuestion, figure_src: str | None) -> str:
    """The worked solution (HTML, math as MathJax ``\\( … \\)``), with the figure when given."""
    from quizgen.export.cards import esc, solution_html as card_solution

    # An LMS has no card stylesheet: the section labels ("Forecast", "Why this step?") are made
    # bold in the markup itself, so they do not run into the sentence they introduce.
    out = lms_labels(card_solution(question.problem))
    if figure_src:
        alt = esc(_words(question.problem.lang)["figure"])
        out += (f'<p><img src="{esc(figure_src)}" alt="{alt}" '
                f'style="max-width:100%;height:auto"></p>')
    return out
