"""Which notes a deck holds and when each was last changed: the recipe's slots drawn into
problems (one at a time, redrawn when the deck already has the same problem), each problem's card
kind, the formulas they use and each formula's seed-free example, the build's time, and the lock
file read and turned into each note's stamp. Nothing here writes a file."""

from __future__ import annotations

import calendar
import json
import os
import subprocess
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Protocol

import quizgen
from quizgen.export.anki.layout import FormulaExample
from quizgen.export.anki.shared import StoredNotes, cell_exists, model_digest, note_digest
from quizgen.export.anki.typed import note_kind
from quizgen.export.anki.types import DeckPackage
from quizgen.problems.model import Problem
from quizgen.recipes import DeckRecipe, Slot, packaged_path, plan_slots, problem_seed
from quizgen.languages import DEFAULT_LANG


#: Release dates (UTC) of published versions: an installed wheel stamps its notes with these.
#: Add the new version's date when releasing (a test checks the current version is listed).
RELEASE_DATES = {
    "0.1.0": "2026-11-29",
}


#: How often a slot redraws a problem that the deck already holds before accepting a repeat.
REDRAWS = 8


class ProblemSource(Protocol):
    """What the deck builder calls for each slot; `quizgen.generator.generate_one` fits it."""

    def __call__(self, cell: str, *, level: int, seed: int, lang: str = DEFAULT_LANG,
                 gpu: str | None = None) -> Problem: ...


Progress = Callable[[int, int], None]


# ---------------------------------------------------------------------------------------------
# Build timestamp


def release_timestamp(version: str) -> int | None:
    """Midnight UTC of the recorded release date of `version`, or None if not recorded."""
    date = RELEASE_DATES.get(version)
    if date is None:
        return None
    return calendar.timegm(time.strptime(date, "%Y-%m-%d"))


def git_timestamp(root: Path | None = None) -> int | None:
    """The last commit's time (``git log -1 --format=%ct``) when quizgen runs from a checkout."""
    root = root or Path(quizgen.__file__).resolve().parent.parent
    if not (root / ".git").exists() or not (root / "pyproject.toml").is_file():
        return None
    try:
        out = subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%ct"],
                             capture_output=True, text=True, timeout=10, check=True)
        return int(out.stdout.strip())
    except (OSError, subprocess.SubprocessError, ValueError):
        return None


def build_timestamp() -> int:
    """The time stamped on every note and card: reproducible, and newer with every release."""
    env = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if env.isdigit():
        return int(env)
    stamp = git_timestamp()
    if stamp is not None:
        return stamp
    stamp = release_timestamp(quizgen.__version__)
    if stamp is not None:
        return stamp
    # A version without a recorded date: at least as new as every recorded release.
    return max(release_timestamp(v) or 0 for v in RELEASE_DATES)


# ---------------------------------------------------------------------------------------------
# Generating the deck's problems (shared with the Obsidian exporter)


@dataclass(slots=True)
class DeckItem:
    """One generated problem and the card kind it becomes (None: fits no enabled kind)."""

    slot: Slot
    problem: Problem
    kind: str | None


def default_problem_source() -> ProblemSource:
    from quizgen.generator import generate_one

    return generate_one


def iter_deck_items(recipe: DeckRecipe, *, problems_for: ProblemSource | None = None,
                    progress: Progress | None = None) -> Iterator[DeckItem]:
    """Generate the recipe's problems one at a time (in deck order), each with its card kind.

    A consumer that turns each item into a note and lets go of the problem keeps a big deck's
    memory small; `progress` is called once the consumer has taken an item.
    """
    source = problems_for or default_problem_source()
    slots = [slot for slot in plan_slots(recipe) if cell_exists(slot.cell, slot.level, slot.gpu)]
    seen: set[tuple[str, ...]] = set()
    for done, slot in enumerate(slots, 1):
        problem = fresh_problem(source, slot, seen)
        kind = note_kind(problem, recipe.kinds, slot.level + slot.index)
        yield DeckItem(slot, problem, kind)
        if progress is not None:
            progress(done, len(slots))


def deck_items(recipe: DeckRecipe, *, problems_for: ProblemSource | None = None,
               progress: Progress | None = None) -> list[DeckItem]:
    """Generate every problem of the recipe (in deck order) and choose each one's card kind."""
    return list(iter_deck_items(recipe, problems_for=problems_for, progress=progress))


