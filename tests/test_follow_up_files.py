"""Follow-up decks as files in a folder the teacher names: quizgen replaces only its own decks,
keeps the teacher's, tells a roll named like the class deck apart, writes no empty deck, and
files each concept card under its topic (seen in a real Anki collection)."""

from __future__ import annotations

import json
import sqlite3
import zipfile
from pathlib import Path

import pytest

from conftest import CLASS_RECIPE, make_class, run_quizgen

ROSTER = [("Asha Rao", "R01"), ("Ravi", "class"), ("Meera", "R03"), ("Dev", "R04")]


def _fill(roll: str, number: int, box: str, right) -> str:
    """R01 gets everything right; the others slip on every box (a wrong number)."""
    if roll == "R01" or isinstance(right, (list, tuple)):
        return ", ".join(map(str, right)) if isinstance(right, (list, tuple)) else str(right)
    return str(right * 3 + 1) if isinstance(right, (int, float)) else "7"


@pytest.fixture(scope="module")
def klass(tmp_path_factory):
    return make_class(tmp_path_factory.mktemp("follow"), CLASS_RECIPE, ROSTER, _fill)


def _grade(klass, tmp_path, follow: Path, *more, out: str = "g"):
    return run_quizgen("grade", klass.manifest, klass.answers, "--out", tmp_path / out, "-q",
                       "--remedial", follow, *more)


def _deck_names(apkg: Path, tmp_path: Path) -> set[str]:
    """The names of the decks an .apkg's collection holds (as Anki lists them)."""
    db = tmp_path / "peek.anki2"
    with zipfile.ZipFile(apkg) as z:
        db.write_bytes(z.read("collection.anki2"))
    with sqlite3.connect(db) as con:
        decks = json.loads(con.execute("select decks from col").fetchone()[0])
    return {d["name"] for d in decks.values()}


def test_a_teachers_own_files_in_the_deck_folder_are_refused_then_kept(klass, tmp_path):
    follow = tmp_path / "fu"
    follow.mkdir()
    (follow / "class.apkg").write_text("mine", encoding="utf-8")
    (follow / "R03.apkg").write_text("my deck for Meera", encoding="utf-8")
    refused = _grade(klass, tmp_path, follow)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    assert "class.apkg" in refused.stderr and "--force" in refused.stderr
    assert not (tmp_path / "g").exists()             # refused before grading: nothing written
    assert (follow / "class.apkg").read_text(encoding="utf-8") == "mine"
    forced = _grade(klass, tmp_path, follow, "--force")
    assert forced.returncode == 0, forced.stderr
    assert (follow / "R03.apkg.kept").read_text(encoding="utf-8") == "my deck for Meera"
    assert zipfile.is_zipfile(follow / "R03.apkg")
    assert "R03.apkg was not written by quizgen; kept as R03.apkg.kept" in forced.stderr
    mine = follow / ("class.apkg.kept" if zipfile.is_zipfile(follow / "class.apkg")
                     else "class.apkg")
    assert mine.read_text(encoding="utf-8") == "mine"


def test_quizgens_own_decks_are_replaced_without_asking(klass, tmp_path):
    follow = tmp_path / "fu"
    first = _grade(klass, tmp_path, follow)
    assert first.returncode == 0, first.stderr
    before = sorted(p.name for p in follow.iterdir())
    again = _grade(klass, tmp_path, follow, out="g2")
    assert again.returncode == 0, again.stderr
    assert sorted(p.name for p in follow.iterdir()) == before
    assert not any(name.endswith(".kept") for name in before)


def test_the_results_folder_is_not_a_deck_folder(klass, tmp_path):
    done = run_quizgen("grade", klass.manifest, klass.answers, "--out", tmp_path / "g",
                       "--remedial", tmp_path / "g")
    assert done.returncode == 2 and "--out" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and not (tmp_path / "g").exists()


