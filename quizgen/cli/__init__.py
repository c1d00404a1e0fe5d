"""The `quizgen` command: a thin layer that parses arguments, calls the library, prints.

Each command group lives in its own module under ``quizgen/cli/`` and registers itself on `app`.
Heavy imports (sympy, genanki, typst) happen inside the commands, never at module import, so that
``quizgen --help`` stays quick.
"""


import os
import sys

import typer

from quizgen.cli.root import app, fail  # noqa: F401  (the app every command registers on)
from quizgen.errors import QuizgenError

# Command modules register themselves on import.
from quizgen.cli import occupancy as _occupancy  # noqa: E402,F401
from quizgen.cli import calculators as _calculators  # noqa: E402,F401
from quizgen.cli import generate as _generate  # noqa: E402,F401
from quizgen.cli import deck as _deck  # noqa: E402,F401
from quizgen.cli import sheet as _sheet  # noqa: E402,F401
from quizgen.cli import grade as _grade  # noqa: E402,F401
from quizgen.cli import export as _export  # noqa: E402,F401
from quizgen.cli import scan as _scan  # noqa: E402,F401
from quizgen.cli import recipe as _recipe  # noqa: E402,F401
from quizgen.cli import preview as _preview  # noqa: E402,F401


#: Exit codes: 0 done (for `check`: right), 1 (`check` only) wrong, blank or unreadable answer,
#: 2 bad input (one line on stderr says what and how to fix it), 3 a bug in quizgen.
EXIT_BAD_INPUT = 2
EXIT_BUG = 3

BUG_REPORT = ("error: this is a bug in quizgen, not a problem with your input; please report it "
              "with the command you ran and the traceback above")


def error_line(exc: BaseException) -> str:
    """The one line (without 'error: ') for an exception caused by the input or the machine."""
    import csv

    from quizgen.files import os_error_text

    if isinstance(exc, QuizgenError):
        return str(exc)
    if isinstance(exc, OSError):
        return os_error_text(exc, action="read or write")
    if isinstance(exc, UnicodeEncodeError):
        bad = exc.object[exc.start:exc.end] if isinstance(exc.object, str) else ""
        return (f"the output encoding ({exc.encoding}) cannot write {ascii(bad)}; use a UTF-8 "
                "terminal or set PYTHONIOENCODING=utf-8")
    if isinstance(exc, UnicodeDecodeError):
        return (f"an input is not UTF-8 text ({exc.reason} at byte {exc.start}); save it as "
                "UTF-8")
    if isinstance(exc, RecursionError):
        return "an input is nested too deeply to read; flatten it"
    if isinstance(exc, csv.Error):
        return f"an input is not readable CSV ({exc}); save it again as CSV"
    if isinstance(exc, MemoryError):
        return "an input is too large to hold in memory; give a smaller one"
    return str(exc) or type(exc).__name__


def _stdout_done() -> int | None:
    """Flush standard output; None if that worked, else the exit code after saying why."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
        return None
    except BrokenPipeError:
        code = None     # the reader went away (`| head`): not an error of ours
    except OSError as exc:
        typer.echo(f"error: {error_line(exc)}".replace("read or write", "write standard output"),
                   err=True)
        code = EXIT_BAD_INPUT
    # nothing more can reach stdout; keep the interpreter from trying again at exit
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return code


def main() -> None:
    """Console-script entry point and the one error boundary.

    Bad input and the machine's refusals (a full disk, a folder you may not write) become one
    line on stderr and exit code 2; only a bug in quizgen prints a traceback (exit code 3).
    """
    import csv

    from quizgen.files import install_signal_handlers

    install_signal_handlers()
    if sys.stderr is not None:
        try:
            sys.stderr.reconfigure(errors="backslashreplace")   # an error line always prints
        except (AttributeError, ValueError):
            pass
    code: object = 0
    try:
        # not standalone: a usage error comes here, to be said in one line
        result = app(prog_name="quizgen", standalone_mode=False)   # also `python -m quizgen`
        code = result if isinstance(result, int) else 0
    except SystemExit as exc:
        code = exc.code
    except typer.Abort:
        typer.echo("error: aborted", err=True)
        code = EXIT_BAD_INPUT
    except typer.TyperException as exc:      # a usage error: unknown option, bad value, missing
        if type(exc).__name__ == "NoArgsIsHelpError":       # `quizgen` alone: the help
            typer.echo(exc.format_message(), err=True)
            sys.exit(EXIT_BAD_INPUT)
        message = " ".join(exc.format_message().split()) if hasattr(exc, "format_message") \
            else str(exc)
        ctx = getattr(exc, "ctx", None)
        where = ctx.command_path if ctx is not None else "quizgen"
        typer.echo(f"error: {message} (see {where} --help)", err=True)
        code = EXIT_BAD_INPUT
    except KeyboardInterrupt:
        typer.echo("interrupted; no file was left half-written", err=True)
        code = 130
    except (QuizgenError, OSError, UnicodeError, RecursionError, ValueError, ArithmeticError,
            csv.Error, MemoryError) as exc:
        if isinstance(exc, BrokenPipeError):
            code = 0
        else:
            typer.echo(f"error: {error_line(exc)}", err=True)
            code = EXIT_BAD_INPUT
    except Exception:
        import traceback

        traceback.print_exc()
        typer.echo(BUG_REPORT, err=True)
        code = EXIT_BUG
    flushed = _stdout_done()
    if flushed is not None and code in (0, None, 1):
        code = flushed
    sys.exit(code)
