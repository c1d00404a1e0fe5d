"""What grading remembers, in one kind of table.

A class writes the same few texts ("8", "25%", "registers") against the same few problems, so
the grader remembers what it has worked out, keyed by what it was worked out from. Tables of
the same `Memo` kind: `SHARED`, for what holds across problems (comparisons), `PROBLEMS` (the
families' view of a problem), `SAME` (results equal to one made before), and `GRADING`, where
every prepared problem keeps what grading its students' texts works out (`Prepared.memo`, a
`ProblemMemo`: boxes read and compared, results, diagnoses, carries), all problems together in
one bound. Each key starts with the name of what is remembered. A result never depends on what
is remembered (`tests/test_grader.py` grades a class both ways).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Mapping
from typing import Any, TypeVar

T = TypeVar("T")

_MISSING = object()


class Memo:
    """A bounded table from keys to values worked out once.

    It holds two generations: values are remembered in the young one; when it holds `limit`,
    it becomes the old one (the old one before it goes) and a new young one starts. A value
    found in the old generation moves back into the young one, so what is asked for again and
    again stays while what was asked once goes: at most 2 × `limit` values are held."""

    __slots__ = ("table", "old", "limit")

    def __init__(self, limit: int = 1 << 16) -> None:
        self.table: dict[Hashable, Any] = {}
        self.old: dict[Hashable, Any] = {}
        self.limit = limit

    def _find(self, key: Hashable) -> Any:
        found = self.table.get(key, _MISSING)
        if found is _MISSING:
            found = self.old.pop(key, _MISSING)
            if found is not _MISSING:
                self._keep(key, found)
        return found

    def _keep(self, key: Hashable, value: Any) -> None:
        if len(self.table) >= self.limit:
            self.old, self.table = self.table, {}
        self.table[key] = value

    def __call__(self, key: Hashable, work: Callable[..., T], *args: Any) -> T:
        """`work(*args)`, remembered under `key`."""
        found = self._find(key)
        if found is _MISSING:
            found = work(*args)
            self._keep(key, found)
        return found

    def holding(self, key: Hashable, held: Any, work: Callable[..., T], *args: Any,
                **kwargs: Any) -> T:
        """`work(*args, **kwargs)`, remembered under a `key` that names `held` by its id; the
        table keeps `held` beside the value, so that its id cannot be reused meanwhile."""
        found = self._find(key)
        if found is not _MISSING and found[0] is held:
            return found[1]
        value = work(*args, **kwargs)
        self._keep(key, (held, value))
        return value

    def clear(self) -> None:
        self.table.clear()
        self.old.clear()

    def __len__(self) -> int:
        return len(self.table) + len(self.old)


def frozen(value: Any) -> Any:
    """A JSON value as a hashable one (objects as sorted pairs, lists as tuples)."""
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), frozen(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(frozen(v) for v in value)
    return value


#: What the prepared problems remember (`Prepared.memo`), all of them together: each generation
#: holds at most this many values, whatever the number of problems or students. A class fills it
#: within its first few hundred papers (a paper of eight questions leaves up to a hundred values),
#: and from then on grading holds no more however large the class: what the recent papers' texts
#: worked out stays (a version's problems meet their next student within a few dozen papers),
#: the rest goes.
GRADING_LIMIT = 1 << 15

#: What holds across problems: comparisons of a read answer with a value, the texts of values.
SHARED = Memo(1 << 15)
#: Each problem's solution and misconception models, shared by every student who has that
#: problem: a class graded paper by paper needs only the latest papers' (each version its own
#: problems, the table starts again after this many).
PROBLEMS = Memo(limit=512)
#: Results (and points) equal to one made before, for any problem: a class of thousands writes
#: the same few answers and keeps every student's results, each equal one once.
SAME = Memo(1 << 15)
#: What every prepared problem remembers, in one table (see `ProblemMemo`).
GRADING = Memo(GRADING_LIMIT)

_problems = itertools.count()


class ProblemMemo:
    """One prepared problem's part of `GRADING`: its keys, kept apart from every other
    problem's by a number of its own. Called as a `Memo` is."""

    __slots__ = ("number",)

    def __init__(self) -> None:
        self.number = next(_problems)

    def __call__(self, key: tuple, work: Callable[..., T], *args: Any) -> T:
        return GRADING((self.number, *key), work, *args)

    def holding(self, key: tuple, held: Any, work: Callable[..., T], *args: Any,
                **kwargs: Any) -> T:
        return GRADING.holding((self.number, *key), held, work, *args, **kwargs)


def same(value: T) -> T:
    """`value`, or the equal one made before (`SAME`; a value that cannot be a key is itself)."""
    try:
        return SAME(value, _itself, value)
    except TypeError:
        return value


def _itself(value: T) -> T:
    return value


def clear_caches() -> None:
    """Forget what grading remembers between calls (texts read, comparisons, the families'
    solutions), e.g. to time a cold run. Results never depend on it."""
    from quizgen.grade.parse import clear_cache

    clear_cache()
    SHARED.clear()
    PROBLEMS.clear()
    SAME.clear()
    GRADING.clear()
