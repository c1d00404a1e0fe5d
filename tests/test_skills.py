"""Skill notes: built, imported by the real Anki, shown in headless Chromium day after day.

One module-wide deck (real problems, K = 24) is imported with the `anki` package; one Chromium
page load then walks every card through 60 consecutive days, typesets every variant with MathJax,
shows each card in a frame that runs no scripts, and drives the typed-answer check.
"""

from __future__ import annotations

import time
from fractions import Fraction
from pathlib import Path

import pytest

from quizgen.errors import QuizgenError
from quizgen.export import anki as A
from quizgen.export.anki import skills as S
from quizgen.grade.compare import compare
from quizgen.recipes import load_deck_recipe, recipe_from_dict

from skill_browser import chromium, run_page
from skill_clients import back_html, front_html
from test_anki_export import T0, answer_some, import_apkg, new_collection

K = 24
DAYS = 60
#: A figure and a fraction (OCC-2), a list answer (W-C), a concept cell without numbers (L-6),
#: a ratio (W-G).
CELLS = ["OCC-2", "W-C", "L-6", "W-G"]


def skill_recipe(**changes):
    data = {"name": "skills", "deck": "quizgen::Skills test", "cells": CELLS, "levels": [1],
            "seed": 5, "kind": "skill", "variants": K}
    data.update(changes)
    return recipe_from_dict(data)


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """The skill deck imported into a fresh collection: (recipe, summary, collection, cards)."""
    folder = tmp_path_factory.mktemp("skills")
    recipe = skill_recipe()
    out = folder / "skills.apkg"
    summary = A.build_deck(recipe, out, timestamp=T0)
    col = new_collection(folder)
    import_apkg(col, out)
    cards = []
    for cid in col.find_cards(""):
        card = col.get_card(cid)
        note = card.note()
        cards.append({"id": note["Skill"], "cell": note.tags and [t for t in note.tags if "::cell::" in t][0]
                      .rsplit("::", 1)[1], "q": card.question(), "a": card.answer(),
                      "fields": dict(note.items())})
    yield recipe, summary, col, cards
    col.close()


def wrong_answer(value: str, kind: str) -> str:
    if kind == "list":
        return ",".join(str(int(part) + 1) for part in value.split(","))
    return str(Fraction(value) + 1 if kind != "fraction" else Fraction(value) / 2 + Fraction(1, 100))


def accepted_forms(value: str, kind: str) -> list[str]:
    """Ways a student writes the right answer, as the grader accepts them."""
    if kind == "list":
        parts = value.split(",")
        return [value, "(" + ", ".join(parts) + ")", " ".join(parts)]
    exact = Fraction(value)
    if kind == "fraction":
        percent = exact * 100
        text = str(percent.numerator) if percent.denominator == 1 else str(float(percent))
        return [value, f"{text}%", f"{exact.numerator}/{exact.denominator}"]
    if kind == "ratio":
        return [value, f"{value}x"]
    return [value]


