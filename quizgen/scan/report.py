"""``scan-report.html``: what the scanner read, page by page, with the doubtful boxes first.

Each answer is shown as a crop of the straightened page (the written box and its bubbles) beside
what was read, so a teacher can check a reading at a glance and decide a doubtful one.
"""

from __future__ import annotations

import base64
from functools import cache
from pathlib import Path
from typing import Any, Sequence

import numpy as np
from markupsafe import Markup, escape

from quizgen.grade.notes import Note, note_text
from quizgen.render.phrases import phrase
from quizgen.scan.pages import PX_PER_MM


def crop(image: np.ndarray, region: list[float] | None, pad_mm: float = 1.5,
         width: int | None = None, rings: list[tuple[float, float]] = ()) -> str:
    """A region (x, y, w, h in mm) of a straightened page, or a whole image, as a JPEG data URI;
    `rings` (page px) are circled in red: the bubbles a doubtful box's reason names."""
    import cv2

    if rings:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        for x, y in rings:
            cv2.circle(image, (int(round(x)), int(round(y))), int(2.4 * PX_PER_MM), (0, 0, 220),
                       2, cv2.LINE_AA)

    if region is not None:
        x, y, w, h = region
        x0 = max(0, int((x - pad_mm) * PX_PER_MM))
        y0 = max(0, int((y - pad_mm) * PX_PER_MM))
        x1 = min(image.shape[1], int((x + w + pad_mm) * PX_PER_MM))
        y1 = min(image.shape[0], int((y + h + pad_mm) * PX_PER_MM))
        image = image[y0:y1, x0:x1]
    if width is not None and image.shape[1] > width:
        image = cv2.resize(image, (width, int(image.shape[0] * width / image.shape[1])),
                           interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 70])
    return "data:image/jpeg;base64," + base64.b64encode(data.tobytes()).decode("ascii")


def box_shot(image: np.ndarray, region: list[float], pad_mm: float = 1.5) -> dict[str, Any]:
    """A box's crop of the straightened page, and where it lies (page px), for the report: the
    rings around its doubtful bubbles are drawn over it once the paper has been judged whole."""
    x, y, w, h = region
    x0 = max(0, int((x - pad_mm) * PX_PER_MM))
    y0 = max(0, int((y - pad_mm) * PX_PER_MM))
    x1 = min(image.shape[1], int((x + w + pad_mm) * PX_PER_MM))
    y1 = min(image.shape[0], int((y + h + pad_mm) * PX_PER_MM))
    return {"crop": crop(image[y0:y1, x0:x1], None), "origin": (x0, y0),
            "size": (max(1, x1 - x0), max(1, y1 - y0))}


def _doubtful(reading) -> list[tuple[float, float]]:
    """Where the bubbles that made a box doubtful are: strokes and traces, or, for two in a
    row and the like, every bubble read as filled."""
    if reading.status != "review" or not reading.centres:
        return []
    odd = [c for c, s in zip(reading.centres, reading.states) if s in ("mark", "faint", "stain")]
    return odd or [c for c, s in zip(reading.centres, reading.states) if s == "filled"]


@cache
def _template():
    from quizgen.render.jinja import template

    return template("scan/report.html.j2")


