"""Rebuilding a shared deck in real Anki: a text fix updates only the changed notes and keeps
review history and students' tags elsewhere; another seed adds notes; another language is its
own deck; formula cards never duplicate; identical rebuilds are byte-identical (a lock file)."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import time

from anki import import_export_pb2 as ie
from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest

from quizgen.export import anki as A
from quizgen.generator import generate_one
from quizgen.recipes import apply_overrides, recipe_from_dict
from deck_helpers import answer_some

T0 = 1_700_000_000          # in the past: students edit after a build is made
RECIPE = recipe_from_dict({"name": "rebuild", "deck": "quizgen::Rebuild",
                           "cells": ["OCC-1", "OCC-3", "W-C", "L-6"], "per_cell": 2,
                           "levels": [1, 2], "seed": 3})


def import_apkg(col: Collection, path):
    options = ImportAnkiPackageOptions(
        update_notes=ie.IMPORT_ANKI_PACKAGE_UPDATE_CONDITION_IF_NEWER,
        update_notetypes=ie.IMPORT_ANKI_PACKAGE_UPDATE_CONDITION_IF_NEWER, with_scheduling=False)
    return col.import_anki_package(ImportAnkiPackageRequest(package_path=str(path), options=options)).log


def fixed(cell: str):
    """The generator with a text fix in one cell's worked solutions."""
    def source(c, **kwargs):
        problem = generate_one(c, **kwargs)
        if c == cell:
            problem.solution = dataclasses.replace(problem.solution,
                                                   trap=problem.solution.trap + " (fixed)")
        return problem
    return source


def state(col: Collection, cid: int) -> tuple:
    card = col.get_card(cid)
    return (card.nid, card.type, card.queue, card.due, card.ivl, card.reps, card.left)


