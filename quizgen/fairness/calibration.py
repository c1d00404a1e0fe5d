"""The calibration file: what ``quizgen grade`` keeps of a graded class for fitting, and what
``quizgen sheet --calibrate`` reads (one or more of them, of the same recipe).

``calibration.json`` holds, per student, the points counted and, per question, the version's
features (`quizgen.fairness.features`) and each box's points and whether it earned them: no
name, roll or answer text. Beside them it names the recipe's questions (a fingerprint: cells,
levels, points, boxes and GPUs; another recipe's calibration is refused) and carries a checksum
of its body (a file edited by hand, or cut short, is refused rather than fitted).

    write_calibration(path, recipe, papers)        # quizgen grade
    read_calibrations([folder_or_file, ...], recipe)   # quizgen sheet --calibrate
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from quizgen.errors import QuizgenError
from quizgen.fairness.features import FEATURES_VERSION
from quizgen.fairness.model import PaperRecord, QuestionRecord

#: What ``quizgen grade`` writes beside results.csv, and what `format` says inside it.
CALIBRATION_FILE = "calibration.json"
CALIBRATION_FORMAT = "quizgen-calibration"
#: A calibration is read only up to this size (a class of 5,000 students is about 8 MB).
MAX_BYTES = 64 * 1024 * 1024


def recipe_fingerprint(recipe: Mapping[str, Any]) -> str:
    """What makes two exams the same for a calibration: each question's cells, level, points,
    boxes and GPUs (not the title, date, seed or language: next term's exam with new numbers is
    the same exam)."""
    questions = []
    for item in recipe.get("questions") or []:
        if isinstance(item, Mapping):
            questions.append({k: item.get(k) for k in ("cell", "level", "points", "answers", "gpu")})
    text = json.dumps({"questions": questions, "gpu": recipe.get("gpu")}, sort_keys=True,
                      ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:16]


def _head(recipe: Mapping[str, Any]) -> dict[str, Any]:
    return {"format": CALIBRATION_FORMAT, "features_version": FEATURES_VERSION,
            "recipe": recipe_fingerprint(recipe), "title": str(recipe.get("title") or "")}


def _paper(p: PaperRecord) -> dict[str, Any]:
    return {"score": round(float(p.score), 6),
            "questions": [{"number": q.number, "features": q.features,
                           "boxes": [[k, float(pts), r] for k, pts, r in q.boxes]}
                          for q in p.questions]}


def _json(value: Any, ascii: bool) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=ascii, separators=(",", ":"))


def _pieces(head: Mapping[str, Any], papers: Sequence[PaperRecord], ascii: bool) -> Iterator[str]:
    """The JSON text of `head` with its ``papers``, a paper at a time (sorted keys, no spaces):
    the same text as the whole object's, never held whole."""
    before, after = _json({**head, "papers": []}, ascii).split('"papers":[]', 1)
    yield before + '"papers":['
    for i, paper in enumerate(papers):
        yield ("," if i else "") + _json(_paper(paper), ascii)
    yield "]" + after


def _checksum(body: Mapping[str, Any]) -> str:
    return hashlib.sha256(_json(body, True).encode("ascii")).hexdigest()


def _papers_checksum(head: Mapping[str, Any], papers: Sequence[PaperRecord]) -> str:
    """`_checksum` of the body `head` with `papers`, hashed a paper at a time."""
    digest = hashlib.sha256()
    for piece in _pieces(head, papers, True):
        digest.update(piece.encode("ascii"))
    return digest.hexdigest()


def calibration_pieces(recipe: Mapping[str, Any], papers: Sequence[PaperRecord]) -> Iterator[str]:
    """The calibration file's text, a paper at a time: its body and the body's checksum
    (sorted keys, no time: the same class gives the same bytes)."""
    head = _head(recipe)
    yield from _pieces({**head, "checksum": _papers_checksum(head, papers)}, papers, False)
    yield "\n"


def calibration_json(recipe: Mapping[str, Any], papers: Sequence[PaperRecord]) -> str:
    """The calibration file's text (see `calibration_pieces`)."""
    return "".join(calibration_pieces(recipe, papers))


