"""Grade answers against saved problems: every box scored, carried errors credited, traps named.

The grader reads only the saved problem record (a manifest's question, or a problem JSON): the
expected answers, their units and tolerances. It recomputes the family's solver and its
misconception models only to *explain* a wrong answer, never to decide what is right.

One answer box goes through four stages:

1. **read** (`parse_answer`, whitelist only, nothing runs; a limiter list, a yes/no or a tuple
   has its own small reader here) — unreadable text is *invalid*, an empty box is *blank*;
2. **compare** with the expected value by the key's kind and the problem's tolerance;
3. **carry**: a wrong later answer of a multi-step question that is right *given the student's
   own earlier answers* (their blocks per SM × warps per block, …) is *carried* and earns its
   points. Each answer's spec names what it is computed from and how (`quizgen.grade.carry`);
4. **diagnose**: a wrong answer equal to what a misconception model gives names that
   misconception; otherwise the first worked-solution step where the student's numbers part from
   the solution is pointed at.

`grade_class` runs this over a class (manifest + filled answer sheet) and writes the reports
through `quizgen.grade.report`.
"""

from __future__ import annotations

import contextlib
import csv
import gc
import io
import math
import os
import re
import shutil
import tempfile
import unicodedata
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from quizgen.errors import QuizgenError, require_int
from quizgen.files import plain_cell
from quizgen.grade.carry import carried_values, computes, downstream, record_specs
from quizgen.grade.compare import DEFAULT_TOLERANCE, compare
from quizgen.grade.parse import Parsed, canonical_unit, parse_answer
from quizgen.problems.specs import NUMERIC_KINDS, AnswerSpec, order

__all__ = [
    "CheckResult", "BoxResult", "QuestionResult", "StudentResult", "FileIssue", "GradeSummary",
    "AnswerSheet", "SheetRow", "check_answer", "grade_question",
    "grade_class", "read_answer_sheet", "question_points", "prepare", "clear_caches",
]

Status = Literal["correct", "carried", "wrong", "invalid", "blank", "missing"]

#: Statuses that earn the box's points.
EARNS = frozenset({"correct", "carried"})
#: Statuses that `invalid="flag"` leaves out of the score (the teacher looks at them).
FLAGGABLE = frozenset({"invalid", "missing"})
#: Longest piece of a student's answer shown back in feedback and reports.
SHOW_CHARS = 60


# ---------------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True, slots=True)
class CheckResult:
    """The verdict on one answer box, with what the student should read about it."""

    key: str
    answer: str                         # as typed (may be long; see `shown`)
    status: Status
    expected: Any                       # the manifest's value (JSON-safe)
    expected_text: str                  # how the expected answer is shown ("25%", "2 blocks")
    value: Fraction | None = None       # the answer as read, in the expected's units
    note: str | None = None             # how it was read, why it is wrong, or the read error
    misconceptions: tuple[str, ...] = ()   # misconception keys whose answer it equals
    explanation: str | None = None      # the first misconception, explained (student's language)
    carried: str | None = None          # why a carried answer earns its points
    step: int | None = None             # 1-based step of the worked solution where it parts
    step_title: str | None = None
    step_result: str | None = None      # that step's value in the solution

    @property
    def earns(self) -> bool:
        return self.status in EARNS

    @property
    def shown(self) -> str:
        """The answer as shown back: one line, at most `SHOW_CHARS` characters."""
        return _shorten(self.answer)

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "answer": self.shown, "status": self.status,
                "expected": self.expected, "expected_text": self.expected_text,
                "value": None if self.value is None else _fmt(self.value), "note": self.note,
                "misconceptions": list(self.misconceptions), "explanation": self.explanation,
                "carried": self.carried, "step": self.step, "step_title": self.step_title,
                "step_result": self.step_result}


@dataclass(frozen=True, slots=True)
class BoxResult:
    """One answer box of one student: the verdict and the points it earned."""

    question: int
    column: str                          # Q<number>.<key>
    check: CheckResult
    max_points: Fraction
    points: Fraction | None              # None: flagged, left out of the score

    @property
    def counted(self) -> bool:
        return self.points is not None


@dataclass(slots=True)
class QuestionResult:
    number: int
    cell: str
    problem_id: str
    title: str
    boxes: list[BoxResult]
    solution_md: str = ""                # filled by the report, when feedback needs it

    @property
    def score(self) -> Fraction:
        return sum((b.points for b in self.boxes if b.points is not None), Fraction(0))

    @property
    def max_score(self) -> Fraction:
        return sum((b.max_points for b in self.boxes if b.points is not None), Fraction(0))


@dataclass(slots=True)
class StudentResult:
    name: str
    roll: str
    version: str
    line: int                             # line of the answer sheet graded
    questions: list[QuestionResult]
    lang: str = "en"

    @property
    def boxes(self) -> list[BoxResult]:
        return [b for q in self.questions for b in q.boxes]

    @property
    def score(self) -> Fraction:
        return sum((q.score for q in self.questions), Fraction(0))

    @property
    def max_score(self) -> Fraction:
        return sum((q.max_score for q in self.questions), Fraction(0))

    @property
    def label(self) -> str:
        """Who this is, for people: the name, else the roll, else the version code."""
        return self.name or self.roll or self.version


@dataclass(frozen=True, slots=True)
class FileIssue:
    """Something about the answer sheet a teacher should know, with its line (1 = header)."""

    line: int
    message: str
    severity: Literal["error", "note"] = "error"   # error: something was not graded as given

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


@dataclass(slots=True)
class GradeSummary:
    """What `grade_class` graded and wrote."""

    out_dir: Path
    students: list[StudentResult]
    issues: list[FileIssue]
    invalid: str
    results_csv: Path
    report: Path
    feedback: list[Path]
    unmatched: Path | None = None

    @property
    def answers(self) -> int:
        return sum(len(s.boxes) for s in self.students)

    @property
    def flagged(self) -> list[tuple[StudentResult, BoxResult]]:
        return [(s, b) for s in self.students for b in s.boxes if not b.counted]


# Worked-solution step formulas that compute an answer key under another name.
_STEP_KEYS = {"warps_per_block": "warps", "regs_per_block_allocated": "regs_per_block",
              "blocks_per_sm_exact": "blocks_per_sm", "warps_by_regs": "active_warps"}


# ---------------------------------------------------------------------------------------------
# Reading answers that are not plain numbers

_LIMIT_ALIASES = {
    "registers": ("registers", "register", "regs", "reg", "rf", "register file", "register pool"),
    "shared_memory": ("shared memory", "sharedmemory", "smem", "shmem", "shared", "shared mem",
                      "shm", "scratchpad"),
    "warps": ("warps", "warp", "warp slots", "warp slot", "max warps", "threads", "max threads",
              "thread slots"),
    "blocks": ("blocks", "block", "max blocks", "bmax", "b max", "block slots", "blocks cap"),
    "barriers": ("barriers", "barrier", "named barriers"),
}
_LIMIT_WORDS = {alias: name for name, aliases in _LIMIT_ALIASES.items() for alias in aliases}
_FILLER = frozenset({"limit", "limited", "limits", "limiter", "limiting", "bound", "bounded",
                     "lid", "cap", "ceiling", "by", "the", "per", "sm", "sms", "ka", "ki", "se",
                     "is", "are", "tie", "tied", "both", "count", "hai", "of", "resident"})
_LIST_SPLIT = re.compile(r"\s*(?:[,;/&+|]|\band\b|\baur\b|\bor\b|\bplus\b|\bwith\b)\s*")
_YES = frozenset({"yes", "y", "true", "t", "haan", "han", "ha", "hā", "ji haan", "1"})
_NO = frozenset({"no", "n", "false", "f", "nahi", "nahin", "nahī", "0"})


