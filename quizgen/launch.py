"""The `quizgen` command's entry point: the CLI (`quizgen.cli.main`), then a frozen heap."""

from __future__ import annotations

import gc
import sys


def main() -> None:
    try:
        from quizgen.cli import main as cli_main
    except (ValueError, OSError) as exc:
        # The CLI lists its languages as it loads, from the templates folder: one that
        # QUIZGEN_TEMPLATES names wrongly is said in one line, like any other bad input.
        sys.stderr.write(f"error: {exc}\n")
        raise SystemExit(2) from None
    try:
        cli_main()
    finally:
        # The command is over: spare the interpreter's collections at exit a walk over every
        # object it made (about a tenth of a second after the default deck).
        gc.freeze()
