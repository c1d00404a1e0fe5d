"""Where an exam build touches the disk: the staged folder's files, the Typst compiles (in processes
of their own), the joined PDFs, and what an earlier build left in the output folder.

`write_sheets` streams every version into the staged folder chunk by chunk: the manifest, the
answer sheet and the key's overview rows are written as versions are drawn, each chunk's exam and
key are compiled (each in a process of its own, two at once) while the next is drawn, and the
chunks' PDFs are joined at the end, so memory stays flat in the size of the class: what the main
process holds is one chunk being drawn and the few whose compiles are under way. The key's
overview (one table of every version) is compiled last, alone. The manifest is the folder's last
file: a folder holding one is a finished build.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from functools import partial
from pathlib import Path
from typing import IO, Any, Callable, Iterable

from quizgen.export.bubbles import place_layout
from quizgen.export.pdfjoin import join_pdfs
from quizgen.export.sheet.layout import overview_row, id_cells, id_columns
from quizgen.export.sheet.plan import check_columns
from quizgen.export.typstjob import compile_pdf, run_job
from quizgen.files import BOM, safe_cell
from quizgen.manifest import ID_COLUMN, MANIFEST_FORMAT, ManifestWriter, StudentPaper


#: progress(done, total): students whose papers and keys are compiled so far.
Progress = Callable[[int, int], None]


def write_sheets(exam, tmp: Path, columns: list[str], *, chunk: int, jobs: int | None,
                 progress: Progress | None) -> tuple[int, int]:
    """exam.pdf, key.pdf, answers.csv and manifest.json of every version of `exam` (a
    `quizgen.export.sheet.build._Exam`) into the staged folder `tmp`; returns the two PDFs'
    page counts."""
    total = len(exam)
    single = total <= chunk
    parts = tmp / "parts"
    parts.mkdir()
    compiler = _Compiler(parts, exam.font_dirs, jobs, in_process=single)
    with (tmp / "manifest.part").open("w", encoding="utf-8", newline="\n") as manifest, \
            (tmp / "answers.csv").open("w", encoding="utf-8", newline="") as sheet_csv, \
            (parts / "overview.rows").open("w", encoding="utf-8") as overview, compiler:
        head = exam.head(scan=exam.scan or None)
        chunks = _Chunks(exam, compiler, ManifestWriter(manifest, head), sheet_csv, columns,
                         overview, single)
        done = 0
        for start in range(0, total, chunk):
            entries = exam.entries(range(start, min(start + chunk, total)))
            done += len(entries)
            chunks.write(f"{start // chunk:05d}", entries,
                         lambda n=done: progress and progress(n, total))
            del entries
        compiler.drain()
        if not single:   # the overview alone: its table grows with the class
            overview.close()
            chunks.key_parts.insert(0, compiler.submit(
                "key-overview", exam.key_source, _overview_data(exam.common, overview.name)))
            compiler.drain()
        chunks.writer.close()
    if progress:
        progress(total, total)
    exam_pages = join_pdfs(chunks.exam_parts, tmp / "exam.pdf")
    key_pages = join_pdfs(chunks.key_parts, tmp / "key.pdf")
    shutil.rmtree(parts)
    # The manifest goes last: a folder holding one is a finished build.
    os.replace(tmp / "manifest.part", tmp / "manifest.json")
    return exam_pages, key_pages


class _Chunks:
    """The streams of one build that chunks of versions are written to: the manifest, the answer
    sheet, the key's overview rows, and the Typst documents of each chunk."""

    def __init__(self, exam, compiler: "_Compiler", writer: ManifestWriter, sheet_csv,
                 columns: list[str], overview: IO[str], single: bool) -> None:
        self.exam, self.compiler, self.writer, self.columns = exam, compiler, writer, columns
        self.overview, self.single = overview, single
        self.overview_rows = 0
        self.exam_parts: list[Path] = []
        self.key_parts: list[Path] = []
        sheet_csv.write(BOM)   # Excel reads UTF-8 (Devanagari names) only with it
        self.rows = csv.writer(sheet_csv, lineterminator="\n")
        self.ids = id_columns(columns)
        self.rows.writerow(["name", "roll", "version", *columns, *self.ids])

    def write(self, name: str, entries, done: Callable[[], Any]) -> None:
        """One chunk: its versions into the manifest (with a scan layout: once compiled), the
        answer sheet and the overview; its exam and key queued to compile; `done` called when
        they are."""
        exam = self.exam
        held, rows = [], []
        for entry in entries:
            if exam.scan:
                held.append(exam.drawn(entry))     # written with its layout
            else:
                self.writer.add(exam.drawn(entry))
            student, code, questions = entry
            self.rows.writerow([safe_cell(student.name), safe_cell(student.roll), code,
                                *([""] * len(self.columns)), *id_cells(questions, self.ids)])
            rows.append(overview_row(*entry))
        for row in rows:
            self.overview.write((", " if self.overview_rows else "")
                                + json.dumps(row, ensure_ascii=False))
            self.overview_rows += 1
        check_columns(self.columns, entries)
        exam_data = exam.exam_data(entries)
        write = (partial(_write_layout, self.writer, held, self.compiler.folder
                         / f"exam-{name}.layout.json", _grids(json.loads(exam_data)["units"]))
                 if exam.scan else None)
        self.exam_parts.append(self.compiler.submit(f"exam-{name}", exam.exam_source, exam_data,
                                                    layout=bool(exam.scan)))
        del exam_data
        self.key_parts.append(self.compiler.submit(
            f"key-{name}", exam.key_source,
            exam.key_data(entries, rows if self.single else None)))
        self.compiler.finished(lambda w=write: (w and w(), done()))


