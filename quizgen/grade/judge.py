"""Judging one answer box: read what the student wrote and compare it with the expected value.

Stages 1 and 2 of grading. A number goes through the whitelist reader (`parse_answer`: nothing
a student typed is run) and `compare`, by the answer's kind, unit and tolerance; a limiter list,
a yes/no, coordinates and a named option have their own small readers here. Unreadable text is
*invalid*, an empty box *blank*, a box with no column in the sheet *missing*.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from fractions import Fraction
from typing import Any

from quizgen.grade.compare import DEFAULT_TOLERANCE, Verdict, compare
from quizgen.grade.memo import SHARED
from quizgen.grade.notes import Note, note, word
from quizgen.grade.parse import Parsed, parse_answer
from quizgen.grade.prepared import Prepared
from quizgen.grade.results import Status, as_fraction, quote, shorten
from quizgen.problems.specs import NUMERIC_KINDS

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


def _read_limits(text: str) -> tuple[frozenset[str] | None, Note | None]:
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
            return None, note("not_a_limit", text=quote(shorten(part, 30)))
        found.add(name)
    if not found:
        return None, note("no_limit")
    return frozenset(found), None


def _read_tuple(text: str, size: int) -> tuple[tuple[Fraction, ...] | None, Note | str | None]:
    """Coordinates such as ``(6, 0, 2)``, ``6,0,2`` or ``6 0 2``."""
    inner = text.strip().strip("()[]{}⟨⟩<> ")
    parts = [p for p in re.split(r"[,;\s]+", inner) if p]
    if len(parts) != size:
        return None, note("coords_count", size=size, read=len(parts))
    out = []
    for part in parts:
        parsed = _parse(part)
        if not parsed.ok or parsed.value is None:
            return None, parsed.error
        out.append(parsed.value)
    return tuple(out), None


@cache
def _yes_no_words() -> tuple[frozenset[str], frozenset[str]]:
    """The words read as yes and as no: the usual ones, and each language's own (its
    ``[answer_word]`` yes and no, as the key prints them)."""
    from quizgen.languages import LANGS
    from quizgen.render.phrases import book

    words = [book(lang).get("answer_word", {}) for lang in LANGS]
    return (_YES | {_norm_text(w["yes"]) for w in words if "yes" in w},
            _NO | {_norm_text(w["no"]) for w in words if "no" in w})


def read_bool(text: str) -> bool | None:
    """A yes/no answer as a bool (None: neither)."""
    word = _norm_text(text)
    yes, no = _yes_no_words()
    return True if word in yes else False if word in no else None


# `parse_answer` remembers the texts it has read (a class writes "8" and "25%" many times).
_parse = parse_answer


def compared(parsed: Parsed, expected: Any, *, kind: str, tolerance: Any = None,
             unit: str | None = None) -> Verdict:
    """`compare`, remembered across problems: a class's texts meet the same few expected
    values again and again. The same arguments always give the same verdict."""
    try:
        key = ("compare", id(parsed), type(expected), expected, kind, type(tolerance), tolerance,
               unit)
        return SHARED.holding(key, parsed, compare, parsed, expected, kind=kind,
                              tolerance=tolerance, unit=unit)
    except TypeError:                   # an argument that cannot be remembered
        return compare(parsed, expected, kind=kind, tolerance=tolerance, unit=unit)


@dataclass(slots=True)
class Box:
    key: str
    raw: str | None
    status: Status
    value: Fraction | None = None
    note: Note | str | None = None        # phrase [grade_note], or the reader's error
    parsed: Parsed | None = None
    text_value: Any = None                  # a limiter set, a tuple, a bool, a choice's value
    misconceptions: tuple[str, ...] = ()
    explanation: str | None = None
    carried: str | None = None
    step: int | None = None
    step_title: str | None = None
    step_result: str | None = None
    memo: tuple[str, str | None] | None = None   # (key, text) when its reading is remembered

    def copy(self) -> Box:
        return Box(self.key, self.raw, self.status, self.value, self.note, self.parsed,
                   self.text_value, self.misconceptions, self.explanation, self.carried,
                   self.step, self.step_title, self.step_result, self.memo)

#: Longest answer text whose verdict a `Prepared` remembers (longer ones are judged each time).
MEMO_CHARS = 256


def judged(q: Prepared, key: str, raw: str | None) -> Box:
    """`_judge`, remembered per (key, text): the same text always reads and compares the same.

    The box returned is shared; stages 3 and 4 change only wrong boxes, on a copy.
    """
    if raw is not None and (type(raw) is not str or len(raw) > MEMO_CHARS):
        return _judge(q, key, raw)
    return q.memo(("judged", key, raw), _judge_kept, q, key, raw)


def _judge_kept(q: Prepared, key: str, raw: str | None) -> Box:
    box = _judge(q, key, raw)
    box.memo = (key, raw)
    return box


def _judge(q: Prepared, key: str, raw: str | None) -> Box:
    """Stages 1 and 2: read and compare against the expected value."""
    if raw is None:
        return Box(key, None, "missing", note=note("no_column"))
    text = raw if isinstance(raw, str) else str(raw)
    if not text.strip():
        return Box(key, text, "blank")
    expected = q.answers[key]
    exact = q.expected[key]
    kind = q.kind[key]
    if kind in NUMERIC_KINDS:
        if exact is None:
            return Box(key, text, "invalid", note=note("not_gradable"))
        parsed = _parse(text)
        verdict = compared(parsed, exact, kind=q.kind[key], tolerance=q.tolerance[key],
                           unit=q.unit_word(key))
        box = Box(key, text, verdict.status, verdict.value_used, verdict.note, parsed)
        if verdict.status == "correct" and verdict.value_used != exact:
            _nearer_trap(q, box, exact)
        return box
    if kind == "yes_no" and isinstance(expected, bool):
        got = read_bool(text)
        if got is None:
            return Box(key, text, "invalid", note=note("not_yes_no", text=quote(shorten(text, 30))))
        return Box(key, text, "correct" if got == expected else "wrong", text_value=got)
    if kind == "limits" and isinstance(expected, list) and all(isinstance(v, str) for v in expected):
        names, error = _read_limits(text)
        if names is None:
            return Box(key, text, "invalid", note=error)
        want = frozenset(expected)
        if names == want:
            return Box(key, text, "correct", text_value=names)
        remark = None
        missing = sorted(want - names)
        extra = sorted(names - want)
        if missing and not extra:
            remark = note("also_binding", limits=_limit_names(missing))
        elif extra:
            remark = note("does_not_bind", limits=_limit_names(extra))
        return Box(key, text, "wrong", note=remark, text_value=names)
    if kind == "coords" and isinstance(expected, list) and all(as_fraction(v) is not None
                                                                for v in expected):
        values, error = _read_tuple(text, len(expected))
        if values is None:
            return Box(key, text, "invalid", note=error)
        want_t = tuple(as_fraction(v) for v in expected)
        tol = q.tolerance[key] or DEFAULT_TOLERANCE["count"]
        ok = all(abs(a - b) <= tol for a, b in zip(values, want_t))
        return Box(key, text, "correct" if ok else "wrong", text_value=values)
    if kind == "choice" and isinstance(expected, str):
        return _judge_text(q, key, text, expected)
    return Box(key, text, "invalid", note=note("not_gradable"))


def _limit_names(limits: list[str]) -> tuple[Note, ...]:
    """Limits named as the key prints them."""
    return tuple(word("answer_word", limit) for limit in limits)


def _nearer_trap(q: Prepared, box: Box, exact: Fraction) -> None:
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
                compared(box.parsed, trap, kind=kind, tolerance=tol / 10,
                         unit=q.unit_word(key)).status == "correct":
            hits.append(name)
    if hits:
        box.status = "wrong"
        box.misconceptions = tuple(hits)
        box.note = note("nearer_trap")


def same_number(q: Prepared, box: Box, exact: Fraction) -> bool:
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
            return box.parsed is None or box.parsed.unit is None or compared(
                box.parsed, exact, kind=kind, tolerance=q.tolerance[box.key],
                unit=q.unit_word(box.key)).status == "correct"
        if kind not in ("fraction", "percent") or box.parsed is None or box.parsed.unit:
            return False
    # "25" read as 25% (or 0.25 as 25 %) depends on the value compared with: ask compare.
    return box.parsed is not None and compared(
        box.parsed, exact, kind=kind, tolerance=q.tolerance[box.key],
        unit=q.unit_word(box.key)).status == "correct"


def same(q: Prepared, box: Box, value: Any) -> bool:
    """Whether the student's answer equals `value` by the rules of its answer key."""
    if box.parsed is not None:
        exact = as_fraction(value)
        return exact is not None and same_number(q, box, exact)
    got = box.text_value
    if got is None:
        return False
    if isinstance(value, bool):
        return got is value
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return got == frozenset(value)
    if isinstance(value, list):
        want = tuple(as_fraction(v) for v in value)
        return None not in want and got == want
    if isinstance(value, str):
        return got == value
    return False


def _judge_text(q: Prepared, key: str, text: str, expected: str) -> Box:
    """A named answer (a concept card's option): its key, or the option's text."""
    said = _norm_text(text)
    choices = q.problem.get("choices") or []
    if said in (_norm_text(expected), _norm_text(expected.replace("-", " "))):
        return Box(key, text, "correct", text_value=expected)
    for choice in choices:
        if not isinstance(choice, Mapping):
            continue
        names = {_norm_text(str(choice.get("text", ""))), _norm_text(str(choice.get("value", "")))}
        if said in names:
            if choice.get("value") == expected or choice.get("correct"):
                return Box(key, text, "correct", text_value=expected)
            misc = choice.get("misconception")
            return Box(key, text, "wrong", text_value=choice.get("value"),
                        misconceptions=(str(misc),) if misc else (),
                        explanation=str(choice.get("why") or "") or None)
    names = ", ".join(str(c.get("value")) for c in choices if isinstance(c, Mapping))
    return Box(key, text, "invalid", note=note("not_an_option_of" if names else "not_an_option",
                                               options=names))
