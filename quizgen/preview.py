"""`quizgen preview`: a static, offline HTML site of what a recipe holds, before building it.

One page per scenario cell of a deck recipe (or per question of an exam recipe): the first
problem of each level as the deck draws it (an exam: one version of each question), in every
language (the recipe's first), with its figure (inline SVG), its worked
solution (formulas in Unicode, so that nothing is fetched: the site opens from a USB stick or
a student's phone with no network) and its answer. `index.html` lists the pages and, for an
exam recipe, shows the first page of two versions as printed (when pypdfium2, the scan extra,
is installed to turn PDF pages into images).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

@dataclass(frozen=True, slots=True)
class PreviewSummary:
    pages: int
    problems: int
    out_dir: Path


def _problem_view(problem) -> dict[str, Any]:
    from quizgen.render.cards import question_html
    from quizgen.render.figures import draw_figure, figure_spec
    from quizgen.render.text import labels, math_steps

    spec = figure_spec(problem)
    return {"id": problem.id, "cell": problem.cell, "level": problem.level, "lang": problem.lang,
            "title": problem.title, "question": question_html(problem),
            "choices": [c.text for c in problem.choices or ()],
            "figure": draw_figure(spec) if spec is not None else "",
            "solution": problem.solution, "steps": math_steps(problem.solution, "unicode"),
            "labels": labels(problem.lang)}


@dataclass(frozen=True, slots=True)
class _Page:
    """One page of the site: its file stem, its heading, and how to draw its problems (drawn
    when the page is written, so that the site is made one page at a time)."""

    name: str
    heading: str
    draw: Callable[[], list[Any]]


def _deck_pages(recipe) -> list[_Page]:
    from quizgen.generator import generate_one
    from quizgen.languages import LANGS
    from quizgen.recipes import problem_seed

    langs = [*recipe.langs, *(lang for lang in LANGS if lang not in recipe.langs)]
    gpu = recipe.gpus[0] if recipe.gpus else None

    def draw(cell: str) -> list[Any]:
        return [generate_one(cell, level=level, lang=lang, gpu=gpu,
                             seed=problem_seed(recipe.seed, cell, level, 0))
                for level in recipe.levels for lang in langs]

    return [_Page(cell, cell, partial(draw, cell)) for cell in recipe.cells]


def _exam_pages(recipe) -> list[_Page]:
    from quizgen.generator import generate_one
    from quizgen.languages import LANGS

    langs = [recipe.lang, *(lang for lang in LANGS if lang != recipe.lang)]

    def draw(number: int, question) -> list[Any]:
        gpu = question.gpus[0] or recipe.gpu
        return [generate_one(cell, level=question.level, lang=lang, gpu=gpu,
                             seed=recipe.seed + number)
                for cell in question.cells for lang in langs]

    return [_Page(f"Q{number}", f"Q{number}: {', '.join(question.cells)}",
                  partial(draw, number, question))
            for number, question in enumerate(recipe.questions, 1)]


#: A page links to every other page up to this many pages; a longer site links each page to
#: the index and its neighbours (a link to each of 3,000 questions on every page would make the
#: site grow with the square of its pages).
NAV_ALL = 60


def _nav(pages: list[_Page], index: int) -> list[dict[str, str]]:
    """The links of page `index`'s navigation bar."""
    if len(pages) <= NAV_ALL:
        chosen = pages
    else:
        chosen = pages[max(0, index - 1):index + 2]
    return [{"name": p.name, "heading": p.heading} for p in chosen]


#: Exam versions whose first page the preview of an exam recipe shows.
PREVIEW_VERSIONS = 2
#: The longest exam whose versions are printed for their first pages (a longer one would be laid
#: out whole, twice, for two pages): the index says so instead.
PREVIEW_PRINTED = 40


