"""``scan-report.html``: what the scanner read, page by page, with the doubtful boxes first.

Each answer is shown as a crop of the straightened page (the written box and its bubbles) beside
what was read, so a teacher can check a reading at a glance and decide a doubtful one.
"""

from __future__ import annotations

import base64
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from quizgen.scan.pages import PX_PER_MM, Page


def crop(image: np.ndarray, region: list[float] | None, pad_mm: float = 1.5,
         width: int | None = None) -> str:
    """A region (x, y, w, h in mm) of a straightened page, or a whole image, as a JPEG data URI."""
    import cv2

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
                       "crop": crop(page.image, box["region"])}
                      for box, r in zip(boxes, readings)]}


@cache
def _template():
    from quizgen.render.jinja import template

    return template("scan/report.html.j2")


def write_report(path: Path, manifest: dict[str, Any], result, pages: list[dict[str, Any]],
                 unreadable: list[dict[str, Any]]) -> None:
    from quizgen.files import atomic_write

    pages = sorted(pages, key=lambda p: (p["version"], p["page"]))
    doubtful = [dict(box, page=p["page"], version=p["version"], name=p["name"], roll=p["roll"])
                for p in pages for box in p["boxes"] if box["status"] == "review"]
    atomic_write(path, _template().render(
        title=manifest.get("recipe", {}).get("title", ""), result=result, pages=pages,
        doubtful=doubtful, unreadable=unreadable))
