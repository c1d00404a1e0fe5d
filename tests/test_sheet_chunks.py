"""Exams built in chunks: each chunk compiled by Typst in its own process, the PDFs joined, the
manifest streamed. The joined build must equal the one-document build page for page."""

from __future__ import annotations

import json

import pypdf
import pytest

from quizgen.export import sheet
from quizgen.export.pdfjoin import join_pdfs
from quizgen.export.sheet import build_exam, plan_exam
from quizgen.recipes import Student, parse_exam_recipe

from test_sheet import RECIPE, _bookmarks, _pages, occupancy_problem


SMALL = parse_exam_recipe({**RECIPE, "questions": RECIPE["questions"][1:]})


def _roster(n: int) -> list[Student]:
    return [Student(f"Student {i:02d}", roll=f"C{i:02d}") for i in range(n)]


@pytest.fixture(scope="module")
def chunked(tmp_path_factory):
    """7 students in chunks of 3 (three compile processes, two at once) and in one chunk."""
    recipe = SMALL
    work = tmp_path_factory.mktemp("chunks")
    seen = []
    joined = build_exam(recipe, _roster(7), None, work / "joined", generate=occupancy_problem,
                        chunk=3, jobs=2, progress=lambda done, total: seen.append((done, total)))
    whole = build_exam(recipe, _roster(7), None, work / "whole", generate=occupancy_problem,
                       chunk=100)
    return {"joined": joined, "whole": whole, "progress": seen, "recipe": recipe}


def test_joined_pdfs_hold_the_same_pages_as_one_document(chunked):
    joined, whole = chunked["joined"], chunked["whole"]
    assert _pages(joined.exam_pdf) == _pages(whole.exam_pdf)
    assert joined.exam_pages == len(pypdf.PdfReader(joined.exam_pdf).pages)
    # the key: the same pages; the overview (its own part when chunked) and each version's
    # first page read back the same (pypdf reads math slowly, so not every page)
    assert joined.key_pages == whole.key_pages == len(pypdf.PdfReader(whole.key_pdf).pages)
    firsts = sorted({0, *(pages[0] for pages in _bookmarks(whole.key_pdf).values())})
    # (the spacing pypdf reads between math glyphs depends on each part's font subsets)
    read = lambda path: ["".join(pypdf.PdfReader(path).pages[i].extract_text().split())  # noqa: E731
                         for i in firsts]
    assert read(joined.key_pdf) == read(whole.key_pdf)


def test_joined_bookmarks_point_at_each_unit(chunked):
    joined, whole = chunked["joined"], chunked["whole"]
    codes = [s["version"] for s in json.loads(joined.manifest.read_text("utf-8"))["students"]]
    assert list(_bookmarks(joined.exam_pdf)) == codes
    assert _bookmarks(joined.exam_pdf) == _bookmarks(whole.exam_pdf)
    assert _bookmarks(joined.key_pdf) == _bookmarks(whole.key_pdf)
    titles = [item.title for item in pypdf.PdfReader(joined.key_pdf).outline]
    assert titles[0].startswith("Answer key")


def test_streamed_manifest_and_sheet_equal_the_in_memory_plan(chunked):
    joined = chunked["joined"]
    plan = plan_exam(chunked["recipe"], _roster(7), None, generate=occupancy_problem)
    assert joined.manifest.read_text(encoding="utf-8") == plan.manifest_text()
    assert joined.answers_csv.read_text(encoding="utf-8").lstrip("\ufeff") == plan.answers_csv.lstrip("\ufeff")
    assert sorted(p.name for p in joined.out_dir.iterdir() if not p.name.startswith(".")) == [
        "answers.csv", "exam.pdf", "key.pdf", "manifest.json"]


def test_progress_counts_students(chunked):
    seen = chunked["progress"]
    assert seen[-1] == (7, 7)
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
    assert {done for done, _ in seen} >= {3, 6, 7}


def test_chunked_build_is_deterministic(chunked, tmp_path):
    again = build_exam(chunked["recipe"], _roster(7), None, tmp_path / "again",
                       generate=occupancy_problem, chunk=3, jobs=1)
    for name in ("exam.pdf", "key.pdf", "manifest.json", "answers.csv"):
        assert (again.out_dir / name).read_bytes() == (chunked["joined"].out_dir / name).read_bytes()


def test_a_failing_compile_process_leaves_no_folder(tmp_path, monkeypatch):
    recipe = SMALL
    # A template that Typst refuses: the compile process fails, the build raises, nothing stays.
    monkeypatch.setattr(sheet.build._Exam, "exam_data", lambda self, entries: "{not json")
    with pytest.raises(RuntimeError, match="Typst could not compile"):
        build_exam(recipe, _roster(4), None, tmp_path / "out", generate=occupancy_problem,
                   chunk=2)
    assert list(tmp_path.iterdir()) == []


def test_join_keeps_text_and_order(tmp_path):
    from quizgen.export.typstjob import compile_pdf

    parts = []
    for i in range(3):
        source = f'#set page(width: 8cm, height: 5cm)\n#heading(bookmarked: true)[Part {i}]\nPage {i}a\n#pagebreak()\nPage {i}b'
        path = tmp_path / f"p{i}.pdf"
        path.write_bytes(compile_pdf(source, "{}"))
        parts.append(path)
    assert join_pdfs(parts, tmp_path / "all.pdf") == 6
    reader = pypdf.PdfReader(tmp_path / "all.pdf")
    assert [" ".join(p.extract_text().split()) for p in reader.pages] == [
        "Part 0 Page 0a", "Page 0b", "Part 1 Page 1a", "Page 1b", "Part 2 Page 2a", "Page 2b"]
    assert [(b.title, reader.get_destination_page_number(b)) for b in reader.outline] == [
        ("Part 0", 0), ("Part 1", 2), ("Part 2", 4)]
