"""Printable exams through Typst: one version per student, an answer key, and the grader's inputs.

    recipe = load_exam_recipe("decks/exams/midterm.toml")
    roster = read_roster("roster.csv")
    result = build_exam(recipe, roster, None, "out/midterm", generate=generate_one)

writes ``out/midterm/exam.pdf`` (every student's version, each from a new page), ``key.pdf`` (the
answers and worked solutions of every version), ``manifest.json`` (the recipe and every student's
problems, for the grader) and ``answers.csv`` (the blank answer sheet).

Safety of user text: names, titles and instructions never pass through Typst's parser. The
templates in ``templates/sheet/`` read everything they print from a JSON document handed to the
compiler (``sys.inputs``), and Typst displays a JSON string verbatim, whatever characters it
holds. Only formulas are evaluated as Typst math, and those come from our own printer with numbers
substituted (see `_math_value`). Jinja fills only layout choices (paper size, fonts) into the
templates.

Determinism: each student's problems are drawn from seeds derived from the recipe's seed and the
student's roll number (or name), so adding a student to the roster changes nobody else's version,
and the manifest is written with sorted keys and no timestamps.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import shutil
import warnings
from dataclasses import dataclass, field
from functools import cache, partial
from pathlib import Path
from typing import Any, Callable, Iterable, Protocol

from quizgen.errors import QuizgenError, require_int
from quizgen.problems.model import Problem

__all__ = [
    "CELLS", "PAPERS", "ExamQuestion", "ExamRecipe", "Student", "SheetResult", "SheetPlan",
    "FontWarning", "load_exam_recipe", "parse_exam_recipe", "read_roster", "plan_exam",
    "build_exam", "compile_typst", "load_manifest", "answer_columns", "version_code",
]

from quizgen.recipes import known_cells  # noqa: E402  (the registered families' cells)
from quizgen.recipes.exam import (LEVELS, ExamQuestion, ExamRecipe,  # noqa: E402,F401
                                  load_exam_recipe, parse_exam_recipe)
from quizgen.recipes.roster import (MAX_STUDENTS, RosterWarning, Student,  # noqa: E402,F401
                                    parse_roster, read_roster)
from quizgen.render.phrases import DEFAULT_LANG, LANGS  # noqa: E402,F401  (the phrasebook's languages)


def __getattr__(name: str) -> Any:
    if name == "CELLS":                  # the scenario cells an exam may ask for
        return known_cells()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
PAPERS = ("a4", "us-letter")
# 2: every question carries its answers' specs (``answer_specs``); the grader still reads 1.
from quizgen.manifest import MANIFEST_FORMAT, MANIFEST_VERSION  # noqa: E402  (one definition)

# Families of fonts that cover Devanagari (Debian packages: fonts-noto-core, fonts-lohit-deva,
# fonts-gargi, fonts-nakula, fonts-sahadeva, fonts-samyak-deva, fonts-sil-annapurna; macOS and
# Windows ship Kohinoor, Devanagari Sangam MN, Nirmala UI, Mangal).
_DEVANAGARI_FONTS = (
    "Noto Serif Devanagari", "Noto Sans Devanagari", "Lohit Devanagari", "Gargi", "Nakula",
    "Sahadeva", "Samyak Devanagari", "Annapurna SIL", "Kohinoor Devanagari",
    "Devanagari Sangam MN", "Nirmala UI", "Mangal", "Mukta", "Hind",
)
_DEVANAGARI_RANGES = ((0x0900, 0x097F), (0xA8E0, 0xA8FF), (0x1CD0, 0x1CFF))

# Version codes: Crockford's base-32 letters (no I, L, O, U: nothing to misread on paper).
_CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


class FontWarning(UserWarning):
    """Some text will not render: no installed font has its script's glyphs."""


class Generate(Protocol):
    """The problem generator: ``quizgen.generator.generate_one`` has this shape."""

    def __call__(self, cell: str, *, level: int, seed: int, lang: str,
                 gpu: str | None) -> Problem: ...


# ---------------------------------------------------------------------------------------------
# Versions and seeds


def _digest(*parts: Any) -> bytes:
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).digest()


def version_code(seed: int, key: str, length: int = 6) -> str:
    """A short code for one version of an exam (printed, in the QR code, and in the manifest)."""
    value = int.from_bytes(_digest("version", seed, key), "big")
    chars = []
    for _ in range(length):
        value, digit = divmod(value, 32)
        chars.append(_CODE_ALPHABET[digit])
    return "".join(chars)


def _student_keys(students: list[Student]) -> list[str]:
    """A stable key per student: roll number if given, else name; repeats get a counter."""
    seen: dict[str, int] = {}
    keys = []
    for student in students:
        base = f"roll:{student.roll}" if student.roll else f"name:{student.name}"
        seen[base] = seen.get(base, 0) + 1
        keys.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
    return keys


def _question_seed(seed: int, key: str, number: int, attempt: int = 0) -> int:
    parts = ("question", seed, key, number) + ((attempt,) if attempt else ())
    return int.from_bytes(_digest(*parts)[:4], "big") & 0x7FFFFFFF


#: Draws that decide what a question's boxes usually hold, and tries per student to match a turn.
SURVEY_DRAWS = 24
DRAW_ATTEMPTS = 40
#: Kinds whose values are outcomes to take turns over (a limiter, yes/no, a named option).
_OUTCOME_KINDS = frozenset({"limits", "yes_no", "choice"})


