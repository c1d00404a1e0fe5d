"""The family contract: one family per scenario cell, sampling on target, solving with the engine.

A family lists the candidate parameters of each level (`space`), solves them with the engine
(pure arithmetic plus the derivation), *checks* that a candidate really lands in its cell (the
cell's limiter binds, its trap is present) so that only those are used, and declares what its
answers mean (`answer_specs`) and when its remarks apply (`misconception_when`, `trap_when`).
It also models the wrong methods students use (`misconceptions`), which give multiple-choice
distractors and the grader's diagnosis. A family writes no words: its writer
(`quizgen.render.writers`) says the solved problem in a language, from the phrasebook.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Iterable

from quizgen.gpus import GPU
from quizgen.problems.applicability import Facts, Predicate, applies
from quizgen.problems.specs import AnswerSpec

LEVELS = (1, 2, 3)


@dataclass(slots=True)
class Solved:
    """What a family's solver returns: the answers and whatever it needs to write the solution."""

    answers: dict[str, Any]
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class Misconception:
    """A wrong method: its key, and the answers it produces (only keys it changes)."""

    key: str
    answers: dict[str, Any]


class Family:
    """Base class of a problem family. Subclasses set the class attributes and the methods."""

    cell: ClassVar[str]
    topic: ClassVar[str]
    #: the answer key the options and a type-in card ask for; a solver may name another one for
    #: one problem in ``solved.data["main_answer"]`` (a grid smaller than the GPU asks for idle SMs)
    main_answer: ClassVar[str]
    #: answer key → what it means (kind, unit, format, tolerance, what it is computed from);
    #: every answer `solve` can return has one. The record, the cards and the grader read these.
    answer_specs: ClassVar[dict[str, AnswerSpec]] = {}
    #: answer key → unit key and → tolerance, read from `answer_specs` (never written by hand).
    units: ClassVar[dict[str, str]] = {}
    tolerances: ClassVar[dict[str, float]] = {}
    #: misconception key → predicates over the solved problem that must hold for it to be
    #: offered as a distractor or diagnosed (besides changing an answer at all).
    misconception_when: ClassVar[dict[str, tuple[Predicate, ...]]] = {}
    #: predicates over the solved problem that must all hold for the cell's trap to be named in
    #: the solution (a trap that is absent from these numbers is not a trap for this student).
    trap_when: ClassVar[tuple[Predicate, ...]] = ()
    #: Fewer options than this and the problem is not offered as multiple choice (a type-in
    #: card instead): a multiple-choice question always has the right answer and three wrong
    #: ones, each from a named slip (families redraw in `in_cell` to keep that common).
    min_options: ClassVar[int] = 4
    default_gpu: ClassVar[str] = "textbook"
    uses_model: ClassVar[bool] = False
    #: True for a cell whose question may be a launch the GPU refuses (more threads per block
    #: than it allows); every other cell only draws launches the GPU accepts.
    draws_refused_launches: ClassVar[bool] = False
    #: True for a cell whose question tells the chip's schedulers issue one instruction per
    #: cycle from a warp with several independent ones: untrue on a dual-issue SM (cc 3.x to
    #: 6.x), which such a cell does not ask.
    states_single_issue: ClassVar[bool] = False

    def asks_within(self, params: dict[str, Any], gpu: GPU) -> bool:
        """Whether the GPU can be asked this candidate at all: no more registers per thread than
        it allows (63 on cc 2.0 and 3.0; ptxas emits no such kernel), no carveout before cc 7.0,
        and no block over its thread limit unless the cell asks about a refused launch."""
        return self.asker(gpu)(params)

    def asker(self, gpu: GPU) -> Callable[[dict[str, Any]], bool]:
        """`asks_within` for one GPU, as a function of the candidate: what depends on the GPU
        alone is settled once (a pool asks it of every candidate of its space)."""
        if self.states_single_issue and gpu.dual_issue:
            return lambda params: False
        regs = None if gpu.is_textbook else gpu.max_regs_per_thread
        no_carveout = 0 < gpu.cc_major < 7
        limit = None if self.draws_refused_launches else gpu.max_threads_per_block

        def asks(params: dict[str, Any]) -> bool:
            get = params.get
            if regs is not None and (get("regs_per_thread", 0) > regs or get("regs_now", 0) > regs):
                return False
            if no_carveout and get("carveout", -1) != -1:
                return False
            if limit is None:
                return True
            if get("threads_per_block", 0) > limit:
                return False
            shapes = get("blocks")
            if not shapes:
                if "block" not in params:
                    return True
                shapes = (params["block"],)
            return all(not isinstance(b, list) or len(b) != 3 or b[0] * b[1] * b[2] <= limit
                       for b in shapes)

        return asks

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "answer_specs" in cls.__dict__:
            cls.units = {k: s.unit for k, s in cls.answer_specs.items()}
            cls.tolerances = {k: s.tolerance for k, s in cls.answer_specs.items() if s.tolerance}

    def specs_for(self, answers: dict[str, Any]) -> dict[str, AnswerSpec]:
        """The specs of the answers one problem has (some answers exist only on some draws)."""
        specs = self.answer_specs
        return {k: specs[k] for k in answers if k in specs}

    def space(self, level: int, gpu: GPU) -> Iterable[dict[str, Any]]:
        """Every candidate parameter set of this level on `gpu` (filtered by `in_cell` later).

        Keep it to a few thousand candidates: the generator enumerates it once per process,
        keeps the ones that land in the cell, shuffles them with a fixed seed and hands out one
        per seed, so seeds 0…N−1 give N distinct problems.
        """
        raise NotImplementedError

    def gpu_choices(self, level: int) -> tuple[str, ...]:
        """The GPUs this level draws from when the user asks for none."""
        return (self.default_gpu,)

    def solve(self, params: dict[str, Any], gpu: GPU, explain: bool = True) -> Solved:
        raise NotImplementedError

    def in_cell(self, params: dict[str, Any], gpu: GPU, solved: Solved) -> bool:
        """The cell's defining property; a draw that fails it is redrawn."""
        return True

    def context(self, params: dict[str, Any], gpu: GPU, solved: Solved) -> dict[str, Any]:
        """The numbers the cell's phrases may name: the parameters, the answers, the solver's
        ``solved.data["ctx"]``, the GPU (``gpu``) and the level-3 ask (``ask``, empty if none)."""
        return {"params": params, "gpu": gpu.to_dict(), "ask": "", **params, **solved.answers,
                **solved.data.get("ctx", {})}

    def misconceptions(self, params: dict[str, Any], gpu: GPU, solved: Solved) -> list[Misconception]:
        return []

    def applicable_misconceptions(self, params: dict[str, Any], gpu: GPU,
                                  solved: Solved) -> list[Misconception]:
        """The wrong methods that apply to this problem, best first: each changes an answer and
        its declared predicates hold (what distractors and the grader's diagnosis use)."""
        miscs = self.misconceptions(params, gpu, solved)
        when = self.misconception_when
        if not when:
            return miscs
        facts = Facts(params, gpu, solved)
        return [m for m in miscs if applies(when, facts, m)]

    def trap_applies(self, params: dict[str, Any], gpu: GPU, solved: Solved) -> bool:
        """Whether the cell's trap is present in this problem (every `trap_when` predicate holds;
        predicates receive None for the misconception argument)."""
        if not self.trap_when:
            return True
        facts = Facts(params, gpu, solved)
        return all(p(facts, None) for p in self.trap_when)

    def figure(self, params: dict[str, Any], gpu: GPU, solved: Solved) -> dict[str, Any] | None:
        return None

    def model_for(self, gpu: GPU) -> str | None:
        return gpu.default_model if self.uses_model else None


