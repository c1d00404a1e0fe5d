"""Follow-up decks after an exam: for each student an Anki deck of what their paper showed
missing, and one for the class.

A student's deck holds
* a **skill note** (`quizgen.export.anki.skills`: a new solved variant at every review) for every
  cell in which they lost points, at the level the exam asked it, and
* a **concept card** (cell L-6) for every misconception their answers showed, as the mapping in
  ``templates/concepts/slips.toml`` names it, and the exam's own concept questions they missed.

Note identities belong to the student, not to the exam (the skill note of OCC-2 level 2 for roll
R07 is the same note after the midterm and after the final), so importing a later exam's deck
updates the notes already under study instead of adding copies. The class deck holds the concept
cards of the misconceptions two or more students showed and the skills of the cells the class
lost most points in, for the teacher's next lecture. A student who lost no points gets no deck
(and a class with nothing in common to practise no class deck): the command says so.

Concept cards are filed in the deck by their topic (an occupancy card under occupancy), as in
every quizgen deck; a misconception is taught by the card ``slips.toml`` maps it to, so a card
added there reaches every follow-up deck.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import chain
from pathlib import Path
from typing import Any

from quizgen.grade.analysis import ClassAnalysis, first_misconception
from quizgen.grade.graded import GradedClass
from quizgen.grade.results import StudentResult
from quizgen.manifest import Manifest

__all__ = ["FollowUp", "FollowUpDecks", "follow_up", "follow_ups", "class_follow_up",
           "write_follow_up_decks", "check_follow_up_folder", "deck_stems", "slip_cards"]

#: Cells whose lost points a skill note cannot practise (a concept question is its own card).
NO_SKILL = frozenset({"L-6"})
#: The class deck: this many misconceptions at most, each shown by at least 2 students, and the
#: cells the class lost at least this share of the points in (at most 4).
CLASS_MISCONCEPTIONS, CLASS_CELL_SHARE, CLASS_CELLS = 12, 0.3, 4


@cache
def slip_cards() -> dict[str, str]:
    """misconception key → the concept card that teaches the belief behind it."""
    from quizgen.resources import packaged_path

    with open(packaged_path("templates", "concepts", "slips.toml"), "rb") as fh:
        return dict(tomllib.load(fh)["card"])


@dataclass(slots=True)
class FollowUp:
    """What one deck holds: (cell, level) skills and concept card ids, with why."""

    who: str                              # the student's label (or the class)
    key: str                              # stable identity: roll, else name, else version
    skills: list[tuple[str, int]] = field(default_factory=list)
    cards: list[str] = field(default_factory=list)
    misconceptions: list[str] = field(default_factory=list)


def _levels(manifest: Manifest, version: str) -> dict[str, tuple[int, Any]]:
    """problem id → (level, its concept card id or None), of the paper `version`."""
    paper = manifest.by_version(version)
    out = {}
    for q in paper.questions if paper is not None else ():
        answers = q.get("answers") if isinstance(q.get("answers"), Mapping) else {}
        out[str(q.get("id", ""))] = (q.get("level", 1), answers.get("concept"))
    return out


def follow_ups(students: Sequence[StudentResult],
               manifest: Manifest | Mapping[str, Any]) -> list[FollowUp]:
    """Each student's follow-up: the skills and concept cards their answers showed missing."""
    manifest = Manifest.of(manifest)
    return [follow_up(s, manifest) for s in students]


def follow_up(student: StudentResult, manifest: Manifest) -> FollowUp:
    """One student's follow-up (their paper is read from the manifest for its levels)."""
    levels = _levels(manifest, student.version)
    cards = slip_cards()
    plan = FollowUp(student.label, student.roll or student.name or student.version)
    for q in student.questions:
        level, card = levels.get(q.problem_id, (1, None))
        lost = any(b.counted and b.points < b.max_points for b in q.boxes)
        if lost and q.cell in NO_SKILL:
            if isinstance(card, str) and card not in plan.cards:
                plan.cards.append(card)
        elif lost and (q.cell, level) not in plan.skills:
            plan.skills.append((q.cell, level))
        for b in q.boxes:
            key = first_misconception(b)
            if key is None or key in plan.misconceptions:
                continue
            plan.misconceptions.append(key)
            if key in cards and cards[key] not in plan.cards:
                plan.cards.append(cards[key])
    return plan


def class_follow_up(analysis: ClassAnalysis) -> FollowUp:
    """The teacher's deck: the class's commonest misconceptions and weakest cells."""
    cards = slip_cards()
    plan = FollowUp("class", "class")
    for m in analysis.misconceptions[:CLASS_MISCONCEPTIONS]:
        if len(m.students) < 2:
            continue
        plan.misconceptions.append(m.key)
        if m.key in cards and cards[m.key] not in plan.cards:
            plan.cards.append(cards[m.key])
    for cell in analysis.reteach:
        if cell.lost_share < CLASS_CELL_SHARE or cell.cell in NO_SKILL:
            continue
        for level in cell.levels or [1]:
            if len(plan.skills) < CLASS_CELLS:
                plan.skills.append((cell.cell, level))
    return plan


@cache
def _concept_seed(card_id: str) -> tuple[int, int]:
    """(level, seed) that draw concept card `card_id` from cell L-6."""
    from quizgen.generator import generate_worked
    from quizgen.problems.concepts import card_ids, get_card

    level = get_card(card_id).level
    for seed in range(len(card_ids(level))):
        if generate_worked("L-6", level=level, seed=seed).answers["concept"] == card_id:
            return level, seed
    raise LookupError(card_id)   # the pool holds every card of its level (see ConceptCards.space)