CHECKS = [
    # (typed, expected, kind, tolerance, unit)
    ("25%", "0.25", "fraction", "", ""), ("0.25", "0.25", "fraction", "", ""),
    ("16/64", "0.25", "fraction", "", ""), ("25", "0.25", "fraction", "", ""),
    (".25", "0.25", "fraction", "", ""), ("37.5 percent", "0.375", "fraction", "", ""),
    ("0.2502", "0.25", "fraction", "", ""), ("0.252", "0.25", "fraction", "", ""),
    ("25 blocks", "0.25", "fraction", "", ""), ("1,5", "0.25", "fraction", "", ""),
    ("abc", "0.25", "fraction", "", ""), ("", "0.25", "fraction", "", ""),
    ("0,375", "0.375", "fraction", "", ""), ("3 cycles", "0.25", "fraction", "", ""),
    ("8", "8", "count", "", "blocks"), ("8 blocks", "8", "count", "", "blocks"),
    ("8 blocks/SM", "8", "count", "", "blocks"), ("8 blocks per SM", "8", "count", "", "blocks"),
    ("8 warps", "8", "count", "", "blocks"), ("8.0", "8", "count", "", "blocks"),
    ("16/2", "8", "count", "", "blocks"), ("5 + 3", "8", "count", "", "blocks"),
    ("2 x 4", "8", "count", "", "blocks"), ("2 × 4", "8", "count", "", "blocks"),
    ("ceil(100/32)", "4", "count", "", "warps"), ("⌈100/32⌉", "4", "count", "", "warps"),
    ("floor(65536/33280)", "1", "count", "", "blocks"), ("⌊65536/33280⌋", "1", "count", "", ""),
    ("min(8, 2, 8)", "2", "count", "", ""), ("max(3,7)", "7", "count", "", ""),
    ("9", "8", "count", "", "blocks"), ("8 KB", "8", "count", "", "blocks"),
    ("65,536", "65536", "count", "", "registers"), ("65 536", "65536", "count", "", ""),
    ("65_536", "65536", "count", "", ""), ("2^16", "65536", "count", "", ""),
    ("64K registers", "65536", "count", "", "registers"), ("1,048,576", "1048576", "count", "", ""),
    ("−3", "-3", "count", "", ""), ("２５", "25", "count", "", ""),
    ("48 KB", "49152", "bytes", "", ""), ("49152 B", "49152", "bytes", "", ""),
    ("48 KiB", "49152", "bytes", "", ""), ("48", "49152", "bytes", "", ""),
    ("2x", "2", "ratio", "", ""), ("2.0 ×", "2", "ratio", "", ""), ("2.004", "2", "ratio", "", ""),
    ("200%", "2", "ratio", "", ""), ("2.01", "2", "ratio", "", ""),
    ("400 cycles", "400", "cycles", "", ""), ("400", "400", "cycles", "", ""),
    ("25", "25", "percent", "", ""), ("25%", "25", "percent", "", ""), ("0.25", "25", "percent", "", ""),
    ("3.1416", "3.14159", "real", "", ""), ("3.2", "3.14159", "real", "", ""),
    ("9", "8", "count", "1", ""), ("1e3", "1000", "count", "", ""),
    ("(8", "8", "count", "", ""), ("8)", "8", "count", "", ""), ("8 apples", "8", "count", "", ""),
]


def grader_verdict(text, expected, kind, tol, unit):
    verdict = compare(text, Fraction(expected), kind=kind, tolerance=Fraction(tol) if tol else None,
                      unit=unit or None)
    return {"correct": "right", "wrong": "wrong", "invalid": "unread"}[verdict.status]


@pytest.fixture(scope="module")
def browser(imported):
    """One Chromium page load over every card, as Anki desktop shows it (nothing typed): 60
    days, every variant typeset, the reader's verdicts."""
    if chromium() is None:
        pytest.skip("chromium is not installed (CI installs it)")
    recipe, summary, col, cards = imported
    page_cards = [{"id": c["id"], "q": front_html("desktop", c["q"]),
                   "a": back_html("desktop", c["a"], col.compare_answer(c["fields"]["Words"], ""))}
                  for c in cards]
    return run_page(page_cards, col.media.dir(), days=DAYS, typeset_days=K, hours=[0, -7, 11, 3],
                    checks=[list(c) for c in CHECKS])


def variant_attrs(questions: str, number: int) -> dict[str, str]:
    import html
    import re

    match = re.search(rf'<div class="qz-v" data-v="{number}"([^>]*)>', questions)
    assert match, number
    return {k: html.unescape(v) for k, v in re.findall(r'data-(\w+)="([^"]*)"', match.group(1))}


# ---------------------------------------------------------------------------------------------


