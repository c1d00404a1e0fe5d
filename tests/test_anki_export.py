"""Decks imported, rendered, studied and updated by the real Anki (the `anki` package from PyPI)."""

from __future__ import annotations

import dataclasses
import json
import re
import sqlite3
import subprocess
import zipfile
from pathlib import Path

import pytest

from anki import import_export_pb2 as ie  # noqa: E402
from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest  # noqa: E402

import quizgen  # noqa: E402
from quizgen.errors import QuizgenError  # noqa: E402
from quizgen.export import anki as A  # noqa: E402
from quizgen.export.anki import intro  # noqa: E402
from quizgen.export.anki import plan as P  # noqa: E402
from quizgen.recipes import apply_overrides, load_deck_recipe, plan_slots, recipe_from_dict  # noqa: E402
from deck_helpers import answer_some, engine_problem  # noqa: E402

T0 = 1_800_000_000
CELLS = ["OCC-1", "OCC-3", "X-1", "L-6"]


def small_recipe(**changes):
    data = {"name": "unit", "title": "Unit deck", "deck": "quizgen::Unit", "cells": CELLS,
            "per_cell": 2, "levels": [1, 2], "seed": 11}
    data.update(changes)
    return recipe_from_dict(data)


def intro_guids(recipe) -> set[str]:
    """The GUIDs of the deck's introduction notes (one per language, with an OCC cell)."""
    return {intro.intro_guid(lang) for lang in recipe.langs} if intro.wants_introduction(recipe) \
        else set()


def new_collection(tmp_path: Path, name: str = "col") -> Collection:
    folder = tmp_path / name
    folder.mkdir()
    return Collection(str(folder / "collection.anki2"))


def import_apkg(col: Collection, path: Path):
    options = ImportAnkiPackageOptions(
        update_notes=ie.IMPORT_ANKI_PACKAGE_UPDATE_CONDITION_IF_NEWER,
        update_notetypes=ie.IMPORT_ANKI_PACKAGE_UPDATE_CONDITION_IF_NEWER,
        with_scheduling=False)
    return col.import_anki_package(ImportAnkiPackageRequest(package_path=str(path), options=options)).log


_MATH = re.compile(r"\\\(|\\\)|\\\[|\\\]")


def mathjax_balanced(html: str) -> bool:
    """Every \\( is closed by \\) and every \\[ by \\], never nested, never left open."""
    open_with = None
    for token in _MATH.findall(html):
        if token in ("\\(", "\\["):
            if open_with is not None:
                return False
            open_with = token
        else:
            if open_with is None or {"\\(": "\\)", "\\[": "\\]"}[open_with] != token:
                return False
            open_with = None
    return open_with is None


def check_rendered(col: Collection) -> dict[str, int]:
    """Render every card's question and answer; return the number of cards per note type."""
    kinds: dict[str, int] = {}
    for cid in col.find_cards(""):
        card = col.get_card(cid)
        kind = card.note_type()["name"]
        kinds[kind] = kinds.get(kind, 0) + 1
        question, answer = card.question(), card.answer()
        for side in (question, answer):
            assert "template has a problem" not in side.lower(), side[-400:]
            assert "{{" not in side and "}}" not in side, side[-400:]
            assert mathjax_balanced(side), side[-600:]
            assert "$" not in side.split("</style>", 1)[-1]
        assert '<hr id=answer>' in answer
        for src in re.findall(r'<img[^>]* src="([^"]+)"', question + answer):
            assert (Path(col.media.dir()) / src).is_file(), src
        if kind == A.MODEL_NAMES["numeric"]:
            assert "[[type:Answer]]" in question and "[[type:Answer]]" in answer
            assert re.fullmatch(r"[-0-9.a-z_]+(, [-0-9.]+)*", card.note()["Answer"]), card.note()["Answer"]
        if kind == A.MODEL_NAMES["cloze"]:
            assert "[...]" in question
    return kinds


