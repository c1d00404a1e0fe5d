"""`quizgen generate`: problems with worked solutions, as Markdown, HTML or JSON."""


from pathlib import Path
from typing import Annotated, Optional

import typer

from quizgen.cli import app
from quizgen.cli.options import LangOpt, check_lang


@app.command("generate")
def generate_command(
    cell: Annotated[Optional[list[str]], typer.Option("--cell", "-c", help="Scenario cell (repeatable), e.g. OCC-3, W-C, X-1. Default: every cell.")] = None,
    count: Annotated[int, typer.Option("--count", "-n", help="Problems per cell (and per level).")] = 1,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the first problem; problem i uses seed + i.")] = 0,
    level: Annotated[Optional[list[int]], typer.Option("--level", help="Difficulty level 1, 2 or 3 (repeatable). Default: 1.")] = None,
    gpu: Annotated[Optional[str], typer.Option("--gpu", "-g", help="GPU preset to use instead of each cell's own choice.")] = None,
    lang: LangOpt = "hinglish",
    fmt: Annotated[str, typer.Option("--format", "-f", help="md, html or json.")] = "md",
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Write to this file instead of standard output.")] = None,
) -> None:
    """Generate problems, solve them exactly and write their worked solutions.

    Example: quizgen generate --cell OCC-2 --count 3 --level 2 --lang en
    """
    from quizgen.errors import QuizgenError
    from quizgen.export.text import write_problems
    from quizgen.problems import family, generate_one

    lang = check_lang(lang)
    if fmt not in ("md", "html", "json"):
        raise QuizgenError(f"got {fmt!r}; expected md, html or json", field="format")
    if count < 0:
        raise QuizgenError(f"got {count}; expected a whole number ≥ 0", field="count")
    if seed < 0:
        raise QuizgenError(f"got {seed}; expected a whole number ≥ 0", field="seed")
    from quizgen.problems import CELLS

    cells = [family(c).cell for c in cell] if cell else list(CELLS)
    levels = level or [1]
    jobs = [(c, lv, seed + i) for c in cells for lv in levels for i in range(count)]
    problems = []
    if len(jobs) > 50:
        from rich.progress import Progress

        with Progress(transient=True) as progress:
            task = progress.add_task("Generating", total=len(jobs))
            for c, lv, s in jobs:
                problems.append(generate_one(c, level=lv, seed=s, lang=lang, gpu=gpu))
                progress.advance(task)
    else:
        problems = [generate_one(c, level=lv, seed=s, lang=lang, gpu=gpu) for c, lv, s in jobs]
    text = write_problems(problems, fmt, lang)
    if out is None:
        typer.echo(text, nl=False)
    else:
        out.write_text(text, encoding="utf-8")
        typer.echo(f"{len(problems)} problems → {out}", err=True)