@dataclass(slots=True)
class _Outcomes:
    """What one question's versions should vary, from a survey of draws made for no student.

    * a box of an outcome kind (limiter, yes/no, option) with several values seen: students take
      turns through those values;
    * any other box whose most common value is over a third of the survey (an idle-SM count that
      is usually 0): every other student gets that value, the rest another one;
    * difficulty: the worked solution has about the usual number of steps (within 30%: one
      wave or several is 15 steps or 19), which outweighs every wish about outcomes.
    """

    steps: int
    targets: dict[str, tuple[str, ...]]    # box → values in turn ("" first: the common value's
                                           # complement, see `score`)
    common: dict[str, str]                 # box → its too-common value
    polarity: dict[str, int]               # box → 0: the common value on even turns, 1: on odd

    @classmethod
    def survey(cls, exam: "_Exam", number: int, spec: ExamQuestion) -> "_Outcomes":
        from collections import Counter

        recipe = exam.recipe
        steps: Counter[int] = Counter()
        values: dict[str, Counter[str]] = {}
        kinds: dict[str, str] = {}
        draws: list[dict[str, str]] = []
        for k in range(SURVEY_DRAWS):
            cell = spec.cells[k % len(spec.cells)]
            gpu = spec.gpus[k % len(spec.gpus)] or recipe.gpu
            problem = exam.generate(cell, level=spec.level, seed=_question_seed(recipe.seed, "survey",
                                                                                   number, k),
                                    lang=recipe.lang, gpu=gpu)
            steps[len(problem.solution.steps)] += 1
            draw = {}
            for box in _asked(spec, problem, number):
                draw[box] = _canonical(problem.answers[box])
                values.setdefault(box, Counter())[draw[box]] += 1
                kinds[box] = _kind(problem, box)
            draws.append(draw)
        usual = max(steps, key=lambda n: (steps[n], -n))
        targets, common = {}, {}
        for box, seen in values.items():
            if len(seen) < 2:
                continue          # the cell fixes it (or the survey saw one value): no turns
            if kinds[box] in _OUTCOME_KINDS:
                targets[box] = tuple(sorted(seen))
            else:
                value, times = seen.most_common(1)[0]
                if times * 3 > SURVEY_DRAWS:
                    common[box] = value
        # Outcomes drive the numbers (no deficit when the latency is hidden): a number that
        # merely follows an outcome taking turns needs no wish of its own.
        for box in list(common):
            follows = [d.get(box) == common[box] for d in draws]
            if any(len({d.get(t) for d, f in zip(draws, follows) if f}) == 1
                   and len({d.get(t) for d, f in zip(draws, follows) if not f}) >= 1
                   and not ({d.get(t) for d, f in zip(draws, follows) if f}
                            & {d.get(t) for d, f in zip(draws, follows) if not f})
                   for t in targets):
                del common[box]
        return cls(usual, targets, common, _polarities(common, draws))
    @property
    def perfect(self) -> int:
        return self.steps_weight + len(self.targets) + 2 * len(self.common)

    @property
    def steps_weight(self) -> int:
        return 1 + len(self.targets) + 2 * len(self.common)

    def score(self, problem: Problem, asked: list[str], turn: int) -> int:
        """How many of this turn's wishes a draw meets (`perfect`: all of them)."""
        # the same difficulty first: it outweighs every wish about outcomes together
        score = 0
        if abs(len(problem.solution.steps) - self.steps) * 10 <= self.steps * 3:
            score += self.steps_weight
        for box, options in self.targets.items():
            if box in asked and _canonical(problem.answers.get(box)) == options[turn % len(options)]:
                score += 1
        for box, value in self.common.items():
            wanted = (turn + self.polarity[box]) % 2 == 0
            if box in asked and (_canonical(problem.answers.get(box)) == value) == wanted:
                score += 2    # a value that more than half the class would share: first
        return score


def _polarities(common: dict[str, str], draws: list[dict[str, str]]) -> dict[str, int]:
    """Turns for boxes whose common values go together or exclude each other (one wave ⇔ some
    SMs idle): a box takes the same turns as the box it agrees with most in the survey, the
    opposite turns if they mostly disagree, so that every wish can be met at once."""
    polarity: dict[str, int] = {}
    for box, value in common.items():
        mine = [d.get(box) == value for d in draws]
        best, strength = 0, 0
        for other, turn in polarity.items():
            theirs = [d.get(other) == common[other] for d in draws]
            agree = sum(a == b for a, b in zip(mine, theirs)) * 2 - len(draws)
            if abs(agree) > strength:
                best, strength = turn if agree > 0 else 1 - turn, abs(agree)
        polarity[box] = best
    return polarity


def _canonical(value: Any) -> str:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        value = sorted(value)
    return json.dumps(value, sort_keys=True)


def _kind(problem: Problem, key: str) -> str:
    spec = (problem.answer_specs or {}).get(key) if hasattr(problem, "answer_specs") else None
    if isinstance(spec, dict) and spec.get("kind"):
        return str(spec["kind"])
    value = problem.answers.get(key)
    if isinstance(value, bool):
        return "yes_no"
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "limits"
    if isinstance(value, str):
        return "choice"
    return "real"


# ---------------------------------------------------------------------------------------------
# Building

#: Students per compiled chunk: Typst lays out one chunk at a time, in a process of its own, so
#: memory stays flat in the size of the class; the chunks' PDFs are joined at the end.
CHUNK = 16


