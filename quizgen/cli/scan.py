"""`quizgen scan`: paper exams read back from a scanner into the grader's answer sheet."""


from pathlib import Path
from typing import Annotated, Optional

import typer

from quizgen.cli.root import app
from quizgen.cli.options import LANG_CHOICES


@app.command("scan")
def scan_command(
    scans: Annotated[Optional[list[Path]], typer.Argument(help="Scanned pages: PDFs (a whole class in one is fine) or images (png, jpg, tiff), in any order.", show_default=False)] = None,
    manifest: Annotated[Optional[Path], typer.Option("--manifest", "-m", help="manifest.json written by `quizgen sheet --bubbles`.")] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for answers.csv, review.csv and scan-report.html.")] = Path("scanned"),
    fix: Annotated[Optional[Path], typer.Option("--fix", help="Apply your readings of the doubtful boxes (review.csv with its answer column filled; 'blank' for an empty box) to --out's answers.csv, instead of scanning.")] = None,
    dpi: Annotated[int, typer.Option("--dpi", help="Resolution at which PDF pages are read (100–600).")] = 200,
    report: Annotated[bool, typer.Option("--report/--no-report", help="Write scan-report.html (crops of every answer).")] = True,
    lang: Annotated[Optional[str], typer.Option("--lang", "-l", help=f"Language of scan-report.html and of review.csv's reasons: {LANG_CHOICES} (default: the exam's).")] = None,
    debug: Annotated[Optional[Path], typer.Option("--debug", help="Write each recognised page into this folder as a PNG, straightened, with every bubble drawn as read (green filled, red a stroke, orange a trace) and each box's frame.")] = None,
    jobs: Annotated[Optional[int], typer.Option("--jobs", "-j", help="Pages read at once, one process each (default: one per core); the output is the same for any number.", show_default=False)] = None,
    force: Annotated[bool, typer.Option("--force", help="Scan into a folder that holds files quizgen did not write: only quizgen's own files are replaced (one in the way is kept as NAME.kept).")] = False,
) -> None:
    """Read filled answer grids from scanned papers and write answers.csv for `quizgen grade`.

    Pages are found by their QR code and straightened by their corner marks, on a flatbed or
    sheet-fed scan or a phone photo of the page on a desk; a box that cannot be
    read with certainty (no bubble, two in a row, a faint or erased mark, a missing page) is
    written as needs_review and listed in review.csv and scan-report.html, never guessed. Write
    your readings in review.csv's answer column ('blank' for no answer) and run --fix.

    Example: quizgen scan class.pdf --manifest midterm/manifest.json --out scanned

    Then: quizgen scan --fix scanned/review.csv --out scanned
    """
    from quizgen.cli.root import fail
    from quizgen.errors import QuizgenError

    try:
        if fix is not None:
            if scans:
                raise QuizgenError("give either scans to read or --fix, not both", field="fix")
            from quizgen.scan import apply_fixes

            fixed, left = apply_fixes(fix, out)
            typer.echo(f"{fixed} boxes fixed in {out}/answers.csv; {left} still needs_review")
            return
        if manifest is None:
            raise QuizgenError("give the exam's manifest.json (quizgen sheet --bubbles wrote it)",
                               field="manifest")
        if not scans:
            raise QuizgenError("give the scanned pages (PDFs or images)", field="scans")
        if not 100 <= dpi <= 600:
            raise QuizgenError(f"got {dpi}; expected 100 to 600", field="dpi")
        if jobs is not None and not 1 <= jobs <= 256:
            raise QuizgenError(f"got {jobs}; expected 1 to 256", field="jobs")
        _check_installed()
        from quizgen.scan import scan_class

        result = scan_class([str(s) for s in scans], manifest, out, dpi=dpi, report=report,
                            force=force, lang=lang, progress=_progress(), debug=debug,
                            jobs=jobs)
    except QuizgenError as exc:
        raise fail(str(exc)) from None
    _print_summary(result, out, report)


def _print_summary(result, out: Path, report: bool) -> None:
    """The scan's summary line, then its warnings on stderr (files kept, pages not used, pages and
    papers missing)."""
    typer.echo(f"{result.pages} pages, {result.recognised} recognised; {result.boxes} boxes: "
               f"{result.read} read, {result.review} to review "
               f"→ {out}/answers.csv, review.csv" + (", scan-report.html" if report else ""))
    for line in result.kept:
        typer.echo(f"warning: {line}", err=True)
    for line in result.unreadable:
        typer.echo(f"warning: {line}", err=True)
    for line in result.named:
        typer.echo(f"note: {line}", err=True)
    unplaced = (f" ({result.unplaced} scanned pages were not recognised: it may be among them)"
                if result.unplaced else "")
    for line in result.unread_pages:
        typer.echo(f"warning: scanned but not recognised: {line}", err=True)
    for line in result.missing_pages:
        typer.echo(f"warning: page missing: {line}{unplaced}", err=True)
    for line in result.absent:
        if result.unplaced:
            typer.echo(f"warning: no page recognised: {line}{unplaced}", err=True)
        else:
            typer.echo(f"warning: no page scanned: {line}", err=True)


def _progress(every: float = 3.0):
    """Progress on stderr: a line that rewrites itself on a terminal, else a line every few
    seconds (a log, a CI job), so a long scan is never silent."""
    import sys
    import time

    terminal = sys.stderr.isatty()
    start = last = time.monotonic()

    def progress(done: int, total: int) -> None:
        nonlocal last
        now = time.monotonic()
        if terminal:
            sys.stderr.write(f"\rscanning page {done + 1} of {total}" + (" " * 8)
                             + ("\n" if done + 1 == total else ""))
            sys.stderr.flush()
        elif now - last >= every:
            last = now
            sys.stderr.write(f"scanning: {done} of {total} pages read ({now - start:.0f} s)\n")
            sys.stderr.flush()

    return progress


def _check_installed() -> None:
    """The scanner's libraries are an optional extra: say how to get them, in one line."""
    from quizgen.errors import QuizgenError

    try:
        import cv2  # noqa: F401
        import numpy  # noqa: F401
        import pypdfium2  # noqa: F401
        import zxingcpp  # noqa: F401
    except ImportError as exc:
        raise QuizgenError(f"scanning needs {exc.name}: pip install 'quizgen[scan]'",
                           field="scans") from None
