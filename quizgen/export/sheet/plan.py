"""Which problems each student gets: versions, seeds and draws (pure: no file is read or written).

Each student's problems are drawn from seeds derived from the recipe's seed and the student's roll
number (or name), so adding a student to the roster changes nobody else's version. A question's
draws take turns through its outcomes (a limiter, yes/no, an idle-SM count) across the class, at
the question's usual difficulty (see `_Outcomes`).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Protocol

from quizgen.errors import QuizgenError, require_int
from quizgen.export.sheet.balance import CANDIDATES, SAMPLE, Weighing, choose
from quizgen.manifest import MAX_STUDENTS, answer_columns
from quizgen.problems.model import Problem
from quizgen.recipes.exam import ExamQuestion, ExamRecipe
from quizgen.recipes.roster import Student

# Version codes: Crockford's base-32 letters (no I, L, O, U: nothing to misread on paper).
_CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


class Generate(Protocol):
    """The problem generator: ``quizgen.generator.generate_one`` has this shape."""

    def __call__(self, cell: str, *, level: int, seed: int, lang: str,
                 gpu: str | None) -> Problem: ...


def _digest(*parts: Any) -> bytes:
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).digest()


def version_code(seed: int, key: str, length: int = 6) -> str:
    """A short code for one version of an exam (printed, in the QR code, and in the manifest)."""
    value = int.from_bytes(_digest("version", seed, key), "big")
    chars = []
    for _ in range(length):
        value, digit = divmod(value, 32)
        chars.append(_CODE_ALPHABET[digit])
    return "".join(chars)


def _student_keys(students: list[Student]) -> list[str]:
    """A stable key per student: roll number if given, else name; repeats get a counter."""
    seen: dict[str, int] = {}
    keys = []
    for student in students:
        base = f"roll:{student.roll}" if student.roll else f"name:{student.name}"
        seen[base] = seen.get(base, 0) + 1
        keys.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
    return keys


def _question_seed(seed: int, key: str, number: int, attempt: int = 0) -> int:
    parts = ("question", seed, key, number) + ((attempt,) if attempt else ())
    return int.from_bytes(_digest(*parts)[:4], "big") & 0x7FFFFFFF


#: Draws that decide what a question's boxes usually hold, and tries per student to match a turn.
SURVEY_DRAWS = 24
DRAW_ATTEMPTS = 40
#: Kinds whose values are outcomes to take turns over (a limiter, yes/no, a named option).
_OUTCOME_KINDS = frozenset({"limits", "yes_no", "choice"})


@dataclass(slots=True)
class _Outcomes:
    """What one question's versions should vary, from a survey of draws made for no student.

    * a box of an outcome kind (limiter, yes/no, option) with several values seen: students take
      turns through those values;
    * any other box whose most common value is over a third of the survey (an idle-SM count that
      is usually 0): every other student gets that value, the rest another one;
    * difficulty: the worked solution has about the usual number of steps (within 30%: one
      wave or several is 15 steps or 19), which outweighs every wish about outcomes.
    """

    steps: int
    targets: dict[str, tuple[str, ...]]    # box → values in turn ("" first: the common value's
                                           # complement, see `score`)
    common: dict[str, str]                 # box → its too-common value
    polarity: dict[str, int]               # box → 0: the common value on even turns, 1: on odd

    @classmethod
    def survey(cls, exam: "Versions", number: int, spec: ExamQuestion) -> "_Outcomes":
        recipe = exam.recipe
        steps: Counter[int] = Counter()
        values: dict[str, Counter[str]] = {}
        kinds: dict[str, str] = {}
        draws: list[dict[str, str]] = []
        drawn: list[tuple[Problem, list[str]]] = []
        for k in range(SURVEY_DRAWS):
            cell = spec.cells[k % len(spec.cells)]
            gpu = spec.gpus[k % len(spec.gpus)] or recipe.gpu
            problem = exam.generate(cell, level=spec.level, seed=_question_seed(recipe.seed, "survey",
                                                                                   number, k),
                                    lang=recipe.lang, gpu=gpu)
            steps[len(problem.solution.steps)] += 1
            draw = {}
            drawn.append((problem, _asked(spec, problem, number)))
            for box in _asked(spec, problem, number):
                draw[box] = _canonical(problem.answers[box])
                values.setdefault(box, Counter())[draw[box]] += 1
                kinds[box] = answer_kind(problem, box)
            draws.append(draw)
        usual = max(steps, key=lambda n: (steps[n], -n))
        exam.weighing.survey(number, spec, usual, drawn)
        targets, common = {}, {}
        for box, seen in values.items():
            if len(seen) < 2:
                continue          # the cell fixes it (or the survey saw one value): no turns
            if kinds[box] in _OUTCOME_KINDS:
                targets[box] = tuple(sorted(seen))
            else:
                value, times = seen.most_common(1)[0]
                if times * 3 > SURVEY_DRAWS:
                    common[box] = value
        # Outcomes drive the numbers (no deficit when the latency is hidden): a number that
        # merely follows an outcome taking turns needs no wish of its own.
        for box in list(common):
            follows = [d.get(box) == common[box] for d in draws]
            if any(len({d.get(t) for d, f in zip(draws, follows) if f}) == 1
                   and len({d.get(t) for d, f in zip(draws, follows) if not f}) >= 1
                   and not ({d.get(t) for d, f in zip(draws, follows) if f}
                            & {d.get(t) for d, f in zip(draws, follows) if not f})
                   for t in targets):
                del common[box]
        return cls(usual, targets, common, _polarities(common, draws))

    def period(self, spec: ExamQuestion) -> int:
        """After how many turns a question's wishes (and its first cell and GPU) come round
        again."""
        lengths = [len(spec.cells), len(spec.gpus), *(len(v) for v in self.targets.values()),
                   2 if self.common else 1]
        return math.lcm(*lengths)

    @property
    def perfect(self) -> int:
        return self.steps_weight + len(self.targets) + 2 * len(self.common)

    @property
    def steps_weight(self) -> int:
        return 1 + len(self.targets) + 2 * len(self.common)

    def usual_length(self, problem: Problem) -> bool:
        """The worked solution has about the usual number of steps (within 30%)."""
        return abs(len(problem.solution.steps) - self.steps) * 10 <= self.steps * 3

    def score(self, problem: Problem, asked: list[str], turn: int) -> int:
        """How many of this turn's wishes a draw meets (`perfect`: all of them)."""
        # the same difficulty first: it outweighs every wish about outcomes together
        score = 0
        if self.usual_length(problem):
            score += self.steps_weight
        for box, options in self.targets.items():
            if box in asked and _canonical(problem.answers.get(box)) == options[turn % len(options)]:
                score += 1
        for box, value in self.common.items():
            wanted = (turn + self.polarity[box]) % 2 == 0
            if box in asked and (_canonical(problem.answers.get(box)) == value) == wanted:
                score += 2    # a value that more than half the class would share: first
        return score


