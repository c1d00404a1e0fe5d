"""`quizgen export`: a question bank for an LMS (Moodle XML, GIFT, Canvas QTI) from a recipe."""


import time
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Optional

import typer

from quizgen.cli.root import app
from quizgen.cli.options import LANG_CHOICES
from quizgen.languages import LANGS

_SUFFIXES = {"moodle": ".xml", "gift": ".txt", "qti": ".zip"}


@app.command("export")
def export_command(
    recipe: Annotated[Optional[str], typer.Argument(help="A deck recipe or an exam recipe (TOML file or packaged name: default, occupancy-basics, midterm). Default: the whole course.")] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="moodle (Moodle XML), gift (Moodle GIFT text) or qti (Canvas / Blackboard QTI 1.2 zip).")] = "moodle",
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Output file (default quizgen-bank.xml, .txt or .zip by format).")] = None,
    variants: Annotated[Optional[int], typer.Option("--variants", help="Problems per category (cell, or exam question). Default: per_cell × levels of a deck recipe, 20 for an exam.")] = None,
    lang: Annotated[Optional[str], typer.Option("--lang", "-l", help=f"Language: {LANG_CHOICES} (default: the recipe's).")] = None,
    answers: Annotated[str, typer.Option("--answers", help="Deck recipes: main (each problem's one answer), all (every answer, as one multi-part question) or a comma list of answer keys.")] = "main",
    no_figures: Annotated[bool, typer.Option("--no-figures", help="Leave the figures out of the worked solutions.")] = False,
    only_new: Annotated[Optional[list[Path]], typer.Option("--only-new", help="A Moodle XML bank exported before (and imported): leave out its problems, so that importing this one adds only new problems, each keeping its idnumber. Give it once per bank already imported (every one is left out).")] = None,
) -> None:
    """Export a question bank: one category per cell holding N variants, each solved exactly.

    Wrong answers that a misconception predicts get their own feedback (and the partial grade the
    recipe's [lms] table gives). Example: quizgen export --format moodle --variants 20 --out gpu.xml
    """
    from quizgen.errors import QuizgenError
    from quizgen.export.lms import FORMATS, stream_bank
    from quizgen.recipes import load_bank_recipe

    if fmt not in FORMATS:
        raise QuizgenError(f"got {fmt!r}; expected one of: {', '.join(FORMATS)}", field="format")

    if lang is not None and lang not in LANGS:
        raise QuizgenError(f"got {lang!r}; expected {LANG_CHOICES}", field="lang")
    if answers not in ("main", "all") and not answers.replace(",", "").replace("_", "").replace(" ", "").isalnum():
        raise QuizgenError(f"got {answers!r}; expected main, all or answer keys such as "
                           "blocks_per_sm,occupancy", field="answers")
    path = out or Path(f"quizgen-bank{_SUFFIXES[fmt]}")
    if path.exists() and path.is_dir():
        raise QuizgenError(f"{path} is a folder; give a file name", field="out")
    from quizgen.files import refuse_overwriting_inputs

    banks = list(dict.fromkeys(only_new or ()))
    refuse_overwriting_inputs(path, [recipe, *banks])
    previous = None
    if banks:
        from quizgen.export.lms.moodle import bank_idnumbers

        previous = frozenset().union(*(bank_idnumbers(bank) for bank in banks))
    if fmt == "moodle":
        from quizgen.export.lms.moodle import write_moodle as write
    elif fmt == "gift":
        from quizgen.export.lms.gift import write_gift as write
    else:
        from quizgen.export.lms.qti import write_qti as write
    with _progress() as progress:
        bank = stream_bank(load_bank_recipe(recipe), variants=variants, lang=lang,
                           answers=answers, figures=not no_figures and fmt != "gift",
                           only_new=previous, progress=progress)
        size = write(bank, path)     # each question written as it is made; nothing if none is
    human = f"{size / 1024 / 1024:.1f} MB" if size >= 1024 * 1024 else f"{size / 1024:.0f} KB"
    kept = (f" ({bank.already} already in {', '.join(b.name for b in banks)} left out)"
            if banks else "")
    typer.echo(f"{bank.questions} questions in {bank.categories} categories, "
               f"{len(bank.figures)} figures, {human} → {path}{kept}")


@contextmanager
def _progress():
    """A progress bar on stderr (problems made so far), shown only on a terminal."""
    from rich.console import Console

    console = Console(stderr=True)
    if not console.is_terminal:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    bar = Progress(TextColumn("Writing the bank"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("problems"), TimeRemainingColumn(), console=console, transient=True)
    task = bar.add_task("export", total=None)
    shown = [0.0]

    def update(done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - shown[0] < 0.1:      # the bar redraws ten times a second
            return
        shown[0] = now
        bar.update(task, completed=done, total=total)

    with bar:
        yield update
