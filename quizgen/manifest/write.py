"""Writing an exam manifest: each student's paper as the sheet drew it, and the file itself,
written student by student (a class of thousands never sits in memory whole) with sorted keys,
two-space indents and no timestamps: the same exam gives the same bytes."""

from __future__ import annotations

import json
from typing import IO, Any, Iterable

from quizgen.manifest.record import Manifest, StudentPaper


def manifest_json(manifest: Manifest) -> str:
    """The whole manifest as ``manifest.json`` holds it."""
    return _dumps(manifest.to_dict()) + "\n"


def _dumps(data: Any) -> str:
    return json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False)


def drawn_paper(student: Any, code: str, questions: Iterable[tuple[int, Any, Any, list[str]]]
                ) -> StudentPaper:
    """One student's paper as the sheet drew it: `student` (a roster `Student`), its version
    code, and its questions in the printed order as (number, the recipe's `ExamQuestion`, the
    `Problem`, the answer keys asked)."""
    records = []
    for number, spec, problem, asked in questions:
        record = problem.to_dict()
        record["number"] = number
        record["points"] = dict(spec.points) if isinstance(spec.points, dict) else spec.points
        record["asked"] = list(asked)
        record["tolerances"] = {key: float(problem.tolerances.get(key, 0.0)) for key in asked}
        records.append(record)
    numbers = [record["number"] for record in records]
    shuffled = len(records) > 1 and numbers != sorted(numbers)
    return StudentPaper(student.name, student.roll, code, records,
                        order=numbers if shuffled else None)


class ManifestWriter:
    """A manifest written paper by paper into `fh`: byte for byte what `manifest_json` gives for
    `head` with those papers as its students (``students`` sorts last of the keys)."""

    def __init__(self, fh: IO[str], head: Manifest) -> None:
        data = head.to_dict()
        if head.students or any(key > "students" for key in data):
            raise AssertionError("a manifest's head holds no students, and they are its last key")
        self.fh = fh
        self.before, self.after = _dumps({**data, "students": [None]}).split("\n    null\n")
        self.count = 0

    def add(self, paper: StudentPaper) -> None:
        text = _dumps(paper.to_dict())
        self.fh.write((self.before + "\n" if self.count == 0 else ",\n")
                      + "    " + text.replace("\n", "\n    "))
        self.count += 1

    def close(self) -> None:
        if self.count == 0:
            raise AssertionError("a manifest without students")
        self.fh.write("\n" + self.after + "\n")