def test_one_note_per_cell_and_level_with_k_variants(imported):
    recipe, summary, col, cards = imported
    assert summary.notes == col.note_count() == len(CELLS) and summary.cards == len(CELLS)
    model = col.models.by_name(S.SKILL_MODEL_NAME)
    assert model["id"] == S.SKILL_MODEL_ID and S.SKILL_MODEL_ID not in A.MODEL_IDS.values()
    assert [f["name"] for f in model["flds"]] == S.SKILL_FIELDS
    names = {d.name for d in col.decks.all_names_and_ids()}
    assert "quizgen::Skills test::Hinglish::6 Skills" in names
    for card in cards:
        questions = card["fields"]["Questions"]
        numbers = [int(n) for n in __import__("re").findall(r'class="qz-v" data-v="(\d+)"', questions)]
        assert numbers == list(range(1, K + 1))
        # K different problems: no two variants ask the same question
        blocks = questions.split('<div class="qz-v"')[1:]
        assert len(set(blocks)) == K
        assert card["fields"]["Key"] == str(S.skill_key(col.get_note(col.find_notes(
            f'"Skill:{card["id"]}"')[0]).guid))
        for side in (card["q"], card["a"]):
            assert "{{" not in side and "}}" not in side
        assert "<hr id=answer>" in card["a"]
    # new skill cards stand in the course's order (cell, then level), like the problem cards
    dues = {col.get_card(cid).note()["Skill"].split(" · ")[0]: col.get_card(cid).due
            for cid in col.find_cards("")}
    assert dues == {cell: A.new_card_position(cell, 1) for cell in CELLS}


def test_a_variant_with_a_box_asks_only_the_answer_the_box_takes(imported):
    """Each variant's question is its problem's one-answer stem where the note offers the box
    (the card asks what it takes), and the whole question where it does not (L-6)."""
    import re

    from quizgen.export.anki.plan import fresh_problem
    from quizgen.generator import generate_worked
    from quizgen.render.cards import question_html

    recipe, summary, col, cards = imported
    for card in cards:
        seen: set = set()
        slots = S.variant_slots(recipe, card["cell"], 1, "hinglish")
        blocks = re.split(r'<div class="qz-v" data-v="\d+"[^>]*>', card["fields"]["Questions"])[1:]
        for slot, block in zip(slots, blocks, strict=True):
            problem = fresh_problem(generate_worked, slot, seen)
            boxed = card["cell"] != "L-6"
            assert block.startswith(question_html(problem, stem=boxed))
            assert boxed is bool(card["fields"]["Words"]) and (not boxed or problem.mcq_stem)


def test_front_and_back_agree_and_every_variant_comes_round(browser):
    probe = browser
    for entry in probe["cards"]:
        seq = []
        for front, back in entry["days"]:
            # the script keeps one variant per list, the same on both sides
            assert front["shown"] == back["shown"], entry["id"]
            assert front["lists"] == [[front["shown"]]] and back["lists"] == [[back["shown"]]] * 2
            assert front["day"] == back["day"]
            seq.append(int(front["shown"]))
        days = [int(front["day"]) for front, _ in entry["days"]]
        assert days == list(range(days[0], days[0] + DAYS))    # 05:00 to 23:00: one Anki day each
        assert all(a != b for a, b in zip(seq, seq[1:])), seq
        for start in range(DAYS - K + 1):
            assert sorted(seq[start:start + K]) == list(range(1, K + 1)), (start, seq)
    # two notes do not walk through their variants in the same order
    orders = {tuple(int(f["shown"]) for f, _ in e["days"][:K]) for e in probe["cards"]}
    assert len(orders) == len(probe["cards"])


def test_mathjax_and_figures_render_for_every_variant(browser, imported):
    probe = browser
    cells = {c["id"]: c["cell"] for c in imported[3]}
    for entry in probe["cards"]:
        assert sorted(int(t["v"]) for t in entry["typeset"]) == list(range(1, K + 1))
        for shot in entry["typeset"]:
            assert shot["merror"] == 0 and not shot["raw"], (entry["id"], shot)
            if cells[entry["id"]] != "L-6":
                assert shot["math"] >= 2, (entry["id"], shot)
            for src, width, visible in shot["imgs"]:
                assert width > 0 and src.endswith(".svg")
        if cells[entry["id"]] in ("OCC-2", "W-C"):
            assert all(len(shot["imgs"]) == 1 for shot in entry["typeset"])


