"""Which problems a bank asks: the plans of a deck recipe (cells × variants) or an exam
recipe (questions × variants), each drawn and turned into a question as a writer takes it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

from quizgen.errors import QuizgenError, require_int
from quizgen.export.lms.bank import Bank, BankQuestion, BankStream
from quizgen.export.lms.boxes import idnumber_for, question_for
from quizgen.recipes import BankRecipe
from quizgen.problems.model import Problem

__all__ = ["build_bank", "stream_bank", "Progress"]

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
    from quizgen.render.cards import FigureMedia

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

    `only_new`: idnumbers of a bank already imported (`quizgen.export.lms.moodle.bank_idnumbers`);
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
