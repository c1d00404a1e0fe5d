"""`quizgen recipe`: the recipes shipped with quizgen, listed, shown, and copied out to edit."""


from pathlib import Path
from typing import Annotated

import typer

from quizgen.cli.root import app

recipe_app = typer.Typer(help="The packaged deck and exam recipes: list them, show one, copy one "
                              "to edit (then give the copy to deck, sheet or export).",
                         no_args_is_help=True)
app.add_typer(recipe_app, name="recipe")


@recipe_app.command("list")
def list_command() -> None:
    """List the packaged recipes: name, kind (deck or exam) and title.

    Example: quizgen recipe list
    """
    from quizgen.recipes import packaged_recipes

    recipes = packaged_recipes()
    width = max(len(r.name) for r in recipes)
    for r in recipes:
        typer.echo(f"{r.name:<{width}}  {r.kind:<4}  {r.title}")


@recipe_app.command("show")
def show_command(
    name: Annotated[str, typer.Argument(help="A packaged recipe's name (see `quizgen recipe list`).")],
) -> None:
    """Print a packaged recipe (TOML, with its comments).

    Example: quizgen recipe show midterm
    """
    from quizgen.recipes import packaged_recipe

    typer.echo(packaged_recipe(name).path.read_text(encoding="utf-8"), nl=False)


@recipe_app.command("copy")
def copy_command(
    name: Annotated[str, typer.Argument(help="A packaged recipe's name (see `quizgen recipe list`).")],
    file: Annotated[Path, typer.Argument(help="Where to write the copy, e.g. my-exam.toml.")],
    force: Annotated[bool, typer.Option("--force", help="Replace FILE if it exists.")] = False,
) -> None:
    """Copy a packaged recipe to FILE, to edit and then build from.

    Example: quizgen recipe copy midterm my-exam.toml && quizgen sheet my-exam.toml
    """
    from quizgen.errors import QuizgenError
    from quizgen.files import atomic_write
    from quizgen.recipes import packaged_recipe

    recipe = packaged_recipe(name)
    if file.is_dir():
        file = file / recipe.path.name
    if file.suffix.lower() != ".toml":
        raise QuizgenError(f"{file} should end in .toml", field="file")
    if file.exists() and not force:
        raise QuizgenError(f"{file} exists; give another name or --force to replace it",
                           field="file")
    atomic_write(file, recipe.path.read_bytes(), field="file")
    use = "sheet" if recipe.kind == "exam" else "deck"
    typer.echo(f"{recipe.name} → {file} (edit it, then: quizgen {use} {file})")
