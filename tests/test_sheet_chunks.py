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


def test_each_compile_process_holds_one_document(tmp_path, monkeypatch):
    """A process lays out one document (a chunk's exam, or its key), never both: its memory is
    one document's; the key's overview, whose table grows with the class, is compiled last."""
    import subprocess

    launched = []
    popen = subprocess.Popen

    def counting(args, *rest, **kwargs):
        jobs = json.loads(open(args[-1], encoding="utf-8").read())
        launched.append([job["out"].rsplit("/", 1)[-1] for job in jobs])
        return popen(args, *rest, **kwargs)

    monkeypatch.setattr(sheet.write.subprocess, "Popen", counting)
    build_exam(SMALL, _roster(5), None, tmp_path / "out", generate=occupancy_problem, chunk=2,
               jobs=2)
    assert launched == [["exam-00000.pdf"], ["key-00000.pdf"], ["exam-00001.pdf"],
                        ["key-00001.pdf"], ["exam-00002.pdf"], ["key-00002.pdf"],
                        ["key-overview.pdf"]]


def test_overview_document_streamed_equals_the_whole(tmp_path):
    """The key overview's data is written from its rows on disk, the same JSON text as when
    the rows were held in a list."""
    from quizgen.export.sheet.write import _overview_data

    common = {"title": 'Quiz "ab" — "overview": []', "labels": {"key": "Answer key"}}
    rows = [{"version": "A1", "name": "Ām", "roll": "", "answers": [["1", "2"]]},
            {"version": "B2", "name": "x", "roll": "7", "answers": [["3"]]}]
    (tmp_path / "overview.rows").write_text(", ".join(json.dumps(r, ensure_ascii=False)
                                                       for r in rows), encoding="utf-8")
    path = _overview_data(common, str(tmp_path / "overview.rows"))
    assert path.read_text(encoding="utf-8") == json.dumps(
        {**common, "overview": rows, "units": []}, ensure_ascii=False)


#: Builds `N` anonymous versions of the packaged midterm with answer grids, two students a chunk
#: (many compiles and joined parts for few students), and prints the process's own peak (KB).
_PEAK_DRIVER = """
import resource, sys
from quizgen.export.sheet import build_exam
from quizgen.generator import generate_one
from quizgen.recipes import load_exam_recipe
build_exam(load_exam_recipe("midterm"), None, int(sys.argv[1]), sys.argv[2],
           generate=generate_one, bubbles=True, chunk=2)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


@pytest.mark.slow
def test_the_main_process_memory_is_flat_in_students(tmp_path):
    """The sheet's own process (the compiles aside: processes of their own) keeps no paper,
    figure or joined part per student: 32 students take at most 0.25 MB a student more than 8.
    Before the joiner freed each part as it went and the key's figures stopped being kept, it
    took about 0.75 MB a student more."""
    import subprocess
    import sys

    peaks = {}
    for students in (8, 32):
        done = subprocess.run([sys.executable, "-c", _PEAK_DRIVER, str(students),
                               str(tmp_path / f"out{students}")], capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        peaks[students] = int(done.stdout.split()[-1]) / 1024
        exam = pypdf.PdfReader(tmp_path / f"out{students}" / "exam.pdf")
        assert len(exam.outline) == students
    assert peaks[32] - peaks[8] < 0.25 * (32 - 8), peaks