def _norm_text(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    text = re.sub(r"[_\-.:'\"`()\[\]{}]", " ", text)
    return " ".join(text.split())


def _read_limits(text: str) -> tuple[frozenset[str] | None, str | None]:
    """A limiter answer (``registers``, ``smem and warps``) as a set of limit names."""
    found: set[str] = set()
    for part in _LIST_SPLIT.split(_norm_text(text).replace("shared_memory", "shared memory")):
        words = [w for w in part.split() if w not in _FILLER]
        if not words:
            continue
        phrase_ = " ".join(words)
        name = _LIMIT_WORDS.get(phrase_) or _LIMIT_WORDS.get(phrase_.replace(" ", ""))
        if name is None and len(words) > 1:
            names = {_LIMIT_WORDS.get(w) for w in words}
            if None not in names and len(names) == 1:
                name = names.pop()
        if name is None:
            return None, (f"could not read {_quote(_shorten(part, 30))} as a limit "
                          "(registers, shared memory, warps, blocks, barriers)")
        found.add(name)
    if not found:
        return None, "no limit named (registers, shared memory, warps, blocks, barriers)"
    return frozenset(found), None


def _read_tuple(text: str, size: int) -> tuple[tuple[Fraction, ...] | None, str | None]:
    """Coordinates such as ``(6, 0, 2)``, ``6,0,2`` or ``6 0 2``."""
    inner = text.strip().strip("()[]{}⟨⟩<> ")
    parts = [p for p in re.split(r"[,;\s]+", inner) if p]
    if len(parts) != size:
        return None, f"expected {size} numbers, read {len(parts)}"
    out = []
    for part in parts:
        parsed = _parse(part)
        if not parsed.ok or parsed.value is None:
            return None, parsed.error
        out.append(parsed.value)
    return tuple(out), None


def _read_bool(text: str) -> bool | None:
    word = _norm_text(text)
    return True if word in _YES else False if word in _NO else None


# `parse_answer` remembers the texts it has read (a class writes "8" and "25%" many times).
_parse = _parse_any = parse_answer

# Comparisons already made, by (read answer, expected value, kind, tolerance, unit): a class's
# texts meet the same few expected values again and again, across problems too.
_COMPARED: dict[tuple[Any, ...], tuple[Parsed, Any]] = {}
_COMPARED_MAX = 1 << 16


def _compared(parsed: Parsed, expected: Any, *, kind: str, tolerance: Any = None,
              unit: str | None = None):
    """`compare`, remembered; the same arguments always give the same verdict."""
    try:
        memo = (id(parsed), type(expected), expected, kind, type(tolerance), tolerance, unit)
        found = _COMPARED.get(memo)
    except TypeError:                   # an argument that cannot be remembered
        return compare(parsed, expected, kind=kind, tolerance=tolerance, unit=unit)
    if found is not None and found[0] is parsed:
        return found[1]
    verdict = compare(parsed, expected, kind=kind, tolerance=tolerance, unit=unit)
    if len(_COMPARED) >= _COMPARED_MAX:
        _COMPARED.clear()
    _COMPARED[memo] = (parsed, verdict)   # holding `parsed` keeps its id from being reused
    return verdict


# ---------------------------------------------------------------------------------------------
# A problem prepared for grading


def _exact(value: Any) -> Fraction | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        return Fraction(repr(value)) if math.isfinite(value) else None
    return None


def _fmt(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    text = f"{float(value):.4f}".rstrip("0").rstrip(".")
    return text


def humanize(key: str) -> str:
    """A key as words, for a teacher's tables (``ignore_smem`` → ``ignore smem``); answers are
    named from the phrasebook (`quizgen.render.answers.answer_name`)."""
    return " ".join({"sm": "SM", "sms": "SMs"}.get(w, w) for w in key.split("_"))


def _shorten(text: str, limit: int = SHOW_CHARS) -> str:
    one = " ".join(str(text).split())
    return one if len(one) <= limit else one[: limit - 1] + "…"


def _quote(text: str) -> str:
    return f"'{text}'"


class Prepared:
    """One problem of a manifest (or a problem JSON) made ready for grading many answers.

    Expected values are converted once; the family's solver and misconception models are run
    only when a wrong answer needs explaining, and at most once.
    """

    def __init__(self, problem: Mapping[str, Any], *, number: int = 0,
                 asked: Sequence[str] | None = None,
                 tolerances: Mapping[str, Any] | None = None,
                 points: Any = None) -> None:
        if not isinstance(problem, Mapping):
            raise QuizgenError("expected a problem object", field="problem")
        for name in ("cell", "answers"):
            if name not in problem:
                raise QuizgenError(f"a problem needs {name!r}", field="problem")
        if not isinstance(problem["answers"], Mapping):
            raise QuizgenError("'answers' must be an object", field="problem")
        self.problem = problem
        self.number = number
        self.id = str(problem.get("id", ""))
        self.cell = str(problem["cell"])
        self.lang = str(problem.get("lang") or "en")
        self.answers: Mapping[str, Any] = problem["answers"]
        self.params: Mapping[str, Any] = problem.get("params") or {}
        self.specs: dict[str, AnswerSpec] = record_specs(problem)
        self.units: Mapping[str, str] = {k: spec.unit for k, spec in self.specs.items()}
        keys = list(asked) if asked is not None else list(self.answers)
        unknown = [k for k in keys if k not in self.answers]
        if unknown:
            raise QuizgenError(f"{unknown[0]!r} is not an answer of problem {self.id or self.cell}",
                               field="asked")
        self.asked = keys
        given = tolerances or {}
        self.tolerance: dict[str, Fraction | None] = {}
        for key in keys:
            # A manifest writes 0 for "no tolerance given"; then the spec's applies.
            tol = given.get(key) or self.specs[key].tolerance
            self.tolerance[key] = _exact(tol) if tol else None
        self.kind = {key: self.specs[key].kind for key in keys}
        self.unit = {key: self._unit_word(key) for key in keys}
        self._texts: dict[tuple[str, str], str] = {}
        self.expected = {key: _exact(self.answers[key]) for key in keys}
        self.points = question_points(points, keys)
        self._derived: dict[str, Any] | None = None
        self._steps: list[Mapping[str, Any]] | None = None
        # What grading many students' texts against this problem remembers: a box read and
        # compared, per (key, text); its final result, per (key, text, language); a wrong
        # box's diagnosis and parting step; a carry's outcome given the student's own numbers.
        self._judged: dict[tuple[str, str | None], _Box] = {}
        self._results: dict[tuple[str, str | None, str], CheckResult] = {}
        self._diagnosed: dict[tuple[str, str | None, str], tuple[tuple[str, ...], str | None]] = {}
        self._parts: dict[tuple[str, str | None], int | None] = {}
        self._carried: dict[tuple[Any, ...], dict[str, str]] = {}
        self._computes: dict[str, Any] | None = None
        self._downstream: dict[str, frozenset[str]] | None = None
        self._order: list[str] | None = None
        self._wrong_results: dict[tuple[Any, ...], CheckResult] = {}
        self._boxes: dict[tuple[int, str], tuple[CheckResult, BoxResult]] = {}

    # -- kinds, units, display

    def _unit_word(self, key: str) -> str | None:
        unit = self.units.get(key)
        return str(unit) if unit and canonical_unit(str(unit)) else None

    def unit_word(self, key: str) -> str | None:
        return self.unit[key] if key in self.unit else self._unit_word(key)

    def expected_text(self, key: str, lang: str) -> str:
        """The expected answer as shown to a student ("0.21875 (21.875%)", "7 blocks")."""
        if (key, lang) not in self._texts:
            self._texts[key, lang] = self._expected_text(key, lang)
        return self._texts[key, lang]

    def _expected_text(self, key: str, lang: str) -> str:
        value = self.answers[key]
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return _number_text(value, self.specs[key].unit, self.specs[key].format, lang)
        return self._other_text(key, lang)

    def _other_text(self, key: str, lang: str) -> str:
        from quizgen.render.solution import format_value

        value = self.answers[key]
        unit = str(self.units.get(key, ""))
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return ", ".join(v.replace("_", " ") for v in value)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return _number_text(value, unit, self.specs[key].format, lang)
        return format_value(value)

    # -- the family's view (only to explain)

    def derived(self) -> dict[str, Any]:
        """Solver output, misconceptions and GPUs, computed once (empty when not available)."""
        if self._derived is None:
            self._derived = _derive(self.problem)
        return self._derived

    def computes(self) -> dict[str, Any]:
        """The compute function of each answer that depends on others (carried credit)."""
        if self._computes is None:
            self._computes = computes(self.problem, self.specs)
        return self._computes

    def downstream(self) -> dict[str, frozenset[str]]:
        """Per answer key, the answers computed from it (directly or through others)."""
        if self._downstream is None:
            self._downstream = downstream(self.specs, self.computes())
        return self._downstream

    def misconceptions(self) -> list[tuple[str, Mapping[str, Any]]]:
        return self.derived().get("misconceptions", [])

    def steps(self) -> list[Mapping[str, Any]]:
        if self._steps is None:
            solution = self.problem.get("solution")
            steps = (solution.get("steps") or []) if isinstance(solution, Mapping) else []
            self._steps = [s for s in steps if isinstance(s, Mapping)]
        return self._steps


@lru_cache(maxsize=1 << 14)
def _number_text(value: int | float, unit: str, fmt: str, lang: str) -> str:
    from quizgen.problems.choices import format_answer
    from quizgen.render.solution import format_value

    if fmt == "percent":
        shown = format_answer(value, "fraction", lang)
        plain = f"{float(value):.6f}".rstrip("0").rstrip(".")
        return shown if plain in ("0", "1") else f"{plain} ({shown})"
    try:
        return format_answer(value, unit, lang)
    except Exception:   # an unknown unit word: the number alone
        return format_value(value)


def _frozen(value: Any) -> Any:
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), _frozen(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


_DERIVED: dict[Any, dict[str, Any]] = {}
_DERIVED_MAX = 4096


def _derive(problem: Mapping[str, Any]) -> dict[str, Any]:
    """The family's view of a problem, shared by every student who has the same problem."""
    gpu = problem.get("gpu")
    try:
        # The id is a hash of cell, parameters, GPU and seed; the parameters and the GPU's
        # name are added so that a hand-edited manifest never reuses a stale answer.
        key = (str(problem.get("id")), str(problem.get("cell")),
               _frozen(problem.get("params") or {}),
               gpu.get("name") if isinstance(gpu, Mapping) else None)
        if not problem.get("id"):
            key += (_frozen(gpu or {}),)
    except TypeError:
        return _derive_now(problem)
    found = _DERIVED.get(key)
    if found is None:
        if len(_DERIVED) >= _DERIVED_MAX:
            _DERIVED.clear()
        found = _DERIVED[key] = _derive_now(problem)
    return found


def _derive_now(problem: Mapping[str, Any]) -> dict[str, Any]:
    """Re-run the family on the saved parameters: its GPU, solution and misconception models."""
    out: dict[str, Any] = {}
    try:
        from quizgen.gpus import gpu_from_dict
        from quizgen.problems import family

        gpu = gpu_from_dict(problem["gpu"]) if isinstance(problem.get("gpu"), Mapping) else None
        out["gpu"] = gpu
        fam = family(str(problem["cell"]))
        params = dict(problem.get("params") or {})
        if gpu is None:
            return out
        solved = fam.solve(params, gpu, explain=False)
        out["solved"] = solved
        out["misconceptions"] = [(m.key, dict(m.answers))
                                 for m in fam.applicable_misconceptions(params, gpu, solved)]
        # Each trap's numbers, exact, per answer key (the comparisons' fast path).
        traps: dict[str, list[tuple[str, Fraction]]] = {}
        for name, answers in out["misconceptions"]:
            for key, value in answers.items():
                exact = _exact(value)
                if exact is not None:
                    traps.setdefault(key, []).append((name, exact))
        out["traps"] = traps
    except (QuizgenError, KeyError, TypeError, ValueError, ArithmeticError):
        # A problem from a family this install does not know, or hand-written parameters:
        # it is still graded from its saved answers, only without diagnosis.
        pass
    return out


def clear_caches() -> None:
    """Forget what grading remembers between calls (texts read, comparisons, the families'
    solutions, carry sentences), e.g. to time a cold run. Results never depend on it."""
    from quizgen.grade.parse import clear_cache

    clear_cache()
    _COMPARED.clear()
    _DERIVED.clear()
    _CARRY_TEXTS.clear()


def question_points(points: Any, keys: Sequence[str]) -> dict[str, Fraction]:
    """Points per answer box: a number is split evenly across the boxes, a dict is per key.

    No points at all means one point per box.
    """
    if not keys:
        return {}
    if points is None:
        return {key: Fraction(1) for key in keys}
    if isinstance(points, Mapping):
        out = {}
        for key in keys:
            value = _points_value(points.get(key, 0), key)
            out[key] = value
        return out
    total = _points_value(points, "points")
    return {key: total / len(keys) for key in keys}


#: The most points one question or answer box may carry.
MAX_POINTS = 10**6


def _points_value(value: Any, where: str) -> Fraction:
    exact = _exact(value)
    if exact is None and isinstance(value, str):
        from quizgen.grade.parse import read_number

        exact = read_number(where, value, minimum=0, maximum=MAX_POINTS,
                            expected="a number of points")
    if exact is None or exact < 0 or exact > MAX_POINTS:
        raise QuizgenError(f"got {value!r}; expected a number of points from 0 to {MAX_POINTS:,}",
                           field=where)
    return exact


def prepare(problem: Any, **kwargs: Any) -> Prepared:
    """A `Prepared` problem from a `Problem`, its dict, or a manifest question."""
    if hasattr(problem, "to_dict"):
        problem = problem.to_dict()
    return Prepared(problem, **kwargs)


# ---------------------------------------------------------------------------------------------
# Grading one question


@dataclass(slots=True)
class _Box:
    key: str
    raw: str | None
    status: Status
    value: Fraction | None = None
    note: str | None = None
    parsed: Parsed | None = None
    text_value: Any = None                  # a limiter set, a tuple, a bool, a choice's value
    misconceptions: tuple[str, ...] = ()
    explanation: str | None = None
    carried: str | None = None
    step: int | None = None
    step_title: str | None = None
    step_result: str | None = None
    memo: tuple[str, str | None] | None = None   # (key, text) when its reading is remembered

    def copy(self) -> _Box:
        return _Box(self.key, self.raw, self.status, self.value, self.note, self.parsed,
                    self.text_value, self.misconceptions, self.explanation, self.carried,
                    self.step, self.step_title, self.step_result, self.memo)


#: Longest answer text whose verdict a `Prepared` remembers (longer ones are judged each time).
_MEMO_CHARS = 256


def _judged(q: Prepared, key: str, raw: str | None) -> _Box:
    """`_judge`, remembered per (key, text): the same text always reads and compares the same.

    The box returned is shared; stages 3 and 4 change only wrong boxes, on a copy.
    """
    if raw is not None and (type(raw) is not str or len(raw) > _MEMO_CHARS):
        return _judge(q, key, raw)
    memo = (key, raw)
    box = q._judged.get(memo)
    if box is None:
        box = _judge(q, key, raw)
        box.memo = memo
        q._judged[memo] = box
    return box


def _judge(q: Prepared, key: str, raw: str | None) -> _Box:
    """Stages 1 and 2: read and compare against the expected value."""
    if raw is None:
        return _Box(key, None, "missing", note="no column for this answer in the answer sheet")
    text = raw if isinstance(raw, str) else str(raw)
    if not text.strip():
        return _Box(key, text, "blank")
    expected = q.answers[key]
    exact = q.expected[key]
    kind = q.kind[key]
    if kind in NUMERIC_KINDS:
        if exact is None:
            return _Box(key, text, "invalid", note="this answer cannot be graded automatically")
        parsed = _parse_any(text)
        verdict = _compared(parsed, exact, kind=q.kind[key], tolerance=q.tolerance[key],
                          unit=q.unit_word(key))
        box = _Box(key, text, verdict.status, verdict.value_used, verdict.note, parsed)
        if verdict.status == "correct" and verdict.value_used != exact:
            _nearer_trap(q, box, exact)
        return box
    if kind == "yes_no" and isinstance(expected, bool):
        got = _read_bool(text)
        if got is None:
            return _Box(key, text, "invalid", note=f"could not read {_quote(_shorten(text, 30))} "
                                                   "as yes or no")
        return _Box(key, text, "correct" if got == expected else "wrong", text_value=got)
    if kind == "limits" and isinstance(expected, list) and all(isinstance(v, str) for v in expected):
        names, error = _read_limits(text)
        if names is None:
            return _Box(key, text, "invalid", note=error)
        want = frozenset(expected)
        if names == want:
            return _Box(key, text, "correct", text_value=names)
        note = None
        missing = sorted(want - names)
        extra = sorted(names - want)
        if missing and not extra:
            note = "also binding: " + ", ".join(m.replace("_", " ") for m in missing)
        elif extra:
            note = "does not bind: " + ", ".join(m.replace("_", " ") for m in extra)
        return _Box(key, text, "wrong", note=note, text_value=names)
    if kind == "coords" and isinstance(expected, list) and all(_exact(v) is not None
                                                                for v in expected):
        values, error = _read_tuple(text, len(expected))
        if values is None:
            return _Box(key, text, "invalid", note=error)
        want_t = tuple(_exact(v) for v in expected)
        tol = q.tolerance[key] or DEFAULT_TOLERANCE["count"]
        ok = all(abs(a - b) <= tol for a, b in zip(values, want_t))
        return _Box(key, text, "correct" if ok else "wrong", text_value=values)
    if kind == "choice" and isinstance(expected, str):
        return _judge_text(q, key, text, expected)
    return _Box(key, text, "invalid", note="this answer cannot be graded automatically")


def _nearer_trap(q: Prepared, box: _Box, exact: Fraction) -> None:
    """An answer inside the tolerance that is really a trap's value, written more precisely.

    The tolerance absorbs rounding of the right answer; it must not accept another method's
    result. When the answer lies within a tenth of the tolerance of a misconception's value and
    nearer to it than to the right answer (``93.751%`` when the answer is 93.75% and forgetting
    the floor gives 93.7514%), it is that misconception's answer.
    """
    key, value = box.key, box.value
    kind = q.kind[key]
    tol = q.tolerance[key] if q.tolerance[key] is not None else DEFAULT_TOLERANCE[kind]
    if value is None or box.parsed is None or not tol:
        return
    hits = []
    for name, trap in q.derived().get("traps", {}).get(key, ()):
        if trap == exact or name in hits:
            continue
        if abs(value - trap) < abs(value - exact) and \
                _compared(box.parsed, trap, kind=kind, tolerance=tol / 10,
                        unit=q.unit_word(key)).status == "correct":
            hits.append(name)
    if hits:
        box.status = "wrong"
        box.misconceptions = tuple(hits)
        box.note = "nearer to a trap's value than to the answer"


def _same_number(q: Prepared, box: _Box, exact: Fraction) -> bool:
    """Whether a read number equals `exact` by its key's rules (a cheap test first)."""
    kind = q.kind[box.key]
    if box.value is not None:
        tol = q.tolerance[box.key]
        if tol is None:
            tol = DEFAULT_TOLERANCE[kind]
            if kind == "real":
                tol = max(tol, abs(exact) / 1000)
        if (box.value == exact) if not tol else abs(box.value - exact) <= tol:
            # Near enough, but a unit that contradicts the kind still makes it wrong.
            return box.parsed is None or box.parsed.unit is None or _compared(
                box.parsed, exact, kind=kind, tolerance=q.tolerance[box.key],
                unit=q.unit_word(box.key)).status == "correct"
        if kind not in ("fraction", "percent") or box.parsed is None or box.parsed.unit:
            return False
    # "25" read as 25% (or 0.25 as 25 %) depends on the value compared with: ask compare.
    return box.parsed is not None and _compared(
        box.parsed, exact, kind=kind, tolerance=q.tolerance[box.key],
        unit=q.unit_word(box.key)).status == "correct"


def _same(q: Prepared, box: _Box, value: Any) -> bool:
    """Whether the student's answer equals `value` by the rules of its answer key."""
    if box.parsed is not None:
        exact = _exact(value)
        return exact is not None and _same_number(q, box, exact)
    got = box.text_value
    if got is None:
        return False
    if isinstance(value, bool):
        return got is value
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return got == frozenset(value)
    if isinstance(value, list):
        want = tuple(_exact(v) for v in value)
        return None not in want and got == want
    if isinstance(value, str):
        return got == value
    return False


def _judge_text(q: Prepared, key: str, text: str, expected: str) -> _Box:
    """A named answer (a concept card's option): its key, or the option's text."""
    said = _norm_text(text)
    choices = q.problem.get("choices") or []
    if said in (_norm_text(expected), _norm_text(expected.replace("-", " "))):
        return _Box(key, text, "correct", text_value=expected)
    for choice in choices:
        if not isinstance(choice, Mapping):
            continue
        names = {_norm_text(str(choice.get("text", ""))), _norm_text(str(choice.get("value", "")))}
        if said in names:
            if choice.get("value") == expected or choice.get("correct"):
                return _Box(key, text, "correct", text_value=expected)
            misc = choice.get("misconception")
            return _Box(key, text, "wrong", text_value=choice.get("value"),
                        misconceptions=(str(misc),) if misc else (),
                        explanation=str(choice.get("why") or "") or None)
    names = ", ".join(str(c.get("value")) for c in choices if isinstance(c, Mapping))
    return _Box(key, text, "invalid", note="not one of this question's options"
                + (f" ({names})" if names else ""))


def _carry(q: Prepared, boxes: Mapping[str, _Box], lang: str) -> dict[str, str]:
    """Stage 3: carried-error credit for wrong answers right by the student's own numbers.

    Returns, per answer key that is carried, the sentence explaining why it earns its points.
    """
    fns = q.computes()
    if not fns:
        return {}
    # Every answer the student wrote readably feeds what follows (a right one at the record's
    # value); an unreadable or blank box leaves the record's value in place.
    own = {}
    for key, box in boxes.items():
        if box.status == "wrong":
            value = box.value if box.parsed is not None else box.text_value
            if value is not None:
                own[key] = value
        elif box.status == "correct":
            own[key] = q.answers[key]
    # Nothing carries unless a wrong box lies downstream of an answer the student got wrong.
    below = q.downstream()
    wrong = [k for k, b in boxes.items() if b.status == "wrong"]
    if not any(w in below.get(k, ()) for k in own if k in wrong for w in wrong):
        return {}
    try:
        memo: tuple[Any, ...] | None = (lang, tuple(sorted((k, _frozen(v)) for k, v in own.items())),
                                        tuple((k, b.memo) for k, b in boxes.items()
                                              if b.status == "wrong"))
        hash(memo)
    except TypeError:
        memo = None
    if memo is not None and memo in q._carried:
        return q._carried[memo]
    gpu = q.derived().get("gpu")
    out: dict[str, str] = {}
    if gpu is not None:
        if q._order is None:
            q._order = order(q.specs)
        carried = carried_values(q.specs, fns, q.answers, q.params, gpu, own, q._order)
        for key, box in boxes.items():
            if box.status != "wrong" or key not in carried:
                continue
            value, sources = carried[key]
            if _carried_equal(q, box, value):
                out[key] = _carry_text(q, lang, sources, value, key, own)
    if memo is not None:
        q._carried[memo] = out
    return out


def _carried_equal(q: Prepared, box: _Box, value: Any) -> bool:
    if isinstance(value, Fraction):
        return box.parsed is not None and _same_number(q, box, value)
    return _same(q, box, value)


def _carry_text(q: Prepared, lang: str, sources: frozenset[str], value: Any, key: str,
                own: Mapping[str, Any]) -> str:
    """ "Carried from (b): with your blocks per SM = 9, the right method gives 72 warps …" """
    from quizgen.render.answers import answer_name
    from quizgen.render.phrases import phrase

    letters = {k: _box_letter(i) for i, k in enumerate(q.asked)}
    named = [k for k in q.asked if k in sources]
    boxes = ", ".join(f"({letters[k]})" for k in named)
    uses = ", ".join(f"{answer_name(k, lang)} = {_shown(own[k])}" for k in named)
    if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
        shown = _number_text(_plain(value), q.specs[key].unit, q.specs[key].format, lang)
    else:
        from quizgen.render.answers import answer_text

        shown = answer_text(value, q.specs[key].unit, lang)
    memo = (lang, boxes, uses, shown)
    text = _CARRY_TEXTS.get(memo)
    if text is None:
        if len(_CARRY_TEXTS) >= 4096:
            _CARRY_TEXTS.clear()
        text = _CARRY_TEXTS[memo] = phrase(lang, "grade_carry", "carried",
                                           {"boxes": boxes, "uses": uses, "value": shown})
    return text


def _box_letter(index: int) -> str:
    """The letter a sheet prints before a question's box (a, b, …)."""
    return chr(ord("a") + index) if index < 26 else str(index + 1)


def _shown(value: Any) -> str:
    if isinstance(value, Fraction):
        return _fmt(value)
    if isinstance(value, (frozenset, set)):
        return " + ".join(sorted(str(v).replace("_", " ") for v in value))
    if isinstance(value, tuple):
        return "(" + ", ".join(_shown(v) for v in value) + ")"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _plain(value: Any) -> Any:
    if isinstance(value, Fraction):
        return value.numerator if value.denominator == 1 else float(value)
    return value


_CARRY_TEXTS: dict[tuple[Any, ...], str] = {}


def _diagnosed(q: Prepared, box: _Box, lang: str) -> tuple[tuple[str, ...], str | None]:
    """Stage 4 for one wrong box: its misconceptions and the first one explained (remembered)."""
    if box.memo is None:
        return _misconceptions_of(q, box, lang)
    memo = (box.memo[0], box.memo[1], lang)
    found = q._diagnosed.get(memo)
    if found is None:
        found = q._diagnosed[memo] = _misconceptions_of(q, box, lang)
    return found


def _misconceptions_of(q: Prepared, box: _Box,
                       lang: str) -> tuple[tuple[str, ...], str | None]:
    """The misconceptions whose answer a wrong box equals, and the first one explained."""
    from quizgen.render.phrases import has, phrase

    misconceptions, explanation = box.misconceptions, box.explanation
    if not misconceptions:
        if box.parsed is not None:
            names = (name for name, exact in q.derived().get("traps", {}).get(box.key, ())
                     if _same_number(q, box, exact))
        else:
            names = (name for name, answers in q.misconceptions()
                     if box.key in answers and _same(q, box, answers[box.key]))
        misconceptions = tuple(dict.fromkeys(names))
    if misconceptions and explanation is None:
        first = misconceptions[0]
        explanation = (phrase(lang, "misconception", first, salt=q.id)
                       if has(lang, "misconception", first) else humanize(first))
    return misconceptions, explanation


def _parting_index(q: Prepared, boxes: Mapping[str, _Box]) -> int:
    """The 1-based index of the first solution step whose value differs from the student's
    value for that quantity (0: none). Carrying does not change it: a carried answer still
    takes part, with the value the student wrote."""
    first = 0
    for box in boxes.values():
        if box.value is None or box.status == "invalid":
            continue
        index = q._parts.get(box.memo) if box.memo is not None else None
        if index is None:
            index = _parts_at(q, box)
            if box.memo is not None:
                q._parts[box.memo] = index
        if index and (not first or index < first):
            first = index
    return first


def _parting_step(q: Prepared, index: int) -> tuple[int, str, str] | None:
    """Step `index` (1-based) as shown: (index, title, its value in the solution)."""
    from quizgen.render.solution import format_value

    if not index:
        return None
    step = q.steps()[index - 1]
    return index, str(step.get("title", "")), format_value(step.get("result"))


def _parts_at(q: Prepared, box: _Box) -> int:
    """The 1-based index of the first solution step of this box's quantity whose value the
    box's answer does not match (0: none)."""
    if not box.parsed:
        return 0
    key = box.key
    if q.kind[key] not in NUMERIC_KINDS:
        return 0
    for index, step in enumerate(q.steps(), start=1):
        formula = step.get("formula")
        if not formula:
            continue
        if _STEP_KEYS.get(str(formula), str(formula)) != key:
            continue
        result = _exact(step.get("result"))
        if result is None:
            continue
        if _compared(box.parsed, result, kind=q.kind[key], tolerance=q.tolerance[key],
                   unit=q.unit_word(key)).status != "correct":
            return index
    return 0


def grade_question(q: Prepared, answers: Mapping[str, str | None], *,
                   lang: str | None = None) -> list[CheckResult]:
    """Grade every asked box of one question from the student's texts (None: no such column)."""
    lang = lang or q.lang
    judged = q._judged
    boxes: dict[str, _Box] = {}
    wrong = False
    for key in q.asked:
        raw = answers.get(key)
        box = judged.get((key, raw)) if raw is None or (
            type(raw) is str and len(raw) <= _MEMO_CHARS) else None
        if box is None:
            box = _judged(q, key, raw)
        boxes[key] = box
        if box.status == "wrong":
            wrong = True
    if not wrong:
        return [_final(q, box, lang) for box in boxes.values()]
    # Stages 3 and 4 decide only the wrong boxes; every other box is final as judged.
    carried = _carry(q, boxes, lang)
    parting = _parting_index(q, boxes)
    return [_final_wrong(q, box, lang, carried.get(key), parting) if box.status == "wrong"
            else _final(q, box, lang) for key, box in boxes.items()]


def _final(q: Prepared, box: _Box, lang: str) -> CheckResult:
    """The result of a box that stages 3 and 4 leave alone, remembered per (key, text, language)."""
    if box.memo is None:
        return _result(q, box, lang)
    memo = (box.memo[0], box.memo[1], lang)
    result = q._results.get(memo)
    if result is None:
        result = q._results[memo] = _result(q, box, lang)
    return result


def _final_wrong(q: Prepared, box: _Box, lang: str, carried: str | None,
                 parting: int) -> CheckResult:
    """The result of a box judged wrong: carried, or diagnosed (a misconception, else the
    step where the student's numbers part from the solution)."""
    misconceptions = explanation = None
    if carried is None:
        misconceptions, explanation = _diagnosed(q, box, lang)
        if misconceptions:
            parting = 0
    else:
        parting = 0
    memo = (box.memo, lang, carried, parting) if box.memo is not None else None
    result = q._wrong_results.get(memo) if memo is not None else None
    if result is None:
        done = box.copy()
        if carried is None:
            done.misconceptions, done.explanation = misconceptions, explanation
            step = _parting_step(q, parting)
            if step is not None:
                done.step, done.step_title, done.step_result = step
        else:
            done.status, done.carried = "carried", carried
        result = _result(q, done, lang)
        if memo is not None:
            q._wrong_results[memo] = result
    return result


def _result(q: Prepared, box: _Box, lang: str) -> CheckResult:
    return CheckResult(
        key=box.key, answer=box.raw or "", status=box.status, expected=q.answers[box.key],
        expected_text=q.expected_text(box.key, lang), value=box.value,
        note=box.note, misconceptions=box.misconceptions, explanation=box.explanation,
        carried=box.carried, step=box.step, step_title=box.step_title,
        step_result=box.step_result)


def check_answer(problem: Any, key: str | None, answer: str, *,
                 given: Mapping[str, str] | None = None, lang: str | None = None) -> CheckResult:
    """Grade one answer to one problem (a `Problem`, its dict, or a manifest question).

    `key` defaults to the problem's main answer (or its only one). `given` holds the student's
    other answers to the same problem, so that a carried error is recognised.
    """
    data = problem.to_dict() if hasattr(problem, "to_dict") else problem
    if not isinstance(data, Mapping) or not isinstance(data.get("answers"), Mapping):
        raise QuizgenError("expected a problem object with 'answers'", field="problem")
    answers = data["answers"]
    if key is None:
        key = data.get("main_answer") or None
        asked = data.get("asked")
        if key is None and isinstance(asked, list) and len(asked) == 1:
            key = asked[0]
        if key is None and len(answers) == 1:
            key = next(iter(answers))
        if key is None:
            raise QuizgenError(f"this problem has several answers; choose one with --key "
                               f"({', '.join(answers)})", field="key")
    if key not in answers:
        raise QuizgenError(f"{key!r} is not an answer of this problem ({', '.join(answers)})",
                           field="key")
    others = dict(given or {})
    unknown = [k for k in others if k not in answers]
    if unknown:
        raise QuizgenError(f"{unknown[0]!r} is not an answer of this problem", field="given")
    asked = [k for k in answers if k == key or k in others]
    q = Prepared(data, asked=asked, tolerances=data.get("tolerances") or {})
    results = grade_question(q, {**others, key: answer}, lang=lang)
    return next(r for r in results if r.key == key)


# ---------------------------------------------------------------------------------------------
# Reading the answer sheet


@dataclass(frozen=True, slots=True)
class SheetRow:
    line: int                             # line where the row starts (1 = header)
    cells: tuple[str, ...]


@dataclass(slots=True)
class AnswerSheet:
    """The answer sheet as read: header, rows with their lines, and what was odd about it."""

    header: list[str]
    rows: list[SheetRow]
    issues: list[FileIssue]
    delimiter: str = ","
    encoding: str = "utf-8"


def _decode(data: bytes, issues: list[FileIssue]) -> tuple[str, str]:
    if data.startswith(b"\xef\xbb\xbf"):
        issues.append(FileIssue(1, "UTF-8 with a byte-order mark (as Excel saves it); read fine",
                                "note"))
        return data[3:].decode("utf-8", errors="replace"), "utf-8-sig"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        issues.append(FileIssue(1, "UTF-16 text (Excel's \"Unicode text\"); read fine", "note"))
        return data.decode("utf-16"), "utf-16"
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        issues.append(FileIssue(line, "not UTF-8 (first bad byte here); the file was read as "
                                      "Windows-1252, check the names on this line", "note"))
        return data.decode("cp1252", errors="replace"), "cp1252"


def _sniff(first_line: str) -> str:
    from quizgen.files import sniff_delimiter

    return sniff_delimiter(first_line)


def _records(body: io.StringIO, delimiter: str, skip: int,
             issues: list[FileIssue]) -> tuple[list[str] | None, int, list[SheetRow], int]:
    reader = csv.reader(body, delimiter=delimiter)
    header: list[str] | None = None
    header_line = 0
    rows: list[SheetRow] = []
    line = skip
    try:
        for record in reader:
            start = line + 1
            line = skip + reader.line_num
            if header is None:
                header = [cell.strip() for cell in record]
                header_line = start
                continue
            if not any(cell.strip() for cell in record):
                continue
            rows.append(SheetRow(start, tuple(plain_cell(cell) for cell in record)))
    except csv.Error as exc:
        issues.append(FileIssue(line + 1, f"unreadable CSV ({exc}); the rest of the file was "
                                          "not read"))
    return header, header_line, rows, line


def read_answer_sheet(path: str | os.PathLike[str]) -> AnswerSheet:
    """Read a filled answer sheet: UTF-8 (with or without BOM), UTF-16, or Windows-1252;
    commas, semicolons (Excel in many locales) or tabs; quoted fields; any line endings.
    """
    path = Path(path)
    from quizgen.files import read_limited

    data = read_limited(path, "answers")
    issues: list[FileIssue] = []
    text, encoding = _decode(data, issues)
    if "\x00" in text:
        raise QuizgenError(f"{path} is not a text file", field="answers")
    lines = text.splitlines()
    skip = 0
    delimiter = None
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        raise QuizgenError(f"{path} is empty", field="answers")
    match = re.fullmatch(r"\s*sep=(.)\s*", lines[first])
    if match:
        delimiter = match.group(1)
        skip = first + 1
        issues.append(FileIssue(first + 1, f"Excel's separator line 'sep={delimiter}'; used", "note"))
    else:
        skip = first
        delimiter = _sniff(lines[first])
    if delimiter == ";":
        issues.append(FileIssue(skip + 1, "semicolon-separated (Excel); read fine", "note"))
    elif delimiter == "\t":
        issues.append(FileIssue(skip + 1, "tab-separated; read fine", "note"))
    body = io.StringIO(text, newline="")
    for _ in range(skip):
        body.readline()
    # A pasted essay must not stop the file: allow long fields (each answer is capped later).
    limit = csv.field_size_limit()
    csv.field_size_limit(max(limit, len(text) + 1))
    try:
        header, header_line, rows, line = _records(body, delimiter, skip, issues)
    finally:
        csv.field_size_limit(limit)
    if header is None:
        raise QuizgenError(f"{path} has no header line", field="answers")
    if header_line != 1 and not match:
        issues.append(FileIssue(header_line, "header found after blank lines", "note"))
    return AnswerSheet(header, rows, issues, delimiter, encoding)


# ---------------------------------------------------------------------------------------------
# Grading a class

_NAME_COLUMNS = ("name", "student", "student name", "naam")
_ROLL_COLUMNS = ("roll", "roll number", "roll no", "roll_no", "rollno", "roll_number", "id",
                 "student id", "student_id")
_VERSION_COLUMNS = ("version", "version code", "code", "version_code")
_DECIMAL_COMMA = re.compile(r"^\s*([+\-−]?\d+),(\d+)\s*(%?)\s*$")


def _find_column(header: list[str], names: Sequence[str]) -> int | None:
    lowered = [h.strip().casefold() for h in header]
    for name in names:
        if name in lowered:
            return lowered.index(name)
    return None


def _person(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


@dataclass(slots=True)
class _Entry:
    name: str
    roll: str
    version: str
    questions: list[Prepared]
    graded_line: int | None = None


def _load_manifest(path: Path) -> dict[str, Any]:
    """An exam manifest: a JSON object whose ``students`` list each student's problems."""
    import json

    from quizgen.files import read_limited

    raw = read_limited(path, "manifest")
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise QuizgenError(f"{path} is not a JSON manifest ({exc})", field="manifest") from None
    except RecursionError:
        raise QuizgenError(f"{path} is not an exam manifest (nested too deeply)",
                           field="manifest") from None
    if not isinstance(data, dict):
        raise QuizgenError(f"{path} is not an exam manifest (expected a JSON object)",
                           field="manifest")
    version = data.get("format_version", 1)
    if isinstance(version, int) and version > MANIFEST_VERSION:
        raise QuizgenError(f"{path} was written by a newer quizgen (manifest format {version}; "
                           f"this one reads up to {MANIFEST_VERSION})", field="manifest")
    students = data.get("students")
    if not isinstance(students, list) or not students:
        raise QuizgenError(f"{path} lists no students", field="manifest")
    return data


#: The newest exam manifest format the grader reads (1: no answer specs, taken from the families;
#: 2: each question carries ``answer_specs``).
MANIFEST_VERSION = 2


def _entries(manifest: Mapping[str, Any]) -> list[_Entry]:
    out = []
    # Versions share problems: a question equal to one already prepared (same number, same
    # content) shares its `Prepared`, and with it everything remembered while grading.
    shared: dict[tuple[str, Any], list[tuple[Mapping[str, Any], Prepared]]] = {}
    for i, student in enumerate(manifest["students"], start=1):
        where = f"students[{i}]"
        if not isinstance(student, Mapping) or not isinstance(student.get("questions"), list):
            raise QuizgenError("expected name, roll, version and questions", field=where)
        questions = []
        for j, item in enumerate(student["questions"], start=1):
            if not isinstance(item, Mapping):
                raise QuizgenError("expected a problem object", field=f"{where}.questions[{j}]")
            number = item.get("number", j)
            try:
                number = require_int("number", number, minimum=0, maximum=10**6)
                same = shared.setdefault((str(item.get("id", "")), int(number)), [])
                prepared = next((p for seen, p in same if seen is item or seen == item), None)
                if prepared is None:
                    prepared = Prepared(item, number=int(number), asked=item.get("asked"),
                                        tolerances=item.get("tolerances"),
                                        points=item.get("points"))
                    same.append((item, prepared))
                questions.append(prepared)
            except QuizgenError as exc:
                raise QuizgenError(str(exc), field=f"{where}.questions[{j}]") from None
        out.append(_Entry(str(student.get("name") or ""), str(student.get("roll") or ""),
                          str(student.get("version") or ""), questions))
    return out


def _sheet_lang(manifest: Mapping[str, Any], lang: str | None) -> str:
    from quizgen.render.phrases import LANGS

    if lang is not None:
        if lang not in LANGS:
            raise QuizgenError(f"got {lang!r}; expected one of: {', '.join(LANGS)}", field="lang")
        return lang
    recipe = manifest.get("recipe")
    chosen = recipe.get("lang") if isinstance(recipe, Mapping) else None
    return chosen if chosen in LANGS else "en"


@contextlib.contextmanager
def _cyclic_gc_paused():
    """Pause Python's cycle collector (reference counting still frees everything).

    Grading a class makes a few hundred thousand small objects and no reference cycles; left
    on, the collector would rescan every live object (the manifest too) again and again, about
    a third of the grading time.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def grade_rows(manifest: Mapping[str, Any], sheet: AnswerSheet, *, invalid: str = "zero",
               lang: str | None = None) -> tuple[list[StudentResult], list[FileIssue],
                                                  list[SheetRow]]:
    """Match each row of the sheet to its student and grade it (no files written).

    Returns the graded students (in sheet order), the issues (with line numbers) and the rows
    that could not be graded (kept whole, for ``unmatched.csv``).
    """
    with _cyclic_gc_paused():
        return _grade_rows(manifest, sheet, invalid=invalid, lang=lang)


def _grade_rows(manifest: Mapping[str, Any], sheet: AnswerSheet, *, invalid: str,
                lang: str | None) -> tuple[list[StudentResult], list[FileIssue], list[SheetRow]]:
    if invalid not in ("flag", "zero"):
        raise QuizgenError(f"got {invalid!r}; expected flag or zero", field="invalid")
    lang = _sheet_lang(manifest, lang)
    entries = _entries(manifest)
    issues = list(sheet.issues)
    header = sheet.header
    name_col = _find_column(header, _NAME_COLUMNS)
    roll_col = _find_column(header, _ROLL_COLUMNS)
    version_col = _find_column(header, _VERSION_COLUMNS)
    if version_col is None:
        issues.append(FileIssue(1, "no 'version' column; students are matched by roll number "
                                   "and name"))
    if name_col is None and roll_col is None and version_col is None:
        issues.append(FileIssue(1, "no 'name', 'roll' or 'version' column; no row can be matched "
                                   "to a student"))

    # Answer columns: Q<number>.<key>, matched without regard to case or spaces.
    columns: dict[str, int] = {}
    wanted: dict[str, None] = {}
    for entry in entries:
        for q in entry.questions:
            for key in q.asked:
                wanted[f"Q{q.number}.{key}"] = None
    folded = {c.casefold(): c for c in wanted}
    known_meta = {i for i in (name_col, roll_col, version_col) if i is not None}
    for index, title in enumerate(header):
        if not title or index in known_meta:
            continue
        canon = folded.get(re.sub(r"\s+", "", title).casefold())
        if canon is None:
            issues.append(FileIssue(1, f"column {_quote(_shorten(title, 40))} is not an answer of "
                                       "this exam; ignored", "note"))
        elif canon in columns:
            issues.append(FileIssue(1, f"column {canon} appears twice; the first one is used"))
        else:
            columns[canon] = index
    for column in wanted:
        if column not in columns:
            issues.append(FileIssue(1, f"column {column} is missing; its answers are "
                                       f"{'left out of the score' if invalid == 'flag' else 'scored 0'}"))

    by_version = {e.version.strip().upper(): e for e in entries if e.version.strip()}
    by_roll: dict[str, list[_Entry]] = {}
    by_name: dict[str, list[_Entry]] = {}
    for e in entries:
        if e.roll.strip():
            by_roll.setdefault(e.roll.strip().casefold(), []).append(e)
        if e.name.strip():
            by_name.setdefault(_person(e.name), []).append(e)

    def cell(row: SheetRow, index: int | None) -> str:
        if index is None or index >= len(row.cells):
            return ""
        return row.cells[index].strip()

    students: list[StudentResult] = []
    unmatched: list[SheetRow] = []
    plans: dict[int, Any] = {}
    for row in sheet.rows:
        if len(row.cells) < len(header):
            issues.append(FileIssue(row.line, f"{len(row.cells)} fields, the header has "
                                              f"{len(header)}; the missing ones are read as blank",
                                    "note"))
        elif len(row.cells) > len(header) and any(c.strip() for c in row.cells[len(header):]):
            issues.append(FileIssue(row.line, f"{len(row.cells)} fields, the header has "
                                              f"{len(header)}; the extra ones were ignored"))
        name, roll, version = cell(row, name_col), cell(row, roll_col), cell(row, version_col)
        who = _quote(_shorten(name or roll or version, 40)) if (name or roll or version) else "row"
        entry: _Entry | None = None
        if version:
            entry = by_version.get(version.upper())
            if entry is None:
                issues.append(FileIssue(row.line, f"unknown version {_quote(_shorten(version, 20))} "
                                                  f"({who}); not graded, kept in unmatched.csv"))
                unmatched.append(row)
                continue
            mismatch = ((roll and entry.roll and roll.casefold() != entry.roll.strip().casefold())
                        or (not roll and name and entry.name
                            and _person(name) != _person(entry.name)))
            if mismatch:
                issues.append(FileIssue(row.line, f"{who} is not the student of version "
                                                  f"{entry.version} in the manifest "
                                                  f"({entry.name or entry.roll or 'anonymous'}); "
                                                  "graded against version "
                                                  f"{entry.version}, check who wrote it"))
        else:
            found = by_roll.get(roll.casefold(), []) if roll else []
            if not found and name and not roll:
                found = by_name.get(_person(name), [])
            if len(found) == 1:
                entry = found[0]
            elif len(found) > 1:
                issues.append(FileIssue(row.line, f"{who} matches {len(found)} students and the "
                                                  "row has no version; not graded, kept in "
                                                  "unmatched.csv"))
                unmatched.append(row)
                continue
            else:
                issues.append(FileIssue(row.line, f"unknown student {who} and no version; not "
                                                  "graded, kept in unmatched.csv"))
                unmatched.append(row)
                continue
        if entry.graded_line is not None:
            issues.append(FileIssue(row.line, f"duplicate of line {entry.graded_line} (version "
                                              f"{entry.version}); line {entry.graded_line} was "
                                              "graded, this row is kept in unmatched.csv"))
            unmatched.append(row)
            continue
        entry.graded_line = row.line
        students.append(_grade_entry(entry, row, columns, sheet.delimiter, invalid, lang,
                                     name, roll, issues, plans))
    return students, issues, unmatched


def _grade_entry(entry: _Entry, row: SheetRow, columns: Mapping[str, int], delimiter: str,
                 invalid: str, lang: str, name: str, roll: str,
                 issues: list[FileIssue],
                 plans: dict[int, tuple[Prepared, str, list[tuple[str, int | None]]]] | None = None
                 ) -> StudentResult:
    cells = row.cells
    width = len(cells)
    plans = {} if plans is None else plans
    questions = []
    for q in entry.questions:
        # Per problem, once per sheet: its title and where each of its answers is.
        plan = plans.get(id(q))
        if plan is None or plan[0] is not q:
            plan = plans[id(q)] = (q, str(q.problem.get("title") or q.cell),
                                   [(key, columns.get(f"Q{q.number}.{key}")) for key in q.asked])
        _, title, where = plan
        texts: dict[str, str | None] = {}
        for key, index in where:
            if index is None:
                texts[key] = None
                continue
            text = cells[index] if index < width else ""
            if delimiter == ";":
                # A semicolon sheet comes from a decimal-comma locale: "0,375" is 0.375 there.
                match = _DECIMAL_COMMA.match(text)
                if match and not _parse_any(text).ok:
                    text = f"{match.group(1)}.{match.group(2)}{match.group(3)}"
            texts[key] = text
        boxes = [_box_result(q, result, invalid) for result in grade_question(q, texts, lang=lang)]
        questions.append(QuestionResult(q.number, q.cell, q.id, title, boxes))
    return StudentResult(name or entry.name, roll or entry.roll, entry.version, row.line,
                         questions, lang)


def _box_result(q: Prepared, result: CheckResult, invalid: str) -> BoxResult:
    """A result with its points; shared by every student whose box has the same result."""
    memo = (id(result), invalid)
    found = q._boxes.get(memo)
    if found is not None and found[0] is result:
        return found[1]
    max_points = q.points[result.key]
    if result.earns:
        points: Fraction | None = max_points
    elif result.status in FLAGGABLE and invalid == "flag":
        points = None
    else:
        points = Fraction(0)
    box = BoxResult(q.number, f"Q{q.number}.{result.key}", result, max_points, points)
    q._boxes[memo] = (result, box)        # holding `result` keeps its id from being reused
    return box


def grade_class(manifest_path: str | os.PathLike[str], answers_path: str | os.PathLike[str],
                out_dir: str | os.PathLike[str], *, invalid: str = "zero", force: bool = False,
                lang: str | None = None, feedback_format: str = "md",
                adjust: Callable[[list[StudentResult], Mapping[str, Any]], list[FileIssue]]
                | None = None) -> GradeSummary:
    """Grade a filled answer sheet against its exam manifest and write the reports.

    Writes ``out_dir/results.csv``, ``out_dir/feedback/<roll or name>.md`` (or ``.html``),
    ``out_dir/report.md`` and, when some rows could not be graded, ``out_dir/unmatched.csv``.
    `invalid` is ``"zero"`` (unreadable or missing answers score 0 and are listed in the
    ``needs_review`` column) or ``"flag"`` (left out of the score and listed). `adjust(students,
    manifest)` may change boxes before anything is written (the teacher's overrides, see
    `quizgen.grade.overrides`) and returns what to report. Inputs are only read; an existing,
    non-empty `out_dir` is refused unless `force`.
    """
    from quizgen.grade import report

    manifest_path, answers_path, out = Path(manifest_path), Path(answers_path), Path(out_dir)
    if feedback_format not in ("md", "html"):
        raise QuizgenError(f"got {feedback_format!r}; expected md or html", field="format")
    if invalid not in ("flag", "zero"):
        raise QuizgenError(f"got {invalid!r}; expected flag or zero", field="invalid")
    _check_out(out, (manifest_path, answers_path), force)
    manifest = _load_manifest(manifest_path)
    sheet = read_answer_sheet(answers_path)
    the_lang = _sheet_lang(manifest, lang)
    with _cyclic_gc_paused():             # rendering the pages makes no cycles either
        students, issues, unmatched = grade_rows(manifest, sheet, invalid=invalid, lang=lang)
        if adjust is not None:
            issues = issues + adjust(students, manifest)
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=out.parent))
        try:
            written = report.write_all(tmp, manifest, sheet, students, issues, unmatched,
                                       invalid=invalid, lang=the_lang, fmt=feedback_format)
            for message in _move_into_place(tmp, out, written):
                warnings.warn(message, stacklevel=2)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    feedback = sorted((out / "feedback").glob(f"*.{feedback_format}"))
    return GradeSummary(out_dir=out, students=students, issues=issues, invalid=invalid,
                        results_csv=out / "results.csv", report=out / "report.md",
                        feedback=feedback,
                        unmatched=(out / "unmatched.csv") if unmatched else None)


#: What `grade_class` writes inside its folder.
OUTPUTS = ("results.csv", "report.md", "feedback", "unmatched.csv", "changes.csv")


def _check_out(out: Path, inputs: Sequence[Path], force: bool) -> None:
    resolved_inputs = {p.resolve() for p in inputs}
    for name in OUTPUTS:
        target = (out / name).resolve()
        for source in resolved_inputs:
            if target == source or target in source.parents:
                raise QuizgenError(f"{out / name} would overwrite the input {source}; choose "
                                   "another --out folder", field="out")
    if out.exists() and not out.is_dir():
        raise QuizgenError(f"{out} exists and is not a folder", field="out")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise QuizgenError(f"{out} already exists and is not empty; pass --force to overwrite "
                           "its results", field="out")
    from quizgen.files import check_folder

    check_folder(out, force=force, own=_graded_earlier)


def _graded_earlier(rel: str, path: Path) -> bool:
    """A file `grade_class` wrote before it kept a ledger of its files."""
    return rel in OUTPUTS or (rel.startswith("feedback/") and rel.count("/") == 1
                              and rel.endswith((".md", ".html")))


def _move_into_place(tmp: Path, out: Path, written: Sequence[str]) -> list[str]:
    """Replace only our own files in `out` (an earlier run's, unchanged); returns what was kept."""
    from quizgen.files import publish_folder

    names = []
    for name in written:
        if (tmp / name).is_dir():
            names += sorted(f"{name}/{p.name}" for p in (tmp / name).iterdir())
        else:
            names.append(name)
    return publish_folder(tmp, out, names, own=_graded_earlier)
