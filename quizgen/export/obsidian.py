"""The deck as Obsidian notes in the Spaced Repetition plugin's card syntax.

One Markdown note per cell and language (``OCC-3.hinglish.md``, ``OCC-3.en.md``), tagged
``#flashcards/quizgen/<language>/<cell>`` so each is a deck in the plugin. Cards follow the
plugin's two basic forms: single-line ``question::answer`` (a concept whose answer is one short
line) and multi-line (question lines, a line holding only ``?``, answer lines; a blank line ends
a card, so cards never contain one). Formulas go to ``Formulas.<language>.md``. Math is MathJax
as Obsidian renders it: ``$…$`` inline, ``$$…$$`` for display. Answers show what a person
writes (``0.40625 (40.625%)``, ``8 blocks``), never the internal kind of a quantity.

The plugin keeps its schedule in a ``<!--SR:…-->`` comment after each card, in one of the three
forms it writes: on the card's last line (its "same line" setting), on the next line, or (its
"use callouts for scheduling comments" setting) in a ``> [!sr|card-metadata]`` callout under the
card. Every card ends with a hidden ``%%qz:<id>%%`` marker (its id comes from the Anki note's
GUID), and a re-export carries what the plugin attached after that marker over by that id,
byte for byte in the form the plugin wrote it, from any quizgen note in the folder (an older
export's file names and ids included), so regenerating the notes keeps a student's progress on
every card that still exists, whichever way the plugin is set.

Figures (the same drawings as the Anki deck's, on a white card so that a dark theme shows them
too) are SVG files in ``quizgen-figures/`` beside the notes, named by their content
(``quizgen-<hash>.svg``) and embedded on the card's back as ``![[quizgen-<hash>.svg]]``. A
re-export removes the figure files no quizgen note in the folder uses any more, and only files
whose content still matches their name (quizgen's own; an edited one is the user's).

Notes of the earlier layout, named without their language (``OCC-3.md``, ``Formulas.md``), are
migrated: when a re-export writes the same note with its language (``OCC-3.hinglish.md``), the
old note's schedules move into the new one and the old note is removed, so no card stands twice.
Only a note quizgen wrote (its front matter) in a language the export writes goes; a note of
another language stays until that language is exported, and a user's own files are never touched.
"""

from __future__ import annotations

import hashlib
import os
import re
import warnings
from pathlib import Path

from quizgen.errors import QuizgenError
from quizgen.export.anki.layout import FormulaExample, formula_symbols
from quizgen.export.anki.notes import formula_guid, problem_guid
from quizgen.export.anki.plan import (DeckItem, Progress, ProblemSource, deck_items,
                                      formula_examples, seed_free_examples)
from quizgen.export.anki.shared import DeckSummary, tag_part
from quizgen.export.anki.typed import answer_format, decimal_text, typed_answer
from quizgen.problems.model import Problem
from quizgen.problems.records import answer_spec
from quizgen.render.cards import FigureMedia, figures_module, labels, step_math
from quizgen.render.math import symbolic
from quizgen.recipes import DeckRecipe

TAG_ROOT = "#flashcards/quizgen"
#: The callout the plugin writes a schedule into with "use callouts for scheduling comments" on.
SR_CALLOUT = "> [!sr|card-metadata]"
#: A card's id marker and the schedule the plugin attached after it: on the same line, on the
#: next line, or as the metadata callout (its header line, then ``>`` lines through the one
#: holding the comment, as the plugin's parser takes it).
_MARKER = re.compile(
    r"%%qz:([0-9a-f]+)%%("
    r"[ \t]*<!--SR:[^\n]*?-->"
    r"|[ \t]*\r?\n[ \t]*<!--SR:[^\n]*?-->"
    r"|[ \t]*\r?\n> \[!sr\|card-metadata\][^\n]*(?:\r?\n>[^\n]*?)*?<!--SR:[^\n]*?-->)")
_COMMENT = re.compile(r"<!--SR:[^\n]*?-->")
#: The folder (beside the notes) that holds the figures, and the names quizgen gives them.
FIGURE_DIR = "quizgen-figures"
_FIGURE_NAME = re.compile(r"quizgen-[0-9a-f]{16}\.svg")
_EMBED = re.compile(r"!\[\[(quizgen-[0-9a-f]{16}\.svg)\]\]")
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
    m = step_math(step)
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
    words = labels(problem.lang)
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