def test_without_scripts_variant_one_is_shown_whole(browser, imported):
    probe = browser
    cells = {c["id"]: c["cell"] for c in imported[3]}
    for entry in probe["cards"]:
        front, back = entry["noscript"]["q"], entry["noscript"]["a"]
        assert not front["ran"] and not back["ran"]
        assert front["lists"] == [["1"]] and back["lists"] == [["1"], ["1"]]
        assert front["question"] and back["question"] and back["answer"] and back["trap"]
        assert back["steps"] and back["summary"]
        assert not front["answer"]
        # Anki's own box on the front, and its comparison with variant 1's answer on the back
        typeable = cells[entry["id"]] != "L-6"
        assert front["typeBox"] is typeable and (back["comparison"] is not None) is typeable
        if cells[entry["id"]] in ("OCC-2", "W-C"):
            assert back["imgs"] and all(w > 0 and vis for w, vis in back["imgs"])


def test_answer_reader_on_the_card_agrees_with_the_grader(browser):
    probe = browser
    expected = [grader_verdict(*case) for case in CHECKS]
    mismatches = [(case, want, got) for case, want, got in zip(CHECKS, expected, probe["checks"])
                  if want != got]
    assert not mismatches
    assert {"right", "wrong", "unread"} <= set(expected)


# ---------------------------------------------------------------------------------------------


def test_rebuild_with_new_variants_keeps_reviews(tmp_path):
    first, second = tmp_path / "v1.apkg", tmp_path / "v2.apkg"
    A.build_deck(skill_recipe(variants=4), first, timestamp=T0)
    summary = A.build_deck(skill_recipe(variants=6, seed=99), second, timestamp=T0 + 86_400)
    col = new_collection(tmp_path)
    try:
        import_apkg(col, first)
        before = {nid: col.get_note(nid)["Questions"] for nid in col.find_notes("")}
        col.decks.select(col.decks.id_for_name("quizgen::Skills test::Hinglish::6 Skills"))
        studied = answer_some(col, 3)
        reviews = col.db.scalar("select count() from revlog")
        assert reviews == 3
        log = import_apkg(col, second)
        assert len(log.new) == 0 and len(log.updated) == summary.notes == len(CELLS)
        assert col.note_count() == len(CELLS)
        assert col.db.scalar("select count() from revlog") == reviews
        for cid, state in studied.items():
            card = col.get_card(cid)
            assert (card.nid, card.type, card.queue, card.due, card.ivl, card.reps, card.left) == state
        for nid, old in before.items():
            new = col.get_note(nid)["Questions"]
            assert new != old and new.count('class="qz-v"') == 6
    finally:
        col.close()


def test_skill_notes_follow_the_deck_naming_and_the_lock(tmp_path):
    """Skill notes stand in their language's deck like the problem notes, and the lock keeps an
    unchanged skill note's time: an identical rebuild changes nothing, another language adds its
    own deck beside the first."""
    lock = tmp_path / "skills.lock.json"
    first, again, english = (tmp_path / f"{n}.apkg" for n in ("v1", "v1b", "en"))
    one = A.build_deck(skill_recipe(variants=2), first, timestamp=T0, lock=lock)
    same = A.build_deck(skill_recipe(variants=2), again, timestamp=T0 + 86_400, lock=lock)
    assert first.read_bytes() == again.read_bytes()
    assert (same.changes.added, same.changes.updated, same.changes.unchanged) == (0, 0, one.notes)
    other = A.build_deck(skill_recipe(variants=2, lang="en"), english, timestamp=T0 + 2 * 86_400,
                         lock=lock)
    assert (other.changes.added, other.changes.updated) == (len(CELLS), 0)
    col = new_collection(tmp_path)
    try:
        import_apkg(col, first)
        col.decks.select(col.decks.id_for_name(f"quizgen::Skills test::Hinglish::6 Skills"))
        studied = answer_some(col, 2)
        log = import_apkg(col, english)
        assert len(log.new) == len(CELLS) and not log.updated
        decks = {}
        for cid in col.find_cards(""):
            card = col.get_card(cid)
            decks.setdefault(col.decks.name(card.did), set()).add(card.note()["Skill"])
        assert sorted(decks) == [f"quizgen::Skills test::{lang}::6 Skills"
                                 for lang in ("English", "Hinglish")]
        assert all(len(notes) == len(CELLS) for notes in decks.values())
        for cid, state in studied.items():
            card = col.get_card(cid)
            assert (card.nid, card.type, card.queue, card.due, card.ivl, card.reps, card.left) == state
    finally:
        col.close()


