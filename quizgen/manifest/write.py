"""Writing an exam manifest: each student's paper as the sheet drew it, and the file itself,
written student by student (a class of thousands never sits in memory whole) with sorted keys and
no timestamps: the same exam gives the same bytes.

The head (the recipe, the paper, the scan layout) is indented for a reader; each student's paper
is one line of compact JSON. A paper is mostly its worked solutions and the centre of every
bubble, nested five deep: indented, the packaged midterm's took 190 KB a student, on one line it
takes 69 KB, and the file is read and parsed in about two thirds of the time. The value is the
same JSON either way, so a manifest written indented reads as before."""

from __future__ import annotations

import json
from typing import IO, Any, Iterable

from quizgen.fairness.features import variant_features
from quizgen.manifest.record import Manifest, StudentPaper


def manifest_json(manifest: Manifest) -> str:
    """The whole manifest as ``manifest.json`` holds it."""
    data = manifest.to_dict()
    papers = data.pop("students")
    if not papers:
        return _dumps({**data, "students": []}) + "\n"
    before, after = _around_papers(data)
    return (before + "\n" + ",\n".join(_paper_line(paper) for paper in papers)
            + "\n" + after + "\n")


def _dumps(data: Any) -> str:
    return json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False)


def _paper_line(paper: dict[str, Any]) -> str:
    """One paper as the file holds it: compact JSON on one line, indented into the list."""
    return "    " + json.dumps(paper, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _around_papers(head: dict[str, Any]) -> tuple[str, str]:
    """The file's text before its first paper and after its last (``students`` sorts last of
    the keys)."""
    before, after = _dumps({**head, "students": [None]}).split("\n    null\n")
    return before, after


def drawn_paper(student: Any, code: str, questions: Iterable[tuple[int, Any, Any, list[str]]],
                predicted: dict[str, Any] | None = None) -> StudentPaper:
    """One student's paper as the sheet drew it: `student` (a roster `Student`), its version
    code, and its questions in the printed order as (number, the recipe's `ExamQuestion`, the
    `Problem`, the answer keys asked); each question with its variant features
    (`quizgen.fairness.features`), the paper with its `predicted` difficulty."""
    records = []
    for number, spec, problem, asked in questions:
        record = problem.to_dict()
        record["number"] = number
        record["points"] = dict(spec.points) if isinstance(spec.points, dict) else spec.points
        record["asked"] = list(asked)
        record["tolerances"] = {key: float(problem.tolerances.get(key, 0.0)) for key in asked}
        record["features"] = variant_features(record)
        records.append(record)
    numbers = [record["number"] for record in records]
    shuffled = len(records) > 1 and numbers != sorted(numbers)
    return StudentPaper(student.name, student.roll, code, records,
                        order=numbers if shuffled else None, predicted=predicted)


class ManifestWriter:
    """A manifest written paper by paper into `fh`: byte for byte what `manifest_json` gives for
    `head` with those papers as its students (``students`` sorts last of the keys)."""

    def __init__(self, fh: IO[str], head: Manifest) -> None:
        data = head.to_dict()
        if head.students or any(key > "students" for key in data):
            raise AssertionError("a manifest's head holds no students, and they are its last key")
        self.fh = fh
        del data["students"]
        self.before, self.after = _around_papers(data)
        self.count = 0

    def add(self, paper: StudentPaper) -> None:
        self.fh.write((self.before + "\n" if self.count == 0 else ",\n")
                      + _paper_line(paper.to_dict()))
        self.count += 1

    def close(self) -> None:
        if self.count == 0:
            raise AssertionError("a manifest without students")
        self.fh.write("\n" + self.after + "\n")