#: Unit words that are kinds of quantity, not units a person writes after a number.
NOT_UNITS = frozenset({"", "fraction", "text", "limiter", "ratio"})


def answer_line(problem: Problem, words: dict[str, str]) -> str:
    """``Answer: 0.40625 (40.625%)``, ``Answer: 8 blocks``: the exact value as a person writes it."""
    typed = typed_answer(problem)
    value = typed.text if typed is not None else str(problem.answers.get(problem.main_answer or "", ""))
    key = problem.main_answer or ""
    unit = answer_spec(problem, key).unit if key in problem.answers else ""
    text = value
    if typed is not None and typed.format == "percent":
        from fractions import Fraction

        pct = decimal_text(Fraction(repr(float(problem.answers[problem.main_answer]))) * 100,
                              None if typed.places is None else max(typed.places - 2, 0))
        text += f" ({pct}%)"
    elif unit not in NOT_UNITS:
        text += f" {unit}"
    return f"{words['answer']}: {md_line(text)}"


def figure_embed(name: str) -> str:
    """How a note shows a figure file: Obsidian's embed, found by name anywhere in the vault
    (the name is the figure's content hash, so it is never another file's)."""
    return f"![[{name}]]"


_SVG_OPEN = re.compile(r"<svg\b[^>]*>")


def on_paper(svg: str) -> str:
    """The figure on a white card: the figures are drawn in dark ink, and an Obsidian theme
    (dark ones included) shows an embedded SVG on the note's own background."""
    m = _SVG_OPEN.search(svg)
    if m is None:
        return svg
    return (svg[:m.end()] + '<rect width="100%" height="100%" rx="6" fill="#ffffff"/>'
            + svg[m.end():])


class NoteFigures:
    """The figure files of an export: the deck's figures (drawn once each by `FigureMedia`),
    put on paper and named by their bytes."""

    def __init__(self) -> None:
        self.media = FigureMedia()
        self._names: dict[str, str] = {}
        self.files: dict[str, bytes] = {}

    def add(self, problem: Problem) -> str | None:
        name = self.media.add(problem)
        if name is None:
            return None
        if name not in self._names:
            from quizgen.render.figures import media_name

            svg = on_paper(self.media.files[name].decode("utf-8"))
            own = media_name(svg)
            self._names[name] = own
            self.files[own] = svg.encode("utf-8")
        return self._names[name]


def problem_card(item: DeckItem, recipe: DeckRecipe, figure: str | None = None) -> list[str]:
    """The lines of one card (no blank line inside); the last line ends with the id marker.

    A concept card whose answer is one short line is a single-line ``question::answer`` card;
    every other card is multi-line: question lines, a line holding only ``?``, answer lines.
    `figure` (a figure file's name) is embedded on the back, after the answer, as the Anki
    card shows it."""
    problem, kind = item.problem, item.kind
    words = labels(problem.lang)
    ident = card_id(problem_guid(problem, kind or "none"))
    if kind == "concept":
        answer = md_line(problem.solution.answer or problem.answers.get(problem.main_answer or "", ""))
        reasons = [s.why for s in problem.solution.steps if s.why]
        trap = problem.solution.trap
        question = md_line(problem.question)
        if not reasons and not trap:
            return [f"{question}::{answer} %%qz:{ident}%%"]
        back = [f"{words['answer']}: {answer}"]
        if trap:
            back.append(f"{words['trap']}: {md_line(trap)}")
        back += [md_line(r) for r in reasons]
        return [question, "?", *back, f"%%qz:{ident}%%"]
    front = [md((kind == "mcq" and problem.mcq_stem) or problem.question)]
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
        front.append(f"_{md_line(answer_format(problem, problem.lang))}_")
        back.append(answer_line(problem, words))
    if figure is not None:
        back.append(figure_embed(figure))
    back += solution_md(problem)
    back.append(f"%%qz:{ident}%%")
    return front + ["?"] + back


def legacy_ids(item: DeckItem, recipe: DeckRecipe) -> list[str]:
    """The id an earlier quizgen gave the same card (from its slot), so its schedule carries over."""
    import genanki

    return [card_id(genanki.guid_for(*item.slot.key(recipe), item.kind or "none"))]


