"""Pages read on every core: each page decoded, found by its code, straightened and its bubbles
measured in a worker process; the results come back in the order of the pages, so what is written
does not depend on which worker was quicker. A worker sends back only what the paper needs to be
judged whole (each bubble's state and darkness) and, for the report, small JPEG crops: no page
image crosses back, and none is kept.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from quizgen.errors import QuizgenError
from quizgen.grade.notes import Note
from quizgen.scan.reasons import reason


@dataclass(slots=True)
class PageSeen:
    """A page recognised and measured: whose and which, and each of its boxes measured."""

    index: int                # in the scans' order
    source: str
    version: str
    page: int
    marks: int
    measured: list[Any]       # `read.Measured` (or None) per box of the page
    shots: list[dict[str, Any]] | None


@dataclass(slots=True)
class PageUnseen:
    """A page not used, and why; `known` when its code named a page of this class."""

    source: str
    reason: Note
    version: str | None
    page: int | None
    anyone: bool              # could be any student's page (no code read)
    thumb: str | None
    # a first page whose own code was not read, measured as the page its cover's code names:
    # used when the pile confirms it (`quizgen.scan._named_by_cover`)
    named: PageSeen | None = None


#: A worker is started for every this many pages at least.
PAGES_PER_WORKER = 3
#: What every worker reads by: the scan layout, where the class's grids are, and the options.
_JOB: dict[str, Any] = {}


def workers_for(pages: int, jobs: int | None = None) -> int:
    """The processes to read `pages` with: `jobs`, or one per core this process may use; a few
    pages are read here (starting a process takes as long as reading two pages)."""
    if jobs is None:
        try:
            jobs = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            jobs = os.cpu_count() or 1
    return max(1, min(jobs, pages // PAGES_PER_WORKER))


def read_scans(tasks: list[Any], layout: dict[str, Any], papers: Any, *, report: bool,
               debug: str | None, jobs: int | None = None) -> Iterator[Any]:
    """Each page of `tasks` (`pages.PageTask`), read: a `PageSeen` or a `PageUnseen`, in order.
    `papers` says where the class's grids are (`papers.Papers.where`)."""
    job = {"layout": layout, "papers": papers, "report": report, "debug": debug}
    workers = workers_for(len(tasks), jobs)
    numbered = list(enumerate(tasks))
    if workers == 1:
        _start(job, threads=False)
        try:
            yield from (_checked(_read(item)) for item in numbered)
        finally:
            _JOB.pop("grids").close()
        return
    import multiprocessing

    # new interpreters, not forks: a fork of a process whose OpenCV threads are running can hang
    context = multiprocessing.get_context("spawn")
    with _without_main():
        pool = context.Pool(workers, initializer=_start, initargs=(job,))
    with pool:
        for got in pool.imap(_read, numbered, chunksize=1):
            yield _checked(got)


@contextmanager
def _without_main() -> Iterator[None]:
    """Workers started without the caller's script: a spawned process runs the parent's main
    module again, so a script calling `scan_class` at its top level (no ``__main__`` guard) would
    start workers that each start workers. They need nothing from it (their work is here)."""
    import sys
    import types

    main = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if main is not None:
            sys.modules["__main__"] = main


def _start(job: dict[str, Any], threads: bool = True) -> None:
    from quizgen.scan.papers import GridReader

    if threads:
        import cv2

        cv2.setNumThreads(1)      # one page per process: the processes fill the cores
    _JOB.clear()
    _JOB.update(job, grids=GridReader(job["papers"]))


def _checked(got: Any) -> Any:
    if isinstance(got, tuple) and got and got[0] == "error":
        raise QuizgenError(got[1])
    return got


def _read(item: tuple[int, Any]) -> Any:
    """One page: decoded, found, measured (in a worker)."""
    from quizgen.scan.pages import Page, load_page, locate, straighten

    index, task = item
    try:
        scan = load_page(task)
    except QuizgenError as exc:
        return ("error", str(exc))
    layout, report = _JOB["layout"], _JOB["report"]
    found = locate(scan, layout)
    if not isinstance(found, Page) or found.version not in _JOB["grids"]:
        unseen = _unseen(found, report)
        if getattr(found, "cover", None) in _JOB["grids"] and found.placed is not None:
            unseen.named = _seen(index, straighten(scan, layout, found.placed, found.cover, 1,
                                                   4))
        return unseen
    scan.image = None
    return _seen(index, found)


def _seen(index: int, found: Any) -> PageSeen:
    """A recognised page's boxes measured (and drawn, with ``--debug``)."""
    from quizgen.scan.read import measure_page
    from quizgen.scan.report import box_shot

    layout, report = _JOB["layout"], _JOB["report"]
    boxes = _JOB["grids"].grids(found.version).get(found.page, [])
    measured = measure_page(found, layout, boxes)
    shots = [box_shot(found.image, box["region"]) for box in boxes] if report else None
    if _JOB["debug"] is not None:
        _write_debug(Path(_JOB["debug"]), found, boxes, measured, index)
    return PageSeen(index, found.source, found.version, found.page, found.marks, measured, shots)


def _unseen(found: Any, report: bool) -> PageUnseen:
    from quizgen.scan.pages import Page
    from quizgen.scan.report import crop

    if isinstance(found, Page):
        why, anyone = reason("unknown_version", version=found.version), False
    else:
        why = found.reason
        anyone = (found.reason.key not in ("other_exam", "unknown_version")
                  and not (found.version in _JOB["grids"] and found.page is not None))
    return PageUnseen(found.source, why, found.version, found.page, anyone,
                      crop(found.image, None, width=700) if report else None)


def _write_debug(folder: Path, page: Any, boxes: list[dict[str, Any]], measured: list[Any],
                 n: int) -> None:
    """The straightened page with what was found drawn on it: each bubble's disc as read on this
    page (green filled, red a stroke, orange a trace, purple a stain, pale purple a light one
    passed over, grey empty or an answer changed) and each box's frame (green read, orange to
    review)."""
    import re

    import cv2

    from quizgen.files import atomic_write
    from quizgen.scan.pages import PX_PER_MM
    from quizgen.scan.read import INNER, read_paper

    colour = {"filled": (40, 170, 40), "mark": (30, 30, 220), "faint": (0, 140, 255),
              "erased": (200, 200, 200), "stain": (160, 60, 160), "shade": (200, 150, 200),
              "empty": (160, 160, 160)}
    image = cv2.cvtColor(page.image, cv2.COLOR_GRAY2BGR)
    radius = int(round(1.7 * INNER * PX_PER_MM))
    for box, reading in zip(boxes, read_paper([(boxes, measured)])[0]):
        for (x, y), state in zip(reading.centres, reading.states):
            cv2.circle(image, (int(round(x)), int(round(y))), radius, colour[state],
                       2 if state != "empty" else 1, cv2.LINE_AA)
        x, y, w, h = (v * PX_PER_MM for v in box["region"])
        cv2.rectangle(image, (int(x), int(y)), (int(x + w), int(y + h)),
                      (40, 170, 40) if reading.status == "read" else (0, 140, 255), 1)
    name = re.sub(r"[^A-Za-z0-9]", "_", str(page.version)) + f"-p{page.page}-{n + 1:04d}.png"
    done, png = cv2.imencode(".png", image)
    if not done:
        raise QuizgenError(f"cannot draw the debug picture {name}", field="debug")
    atomic_write(folder / name, png.tobytes(), field="debug")
