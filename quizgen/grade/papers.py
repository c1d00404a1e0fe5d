"""A graded class's papers, held compactly, so that what grading keeps grows by a few hundred
bytes a student, not by the objects of every student's every answer box.

A class writes the same few answers to the same few problems: its boxes' results are few. Each
is kept once, in a table of the distinct results, and each paper keeps only numbers into it (an
array, not a list of objects), with the questions it had as numbers into a table of the
distinct questions (number, cell, problem, title). A `StudentResult` is made afresh each time
one is asked for, and let go when its reader is done with it.

    papers = GradedPapers()
    papers.add(student)           # a StudentResult, as graded (and the teacher's overrides)
    papers[0].questions[0].boxes  # a new StudentResult, equal to the one added
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import overload

from quizgen.grade.results import BoxResult, QuestionResult, StudentResult

__all__ = ["GradedPapers"]


class GradedPapers(Sequence[StudentResult]):
    """Graded papers in the order added, each made into a `StudentResult` when asked for."""

    def __init__(self, students: Iterable[StudentResult] = ()) -> None:
        self._boxes: list[BoxResult] = []                    # the distinct results
        self._box_ids: dict[int, int] = {}                   # id(result) → its number
        self._box_values: dict[BoxResult, int] = {}          # an equal result → its number
        self._questions: list[tuple[int, str, str, str, int]] = []   # … and its boxes' count
        self._question_ids: dict[tuple[int, str, str, str, int], int] = {}
        self._who: list[tuple[str, str, str, str]] = []      # name, roll, version, language
        self._lines = array("q")
        self._first_question = array("Q", [0])               # per paper, then the end
        self._first_box = array("Q", [0])
        self._question_of = array("I")                       # per question of every paper
        self._box_of = array("I")                            # per box of every paper
        for student in students:
            self.add(student)

    def add(self, student: StudentResult) -> None:
        """Keep one graded paper (its results as they are now)."""
        for q in student.questions:
            self._question_of.append(self._question_number(q))
            for box in q.boxes:
                self._box_of.append(self._box_number(box))
        self._who.append((student.name, student.roll, student.version, student.lang))
        self._lines.append(student.line)
        self._first_question.append(len(self._question_of))
        self._first_box.append(len(self._box_of))

    def _question_number(self, q: QuestionResult) -> int:
        key = (q.number, q.cell, q.problem_id, q.title, len(q.boxes))
        found = self._question_ids.get(key)
        if found is None:
            found = self._question_ids[key] = len(self._questions)
            self._questions.append(key)
        return found

    def _box_number(self, box: BoxResult) -> int:
        # by identity first (results are shared between papers), then by value; an identity is
        # remembered only of a result the table holds, whose id no other object can take
        found = self._box_ids.get(id(box))
        if found is not None:
            return found
        try:
            found = self._box_values.get(box)
        except TypeError:                # a result that cannot be a key (a list answer)
            found = None
        if found is not None:
            return found
        found = len(self._boxes)
        self._boxes.append(box)
        self._box_ids[id(box)] = found
        try:
            self._box_values[box] = found
        except TypeError:
            pass
        return found

    def __len__(self) -> int:
        return len(self._who)

    @overload
    def __getitem__(self, index: int) -> StudentResult: ...

    @overload
    def __getitem__(self, index: slice) -> list[StudentResult]: ...

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self._student(i) for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("paper index out of range")
        return self._student(index)

    def __iter__(self) -> Iterator[StudentResult]:
        for index in range(len(self)):
            yield self._student(index)

    def _student(self, index: int) -> StudentResult:
        name, roll, version, lang = self._who[index]
        boxes, table = self._box_of, self._boxes
        at = self._first_box[index]
        questions = []
        for j in self._question_of[self._first_question[index]:self._first_question[index + 1]]:
            number, cell, problem_id, title, count = self._questions[j]
            questions.append(QuestionResult(number, cell, problem_id, title,
                                            [table[k] for k in boxes[at:at + count]]))
            at += count
        return StudentResult(name, roll, version, self._lines[index], questions, lang)
