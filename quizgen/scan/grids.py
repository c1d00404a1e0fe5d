"""Where each bubble of a straightened page is (`place`), found on the page itself.

The corner marks' homography puts every printed ring within a few millimetres of where the page
shows it; what it cannot take out moves the rings by up to about 4 mm, and not the same way along
a row: a lens's barrel, a page that is not flat (curled, bowed on a desk: a row of options 116 mm
long bends by a millimetre or two). A bubble read a millimetre away from its ring leaves most of
a tick or a weak fill outside the disc that is read. So the rings are found where they are:

* a ring detector (`ring_response`): a thin printed circle darker than the paper just inside and
  just outside it, which a fill, a stroke, a shade or a line of text is not;
* each box's grid as a whole where the detector, taken over a small neighbourhood (a row may
  bend), sums highest within BOX_REACH of where the homography puts it; in a grid of digits the
  places one pitch beyond its rows and columns count against (a grid one row or one column off
  matches all but one of its rows or columns, and would be read as another number); then each
  row within ROW_REACH;
* then each bubble's own ring, where it is clear: nothing drawn inside it, whole (every sector of
  the circle darker than both its sides), about as strong as the page's other rings, and where the
  rings of the other boxes near it say the page lies (a tick's arm or a letter of a label can pass
  for an arc of a ring, not for a whole one). The page's displacement is then a smooth field
  through those rings (a local linear fit, a ring that disagrees with its neighbours left out),
  found twice, the second time each ring looked for where the first field puts it. A bubble whose
  ring is hidden by what is drawn in it is placed by the field.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from quizgen.scan.pages import PX_PER_MM

#: The ring detector: a ring of the printed radius against the disc out to RING_DISC radii.
RING_DISC = 1.45
#: How far (mm) a box's grid is looked for around where the homography puts it, then each row
#: around where its grid was found; the detector taken over POOL_BOX and POOL_ROW (mm) for them.
BOX_REACH = 2.5
ROW_REACH = 0.7
POOL_BOX = 0.6
POOL_ROW = 0.3
#: The places one pitch beyond a grid of digits count against it with this weight.
GUARD_WEIGHT = 0.5
#: Each bubble's own ring: looked for within these reaches (mm), first around its grid's row,
#: then around the first field; used when nothing is drawn inside it (its inner disc, there and
#: where the grid put it, at most INNER_MOST dark), at least RING_SHARE of the page's median
#: response, and whole: in at least SECTORS_WHOLE of SECTORS sectors of the circle, darker than
#: both its sides by SECTOR_SHARE of its median contrast, that contrast at least RING_CONTRAST.
RING_REACHES = (1.0, 0.6)
INNER_MOST = 0.12
RING_SHARE = 0.5
SECTORS = 8
SECTORS_WHOLE = 6
SECTOR_SHARE = 0.3
RING_CONTRAST = 0.03
#: The field: a local linear fit over FIELD_MM (a Gaussian's sigma), its gradient held back by
#: FIELD_RIDGE. A ring more than RING_APART mm from the field of the other boxes' rings (where
#: those weigh at least FIELD_ALONE together), or OUTLIER mm from the field of all, is left out.
FIELD_MM = 12.0
FIELD_ALONE = 0.05
FIELD_RIDGE = 30.0
RING_APART = 1.2
OUTLIER = 0.35


def place(dark: np.ndarray, layout: dict[str, Any], boxes: list[dict[str, Any]],
          inner: float) -> list[np.ndarray]:
    """Each box's bubble centres (px of the straightened page) on this page's darkness map;
    `inner` is the share of the radius whose disc is read (nothing drawn in it: a clear ring)."""
    radius = layout["radius"] * PX_PER_MM
    nominal = [np.array([(b[0], b[1]) for b in box["bubbles"]], np.float32).reshape(-1, 2)
               * PX_PER_MM for box in boxes]
    if not boxes or not sum(len(n) for n in nominal):
        return nominal
    response, *pooled = _responses(dark, radius, nominal)
    guess = np.concatenate([_grid(pooled, box, n) for box, n in zip(boxes, nominal)])
    where = np.concatenate(nominal)
    owner = np.concatenate([np.full(len(n), k) for k, n in enumerate(nominal)])
    for reach in RING_REACHES:
        found, at = _rings(response, dark, guess, radius, inner,
                           int(round(reach * PX_PER_MM)))
        kept = _agreeing(where[found], at - where[found], owner[found])
        if kept.sum() < 3:
            break
        pos, disp = where[found][kept], (at - where[found])[kept]
        guess = where + _field(pos, disp, where)
        guess[np.flatnonzero(found)[kept]] = at[kept]
    return np.split(guess.astype(np.float32), np.cumsum([len(n) for n in nominal])[:-1])


@lru_cache(maxsize=4)
def _kernel(radius_px: float) -> np.ndarray:
    """A printed ring's shape (a pixel wide: drawn four times larger and shrunk, then softened)
    less the mean of the disc out to RING_DISC radii: it sums to 0, so an even shade, a fill or
    a blot of text give about nothing and a thin circle of the ring's size gives its darkness."""
    import cv2

    half = int(np.ceil(1.5 * radius_px))
    size = 2 * half + 1
    big = np.zeros((4 * size, 4 * size), np.float32)
    centre = int(round((4 * half + 1.5) * 16))
    cv2.circle(big, (centre, centre), int(round(radius_px * 64)), 1.0, 4, cv2.LINE_AA, 4)
    ring = cv2.GaussianBlur(cv2.resize(big, (size, size), interpolation=cv2.INTER_AREA),
                            (0, 0), 0.8)
    ys, xs = np.mgrid[-half:half + 1, -half:half + 1]
    disc = (xs ** 2 + ys ** 2 <= (RING_DISC * radius_px) ** 2).astype(np.float32)
    return (ring / ring.sum() - disc / disc.sum()).astype(np.float32)