class ReportSpool:
    """scan-report.html written as the pages are read: each page's part and each doubtful box's
    row go to a temporary file as soon as its paper is judged, so memory does not grow with the
    pages; `write` puts them in order (by version and page) under the summary."""

    def __init__(self, lang: str):
        import tempfile

        from quizgen.render.phrases import labels

        self.lang = lang
        self.labels = labels(lang, "scan-label")
        self.spool = tempfile.TemporaryFile()
        self.pages: list[tuple[tuple[str, int], int, int]] = []      # key, offset, length
        self.doubtful: list[tuple[tuple[str, int], int, int]] = []
        self.unreadable: list[tuple[int, int]] = []

    def say(self, key: str, **values: Any) -> str:
        """A phrase of ``[scan]`` in the report's language."""
        return _say(self.lang, key, **values)

    def _put(self, text: str) -> tuple[int, int]:
        data = text.encode("utf-8")
        self.spool.seek(0, 2)
        offset = self.spool.tell()
        self.spool.write(data)
        return offset, len(data)

    def _render(self, part: str, **values: Any) -> str:
        return _template().render(part=part, labels=self.labels, **values)

    def add_page(self, page: dict[str, Any], student: dict[str, Any], readings,
                 shots: list[dict[str, Any]]) -> None:
        """One recognised page: `page` has source, version, page, marks; a shot per box."""
        lang = self.lang
        name, roll = str(student.get("name") or ""), str(student.get("roll") or "")
        boxes = []
        for reading, shot in zip(readings, shots):
            x0, y0 = shot["origin"]
            rings = [(round(x - x0, 1), round(y - y0, 1)) for x, y in _doubtful(reading)]
            boxes.append({"column": reading.column, "text": reading.text,
                          "status": reading.status, "crop": shot["crop"], "size": shot["size"],
                          "rings": rings, "ring": round(2.4 * PX_PER_MM, 1),
                          "reason": note_text(reading.reason, lang) or ""})
        key = (page["version"], page["page"])
        entry = {"version": page["version"], "page": page["page"], "boxes": boxes,
                 "heading": _say(lang, "heading", name=name, roll=roll,
                                 version=page["version"], page=page["page"]),
                 "detail": _say(lang, "page_detail", version=page["version"],
                                source=page["source"], marks=page["marks"])}
        self.pages.append((key, *self._put(self._render("page", p=entry))))
        where = _say(lang, "where", version=page["version"], page=page["page"])
        for box in boxes:
            if box["status"] == "review":
                row = dict(box, name=name, roll=roll, where=where)
                self.doubtful.append((key, *self._put(self._render("review", d=row))))

    def add_unreadable(self, source: str, why: Note, thumb: str) -> None:
        self.unreadable.append(self._put(self._render(
            "unreadable", u={"source": source, "reason": note_text(why, self.lang),
                             "thumb": thumb})))

    def _copy(self, out, parts) -> None:
        for offset, length in parts:
            self.spool.seek(offset)
            out.write(self.spool.read(length))

    def write(self, path: Path, manifest: dict[str, Any], result, *,
              missing: Sequence[Note] = (), absent: Sequence[Note] = (), unplaced: int = 0,
              unread: Sequence[Note] = ()) -> None:
        """The report in its language: the template's fixed words are ``[scan-label]``, its
        sentences ``[scan]``, the boxes' and pages' reasons ``[scan_reason]``.

        A paper or page not recognised is never said to be missing or absent while `unplaced`
        scanned pages (no code read) could be it: the sentence then points at those pages."""
        from quizgen.files import atomic_open
        from quizgen.languages import html_lang

        head = self._render("head", title=manifest.get("recipe", {}).get("title", ""),
                            html_lang=html_lang(self.lang),
                            summary=_summary(self.lang, result, missing, absent, unplaced,
                                             unread))
        order = lambda parts: [(o, n) for _, o, n in sorted(parts, key=lambda p: p[0])]  # noqa: E731
        with atomic_open(path, "wb") as out:
            out.write(head.encode("utf-8"))
            if self.unreadable:
                out.write(self._render("unreadable_start", n=len(self.unreadable)).encode())
                self._copy(out, self.unreadable)
                out.write(self._render("unreadable_end").encode())
            out.write(self._render("review_start", n=len(self.doubtful)).encode("utf-8"))
            self._copy(out, order(self.doubtful))
            out.write(self._render("review_end", n=len(self.doubtful)).encode("utf-8"))
            self._copy(out, order(self.pages))
            out.write(self._render("tail").encode("utf-8"))

    def close(self) -> None:
        self.spool.close()


def _summary(lang: str, result, missing: Sequence[Note], absent: Sequence[Note],
             unplaced: int, unread: Sequence[Note]) -> dict[str, Any]:
    return {
        "pages": _html(lang, "pages", pages=result.pages, recognised=result.recognised),
        "boxes": _html(lang, "boxes", boxes=result.boxes, read=result.read,
                       to_review=Markup("<strong>%s</strong>") % _say(lang, "to_review",
                                                                      n=result.review),
                       needs_review=_code("needs_review"), answers="answers.csv",
                       answer=_code("answer"), review="review.csv",
                       fix=_code("quizgen scan --fix review.csv --out …")),
        "missing": (_html(lang, "missing_unplaced", n=unplaced,
                          pages="; ".join(n.text(lang) for n in missing)) if unplaced
                    else _html(lang, "missing", pages="; ".join(n.text(lang) for n in missing)))
                   if missing else "",
        "unread": _html(lang, "unread", pages="; ".join(n.text(lang) for n in unread))
                  if unread else "",
        "absent": (_html(lang, "absent_unplaced", n=unplaced,
                         students="; ".join(n.text(lang) for n in absent)) if unplaced
                   else _html(lang, "absent", students="; ".join(n.text(lang) for n in absent),
                              review="review.csv", blank=_code("blank"))) if absent else ""}


def _say(lang: str, key: str, **values: Any) -> str:
    """Phrase ``[scan].key`` as text (the template escapes it)."""
    return phrase(lang, "scan", key, values)


def _code(text: str) -> Markup:
    return Markup("<code>%s</code>") % text


def _html(lang: str, key: str, **values: Any) -> Markup:
    """Phrase ``[scan].key`` as HTML: the sentence and the values written into it are escaped,
    except the values that are markup already (``<code>…</code>``, ``<strong>…</strong>``)."""
    marked: dict[str, Markup] = {}
    context = {}
    for name, value in values.items():
        if isinstance(value, Markup):
            token = f"\x00{len(marked)}\x00"
            marked[token] = value
            context[name] = token
        else:
            context[name] = value
    text = str(escape(phrase(lang, "scan", key, context)))
    for token, value in marked.items():
        text = text.replace(token, str(value))
    return Markup(text)
