"""Compile Typst documents in a separate process: ``python -m quizgen.export.typstjob JOBS.json``.

The Typst compiler keeps a memo cache for the life of its process (the `typst` package evicts
only entries unused for several compilations), so compiling a thousand students' exams in one
process grows without bound. `quizgen sheet` compiles each chunk of students here, in a short
process of its own, and joins the PDFs (`quizgen.export.pdfjoin`).

JOBS.json is a list of ``{"source": path, "data": path, "out": path, "font_paths": [...]}``: the
Typst source file, the JSON handed to it as ``sys.inputs.data``, and where the PDF goes; a job
with ``"layout": path`` also writes there what the ``<qz-layout>`` query finds (where an exam
with answer grids printed them, see `quizgen.export.bubbles`). On a
compile error the process prints the error and exits with code 1, having written nothing more.
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


def query_layout(source: str, data: str, font_paths: list[str] | tuple[str, ...] = ()) -> str:
    """The JSON list of ``<qz-layout>`` metadata of a document (Typst reuses the layout of the
    compile just made from the same inputs)."""
    import typst

    kwargs: dict[str, Any] = {"sys_inputs": {"data": data}}
    paths = [str(p) for p in font_paths]
    if paths:
        kwargs["font_paths"] = paths
    try:
        return typst.query(source.encode("utf-8"), LAYOUT_LABEL, **kwargs)
    except RuntimeError as exc:
        raise RuntimeError(f"Typst could not lay out the sheet: {exc}") from exc


def run_jobs(jobs: list[dict[str, Any]]) -> None:
    for job in jobs:
        source = Path(job["source"]).read_text(encoding="utf-8")
        data = Path(job["data"]).read_text(encoding="utf-8")
        pdf = compile_pdf(source, data, job.get("font_paths") or ())
        if job.get("layout"):
            Path(job["layout"]).write_text(query_layout(source, data, job.get("font_paths") or ()),
                                           encoding="utf-8")
        # into the sheet's staged folder, which is published only once every job has succeeded
        Path(job["out"]).write_bytes(pdf)


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