def test_rebuilds_update_exactly_what_changed(tmp_path):
    lock = tmp_path / "rebuild.lock.json"
    first = tmp_path / "v1.apkg"
    s1 = A.build_deck(RECIPE, first, timestamp=T0, lock=lock)
    assert s1.changes.first and s1.changes.added == s1.notes
    # Identical rebuild, even at a later build time: the same bytes, nothing to update.
    again = tmp_path / "again.apkg"
    s_again = A.build_deck(RECIPE, again, timestamp=T0 + 50, lock=lock)
    assert again.read_bytes() == first.read_bytes()
    assert (s_again.changes.added, s_again.changes.updated, s_again.changes.unchanged) == (0, 0, s1.notes)

    col = Collection(str(tmp_path / "collection.anki2"))
    try:
        log = import_apkg(col, first)
        assert len(log.new) == s1.notes
        col.decks.select(col.decks.id_for_name("quizgen::Rebuild"))
        studied = answer_some(col, 6)
        reviews = col.db.scalar("select count() from revlog")
        occ3 = set(col.find_notes("tag:quizgen::cell::OCC-3 -tag:quizgen::kind::cloze"))
        others = set(col.find_notes("")) - occ3
        assert occ3 and others
        # A student marks one note of each group.
        col.tags.bulk_add([min(occ3), min(others)], "marked")

        # (a) a text fix in OCC-3: only those notes are updated
        fix = tmp_path / "fix.apkg"
        # (a fix released after the student's tagging: its build time is newer than their edit)
        later = int(time.time()) + 1000
        s2 = A.build_deck(RECIPE, fix, problems_for=fixed("OCC-3"), timestamp=later, lock=lock)
        assert (s2.changes.added, s2.changes.updated, s2.changes.unchanged) == (
            0, len(occ3), s1.notes - len(occ3))
        log = import_apkg(col, fix)
        assert len(log.new) == 0
        assert {entry.id.nid for entry in log.updated} == occ3
        assert len(log.duplicate) == len(others)
        assert col.note_count() == s1.notes
        assert col.db.scalar("select count() from revlog") == reviews
        for cid, before in studied.items():
            assert state(col, cid) == before                  # review history kept everywhere
        for nid in occ3:
            assert "(fixed)" in "".join(col.get_note(nid).fields)
        assert col.get_note(min(others)).has_tag("marked")   # unchanged notes keep their tags
        # Anki gives an updated note the deck's tags (documented): the student's tag goes
        assert not col.get_note(min(occ3)).has_tag("marked")

        # (b) another seed: new problems are new notes; shared problems and formulas stay
        seed = tmp_path / "seed.apkg"
        s3 = A.build_deck(apply_overrides(RECIPE, seed=2027), seed, problems_for=fixed("OCC-3"),
                          timestamp=later + 200, lock=lock)
        other = apply_overrides(RECIPE, seed=2027)
        mine_items, their_items = A.deck_items(RECIPE), A.deck_items(other)
        mine = {A.problem_guid(i.problem, i.kind) for i in mine_items}
        theirs = {A.problem_guid(i.problem, i.kind) for i in their_items}
        # formula cards: one per formula; a concept card's worked number can bring a new one
        mine_f = {f.name for f in A.formula_examples(mine_items)}
        theirs_f = {f.name for f in A.formula_examples(their_items)}
        assert s3.changes.added == len(theirs - mine) + len(theirs_f - mine_f)
        assert len(theirs - mine) > 0
        # a problem both seeds draw may be worded another way (the wording follows the draw), and
        # a formula card's example and cells follow the deck's first use of it
        assert s3.changes.updated <= len(theirs & mine) + len(theirs_f & mine_f)
        log = import_apkg(col, seed)
        assert len(log.new) == s3.changes.added and len(log.updated) == s3.changes.updated
        assert col.note_count() == s1.notes + s3.changes.added
        cloze = col.find_notes(f'"note:{A.MODEL_NAMES["cloze"]}"')
        formulas = [col.get_note(nid)["Source"] for nid in cloze]
        assert formulas and len(formulas) == len(set(formulas))         # no duplicate formula card
        assert col.db.scalar("select count() from notes group by guid order by 1 desc limit 1") == 1

        # (c) another language: a deck of its own
        english = tmp_path / "en.apkg"
        s4 = A.build_deck(apply_overrides(RECIPE, lang="en"), english, timestamp=later + 300, lock=lock)
        assert s4.changes.added == s4.notes
        before = col.note_count()
        log = import_apkg(col, english)
        assert len(log.new) == s4.notes and col.note_count() == before + s4.notes
        names = {d.name for d in col.decks.all_names_and_ids()}
        assert "quizgen::Rebuild::English::1 Occupancy" in names
        assert "quizgen::Rebuild::Hinglish::1 Occupancy" in names
        english_cards = col.find_cards('"deck:quizgen::Rebuild::English"')
        assert len(english_cards) == s4.cards
        assert all(col.get_card(c).note().has_tag("quizgen::lang::en") for c in english_cards)
        assert col.db.scalar("select count() from revlog") == reviews
    finally:
        col.close()
    data = json.loads(lock.read_text(encoding="utf-8"))
    assert data["format"] == 1 and len(data["notes"]) == s1.notes + s3.changes.added + s4.notes


def test_cli_prints_what_a_reimport_does(tmp_path):
    recipe = tmp_path / "mine.toml"
    recipe.write_text('name = "mine"\ncells = ["OCC-1", "W-C"]\nlevels = [1]\nkinds = ["numeric", "mcq"]\n')
    run = [sys.executable, "-m", "quizgen", "deck", str(recipe), "-q", "--out"]
    env_out = subprocess.run(run + [str(tmp_path / "a.apkg")], capture_output=True, text=True, check=True)
    # a note per problem, and the introduction the deck opens with (it has an occupancy cell)
    from quizgen.export.anki import intro
    from quizgen.recipes import load_deck_recipe, plan_slots

    mine = load_deck_recipe(recipe)
    notes = len(plan_slots(mine)) + (len(mine.langs) if intro.wants_introduction(mine) else 0)
    assert f"all {notes} notes new" in env_out.stdout
    assert (tmp_path / "mine.lock.json").is_file()               # beside the recipe
    again = subprocess.run(run + [str(tmp_path / "b.apkg")], capture_output=True, text=True, check=True)
    assert f"0 new, 0 updated, {notes} left as they are" in again.stdout
    assert (tmp_path / "a.apkg").read_bytes() == (tmp_path / "b.apkg").read_bytes()
    (tmp_path / "mine.lock.json").write_text("{not json")
    bad = subprocess.run(run + [str(tmp_path / "c.apkg")], capture_output=True, text=True)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert "lock" in bad.stderr and not (tmp_path / "c.apkg").exists()
