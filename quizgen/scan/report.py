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
from quizgen.scan.pages import PX_PER_MM, Page


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


def page_entry(page: Page, student: dict[str, Any], boxes: list[dict[str, Any]],
               readings) -> dict[str, Any]:
    """One page of the report: who, which page, and each box's crop and reading."""
    return {"source": page.source, "version": page.version, "page": page.page,
            "name": student.get("name", ""), "roll": student.get("roll", ""),
            "marks": page.marks,
            "boxes": [{"column": r.column, "text": r.text, "status": r.status, "reason": r.reason,
                       "crop": crop(page.image, box["region"], rings=_doubtful(r))}
                      for box, r in zip(boxes, readings)]}


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


def write_report(path: Path, manifest: dict[str, Any], result, pages: list[dict[str, Any]],
                 unreadable: list[dict[str, Any]], lang: str, *, missing: Sequence[Note] = (),
                 absent: Sequence[Note] = (), unplaced: int = 0,
                 unread: Sequence[Note] = ()) -> None:
    """The report in `lang`: the template's fixed words are ``[scan-label]``, its sentences
    ``[scan]``, the boxes' and pages' reasons ``[scan_reason]``.

    A paper or page not recognised is never said to be missing or absent while `unplaced`
    scanned pages (no code read) could be it: the sentence then points at those pages."""
    from quizgen.files import atomic_write
    from quizgen.languages import html_lang
    from quizgen.render.phrases import labels

    pages = [dict(p, heading=_say(lang, "heading", name=str(p["name"]), roll=str(p["roll"]),
                                  version=p["version"], page=p["page"]),
                  detail=_say(lang, "page_detail", version=p["version"], source=p["source"],
                              marks=p["marks"]),
                  boxes=[dict(b, reason=note_text(b["reason"], lang) or "") for b in p["boxes"]])
             for p in sorted(pages, key=lambda p: (p["version"], p["page"]))]
    doubtful = [dict(box, page=p["page"], version=p["version"], name=p["name"], roll=p["roll"],
                     where=_say(lang, "where", version=p["version"], page=p["page"]))
                for p in pages for box in p["boxes"] if box["status"] == "review"]
    unreadable = [dict(u, reason=note_text(u["reason"], lang)) for u in unreadable]
    summary = {
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
    atomic_write(path, _template().render(
        title=manifest.get("recipe", {}).get("title", ""), html_lang=html_lang(lang),
        labels=labels(lang, "scan-label"), summary=summary, pages=pages, doubtful=doubtful,
        unreadable=unreadable))


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