def test_deck_imports_renders_and_counts(tmp_path):
    recipe = small_recipe()
    out = tmp_path / "unit.apkg"
    summary = A.build_deck(recipe, out, problems_for=engine_problem, timestamp=T0)
    col = new_collection(tmp_path)
    try:
        log = import_apkg(col, out)
        assert len(log.new) == summary.notes == col.note_count()
        assert col.card_count() == summary.cards
        assert summary.cells == len(CELLS)
        # One note per slot plus one cloze note per distinct formula.
        assert summary.notes > len(plan_slots(recipe))
        kinds = check_rendered(col)
        assert set(kinds) == {A.MODEL_NAMES[k] for k in ("numeric", "mcq", "cloze", "concept")}
        # the concept cell's notes, and the introduction (a concept note) of each language
        assert kinds[A.MODEL_NAMES["concept"]] == recipe.per_cell * len(recipe.levels) + len(
            intro_guids(recipe))
        tags = set(col.tags.all())
        for cell in CELLS:
            assert f"quizgen::cell::{cell}" in tags
        assert {"quizgen::level::1", "quizgen::level::2", "quizgen::lang::hinglish"} <= tags
        assert all(" " not in tag for tag in tags)
        names = {d.name for d in col.decks.all_names_and_ids()}
        assert "quizgen::Unit::Hinglish::1 Occupancy" in names
        assert "quizgen::Unit::Hinglish::5 Formulas" in names
        model = col.models.by_name(A.MODEL_NAMES["numeric"])
        assert model["id"] == A.MODEL_IDS["numeric"]
        assert ".nightMode" in model["css"] and "@media" in model["css"]
    finally:
        col.close()


def test_fields_are_escaped_and_typed_answer_is_accepted(tmp_path):
    out = tmp_path / "unit.apkg"
    A.build_deck(small_recipe(cells=["OCC-3"], kinds=["numeric"]), out,
                 problems_for=engine_problem, timestamp=T0)
    col = new_collection(tmp_path)
    try:
        import_apkg(col, out)
        for nid in col.find_notes(""):
            note = col.get_note(nid)
            if note.note_type()["name"] != A.MODEL_NAMES["numeric"]:
                continue
            assert "&lt;launch&gt;" in note["Question"] and "<launch>" not in note["Question"]
            assert "&amp;" in note["Question"]
            problem = engine_problem("OCC-3", level=1, seed=0)  # the answer's form, not its value
            assert isinstance(problem.answers[problem.main_answer], int)
            typed = note["Answer"]
            assert typed.isdigit()
            # Anki's own comparison: the typed value matches, a wrong one does not.
            good = col.compare_answer(typed, typed)
            bad = col.compare_answer(typed, str(int(typed) + 1))
            assert "typeBad" not in good and "typeGood" in good
            assert "typeBad" in bad
    finally:
        col.close()


def revised(problem_source, mark: str):
    def source(cell, **kwargs):
        problem = problem_source(cell, **kwargs)
        problem.solution = dataclasses.replace(problem.solution,
                                               answer=problem.solution.answer + mark)
        return problem

    return source


def test_update_round_trip_keeps_scheduling(tmp_path):
    recipe = small_recipe()
    first, second = tmp_path / "v1.apkg", tmp_path / "v2.apkg"
    summary = A.build_deck(recipe, first, problems_for=engine_problem, timestamp=T0)
    A.build_deck(recipe, second, problems_for=revised(engine_problem, " (revised)"),
                 timestamp=T0 + 86_400)
    col = new_collection(tmp_path)
    try:
        import_apkg(col, first)
        col.decks.select(col.decks.id_for_name("quizgen::Unit::Hinglish::1 Occupancy"))
        studied = answer_some(col, 3)
        reviews = col.db.scalar("select count() from revlog")
        assert reviews == 3

        log = import_apkg(col, second)
        problem_notes = len(plan_slots(recipe))
        assert len(log.new) == 0
        # Anki updates every note whose copy is older, changed or not.
        assert len(log.updated) == summary.notes > problem_notes
        assert len(log.duplicate) == 0
        assert col.note_count() == summary.notes
        assert col.db.scalar("select count() from notes group by guid order by 1 desc limit 1") == 1
        assert col.db.scalar("select count() from revlog") == reviews
        for cid, state in studied.items():
            card = col.get_card(cid)
            assert (card.nid, card.type, card.queue, card.due, card.ivl, card.reps, card.left) == state
            # the problem cards took the new text; the introduction is not a problem's
            assert ("(revised)" in card.answer()) is (card.note().guid not in intro_guids(recipe))
    finally:
        col.close()


