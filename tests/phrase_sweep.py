"""Reach and render every phrase variant: run with QUIZGEN_CHECK_PHRASES=1.

Each phrase rendered renders every variant of its key with the same context
(`quizgen.render.phrases.check_variant`): a variant a writer's values cannot fill is found
whichever variant a seed happens to pick. This drives the code that renders phrases (generation
of every cell, level and language, with their text and Markdown solutions; the calculators;
grading a class and its reports; skills and LMS banks) and prints the templated variants never
rendered to text, one a line (none: every variant is reached and renders).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from typer.testing import CliRunner

from quizgen.cli import app
from quizgen.errors import QuizgenError
from quizgen.export.anki import intro
from quizgen.kernels import KERNEL_DIR
from quizgen.languages import LANGS
from quizgen.generator import CELLS, generate_one
from quizgen.render import phrases
from quizgen.render.jinja import TemplateError

CALCULATORS = [
    "occupancy --gpu a100 --threads 256 --regs 64 --smem 48KB",
    "occupancy --gpu h100 --block 32,8 --regs 80",
    "occupancy --gpu textbook --threads 1024 --regs 16",
    "occupancy --gpu a100 --threads 96 --regs 255 --smem 100KB",
    "occupancy --gpu textbook --threads 256",
    "occupancy --gpu textbook --threads 256 --regs 32 --smem 16KB --dyn-smem 8KB",
    "occupancy --gpu a100 --threads 1024 --regs 255",
    "occupancy --gpu textbook --threads 2048 --regs 16",
    "occupancy --gpu h100 --threads 64 --regs 16 --barriers 16",
    "occupancy --gpu a100 --threads 256 --regs 32 --smem 16KB --carveout 50",
    f"occupancy --ptxas {KERNEL_DIR / 'ptxas' / 'nbody_unrolled.log'} --threads 256",
    "occupancy --kernel sgemm_tiled_32 --arch sm_86",
    "occupancy --kernel reduce_sum --arch sm_80 --threads 256",
    "occupancy --kernel nbody_unrolled --arch sm_80 --threads 256",
    "warps --block 48,4,1 --thread 70",
    "warps --block 100",
    "warps --block 32,32 --coords 5,3",
    "warps --block 48,4,2 --warp 3",
    "warps --block 20,3,2 --warp 2",
    "warps --block 30,30 --compare 32,8",
    "warps --block 32,8 --compare 16,16",
    "warps --block 64,4 --compare 32,8",
    "latency --latency 400 --work 20 --schedulers 4",
    "latency --latency 20 --work 40 --schedulers 4",
    "latency --latency 400 --work 20 --schedulers 4 --resident 8",
    "latency --latency 400 --resident 8",
    "latency --latency 400 --work 20 --schedulers 4 --resident 80",
    "latency --latency 400 --throughput 0.5 --ilp 2",
    "divergence --branch 20:30 --branch 12:30",
    "divergence --branch 32:10",
    "divergence --branch 20:30 --branch 12:30 --baseline 30",
    "waves --gpu a100 --grid 2000 --threads 256 --regs 32",
    "waves --gpu a100 --grid 100 --threads 256 --regs 32",
    "waves --gpu a100 --grid 1000 --blocks-per-sm 4",
    "bound --load-bytes 16 --store-bytes 4 --flops 10 --load-latency 400",
    "bound --load-bytes 4 --flops 400",
    "divergence --if threadIdx.x<40||threadIdx.x>=104 --block 128 --grid 8",
    "divergence --if i%2==0 --let i=blockIdx.x*blockDim.x+threadIdx.x --n 1000 --exit i>=n "
    "--block 256 --grid 4 --warp 3,7 --costs 20,12",
    "divergence --if threadIdx.x<16 --block 100 --warp 3",
    "divergence --loop 5-(i%3) --let i=threadIdx.x --block 256 --iteration 4 --warp 2",
    "divergence --loop threadIdx.x --block 64",
    "divergence --loop 2+threadIdx.x/32 --block 128",
    "divergence --reduction interleaved --block 256 --grid 4 --iteration 3",
    "divergence --reduction sequential --block 96",
    "barrier --arrivals 2.0,2.3,3.0,2.8,2.4,1.9,2.6,2.9 --unit µs",
    "barrier --arrivals 500,740,920 --weights 32,32,8",
    "barrier --read t^1 --block 32",
    "barrier --read t --block 64",
    "barrier --read (t+32)%blockDim.x --block 128",
]


def solution_texts(problem) -> None:
    """The worked solution as text and Markdown: rendered, and every step's title in it."""
    from quizgen.render.text import render_solution

    for fmt in ("txt", "md"):
        text = render_solution(problem.solution, problem.lang, fmt, title=problem.title,
                               question=problem.question)
        missing = [s.title for s in problem.solution.steps if s.title not in text]
        if missing:
            raise AssertionError(f"solution.{fmt}.j2 of {problem.id} ({problem.lang}) leaves out "
                                 f"the steps {missing}")


