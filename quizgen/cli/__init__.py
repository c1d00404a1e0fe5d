"""The `quizgen` command: a thin layer that parses arguments, calls the library, prints.

Each command group lives in its own module under ``quizgen/cli/`` and registers itself on `app`.
Heavy imports (sympy, genanki, typst) happen inside the commands, never at module import, so that
``quizgen --help`` stays quick.
"""


import sys

import typer

from quizgen.errors import QuizgenError

app = typer.Typer(
    name="quizgen",
    help="GPU architecture practice: occupancy, warps, latency hiding and divergence as "
         "auto-solved problems with worked solutions (Hinglish or English), Anki decks, "
         "exam sheets and an auto-grader.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

@app.callback()
def _root() -> None:
    """GPU architecture practice: calculators, problems, decks, sheets and grading."""


# Command modules register themselves on import.
from quizgen.cli import occupancy as _occupancy  # noqa: E402,F401
from quizgen.cli import calculators as _calculators  # noqa: E402,F401
from quizgen.cli import generate as _generate  # noqa: E402,F401
from quizgen.cli import deck as _deck  # noqa: E402,F401
from quizgen.cli import sheet as _sheet  # noqa: E402,F401
from quizgen.cli import grade as _grade  # noqa: E402,F401


def fail(message: str) -> "typer.Exit":
    """Print one error line to stderr and exit with code 2."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code=2)


def main() -> None:
    """Console-script entry point: user errors become one line and exit code 2."""
    try:
        app(prog_name="quizgen")     # also under `python -m quizgen`
    except QuizgenError as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(2)
