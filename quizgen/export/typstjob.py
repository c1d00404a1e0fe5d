"""Compile Typst documents in a separate process: ``python -m quizgen.export.typstjob JOBS.json``.

The Typst compiler keeps a memo cache for the life of its process (the `typst` package evicts
only entries unused for several compilations), so compiling a thousand students' exams in one
process grows without bound. `quizgen sheet` compiles each document of a chunk of students (its
exam, its key) here, in a short process of its own, and joins the PDFs
(`quizgen.export.pdfjoin`).

JOBS.json is a list of ``{"source": path, "data": path, "out": path, "font_paths": [...]}``: the
Typst source file, the JSON handed to it as ``sys.inputs.data``, and where the PDF goes; a job
with ``"layout": path`` also writes there what the ``<qz-layout>`` query finds (where an exam
with answer grids printed them, see `quizgen.export.bubbles`), read from the layout the compile
made (one layout, not two). On a compile error the process prints the error and exits with
code 1, having written nothing more.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def compile_pdf(source: str, data: str, font_paths: list[str] | tuple[str, ...] = ()) -> bytes:
    """One sheet template with its JSON data (``sys.inputs.data``) compiled to PDF bytes."""
    import typst

    kwargs: dict[str, Any] = {"sys_inputs": {"data": data}}
    paths = [str(p) for p in font_paths]
    if paths:
        kwargs["font_paths"] = paths
    try:
        return typst.compile(source.encode("utf-8"), format="pdf", **kwargs)
    except RuntimeError as exc:   # a template bug, never user text: keep the full message
        raise RuntimeError(f"Typst could not compile the sheet: {exc}") from exc


#: The label of the metadata that tells where answer grids were laid out.
LAYOUT_LABEL = "<qz-layout>"


def compile_document(source: str | Path, data: str, font_paths: list[str] | tuple[str, ...] = (),
                     layout: bool = False) -> tuple[bytes, str]:
    """A sheet template (its file) with its JSON data compiled to PDF bytes and, with `layout`,
    the JSON list of its ``<qz-layout>`` metadata ('' without): the query reads the layout the
    compile made, so a paper with answer grids is laid out once."""
    import typst

    kwargs: dict[str, Any] = {"sys_inputs": {"data": data}}
    paths = [str(p) for p in font_paths]
    if paths:
        kwargs["font_paths"] = paths
    compiler = typst.Compiler(str(Path(source).resolve()), **kwargs)
    try:
        pdf = compiler.compile(format="pdf")
    except RuntimeError as exc:   # a template bug, never user text: keep the full message
        raise RuntimeError(f"Typst could not compile the sheet: {exc}") from exc
    if not layout:
        return pdf, ""
    try:
        return pdf, compiler.query(LAYOUT_LABEL)
    except RuntimeError as exc:
        raise RuntimeError(f"Typst could not lay out the sheet: {exc}") from exc


def run_job(job: dict[str, Any]) -> None:
    """One document of JOBS.json compiled: its PDF (and its layout) written where it says."""
    data = Path(job["data"]).read_text(encoding="utf-8")
    pdf, found = compile_document(job["source"], data, job.get("font_paths") or (),
                                  layout=bool(job.get("layout")))
    if job.get("layout"):
        Path(job["layout"]).write_text(found, encoding="utf-8")
    # into the sheet's staged folder, which is published only once every job has succeeded
    Path(job["out"]).write_bytes(pdf)


def run_jobs(jobs: list[dict[str, Any]]) -> None:
    for job in jobs:
        run_job(job)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m quizgen.export.typstjob JOBS.json", file=sys.stderr)
        return 2
    try:
        run_jobs(json.loads(Path(argv[0]).read_text(encoding="utf-8")))
    except Exception as exc:   # reported to the parent, which raises it
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
