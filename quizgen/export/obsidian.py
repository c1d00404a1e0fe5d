"""The deck as Obsidian notes in the Spaced Repetition plugin's card syntax.

One Markdown note per cell (``OCC-3.md``; ``OCC-3.en.md`` when a recipe has both languages),
tagged ``#flashcards/quizgen/<cell>`` so each cell is a deck in the plugin. Problems are multi-line
cards (question lines, a line holding only ``?``, answer lines; a blank line ends a card, so cards
never contain one); concept cards are single ``question:::answer`` recall lines; formulas go to
``Formulas.md``. Math is MathJax as Obsidian renders it: ``$…$`` inline, ``$$…$$`` for display.

The plugin keeps its schedule in ``<!--SR:…-->`` comments right after each card. Every card ends
with a hidden ``%%qz:<id>%%`` marker (its id is the Anki note's GUID), and a re-export carries each
card's comment over by that id, so rebuilding the notes keeps a student's progress.
"""

from __future__ import annotations

import hashlib
import os
import re
import warnings
from pathlib import Path

from quizgen.errors import QuizgenError
from quizgen.export import cards as C
from quizgen.export.anki import (DeckItem, DeckSummary, Progress, ProblemSource, deck_items,
                                 formula_examples, formula_guid, problem_guid,
                                 seed_free_examples, tag_part)
from quizgen.problems.model import Problem
from quizgen.recipes import DeckRecipe

TAG_ROOT = "#flashcards/quizgen"
_MARKER = re.compile(r"%%qz:([0-9a-f]+)%%[ \t]*(?:\r?\n)?[ \t]*(<!--SR:[^>]*-->)")
_ESCAPE = re.compile(r"([\\`*_\[\]{}<>#$|~])")


def md(text: object) -> str:
    """Prose as Markdown text: punctuation that Markdown or the plugin would read is escaped,
    blank lines are folded (a blank line would end the card), and no line is a lone ``?``."""
    escaped = (_ESCAPE.sub(r"\\\1", str(text)).replace("::", r":\:").replace("==", r"=\=")
               .replace("%%", r"%\%"))
    lines = [line.strip() for line in escaped.splitlines() if line.strip()]
    return "\n".join(r"\?" if line in ("?", "??") else line for line in lines)


def md_line(text: object) -> str:
    """Prose on a single line (single-line cards)."""
    return " ".join(md(text).splitlines())


def math(latex: str) -> str:
    return "$" + latex.strip() + "$"


def display(latex: str) -> str:
    return "$$" + latex.strip() + "$$"


def card_id(guid: str) -> str:
    """A Markdown-safe card id (hex) from the Anki note GUID."""
    return hashlib.blake2b(guid.encode("utf-8"), digest_size=6).hexdigest()


def step_md(number: int, step, words: dict[str, str]) -> str:
    parts = [f"{number}. {md_line(step.title)}"]
    m = C.step_math(step)
    if m.symbolic is not None:
        chain = [m.symbolic] + ([m.substituted] if m.substituted is not None else [])
        if m.result is not None and m.result != chain[-1]:
            chain.append(m.result)
        line = math(" = ".join(chain))
        if m.result_text:
            line += f" = {md_line(m.result_text)}"
        parts.append(line)
    elif m.result is not None:
        parts.append(math(m.result))
    elif m.result_text:
        parts.append(md_line(m.result_text))
    if step.unit and (m.result is not None or m.result_text):
        parts.append(md_line(step.unit))
    text = " ".join(parts)
    if step.why:
        text += f" · {md_line(words['why'])} {md_line(step.why)}"
    if step.note:
        text += f" ({md_line(step.note)})"
    return text


def solution_md(problem: Problem) -> list[str]:
    words = C.labels(problem.lang)
    sol = problem.solution
    lines = []
    if sol.forecast:
        lines.append(f"{words['forecast']}: {md_line(sol.forecast)}")
    lines += [step_md(i, step, words) for i, step in enumerate(sol.steps, 1)]
    if sol.verify:
        lines.append(f"{words['verify']}: " + "; ".join(md_line(v) for v in sol.verify))
    if sol.answer:
        lines.append(f"{words['answer']}: {md_line(sol.answer)}")
    if sol.trap:
        lines.append(f"{words['trap']}: {md_line(sol.trap)}")
    return lines