def _polarities(common: dict[str, str], draws: list[dict[str, str]]) -> dict[str, int]:
    """Turns for boxes whose common values go together or exclude each other (one wave ⇔ some
    SMs idle): a box takes the same turns as the box it agrees with most in the survey, the
    opposite turns if they mostly disagree, so that every wish can be met at once."""
    polarity: dict[str, int] = {}
    for box, value in common.items():
        mine = [d.get(box) == value for d in draws]
        best, strength = 0, 0
        for other, turn in polarity.items():
            theirs = [d.get(other) == common[other] for d in draws]
            agree = sum(a == b for a, b in zip(mine, theirs)) * 2 - len(draws)
            if abs(agree) > strength:
                best, strength = turn if agree > 0 else 1 - turn, abs(agree)
        polarity[box] = best
    return polarity


def _canonical(value: Any) -> str:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        value = sorted(value)
    return json.dumps(value, sort_keys=True)


def answer_kind(problem: Problem, key: str) -> str:
    """The kind of an answer (its spec's, else read from its value): how its box is drawn."""
    spec = (problem.answer_specs or {}).get(key) if hasattr(problem, "answer_specs") else None
    if isinstance(spec, dict) and spec.get("kind"):
        return str(spec["kind"])
    value = problem.answers.get(key)
    if isinstance(value, bool):
        return "yes_no"
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "limits"
    if isinstance(value, str):
        return "choice"
    return "real"


