"""The problem generator: a family solves, its writer puts the solution into words.

    from quizgen.generator import generate_one, generate
    problem = generate_one("OCC-2", level=2, seed=7, lang="hinglish")

The same arguments always give the same problem; seeds 0…N−1 give N distinct problems as long as
the cell's level has N candidates.
"""

from __future__ import annotations

from typing import Any, Iterable

from quizgen.errors import QuizgenError
from quizgen.problems import LEVELS, check_level, draw, families, family, resolve_named_gpu, spec_dicts
from quizgen.problems.base import problem_id
from quizgen.problems.identity import identity_gpu
from quizgen.problems.model import Problem
from quizgen.render.choices import build_choices
from quizgen.render.phrases import book
from quizgen.languages import DEFAULT_LANG, LANGS
from quizgen.render.writers import writer_for

__all__ = ["CELLS", "LEVELS", "families", "family", "generate", "generate_one",
           "resolve_named_gpu"]


def __getattr__(name: str) -> Any:
    if name == "CELLS":
        return tuple(families())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def generate_one(cell: str, *, level: int = 1, seed: int = 0, lang: str = DEFAULT_LANG,
                 gpu: str | None = None, mcq: bool = True) -> Problem:
    """One problem of `cell`: the same arguments always give the same problem.

    Seeds 0…N−1 give N distinct problems as long as the cell's level has N candidates.
    ``mcq=False`` leaves out the multiple-choice options (and the misconceptions they are drawn
    from), for a card that never asks the problem as a choice (a skill's variant); everything
    else is the same problem, the one-answer stem too (what a card that takes one typed answer
    asks).
    """
    fam = family(cell)
    if level.__class__ is not int or level not in LEVELS:
        check_level(level)
    if seed.__class__ is not int or seed < 0:
        raise QuizgenError(f"got {seed!r}; expected a whole number ≥ 0", field="seed")
    if lang not in LANGS:
        book(lang)  # raises the one-line error
    the_gpu, params = draw(fam.cell, level=level, seed=seed, gpu=gpu)
    solved = fam.solve(params, the_gpu, explain=True)
    answers = solved.answers
    pid = problem_id(fam.cell, params, identity_gpu(fam.cell, level, the_gpu), seed, level)
    writer = writer_for(fam)
    title, question, solution = writer.write(params, the_gpu, solved, lang, pid)
    if not mcq:
        choices = []
    elif fam.main_answer:
        miscs = fam.applicable_misconceptions(params, the_gpu, solved)
        choices = build_choices(fam, solved, miscs, lang, pid)
    else:
        choices = writer.choices(params, the_gpu, solved, lang, pid) or []
    specs = spec_dicts(fam)
    return Problem(
        id=pid, cell=fam.cell, level=level, lang=lang, seed=seed, gpu=the_gpu.to_dict(),
        params=params, answers=answers, question=question, solution=solution, title=title,
        model=fam.model_for(the_gpu) if fam.uses_model else None,
        units={k: v for k, v in fam.units.items() if k in answers},
        tolerances={k: v for k, v in fam.tolerances.items() if k in answers} if fam.tolerances else {},
        choices=choices,
        main_answer=solved.data.get("main_answer") or fam.main_answer or None,
        topics=[solved.data.get("topic", fam.topic)],
        figure=fam.figure(params, the_gpu, solved),
        answer_specs={k: specs[k] for k in answers if k in specs} if specs else {},
        mcq_stem=_one_answer_stem(writer, fam, params, the_gpu, solved, lang, pid, choices),
    )


def _one_answer_stem(writer, fam, params, gpu, solved, lang: str, pid: str, choices) -> str:
    """The question with one ask, the main answer: a choice card's question, and the question of
    a card that takes one typed answer. A problem without options has one where its family's
    stem can be written for its numbers (a stem may name what only a drawn option needs, and
    then this problem has none: a card asks the whole question)."""
    from quizgen.render.jinja import TemplateError

    if choices:
        return writer.mcq_stem(params, gpu, solved, lang, pid)
    if not fam.main_answer:
        return ""
    try:
        return writer.mcq_stem(params, gpu, solved, lang, pid)
    except TemplateError:
        return ""


def generate_worked(cell: str, *, level: int = 1, seed: int = 0, lang: str = DEFAULT_LANG,
                    gpu: str | None = None) -> Problem:
    """`generate_one` without the multiple-choice options: the problem as a worked solution."""
    return generate_one(cell, level=level, seed=seed, lang=lang, gpu=gpu, mcq=False)


def generate(cells: Iterable[str] | None = None, count: int = 1, seed: int = 0,
             level: int | Iterable[int] = 1, lang: str = DEFAULT_LANG,
             gpu: str | None = None) -> list[Problem]:
    """`count` problems per cell and level, seeds seed, seed+1, …; cells default to all."""
    chosen = list(cells) if cells else list(families())
    levels = [level] if isinstance(level, int) else list(level)
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise QuizgenError(f"got {count!r}; expected a whole number ≥ 0", field="count")
    out = []
    for cell in chosen:
        for lvl in levels:
            for i in range(count):
                out.append(generate_one(cell, level=lvl, seed=seed + i, lang=lang, gpu=gpu))
    return out
