"""`quizgen deck`: build a spaced-repetition deck (Anki .apkg or Obsidian notes) from a recipe."""


from pathlib import Path
from typing import Annotated, Optional

import typer

from quizgen.cli.root import app
from quizgen.cli.options import either
from quizgen.languages import LANGS


@app.command("deck")
def deck_command(
    recipe: Annotated[Optional[str], typer.Argument(help="Deck recipe: a TOML file, or the name of a packaged recipe (default, occupancy-basics). Default: the whole course.")] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Output: an .apkg file (Anki), or a folder with --format obsidian.")] = Path("quizgen.apkg"),
    fmt: Annotated[str, typer.Option("--format", "-f", help="apkg (Anki, AnkiDroid, AnkiMobile) or obsidian (Spaced Repetition plugin notes).")] = "apkg",
    seed: Annotated[Optional[int], typer.Option("--seed", help="Override the recipe's seed.")] = None,
    lang: Annotated[Optional[str], typer.Option("--lang", "-l", help=f"Override the language: {either([*LANGS, 'both'])}.")] = None,
    per_cell: Annotated[Optional[int], typer.Option("--per-cell", help="Override problems per cell and level.")] = None,
    gpu: Annotated[Optional[str], typer.Option("--gpu", "-g", help="Override the GPU: a preset, a comma list, or 'default' (each cell's own).")] = None,
    skills: Annotated[bool, typer.Option("--skills", help="Only skill notes: one note per cell and level that shows a new solved variant each day (Anki only).")] = False,
    variants: Annotated[Optional[int], typer.Option("--variants", help="Solved variants per skill note (default 12, or the recipe's 'variants').")] = None,
    lock: Annotated[Optional[Path], typer.Option("--lock", help="Lock file that remembers each note's content and time, so a rebuild re-stamps only changed notes. Default: beside the recipe (my.toml → my.lock.json), or beside --out for a shipped recipe.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress (a bar on a terminal, else a line on stderr every few seconds).")] = False,
    force: Annotated[bool, typer.Option("--force", help="With --format obsidian: write into a folder that holds other files too (they are never changed; one in the way of a note is kept as NAME.kept).")] = False,
) -> None:
    """Build the deck: auto-solved problems with worked solutions, one note per problem.

    A note's identity is its problem, and a lock file keeps each note's time until its content
    changes: re-importing a rebuild updates only the changed notes (keeping reviews), adds new
    problems, and leaves the rest, with students' tags and edits, alone. The last line says how
    many. Example: quizgen deck --out gpu.apkg --lang en --per-cell 2
    """
    from quizgen.errors import QuizgenError
    from quizgen.recipes import apply_overrides, load_deck_recipe

    if fmt not in ("apkg", "obsidian"):
        raise QuizgenError(f"got {fmt!r}; expected apkg or obsidian", field="format")
    the_recipe = apply_overrides(load_deck_recipe(recipe), seed=seed, lang=lang, per_cell=per_cell, gpu=gpu,
                                 variants=variants, skills=skills)
    _check_output(fmt, skills, out, lock, recipe)

    def run(progress):
        if fmt == "apkg":
            from quizgen.export.anki import build_deck, default_lock_path

            return build_deck(the_recipe, out, progress=progress,
                              lock=lock if lock is not None else default_lock_path(the_recipe, out))
        from quizgen.export.obsidian import write_obsidian

        return write_obsidian(the_recipe, out, progress=progress, force=force)

    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        summary = _build(run, quiet)
    for warning in caught:
        typer.echo(f"warning: {warning.message}", err=True)
    typer.echo(_summary_line(summary, fmt, out))


def _build(run, quiet: bool):
    from quizgen.cli.options import progress_reporter

    with progress_reporter("deck", "problems", quiet=quiet) as progress:
        return run(progress)


def _check_output(fmt: str, skills: bool, out: Path, lock: Optional[Path],
                  recipe: Optional[str]) -> None:
    """--format, --skills, --out and --lock agree (one error line each)."""
    from quizgen.errors import QuizgenError

    if fmt == "obsidian" and skills:
        raise QuizgenError("skill notes need Anki's card scripts; use --format apkg", field="skills")
    if fmt == "apkg" and out.suffix.lower() != ".apkg":
        raise QuizgenError(f"{out} should end in .apkg (or use --format obsidian for a folder)", field="out")
    if fmt == "apkg" and out.exists() and out.is_dir():
        raise QuizgenError(f"{out} is a folder; give a file name ending in .apkg", field="out")
    if lock is not None:
        from quizgen.files import refuse_overwriting_inputs

        refuse_overwriting_inputs(lock, [recipe, out], field="lock")


def _summary_line(summary, fmt: str, out: Path) -> str:
    """The last line: what the deck holds, where it went, and what a re-import changes."""
    size = summary.bytes
    human = f"{size / 1024 / 1024:.1f} MB" if size >= 1024 * 1024 else f"{size / 1024:.0f} KB"
    where = "folder" if fmt == "obsidian" else "file"
    line = f"{summary.notes} notes, {summary.cards} cards, {summary.cells} cells, {human} → {out} ({where})"
    changes = getattr(summary, "changes", None)
    if changes is not None:
        if changes.first:
            line += f"; re-import: all {changes.added} notes new (lock {summary.lock} started)"
        else:
            line += (f"; re-import into a collection with the last build: {changes.added} new, "
                     f"{changes.updated} updated, {changes.unchanged} left as they are "
                     f"(lock {summary.lock})")
    if summary.replaced:
        line += f"; replaced the earlier notes {', '.join(summary.replaced)} (schedules moved)"
    return line