@pytest.mark.slow
def test_whole_course_of_skills_builds_fast_and_small(tmp_path):
    recipe = recipe_from_dict({"name": "default", "cells": "all", "levels": [1, 2, 3],
                               "kind": "skill", "variants": 24})
    out = tmp_path / "skills.apkg"
    wall, cpu = time.perf_counter(), time.process_time()
    summary = A.build_deck(recipe, out, timestamp=T0)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    from quizgen.problems import CELLS

    assert summary.notes == len(CELLS) * 3 and summary.cells == len(CELLS)
    # CPU time: other work on a shared machine does not count against the build
    assert cpu < 10, (cpu, wall)
    assert out.stat().st_size < 30 * 1024 * 1024
    print(f"\n{len(CELLS)} cells × 3 levels × 24 variants: {wall:.2f} s wall, {cpu:.2f} s CPU, "
          f"{out.stat().st_size / 1e6:.2f} MB")


def test_recipes_and_overrides_for_skills():
    recipe = skill_recipe()
    assert recipe.kinds == ("skill",) and recipe.variants == K
    assert recipe_from_dict({"name": "x", "kinds": ["numeric", "skill"]}).kinds == ("numeric", "skill")
    assert recipe_from_dict({"name": "x"}).variants == 12
    assert "skill" not in recipe_from_dict({"name": "x"}).kinds
    for bad, field in [({"variants": 0}, "variants"), ({"variants": "many"}, "variants"),
                       ({"kind": "skill", "kinds": ["mcq"]}, "kind"), ({"kind": "skills"}, "kind")]:
        with pytest.raises(QuizgenError, match=field):
            recipe_from_dict({"name": "x", **bad})
    default = load_deck_recipe(None)
    assert "skill" in default.kinds and default.variants == 12
    from quizgen.recipes import apply_overrides

    only = apply_overrides(default, skills=True, variants=5)
    assert only.kinds == ("skill",) and only.variants == 5


def test_skill_notes_keep_their_guid_across_seeds_and_variants():
    a, b = skill_recipe(), skill_recipe(seed=77, variants=3)
    assert S.skill_guid(a, "OCC-2", 1, "en") == S.skill_guid(b, "OCC-2", 1, "en")
    assert S.skill_guid(a, "OCC-2", 1, "en") != S.skill_guid(a, "OCC-2", 2, "en")
    assert S.skill_guid(a, "OCC-2", 1, "en") != S.skill_guid(a, "OCC-2", 1, "hinglish")


def test_deck_command_builds_skill_notes_and_refuses_bad_options(tmp_path):
    import subprocess
    import sys

    run = lambda *args: subprocess.run([sys.executable, "-m", "quizgen", "deck", *args, "--quiet"],
                                       cwd=tmp_path, capture_output=True, text=True, timeout=300)
    done = run("--skills", "--variants", "2", "--lang", "en", "--out", "s.apkg")
    assert done.returncode == 0, done.stderr
    from quizgen.problems import CELLS

    notes = len(CELLS) * 3
    assert done.stdout.startswith(f"{notes} notes, {notes} cards, {len(CELLS)} cells"), done.stdout
    for args, field in [(["--skills", "--variants", "0"], "variants"),
                        (["--skills", "--format", "obsidian", "--out", "vault"], "skills")]:
        bad = run(*args)
        assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and field in bad.stderr, bad.stderr
    assert "--skills" in run("--help").stdout


def test_typed_check_data_is_the_graders_kind_tolerance_and_answer():
    from quizgen.grade.grader import prepare
    from quizgen.generator import CELLS, generate_one

    typed = 0
    for cell in CELLS:
        for level in (1, 2, 3):
            problem = generate_one(cell, level=level, seed=11)
            check = S.typed_check(problem)
            key = problem.main_answer
            if check is None:
                assert key is None or problem.answer_specs[key]["kind"] not in (
                    "count", "fraction", "ratio", "bytes", "cycles", "real", "coords")
                continue
            typed += 1
            if check["kind"] == "list":
                assert [int(v) for v in check["answer"].split(",")] == list(problem.answers[key])
                continue
            q = prepare(problem, asked=[key])
            assert check["kind"] == q.kind[key]
            assert Fraction(check["answer"]) == q.expected[key]
            tol = q.tolerance[key]
            assert (Fraction(check["tol"]) if check["tol"] else None) == (tol if tol else None)
    assert typed >= 80


