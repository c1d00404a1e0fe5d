"""The `quizgen` command's entry point.

``quizgen --help`` prints a copy of the top-level help shipped with the package
(``quizgen/data/help.txt``, written by ``python -m quizgen.build_data`` and checked by a test
against what the CLI prints), so the commonest first command starts without building the whole CLI.
Everything else goes to `quizgen.cli.main`.
"""

from __future__ import annotations

import gc
import os
import sys

HELP_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "help.txt")
#: The help is wrapped to min(terminal columns, 80) − 2; the shipped copy is the 80-column one.
HELP_COLUMNS = 80


def main() -> None:
    if sys.argv[1:] in (["--help"], ["-h"]) and _shipped_help():
        return
    from quizgen.cli import main as cli_main

    try:
        cli_main()
    finally:
        # The command is over: spare the interpreter's collections at exit a walk over every
        # object it made (about a tenth of a second after the default deck).
        gc.freeze()


def _shipped_help() -> bool:
    import shutil

    if shutil.get_terminal_size().columns < HELP_COLUMNS:
        return False
    try:
        with open(HELP_FILE, encoding="utf-8") as fh:
            text = fh.read()
    except OSError:
        return False
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except OSError:
        return False        # the CLI prints it again and reports the failure in one line
    return True


def live_help() -> str:
    """The top-level help as the CLI prints it in an 80-column terminal."""
    import subprocess

    env = {**os.environ, "COLUMNS": str(HELP_COLUMNS)}
    env.pop("LINES", None)
    done = subprocess.run([sys.executable, "-c", "from quizgen.cli import main; main()", "--help"],
                          capture_output=True, text=True, env=env, check=True)
    return done.stdout


if __name__ == "__main__":  # the earlier command for help.txt; every data file now has one
    from quizgen import build_data

    build_data.main(["help.txt"])
