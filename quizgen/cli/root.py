"""The root of the `quizgen` command: the Typer app every command module registers on, its
`--version`, and the one way a command refuses its input (`fail`)."""

import sys

import typer

app = typer.Typer(
    name="quizgen",
    help="GPU architecture practice: occupancy, warps, latency hiding and divergence as "
         "auto-solved problems with worked solutions (Hinglish or English), Anki decks, "
         "exam sheets and an auto-grader.\n\n"
         "Exit codes: 0 done (check: the answer is right); 1 check: wrong, blank or unreadable "
         "answer; 2 bad input or an output that cannot be written (one line on stderr says "
         "what and how to fix it); 3 a bug in quizgen (please report it).",
    no_args_is_help=True,
    add_completion=True,      # --install-completion / --show-completion (bash, zsh, fish, PowerShell)
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            number = version("quizgen")
        except PackageNotFoundError:          # a checkout on PYTHONPATH, not installed
            number = "unknown (not installed)"
        typer.echo(f"quizgen {number} (Python {sys.version.split()[0]})")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", "-V", callback=_version, is_eager=True,
                                 help="Print quizgen's version and exit."),
) -> None:
    """GPU architecture practice: calculators, problems, decks, sheets and grading."""


def fail(message: str) -> "typer.Exit":
    """Print one error line to stderr and exit with code 2."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code=2)