def test_a_roll_named_class_keeps_its_deck_beside_the_class_deck(klass, tmp_path):
    follow = tmp_path / "fu"
    done = _grade(klass, tmp_path, follow)
    assert done.returncode == 0, done.stderr
    decks = sorted(p.name for p in follow.glob("*.apkg"))
    ravi = next(p for p in decks if p.startswith("class-"))
    assert "class.apkg" in decks and ravi != "class.apkg"
    # every deck the command counts is a file, and R01 (full marks) has none
    assert f"{len(decks)} follow-up decks" in done.stdout
    assert "R01.apkg" not in decks and "no deck for those who lost no points: 1" in done.stdout
    assert any("Ravi" in name for name in _deck_names(follow / ravi, tmp_path))
    assert not any("Ravi" in name for name in _deck_names(follow / "class.apkg", tmp_path))


def test_a_class_that_lost_nothing_gets_no_decks_and_is_told(tmp_path):
    right = make_class(tmp_path / "c", CLASS_RECIPE, ROSTER[:2])
    done = run_quizgen("grade", right.manifest, right.answers, "--out", tmp_path / "g", "-q",
                       "--remedial", tmp_path / "fu")
    assert done.returncode == 0, done.stderr
    assert list((tmp_path / "fu").glob("*.apkg")) == []
    assert "0 follow-up decks" in done.stdout and "no class deck" in done.stdout


@pytest.mark.parametrize("lang", ["en", "hinglish"])
def test_each_concept_card_is_filed_under_its_topic_in_anki(tmp_path, lang):
    from anki.collection import Collection, ImportAnkiPackageRequest

    from quizgen.export.anki import write_package
    from quizgen.grade.follow_up import FollowUp, build_follow_up
    from quizgen.languages import language_name
    from quizgen.problems.concepts import TOPICS, card_ids, get_card
    from quizgen.render.phrases import labels

    groups = labels(lang, "deck-group")
    # where a student looks for each topic: the subdeck of the cells that work it
    expected = {"occupancy": groups["OCC"], "optimisation": groups["OCC"], "grid": groups["OCC"],
                "warps": groups["W"], "divergence": groups["W"], "latency": groups["L"],
                "memory": groups["L"]}
    assert set(expected) == set(TOPICS)
    col = Collection(str(tmp_path / "collection.anki2"))
    try:
        for topic in TOPICS:       # one student's deck per topic, two cards each
            cards = [c for c in card_ids() if get_card(c).topic == topic][:2]
            package = build_follow_up(FollowUp("Asha", "R01", cards=cards), lang=lang,
                                      title="t", deck=f"follow-up::{topic}")
            write_package(package, tmp_path / f"{topic}.apkg", 1_700_000_000)
            col.import_anki_package(
                ImportAnkiPackageRequest(package_path=str(tmp_path / f"{topic}.apkg")))
        filed = [col.decks.name(col.get_card(cid).did) for cid in col.find_cards("")]
    finally:
        col.close()
    assert len(filed) == 2 * len(TOPICS)
    for name in filed:
        _, topic, language, group = name.split("::")
        assert (language, group) == (language_name(lang), expected[topic]), name


def test_the_midterms_classic_slips_each_have_a_concept_card():
    """Slips a midterm class shows (blocks taken for warps, a warp count rounded down, half-warps,
    a grid packed onto few SMs, waves left as a fraction) each bring the card that teaches the
    belief behind them, and that card exists in both languages."""
    from quizgen.grade.follow_up import slip_cards
    from quizgen.problems.concepts import card_ids

    cards = slip_cards()
    expected = {"blocks_as_warps": "occupancy-counts-warps",
                "register_blocks_as_warps": "occupancy-counts-warps",
                "block_fill_as_occupancy": "occupancy-definition",
                "no_ceiling": "warp-count-proof", "half_warp": "warp-is-32-threads",
                "forgot_warp_size": "warp-is-32-threads",
                "packed_grid": "blocks-go-out-breadth-first", "exact_waves": "tail-wave"}
    for slip, card in expected.items():
        assert cards.get(slip) == card, slip
        assert card in card_ids()