def test_same_file_twice_adds_nothing(tmp_path):
    out = tmp_path / "unit.apkg"
    summary = A.build_deck(small_recipe(), out, problems_for=engine_problem, timestamp=T0)
    col = new_collection(tmp_path)
    try:
        import_apkg(col, out)
        log = import_apkg(col, out)
        assert (len(log.new), len(log.updated), len(log.duplicate)) == (0, 0, summary.notes)
        assert col.note_count() == summary.notes
    finally:
        col.close()


def test_same_inputs_give_same_bytes(tmp_path):
    recipe = small_recipe(cells=["OCC-1", "L-6"], levels=[1])
    a, b, c = tmp_path / "a.apkg", tmp_path / "b.apkg", tmp_path / "c.apkg"
    A.build_deck(recipe, a, problems_for=engine_problem, timestamp=T0)
    A.build_deck(recipe, b, problems_for=engine_problem, timestamp=T0)
    A.build_deck(recipe, c, problems_for=engine_problem, timestamp=T0 + 1)
    assert a.read_bytes() == b.read_bytes()
    assert a.read_bytes() != c.read_bytes()
    with zipfile.ZipFile(a) as z:
        assert {info.date_time for info in z.infolist()} == {(1980, 1, 1, 0, 0, 0)}


def guids_and_mods(path: Path, tmp_path: Path) -> dict[str, int]:
    with zipfile.ZipFile(path) as z:
        db = tmp_path / f"{path.stem}.anki2"
        db.write_bytes(z.read("collection.anki2"))
    with sqlite3.connect(db) as conn:
        return dict(conn.execute("select guid, mod from notes"))


def test_guids_come_from_problems_not_text_or_seed(tmp_path):
    recipe = small_recipe(cells=["OCC-1", "X-1"], levels=[1])
    a, b = tmp_path / "a.apkg", tmp_path / "b.apkg"
    A.build_deck(recipe, a, problems_for=engine_problem, timestamp=T0)
    A.build_deck(recipe, b, problems_for=revised(engine_problem, " (v2)"), timestamp=T0 + 60)
    old, new = guids_and_mods(a, tmp_path), guids_and_mods(b, tmp_path)
    assert set(old) == set(new)
    assert set(old.values()) == {T0} and set(new.values()) == {T0 + 60}
    # Another seed draws other problems: new GUIDs for them; the formula cards stay the same
    # notes, and a problem that both seeds draw stays one note.
    c = tmp_path / "c.apkg"
    other = apply_overrides(recipe, seed=12)
    A.build_deck(other, c, problems_for=engine_problem, timestamp=T0)
    formulas = {A.formula_guid(e.name, e.lang)
                for e in A.formula_examples(A.deck_items(recipe, problems_for=engine_problem))}
    mine = {A.problem_guid(i.problem, i.kind) for i in A.deck_items(recipe, problems_for=engine_problem)}
    theirs = {A.problem_guid(i.problem, i.kind) for i in A.deck_items(other, problems_for=engine_problem)}
    assert formulas and formulas <= set(guids_and_mods(c, tmp_path)) & set(old)
    assert set(guids_and_mods(c, tmp_path)) & set(old) == formulas | (mine & theirs) | \
        intro_guids(recipe)
    assert theirs - mine


def test_a_deck_for_another_gpu_shares_the_notes_that_do_not_depend_on_the_gpu(tmp_path):
    """The default deck and the same recipe built for the A100, imported into one collection:
    a problem that does not depend on the GPU (the warps of a block, a divergence split, and an
    SM's efficiency where the A100 has the textbook's warps and schedulers) is one note, with
    the default deck's GUID; one that depends on it (occupancy) is a note per GPU."""
    recipe = small_recipe(cells=["W-A", "W-B", "W-C", "W-G", "W-H", "OCC-6", "OCC-2"],
                          levels=[1, 2, 3], per_cell=2, kinds=["numeric", "mcq"])
    home, a100 = tmp_path / "default.apkg", tmp_path / "a100.apkg"
    A.build_deck(recipe, home, timestamp=T0)
    A.build_deck(apply_overrides(recipe, gpu="a100"), a100, timestamp=T0 + 60)
    col = new_collection(tmp_path)
    try:
        first = import_apkg(col, home)
        second = import_apkg(col, a100)
        home_guids = set(guids_and_mods(home, tmp_path))
        by_question: dict[tuple, list[str]] = {}
        added = set()
        for nid in col.find_notes("tag:quizgen::cell::*"):
            note = col.get_note(nid)
            cell = next(t for t in note.tags if "::cell::" in t).rsplit("::", 1)[1]
            by_question.setdefault((note.mid, note.fields[0]), []).append(cell)
            if note.guid not in home_guids:
                added.add(cell)
        twice = [cells for cells in by_question.values() if len(cells) > 1]
        assert not twice, twice                         # no question asked by two notes
        assert len(first.new) == len(home_guids)
        assert len(second.updated) + len(second.duplicate) >= 20
        assert added == {"OCC-2"}                       # only the GPU's own problems are new
    finally:
        col.close()