#: `json.dumps(value, sort_keys=True, separators=(",", ":"))`, its encoder made once.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"))


def canonical_json(value: Any) -> str:
    """The canonical JSON of a value: sorted keys, no spaces, ASCII (the same on every machine)."""
    return _CANONICAL.encode(value)


def problem_id(cell: str, params: dict[str, Any], gpu: GPU | str, seed: int, level: int) -> str:
    """Stable id from cell + parameters + GPU + seed (same inputs, same id, on every machine):
    a hash of the canonical JSON of {cell, gpu, level, params, seed}. `gpu` is the GPU or the
    name its identity carries (`quizgen.problems.identity.identity_gpu`)."""
    name = gpu if isinstance(gpu, str) else gpu.name
    key = canonical_json({"cell": cell, "gpu": name, "level": level, "params": params,
                          "seed": seed})
    return f"{cell}-{hashlib.blake2b(key.encode(), digest_size=5).hexdigest()}"


def rng_for(cell: str, level: int, seed: int) -> random.Random:
    digest = hashlib.blake2b(f"{cell}|{level}|{seed}".encode(), digest_size=8).digest()
    return random.Random(int.from_bytes(digest, "big"))


def distinct_wrong(correct: Any, candidates: list[Misconception], key: str) -> list[Misconception]:
    """Misconceptions whose answer for `key` differs from the right one and from each other."""
    seen = {_norm(correct)}
    out = []
    for m in candidates:
        answers = m.answers
        if key not in answers:
            continue
        value = answers[key]
        if value.__class__ is float:
            value = round(value, 6)
        elif value.__class__ is not int:
            value = _norm(value)
        if value in seen:
            continue
        seen.add(value)
        out.append(m)
    return out


def _norm(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 6)
    if isinstance(value, list):
        return tuple(value)
    return value