def formula_card(example: FormulaExample, recipe: DeckRecipe) -> list[str]:
    words = labels(example.lang)
    legend = "; ".join(f"{math(tex)}: {md_line(meaning)}"
                       for _, tex, meaning in formula_symbols(example.name))
    front = [f"{md_line(words['formula_prompt'])}: {md_line(example.title)}",
             f"{words['symbols']}: {legend}"]
    back = [display(symbolic(example.name))]
    m = step_math(example.step)
    if m.substituted is not None:
        chain = [m.substituted] + ([m.result] if m.result not in (None, m.substituted) else [])
        back.append(f"{words['example']}: {math(' = '.join(chain))}")
    back.append(f"%%qz:{card_id(formula_guid(example.name, example.lang))}%%")
    return front + ["?"] + back


def legacy_formula_ids(example: FormulaExample, recipe: DeckRecipe) -> list[str]:
    import genanki

    return [card_id(genanki.guid_for("quizgen", recipe.name, "formula", example.name, recipe.seed,
                                     example.lang))]


def attached_schedules(text: str) -> dict[str, str]:
    """Every card id in a note → what the plugin attached after its marker (the schedule in the
    form the plugin wrote it: `` <!--SR:…-->``, ``\\n<!--SR:…-->`` or the callout).

    The plugin's "migrate scheduling comments to callouts" puts a comment that stood on the
    marker's line into a callout around that line (``> [!sr|card-metadata]`` / ``> … %%qz:…%%
    <!--SR:…-->``); such a schedule is carried as the callout under the card."""
    found: dict[str, str] = {}
    for m in _MARKER.finditer(text):
        tail = m.group(2).replace("\r\n", "\n")
        start = text.rfind("\n", 0, m.start()) + 1
        before = text.rfind("\n", 0, max(start - 1, 0)) + 1
        if ("\n" not in tail and text.startswith("> ", start) and start > 0
                and text.startswith(SR_CALLOUT, before)):
            tail = f"\n{SR_CALLOUT}\n> {_COMMENT.search(tail).group(0)}"
        found.setdefault(m.group(1), tail)
    return found


def saved_schedules(folder: Path) -> dict[str, str]:
    """Every card id → the schedule the plugin attached to it (see `attached_schedules`), from
    all quizgen notes in `folder` (so a card keeps its schedule when its note's file name
    changes, e.g. ``OCC-3.md`` → ``OCC-3.en.md``). A card found in several notes keeps its
    schedule from a note named with its language."""
    schedules: dict[str, str] = {}
    if not folder.is_dir():
        return schedules
    for path in sorted(folder.glob("*.md"), key=lambda p: (_unlabelled(p.name), p.name)):
        text = _quizgen_note(path)
        if text is not None and "%%qz:" in text:
            for ident, tail in attached_schedules(text).items():
                schedules.setdefault(ident, tail)
    return schedules


def _carry(cards: list[list[str]], schedules: dict[str, str],
           legacy: list[list[str]] | None = None) -> list[list[str]]:
    """Re-attach the schedules of an earlier export after each card's marker, as the plugin
    wrote them, by card id (or by the id an older quizgen gave the card)."""
    if not schedules:
        return cards
    out = []
    for n, lines in enumerate(cards):
        found = re.search(r"%%qz:([0-9a-f]+)%%", lines[-1])
        comment = schedules.get(found.group(1)) if found else None
        if comment is None and legacy is not None:
            comment = next((schedules[i] for i in legacy[n] if i in schedules), None)
        if comment is None:
            out.append(lines)
        else:
            out.append(lines[:-1] + (lines[-1] + comment).split("\n"))
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


def _unlabelled(name: str) -> bool:
    """Whether a note's file name lacks the language (the earlier layout: ``OCC-3.md``)."""
    return "." not in name.removesuffix(".md")


_MARKER_ID = re.compile(r"%%qz:([0-9a-f]+)%%")


def note_language(text: str, ids: dict[str, set[str]]) -> str | None:
    """The language of an earlier quizgen note: the language whose cards (by id, old or new)
    the note holds, else the one whose label words it uses ("Yeh step kyun?", "Why this step?");
    None when neither tells one language."""
    found = set(_MARKER_ID.findall(text))
    by_id = [lang for lang, known in ids.items() if found & known]
    if len(by_id) == 1:
        return by_id[0]
    from quizgen.languages import LANGS

    keys = ("why", "formula_prompt", "wrong_why")
    words = {lang: {md_line(labels(lang)[key]) for key in keys} for lang in LANGS}
    by_words = [lang for lang, own in words.items()
                if any(word in text for word in own - set().union(
                    *(other for o, other in words.items() if o != lang)))]
    return by_words[0] if len(by_words) == 1 else None