def problem_card(item: DeckItem, recipe: DeckRecipe) -> list[str]:
    """The lines of one card (no blank line inside); the last line is the id marker."""
    problem, kind = item.problem, item.kind
    words = C.labels(problem.lang)
    ident = card_id(problem_guid(problem, kind or "none"))
    if kind == "concept":
        answer = md_line(problem.solution.answer or problem.answers.get(problem.main_answer or "", ""))
        reasons = [s.why for s in problem.solution.steps if s.why]
        if reasons:
            answer += f" ({md_line(' '.join(reasons))})"
        return [f"{md_line(problem.question)}:::{answer} %%qz:{ident}%%"]
    front = [md(problem.question)]
    back = []
    if kind == "mcq":
        front += [f"- {chr(65 + i)}. {md_line(c.text)}" for i, c in enumerate(problem.choices)]
        for i, c in enumerate(problem.choices):
            if c.correct:
                back.append(f"{words['correct']}: {chr(65 + i)}. {md_line(c.text)}"
                            + (f" · {md_line(c.why)}" if c.why else ""))
        wrong = [f"- {chr(65 + i)}. {md_line(c.text)}: {md_line(c.why)}"
                 for i, c in enumerate(problem.choices) if not c.correct]
        if wrong:
            back += [f"{words['wrong_why']}:"] + wrong
    else:
        front.append(f"_{md_line(C.answer_format(problem, problem.lang))}_")
        value = C.answer_value(problem) or ""
        unit = problem.units.get(problem.main_answer or "", "")
        back.append(f"{words['answer']}: {md_line(value)}" + (f" {md_line(unit)}" if unit else ""))
    back += solution_md(problem)
    back.append(f"%%qz:{ident}%%")
    return front + ["?"] + back


def formula_card(example: C.FormulaExample, recipe: DeckRecipe) -> list[str]:
    words = C.labels(example.lang)
    legend = "; ".join(f"{math(tex)}: {md_line(meaning)}"
                       for _, tex, meaning in C.formula_symbols(example.name))
    front = [f"{md_line(words['formula_prompt'])}: {md_line(example.title)}",
             f"{words['symbols']}: {legend}"]
    back = [display(C.symbolic(example.name))]
    m = C.step_math(example.step)
    if m.substituted is not None:
        chain = [m.substituted] + ([m.result] if m.result not in (None, m.substituted) else [])
        back.append(f"{words['example']}: {math(' = '.join(chain))}")
    back.append(f"%%qz:{card_id(formula_guid(example.name, example.lang))}%%")
    return front + ["?"] + back


def _carry(cards: list[list[str]], old_text: str) -> list[list[str]]:
    """Re-attach the plugin's ``<!--SR:…-->`` comments of an earlier export, by card id."""
    schedules = {m.group(1): m.group(2) for m in _MARKER.finditer(old_text)}
    if not schedules:
        return cards
    out = []
    for lines in cards:
        found = re.search(r"%%qz:([0-9a-f]+)%%", lines[-1])
        comment = schedules.get(found.group(1)) if found else None
        if comment is None:
            out.append(lines)
        elif len(lines) == 1:
            out.append([lines[0] + " " + comment])
        else:
            out.append(lines + [comment])
    return out


def note_text(title: str, tag: str, cards: list[tuple[str, list[str]]],
              recipe: DeckRecipe) -> str:
    """A whole note: front matter, the deck tag, a title, then each card under its own heading
    (the plugin shows headings as the card's context)."""
    lines = ["---", f"quizgen-recipe: {recipe.name}", f"quizgen-seed: {recipe.seed}", "---",
             tag, "", f"# {md_line(title)}", ""]
    for heading, card in cards:
        lines += [f"## {md_line(heading)}", ""] + card + [""]
    return "\n".join(lines)


