"""`quizgen generate`: problems with worked solutions, as Markdown, HTML or JSON."""


import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from quizgen.cli.root import app
from quizgen.cli.options import LangOpt, check_lang
from quizgen.languages import DEFAULT_LANG


#: The most problems `generate` makes per cell and level.
MAX_COUNT = 1_000_000


@app.command("generate")
def generate_command(
    cell: Annotated[Optional[list[str]], typer.Option("--cell", "-c", help="Scenario cell (repeatable), e.g. OCC-3, W-C, X-1. Default: every cell.")] = None,
    count: Annotated[int, typer.Option("--count", "-n", help="Problems per cell (and per level).")] = 1,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the first problem; problem i uses seed + i.")] = 0,
    level: Annotated[Optional[list[int]], typer.Option("--level", help="Difficulty level 1, 2 or 3 (repeatable). Default: 1.")] = None,
    gpu: Annotated[Optional[str], typer.Option("--gpu", "-g", help="GPU preset to use instead of each cell's own choice.")] = None,
    lang: LangOpt = DEFAULT_LANG,
    fmt: Annotated[str, typer.Option("--format", "-f", help="md, html or json.")] = "md",
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Write to this file instead of standard output.")] = None,
) -> None:
    """Generate problems, solve them exactly and write their worked solutions.

    Example: quizgen generate --cell OCC-2 --count 3 --level 2 --lang en
    """
    from quizgen.export.text import iter_problems_text
    from quizgen.generator import family, generate_one

    lang = check_lang(lang)
    _check_numbers(fmt, count, seed)
    from quizgen.problems import CELLS

    cells = [family(c).cell for c in cell] if cell else list(CELLS)
    levels = level or [1]
    total = len(cells) * len(levels) * count

    def problems(advance=None):
        # one problem at a time: memory stays flat however many are asked for
        for c in cells:
            for lv in levels:
                for i in range(count):
                    yield generate_one(c, level=lv, seed=seed + i, lang=lang, gpu=gpu)
                    if advance is not None:
                        advance()

    def write(handle, advance=None) -> None:
        for piece in iter_problems_text(problems(advance), fmt, lang):
            handle.write(piece)

    if out is None:
        write(sys.stdout)
        return
    _write_file(out, write, total)


def _check_numbers(fmt: str, count: int, seed: int) -> None:
    """The format, the count and the seed, each refused in one line when out of range."""
    from quizgen.errors import QuizgenError

    if fmt not in ("md", "html", "json"):
        raise QuizgenError(f"got {fmt!r}; expected md, html or json", field="format")
    from quizgen.recipes import MAX_SEED

    if not 0 <= count <= MAX_COUNT:
        raise QuizgenError(f"got {count}; expected a whole number from 0 to {MAX_COUNT:,}",
                           field="count")
    if not 0 <= seed <= MAX_SEED:
        raise QuizgenError(f"got {seed}; expected a whole number from 0 to {MAX_SEED:,}",
                           field="seed")


def _write_file(out: Path, write, total: int) -> None:
    """`write(handle, advance)` into `out` atomically, with a progress bar on a terminal for
    more than 50 problems."""
    from quizgen.files import atomic_open

    with atomic_open(out, "w", field="out") as handle:
        if total > 50 and sys.stderr is not None and sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import Progress

            with Progress(transient=True, console=Console(stderr=True)) as progress:
                task = progress.add_task("Generating", total=total)
                write(handle, lambda: progress.advance(task))
        else:
            write(handle)
    typer.echo(f"{total} problems → {out}", err=True)