def _codes(seed: int, keys: list[str]) -> list[str]:
    for length in (6, 8, 10, 13):
        codes = [version_code(seed, key, length) for key in keys]
        if len(set(codes)) == len(codes):
            return codes
    raise AssertionError("version codes collide")   # 2^65 codes for 10,000 students: cannot happen


def _asked(spec: ExamQuestion, problem: Problem, number: int) -> list[str]:
    if spec.answers is None:
        keys = list(problem.answers)
        if not keys:
            raise QuizgenError(f"a {problem.cell} problem has no answers to ask; choose another cell",
                               field=f"questions[{number}].cell")
        return keys
    missing = [key for key in spec.answers if key not in problem.answers]
    if missing:
        raise QuizgenError(f"{missing[0]!r} is not an answer of {problem.cell} (answers: "
                           f"{', '.join(problem.answers)})", field=f"questions[{number}].answers")
    return list(spec.answers)


def sheet_columns(recipe: ExamRecipe, entries) -> list[str]:
    """The answer sheet's columns, in question-number order (whatever order a paper prints)."""
    return answer_columns((number, asked) for _, _, questions in entries
                          for number, _, _, asked in questions)


def check_columns(columns: list[str], entries) -> None:
    """Every version asks the same boxes (the answer sheet has one set of columns)."""
    known = set(columns)
    for _, _, questions in entries:
        for number, _, problem, asked in questions:
            for key in asked:
                if f"Q{number}.{key}" not in known:
                    raise QuizgenError(f"{problem.cell} versions ask different answers ({key!r} "
                                       "is not in every version); list the answers to ask",
                                       field=f"questions[{number}].answers")


