"""`quizgen sheet`: printable exams, one version per student, with key, manifest and answer sheet."""


import dataclasses
from pathlib import Path
from typing import Annotated, Optional

import typer

from quizgen.cli.root import app
from quizgen.cli.options import LANG_CHOICES


@app.command("sheet")
def sheet_command(
    recipe: Annotated[Optional[str], typer.Argument(help="Exam recipe (TOML file, or a packaged one such as midterm). Default: midterm.")] = None,
    roster: Annotated[Optional[Path], typer.Option("--roster", help="Class roster CSV with a 'name' column (and optionally 'roll'): one version per student.")] = None,
    versions: Annotated[Optional[int], typer.Option("--versions", help="Without a roster: this many anonymous versions.")] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder for exam.pdf, key.pdf, manifest.json, answers.csv.")] = Path("exam"),
    paper: Annotated[str, typer.Option("--paper", help="a4 or letter.")] = "a4",
    practice: Annotated[bool, typer.Option("--practice", help="Practice worksheet: each student's paper also holds the answers and worked solutions (see --solutions).")] = False,
    solutions: Annotated[Optional[str], typer.Option("--solutions", help="With --practice, where the answers and worked solutions go: end (after a page break at the end of each student's paper; the default) or under (right under each problem's answer boxes).")] = None,
    lang: Annotated[Optional[str], typer.Option("--lang", "-l", help=f"Language of the questions, solutions and sheet: {LANG_CHOICES} (default: the recipe's).")] = None,
    shuffle: Annotated[Optional[bool], typer.Option("--shuffle/--no-shuffle", help="Print each student's questions in an order of their own (kept in the manifest; question numbers stay). Default: the recipe's.")] = None,
    font_path: Annotated[Optional[list[Path]], typer.Option("--font-path", help="Extra folder of fonts (e.g. a Devanagari font for roster names); repeatable.")] = None,
    bubbles: Annotated[bool, typer.Option("--bubbles", help="Print a bubble grid under every answer box, corner marks and a QR code on every page, for `quizgen scan` (the manifest records every bubble).")] = False,
    title: Annotated[Optional[str], typer.Option("--title", help="The exam's title, printed on every page (default: the recipe's).")] = None,
    course: Annotated[Optional[str], typer.Option("--course", help="Your course, printed on every page, e.g. 'CS 610: GPU Programming' (default: the recipe's).")] = None,
    date: Annotated[Optional[str], typer.Option("--date", help="The exam's date as it should be printed, e.g. 2026-03-12 (default: the recipe's).")] = None,
    duration: Annotated[Optional[str], typer.Option("--duration", help="Time allowed as printed, e.g. '90 minutes' (default: the recipe's).")] = None,
    instructions: Annotated[Optional[str], typer.Option("--instructions", help="Instructions on each paper's first page ('' for none; default: the recipe's).")] = None,
    seed: Annotated[Optional[int], typer.Option("--seed", help="Seed of every version's numbers: another seed, other numbers (default: the recipe's).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Build into a folder that holds files quizgen did not write (a filled answers.csv, graded/): only quizgen's own files are replaced; yours stay (one in the way is kept as NAME.kept).")] = False,
) -> None:
    """Write a unique exam version per student, an answer key with worked solutions, and the
    grader's inputs (manifest.json, answers.csv).

    Example: quizgen sheet --roster class.csv --course "CS 610" --date 2026-03-12 --out midterm/

    The title, course, date and duration are printed on every page. `quizgen recipe copy
    midterm my-exam.toml` gives the packaged recipe to edit.

    For paper graded from a scanner: quizgen sheet --roster class.csv --bubbles --out midterm/
    """
    import warnings

    from quizgen.cli.options import progress_reporter
    from quizgen.export.sheet import build_exam
    from quizgen.generator import generate_one
    from quizgen.recipes import read_roster

    paper_name = _paper_and_versions(paper, roster, versions)
    layout = _solutions(practice, solutions)
    the_recipe = _exam_recipe(recipe, lang, shuffle, title=title, course=course, date=date,
                              duration=duration, instructions=instructions, seed=seed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        students = read_roster(roster) if roster is not None else None
        with progress_reporter("sheet", "students") as progress:
            result = build_exam(the_recipe, students, versions, out, generate=generate_one,
                                paper=paper_name, practice=practice, solutions=layout,
                                font_paths=[str(p) for p in (font_path or [])], force=force,
                                progress=progress, bubbles=bubbles)
    for warning in caught:
        typer.echo(f"warning: {warning.message}", err=True)
    typer.echo(f"{result.students} versions → {result.out_dir}/ (exam.pdf, key.pdf, manifest.json, answers.csv)")


def _solutions(practice: bool, solutions: Optional[str]) -> str:
    """Where a practice sheet's solutions go (one error line for a value, or for --solutions
    without --practice)."""
    from quizgen.errors import QuizgenError
    from quizgen.export.sheet.layout import SOLUTIONS

    if solutions is None:
        return SOLUTIONS[0]
    if solutions.lower() not in SOLUTIONS:
        raise QuizgenError(f"got {solutions!r}; expected {' or '.join(SOLUTIONS)}",
                           field="solutions")
    if not practice:
        raise QuizgenError("an exam prints no solutions; --solutions is for a practice sheet "
                           "(add --practice)", field="solutions")
    return solutions.lower()


def _paper_and_versions(paper: str, roster: Optional[Path], versions: Optional[int]) -> str:
    """The paper's name for the builder (``letter`` → ``us-letter``), after checking --paper,
    --versions and --roster (one error line each)."""
    from quizgen.errors import QuizgenError
    from quizgen.manifest import MAX_STUDENTS

    paper_name = {"a4": "a4", "letter": "us-letter", "us-letter": "us-letter"}.get(paper.lower())
    if paper_name is None:
        raise QuizgenError(f"got {paper!r}; expected a4 or letter", field="paper")
    if versions is not None and not 1 <= versions <= MAX_STUDENTS:
        raise QuizgenError(f"got {versions}; expected a whole number from 1 to {MAX_STUDENTS:,}",
                           field="versions")
    if roster is not None and versions is not None:
        raise QuizgenError("give either --roster or --versions, not both", field="versions")
    return paper_name


def _exam_recipe(recipe: Optional[str], lang: Optional[str], shuffle: Optional[bool], **cover):
    """The exam recipe read, with the command line's --lang, --shuffle and cover fields."""
    from quizgen.errors import QuizgenError
    from quizgen.recipes import load_exam_recipe
    from quizgen.languages import LANGS

    the_recipe = load_exam_recipe(recipe)
    if lang is not None:
        if lang.lower() not in LANGS:
            raise QuizgenError(f"got {lang!r}; expected one of: {', '.join(LANGS)}", field="lang")
        the_recipe = dataclasses.replace(the_recipe, lang=lang.lower())
    if shuffle is not None:
        the_recipe = dataclasses.replace(the_recipe, shuffle=shuffle)
    return _cover(the_recipe, **cover)


def _cover(recipe, **given):
    """The recipe with the cover fields given on the command line, each checked as the recipe's
    own field would be (one error line naming the option)."""
    from quizgen.recipes import parse_exam_recipe

    given = {key: value for key, value in given.items() if value is not None}
    if not given:
        return recipe
    raw = {key: value for key, value in recipe.to_dict().items()}
    raw.update(given)
    return parse_exam_recipe(raw)