#: How every note quizgen writes begins (its front matter).
NOTE_START = b"---\nquizgen-recipe:"


def _quizgen_note(path: Path) -> str | None:
    """The text of a note quizgen wrote, or None for any other file (or one not UTF-8)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(16 << 20)
        return data.decode("utf-8") if data.startswith(NOTE_START) else None
    except (OSError, UnicodeDecodeError):
        return None


def _foreign_files(out: Path) -> list[str]:
    """Files in `out` (hidden ones such as .obsidian/ aside) that are not quizgen notes."""
    if out.exists() and not out.is_dir():
        raise QuizgenError(f"{out} exists and is not a folder", field="out")
    if not out.is_dir():
        return []
    found = []
    for root, dirs, names in os.walk(out):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            path = Path(root) / name
            if not name.startswith(".") and _quizgen_note(path) is None:
                found.append(str(path.relative_to(out)))
    return found


def write_obsidian(recipe: DeckRecipe, out_dir: str | Path, *,
                   problems_for: ProblemSource | None = None,
                   progress: Progress | None = None, force: bool = False) -> DeckSummary:
    """Write the recipe's deck as Markdown notes into `out_dir` (created if missing).

    Existing notes of the same names are replaced, keeping the plugin's review schedule of every
    card that is still there. Returns the same summary as `build_deck` (bytes: all notes).
    A folder holding other files (not quizgen notes; hidden ones such as .obsidian/ aside) is
    refused unless `force`; even then they are never changed, and one in the way of a note is
    kept as NAME.kept.
    """
    from quizgen.files import atomic_write

    foreign = _foreign_files(Path(out_dir))
    if foreign:
        if not force:
            shown = ", ".join(foreign[:4]) + (f" and {len(foreign) - 4} more" if len(foreign) > 4 else "")
            raise QuizgenError(f"{out_dir} holds files that are not quizgen notes ({shown}); "
                               "choose a folder of their own, or pass --force to write the notes "
                               "beside them (yours are never changed)", field="out")
    items = deck_items(recipe, problems_for=problems_for, progress=progress)
    out = Path(out_dir)
    several = len(recipe.langs) > 1
    files: dict[str, tuple[str, str, list[tuple[str, list[str]]]]] = {}
    cards = 0
    for item in items:
        if item.kind is None:
            continue
        problem = item.problem
        name = f"{problem.cell}.{problem.lang}.md" if several else f"{problem.cell}.md"
        if name not in files:
            files[name] = (problem.cell, f"{TAG_ROOT}/{tag_part(problem.cell)}", [])
        heading = f"{problem.title or problem.cell} · L{problem.level} · {item.slot.index + 1}"
        files[name][2].append((heading, problem_card(item, recipe)))
        cards += 1
    if "cloze" in recipe.kinds:
        for example in seed_free_examples(formula_examples(items), recipe):
            name = f"Formulas.{example.lang}.md" if several else "Formulas.md"
            if name not in files:
                files[name] = ("Formulas", f"{TAG_ROOT}/formulas", [])
            files[name][2].append((example.title, formula_card(example, recipe)))
            cards += 1

    out.mkdir(parents=True, exist_ok=True)
    total = 0
    for name, (title, tag, note_cards) in files.items():
        path = out / name
        if path.is_file() or os.path.lexists(path):
            old = _quizgen_note(path)
            if old is None:                    # not ours (or not UTF-8): kept, never overwritten
                from quizgen.files import _kept_name

                kept = _kept_name(path)
                os.replace(path, kept)
                warnings.warn(f"{path} is not a quizgen note; kept as {kept.name}", stacklevel=2)
            else:
                carried = _carry([card for _, card in note_cards], old)
                note_cards = [(heading, card) for (heading, _), card in zip(note_cards, carried)]
        text = note_text(title, tag, note_cards, recipe)
        total += atomic_write(path, text, field="out")
    cells = len({item.problem.cell for item in items if item.kind is not None})
    skipped = sum(1 for item in items if item.kind is None)
    return DeckSummary(notes=len(files), cards=cards, cells=cells, bytes=total, path=str(out),
                       skipped=skipped)