def _first_pages(recipe, folder: Path) -> tuple[list[str], str]:
    """PNG file names of the first page of `PREVIEW_VERSIONS` exam versions, written into
    `folder`, and a note for the index page; none when pypdfium2 (the scan extra) is not
    installed to rasterise them."""
    if len(recipe.questions) > PREVIEW_PRINTED:
        return [], (f"The printed first pages are shown for exams of up to {PREVIEW_PRINTED} "
                    f"questions; quizgen sheet prints this one.")
    try:
        import pypdfium2
    except ImportError:
        return [], ""
    import tempfile

    import pypdf

    from quizgen.export.sheet import build_exam
    from quizgen.generator import generate_one

    with tempfile.TemporaryDirectory(prefix="quizgen-preview-") as tmp:
        result = build_exam(recipe, None, PREVIEW_VERSIONS, Path(tmp) / "exam",
                            generate=generate_one)
        reader = pypdf.PdfReader(result.exam_pdf)
        firsts = sorted(reader.get_destination_page_number(item) for item in reader.outline
                        if not isinstance(item, list))
        pdf = pypdfium2.PdfDocument(str(result.exam_pdf))
        names = []
        try:
            for n, index in enumerate(firsts[:PREVIEW_VERSIONS], 1):
                image = pdf[index].render(scale=1.4).to_pil()
                name = f"version-{n}.png"
                image.save(folder / name, format="PNG", optimize=True)
                names.append(name)
        finally:
            pdf.close()
    return names, ""


def load_any_recipe(name: str | None):
    """("deck" or "exam", the recipe) for a packaged name or a TOML file of either kind, read
    by the recipe reader every command shares (``quizgen export`` takes both kinds too)."""
    from quizgen.recipes import load_bank_recipe

    recipe = load_bank_recipe(name)
    return ("exam", recipe.exam) if recipe.exam is not None else ("deck", recipe.deck)


#: The language of the index page's own words; each page shows every language.
INDEX_LANG = "en"


def _index_title(views: list[dict[str, Any]]) -> str:
    """A page's title as the index lists it: in the index's language, so that its list does not
    switch language beside its own words (a Hinglish title when there is no English one)."""
    own = [view["title"] for view in views if view["lang"] == INDEX_LANG]
    return own[0] if own else views[0]["title"] if views else ""


def build_preview(name: str | None, out: str | os.PathLike[str], *, force: bool = False,
                  progress=None) -> PreviewSummary:
    """Write the preview site of recipe `name` into the folder `out` (published whole). Pages
    are drawn and written one at a time: memory does not grow with the recipe."""
    from quizgen.files import check_folder, publish_folder, staged_folder
    from quizgen.render.jinja import template

    kind, recipe = load_any_recipe(name)
    pages = _deck_pages(recipe) if kind == "deck" else _exam_pages(recipe)
    title = recipe.title
    out = Path(out)
    check_folder(out, force=force)
    page_template = template("preview/page.html.j2")
    index_template = template("preview/index.html.j2")
    names, listed, problems = [], [], 0
    with staged_folder(out) as staged:
        for i, spec in enumerate(pages):
            views = [_problem_view(p) for p in spec.draw()]
            html = page_template.render(site_title=title, kind=kind, pages=_nav(pages, i),
                                        page={"name": spec.name, "heading": spec.heading,
                                              "problems": views})
            (staged / f"{spec.name}.html").write_text(html, encoding="utf-8")
            names.append(f"{spec.name}.html")
            listed.append({"name": spec.name, "heading": spec.heading,
                           "title": _index_title(views)})
            problems += len(views)
            del views, html
            if progress is not None:
                progress(i + 1, len(pages))
        images, note = _first_pages(recipe, staged) if kind == "exam" else ([], "")
        names += images
        (staged / "index.html").write_text(
            index_template.render(site_title=title, pages=listed, kind=kind, images=images,
                                  images_note=note,
                                  description=getattr(recipe, "description", "")),
            encoding="utf-8")
        names.append("index.html")
        publish_folder(staged, out, names)
    return PreviewSummary(len(pages), problems, out)