class Versions:
    """Who sits the exam, their version codes, and each one's problems as they are drawn."""

    def __init__(self, recipe: ExamRecipe, roster: list[Student] | None, versions: int | None,
                 *, generate: Generate, weighing: Weighing | None = None) -> None:
        if roster is not None and versions is not None:
            raise QuizgenError("give a roster or a number of versions, not both", field="versions")
        if roster is not None:
            if not roster:
                raise QuizgenError("the roster has no students", field="roster")
            self.students = list(roster)
            self.keys = _student_keys(self.students)
        else:
            count = require_int("versions", 1 if versions is None else versions, minimum=1,
                                maximum=MAX_STUDENTS)
            self.students = [Student(name="", roll="") for _ in range(count)]
            self.keys = [f"version:{i + 1}" for i in range(count)]
        self.codes = _codes(recipe.seed, self.keys)
        self.anonymous = roster is None
        self._outcomes: dict[int, _Outcomes] = {}
        self.recipe, self.generate = recipe, generate
        self.weighing = weighing if weighing is not None else Weighing()

    def __len__(self) -> int:
        return len(self.students)

    def entries(self, indices: Iterable[int]) -> list[tuple[Student, str, list]]:
        """The versions of these students: (student, code, [(number, spec, problem, asked)]),
        the questions in the order they are printed (shuffled when the recipe says so)."""
        recipe = self.recipe
        out = []
        for i in indices:
            key = self.keys[i]
            # Anonymous versions rotate through the outcomes in turn (an even split); a roster's
            # students take a turn from their key, so that adding one changes nobody else's.
            turn = i if self.anonymous else int.from_bytes(_digest("turn", recipe.seed, key)[:4], "big")
            if self.weighing.balancing:
                questions = self._balanced(key, turn)
            else:
                questions = [self._draw(number, spec, key, turn)
                             for number, spec in enumerate(recipe.questions, start=1)]
            if recipe.shuffle and len(questions) > 1:
                order = sorted(range(len(questions)),
                               key=lambda q: _digest("order", recipe.seed, key, q))
                questions = [questions[q] for q in order]
            out.append((self.students[i], self.codes[i], questions))
        return out

    def predicted(self, questions) -> dict[str, Any]:
        """A paper's predicted difficulty (see `Weighing.predicted`), for the manifest."""
        return self.weighing.predicted(questions)

    def _survey(self, number: int, spec: ExamQuestion) -> _Outcomes:
        outcomes = self._outcomes.get(number)
        if outcomes is None:
            outcomes = self._outcomes[number] = _Outcomes.survey(self, number, spec)
        return outcomes

    def _balanced(self, key: str, turn: int) -> list:
        """One student's questions drawn to an even predicted difficulty: each question's turn
        re-paired as `pair` settled once for the exam, then of the student's versions that keep
        every turn, the ones that bring the paper nearest the target (`choose`)."""
        weighing = self.weighing
        if weighing.turns is None:
            self._settle()
        options, found = [], []
        for number, spec in enumerate(self.recipe.questions, start=1):
            outcomes = self._survey(number, spec)
            candidates = self._candidates(number, spec, key, weighing.turn(number, turn + number),
                                          outcomes)
            target = weighing.targets[number]
            options.append([(missed, weighing.expected(number, entry[2], entry[3]) - target)
                            for missed, entry in candidates])
            found.append(candidates)
        picks = choose(options, weighing.tolerance, weighing.offset or 0.0)
        if not weighing.within(options, picks):
            weighing.beyond.add(key)
        return [found[q][j][1] for q, j in enumerate(picks)]

    def _settle(self) -> None:
        """Each question's expected points for every turn of its cycle, from versions drawn for
        no student (`SAMPLE` per turn), and from them the pairing of the cycles that makes
        papers most even (`pair`), and the target they meet at."""
        cycles: dict[int, list[float]] = {}
        for number, spec in enumerate(self.recipe.questions, start=1):
            outcomes = self._survey(number, spec)
            cycles[number] = [
                sum(self.weighing.expected(number, drawn[2], drawn[3])
                    for drawn in (self._draw(number, spec, f"balance:{k}", r - number)
                                  for k in range(SAMPLE))) / SAMPLE
                for r in range(outcomes.period(spec))]
        self.weighing.settle(cycles)

    def _candidates(self, number: int, spec: ExamQuestion, key: str, turn: int,
                    outcomes: _Outcomes) -> list[tuple[int, tuple]]:
        """(turns not kept, entry) of the student's first versions that keep the turn as well
        as the best draw does (every wish, when one can), until `CANDIDATES` are found."""
        found: list[tuple[int, tuple]] = []
        for attempt in range(DRAW_ATTEMPTS):
            problem, asked = self._attempt(number, spec, key, turn, attempt)
            found.append((outcomes.perfect - outcomes.score(problem, asked, turn),
                          (number, spec, problem, asked)))
            if sum(1 for missed, _ in found if missed == 0) >= CANDIDATES:
                break
        fewest = min(missed for missed, _ in found)
        return [(missed, entry) for missed, entry in found if missed == fewest][:CANDIDATES]

    def _attempt(self, number: int, spec: ExamQuestion, key: str, turn: int, attempt: int):
        """(problem, what it asks) of one draw attempt: the cell and GPU in the question's turn,
        the seed of the attempt."""
        recipe = self.recipe
        cell = spec.cells[(turn + attempt) % len(spec.cells)]
        gpu = spec.gpus[(turn + attempt) % len(spec.gpus)] or recipe.gpu
        seed = _question_seed(recipe.seed, key, number, attempt)
        problem = self.generate(cell, level=spec.level, seed=seed, lang=recipe.lang, gpu=gpu)
        return problem, _asked(spec, problem, number)

    def _draw(self, number: int, spec: ExamQuestion, key: str, turn: int):
        """One student's problem for one question: drawn so that across the class the boxes'
        outcomes take turns (see `_Outcomes`) at the question's usual difficulty."""
        outcomes = self._survey(number, spec)
        turn += number
        best, best_score = None, -1
        for attempt in range(DRAW_ATTEMPTS):
            problem, asked = self._attempt(number, spec, key, turn, attempt)
            score = outcomes.score(problem, asked, turn)
            if score > best_score:
                best, best_score = (number, spec, problem, asked), score
            if score == outcomes.perfect:
                break
        return best
