"""Formulas on the backs of the default deck, typeset by MathJax's CommonHTML output as Anki and
AnkiDroid do (``tex-chtml-full.js``), at a phone's card width in Anki's day and night themes: no
formula box shows a scroll bar or cuts off its own glyphs unless the formula really is wider than
the card."""

from __future__ import annotations

from pathlib import Path

import pytest

from browser import Browser, chromium_path

from quizgen.export import anki as A
from quizgen.recipes import load_deck_recipe

PHONE = 360
T0 = 1_800_000_000
CHUNK = 40

#: Every formula box (and anything else on the back) that would show a scroll bar though the
#: back is wide enough, or that cuts off the bottom of its own glyphs.
MEASURE = """(() => {
    const math = document.querySelectorAll('mjx-container').length;
    const bad = [];
    for (const el of document.querySelectorAll('.qz-math, .qz-eq, mjx-container, .qz pre, .qz table, .qz-options li, .qz-answer, .qz-trap')) {
        const s = getComputedStyle(el);
        if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
        const scrolls = (s.overflowX === 'auto' || s.overflowX === 'scroll')
            && el.scrollWidth > el.clientWidth + 1;
        const wider = el.scrollWidth > el.closest('.qz').clientWidth + 1;
        const cut = (s.overflowY === 'hidden' || s.overflowY === 'auto')
            && el.scrollHeight > el.clientHeight + 1;
        if ((scrolls && !wider) || cut)
            bad.push([el.tagName + '.' + el.className, scrolls, cut, el.scrollWidth,
                      el.clientWidth, el.scrollHeight, el.clientHeight,
                      (el.textContent || '').slice(0, 60)]);
    }
    const wide = [...document.querySelectorAll('body *')].filter(e =>
        e.getBoundingClientRect().right > 360.5).slice(-3).map(e => [...(function* (x) { while (x) { yield x.className; x = x.parentElement; } })(e)].join(' < ').slice(0, 300) + ' :: ' +
        e.tagName + '.' + e.className + ': ' + (e.textContent || '').slice(0, 80));
    return {math, bad, page: document.documentElement.scrollWidth, wide};
})()"""


def mathjax_chtml() -> str:
    import mathjax

    path = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5" / "tex-chtml-full.js"
    assert path.is_file(), path
    return ('<script>window.MathJax = {tex: {inlineMath: [["\\\\(", "\\\\)"]], displayMath: '
            '[["\\\\[", "\\\\]"]]}};</script>'
            f'<script src="{path.as_uri()}"></script>')


@pytest.fixture(scope="module")
def backs(tmp_path_factory):
    from anki.collection import Collection, ImportAnkiPackageRequest

    folder = tmp_path_factory.mktemp("fits")
    out = folder / "deck.apkg"
    A.build_deck(load_deck_recipe(), out, timestamp=T0)
    (folder / "col").mkdir()
    col = Collection(str(folder / "col" / "collection.anki2"))
    try:
        col.import_anki_package(ImportAnkiPackageRequest(package_path=str(out)))
        sides = []
        for cid in col.find_cards(""):
            card = col.get_card(cid)
            note = card.note()
            typed = col.compare_answer(note["Answer"], note["Answer"]) if "Answer" in note.keys() else ""
            sides.append(card.answer().replace("[[type:Answer]]", typed))
        return Path(col.media.dir()), sides
    finally:
        col.close()


@pytest.mark.slow
@pytest.mark.parametrize("night", [False, True])
def test_no_formula_scrolls_or_is_cut_off_on_a_phone(backs, night):
    assert chromium_path(), "chromium is needed (Debian: apt-get install chromium)"
    media, sides = backs
    assert len(sides) >= 400
    found = {"math": 0, "bad": [], "page": 0}
    with Browser() as chromium:
        page = chromium.page(PHONE, 740, mobile=True)
        for start in range(0, len(sides), CHUNK):      # a page a few dozen backs long
            body = "".join(f'<div class="qa">{side}</div>' for side in sides[start:start + CHUNK])
            page_path = media / f"fits-{int(night)}-{start}.html"
            page_path.write_text(
                '<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" '
                f'content="width=device-width, initial-scale=1">{mathjax_chtml()}</head>'
                f'<body class="card card1{" nightMode night_mode" if night else ""}">{body}</body></html>',
                encoding="utf-8")
            page.open(page_path)
            page.eval("MathJax.startup.promise.then(() => true)", await_promise=True)
            seen = page.eval(MEASURE)
            found["math"] += seen["math"]
            found["bad"] += seen["bad"]
            found["page"] = max(found["page"], seen["page"])
            found.setdefault("wide", []).extend(seen["wide"])
    assert found["math"] > 300
    assert found["page"] <= PHONE, found["wide"][:5]
    assert not found["bad"], str((len(found["bad"]), found["bad"][:6]))


def test_a_long_sum_wraps_between_its_terms_and_nowhere_inside_a_bracket():
    from quizgen.render.cards import sum_terms

    grid = (r"32 w \left\lceil{\frac{X}{D_{x}} }\right\rceil "
            r"\left\lceil{\frac{Y}{D_{y}} }\right\rceil - X Y")
    assert sum_terms(grid) == [grid[:grid.rindex(" - ")], "{} - X Y"]
    assert sum_terms(r"a_{i-1} + \left(b - c\right) - 2") == [
        "a_{i-1}", r"{} + \left(b - c\right)", "{} - 2"]
    # a sign that is not between two terms stays where it is
    assert sum_terms(r"-a \cdot -3") == [r"-a \cdot -3"]