# ---------------------------------------------------------------------------------------------
# Every client, each side as it shows it (tests/skill_clients.py: the models and their sources)


@pytest.fixture(scope="module")
def clients(imported):
    """A Chromium and the collection's media folder over http, for the clients' models."""
    if chromium() is None:
        pytest.skip("chromium is not installed (CI installs it)")
    from browser import Browser
    from skill_clients import Server

    recipe, summary, col, cards = imported
    server = Server(Path(col.media.dir()))
    with Browser() as chrome:
        yield chrome, server
    server.close()


def _variant(card, v):
    return variant_attrs(card["fields"]["Questions"], int(v))


@pytest.mark.slow
@pytest.mark.parametrize("client", ["desktop", "ankidroid", "ankidroid-input", "ankidroid-new",
                                    "keeps-nothing"])
def test_every_client_offers_the_box_and_the_back_judges_what_was_typed(clients, imported, client):
    """Typed into the client's own box (AnkiDroid: its native box below the page), read back
    from Anki's comparison on the back, judged against the shown variant's answer: every
    accepted form right, a wrong value wrong, on every client, with the page reloaded between
    the sides where the client reloads it."""
    from skill_clients import Viewer, local_ms, review

    chrome, server = clients
    recipe, summary, col, cards = imported
    viewer = Viewer(chrome, server, client)
    judged = 0
    try:
        for card in cards:
            if card["cell"] == "L-6":                   # no number to type: no box at all
                got = review(viewer, col, card, local_ms("2026-02-01", "10:00:00"),
                             local_ms("2026-02-01", "10:00:30"))
                assert got["front"]["box"] is None and got["back"]["verdict"] is None
                continue
            for day in ("2026-02-01", "2026-02-02"):
                front_at, back_at = local_ms(day, "10:00:00"), local_ms(day, "10:01:00")
                for pick in range(3):
                    def typing(front, pick=pick):
                        attrs = _variant(card, front["shown"])
                        forms = accepted_forms(attrs["answer"], attrs["kind"])
                        return wrong_answer(attrs["answer"], attrs["kind"]) if pick == 2 \
                            else forms[pick * (len(forms) - 1)]
                    got = review(viewer, col, card, front_at, back_at, typing)
                    front, back = got["front"], got["back"]
                    assert front["box"] == ("span" if client == "ankidroid" else
                                            None if client == "ankidroid-new" else "input")
                    assert back["shown"] == front["shown"] and back["lists"] == [[front["shown"]]] * 2
                    assert back["verdict"] == ("wrong" if pick == 2 else "right"), (client, got)
                    assert got["typed"] in back["message"]
                    assert back["comparison"] == "none"   # Anki's own diff (variant 1) hidden
                    judged += 1
    finally:
        viewer.close()
    assert judged == 3 * 2 * 3


@pytest.mark.slow
@pytest.mark.parametrize("client", ["desktop", "ankidroid", "ankidroid-input", "ankidroid-new",
                                    "keeps-nothing"])
