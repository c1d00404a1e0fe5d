"""Boxes from a record: each answer of a problem turned into the box an LMS asks it with
(numerical, choice or multi), its right answer read from the record and each modelled wrong
answer with its own grade and feedback; and the bank question that holds them."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from quizgen.errors import QuizgenError
from quizgen.export.lms.bank import Answer, BankQuestion, Box
from quizgen.export.lms.grades import number_text
from quizgen.recipes.lms import moodle_grade
from quizgen.export.lms.words import misconception_feedback, lms_words
from quizgen.problems.model import Problem

if TYPE_CHECKING:
    from quizgen.recipes import LmsOptions

#: Limits a launch can hit (CELLS.md's ``limiter`` values), in the order options are listed.
LIMITS = ("registers", "shared_memory", "warps", "blocks", "barriers")
#: Answer values with a known small set of alternatives (a choice box offers them all).
_DOMAINS = {"bound": ("memory", "compute")}


def _hint(problem: Problem, key: str, kind: str) -> str:
    from quizgen.problems.records import answer_spec as spec_of
    from quizgen.render.cards import labels
    from quizgen.render.solution import unit_text

    words = labels(problem.lang)
    lms = lms_words(problem.lang)
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
    lms = lms_words(problem.lang)
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
                       misconception_feedback(problem.lang, name, problem.id),
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

    lms = lms_words(problem.lang)
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
        feedback = (misconception_feedback(problem.lang, name, problem.id) if name
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
    lms = lms_words(problem.lang)
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
