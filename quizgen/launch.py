"""The `quizgen` command's entry point: the CLI (`quizgen.cli.main`), then a frozen heap."""

from __future__ import annotations

import gc


def main() -> None:
    from quizgen.cli import main as cli_main

    try:
        cli_main()
    finally:
        # The command is over: spare the interpreter's collections at exit a walk over every
        # object it made (about a tenth of a second after the default deck).
        gc.freeze()