def test_a_flip_across_4_am_shows_the_front_variant(clients, imported, client):
    """Front at 03:59:50, back at 04:00:10 (India's clock), on six nights: the back shows and
    judges the variant the front showed. Where the page or its session storage survives the
    flip it says so; a viewer that keeps nothing goes by the typed answer, and with nothing
    typed shows the new day's variant with the front's folded under it."""
    from skill_clients import KEEPS_PAGE, Viewer, local_ms, review

    chrome, server = clients
    recipe, summary, col, cards = imported
    viewer = Viewer(chrome, server, client)
    flips = matched = folded = 0
    try:
        for night in range(6):
            day = f"2026-03-{10 + night:02d}"
            front_at, back_at = local_ms(day, "03:59:50"), local_ms(day, "04:00:10")
            for card in cards:
                typeable = card["cell"] != "L-6"
                for typed in ([False, True] if typeable else [False]):
                    def typing(front):
                        return accepted_forms(_variant(card, front["shown"])["answer"],
                                              _variant(card, front["shown"])["kind"])[-1]
                    got = review(viewer, col, card, front_at, back_at, typing if typed else None)
                    front, back = got["front"], got["back"]
                    assert int(back["day"]) <= int(front["day"]) + 1
                    flips += 1
                    if back["shown"] == front["shown"]:
                        matched += 1
                        assert back["other"] is None
                        if typed:
                            assert back["verdict"] == "right", got
                    else:       # only where nothing survives, and the typed answer (if any)
                        assert client == "keeps-nothing", got       # fits both variants
                        assert not typed or back["verdict"] == "right", got
                        assert back["other"] == front["shown"], got
                        folded += 1
                    if client in KEEPS_PAGE or client.startswith("ankidroid"):
                        assert back["how"] == "front", got
    finally:
        viewer.close()
    assert flips == 6 * 7 and matched + folded == flips
    if client != "keeps-nothing":
        assert matched == flips
    print(f"\n{client}: {matched}/{flips} flips across 4 am show the front's variant, "
          f"{folded} more fold it under the new day's")


def test_an_older_skill_deck_takes_the_type_in_box_in_place_keeping_reviews(tmp_path):
    """The note type keeps its ID, name and fields (Anki imports a changed field list as another
    note type and skips the notes), so a collection studied with an older skill deck takes the
    new templates and fields in place: the same notes, their reviews kept, Anki's type-in box on
    the front of every note whose answers are numbers, and none on the others."""
    import genanki

    old_model = genanki.Model(S.SKILL_MODEL_ID, S.SKILL_MODEL_NAME,
                              fields=[{"name": f} for f in S.SKILL_FIELDS],
                              templates=[{"name": "quizgen skill", "qfmt": "{{Questions}}",
                                          "afmt": "{{Questions}}<hr id=answer>{{Answers}}"}])
    recipe = skill_recipe(variants=3)
    new = tmp_path / "new.apkg"
    A.build_deck(recipe, new, timestamp=T0 + 86_400)
    old = tmp_path / "old.apkg"
    deck = genanki.Deck(A.deck_id("old"), "quizgen::Skills test::Hinglish::6 Skills")
    for name, note, cell in S.skill_notes(recipe):
        deck.add_note(genanki.Note(model=old_model, fields=note.fields[:4] + ["<span></span>"],
                                   guid=note.guid, tags=note.tags))
    genanki.Package(deck).write_to_file(old)
    col = new_collection(tmp_path)
    try:
        import_apkg(col, old)
        col.decks.select(col.decks.id_for_name("quizgen::Skills test::Hinglish::6 Skills"))
        studied = answer_some(col, 2)
        log = import_apkg(col, new)
        assert len(log.updated) == len(CELLS) and not log.new and not log.conflicting
        assert col.note_count() == len(CELLS) and col.db.scalar("select count() from revlog") == 2
        for cid, state in studied.items():
            card = col.get_card(cid)
            assert (card.nid, card.type, card.queue, card.due, card.ivl, card.reps, card.left) == state
        model = col.models.by_name(S.SKILL_MODEL_NAME)
        assert "{{type:Words}}" in model["tmpls"][0]["qfmt"] and "{{type:Words}}" in model["tmpls"][0]["afmt"]
        for cid in col.find_cards(""):
            card = col.get_card(cid)
            cell = next(t for t in card.note().tags if "::cell::" in t).rsplit("::", 1)[1]
            boxes = card.question().count("[[type:Words]]"), card.answer().count("[[type:Words]]")
            assert boxes == ((0, 0) if cell == "L-6" else (1, 1)), (cell, boxes)
            if cell != "L-6":           # what Anki compares with: variant 1's answer
                from skill_clients import plain

                expected = plain(col.compare_answer(card.note()["Words"], ""))
                first = variant_attrs(card.note()["Questions"], 1)["answer"]
                if "," in first:
                    assert expected == first
                else:
                    assert abs(float(expected) - float(first)) < 1e-6, (expected, first)
    finally:
        col.close()