def run(args: str) -> None:
    for lang in LANGS:
        result = CliRunner().invoke(app, [*args.split(), "--lang", lang])
        if isinstance(result.exception, AssertionError):
            raise result.exception


def run_once(args: list[str]) -> None:
    result = CliRunner().invoke(app, args)
    if result.exit_code != 0:
        raise RuntimeError(f"{' '.join(args)}: {result.output[-500:]}") from result.exception


def grade_a_class(tmp: Path) -> None:
    """The class of 40 (tests/test_class_of_40.py) in both languages, with an unmatched row,
    flagged boxes, carried errors and answers that part from the worked solution."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import csv
    import io

    import test_class_of_40 as c40

    from quizgen.export.sheet import plan_exam
    from quizgen.recipes import Student, parse_exam_recipe
    from quizgen.grade.grader import grade_class

    for lang in LANGS:
        roster = [Student(f"Student {roll}", roll) for roll, *_ in c40.CLASS]
        plan = plan_exam(parse_exam_recipe({**c40.RECIPE, "lang": lang}), roster, None,
                         generate=c40.fixed_problem)
        (tmp / "manifest.json").write_text(plan.manifest_text(), encoding="utf-8")
        rows = list(csv.reader(io.StringIO(plan.answers_csv.removeprefix("\ufeff"))))
        header = rows[0]
        for row, (roll, *variants, _) in zip(rows[1:], c40.CLASS):
            for (q, keys, table), variant in zip(c40.TABLES, variants):
                for key, text in zip(keys, table[variant][0]):
                    row[header.index(f"{q}.{key}")] = text
        stray = list(rows[1])
        stray[header.index("version")] = "NO-SUCH-VERSION"
        rows.append(stray)
        with (tmp / "answers.csv").open("w", encoding="utf-8", newline="") as fh:
            csv.writer(fh).writerows(rows)
        grade_class(tmp / "manifest.json", tmp / "answers.csv", tmp / f"graded-{lang}",
                    invalid="flag", force=True)


def grade_remarks(tmp: Path) -> None:
    """The grader's remarks ([grade_note], [grade_read], [grade_sheet]) as the code makes them:
    answers of every shape compared and read, odd answer sheets matched, overrides applied; each
    remark written in every language."""
    import csv
    import io
    from fractions import Fraction

    from quizgen.grade.compare import compare
    from quizgen.grade.grader import check_answer
    from quizgen.grade.match import Matcher, manifest_entries, read_columns
    from quizgen.grade.notes import note_text
    from quizgen.grade.overrides import Override, apply_overrides
    from quizgen.grade.parse import parse_answer, parse_with_work
    from quizgen.grade.reading import why as _why
    from quizgen.grade.sheet import SheetRow, _records, read_answer_sheet

    remarks = []
    for text, expected, kind, unit in [
            ("25", 0.25, "fraction", None), ("0.25", 25, "percent", None),
            ("48", 49152, "bytes", None), ("8.5", 8, "count", None), ("1.5", 0.5, "fraction", None),
            ("8 blocks", 8, "count", "warps"), ("8 KB", 8, "count", None),
            ("3 cycles", 0.5, "fraction", None), ("3 cycles", 25, "percent", None),
            ("200%", 2, "ratio", None), ("8 warps", 8, "bytes", None), ("2x", 8, "cycles", None),
            ("2x", 8, "real", None), ("8 abc", 8, "count", None)]:
        remarks.append(compare(parse_answer(text), expected, kind=kind, unit=unit).note)
    for text in ["", "8 abc", "8 %%", "0x10", "8,", ")", "1,5", "1e999", "((((" * 6 + "1",
                 "min(1", "floor(1,2)", "floor 2", "⌈1)", "min(1,2", "8 blocks/xyz", "8 blocks/",
                 "1/0", "0^-1", "2^0.5", "2^999", "10^40", "1" + "0" * 40, "x" * 300, 8]:
        remarks.append(parse_with_work(text)[0].error)
    remarks.append(_why("safety_net", error="RecursionError"))   # the reader's safety net
    problems = {}
    for cell in CELLS:
        for level in (1, 2, 3):
            try:
                data = generate_one(cell, level=level, seed=1).to_dict()
            except QuizgenError:
                continue
            for key, value in data["answers"].items():
                kind = data["answer_specs"][key]["kind"]
                problems.setdefault(kind, (data, key))
    for lang in LANGS:
        for data, key in problems.values():
            for text in ("(1, 2)", "maybe", "registers", "warps, registers, blocks", "nothing"):
                check_answer(data, key, text, lang=lang)
    manifest = json.loads((tmp / "manifest.json").read_text(encoding="utf-8"))
    entries = manifest_entries(manifest)
    answers = [f"Q{q.number}.{k}" for q in entries[0].questions for k in q.asked]
    issues = []
    for invalid in ("flag", "zero"):
        read_columns(["name", "roll", "comments", answers[0], answers[0]], entries, invalid, issues)
    header = ["name", "roll", "version", *answers]
    matcher = Matcher(entries, read_columns(header, entries, "flag", issues), len(header))
    first, second = entries[0], entries[1]
    for line, cells in enumerate([(first.name, first.roll, first.version, "1"),
                                  (first.name, first.roll, first.version, *["1"] * len(answers), "x"),
                                  ("Nobody", "0", second.version, *["1"] * len(answers)),
                                  ("", "", "", *["1"] * len(answers))], start=2):
        matcher.match(SheetRow(line, tuple(cells)), issues)
    no_version = Matcher([first, first], read_columns(["name", *answers], entries, "flag", issues),
                         1 + len(answers))
    no_version.match(SheetRow(9, (first.name, *["1"] * len(answers))), issues)
    (tmp / "sep.csv").write_text("sep=;\nname;roll\nA;1\n", encoding="utf-8")
    issues += read_answer_sheet(tmp / "sep.csv").issues
    too_long = "x" * (csv.field_size_limit() + 1)      # a field the CSV reader refuses
    _records(io.StringIO(f"name\n{too_long}\n"), ",", 0, issues)
    for lang in LANGS:
        graded = grade_class_results(tmp)
        student = graded[0]
        wrong = next(b for s in graded for b in s.boxes if b.check.status == "wrong")
        owner = next(s for s in graded if wrong in s.boxes)
        issues += apply_overrides(graded, manifest, [
            Override(2, "nobody", "Q1.nothing", Fraction(1), None, "why"),
            Override(3, student.roll, student.boxes[0].column, Fraction(99), None, ""),
            Override(4, student.roll, student.boxes[0].column, Fraction(0), None, "a reason"),
            Override(5, owner.roll, wrong.column, None, wrong.check.answer, "a reason")],
            lang=lang)
    remarks += [issue.message for issue in issues]
    for lang in LANGS:
        for remark in remarks:
            note_text(remark, lang)


def grade_class_results(tmp: Path):
    """The students of the last graded class, as the grader returns them."""
    from quizgen.grade.grader import grade_rows
    from quizgen.grade.sheet import read_answer_sheet

    manifest = json.loads((tmp / "manifest.json").read_text(encoding="utf-8"))
    return grade_rows(manifest, read_answer_sheet(tmp / "answers.csv"), invalid="flag")[0]


def library_only() -> None:
    """Phrases that only a library call (no command or family) renders, by their call sites."""
    from quizgen import get_gpu, launch_config
    from quizgen.engine import inverse
    from quizgen.export.lms.words import misconception_feedback
    from quizgen.render.solution import step_context
    from quizgen.render.writers.exact import inverse_whys

    answers = []      # the inverse solvers in both models (the exact cells name their whys xi_…)
    for gpu in (get_gpu("a100"), get_gpu("textbook")):
        cfg = launch_config(256, regs_per_thread=32, smem_per_block=4096)
        for model in ("textbook", "exact"):
            for answer in (inverse.max_threads_for_blocks(gpu, cfg, 4, model=model),
                           inverse.max_regs_for_blocks(gpu, cfg, 4, model=model),
                           inverse.max_smem_for_blocks(gpu, cfg, 4, model=model),
                           inverse.max_smem_for_blocks(gpu, cfg, 4, model=model, dynamic=True)):
                answers += [(gpu, answer.steps), (gpu, inverse_whys(answer.steps))]
    for lang in LANGS:
        for gpu, steps in answers:      # their whys, as a worked solution fills them
            for step in steps:
                if step.why and phrases.has(lang, "why", step.why):
                    try:
                        phrases.phrase(lang, "why", step.why, step_context(step, gpu.to_dict()))
                    except TemplateError:    # a why this step's numbers do not fill: checked above
                        pass
        misconception_feedback(lang, "a_trap_without_a_phrase", "")
        for T in (256, 1000):      # OccupancyExactFamily.real_note's sentence
            phrases.phrase(lang, "real-gpu", "exact_largest", {"T": T})


def templated() -> set[tuple[str, str, str, int]]:
    """Every variant that is a Jinja template (the ``[*-label]`` tables' ``{name}`` placeholders
    are for str.format: Jinja prints them as written)."""
    out = set()
    for lang in LANGS:
        for section, table in phrases.book(lang).items():
            for key, value in table.items():
                if not isinstance(value, (str, list)):    # a setting, not a phrase
                    continue
                for i, text in enumerate([value] if isinstance(value, str) else value):
                    if "{{" in text or "{%" in text:
                        out.add((lang, section, key, i))
    return out


def _shape(params: dict) -> tuple:
    """What sets a problem's wording apart: its parameters' names, and their text and yes/no
    values (which variant is asked, a flag)."""
    return (frozenset(params), tuple(sorted((k, v) for k, v in params.items()
                                            if isinstance(v, (str, bool)) or v is None)))


SCANNED = 600          # seeds of each cell and level looked at for new parameter shapes
NAMED_GPUS = ("a100", "h100", "t4")


def cases(seeds: int) -> list[tuple[str, int, int, str | None]]:
    """(cell, level, seed, GPU) for every cell and level: the first `seeds` seeds, then the
    first seed of each parameter shape among the first SCANNED; and each named GPU once."""
    from quizgen.problems import LEVELS, family, pool

    out = []
    for cell in CELLS:
        fam = family(cell)
        for level in LEVELS:
            candidates = pool(fam.cell, level, fam.gpu_choices(level))
            seen = set()
            for seed in range(SCANNED):
                try:
                    _, params = candidates.params(seed)
                except IndexError:
                    break
                shape = _shape(params)
                if seed < seeds or shape not in seen:
                    seen.add(shape)
                    out.append((cell, level, seed, None))
            out.extend((cell, level, 0, gpu) for gpu in NAMED_GPUS)
    return out


SAMPLES = ("x <y> & z", 3, 1, 0, 70000, 2.5, ["a", "b"], True, None)


def _sample_contexts(text: str):
    from jinja2 import meta

    from quizgen.render.jinja import environment

    names = meta.find_undeclared_variables(environment().parse(text))
    for sample in SAMPLES:
        yield {name: sample for name in names}


def main(seeds: int) -> None:
    assert phrases.CHECK, "run with QUIZGEN_CHECK_PHRASES=1"
    todo = cases(seeds)
    for lang in LANGS:
        for cell, level, seed, gpu in todo:
            try:
                problem = generate_one(cell, level=level, seed=seed, lang=lang, gpu=gpu)
            except QuizgenError:        # a cell that does not run on that GPU
                continue
            if seed == 0 and gpu is None:
                solution_texts(problem)
    for args in CALCULATORS:
        run(args)
    with tempfile.TemporaryDirectory() as tmp:
        grade_a_class(Path(tmp))
        grade_remarks(Path(tmp))
        for lang in LANGS:
            out = Path(tmp) / f"bank-{lang}.xml"
            run_once(["export", "occupancy-basics", "--format", "moodle", "--variants", "1",
                      "--lang", lang, "--out", str(out)])
            run_once(["deck", "--skills", "--variants", "2", "--lang", lang,
                      "--out", str(Path(tmp) / f"skills-{lang}.apkg")])
            intro.intro_fields(lang, "")        # the deck's introduction card
    library_only()
    # A variant no flow above reached is rendered with the contexts its section's phrases were
    # rendered with (a call site fills all keys of a section alike, e.g. the notes of a failed
    # launch); counted only where it renders text.
    lazies = {v.where: v for lang in LANGS for entry in phrases._entries(lang).values()
              for v in entry[0] if v.__class__ is phrases._Lazy}
    for where in sorted(templated() - phrases.CHECKED):
        for context in phrases.CONTEXTS.get(where[:2], []):
            phrases.check_variant(lazies[where], context)
            if where in phrases.CHECKED:
                break
    # What is still unreached (a message of a path no flow above takes, e.g. the grader's
    # refusals of a malformed sheet) is rendered with its own names set to sample values of one
    # kind at a time; counted, again, only where it renders text.
    for where in sorted(templated() - phrases.CHECKED):
        for context in _sample_contexts(lazies[where].text):
            phrases.check_variant(lazies[where], context)
            if where in phrases.CHECKED:
                break
    missing = sorted(templated() - phrases.CHECKED)
    for where in missing:
        print("|".join(map(str, where)))
    for where in plain_unlike_jinja(lazies):
        print("plain phrase unlike Jinja's|" + "|".join(map(str, where)))


def plain_unlike_jinja(lazies: dict) -> list[tuple]:
    """The variants whose plain rendering (`quizgen.render.plain`) differs from Jinja's with a
    context the code gave their section (where both give text)."""
    from quizgen.render.jinja import _jinja_phrase, environment, phrase_finalize
    from quizgen.render.plain import plain_phrase

    unlike = []
    for where, variant in sorted(lazies.items()):
        plain = plain_phrase(variant.text, phrase_finalize, environment().filters)
        if plain is None:
            continue
        jinja = _jinja_phrase(variant.text)
        for context in phrases.CONTEXTS.get(where[:2], []):
            try:
                expected = jinja(context)
            except Exception:  # noqa: BLE001 - a context of another key of the section
                continue
            try:
                got = plain(context)
            except Exception:  # noqa: BLE001 - left to Jinja, which printed `expected`
                continue
            if got != expected:
                unlike.append(where)
                break
    return unlike


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