@dataclass(slots=True)
class SheetPlan:
    """Everything an exam build writes, before any PDF is compiled, in memory (small classes;
    `build_exam` streams the same pieces chunk by chunk)."""

    manifest: dict[str, Any]
    exam_source: str
    exam_data: str
    key_source: str
    key_data: str
    answers_csv: str
    font_paths: tuple[str, ...] = ()
    warnings: list[str] = field(default_factory=list)

    def manifest_text(self) -> str:
        return json.dumps(self.manifest, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


@dataclass(slots=True)
class SheetResult:
    """What `build_exam` wrote, and the warnings a user should see (fonts)."""

    out_dir: Path
    exam_pdf: Path
    key_pdf: Path
    manifest: Path
    answers_csv: Path
    students: int
    warnings: list[str] = field(default_factory=list)
    exam_pages: int = 0
    key_pages: int = 0


#: progress(done, total): students whose papers and keys are compiled so far.
Progress = Callable[[int, int], None]


class _Exam:
    """One exam build's fixed inputs: who sits it, their version codes, the shared layout."""

    def __init__(self, recipe: ExamRecipe, roster: list[Student] | None, versions: int | None,
                 *, generate: Generate, paper: str, practice: bool,
                 font_paths: Iterable[str | os.PathLike[str]], bubbles: bool = False) -> None:
        if paper not in PAPERS:
            raise QuizgenError(f"got {paper!r}; expected one of: {', '.join(PAPERS)}", field="paper")
        if roster is not None and versions is not None:
            raise QuizgenError("give a roster or a number of versions, not both", field="versions")
        if roster is not None:
            if not roster:
                raise QuizgenError("the roster has no students", field="roster")
            self.students = list(roster)
            self.keys = _student_keys(self.students)
        else:
            count = require_int("versions", 1 if versions is None else versions, minimum=1,
                                maximum=10000)
            self.students = [Student(name="", roll="") for _ in range(count)]
            self.keys = [f"version:{i + 1}" for i in range(count)]
        self.codes = _codes(recipe.seed, self.keys)
        self.anonymous = roster is None
        self._outcomes: dict[int, _Outcomes] = {}
        self.recipe, self.generate, self.paper, self.practice = recipe, generate, paper, practice
        self.labels = _labels(recipe.lang)
        self.fonts, self.font_dirs, self.warnings = _fonts(recipe, self.students, font_paths)
        self.common = {"title": recipe.title, "course": recipe.course, "date": recipe.date,
                       "duration": recipe.duration, "instructions": recipe.instructions,
                       "total": _points_text(recipe.total_points), "labels": self.labels,
                       "practice": practice}
        self.bubbles = bubbles
        self.scan = _scan_layout(recipe, paper) if bubbles else None
        layout = {"paper": paper, "fonts": self.fonts}
        self.exam_source = _template("exam.typ.j2").render(**layout, practice=practice)
        self.key_source = _template("key.typ.j2").render(**layout)

    def __len__(self) -> int:
        return len(self.students)

    def entries(self, indices: Iterable[int]) -> list[tuple[Student, str, list]]:
        """The versions of these students: (student, code, [(number, spec, problem, asked)]),
        the questions in the order they are printed (shuffled when the recipe says so)."""
        recipe = self.recipe
        out = []
        for i in indices:
            key = self.keys[i]
            # Anonymous versions rotate through the outcomes in turn (an even split); a roster's
            # students take a turn from their key, so that adding one changes nobody else's.
            turn = i if self.anonymous else int.from_bytes(_digest("turn", recipe.seed, key)[:4], "big")
            questions = [self._draw(number, spec, key, turn)
                         for number, spec in enumerate(recipe.questions, start=1)]
            if recipe.shuffle and len(questions) > 1:
                order = sorted(range(len(questions)),
                               key=lambda q: _digest("order", recipe.seed, key, q))
                questions = [questions[q] for q in order]
            out.append((self.students[i], self.codes[i], questions))
        return out

    def _draw(self, number: int, spec: ExamQuestion, key: str, turn: int):
        """One student's problem for one question: drawn so that across the class the boxes'
        outcomes take turns (see `_Outcomes`) at the question's usual difficulty."""
        recipe = self.recipe
        outcomes = self._outcomes.get(number)
        if outcomes is None:
            outcomes = self._outcomes[number] = _Outcomes.survey(self, number, spec)
        turn += number
        best, best_score = None, -1
        for attempt in range(DRAW_ATTEMPTS):
            cell = spec.cells[(turn + attempt) % len(spec.cells)]
            gpu = spec.gpus[(turn + attempt) % len(spec.gpus)] or recipe.gpu
            seed = _question_seed(recipe.seed, key, number, attempt)
            problem = self.generate(cell, level=spec.level, seed=seed, lang=recipe.lang, gpu=gpu)
            asked = _asked(spec, problem, number)
            score = outcomes.score(problem, asked, turn)
            if score > best_score:
                best, best_score = (number, spec, problem, asked), score
            if score == outcomes.perfect:
                break
        return best

    def exam_data(self, entries) -> str:
        units = [_exam_unit(student, code, questions, self.labels, self.practice, self.scan)
                 for student, code, questions in entries]
        extra = {"scan": self.scan} if self.scan else {}
        return json.dumps({**self.common, **extra, "units": units}, ensure_ascii=False)

    def key_data(self, entries, overview: list[dict[str, Any]] | None) -> str:
        units = [_key_unit(student, code, questions, self.labels)
                 for student, code, questions in entries]
        return json.dumps({**self.common, "overview": overview or [], "units": units},
                          ensure_ascii=False)


def plan_exam(recipe: ExamRecipe, roster: list[Student] | None, versions: int | None, *,
              generate: Generate, paper: str = "a4", practice: bool = False,
              font_paths: Iterable[str | os.PathLike[str]] = ()) -> SheetPlan:
    """Draw every version's problems and prepare the Typst sources, data, manifest and CSV,
    all in memory (one document each for the exam and the key)."""
    exam = _Exam(recipe, roster, versions, generate=generate, paper=paper, practice=practice,
                 font_paths=font_paths)
    entries = exam.entries(range(len(exam)))
    columns = _columns(recipe, entries)
    return SheetPlan(
        manifest=_manifest(recipe, entries, paper, practice),
        exam_source=exam.exam_source,
        exam_data=exam.exam_data(entries),
        key_source=exam.key_source,
        key_data=exam.key_data(entries, [_overview_row(*e) for e in entries]),
        answers_csv=_answers_csv(entries, columns),
        font_paths=exam.font_dirs,
        warnings=list(exam.warnings),
    )


def build_exam(recipe: ExamRecipe, roster: list[Student] | None, versions: int | None,
               out_dir: str | os.PathLike[str], *, generate: Generate, paper: str = "a4",
               practice: bool = False, font_paths: Iterable[str | os.PathLike[str]] = (),
               force: bool = False, progress: Progress | None = None, jobs: int | None = None,
               chunk: int = CHUNK, bubbles: bool = False) -> SheetResult:
    """Write exam.pdf, key.pdf, manifest.json and answers.csv into `out_dir`.

    `roster` gives one version per student; without it, `versions` anonymous versions (default 1).
    `generate(cell, level=, seed=, lang=, gpu=)` draws one `Problem` (normally
    ``quizgen.generator.generate_one``). `paper` is ``"a4"`` or ``"us-letter"``; `practice` puts
    each worked solution right after its problem. `font_paths` adds folders of fonts (for
    example a Devanagari font for the roster's names). `bubbles` prints a bubble grid under every
    answer box, corner marks and a QR code on every page, and records every bubble's place in the
    manifest, for `quizgen scan` (see `quizgen.export.bubbles`).

    Students are drawn and compiled `chunk` at a time (each chunk's Typst compile runs in a
    process of its own, at most `jobs` at once; default: up to 2), the manifest and answer
    sheet are written as they come, and the chunks' PDFs are joined at the end: memory stays flat
    in the size of the class. `progress(done, total)` is called as chunks finish.

    The folder appears complete or not at all: everything is written into a temporary folder
    beside `out_dir` and moved into place at the end. In an existing `out_dir` only the files an
    earlier build wrote (and nobody changed since) are replaced; a folder holding anything else
    (a filled answers.csv, graded results) is refused, unless `force`: then those files stay, and
    one in the way is kept as NAME.kept (a warning says so).
    """
    from quizgen.export.pdfjoin import join_pdfs
    from quizgen.files import check_folder

    out = Path(out_dir)
    check_folder(out, force=force, own=_built_earlier)
    chunk = require_int("chunk", chunk, minimum=1)
    if bubbles and practice:
        raise QuizgenError("a practice sheet is not scanned; leave out --bubbles or --practice",
                           field="bubbles")
    exam = _Exam(recipe, roster, versions, generate=generate, paper=paper, practice=practice,
                 font_paths=font_paths, bubbles=bubbles)
    for message in exam.warnings:
        warnings.warn(message, FontWarning, stacklevel=2)
    # Every answer column of the sheet, known before any problem is drawn: the first version
    # fixes them (`_asked` checks the recipe against each problem as it is drawn).
    first = exam.entries([0])
    columns = _columns(recipe, first)
    total = len(exam)
    single = total <= chunk

    from quizgen.files import publish_folder, staged_folder

    with staged_folder(out) as tmp:
        parts = tmp / "parts"
        parts.mkdir()
        exam_parts: list[Path] = []
        key_parts: list[Path] = []
        overview: list[dict[str, Any]] = []
        compiler = _Compiler(parts, exam.font_dirs, jobs, in_process=single)
        with (tmp / "manifest.part").open("w", encoding="utf-8", newline="\n") as manifest, \
                (tmp / "answers.csv").open("w", encoding="utf-8", newline="") as sheet_csv, \
                compiler:
            head = _manifest_head(recipe, paper, practice)
            if exam.scan:
                head["scan"] = exam.scan
            writer = _ManifestWriter(manifest, head)
            from quizgen.files import BOM, safe_cell

            sheet_csv.write(BOM)   # Excel reads UTF-8 (Devanagari names) only with it
            rows = csv.writer(sheet_csv, lineterminator="\n")
            rows.writerow(["name", "roll", "version", *columns])
            done = 0
            for start in range(0, total, chunk):
                indices = range(start, min(start + chunk, total))
                entries = exam.entries(indices)
                held = []
                for entry in entries:
                    if exam.scan:
                        held.append(_manifest_student(*entry))   # written with its layout
                    else:
                        writer.student(_manifest_student(*entry))
                    student, code, _ = entry
                    rows.writerow([safe_cell(student.name), safe_cell(student.roll), code,
                                   *([""] * len(columns))])
                    overview.append(_overview_row(*entry))
                _check_columns(columns, entries)
                name = f"{start // chunk:05d}"
                exam_data = exam.exam_data(entries)
                exam_parts.append(compiler.submit(f"exam-{name}", exam.exam_source, exam_data,
                                                  layout=bool(exam.scan)))
                write = (partial(_write_layout, writer, held, parts / f"exam-{name}.layout.json",
                                 json.loads(exam_data)["units"]) if exam.scan else None)
                key_parts.append(compiler.submit(f"key-{name}", exam.key_source,
                                                 exam.key_data(entries, overview if single else None)))
                done += len(entries)
                compiler.finished(lambda n=done, w=write: (w and w(), progress and progress(n, total)))
                del entries
            if not single:
                key_parts.insert(0, compiler.submit("key-overview", exam.key_source,
                                                    json.dumps({**exam.common, "overview": overview,
                                                                "units": []}, ensure_ascii=False)))
            compiler.drain()
            writer.close()
        if progress:
            progress(total, total)
        exam_pages = join_pdfs(exam_parts, tmp / "exam.pdf")
        key_pages = join_pdfs(key_parts, tmp / "key.pdf")
        shutil.rmtree(parts)
        # The manifest goes last: a folder holding one is a finished build.
        os.replace(tmp / "manifest.part", tmp / "manifest.json")
        kept = publish_folder(tmp, out, SHEET_FILES, own=_built_earlier)
    for message in kept:
        warnings.warn(message, stacklevel=2)
    return SheetResult(out_dir=out, exam_pdf=out / "exam.pdf", key_pdf=out / "key.pdf",
                       manifest=out / "manifest.json", answers_csv=out / "answers.csv",
                       students=total, warnings=list(exam.warnings), exam_pages=exam_pages,
                       key_pages=key_pages)


def _write_layout(writer: "_ManifestWriter", students: list[dict[str, Any]], layout: Path,
                  units: list[dict[str, Any]]) -> None:
    """A chunk's students into the manifest, each with where its answer grids were printed."""
    from quizgen.export.bubbles import place_layout

    placed = place_layout(json.loads(layout.read_text(encoding="utf-8")), units)
    layout.unlink()
    for student in students:
        student["sheet"] = placed[student["version"]]
        writer.student(student)


def compile_typst(source: str, data: str, font_paths: Iterable[str] = ()) -> bytes:
    """Compile one sheet template with its JSON data (passed as ``sys.inputs.data``) to PDF."""
    from quizgen.export.typstjob import compile_pdf

    return compile_pdf(source, data, tuple(font_paths))


class _Compiler:
    """Typst compiles of the chunks: in processes of their own (at most `jobs` at once), or in
    this process when the whole exam is one chunk."""

    def __init__(self, folder: Path, font_dirs: tuple[str, ...], jobs: int | None,
                 in_process: bool) -> None:
        self.folder, self.font_dirs, self.in_process = folder, font_dirs, in_process
        self.jobs = max(1, jobs if jobs is not None else min(2, os.cpu_count() or 1))
        self.batch: list[dict[str, str]] = []
        self.running: list[tuple[Any, Path, list[Callable[[], None]]]] = []
        self.callbacks: list[Callable[[], None]] = []
        self.sources: dict[str, Path] = {}

    def __enter__(self) -> "_Compiler":
        return self

    def drain(self) -> None:
        """Compile everything queued and wait for it (every callback has run)."""
        self._launch()
        while self.running:
            self._reap(self.running[0])

    def __exit__(self, kind, value, traceback) -> None:
        if kind is None:
            self.drain()
        else:
            for proc, _, _ in self.running:
                proc.kill()
                proc.wait()

    def submit(self, name: str, source: str, data: str, layout: bool = False) -> Path:
        """Queue one document; returns where its PDF will be (with `layout`, ``NAME.layout.json``
        beside it receives where its answer grids were laid out)."""
        pdf = self.folder / f"{name}.pdf"
        if self.in_process:
            pdf.write_bytes(compile_typst(source, data, self.font_dirs))
            if layout:
                from quizgen.export.typstjob import query_layout

                (self.folder / f"{name}.layout.json").write_text(
                    query_layout(source, data, self.font_dirs), encoding="utf-8")
            return pdf
        source_path = self.sources.get(source)
        if source_path is None:
            source_path = self.sources[source] = self.folder / f"source-{len(self.sources)}.typ"
            source_path.write_text(source, encoding="utf-8")
        data_path = self.folder / f"{name}.json"
        data_path.write_text(data, encoding="utf-8")
        self.batch.append({"source": str(source_path), "data": str(data_path), "out": str(pdf),
                           "font_paths": list(self.font_dirs),
                           "layout": str(self.folder / f"{name}.layout.json") if layout else ""})
        return pdf

    def finished(self, callback: Callable[[], None]) -> None:
        """End of a chunk: its documents start compiling; `callback` runs when they are done."""
        if self.in_process:
            callback()
            return
        self.callbacks.append(callback)
        self._launch()

    def _launch(self) -> None:
        import subprocess
        import sys

        if not self.batch:
            return
        while len(self.running) >= self.jobs:
            self._reap(self.running[0])
        jobs_path = self.folder / f"jobs-{Path(self.batch[0]['out']).stem}.json"
        jobs_path.write_text(json.dumps(self.batch), encoding="utf-8")
        proc = subprocess.Popen([sys.executable, "-m", "quizgen.export.typstjob", str(jobs_path)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.running.append((proc, jobs_path, self.callbacks))
        self.batch, self.callbacks = [], []

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


def _codes(seed: int, keys: list[str]) -> list[str]:
    for length in (6, 8, 10, 13):
        codes = [version_code(seed, key, length) for key in keys]
        if len(set(codes)) == len(codes):
            return codes
    raise AssertionError("version codes collide")   # 2^65 codes for 10,000 students: cannot happen


#: What `build_exam` writes, in order (the manifest last: a folder holding one is finished).
SHEET_FILES = ("exam.pdf", "key.pdf", "answers.csv", "manifest.json")


def _built_earlier(rel: str, path: Path) -> bool:
    """A file of a build made before builds kept a ledger: ours if the folder holds our manifest,
    and, for answers.csv, only while no answer is filled in."""
    if rel not in SHEET_FILES or not _is_sheet_dir(path.parent):
        return False
    if rel != "answers.csv":
        return True
    try:
        rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig"))))
    except (OSError, ValueError, csv.Error):
        return False
    return all(not any(cell.strip() for cell in row[3:]) for row in rows[1:])


def _is_sheet_dir(path: Path) -> bool:
    try:
        data = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("format") == MANIFEST_FORMAT


# ---------------------------------------------------------------------------------------------
# Asked answers, manifest, CSV


def _asked(spec: ExamQuestion, problem: Problem, number: int) -> list[str]:
    if spec.answers is None:
        keys = list(problem.answers)
        if not keys:
            raise QuizgenError(f"a {problem.cell} problem has no answers to ask; choose another cell",
                               field=f"questions[{number}].cell")
        return keys
    missing = [key for key in spec.answers if key not in problem.answers]
    if missing:
        raise QuizgenError(f"{missing[0]!r} is not an answer of {problem.cell} (answers: "
                           f"{', '.join(problem.answers)})", field=f"questions[{number}].answers")
    return list(spec.answers)


def _manifest_head(recipe: ExamRecipe, paper: str, practice: bool) -> dict[str, Any]:
    return {"format": MANIFEST_FORMAT, "format_version": MANIFEST_VERSION,
            "recipe": recipe.to_dict(), "paper": paper, "practice": practice}


def _manifest_student(student: Student, code: str, questions) -> dict[str, Any]:
    items = []
    for number, spec, problem, asked in questions:
        item = problem.to_dict()
        item["number"] = number
        item["points"] = dict(spec.points) if isinstance(spec.points, dict) else spec.points
        item["asked"] = list(asked)
        item["tolerances"] = {key: float(problem.tolerances.get(key, 0.0)) for key in asked}
        items.append(item)
    out = {"name": student.name, "roll": student.roll, "version": code, "questions": items}
    if len(items) > 1 and [q["number"] for q in items] != sorted(q["number"] for q in items):
        out["order"] = [q["number"] for q in items]   # the printed order (a shuffled exam)
    return out


def _manifest(recipe: ExamRecipe, entries, paper: str, practice: bool) -> dict[str, Any]:
    return {**_manifest_head(recipe, paper, practice),
            "students": [_manifest_student(*entry) for entry in entries]}


class _ManifestWriter:
    """The manifest written student by student, byte for byte what ``json.dumps(manifest,
    sort_keys=True, indent=2, ensure_ascii=False)`` gives ("students" sorts last)."""

    def __init__(self, fh, head: dict[str, Any]) -> None:
        if any(key > "students" for key in head):
            raise AssertionError("the manifest's students must be its last key")
        text = json.dumps({**head, "students": [None]}, sort_keys=True, indent=2,
                          ensure_ascii=False)
        self.fh = fh
        self.before, self.after = text.split("\n    null\n")
        self.count = 0

    def student(self, item: dict[str, Any]) -> None:
        text = json.dumps(item, sort_keys=True, indent=2, ensure_ascii=False)
        self.fh.write((self.before + "\n" if self.count == 0 else ",\n")
                      + "    " + text.replace("\n", "\n    "))
        self.count += 1

    def close(self) -> None:
        if self.count == 0:
            raise AssertionError("a manifest without students")
        self.fh.write("\n" + self.after + "\n")


def answer_columns(manifest: dict[str, Any]) -> list[str]:
    """The answer columns of a manifest's answer sheet: Q<number>.<answer key>, in order."""
    by_number: dict[int, dict[str, None]] = {}
    for student in manifest["students"]:
        for question in student["questions"]:
            for key in question["asked"]:
                by_number.setdefault(int(question["number"]), {})[f"Q{question['number']}.{key}"] = None
    return [column for number in sorted(by_number) for column in by_number[number]]


def _columns(recipe: ExamRecipe, entries) -> list[str]:
    """The answer sheet's columns, in question-number order (whatever order a paper prints)."""
    by_number: dict[int, dict[str, None]] = {}
    for _, _, questions in entries:
        for number, _, _, asked in questions:
            for key in asked:
                by_number.setdefault(number, {})[f"Q{number}.{key}"] = None
    return [column for number in sorted(by_number) for column in by_number[number]]


def _check_columns(columns: list[str], entries) -> None:
    """Every version asks the same boxes (the answer sheet has one set of columns)."""
    known = set(columns)
    for _, _, questions in entries:
        for number, _, problem, asked in questions:
            for key in asked:
                if f"Q{number}.{key}" not in known:
                    raise QuizgenError(f"{problem.cell} versions ask different answers ({key!r} "
                                       "is not in every version); list the answers to ask",
                                       field=f"questions[{number}].answers")


def _answers_csv(entries, columns: list[str]) -> str:
    from quizgen.files import csv_text

    rows = [["name", "roll", "version", *columns]]
    rows += [[student.name, student.roll, code, *([""] * len(columns))]
             for student, code, _ in entries]
    return csv_text(rows)


def _overview_row(student: Student, code: str, questions) -> dict[str, Any]:
    """One line of the key's summary table: the version, who, and each question's answers."""
    return {"version": code, "name": _breakable(student.name), "roll": student.roll,
            "answers": [[row["value"] for row in _answer_rows(problem, asked)]
                        for _, _, problem, asked in questions]}


def _breakable(text: str, every: int = 14) -> str:
    """Long unbroken runs get zero-width break points, so a fixed-width column can wrap them."""
    words = []
    for word in text.split(" "):
        words.append("\u200b".join(word[i:i + every] for i in range(0, len(word), every)) or word)
    return " ".join(words)


# ---------------------------------------------------------------------------------------------
# What the templates print


def _template(name: str):
    from quizgen.render.jinja import template

    return template(f"sheet/{name}")


def _labels(lang: str) -> dict[str, str]:
    """The sheet's fixed words in `lang`: the phrasebook's ``[sheet-label]``."""
    from quizgen.render.phrases import labels

    return dict(labels(lang, "sheet-label"))


def _points_text(points: float) -> str:
    from quizgen.render.numbers import number

    return number(points, 6)


def _unit(problem: Problem, key: str) -> str:
    """The unit printed after an answer box: the answer spec's (cards and LMS banks print the
    same)."""
    from quizgen.export.cards import answer_spec

    return answer_spec(problem, key).printed_unit


from quizgen.render.answers import answer_name, answer_text  # noqa: E402
from quizgen.render.solution import yes_no  # noqa: E402


def _value_text(value: Any, lang: str) -> str:
    """An answer or a given value as printed: 8, 0.375, registers, shared_memory, [3, 1, 0]; a
    yes/no in `lang`."""
    from quizgen.render.math import format_number

    if value is None:
        return "—"
    if isinstance(value, bool):
        return yes_no(value, lang)
    if isinstance(value, float) and value != value:
        return "—"
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return "∞" if value > 0 else "−∞"
    if isinstance(value, (int, float)):
        return format_number(value)     # 65,536 · 0.375 (text, not math)
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        if all(isinstance(v, str) for v in value):
            return ", ".join(value)
        return "(" + ", ".join(_value_text(v, lang) for v in value) + ")"
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _box_width(value: Any) -> float:
    """Box width in em, by the answer's kind (never its length: the box must not hint)."""
    if isinstance(value, bool) or isinstance(value, (int, float)):
        return 9.0
    if isinstance(value, list):
        return 24.0 if any(isinstance(v, str) for v in value) else 12.0
    return 18.0


def _given(problem: Problem, labels) -> list[list[str]]:
    """The Given line: the GPU as a person says it, then each named quantity (a parameter the
    phrasebook does not name, such as which variant is asked, is not the student's to read)."""
    from quizgen.gpus import gpu_from_dict
    from quizgen.render.answers import param_name

    items = []
    if isinstance(problem.gpu, dict) and problem.gpu.get("name"):
        try:
            spoken = gpu_from_dict(problem.gpu).spoken_name
        except Exception:              # an older manifest's GPU record: its name is still true
            spoken = str(problem.gpu["name"])
        items.append([labels["gpu"], spoken])
    for key, value in problem.params.items():
        name = param_name(key, problem.lang)
        if name is not None and not isinstance(value, dict):
            items.append([name, _value_text(value, problem.lang)])
    return items


def _question_common(number: int, spec: ExamQuestion, problem: Problem, labels) -> dict[str, Any]:
    total = spec.total
    return {"number": number, "points": _points_text(total),
            "points_label": labels["point"] if total == 1 else labels["points"],
            "cell": problem.cell, "level": problem.level, "title": problem.title,
            "question": problem.question, "given": _given(problem, labels)}


def _exam_unit(student: Student, code: str, questions, labels, practice: bool,
               scan: dict[str, Any] | None = None) -> dict[str, Any]:
    from quizgen.export.bubbles import MAX_PAGES, box_grid, page_code, qr_svg

    items = []
    for number, spec, problem, asked in questions:
        item = _question_common(number, spec, problem, labels)
        item["title"] = ""   # a problem's title can name its answer ("The shared-memory lid")
        item["space"] = 1.5 if practice else spec.space
        item["boxes"] = [{"letter": chr(ord("a") + i) if i < 26 else str(i + 1),
                          "label": answer_name(key, problem.lang), "unit": _unit(problem, key),
                          "width": _box_width(problem.answers[key]),
                          "hint": _box_hint(problem, key, labels),
                          "points": _box_points(spec, key, len(asked), labels),
                          "column": f"Q{number}.{key}"}
                         for i, key in enumerate(asked)]
        if scan is not None:
            for box, key in zip(item["boxes"], asked):
                box["grid"] = box_grid(_kind(problem, key), problem.answers[key], labels)
        if practice:
            item["solution"] = _solution(problem)
            item["answers"] = _answer_rows(problem, asked)
        items.append(item)
    unit = {"name": student.name, "roll": student.roll, "version": code, "qr": _qr_svg(code),
            "questions": items}
    if scan is not None:
        unit["qrs"] = [qr_svg(page_code(scan["exam"], code, page))
                       for page in range(1, MAX_PAGES + 1)]
    return unit


def _scan_layout(recipe: ExamRecipe, paper: str) -> dict[str, Any]:
    """What a scanner needs to know of every page (``quizgen sheet --bubbles``): the paper, the
    corner marks, where the QR code sits and the bubbles' radius, all in mm."""
    from quizgen.export import bubbles as b

    width, height = b.PAPER_MM[paper]
    return {"exam": b.exam_id(recipe.to_dict()), "paper": paper, "page_size": [width, height],
            "marks": [list(c) for c in b.mark_centres(paper)], "mark_size": b.MARK_SIZE,
            "qr": [round(width - 20 - b.QR_SIZE, 2), round(height - b.MARK_INSET - b.QR_SIZE, 2)],
            "qr_size": b.QR_SIZE, "radius": b.RADIUS}


def _box_hint(problem: Problem, key: str, labels: dict[str, str]) -> str:
    """How to write one box's answer and how exact it must be, from the answer's spec."""
    from quizgen.render.math import format_number

    spec = getattr(problem, "answer_specs", None) or {}
    spec = spec.get(key) if isinstance(spec, dict) else None
    kind = _kind(problem, key)
    fmt = str(spec.get("format") or "") if isinstance(spec, dict) else ""
    tolerance = float(problem.tolerances.get(key, 0.0) or
                      (spec.get("tolerance", 0.0) if isinstance(spec, dict) else 0.0) or 0.0)
    if kind == "fraction" or fmt == "percent":
        return labels["hint_percent"].format(tol=format_number(round(tolerance * 100, 6)))
    if kind == "ratio" or fmt == "times":
        return labels["hint_times"].format(tol=format_number(tolerance))
    if kind in ("count", "cycles") or (kind == "real" and isinstance(problem.answers.get(key), int)
                                       and not tolerance):
        return labels["hint_cycles" if kind == "cycles" else "hint_count"]
    if kind == "bytes":
        return labels["hint_bytes"]
    if kind == "coords":
        return labels["hint_tuple"]
    if kind == "yes_no":
        return labels["hint_yes_no"]
    if kind == "limits":
        return labels["hint_limits"]
    if kind == "choice":
        return labels["hint_text"]
    return labels["hint_real"].format(tol=format_number(tolerance)) if tolerance else labels["hint_exact"]


def _box_points(spec: ExamQuestion, key: str, boxes: int, labels: dict[str, str]) -> str:
    """A box's points as printed ("2 marks"); '' when an even split is not a round number."""
    points = spec.box_points(key, boxes)
    if not isinstance(spec.points, dict) and not float(points).is_integer():
        return ""
    return f"{_points_text(points)} {labels['point'] if points == 1 else labels['points']}"


def _key_unit(student: Student, code: str, questions, labels) -> dict[str, Any]:
    items = []
    for number, spec, problem, asked in questions:
        item = _question_common(number, spec, problem, labels)
        item["answers"] = _answer_rows(problem, asked)
        item["solution"] = _solution(problem)
        item["id"] = problem.id      # what `quizgen check ID ANSWER --manifest` takes
        items.append(item)
    return {"name": student.name, "roll": student.roll, "version": code, "questions": items}


def _answer_rows(problem: Problem, asked: list[str]) -> list[dict[str, str]]:
    rows = []
    for key in asked:
        tolerance = float(problem.tolerances.get(key, 0.0))
        rows.append({"key": key, "label": answer_name(key, problem.lang),
                     "value": answer_text(problem.answers[key], str(problem.units.get(key, "")),
                                          problem.lang),
                     "unit": "",
                     "tolerance": "" if tolerance == 0 else "± " + _value_text(tolerance, problem.lang)})
    return rows


def _solution(problem: Problem) -> dict[str, Any]:
    sol = problem.solution
    return {"forecast": sol.forecast, "steps": [_step(step, problem.lang) for step in sol.steps],
            "verify": list(sol.verify), "answer": sol.answer, "trap": sol.trap,
            "figure": _figure(problem)}


_FIGURES: dict[str, str] = {}


def _figure(problem: Problem) -> str:
    """The problem's figure as SVG text ('' when it has none); each distinct figure drawn once."""
    from quizgen.render.figures import draw_figure, figure_key, figure_spec

    spec = figure_spec(problem)
    if spec is None:
        return ""
    key = figure_key(spec)
    svg = _FIGURES.get(key)
    if svg is None:
        if len(_FIGURES) > 4096:
            _FIGURES.clear()
        svg = _FIGURES[key] = draw_figure(spec)
    return svg


def _step(step, lang: str) -> dict[str, str]:
    return {"title": step.title, "math": _step_math(step, lang), "why": step.why,
            "note": step.note or ""}


def _math_value(value: Any, lang: str) -> Any:
    """A value safe to splice into Typst math: a number, ∞, or a quoted Typst string."""
    from quizgen.render.typst import typst_string

    if isinstance(value, bool):
        return typst_string(yes_no(value, lang))
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return "∞" if value == float("inf") else ("-∞" if value < 0 else typst_string("nan"))
    if isinstance(value, (int, float)):
        return value
    if value == "∞":
        return value
    return typst_string(_value_text(value, lang))


def _step_math(step, lang: str) -> str:
    """``symbolic = substituted = result unit`` as Typst math ('' for a prose-only step)."""
    from quizgen.render.math import format_number, substituted, symbolic
    from quizgen.render.typst import typst_string

    result = _math_value(step.result, lang) if step.result is not None else "∞"
    result_text = (str(result) if not isinstance(result, (int, float))
                   else format_number(result, "typst"))
    parts = []
    if step.formula:
        values = {k: _math_value(v, lang) for k, v in step.values.items()}
        sym = symbolic(step.formula, "typst")
        sub = substituted(step.formula, values, "typst")
        parts.append(sym)
        if sub != sym and sub != result_text:
            parts.append(sub)
    if parts and parts[-1] == result_text:
        parts.pop()
    parts.append(result_text)
    text = " = ".join(parts)
    if step.unit:
        text += " thin " + typst_string(step.unit)
    if "#" in text:   # never: the printer writes no code, values are numbers or quoted strings
        raise AssertionError(f"code in a formula of step {step.title!r}")
    return text


def _qr_svg(code: str) -> str:
    import segno

    buf = io.BytesIO()
    segno.make(code, error="m", micro=False).save(buf, kind="svg", scale=4, border=2,
                                                  xmldecl=False, svgns=True)
    return buf.getvalue().decode("ascii")


# ---------------------------------------------------------------------------------------------
# Fonts


def _is_devanagari(text: str) -> bool:
    return any(lo <= ord(ch) <= hi for ch in text for lo, hi in _DEVANAGARI_RANGES)


def _fonts(recipe: ExamRecipe, students: list[Student],
           font_paths: Iterable[str | os.PathLike[str]]) -> tuple[list[str], tuple[str, ...], list[str]]:
    """The text font stack, the font folders to pass to Typst, and warnings about missing glyphs."""
    dirs = tuple(str(Path(p)) for p in font_paths)
    for folder in dirs:
        if not Path(folder).exists():
            raise QuizgenError(f"no such font folder: {folder}", field="font_paths")
    families = _font_families(dirs)
    deva = [f for f in _DEVANAGARI_FONTS if f in families]
    deva += sorted(f for f in families if "devanagari" in f.lower() and f not in deva)
    stack = ["Libertinus Serif", *deva, "DejaVu Sans", "New Computer Modern"]
    messages = []
    if not deva:
        texts = [s.name for s in students if _is_devanagari(s.name)]
        texts += [t for t in (recipe.title, recipe.course, recipe.instructions) if _is_devanagari(t)]
        if texts:
            shown = ", ".join(texts[:10]) + (f" and {len(texts) - 10} more" if len(texts) > 10 else "")
            messages.append(
                f"no Devanagari font found, so these will print with broken letter joins (a "
                f"math font's bare glyphs): {shown}. Install one (Debian: apt-get install "
                f"fonts-noto-core or fonts-lohit-deva) or pass its folder with --font-path")
    return stack, dirs, messages


@cache
def _font_families(dirs: tuple[str, ...]) -> frozenset[str]:
    import typst

    kwargs: dict[str, Any] = {}
    if dirs:
        kwargs["font_paths"] = list(dirs)
    return frozenset(typst.Fonts(include_system_fonts=True, include_embedded_fonts=True,
                                 **kwargs).families())


def load_manifest(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a manifest written by `build_exam` (see `quizgen.manifest.load_manifest`)."""
    from quizgen.manifest import load_manifest as load

    return load(path)
