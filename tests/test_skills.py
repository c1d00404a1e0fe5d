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


def typed_plan(cards):
    """Answers typed on the front (desktop keeps the page across the flip), each with the verdict
    due: every accepted form of the day's variant's answer, and one wrong answer."""
    plan = []
    for card in cards:
        if card["cell"] not in ("OCC-2", "W-C", "W-G"):
            continue
        attrs = {str(v): variant_attrs(card["fields"]["Questions"], v) for v in range(1, K + 1)}
        right = {v: accepted_forms(a["answer"], a["kind"]) for v, a in attrs.items()}
        wrong = {v: [wrong_answer(a["answer"], a["kind"])] for v, a in attrs.items()}
        for day in (0, 1, 2):
            plan.append({"card": card["id"], "day": day, "desktop": True, "forms": right, "expect": "right"})
        plan.append({"card": card["id"], "day": 3, "desktop": True, "forms": wrong, "expect": "wrong"})
        plan.append({"card": card["id"], "day": 4, "desktop": False, "forms": right, "expect": None})
    return plan


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
    """One Chromium page load over every card: 60 days, every variant typeset, typed answers."""
    if chromium() is None:
        pytest.skip("chromium is not installed (CI installs it)")
    recipe, summary, col, cards = imported
    page_cards = [{"id": c["id"], "q": c["q"], "a": c["a"]} for c in cards]
    return run_page(page_cards, col.media.dir(), days=DAYS, typeset_days=K, hours=[0, -7, 11, 3],
                    typed=typed_plan(cards), checks=[list(c) for c in CHECKS])


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
        assert not front["typeBox"] and not front["answer"]
        if cells[entry["id"]] in ("OCC-2", "W-C"):
            assert back["imgs"] and all(w > 0 and vis for w, vis in back["imgs"])


def test_typed_answer_is_checked_where_the_page_survives_the_flip(browser):
    results = browser["typed"]
    assert len([r for r in results if r["desktop"]]) >= 20
    for got in results:
        assert got["v"] == got["back"]
        if got["desktop"]:
            assert got["box"], got
            assert got["verdict"] == got["expect"], got
            assert got["text"] in got["message"]
        else:
            # AnkiDroid and AnkiMobile keep nothing across the flip: no box, no verdict
            assert not got["box"] and got["verdict"] is None


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