def superseded_notes(out: Path, written: dict[str, set[str]]) -> list[Path]:
    """The earlier layout's notes in `out` that this export replaces: quizgen notes named
    without a language (``OCC-3.md``) whose language's note (``OCC-3.<lang>.md``) is written now.
    `written` maps each file name written to its cards' ids (and the ids older versions gave)."""
    if not out.is_dir():
        return []
    ids: dict[str, set[str]] = {}
    for name, known in written.items():
        ids.setdefault(name.removesuffix(".md").rsplit(".", 1)[-1], set()).update(known)
    old = []
    for path in sorted(out.glob("*.md")):
        if not _unlabelled(path.name) or not path.is_file() or path.is_symlink():
            continue
        text = _quizgen_note(path)
        if text is None:
            continue
        lang = note_language(text, ids)
        if lang is not None and f"{path.stem}.{lang}.md" in written:
            old.append(path)
    return old


def _own_figure(path: Path) -> bool:
    """Whether `path` is a figure file quizgen wrote: in the figure folder, named by quizgen,
    and its bytes still the ones its name was made from (a user's edit makes it theirs)."""
    if path.parent.name != FIGURE_DIR or not _FIGURE_NAME.fullmatch(path.name):
        return False
    if path.is_symlink() or not path.is_file():
        return False
    figures = figures_module()
    if figures is None:
        return False
    try:
        return figures.media_name(path.read_bytes().decode("utf-8")) == path.name
    except (OSError, UnicodeDecodeError):
        return False


def _foreign_files(out: Path) -> list[str]:
    """Files in `out` (hidden ones such as .obsidian/ aside) that are neither quizgen notes nor
    quizgen's figure files."""
    if out.exists() and not out.is_dir():
        raise QuizgenError(f"{out} exists and is not a folder", field="out")
    if not out.is_dir():
        return []
    found = []
    for root, dirs, names in os.walk(out):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            path = Path(root) / name
            if not name.startswith(".") and _quizgen_note(path) is None and not _own_figure(path):
                found.append(str(path.relative_to(out)))
    return found


def _write_figures(out: Path, files: dict[str, bytes]) -> int:
    """Write the figure files the notes embed into `out`/quizgen-figures/ (one already there
    unchanged is left as it is); returns their size in bytes. A file of the same name that is
    not quizgen's (its bytes changed) is kept as NAME.kept first."""
    from quizgen.files import kept_name, atomic_write

    if not files:
        return 0
    folder = out / FIGURE_DIR
    if os.path.lexists(folder) and (folder.is_symlink() or not folder.is_dir()):
        raise QuizgenError(f"{folder} exists and is not a folder", field="out")
    folder.mkdir(exist_ok=True)
    total = 0
    for name, data in sorted(files.items()):
        path = folder / name
        if os.path.lexists(path):
            if _own_figure(path):
                total += len(data)
                continue
            kept = kept_name(path)
            os.replace(path, kept)
            warnings.warn(f"{path} is not a quizgen figure; kept as {kept.name}", stacklevel=3)
        total += atomic_write(path, data, field="out")
    return total


def stale_figures(out: Path) -> list[Path]:
    """quizgen's figure files in `out` that no quizgen note there embeds any more."""
    folder = out / FIGURE_DIR
    if not folder.is_dir() or folder.is_symlink():
        return []
    used: set[str] = set()
    for path in out.glob("*.md"):
        text = _quizgen_note(path)
        if text is not None:
            used.update(_EMBED.findall(text))
    return [p for p in sorted(folder.iterdir()) if p.name not in used and _own_figure(p)]


#: A note file's plan: (title, tag, [(heading, card lines)], [each card's earlier ids]).
NotePlan = tuple[str, str, list[tuple[str, list[str]]], list[list[str]]]


