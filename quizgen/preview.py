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
from dataclasses import dataclass
from pathlib import Path
from typing import Any



@dataclass(frozen=True, slots=True)
class PreviewSummary:
    pages: int
    problems: int
    out_dir: Path


def _problem_view(problem) -> dict[str, Any]:
    from quizgen.render.figures import draw_figure, figure_spec
    from quizgen.render.text import labels, math_steps

    spec = figure_spec(problem)
    return {"id": problem.id, "cell": problem.cell, "level": problem.level, "lang": problem.lang,
            "title": problem.title, "question": problem.question,
            "choices": [c.text for c in problem.choices or ()],
            "figure": draw_figure(spec) if spec is not None else "",
            "solution": problem.solution, "steps": math_steps(problem.solution, "unicode"),
            "labels": labels(problem.lang)}


def _deck_pages(recipe) -> list[dict[str, Any]]:
    from quizgen.generator import generate_one
    from quizgen.recipes import problem_seed

    from quizgen.languages import LANGS

    langs = [*recipe.langs, *(lang for lang in LANGS if lang not in recipe.langs)]
    pages = []
    for cell in recipe.cells:
        problems = []
        for level in recipe.levels:
            gpu = recipe.gpus[0] if recipe.gpus else None
            for lang in langs:
                problems.append(generate_one(cell, level=level, lang=lang, gpu=gpu,
                                             seed=problem_seed(recipe.seed, cell, level, 0)))
        pages.append({"name": cell, "heading": cell, "problems": [_problem_view(p) for p in problems]})
    return pages


def _exam_pages(recipe) -> list[dict[str, Any]]:
    from quizgen.generator import generate_one
    from quizgen.languages import LANGS

    langs = [recipe.lang, *(lang for lang in LANGS if lang != recipe.lang)]
    pages = []
    for number, question in enumerate(recipe.questions, 1):
        problems = []
        for cell in question.cells:
            for lang in langs:
                gpu = question.gpus[0] or recipe.gpu
                problems.append(generate_one(cell, level=question.level, lang=lang, gpu=gpu,
                                             seed=recipe.seed + number))
        pages.append({"name": f"Q{number}", "heading": f"Q{number}: {', '.join(question.cells)}",
                      "problems": [_problem_view(p) for p in problems]})
    return pages


#: Exam versions whose first page the preview of an exam recipe shows.
PREVIEW_VERSIONS = 2


def _first_pages(recipe, folder: Path) -> list[str]:
    """PNG file names of the first page of `PREVIEW_VERSIONS` exam versions, written into
    `folder`; none when pypdfium2 (the scan extra) is not installed to rasterise them."""
    try:
        import pypdfium2
    except ImportError:
        return []
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
    return names


def load_any_recipe(name: str | None):
    """("deck" or "exam", the recipe) for a packaged name or a TOML file of either kind, read
    by the recipe reader every command shares (``quizgen export`` takes both kinds too)."""
    from quizgen.recipes import load_bank_recipe

    recipe = load_bank_recipe(name)
    return ("exam", recipe.exam) if recipe.exam is not None else ("deck", recipe.deck)


def build_preview(name: str | None, out: str | os.PathLike[str], *, force: bool = False,
                  progress=None) -> PreviewSummary:
    """Write the preview site of recipe `name` into the folder `out` (published whole)."""
    from quizgen.files import check_folder, publish_folder, staged_folder
    from quizgen.render.jinja import template

    kind, recipe = load_any_recipe(name)
    pages = _deck_pages(recipe) if kind == "deck" else _exam_pages(recipe)
    title = recipe.title
    out = Path(out)
    check_folder(out, force=force)
    page_template = template("preview/page.html.j2")
    index_template = template("preview/index.html.j2")
    names = []
    with staged_folder(out) as staged:
        for i, page in enumerate(pages):
            html = page_template.render(site_title=title, page=page, pages=pages, kind=kind)
            (staged / f"{page['name']}.html").write_text(html, encoding="utf-8")
            names.append(f"{page['name']}.html")
            if progress is not None:
                progress(i + 1, len(pages))
        images = _first_pages(recipe, staged) if kind == "exam" else []
        names += images
        (staged / "index.html").write_text(
            index_template.render(site_title=title, pages=pages, kind=kind, images=images,
                                  description=getattr(recipe, "description", "")),
            encoding="utf-8")
        names.append("index.html")
        publish_folder(staged, out, names)
    return PreviewSummary(len(pages), sum(len(p["problems"]) for p in pages), out)