def write_calibration(path: str | os.PathLike[str], recipe: Mapping[str, Any],
                      papers: Sequence[PaperRecord]) -> None:
    """Write the calibration file, a paper at a time."""
    with open(path, "w", encoding="utf-8") as fh:
        for piece in calibration_pieces(recipe, papers):
            fh.write(piece)


def read_calibrations(sources: Iterable[str | os.PathLike[str]],
                      recipe: Mapping[str, Any]) -> list[list[PaperRecord]]:
    """The graded classes of calibration files (or of graded folders holding one), each checked:
    written by quizgen grade, whole and unedited, and of `recipe`'s questions. Anything else is
    one `QuizgenError` line naming the source."""
    wanted = recipe_fingerprint(recipe)
    classes = []
    for source in sources:
        path = _calibration_path(Path(source))
        data = _load(path)
        if data.get("recipe") != wanted:
            title = data.get("title") or "another exam"
            raise QuizgenError(f"{path} is the calibration of another recipe ({title!r}: its "
                               "questions differ from this exam's); calibrate with classes of "
                               "the same questions", field="calibrate")
        classes.append(_papers(data, path))
    if not classes:
        raise QuizgenError("no calibration given", field="calibrate")
    return classes


def calibrate(sources: Iterable[str | os.PathLike[str]], recipe: Mapping[str, Any]):
    """The `ExamModel` fitted on the graded classes of these calibrations (see
    `read_calibrations`), and the `ExamFit` it came from; needs the ``stats`` extra."""
    classes = read_calibrations(sources, recipe)
    try:
        from quizgen.fairness.fit import fit_exam
    except ImportError:
        raise QuizgenError("fitting a calibration needs quizgen's stats extra: pip install "
                           "'quizgen[stats]'", field="calibrate") from None
    fit = fit_exam(classes)
    return fit.model, fit


def _calibration_path(source: Path) -> Path:
    if source.is_dir():
        path = source / CALIBRATION_FILE
        if not path.is_file():
            raise QuizgenError(f"{source} holds no {CALIBRATION_FILE}; give a folder written by "
                               "quizgen grade, or its calibration file", field="calibrate")
        return path
    if not source.is_file():
        raise QuizgenError(f"{source} does not exist", field="calibrate")
    return source


def _load(path: Path) -> dict[str, Any]:
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise QuizgenError(f"{path} is larger than a calibration can be "
                               f"({size:,} bytes)", field="calibrate")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise QuizgenError(f"{path} cannot be read ({exc})", field="calibrate") from None
    from quizgen.manifest import load_json

    if not text.strip():
        raise QuizgenError(f"{path} is empty; grade the class again to write its calibration",
                           field="calibrate")
    data = load_json(text, str(path), "calibrate", noun="a calibration file")
    if not isinstance(data, dict) or data.get("format") != CALIBRATION_FORMAT:
        raise QuizgenError(f"{path} is not a calibration written by quizgen grade",
                           field="calibrate")
    body = {k: v for k, v in data.items() if k != "checksum"}
    if data.get("checksum") != _checksum(body):
        raise QuizgenError(f"{path} was changed after quizgen grade wrote it (its checksum does "
                           "not match); grade the class again to write it afresh", field="calibrate")
    if data.get("features_version") != FEATURES_VERSION:
        raise QuizgenError(f"{path} records other features (version "
                           f"{data.get('features_version')!r}); grade the class again with this "
                           "quizgen", field="calibrate")
    return data


def _papers(data: Mapping[str, Any], path: Path) -> list[PaperRecord]:
    papers = data.get("papers")
    if not isinstance(papers, list) or not papers:
        raise QuizgenError(f"{path} holds no graded papers", field="calibrate")
    try:
        return [PaperRecord(float(p["score"]),
                            [QuestionRecord(int(q["number"]), dict(q["features"]),
                                            [(str(k), float(pts), None if r is None else bool(r))
                                             for k, pts, r in q["boxes"]])
                             for q in p["questions"]])
                for p in papers]
    except (KeyError, TypeError, ValueError) as exc:
        raise QuizgenError(f"{path} holds a paper quizgen cannot read ({exc})",
                           field="calibrate") from None
