"""Cards as students see them: decks imported with the real Anki (`anki` package), every card
rendered by Anki, and the rendered HTML shown by a headless Chromium (one browser for the module,
many cards per page)."""

from __future__ import annotations

import html
import json
import re
from fractions import Fraction
from pathlib import Path

import pytest

from anki import import_export_pb2 as ie
from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest

from browser import Browser, chromium_path
from quizgen.export import anki as A
from quizgen.export.anki import typed as C
from quizgen.export.anki import typed as T
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


#: A mark that each kind of figure draws (lids, warp grid, divergence, waves, curves; lanes by
#: path, a reduction's divergent warps, waits at a barrier).
FIGURE_KINDS = ("qz-bar", "data-warp", "qz-live", "qz-wave", "qz-curve", "qz-lane-", "qz-divergent",
                "qz-wait")


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


# ---------------------------------------------------------------------------------------------
# Type-in answers: the back's check says "equal" for every form the grader accepts

TYPED = recipe_from_dict({"name": "typed", "deck": "quizgen::Typed", "cells": "all", "per_cell": 2,
                          "levels": [1, 2, 3], "seed": 9, "lang": "both", "kinds": ["numeric"]})


def _pct(value: Fraction, places: int | None) -> str:
    return T.decimal_text(value * 100, None if places is None else max(places - 2, 0))


def answer_forms(problem) -> tuple[list[str], list[str]]:
    """(forms a student may type for the right value, forms of a wrong value) of a problem's
    main answer, built from its exact value."""
    typed = C.typed_answer(problem)
    value = problem.answers[problem.main_answer]
    if typed.kind == "list":
        nums = [str(v) for v in value]
        right = [typed.text, "(" + ",".join(nums) + ")", " ".join(nums), "[" + ", ".join(nums) + "]"]
        wrong = [", ".join([str(value[0] + 1)] + nums[1:])]
        return right, wrong
    if typed.kind == "text":
        return [typed.text, typed.text.upper()], [typed.text + "s"]
    exact = Fraction(value) if isinstance(value, int) else Fraction(repr(value))
    right = [typed.text, f" {typed.text} "]
    if typed.kind in ("count", "cycles") and exact.denominator == 1:
        n = exact.numerator
        right += [f"{n}.0", f"{2 * n}/2", f"ceil({2 * n - 1}/2)"]
        if typed.unit:
            right += [f"{n} {typed.unit}", f"{n} {typed.unit}/SM"]
        if n >= 1000:
            right += [f"{n:,}", f"{n:,}".replace(",", " ")]
        wrong = [str(n + 1)]
        if typed.unit in ("blocks", "threads", "registers", "lanes", "waves"):
            wrong.append(f"{n} warps")
    elif typed.kind == "fraction":
        right += [f"{exact.numerator}/{exact.denominator}",
                  f"{2 * exact.numerator}/{2 * exact.denominator}",
                  _pct(exact, typed.places) + "%", _pct(exact, typed.places) + " %",
                  _pct(exact, typed.places) + " percent"]
        if exact * 100 > 1:
            right.append(_pct(exact, typed.places))          # a bare 37.5 can only be a percent
        if typed.places is None and exact.denominator > 10_000:
            right.append(T.decimal_text(exact, 4))          # within the grader's 0.0005
        wrong = [T.decimal_text(exact + Fraction(1, 50) if exact < Fraction(1, 2)
                                 else exact - Fraction(1, 50), None), "8 blocks"]
    else:
        right += [typed.text + "x", typed.text + " ×"] if typed.kind == "ratio" else []
        wrong = [T.decimal_text(exact + Fraction(1, 10), 3)]
    return right, wrong