def _overview_data(common: dict[str, Any], rows: str) -> Path:
    """The key overview's JSON document, written beside its rows (the file `rows`: their JSON
    texts joined by ", "): what ``json.dumps({**common, "overview": rows, "units": []})`` gives,
    without the rows in memory."""
    path = Path(rows).with_suffix(".json")
    head = json.dumps({**common, "overview": None}, ensure_ascii=False)
    with path.open("w", encoding="utf-8") as out, open(rows, encoding="utf-8") as src:
        out.write(head[:-len("null}")] + "[")
        shutil.copyfileobj(src, out)
        out.write('], "units": []}')
    return path


def _grids(units: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What `place_layout` reads of a chunk's exam units (each version's boxes), the rest let go
    while the chunk compiles."""
    return [{"version": unit["version"],
             "questions": [{"boxes": question["boxes"]} for question in unit["questions"]]}
            for unit in units]


def _write_layout(writer: ManifestWriter, papers: list[StudentPaper], layout: Path,
                  units: list[dict[str, Any]]) -> None:
    """A chunk's papers into the manifest, each with where its answer grids were printed."""
    placed = place_layout(json.loads(layout.read_text(encoding="utf-8")), units)
    layout.unlink()
    for paper in papers:
        paper.sheet = placed[paper.version]
        writer.add(paper)


def compile_typst(source: str, data: str, font_paths: Iterable[str] = ()) -> bytes:
    """Compile one sheet template with its JSON data (passed as ``sys.inputs.data``) to PDF."""
    return compile_pdf(source, data, tuple(font_paths))


