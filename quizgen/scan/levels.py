"""What an empty bubble looks like on this page, bubble by bubble: its blank level and the paper
just outside its ring, each taken from the page itself.

A phone's light is not even: the straight edge of a shadow cast by the phone or a hand, the dim
end of the page, a bright patch where the camera clips the white paper. The darkness of an empty
bubble shifts with it (by as much as an eraser's trace), and the empty bubbles beside it share the
shift; so each bubble's blank level is taken among its NEAREST nearest bubbles (most of them are
empty), as the page's own level is taken among all of them. What is printed inside a bubble
counts too: a 0 or an 8 is darker than a 1, and the page's many bubbles with that digit say by how
much. A bubble with nothing printed in it (an option of limits, yes or no, a sign, percent or
fraction) is lighter than the digits' bubbles around it, by about 0.03 on a scan or a photo: its
blank level is never above the paper's near it, or a weak tick on an option would seem empty. The paper outside a ring is read above and below it, and a side towards a neighbour that
is itself firmly marked is left out (an over-the-edge fill reaches the next row's paper): that paper
says whether a shade runs past the ring (a stain) or lies inside it (a mark). With both sides
left out there is no paper of its own: it counts as clean, and a shade inside the ring as drawn.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: The darkest an empty bubble (its printed ring left out, a light digit inside) may be.
BLANK_AT_MOST = 0.25
#: Each bubble's blank level and paper are taken among this many nearest bubbles, and never more
#: than LOCAL_ABOVE above the page's.
NEAREST = 24
LOCAL_ABOVE = 0.1
#: A printed digit's own blank (`_printed_offsets`): from at least PRINT_EVIDENCE bubbles, this
#: percentile of their darkness (a quarter of them may be filled), at most PRINT_MOST (the spread
#: between the printed digits' empty bubbles on a scan: a 1 is the lightest, an 8 the darkest).
PRINT_EVIDENCE = 6
PRINT_SHARE = 25
PRINT_MOST = 0.02
#: A neighbour in the next row (within this many radii above or below, the same column) whose
#: mark may reach the paper just outside a ring.
NEXT_ROW = 3.5


def page_blank(measured: list[Any]) -> float:
    """The page's blank bubble (its printed digit, the paper's grain): a low share of all its
    bubbles' darkness, since most are empty, never above what an empty bubble can be."""
    every = np.concatenate([m.mean for m in measured if m.mean.size] or [np.zeros(1, np.float32)])
    return min(float(np.percentile(every, 20)), BLANK_AT_MOST)


def page_around(measured: list[Any]) -> float:
    """The paper outside an empty ring on this page (most bubbles are empty)."""
    every = np.concatenate([m.around for m in measured if m.around.size]
                           or [np.zeros(1, np.float32)])
    return float(np.median(every))


def local_levels(measured: list[Any], printed: list[list[str | None]] | None = None,
                 radius_px: float = 0.0, firm: tuple[float, float] = (0.2, 0.4)
                 ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per box of `measured` (`read.Bubbles`): each bubble's blank level, the paper's level
    outside a ring near it, and the paper outside its own ring (a marked neighbour's side left
    out when `radius_px` is given: a neighbour is marked when at least `firm[0]` above its blank
    level with strokes at least `firm[1]` dark, darker than any stain, so that a stain over two
    rows still darkens the paper of both). Never
    more than LOCAL_ABOVE above the page's own levels (a corner of many marks hides no mark).
    `printed` names the digit printed inside each bubble (None for a bubble with nothing printed
    in it: an option of limits, yes or no, a sign, percent or fraction, the lightest bubbles,
    whose blank level is at most the paper's level near it)."""
    blank, paper = page_blank(measured), page_around(measured)
    sizes = [m.mean.size for m in measured]
    around = np.concatenate([m.around for m in measured] or [np.zeros(0, np.float32)])
    cuts = np.cumsum(sizes)[:-1]
    if sum(sizes) <= NEAREST:
        return [(np.full(n, blank, np.float32), np.full(n, paper, np.float32), a)
                for n, a in zip(sizes, np.split(around, cuts))]
    centres = np.concatenate([m.centres for m in measured]).astype(np.float32)
    mean = np.concatenate([m.mean for m in measured])
    d2 = ((centres[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
    near = np.argpartition(d2, NEAREST - 1, axis=1)[:, :NEAREST]
    blanks = np.minimum(np.percentile(mean[near], 20, axis=1),
                        min(blank + LOCAL_ABOVE, BLANK_AT_MOST)).astype(np.float32)
    labels = None if printed is None else np.concatenate([np.asarray(p, object) for p in printed])
    if labels is not None:
        blanks += _printed_offsets(mean - blanks, labels)
    sides = [m.sides for m in measured]
    if radius_px > 0 and all(s is not None for s in sides):
        high = np.concatenate([m.high for m in measured])
        marked = (mean - blanks >= firm[0]) & (high >= firm[1])
        around = _free_around(centres, np.concatenate(sides), marked, radius_px)
    sideless = np.isnan(around)     # no side of its own (`_free_around`): the paper's level
    papers = np.minimum(np.median(np.where(sideless, paper, around)[near], axis=1),
                        paper + LOCAL_ABOVE).astype(np.float32)
    around = np.where(sideless, papers, around)
    if labels is not None:          # nothing printed inside: no darker than the paper beside it
        bare = np.fromiter((p is None for p in labels), bool, len(labels))
        blanks = np.where(bare, np.minimum(blanks, papers), blanks).astype(np.float32)
    return list(zip(np.split(blanks, cuts), np.split(papers, cuts),
                    np.split(around.astype(np.float32), cuts)))


def _printed_offsets(above: np.ndarray, printed: np.ndarray) -> np.ndarray:
    """Per bubble, how much darker than its neighbours' blank level an empty bubble with its
    printed digit is on this page: a low share (PRINT_SHARE) of the darkness of the bubbles with
    that digit (most are empty), when there are at least PRINT_EVIDENCE of them; never below 0
    (a lighter print changes nothing) nor above PRINT_MOST (a page of many filled zeros does not
    make a zero's fill empty). A bubble with no digit in it (None) keeps its neighbours' level:
    those are few on a page and often filled, so their own darkness says little."""
    out = np.zeros(above.shape, np.float32)
    for label in set(printed.tolist()) - {None}:
        same = printed == label
        if same.sum() >= PRINT_EVIDENCE:
            out[same] = np.clip(np.percentile(above[same], PRINT_SHARE), 0.0, PRINT_MOST)
    return out


def _free_around(centres: np.ndarray, sides: np.ndarray, marked: np.ndarray,
                 radius_px: float) -> np.ndarray:
    """The paper outside each ring (`sides`: above it, below it), the side towards a marked
    neighbour in the next row left out; both sides marked: NaN, no paper of its own to tell a
    stain by (a trace between two over-the-edge fills has their overflow on both sides: taken
    for a stain's, it would be passed over)."""
    dx = centres[None, :, 0] - centres[:, None, 0]
    dy = centres[None, :, 1] - centres[:, None, 1]
    beside = ((np.abs(dx) < radius_px) & (np.abs(dy) > radius_px)
              & (np.abs(dy) < NEXT_ROW * radius_px) & marked[None, :])
    up, down = (beside & (dy < 0)).any(axis=1), (beside & (dy > 0)).any(axis=1)
    around = sides.mean(axis=1)
    around = np.where(up & ~down, sides[:, 1], around)
    around = np.where(down & ~up, sides[:, 0], around)
    return np.where(up & down, np.nan, around)
