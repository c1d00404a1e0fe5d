"""Cards as students see them: decks imported with the real Anki (`anki` package), every card
rendered by Anki, and the rendered HTML shown by a headless Chromium (one browser for the module,
many cards per page)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from anki import import_export_pb2 as ie
from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest

from browser import Browser, chromium_path
from quizgen.export import anki as A
from quizgen.recipes import recipe_from_dict

pytestmark = pytest.mark.skipif(chromium_path() is None, reason="needs chromium")

T0 = 1_800_000_000
#: One problem of every cell: every kind of figure, every kind of answer.
RECIPE = recipe_from_dict({"name": "browser", "deck": "quizgen::Browser", "cells": "all",
                           "per_cell": 1, "levels": [1, 2], "seed": 5, "lang": "en"})


@pytest.fixture(scope="module")
def browser():
    with Browser() as chromium:
        yield chromium


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    folder = tmp_path_factory.mktemp("anki")
    out = folder / "deck.apkg"
    A.build_deck(RECIPE, out, timestamp=T0)
    (folder / "col").mkdir()
    col = Collection(str(folder / "col" / "collection.anki2"))
    options = ImportAnkiPackageOptions(update_notes=ie.IMPORT_ANKI_PACKAGE_UPDATE_CONDITION_IF_NEWER,
                                       with_scheduling=False)
    col.import_anki_package(ImportAnkiPackageRequest(package_path=str(out), options=options))
    yield col
    col.close()


def body_class(anki_night: bool) -> str:
    """The reviewer's <body> classes: Anki desktop and AnkiMobile add ``nightMode``, AnkiDroid
    ``night_mode``; both are set here, as recent releases do."""
    return "card card1" + (" nightMode night_mode" if anki_night else "")


def write_page(media: Path, name: str, cards: list[str], anki_night: bool, extra_css: str = "") -> Path:
    """A page in the collection's media folder (so figures load by their bare names) that shows
    `cards` (HTML from ``card.question()`` / ``card.answer()``) as the reviewer does."""
    body = "".join(f'<div class="qa">{card}</div>' for card in cards)
    page = media / name
    page.write_text(f'<!doctype html><html><head><meta charset="utf-8">'
                    f'<meta name="viewport" content="width=device-width, initial-scale=1">'
                    f"<style>{extra_css}</style></head>"
                    f'<body class="{body_class(anki_night)}">{body}</body></html>', encoding="utf-8")
    return page


# ---------------------------------------------------------------------------------------------
# Figures in every theme

#: Share of a figure's pixels that contrast with the card's background at least 7:1 (the text
#: and the lines). A figure that vanishes (light ink on a light card, dark on dark) has ~0.
CONTRAST_JS = """
const lin = [...Array(256).keys()].map(v => { v /= 255; return v <= 0.03928 ? v / 12.92
    : Math.pow((v + 0.055) / 1.055, 2.4); });
const lum = (r, g, b) => 0.2126 * lin[r] + 0.7152 * lin[g] + 0.0722 * lin[b];
const lb = lum(BG[0], BG[1], BG[2]);
return RECTS.map(rc => {
  let strong = 0, n = 0;
  for (let y = Math.ceil(rc.y); y < Math.floor(rc.y + rc.height); y++) {
    for (let x = Math.ceil(rc.x); x < Math.floor(rc.x + rc.width); x++) {
      const i = (y * width + x) * 4, l = lum(data[i], data[i + 1], data[i + 2]);
      n++; if ((Math.max(l, lb) + 0.05) / (Math.min(l, lb) + 0.05) >= 7) strong++;
    }
  }
  return n ? strong / n : 0;
});
"""

#: Only the figures are laid out (side by side, so one screenshot holds them all); the card's
#: own rules for the figure (size, night-mode filter) still apply.
FIGURES_ONLY = (".qa{display:inline-block;width:380px;vertical-align:top}"
                ".qa .qz>*:not(.qz-figure){display:none!important}")


#: A mark that each kind of figure draws (lids, warp grid, divergence, waves, curves).
FIGURE_KINDS = ("qz-bar", "data-warp", "qz-live", "qz-wave", "qz-curve")


def test_figures_are_visible_in_every_anki_and_system_theme(browser, collection):
    media = Path(collection.media.dir())
    answers, seen, per_kind = [], set(), {}
    for cid in collection.find_cards(""):
        answer = collection.get_card(cid).answer()
        found = re.search(r'<img[^>]* src="([^"]+)"', answer)
        if not found or found.group(1) in seen:
            continue
        svg = (media / found.group(1)).read_text(encoding="utf-8")
        kind = next((m for m in FIGURE_KINDS if m in svg), "other")
        if per_kind.get(kind, 0) < 4:               # a few of each kind of figure
            per_kind[kind] = per_kind.get(kind, 0) + 1
            seen.add(found.group(1))
            answers.append(answer)
    assert set(FIGURE_KINDS) <= set(per_kind), per_kind
    page = browser.page(1600, 1400)
    shares = {}
    for anki_night in (False, True):
        for system_dark in (False, True):
            page.system_dark(system_dark)
            page.open(write_page(media, "figures.html", answers, anki_night, FIGURES_ONLY))
            page.viewport(1600, page.eval("document.documentElement.scrollHeight"))
            assert page.eval("matchMedia('(prefers-color-scheme: dark)').matches") is system_dark
            background = page.eval("getComputedStyle(document.body).backgroundColor")
            rgb = [int(v) for v in re.findall(r"\d+", background)[:3]]
            assert (sum(rgb) < 200) is anki_night          # the card follows Anki's theme only
            rects = page.eval("[...document.querySelectorAll('img.qz-img')].map(i => {"
                              "const r = i.getBoundingClientRect();"
                              "return {x: r.x, y: r.y, width: r.width, height: r.height}; })")
            assert len(rects) == len(answers)
            assert all(r["width"] > 300 for r in rects), rects
            script = CONTRAST_JS.replace("BG", json.dumps(rgb)).replace("RECTS", json.dumps(rects))
            shares[anki_night, system_dark] = page.pixels_js(page.screenshot(), script)
    base = shares[False, False]
    for combo, values in shares.items():
        for i, value in enumerate(values):
            # at least half the strong ink of the plain light theme (a vanished figure has ~none)
            assert base[i] >= 0.008 and value >= 0.5 * base[i], (combo, value, base[i],
                                                                 answers[i][-300:])