class _Compiler:
    """Typst compiles of the chunks' documents: each in a process of its own (at most `jobs` at
    once: a process holds one document's layout, whatever the size of the class), or in this
    process when the whole exam is one chunk."""

    def __init__(self, folder: Path, font_dirs: tuple[str, ...], jobs: int | None,
                 in_process: bool) -> None:
        self.folder, self.font_dirs, self.in_process = folder, font_dirs, in_process
        self.jobs = max(1, jobs if jobs is not None else min(2, os.cpu_count() or 1))
        # (process, its jobs file, the callbacks to run once it and those before it are done)
        self.running: list[tuple[Any, Path, list[Callable[[], None]]]] = []
        self.sources: dict[str, Path] = {}

    def __enter__(self) -> "_Compiler":
        return self

    def drain(self) -> None:
        """Wait for every compile (every callback has run)."""
        while self.running:
            self._reap(self.running[0])

    def __exit__(self, kind, value, traceback) -> None:
        if kind is None:
            self.drain()
        else:
            for proc, _, _ in self.running:
                proc.kill()
                proc.wait()

    def submit(self, name: str, source: str, data: str | Path, layout: bool = False) -> Path:
        """Compile one document (`data`: its JSON text, or a file holding it); returns where its
        PDF will be (with `layout`, ``NAME.layout.json`` beside it receives where its answer
        grids were laid out)."""
        pdf = self.folder / f"{name}.pdf"
        source_path = self.sources.get(source)
        if source_path is None:
            source_path = self.sources[source] = self.folder / f"source-{len(self.sources)}.typ"
            source_path.write_text(source, encoding="utf-8")
        if isinstance(data, Path):
            data_path = data
        else:
            data_path = self.folder / f"{name}.json"
            data_path.write_text(data, encoding="utf-8")
        job = {"source": str(source_path), "data": str(data_path), "out": str(pdf),
               "font_paths": list(self.font_dirs),
               "layout": str(self.folder / f"{name}.layout.json") if layout else ""}
        if self.in_process:
            run_job(job)
            data_path.unlink()
        else:
            self._launch(job)
        return pdf

    def finished(self, callback: Callable[[], None]) -> None:
        """End of a chunk: `callback` runs when its documents (and every earlier one) are
        compiled."""
        if self.in_process or not self.running:
            callback()
        else:
            self.running[-1][2].append(callback)

    def _launch(self, job: dict[str, str]) -> None:
        while len(self.running) >= self.jobs:
            self._reap(self.running[0])
        jobs_path = self.folder / f"jobs-{Path(job['out']).stem}.json"
        jobs_path.write_text(json.dumps([job]), encoding="utf-8")
        proc = subprocess.Popen([sys.executable, "-m", "quizgen.export.typstjob", str(jobs_path)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.running.append((proc, jobs_path, []))

    def _reap(self, item) -> None:
        proc, jobs_path, callbacks = item
        _, err = proc.communicate()
        self.running.remove(item)
        if proc.returncode != 0:
            message = err.decode("utf-8", "replace").strip() or f"exit code {proc.returncode}"
            raise RuntimeError(f"Typst could not compile the sheet: {message}")
        for job in json.loads(jobs_path.read_text(encoding="utf-8")):
            Path(job["data"]).unlink(missing_ok=True)
        jobs_path.unlink()
        for callback in callbacks:
            callback()


#: What `build_exam` writes, in order (the manifest last: a folder holding one is finished).
SHEET_FILES = ("exam.pdf", "key.pdf", "answers.csv", "manifest.json")


def built_earlier(rel: str, path: Path) -> bool:
    """A file of a build made before builds kept a ledger: ours if the folder holds our manifest,
    and, for answers.csv, only while no answer is filled in (the prefilled ids aside)."""
    if rel not in SHEET_FILES or not _is_sheet_dir(path.parent):
        return False
    if rel != "answers.csv":
        return True
    try:
        rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig"))))
    except (OSError, ValueError, csv.Error):
        return False
    answers = [i for i, title in enumerate(rows[0] if rows else []) if i >= 3
               and not ID_COLUMN.fullmatch(title.strip())]
    return all(not any(row[i].strip() for i in answers if i < len(row)) for row in rows[1:])


def _is_sheet_dir(path: Path) -> bool:
    try:
        data = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("format") == MANIFEST_FORMAT