@cache
def _variant(cell: str, *, level: int, seed: int, lang: str, gpu: str | None):
    """A skill's solved variant: the same for every student's deck, so made once."""
    from quizgen.generator import generate_worked

    return generate_worked(cell, level=level, seed=seed, lang=lang, gpu=gpu)


def _recipe(plan: FollowUp, *, lang: str, title: str, seed: int, deck: str, cells=(), levels=(1,)):
    from quizgen.recipes import DeckRecipe

    return DeckRecipe(name=f"follow-up-{plan.key}", title=title, deck=deck,
                      cells=tuple(cells), per_cell=1, levels=tuple(levels), gpus=(), langs=(lang,),
                      seed=seed, kinds=("skill", "concept"), description=title)


def build_follow_up(plan: FollowUp, *, lang: str, title: str, deck: str, seed: int = 0):
    """The genanki package of one follow-up deck (concept cards, then skill notes)."""
    from quizgen.export import anki
    from quizgen.generator import generate_one
    from quizgen.recipes import Slot

    recipe = _recipe(plan, lang=lang, title=title, seed=seed, deck=deck)
    items = []
    for index, card in enumerate(plan.cards):
        level, card_seed = _concept_seed(card)
        problem = generate_one("L-6", level=level, seed=card_seed, lang=lang)
        items.append(anki.DeckItem(Slot("L-6", level, index, lang, None, card_seed), problem,
                                   "concept"))
    package = anki.build_package(recipe, items)
    for cell, level in plan.skills:
        anki.skills.add_skills(package, _recipe(plan, lang=lang, title=title, seed=seed,
                                                deck=deck, cells=(cell,), levels=(level,)),
                               problems_for=_variant)
    return package


#: The class deck's file stem (a student whose roll is "class" gets another name).
CLASS_STEM = "class"


@dataclass(slots=True)
class FollowUpDecks:
    """What `write_follow_up_decks` wrote: each deck's file and plan (the class deck last),
    the students who lost nothing (no deck), whether the class deck had nothing to hold, and a
    line for each file of the user's that was in the way (kept as NAME.kept)."""

    written: list[tuple[Path, FollowUp]]
    nothing: list[str]
    class_empty: bool
    kept: list[str]


def deck_stems(students: Sequence[StudentResult]) -> list[str]:
    """A deck file stem per student (their feedback page's, unless it is the class deck's), and
    the class deck's last."""
    from quizgen.files import file_stems

    stems = file_stems([CLASS_STEM, *(s.roll or s.name or s.version for s in students)],
                       alternates=["", *(s.version for s in students)], fallback="student")
    return [*stems[1:], stems[0]]


def check_follow_up_folder(folder: str | Path, *, force: bool,
                           results: str | Path | None = None) -> None:
    """Refuse (one line) a folder for follow-up decks that holds files quizgen did not write
    there, unless `force` (they are kept), or that is the grade results' folder itself."""
    from quizgen.errors import QuizgenError
    from quizgen.files import check_folder

    if results is not None and Path(folder).resolve() == Path(results).resolve():
        raise QuizgenError(f"{folder} is the results folder (--out); give the decks a folder "
                           "of their own", field="remedial")
    check_folder(folder, force=force, field="remedial")


def write_follow_up_decks(graded: GradedClass, out_dir: str | Path, *, lang: str | None = None,
                          timestamp: int | None = None, force: bool = False,
                          progress=None) -> FollowUpDecks:
    """One .apkg per student of a graded class who lost points (named as their feedback page)
    and ``class.apkg`` into `out_dir`, in `lang` (default: the language the class was graded
    in), each built and written in turn. A student who lost nothing gets no deck (an empty deck
    would be a file with nothing to study). quizgen's own decks of an earlier run are replaced;
    any other file is refused, or with `force` kept (one in the way as NAME.kept)."""
    from quizgen.export.anki import build_timestamp, write_package
    from quizgen.files import publish_folder, staged_folder
    from quizgen.render.phrases import book

    lang = lang or graded.lang
    words = book(lang)["follow-up"]
    stamp = build_timestamp() if timestamp is None else int(timestamp)
    seed = graded.manifest.recipe.get("seed", 0)
    seed = seed if isinstance(seed, int) else 0
    out = Path(out_dir)
    check_follow_up_folder(out, force=force)
    students = graded.students
    stems = deck_stems(students)
    jobs = chain(zip(stems, students), [(stems[-1], None)])
    done = FollowUpDecks([], [], False, [])
    with staged_folder(out) as staged:
        for count, (stem, student) in enumerate(jobs, 1):
            plan = (follow_up(student, graded.manifest) if student is not None
                    else class_follow_up(graded.analysis))
            who = words["class"] if student is None else plan.who
            if not plan.skills and not plan.cards:
                if student is None:
                    done.class_empty = True
                else:
                    done.nothing.append(who)
            else:
                deck = "::".join([words["deck"], _deck_part(who)])
                deck_title = words["title"].format(who=who, exam=graded.title or words["exam"])
                package = build_follow_up(plan, lang=lang, title=deck_title, deck=deck, seed=seed)
                write_package(package, staged / f"{stem}.apkg", stamp)
                done.written.append((out / f"{stem}.apkg", plan))
            if progress is not None:
                progress(count, len(stems))
        done.kept = publish_folder(staged, out, [p.name for p, _ in done.written],
                                   field="remedial")
    return done


def _deck_part(text: str) -> str:
    """A deck name part: no '::' inside (Anki's separator)."""
    return " ".join(text.replace("::", ":").split()) or "?"