def same_problem_key(problem: Problem) -> tuple[str, ...]:
    """What makes two problems the same note: cell, language, GPU, model and parameters (the
    GPU its identity names: a problem that does not depend on the GPU names its cell's own,
    `quizgen.problems.identity.identity_gpu`)."""
    from quizgen.problems.identity import identity_gpu

    gpu = identity_gpu(problem.cell, problem.level, problem.gpu) \
        if isinstance(problem.gpu, dict) else ""
    return (problem.cell, problem.lang, gpu, problem.model or "", _params_key(problem.params))


def _params_key(params: Any) -> str:
    from quizgen.problems.base import canonical_json

    try:
        return canonical_json(params)
    except TypeError:          # not JSON data (a custom source's parameters)
        return json.dumps(params, sort_keys=True, default=str)


def fresh_problem(source: ProblemSource, slot: Slot, seen: set[tuple[str, ...]]) -> Problem:
    """The slot's problem, redrawn (a few times, deterministically) if the deck already has the
    same one: small families such as the concept cards would otherwise repeat a card."""
    seed = slot.seed
    cheap = _cheap_key(source)
    for attempt in range(REDRAWS + 1):
        known = None
        if cheap is not None and attempt < REDRAWS:
            # Ask which problem this seed gives before paying for its solution and words.
            known = cheap(slot, seed)
            if known in seen:
                seed = problem_seed(slot.seed, slot.cell, slot.level, slot.index + 7919 * (attempt + 1))
                continue
        problem = source(slot.cell, level=slot.level, seed=seed, lang=slot.lang, gpu=slot.gpu)
        # the cheap key is the problem's own key (a test checks), so it need not be made again
        key = known if known is not None else same_problem_key(problem)
        if key not in seen:
            break
        seed = problem_seed(slot.seed, slot.cell, slot.level, slot.index + 7919 * (attempt + 1))
    seen.add(key)
    return problem


def _cheap_key(source: ProblemSource):
    """For the real generator: the repeat check's key without generating (same key, same deck)."""
    from quizgen import generator, problems
    from quizgen.problems.identity import identity_gpu

    if source is not generator.generate_one and source is not generator.generate_worked:
        return None

    def key(slot: Slot, seed: int) -> tuple[str, ...]:
        gpu, params = problems.draw(slot.cell, level=slot.level, seed=seed, gpu=slot.gpu)
        fam = problems.family(slot.cell)
        model = fam.model_for(gpu) if fam.uses_model else None
        return (fam.cell, slot.lang, identity_gpu(fam.cell, slot.level, gpu), model or "",
                _params_key(params))

    return key


# ---------------------------------------------------------------------------------------------
# The formulas the deck's problems use


def formula_examples(items: Iterable[DeckItem]) -> list[FormulaExample]:
    """One example per (language, formula) in deck order: the first step that used the formula."""
    seen: dict[tuple[str, str], FormulaExample] = {}
    for item in items:
        note_formulas(seen, item)
    return list(seen.values())


def note_formulas(seen: dict[tuple[str, str], FormulaExample], item: DeckItem) -> None:
    """Record the formulas `item` uses in `seen` (first use: the example; every use: its cell)."""
    if item.kind is None:
        return
    problem = item.problem
    for step in problem.solution.steps:
        if not step.formula:
            continue
        key = (problem.lang, step.formula)
        example = seen.get(key)
        if example is None:
            example = seen[key] = FormulaExample(step.formula, problem.lang, step.title, step)
        if problem.cell not in example.cells:
            example.cells.append(problem.cell)


def seed_free_examples(examples: Iterable[FormulaExample],
                       recipe: DeckRecipe) -> list[FormulaExample]:
    """The formula cards' examples, the same whatever the recipe's seed: each formula's example
    is its first use in seed 0's problem of the first cell (in course order, lowest level of
    the recipe) that uses it, else the deck's own first use. Cells are listed in course order."""
    from quizgen.generator import CELLS, generate_one

    order = {cell: i for i, cell in enumerate(CELLS)}
    made: dict[tuple[str, int, str], Problem | None] = {}

    def reference(cell: str, level: int, lang: str) -> Problem | None:
        key = (cell, level, lang)
        if key not in made:
            try:
                made[key] = generate_one(cell, level=level, seed=0, lang=lang)
            except Exception:       # a cell that cannot draw at this level: keep the deck's
                made[key] = None
        return made[key]

    out = []
    for example in examples:
        cells = sorted(example.cells, key=lambda c: (order.get(c, len(order)), c))
        chosen = None
        for cell in cells:
            for level in sorted(recipe.levels):
                problem = reference(cell, level, example.lang)
                step = next((s for s in problem.solution.steps if s.formula == example.name),
                            None) if problem is not None else None
                if step is not None:
                    chosen = FormulaExample(example.name, example.lang, step.title, step, cells)
                    break
            if chosen is not None:
                break
        if chosen is None:
            chosen = FormulaExample(example.name, example.lang, example.title, example.step, cells)
        out.append(chosen)
    return out


