"""The corner marks printed on every page with answer grids: solid squares standing alone on the
paper, found anywhere in an image by their shape, whatever the page's scale, tilt or light
(`mark_candidates`)."""

from __future__ import annotations

import numpy as np


def mark_candidates(gray: np.ndarray, scale: float, side_mm: float,
                    code: np.ndarray) -> np.ndarray:
    """Centres (scan px) of every dark, solid, four-cornered blob about the size of a corner mark,
    anywhere in the image: contours of a locally thresholded view, in which the mark's side is
    about 24 px, kept when their shape is the mark's (a convex quadrilateral, solid, not too
    long) seen at any tilt up to 60 degrees, standing alone (`_alone`); the QR code's own squares
    are left out, and so are the clumps of modules of any other code on the page (a first page's
    cover code sits near a corner mark: taken for it, the page would be straightened askew)."""
    import cv2

    expected = side_mm * scale
    factor = min(1.0, 24.0 / max(expected, 1.0))
    view = gray if factor == 1.0 else cv2.resize(gray, None, fx=factor, fy=factor,
                                                 interpolation=cv2.INTER_AREA)
    side = expected * factor
    block = int(side * 3) | 1
    binary = cv2.adaptiveThreshold(view, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV,
                                   max(block, 11), 12)
    contours, _ = cv2.findContours(binary, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    code_box = cv2.boundingRect((code * factor).astype(np.float32))
    cx0, cy0, cw, ch = code_box
    out = []
    for contour in contours:
        area = cv2.contourArea(contour)
        if not 0.2 * side ** 2 <= area <= 3.5 * side ** 2:
            continue
        hull = cv2.convexHull(contour)
        if area < 0.88 * cv2.contourArea(hull):
            continue
        (_, _), (w, h), _ = cv2.minAreaRect(contour)
        if min(w, h) < 0.5 * max(w, h) or area < 0.75 * w * h:
            continue
        poly = cv2.approxPolyDP(hull, 0.08 * cv2.arcLength(hull, True), True)
        if len(poly) != 4:
            continue
        m = cv2.moments(contour)
        x, y = m["m10"] / m["m00"], m["m01"] / m["m00"]
        if cx0 - 2 <= x <= cx0 + cw + 2 and cy0 - 2 <= y <= cy0 + ch + 2:
            continue                      # a square of the QR code itself
        bx, by, bw, bh = cv2.boundingRect(contour)
        inside = np.zeros((bh, bw), np.uint8)
        cv2.drawContours(inside, [contour - [bx, by]], -1, 255, -1)
        if cv2.mean(binary[by:by + bh, bx:bx + bw], mask=inside)[0] < 0.9 * 255:
            continue                      # hollow (a QR finder pattern, a drawn box)
        if not _alone(binary, contour, area):
            continue                      # a clump of a code's modules, a fill among rings
        out.append((x / factor, y / factor))
    return np.float32(out).reshape(-1, 2)


#: A corner mark stands alone: in a band around it, from BAND[0] to BAND[1] of its side away, at
#: most ALONE_INK of the thresholded view is ink (a mark has paper around it; a clump of a QR
#: code's modules has the other modules, about half ink).
BAND = (0.15, 0.6)
ALONE_INK = 0.3


def _alone(binary: np.ndarray, contour: np.ndarray, area: float) -> bool:
    """Whether the blob `contour` of `binary` (ink 255) has paper around it."""
    import cv2

    side = float(np.sqrt(area))
    near, far = max(1, int(round(BAND[0] * side))), max(2, int(round(BAND[1] * side)))
    bx, by, bw, bh = cv2.boundingRect(contour)
    x0, y0 = max(0, bx - far - 1), max(0, by - far - 1)
    x1 = min(binary.shape[1], bx + bw + far + 1)
    y1 = min(binary.shape[0], by + bh + far + 1)
    own = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.drawContours(own, [contour - [x0, y0]], -1, 255, -1)
    disc = cv2.MORPH_ELLIPSE
    inner = cv2.dilate(own, cv2.getStructuringElement(disc, (2 * near + 1,) * 2))
    outer = cv2.dilate(own, cv2.getStructuringElement(disc, (2 * far + 1,) * 2))
    band = (outer > 0) & (inner == 0)
    return not band.any() or float((binary[y0:y1, x0:x1][band] > 0).mean()) <= ALONE_INK