def test_back_side_says_equal_for_every_accepted_form(browser, tmp_path):
    from quizgen.grade.grader import check_answer

    items = [item for item in A.deck_items(TYPED) if item.kind == "numeric"]
    problems = {item.problem.id: item.problem for item in items}
    out = tmp_path / "typed.apkg"
    A.build_deck(TYPED, out, timestamp=T0)
    (tmp_path / "col").mkdir()
    col = Collection(str(tmp_path / "col" / "collection.anki2"))
    try:
        options = ImportAnkiPackageOptions(
            update_notes=ie.IMPORT_ANKI_PACKAGE_UPDATE_CONDITION_IF_NEWER, with_scheduling=False)
        col.import_anki_package(ImportAnkiPackageRequest(package_path=str(out), options=options))
        cards, cases = [], []
        kinds: dict[str, int] = {}
        for cid in col.find_cards("note:" + '"' + A.MODEL_NAMES["numeric"] + '"'):
            card = col.get_card(cid)
            note = card.note()
            problem = problems[note["Source"].rsplit(" · ", 1)[-1]]
            assert note["Answer"] == C.typed_answer(problem).text
            back = card.answer()
            assert back.count("[[type:Answer]]") == 1 and "<script>" in back
            assert 'class="qz-format"' in back            # the format hint is on the back too
            cards.append(back)
            right, wrong = answer_forms(problem)
            kinds[C.typed_answer(problem).kind] = kinds.get(C.typed_answer(problem).kind, 0) + 1
            for form in right + wrong:
                status = check_answer(problem, None, form).status
                if form in right:
                    assert status == "correct", (problem.id, form, status)
                else:
                    assert status != "correct", (problem.id, form)
                # what Anki's reviewer puts in place of [[type:Answer]] once the card is flipped
                cases.append([len(cards) - 1, col.compare_answer(note["Answer"], form),
                              form in right])
        assert len(cards) >= 200
        assert {"count", "fraction", "list", "ratio", "cycles"} <= set(kinds), kinds
    finally:
        col.close()

    # Anki desktop: one page, each card's HTML set in place and its scripts run again.
    page = browser.page(400, 800, mobile=True)
    data = "<script>window.CARDS = %s; window.CASES = %s;</script>" % (
        json.dumps(cards).replace("</", "<\\/"), json.dumps(cases).replace("</", "<\\/"))
    page.open(write_page(tmp_path, "desktop.html", [data + '<div id="qa"></div>'], anki_night=False))
    before = set(page.eval("Object.keys(window)"))
    verdicts = page.eval("""CASES.map(([card, shown]) => {
        const qa = document.getElementById('qa');
        qa.innerHTML = CARDS[card].replace('[[type:Answer]]', shown);
        for (const old of qa.querySelectorAll('script')) {
            const s = document.createElement('script'); s.textContent = old.textContent;
            old.replaceWith(s);
        }
        const v = qa.querySelector('.qz-verdict');
        const red = qa.querySelectorAll('#typeans .typeBad, #typeans .typeMissed').length;
        return v.hidden ? null : [v.className.includes('qz-equal'), v.textContent, red,
                                  qa.querySelector('#typeans').textContent];
    })""")
    assert set(page.eval("Object.keys(window)")) == before          # nothing kept between cards
    wrong = [(cases[i][1][:120], got) for i, got in enumerate(verdicts)
             if got is None or got[0] is not cases[i][2]]
    assert not wrong, (len(wrong), wrong[:5])
    assert {got[1] for got in verdicts} == {"equal ✓", "not equal ✗", "barabar ✓", "barabar nahi ✗"}
    # an answer judged equal shows no red letters from Anki's own comparison, only what was
    # typed and the key's form; a wrong one keeps Anki's diff
    for i, (equal, _, red, shown) in enumerate(verdicts):
        form = cases[i][1]
        if equal:
            assert red == 0, (form[:80], shown)
        elif "typeBad" in form or "typeMissed" in form:
            assert red > 0, (form[:80], shown)
    assert sum(case[2] for case in cases) >= 1000

    # AnkiDroid / AnkiMobile: every side is a fresh page; the back's check needs nothing from
    # the front. Some cases, each in its own document.
    sample = cases[:: max(1, len(cases) // 40)]
    frames = "".join(
        '<iframe srcdoc="' + html.escape(
            f'<!doctype html><html><head><meta charset="utf-8"></head><body class="{body_class(i % 2 == 1)}">'
            + cards[card].replace("[[type:Answer]]", shown) + "</body></html>", quote=True) + '"></iframe>'
        for i, (card, shown, _) in enumerate(sample))
    page.open(write_page(tmp_path, "fresh.html", [frames], anki_night=False))
    fresh = page.eval("[...document.querySelectorAll('iframe')].map(f => {"
                      "const v = f.contentDocument.querySelector('.qz-verdict');"
                      "return v.hidden ? null : v.className.includes('qz-equal'); })")
    assert fresh == [ok for _, _, ok in sample]

    # Where scripts do not run, Anki's own comparison is all there is: the canonical answer,
    # typed as the hint says, is all green.
    exact = next(i for i, case in enumerate(cases) if case[2] and "typeBad" not in case[1])
    doc = (f'<!doctype html><html><head><meta charset="utf-8"></head><body class="{body_class(False)}">'
           + cards[cases[exact][0]].replace("[[type:Answer]]", cases[exact][1]) + "</body></html>")
    frame = f'<iframe sandbox="allow-same-origin" srcdoc="{html.escape(doc, quote=True)}"></iframe>'
    page.open(write_page(tmp_path, "noscript.html", [frame], anki_night=False))
    inside = "document.querySelector('iframe').contentDocument"
    assert page.eval(f"{inside}.querySelector('.qz-verdict').hidden") is True
    assert page.eval(f"{inside}.querySelectorAll('#typeans .typeGood').length") > 0
    assert page.eval(f"{inside}.querySelectorAll('#typeans .typeBad, #typeans .typeMissed').length") == 0



# ---------------------------------------------------------------------------------------------
# Phone-first backs

PHONE = 360


def mathjax_script() -> str:
    """MathJax 3 (SVG output) typesetting ``\\( … \\)`` and ``\\[ … \\]`` as Anki does, or ''
    when the test dependency is missing."""
    try:
        import mathjax
    except ImportError:
        return ""
    path = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5" / "tex-svg.js"
    if not path.is_file():
        return ""
    return ('<script>window.MathJax = {tex: {inlineMath: [["\\\\(", "\\\\)"]], displayMath: '
            '[["\\\\[", "\\\\]"]]}, svg: {fontCache: "global"}};</script>'
            f'<script src="{path.as_uri()}"></script>')


def test_backs_read_on_a_phone(browser, collection, tmp_path):
    backs, kinds = [], []
    for cid in collection.find_cards(""):
        card = collection.get_card(cid)
        kinds.append(card.note_type()["name"])
        backs.append(card.answer().replace("[[type:Answer]]", collection.compare_answer(
            card.note()["Answer"], card.note()["Answer"]) if "Answer" in card.note().keys() else ""))
    media = Path(collection.media.dir())
    page = browser.page(PHONE, 740, mobile=True)
    script = mathjax_script()
    cards = "".join(f'<div class="qa" style="border-bottom:4px solid red">{b}</div>' for b in backs)
    path = media / "phone.html"
    path.write_text(f'<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" '
                    f'content="width=device-width, initial-scale=1">{script}</head>'
                    f'<body class="{body_class(False)}">{cards}</body></html>', encoding="utf-8")
    page.open(path)
    if script:
        page.eval("MathJax.startup.promise.then(() => true)", await_promise=True)
        assert page.eval("document.querySelectorAll('mjx-container').length") > 100
    # No sideways scrolling: nothing is wider than the phone.
    assert page.eval("document.documentElement.scrollWidth") <= PHONE
    report = page.eval("""[...document.querySelectorAll('.qa')].map(qa => {
        const q = qa.querySelector('.qz'), details = qa.querySelector('details.qz-details');
        const answer = qa.querySelector('.qz-answer'), trap = qa.querySelector('.qz-trap');
        const hr = qa.querySelector('hr#answer');
        const pos = el => el ? el.getBoundingClientRect().top + scrollY : null;
        const widest = [...qa.querySelectorAll('*')].reduce((a, e) =>
            e.getBoundingClientRect().right > (a ? a.getBoundingClientRect().right : 0) ? e : a, null);
        return {wide: widest.getBoundingClientRect().right,
                what: widest.tagName + '.' + widest.className + ' in ' + widest.parentNode.className
                      + ': ' + (widest.closest('.qz-math,li,div') || widest).textContent.slice(0, 80),
                open: details ? details.open : null, answer: pos(answer), trap: pos(trap),
                details: pos(details), hr: pos(hr), bottom: qa.getBoundingClientRect().bottom + scrollY,
                trapLabel: trap ? trap.querySelector('.qz-label') !== null : null,
                format: qa.querySelector('hr#answer ~ .qz-format') !== null};
    })""")
    screens = []
    for kind, row in zip(kinds, report):
        assert row["wide"] <= PHONE + 0.5, (kind, row)
        if row["trap"] is not None:
            assert row["trapLabel"], kind                      # a trap is always labelled
        if kind == A.MODEL_NAMES["cloze"]:
            continue
        assert row["answer"] is not None and row["answer"] > row["hr"], kind
        if row["details"] is not None:                         # steps folded below Answer, Trap
            assert row["open"] is False and row["details"] > row["answer"], kind
            if row["trap"] is not None:
                assert row["answer"] < row["trap"] < row["details"], kind
        if kind == A.MODEL_NAMES["numeric"]:
            assert row["format"], "the format hint is on the back too"
        screens.append((row["bottom"] - row["hr"]) / 740)
    # What a student sees after flipping (folded steps) fits in about one phone screen or two.
    assert max(screens) < 2.5, max(screens)
    # A picture to look at: the first numeric back with a figure, as a phone shows it.
    top = page.eval("(() => { const img = document.querySelector('.qz-numeric .qz-img');"
                    "const qa = img.closest('.qa').getBoundingClientRect();"
                    "return {x: 0, y: qa.top + scrollY, width: 360, height: Math.min(qa.height, 1400)}; })()")
    page.save_screenshot(tmp_path / "phone-back.png", top)


#: One kernel on three GPUs (X-5), both languages, as type-in and multiple-choice cards.
SEVERAL_GPUS = recipe_from_dict({"name": "gpus", "deck": "quizgen::GPUs", "cells": ["X-5"],
                                 "per_cell": 2, "levels": [1, 2, 3], "seed": 4, "lang": "both",
                                 "kinds": ["numeric", "mcq"]})


def test_backs_on_several_gpus_give_each_gpu_first_then_fold_its_steps(browser, tmp_path):
    """A phone (360 px, light and night) shows every GPU's answer before any step, each GPU's
    steps in a fold of their own, and nothing wider than the phone, folded or open."""
    out = tmp_path / "gpus.apkg"
    A.build_deck(SEVERAL_GPUS, out, timestamp=T0)
    (tmp_path / "col").mkdir()
    col = Collection(str(tmp_path / "col" / "collection.anki2"))
    try:
        options = ImportAnkiPackageOptions(
            update_notes=ie.IMPORT_ANKI_PACKAGE_UPDATE_CONDITION_IF_NEWER, with_scheduling=False)
        col.import_anki_package(ImportAnkiPackageRequest(package_path=str(out), options=options))
        backs = []
        for cid in sorted(col.find_cards("")):
            card = col.get_card(cid)
            note = card.note()
            shown = col.compare_answer(note["Answer"], note["Answer"]) if "Answer" in note.keys() else ""
            backs.append(card.answer().replace("[[type:Answer]]", shown))
        media = Path(col.media.dir())
    finally:
        col.close()
    assert len(backs) >= 10
    page = browser.page(PHONE, 740, mobile=True)
    script = mathjax_script()
    for night in (False, True):
        cards = "".join(f'<div class="qa" style="border-bottom:4px solid red">{b}</div>' for b in backs)
        path = media / f"gpus-{night}.html"
        path.write_text(f'<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" '
                        f'content="width=device-width, initial-scale=1">{script}</head>'
                        f'<body class="{body_class(night)}">{cards}</body></html>', encoding="utf-8")
        page.open(path)
        if script:
            page.eval("MathJax.startup.promise.then(() => true)", await_promise=True)
        rows = page.eval("""[...document.querySelectorAll('.qa')].map(qa => {
            const top = el => el.getBoundingClientRect().top + scrollY;
            const folds = [...qa.querySelectorAll('details.qz-part-fold')];
            const answer = qa.querySelector('.qz-answer'), hr = qa.querySelector('hr#answer');
            return {gpus: [...qa.querySelectorAll('.qz-per-part > li .qz-part')].map(e => e.textContent),
                    folds: folds.map(f => f.querySelector('summary').textContent),
                    closed: folds.every(f => !f.open), answerBottom: answer.getBoundingClientRect().bottom + scrollY,
                    firstFold: folds.length ? top(folds[0]) : null, hr: top(hr),
                    bottom: qa.getBoundingClientRect().bottom + scrollY};
        })""")
        for row in rows:
            assert row["gpus"] == ["T4", "A100", "H100"], row
            # one fold per GPU in the answer's order; a step comparing the GPUs (level 3) folds last
            per_gpu = [f.split(":")[0] for f in row["folds"]][:len(row["gpus"])]
            assert per_gpu == row["gpus"] and len(row["folds"]) - len(row["gpus"]) in (0, 1), row
            assert row["closed"] and row["firstFold"] > row["answerBottom"], row
            # what a phone shows after the flip (every GPU's answer, the trap): about one screen
            assert (row["firstFold"] - row["hr"]) / 740 < 1.3, row
        assert page.eval("document.documentElement.scrollWidth") <= PHONE
        # pictures to look at (pytest keeps tmp_path): folded, then every fold open
        page.save_screenshot(tmp_path / f"gpus-folded-{'night' if night else 'light'}.png",
                             {"x": 0, "y": 0, "width": PHONE, "height": 1400})
        # every fold opened: still nothing wider than the phone
        page.eval("document.querySelectorAll('details').forEach(d => d.open = true)")
        assert page.eval("document.documentElement.scrollWidth") <= PHONE
        widest = page.eval("Math.max(...[...document.querySelectorAll('.qa *')].map("
                           "e => e.getBoundingClientRect().right))")
        assert widest <= PHONE + 0.5, widest
        page.save_screenshot(tmp_path / f"gpus-open-{'night' if night else 'light'}.png",
                             {"x": 0, "y": 0, "width": PHONE, "height": 2200})