def ring_response(dark: np.ndarray, radius_px: float) -> np.ndarray:
    """How much each pixel looks like the centre of a printed ring (`_kernel`)."""
    import cv2

    return cv2.filter2D(np.ascontiguousarray(dark, np.float32), cv2.CV_32F,
                        _kernel(round(float(radius_px), 3)), borderType=cv2.BORDER_REPLICATE)


def _responses(dark: np.ndarray, radius: float,
               nominal: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ring detector and its values pooled over POOL_BOX and POOL_ROW, worked out only
    around the boxes (as far as any ring of theirs may be looked for); 0 elsewhere."""
    import cv2

    reach = BOX_REACH + ROW_REACH + max(RING_REACHES) + POOL_BOX + 1.0
    margin = int(np.ceil(reach * PX_PER_MM + 1.5 * radius)) + 1
    h, w = dark.shape
    out = [np.zeros((h, w), np.float32) for _ in range(3)]
    for points in nominal:
        if not len(points):
            continue
        x0, y0 = np.maximum(np.floor(points.min(axis=0)).astype(int) - margin, 0)
        x1, y1 = np.minimum(np.ceil(points.max(axis=0)).astype(int) + margin + 1, (w, h))
        if x1 <= x0 or y1 <= y0:
            continue
        response = ring_response(dark[y0:y1, x0:x1], radius)
        out[0][y0:y1, x0:x1] = response
        for k, mm in ((1, POOL_BOX), (2, POOL_ROW)):
            size = 2 * int(round(mm * PX_PER_MM)) + 1
            out[k][y0:y1, x0:x1] = cv2.dilate(response, np.ones((size, size), np.uint8))
    return out[0], out[1], out[2]


def _grid(pooled: list[np.ndarray], box: dict[str, Any],
          nominal: np.ndarray) -> np.ndarray:
    """A box's bubbles where its grid, then each of its rows, best fits the ring detector."""
    centres = nominal + _shift(pooled[0], nominal, _guards(box, nominal),
                               int(BOX_REACH * PX_PER_MM))
    rows: dict[str, list[int]] = {}
    for i, bubble in enumerate(box["bubbles"]):
        rows.setdefault(bubble[2], []).append(i)
    for members in rows.values():
        centres[members] += _shift(pooled[1], centres[members], np.zeros((0, 2), np.float32),
                                   max(1, int(round(ROW_REACH * PX_PER_MM))))
    return centres


def _shift(response: np.ndarray, points: np.ndarray, guards: np.ndarray,
           reach: int) -> np.ndarray:
    """The whole-pixel shift within `reach` at which the detector's mean over `points`, less
    GUARD_WEIGHT times its mean over `guards`, is highest."""
    import cv2

    spots = np.rint(np.vstack([points, guards])).astype(int)
    low = spots.min(axis=0)
    size = spots.max(axis=0) - low + 1
    template = np.zeros((size[1], size[0]), np.float32)
    for (x, y), weight in zip(spots - low, [1.0 / len(points)] * len(points)
                              + [-GUARD_WEIGHT / max(len(guards), 1)] * len(guards)):
        template[y, x] += weight
    window = _window(response, low - reach, size + 2 * reach)
    match = cv2.matchTemplate(window, template, cv2.TM_CCORR)
    _, _, _, (bx, by) = cv2.minMaxLoc(match)
    return np.float32([bx - reach, by - reach])


def _window(image: np.ndarray, origin: np.ndarray, size: np.ndarray) -> np.ndarray:
    """`image[y0:y0+h, x0:x0+w]`, its edge repeated where the window leaves the image."""
    import cv2

    (x0, y0), (w, h) = origin, size
    ih, iw = image.shape
    cut = image[max(0, y0):max(0, min(ih, y0 + h)), max(0, x0):max(0, min(iw, x0 + w))]
    if cut.shape == (h, w):
        return np.ascontiguousarray(cut)
    if not cut.size:
        return np.zeros((h, w), np.float32)
    return cv2.copyMakeBorder(np.ascontiguousarray(cut), max(0, -y0), h - cut.shape[0] - max(0, -y0),
                              max(0, -x0), w - cut.shape[1] - max(0, -x0), cv2.BORDER_REPLICATE)


def _guards(box: dict[str, Any], centres: np.ndarray) -> np.ndarray:
    """The places one pitch beyond a grid of digits: before and after each row of digits, and a
    row above the first and below the last; none where the box has a bubble of its own (a sign
    above the digits, percent or fraction below them)."""
    if box["kind"] != "number":
        return np.zeros((0, 2), np.float32)
    rows: dict[str, list[int]] = {}
    for i, bubble in enumerate(box["bubbles"]):
        if bubble[2].startswith("p"):
            rows.setdefault(bubble[2], []).append(i)
    digits = list(rows.values())
    if not digits or len(digits[0]) < 2:
        return np.zeros((0, 2), np.float32)
    out = []
    for members in digits:
        step = (centres[members[-1]] - centres[members[0]]) / (len(members) - 1)
        out += [centres[members[0]] - step, centres[members[-1]] + step]
    if len(digits) >= 2:
        down = centres[digits[1]] - centres[digits[0]]
        out += list(centres[digits[0]] - down) + list(centres[digits[-1]] + down)
    out = np.float32(out)
    pitch = float(np.hypot(*(centres[digits[0][1]] - centres[digits[0][0]])))
    apart = np.hypot(*(out[:, None, :] - centres[None, :, :]).transpose(2, 0, 1)).min(axis=1)
    return out[apart > 0.5 * pitch]


def _rings(response: np.ndarray, dark: np.ndarray, centres: np.ndarray, radius: float,
           inner: float, reach: int) -> tuple[np.ndarray, np.ndarray]:
    """Which bubbles show their own ring within `reach` of `centres`, and where (see the
    module's description): a mask over the bubbles and the rings' centres."""
    h, w = response.shape
    at = np.rint(centres).astype(int)
    dy, dx = np.mgrid[-reach:reach + 1, -reach:reach + 1]
    ys = np.clip(at[:, 1, None, None] + dy, 0, h - 1)
    xs = np.clip(at[:, 0, None, None] + dx, 0, w - 1)
    values = response[ys, xs].reshape(len(at), -1)
    best = values.argmax(axis=1)
    peak = np.stack([xs.reshape(len(at), -1)[np.arange(len(at)), best],
                     ys.reshape(len(at), -1)[np.arange(len(at)), best]], axis=1)
    strength = values[np.arange(len(at)), best]
    iy, ix = _disc(radius * inner)
    drawn = np.maximum(_mean_at(dark, peak, iy, ix), _mean_at(dark, at, iy, ix))
    ok = (drawn <= INNER_MOST) & _whole(dark, peak, radius)
    if ok.any():
        ok &= strength >= RING_SHARE * float(np.median(strength[ok]))
    return ok, peak[ok].astype(np.float32)


@lru_cache(maxsize=8)
def _disc(radius: float) -> tuple[np.ndarray, np.ndarray]:
    r = int(np.ceil(radius))
    ys, xs = np.mgrid[-r:r + 1, -r:r + 1]
    inside = xs ** 2 + ys ** 2 <= radius ** 2
    return ys[inside], xs[inside]


def _mean_at(image: np.ndarray, points: np.ndarray, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
    h, w = image.shape
    return image[np.clip(points[:, 1, None] + ys, 0, h - 1),
                 np.clip(points[:, 0, None] + xs, 0, w - 1)].mean(axis=1)


@lru_cache(maxsize=4)
def _sectors(radius: float) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The ring's band and the bands just inside and outside it: offsets and sector numbers."""
    r = int(np.ceil(1.5 * radius))
    ys, xs = np.mgrid[-r:r + 1, -r:r + 1]
    d = np.hypot(xs, ys) / radius
    sector = ((np.arctan2(ys, xs) + np.pi) / (2 * np.pi) * SECTORS).astype(int) % SECTORS
    return [(ys[m], xs[m], sector[m]) for m in
            ((d >= 0.88) & (d < 1.12), (d >= 0.55) & (d < 0.75), (d >= 1.25) & (d < 1.45))]


def _whole(dark: np.ndarray, points: np.ndarray, radius: float) -> np.ndarray:
    """Whether a whole ring is printed round each point: per sector, the ring's band darker
    than both bands beside it."""
    h, w = dark.shape
    means = []
    for ys, xs, sector in _sectors(round(float(radius), 3)):
        values = dark[np.clip(points[:, 1, None] + ys, 0, h - 1),
                      np.clip(points[:, 0, None] + xs, 0, w - 1)]
        which = np.eye(SECTORS, dtype=np.float32)[sector]                   # one-hot
        means.append((values @ which) / which.sum(axis=0))
    contrast = means[0] - np.maximum(means[1], means[2])
    median = np.median(contrast, axis=1)
    clear = (contrast > SECTOR_SHARE * median[:, None]).sum(axis=1) >= SECTORS_WHOLE
    return (median >= RING_CONTRAST) & clear


def _agreeing(pos: np.ndarray, disp: np.ndarray, owner: np.ndarray) -> np.ndarray:
    """Which rings to trust: those within RING_APART mm of what the other boxes' rings near them
    say (a box far from the others has only its own), and then, among those, the ones within
    OUTLIER mm of the field of all."""
    keep = np.ones(len(pos), bool)
    for k in np.unique(owner):
        mine = owner == k
        if (~mine).any():
            theirs, weight = _local(pos[~mine], disp[~mine], pos[mine], FIELD_MM)
            apart = np.hypot(*(theirs - disp[mine]).T) > RING_APART * PX_PER_MM
            keep[np.flatnonzero(mine)[apart & (weight >= FIELD_ALONE)]] = False
    for _ in range(3):
        if keep.sum() < 3:
            break
        off = np.hypot(*(_field(pos[keep], disp[keep], pos) - disp).T) / PX_PER_MM
        fewer = keep & (off <= OUTLIER)
        if (fewer == keep).all():
            break
        keep = fewer
    return keep


def _field(pos: np.ndarray, disp: np.ndarray, query: np.ndarray) -> np.ndarray:
    """The displacement at `query` from the rings' (`pos`, `disp`): a local linear fit over
    FIELD_MM (far from every ring, the nearest ones and their gradient)."""
    return _local(pos, disp, query, FIELD_MM)[0]


def _local(pos: np.ndarray, disp: np.ndarray, query: np.ndarray,
           sigma_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """A Gaussian-weighted linear fit of `disp` around each query point, and the weights' sum
    (the fit's sums written out as weighted moments of the rings' places)."""
    centre = pos.mean(axis=0) if len(pos) else np.zeros(2)
    a = (pos - centre).astype(np.float64) / PX_PER_MM                      # mm
    q = (query - centre).astype(np.float64) / PX_PER_MM
    weight = np.exp(-((a[None, :, :] - q[:, None, :]) ** 2).sum(axis=2) / (2 * sigma_mm ** 2))
    ax, ay = a[:, 0], a[:, 1]
    qx, qy = q[:, 0:1], q[:, 1:2]
    m = weight @ np.stack([np.ones_like(ax), ax, ay, ax * ax, ax * ay, ay * ay], axis=1)
    s0, sx, sy = m[:, 0:1], m[:, 1:2] - qx * m[:, 0:1], m[:, 2:3] - qy * m[:, 0:1]
    sxx = m[:, 3:4] - 2 * qx * m[:, 1:2] + qx * qx * m[:, 0:1]
    syy = m[:, 5:6] - 2 * qy * m[:, 2:3] + qy * qy * m[:, 0:1]
    sxy = m[:, 4:5] - qx * m[:, 2:3] - qy * m[:, 1:2] + qx * qy * m[:, 0:1]
    ridge = FIELD_RIDGE * np.maximum(s0, 1e-300)
    normal = np.stack([np.hstack([s0 + 1e-9 * s0, sx, sy]), np.hstack([sx, sxx + ridge, sxy]),
                       np.hstack([sy, sxy, syy + ridge])], axis=1)                 # q, 3, 3
    d = disp.astype(np.float64)
    r0 = weight @ d
    right = np.stack([r0, weight @ (ax[:, None] * d) - qx * r0,
                      weight @ (ay[:, None] * d) - qy * r0], axis=1)               # q, 3, 2
    fit = np.linalg.solve(normal, right)[:, 0, :]
    return fit.astype(np.float32), s0[:, 0]
