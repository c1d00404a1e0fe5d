"""The class as the scanner needs it: who each paper is, and its answer grids kept on disk.

A manifest carries every version's questions, solutions and grids: for the packaged midterm,
69 KB of JSON a student, 69 MB for a class of 1,000. The scanner reads only who each paper is and
where its bubbles are. So as the manifest is read (by `quizgen.manifest.load_manifest`, which
checks it, a paper at a time), each paper's grids are written to a temporary file: what stays in
memory is a line per student, and a worker process (or the paper being judged) reads one
version's grids back when a page of it turns up.
"""

from __future__ import annotations

import pickle
import tempfile
from typing import Any

from quizgen.manifest import StudentPaper

#: The fields of a box the scanner reads.
BOX_FIELDS = ("column", "kind", "page", "region", "places", "decimals", "sign", "selector")


def _fresh(text: Any) -> str:
    """A copy of a manifest's string, so that nothing kept holds the parsed manifest's memory."""
    return str(text).encode("utf-8", "surrogatepass").decode("utf-8", "surrogatepass")


class Papers:
    """Each student of the manifest, in its order, as ``{version, name, roll, pages, boxes}``
    (`boxes`: each answer box's column and page), taken paper by paper as the manifest is read
    (`add`, given to `quizgen.manifest.load_manifest` as ``each``); `grids(version)` reads that
    paper's answer grids back (page → boxes, each with only `BOX_FIELDS` and its bubbles as
    ``(x, y, row, value)``). `where` is what another process needs to read them too."""

    def __init__(self) -> None:
        self.file = tempfile.NamedTemporaryFile(prefix="quizgen-papers-")
        self.index: dict[str, tuple[int, int]] = {}
        self.students: list[dict[str, Any]] = []
        self.columns: dict[str, str] = {}

    def add(self, student: StudentPaper) -> None:
        """One paper: its grids to the file, who wrote it and its boxes kept."""
        version = _fresh(student.version)
        grids: dict[int, list[dict[str, Any]]] = {}
        for box in student.sheet["boxes"]:
            kept = {name: box[name] for name in BOX_FIELDS if name in box}
            kept["region"] = tuple(float(v) for v in box["region"])
            kept["bubbles"] = [(float(x), float(y), str(row), str(value))
                               for x, y, row, value in box["bubbles"]]
            grids.setdefault(int(box["page"]), []).append(kept)
        data = pickle.dumps(grids, pickle.HIGHEST_PROTOCOL)
        self.index[version] = (self.file.tell(), len(data))
        self.file.write(data)
        self.students.append({
            "version": version, "name": _fresh(student.name),
            "roll": _fresh(student.roll), "pages": int(student.sheet["pages"]),
            "boxes": [(self.columns.setdefault(box["column"], _fresh(box["column"])),
                       int(box["page"])) for box in student.sheet["boxes"]]})

    def ready(self) -> None:
        """Every paper added: the file flushed for the workers."""
        self.file.flush()

    @property
    def where(self) -> tuple[str, dict[str, tuple[int, int]]]:
        return self.file.name, self.index

    def grids(self, version: str) -> dict[int, list[dict[str, Any]]]:
        offset, length = self.index[version]
        self.file.seek(offset)
        return pickle.loads(self.file.read(length))

    def close(self) -> None:
        self.file.close()


class GridReader:
    """A paper's grids read back in another process (a worker), one version at a time."""

    def __init__(self, where: tuple[str, dict[str, tuple[int, int]]]):
        self.path, self.index = where
        self.file = None
        self.last: tuple[str, dict[int, list[dict[str, Any]]]] | None = None

    def __contains__(self, version: Any) -> bool:
        return version in self.index

    def grids(self, version: str) -> dict[int, list[dict[str, Any]]]:
        if self.last is None or self.last[0] != version:
            if self.file is None:
                self.file = open(self.path, "rb")
            offset, length = self.index[version]
            self.file.seek(offset)
            self.last = (version, pickle.loads(self.file.read(length)))
        return self.last[1]

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None