def test_a_type_in_card_asks_only_the_answer_its_box_takes(tmp_path):
    """A numeric card takes one answer (the main one), so its question asks that one: the
    family's one-answer stem (the multiple-choice card's question), not the whole problem's
    list of asks ("blocks/SM, active warps and occupancy, and the limiter"), on the front and
    the back, for every cell in both languages."""
    from html import unescape

    from quizgen.render.cards import question_html

    recipe = small_recipe(cells="all", levels=[1, 2, 3], per_cell=1, lang="both",
                          kinds=["numeric"])
    problems = {(i.problem.id, i.problem.lang): i.problem for i in A.deck_items(recipe)
                if i.kind == "numeric"}
    out = tmp_path / "numeric.apkg"
    A.build_deck(recipe, out, timestamp=T0)
    col = new_collection(tmp_path)
    plain = lambda html: " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())  # noqa: E731
    try:
        import_apkg(col, out)
        shorter = 0
        for cid in col.find_cards(f'"note:{A.MODEL_NAMES["numeric"]}"'):
            card = col.get_card(cid)
            lang = next(t for t in card.note().tags if "::lang::" in t).rsplit("::", 1)[1]
            problem = problems[card.note()["Source"].rsplit(" · ", 1)[-1], lang]
            assert problem.mcq_stem, problem.id              # every family writes one
            asked = plain(card.note()["Question"])
            assert asked == plain(question_html(problem, stem=True))
            assert asked in plain(card.question()) and asked in plain(card.answer())
            if plain(question_html(problem)) != asked:
                shorter += 1
                assert plain(question_html(problem)) not in plain(card.question())
        assert len(problems) >= 60 and shorter >= len(problems) // 2
    finally:
        col.close()


def test_failed_build_leaves_no_file(tmp_path):
    calls = []

    def failing(cell, **kwargs):
        calls.append(cell)
        if len(calls) == 3:
            raise QuizgenError("cannot draw a problem", field="gpu")
        return engine_problem(cell, **kwargs)

    out = tmp_path / "deck.apkg"
    with pytest.raises(QuizgenError):
        A.build_deck(small_recipe(), out, problems_for=failing, timestamp=T0)
    assert list(tmp_path.iterdir()) == []

    # A previous deck at the same path survives a failed rebuild untouched.
    A.build_deck(small_recipe(cells=["OCC-1"]), out, problems_for=engine_problem, timestamp=T0)
    before = out.read_bytes()
    calls.clear()
    with pytest.raises(QuizgenError):
        A.build_deck(small_recipe(), out, problems_for=failing, timestamp=T0 + 5)
    assert out.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["deck.apkg"]