# ---------------------------------------------------------------------------------------------
# The lock file: what each note held when it was last built, and since when


LOCK_FORMAT = 1


@dataclass(frozen=True, slots=True)
class Changes:
    """What re-importing the new build into a collection that has the previous one does."""

    added: int          # notes with a GUID the lock has never seen
    updated: int        # notes whose content changed: a newer stamp, Anki updates them
    unchanged: int      # same content, same stamp: Anki leaves them (and students' tags) alone
    first: bool         # no lock before this build


@dataclass(slots=True)
class Stamps:
    """Modification times per note GUID and per note type ID, and the lock's new entries."""

    notes: dict[str, int]
    models: dict[int, int]
    lock_notes: dict[str, list[Any]]
    lock_models: dict[str, list[Any]]
    changes: Changes

    @property
    def latest(self) -> int:
        return max([*self.notes.values(), *self.models.values(), 0])


def default_lock_path(recipe: DeckRecipe, out_path: str | Path) -> Path:
    """Where a build keeps its lock: beside the recipe file (``my-deck.toml`` →
    ``my-deck.lock.json``), or, for a recipe shipped with quizgen, beside the output
    (``<recipe name>.lock.json``)."""
    source = Path(recipe.source) if recipe.source else None
    if source is not None and source.suffix == ".toml" and source.is_file():
        shipped = packaged_path("decks")
        try:
            source.resolve().relative_to(shipped.resolve())
        except ValueError:
            return source.with_name(source.stem + ".lock.json")
    return Path(out_path).parent / f"{recipe.name}.lock.json"


def read_lock(path: str | Path) -> tuple[dict[str, list[Any]], dict[str, list[Any]]]:
    """(notes, note types) of a lock file; empty when there is none. A damaged lock is an
    error (rebuilding without it would re-stamp every note)."""
    from quizgen.errors import QuizgenError

    lock = Path(path)
    if not lock.is_file():
        return {}, {}
    try:
        data = json.loads(lock.read_text(encoding="utf-8"))
        notes, models = data["notes"], data.get("note_types", {})
        if data.get("format") != LOCK_FORMAT or not isinstance(notes, dict) or \
                not isinstance(models, dict):
            raise ValueError("unknown format")
        for entry in [*notes.values(), *models.values()]:
            if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)
                    and isinstance(entry[1], int)):
                raise ValueError("bad entry")
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
        raise QuizgenError(f"{lock} is not a quizgen lock file ({exc}); move it away to start "
                           "afresh (every note is then stamped anew)", field="lock") from None
    return notes, models


def plan_stamps(package: DeckPackage, stamp: int,
                lock: tuple[dict[str, list[Any]], dict[str, list[Any]]] | None) -> Stamps:
    """Each note's and note type's modification time: the lock's when its content is the same,
    else `stamp` (at least one second newer than the lock's, so Anki sees it as newer)."""
    old_notes, old_models = lock if lock is not None else ({}, {})
    notes: dict[str, int] = {}
    models: dict[int, int] = {}
    new_notes = dict(old_notes)
    new_models = dict(old_models)
    added = updated = unchanged = 0
    seen_models = {}
    for deck in package.decks:
        notes_of = deck.notes.digests() if isinstance(deck.notes, StoredNotes) else \
            ((note.model, note.guid, note_digest(note)) for note in deck.notes)
        for model, guid, digest in notes_of:
            seen_models[model.model_id] = model
            old = old_notes.get(guid)
            if old is None:
                added += 1
                mod = stamp
            elif old[0] == digest:
                unchanged += 1
                mod = old[1]
            else:
                updated += 1
                mod = max(stamp, old[1] + 1)
            notes[guid] = mod
            new_notes[guid] = [digest, mod]
    for model_id, model in seen_models.items():
        digest = model_digest(model)
        old = old_models.get(str(model_id))
        mod = old[1] if old is not None and old[0] == digest else \
            max(stamp, old[1] + 1) if old is not None else stamp
        models[model_id] = mod
        new_models[str(model_id)] = [digest, mod]
    return Stamps(notes, models, new_notes, new_models,
                  Changes(added, updated, unchanged, first=not old_notes))
