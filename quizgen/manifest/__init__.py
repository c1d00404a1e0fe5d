"""The exam's record (``manifest.json``): one home for what ``quizgen sheet`` writes and
``quizgen scan``, ``quizgen grade`` and ``quizgen check`` read.

    manifest = load_manifest("midterm/manifest.json")       # validated, one line if not
    manifest.answer_columns()                                # ["Q1.blocks_per_sm", ...]
    for paper in manifest.students:                          # one per version printed
        paper.version, paper.roll, paper.questions           # saved problem records

Its rooms: `record` (the `Manifest` and `StudentPaper` dataclasses, the answer columns and the
lookups), `check` (validation, field by field, and the limits), `read` (the one loader) and
`write` (each paper as the sheet drew it, and the file written paper by paper).
"""

from __future__ import annotations

from quizgen.manifest.check import (CORNER_MARKS, MAX_PAGES, MAX_POINTS, MAX_STUDENTS,
                                    check_manifest, check_problem, check_question)
from quizgen.manifest.read import load_json, load_manifest
from quizgen.manifest.record import (ID_COLUMN, MANIFEST_FORMAT, MANIFEST_VERSION, Manifest,
                                     StudentPaper, answer_columns, asked_keys, column)
from quizgen.manifest.write import ManifestWriter, drawn_paper, manifest_json

__all__ = [
    "Manifest", "StudentPaper", "load_manifest", "load_json", "check_manifest", "check_problem",
    "check_question", "answer_columns", "asked_keys", "column", "ManifestWriter", "drawn_paper",
    "manifest_json", "MANIFEST_FORMAT", "MANIFEST_VERSION", "MAX_STUDENTS", "MAX_POINTS",
    "MAX_PAGES", "CORNER_MARKS", "ID_COLUMN",
]