def write_obsidian(recipe: DeckRecipe, out_dir: str | Path, *,
                   problems_for: ProblemSource | None = None,
                   progress: Progress | None = None, force: bool = False) -> DeckSummary:
    """Write the recipe's deck as Markdown notes into `out_dir` (created if missing).

    Existing notes of the same names are replaced, keeping the plugin's review schedule of every
    card that is still there; figures go to `out_dir`/quizgen-figures/. Returns the same summary
    as `build_deck` (bytes: all notes and figure files written).
    A folder holding other files (not quizgen notes; hidden ones such as .obsidian/ aside) is
    refused unless `force`; even then they are never changed, and one in the way of a note is
    kept as NAME.kept.
    """
    foreign = _foreign_files(Path(out_dir))
    if foreign:
        if not force:
            shown = ", ".join(foreign[:4]) + (f" and {len(foreign) - 4} more" if len(foreign) > 4 else "")
            raise QuizgenError(f"{out_dir} holds files that are not quizgen notes ({shown}); "
                               "choose a folder of their own, or pass --force to write the notes "
                               "beside them (yours are never changed)", field="out")
    items = deck_items(recipe, problems_for=problems_for, progress=progress)
    out = Path(out_dir)
    media = NoteFigures()
    files, cards = plan_notes(recipe, items, media)
    total, superseded = write_notes(out, recipe, files, media)
    cells = len({item.problem.cell for item in items if item.kind is not None})
    skipped = sum(1 for item in items if item.kind is None)
    return DeckSummary(notes=len(files), cards=cards, cells=cells, bytes=total, path=str(out),
                       skipped=skipped, replaced=tuple(p.name for p in superseded))


def plan_notes(recipe: DeckRecipe, items: list[DeckItem],
               media: NoteFigures) -> tuple[dict[str, NotePlan], int]:
    """Each note file's cards (by file name, in deck order) and the number of cards; the
    figures the cards embed are drawn into `media`."""
    files: dict[str, NotePlan] = {}
    cards = 0
    seen: set[str] = set()
    for item in items:
        if item.kind is None:
            continue
        problem = item.problem
        figure = media.add(problem) if item.kind != "concept" else None
        lines = problem_card(item, recipe, figure)
        if lines[-1] in seen:        # the same problem twice: one card
            continue
        seen.add(lines[-1])
        name = f"{problem.cell}.{problem.lang}.md"
        if name not in files:
            files[name] = (problem.cell,
                           f"{TAG_ROOT}/{tag_part(problem.lang)}/{tag_part(problem.cell)}", [], [])
        heading = f"{problem.title or problem.cell} · L{problem.level} · {item.slot.index + 1}"
        files[name][2].append((heading, lines))
        files[name][3].append(legacy_ids(item, recipe))
        cards += 1
    if "cloze" in recipe.kinds:
        for example in seed_free_examples(formula_examples(items), recipe):
            name = f"Formulas.{example.lang}.md"
            if name not in files:
                files[name] = ("Formulas", f"{TAG_ROOT}/{tag_part(example.lang)}/formulas", [], [])
            files[name][2].append((example.title, formula_card(example, recipe)))
            files[name][3].append(legacy_formula_ids(example, recipe))
            cards += 1
    return files, cards


def write_notes(out: Path, recipe: DeckRecipe, files: dict[str, NotePlan],
                media: NoteFigures) -> tuple[int, list[Path]]:
    """Write the planned notes and their figures into `out`, carrying the plugin's schedules
    over; remove the notes they supersede and the figures no note uses. Returns (bytes
    written, the notes superseded)."""
    from quizgen.files import atomic_write

    out.mkdir(parents=True, exist_ok=True)
    schedules = saved_schedules(out)
    written = {name: {i for lines, old in zip((c for _, c in entry[2]), entry[3])
                      for i in [*_MARKER_ID.findall(lines[-1]), *old]}
               for name, entry in files.items()}
    superseded = superseded_notes(out, written)
    used = {name for entry in files.values() for _, card in entry[2]
            for line in card for name in _EMBED.findall(line)}
    total = _write_figures(out, {name: media.files[name] for name in used})
    for name, (title, tag, note_cards, legacy) in files.items():
        path = out / name
        if path.is_file() or os.path.lexists(path):
            if _quizgen_note(path) is None:    # not ours (or not UTF-8): kept, never overwritten
                from quizgen.files import kept_name

                kept = kept_name(path)
                os.replace(path, kept)
                warnings.warn(f"{path} is not a quizgen note; kept as {kept.name}", stacklevel=3)
        if schedules:
            carried = _carry([card for _, card in note_cards], schedules, legacy)
            note_cards = [(heading, card) for (heading, _), card in zip(note_cards, carried)]
        text = note_text(title, tag, note_cards, recipe)
        total += atomic_write(path, text, field="out")
    for path in superseded:         # their schedules now stand in the new notes
        path.unlink()
    for path in stale_figures(out):     # figures of cards (or notes) that are gone
        path.unlink()
    figure_dir = out / FIGURE_DIR
    if figure_dir.is_dir() and not figure_dir.is_symlink() and not any(figure_dir.iterdir()):
        figure_dir.rmdir()
    return total, superseded