def test_broken_recipe_fails_before_any_file(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\ncells = ["OCC-1", "OCC-77"]\n')
    out = tmp_path / "deck.apkg"
    with pytest.raises(QuizgenError, match="OCC-77"):
        A.build_deck(load_deck_recipe(bad), out, problems_for=engine_problem, timestamp=T0)
    assert not out.exists()


def test_build_timestamp_sources(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1234567890")
    assert A.build_timestamp() == 1234567890
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    # The installed version has a recorded release date, so a wheel build is never unstamped.
    assert A.release_timestamp(quizgen.__version__) is not None
    dates = sorted((tuple(map(int, v.split("."))), A.release_timestamp(v)) for v in A.RELEASE_DATES)
    assert [stamp for _, stamp in dates] == sorted(stamp for _, stamp in dates)
    root = Path(quizgen.__file__).resolve().parent.parent
    stamp = A.git_timestamp(root)
    if stamp is not None:
        expected = subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%ct"],
                                  capture_output=True, text=True, check=True).stdout.strip()
        assert stamp == int(expected)
        assert A.build_timestamp() == stamp
    else:
        assert A.build_timestamp() == A.release_timestamp(quizgen.__version__)


def test_the_private_genanki_method_the_notes_override_is_still_there_and_called():
    """pyproject.toml pins genanki for this: the deck's notes skip genanki's per-field HTML regex
    by overriding its private method; were it renamed, the override would stop working unseen."""
    import inspect
    import warnings

    import genanki

    from quizgen.export.anki.shared import note_class

    assert callable(getattr(genanki.Note, "_check_invalid_html_tags_in_fields", None))
    assert "self._check_invalid_html_tags_in_fields()" in inspect.getsource(genanki.Note.write_to_db)
    fields = ["x <= y > z", "a", "", "", ""]
    with pytest.warns(UserWarning, match="invalid HTML tags"):
        genanki.Note(model=A.note_model("concept"), fields=fields)._check_invalid_html_tags_in_fields()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        note_class()(model=A.note_model("concept"), fields=fields)._check_invalid_html_tags_in_fields()


def test_note_type_ids_are_fixed_and_distinct():
    assert len(set(A.MODEL_IDS.values())) == len(A.MODEL_IDS)
    for kind in A.MODEL_IDS:
        model = A.note_model(kind)
        assert model.model_id == A.MODEL_IDS[kind]
        assert [f["name"] for f in model.fields] == A.MODEL_FIELDS[kind]


def test_every_cell_has_a_family():
    from quizgen.problems import CELLS, families

    assert set(families()) == set(CELLS)


FOCUSED = load_deck_recipe("occupancy-basics")


def test_focused_recipe_with_the_generator(tmp_path):
    out = tmp_path / "basics.apkg"
    summary = A.build_deck(FOCUSED, out, timestamp=T0)
    assert summary.skipped == 0 and summary.cells == len(FOCUSED.cells)
    col = new_collection(tmp_path)
    try:
        log = import_apkg(col, out)
        assert len(log.new) == summary.notes == col.note_count()
        assert col.card_count() == summary.cards
        kinds = check_rendered(col)
        assert kinds[A.MODEL_NAMES["cloze"]] == summary.notes - len(plan_slots(FOCUSED)) - len(
            intro_guids(FOCUSED))
    finally:
        col.close()


@pytest.mark.slow
def test_default_recipe_in_real_anki(tmp_path):
    recipe = load_deck_recipe(None)
    out = tmp_path / "default.apkg"
    summary = A.build_deck(recipe, out, timestamp=T0)
    assert summary.skipped == 0
    col = new_collection(tmp_path)
    try:
        log = import_apkg(col, out)
        assert len(log.new) == summary.notes == col.note_count()
        assert col.card_count() == summary.cards
        assert len(plan_slots(recipe)) < summary.notes
        check_rendered(col)
        tags = set(col.tags.all())
        missing = [c for c in recipe.cells if f"quizgen::cell::{c}" not in tags]
        assert not missing
        assert summary.cells == len(recipe.cells) == len(quizgen.problems.CELLS)
    finally:
        col.close()


def test_repeated_problems_are_redrawn():
    def pool_of(size):
        def source(cell, *, level, seed, lang="hinglish", gpu=None):
            return engine_problem(cell, level=level, seed=seed % size, lang=lang, gpu=gpu)
        return source

    recipe = small_recipe(cells=["OCC-1"], levels=[1], per_cell=3)
    params = [str(i.problem.params) for i in A.deck_items(recipe, problems_for=pool_of(3))]
    assert len(set(params)) == 3
    # A pool smaller than the deck: repeats are accepted after a few redraws, never a hang.
    params = [str(i.problem.params) for i in A.deck_items(recipe, problems_for=pool_of(1))]
    assert len(params) == 3 and len(set(params)) == 1


# ---------------------------------------------------------------------------------------------
# Building big decks cheaply: figures drawn once, notes held compactly, one-pass zip


def figured(problem_source, figure):
    """The source's problems, every one asking for the same figure."""
    def source(cell, **kwargs):
        return dataclasses.replace(problem_source(cell, **kwargs), figure=dict(figure))
    return source


LIDS = {"kind": "occupancy_lids", "threads_per_block": 256, "regs_per_thread": 32}


def test_a_figure_shared_by_many_notes_is_drawn_and_stored_once(tmp_path, monkeypatch):
    from quizgen.render import figures as F

    drawn = []
    draw = F.draw_figure
    monkeypatch.setattr(F, "draw_figure", lambda spec: drawn.append(spec) or draw(spec))
    recipe = small_recipe(cells=["OCC-1"], levels=[1, 2], per_cell=3)
    source = figured(engine_problem, LIDS)
    out = tmp_path / "fig.apkg"
    A.build_deck(recipe, out, problems_for=source, timestamp=T0)
    # the problems' figure once, and the introduction's own (its example launch)
    assert len(drawn) == 1 + len(intro_guids(recipe))
    svg = F.figure_for(source("OCC-1", level=1, seed=0))
    with zipfile.ZipFile(out) as z:
        media = json.loads(z.read("media"))
        assert len(media) == 1 + len(intro_guids(recipe)) and F.media_name(svg) in media.values()
        index = next(k for k, name in media.items() if name == F.media_name(svg))
        assert z.read(index) == svg.encode("utf-8")
    col = new_collection(tmp_path)
    try:
        import_apkg(col, out)
        check_rendered(col)          # every <img> of every card is in the media folder
        showing = col.find_notes(f'"Figure:*{F.media_name(svg)}*"')
        assert len(showing) == len(plan_slots(recipe))
    finally:
        col.close()


def test_streamed_and_listed_builds_write_the_same_bytes(tmp_path):
    recipe = small_recipe()
    a, b = tmp_path / "a.apkg", tmp_path / "b.apkg"
    summary = A.build_deck(recipe, a, problems_for=engine_problem, timestamp=T0)
    package = A.build_package(recipe, A.deck_items(recipe, problems_for=engine_problem))
    A.add_introduction(package, recipe)
    A.write_package(package, b, T0)
    assert a.read_bytes() == b.read_bytes()
    # the compactly held notes count as genanki counts its own notes
    notes = [note for deck in package.decks for note in deck.notes]
    counted = (len(notes), sum(len(note.cards) for note in notes))
    assert counted == A.count_cards(package) == (summary.notes, summary.cards)


def test_the_package_holds_what_genanki_itself_writes(tmp_path):
    import genanki

    recipe = small_recipe(cells=["OCC-1", "OCC-3", "L-6"], levels=[1])
    lids = figured(engine_problem, LIDS)

    def source(cell, **kwargs):      # two figures: one for OCC-1, another for OCC-3
        if cell == "OCC-1":
            return lids(cell, **kwargs)
        problem = engine_problem(cell, **kwargs)
        return dataclasses.replace(problem, figure={**LIDS, "regs_per_thread": 64})

    package = A.build_package(recipe, A.deck_items(recipe, problems_for=source))
    assert len(package.media) == 2
    ours = tmp_path / "ours.apkg"
    A.write_package(package, ours, T0)
    media = []
    for name, data in package.media.items():
        (tmp_path / name).write_bytes(data)
        media.append(str(tmp_path / name))
    theirs = tmp_path / "theirs.apkg"
    genanki.Package(package.decks, media_files=media).write_to_file(str(theirs), timestamp=T0)
    with zipfile.ZipFile(ours) as mine, zipfile.ZipFile(theirs) as reference:
        assert mine.namelist() == reference.namelist() == ["collection.anki2", "media", "0", "1"]
        for name in reference.namelist():
            assert mine.read(name) == reference.read(name), name
        for info in mine.infolist():
            assert info.compress_type == zipfile.ZIP_DEFLATED
            assert info.date_time == (1980, 1, 1, 0, 0, 0) and info.external_attr == 0o644 << 16


def test_stored_notes_give_back_fields_tags_and_guid():
    import genanki

    model = A.note_model("concept")
    fields = ["⌊65536/8192⌋ → 8 &lt;b&gt;", "ek — jawab", "", "", "OCC-1 · L1"]
    notes = A.StoredNotes()
    notes.append(genanki.Note(model=model, fields=fields, tags=["quizgen::cell::OCC-1"], guid="g1"))
    notes.append(genanki.Note(model=model, fields=["", "b", "", "", ""], tags=[], guid="g2"))
    first, second = list(notes)
    assert first.fields == fields and list(first.tags) == ["quizgen::cell::OCC-1"]
    assert (first.guid, second.guid) == ("g1", "g2") and first.model is model
    # a concept card needs its question: the second note has none, so it makes no card
    assert len(notes) == 2 and notes.cards == 1 == len(first.cards) + len(second.cards)


def test_figures_only_on_the_answer_side(tmp_path, built_deck):
    """A figure marks the binding lid, the warp or the tail: it would give the answer away."""
    col = new_collection(tmp_path)
    try:
        import_apkg(col, built_deck)
        with_figure = 0
        for cid in col.find_cards(""):
            card = col.get_card(cid)
            assert "<img" not in card.question(), card.note().fields[0][:80]
            with_figure += "<img" in card.answer()
        assert with_figure > 0
    finally:
        col.close()


def test_repeat_check_key_before_generating_is_the_problems_own_key():
    """A deck asks which problem a seed gives before generating it; that key must be the one the
    generated problem has, or a repeat could slip through."""
    from quizgen.generator import CELLS, generate_one
    from quizgen.recipes import Slot

    cheap = P._cheap_key(generate_one)
    for cell in CELLS:
        for level in (1, 2, 3):
            for seed in (0, 5, 700):
                for gpu in (None, "a100") if cell.startswith("X") else (None,):
                    slot = Slot(cell, level, 0, "en", gpu, seed)
                    try:
                        problem = generate_one(cell, level=level, seed=seed, lang="en", gpu=gpu)
                    except QuizgenError:
                        continue
                    assert cheap(slot, seed) == P.same_problem_key(problem), (cell, level, seed, gpu)


def test_a_skill_variant_is_the_same_problem_without_its_multiple_choice_parts():
    """Skill notes take their variants from `generate_worked`: the very problem `generate_one`
    gives (same numbers, words, figure, specs and one-answer stem), minus the options no skill
    card shows, so the deck's repeat check treats both sources alike."""
    import dataclasses

    from quizgen.generator import CELLS, generate_one, generate_worked
    from quizgen.recipes import Slot

    assert P._cheap_key(generate_worked) is not None
    with_choices = 0
    for cell in CELLS:
        for level in (1, 2, 3):
            full = generate_one(cell, level=level, seed=3, lang="hinglish")
            worked = generate_worked(cell, level=level, seed=3, lang="hinglish")
            # the stem of the one answer a card can type stays; a concept's (its options') goes
            assert worked.choices == [] and worked.mcq_stem == (full.mcq_stem if full.main_answer
                                                                else "")
            with_choices += bool(full.choices)
            assert dataclasses.replace(full, choices=[], mcq_stem=worked.mcq_stem) == worked, \
                (cell, level)
            slot = Slot(cell, level, 0, "hinglish", None, 3)
            assert P._cheap_key(generate_worked)(slot, 3) == P.same_problem_key(worked)
    assert with_choices > len(CELLS)      # the full problems did have options to leave out


def test_new_cards_come_by_cell_then_level(tmp_path):
    recipe = small_recipe(cells=["OCC-3", "OCC-1", "L-6"], levels=[1, 2, 3])
    out = tmp_path / "order.apkg"
    A.build_deck(recipe, out, problems_for=engine_problem, timestamp=T0)
    col = new_collection(tmp_path)
    try:
        import_apkg(col, out)
        from quizgen.problems import CELLS

        order = []
        for cid in col.find_cards("is:new", order="c.due asc, c.id asc"):
            tags = col.get_card(cid).note().tags
            cell = next((t.split("::")[-1] for t in tags if t.startswith("quizgen::cell::")), None)
            level = next((int(t.split("::")[-1]) for t in tags if t.startswith("quizgen::level::")), 9)
            if "quizgen::kind::intro" in tags:
                order.append((-1, 0, 0))         # the introduction, before every problem
                continue
            order.append((0, CELLS.index(cell), level) if "quizgen::kind::cloze" not in tags
                         else (1, 0, 0))
        assert len(order) == col.card_count() and order == sorted(order)
        assert order[0] == (-1, 0, 0) and order[1][1] == CELLS.index("OCC-1")
    finally:
        col.close()
