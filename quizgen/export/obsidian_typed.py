"""Text a person typed into a quizgen note, found before a re-export replaces the note.

A quizgen note has a fixed shape (see `quizgen.export.obsidian.note_text`): front matter, the
deck tag, a title, then each card under its heading, its lines ending with the ``%%qz:<id>%%``
marker, and after the marker only what the Spaced Repetition plugin attaches (a ``<!--SR:…-->``
schedule on the same or the next line, or a ``> [!sr|card-metadata]`` callout holding one); a
blank line ends a card. A line anywhere else (a remark under a card, text after a schedule, a
schedule comment or callout the plugin can no longer read) is a person's, and a re-export would
drop it: `typed_line` finds the first such line so that the export can keep the note or refuse.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

from quizgen.errors import QuizgenError

#: The callout the plugin writes a schedule into with "use callouts for scheduling comments" on.
SR_CALLOUT = "> [!sr|card-metadata]"

_SCHEDULE = re.compile(r"[ \t]*<!--SR:[^\n]*?-->[ \t]*")
_MARKER_REST = re.compile(r"%%qz:[0-9a-f]+%%(.*)$")


def _front_matter_end(lines: list[str]) -> int:
    """The index of the first line after the front matter (0 when there is none)."""
    if lines and lines[0] == "---":
        for i in range(1, len(lines)):
            if lines[i] == "---":
                return i + 1
    return 0


def _after_marker(lines: list[str], i: int) -> tuple[int, int | None]:
    """Past what the plugin attached after a card's marker line (`i` is the next line):
    (the first line after it, the first line of it no plugin wrote or None)."""
    if i < len(lines) and _SCHEDULE.fullmatch(lines[i]):
        return i + 1, None
    if i < len(lines) and lines[i].startswith(SR_CALLOUT):
        j = i + 1
        while j < len(lines) and lines[j].startswith(">"):
            j += 1
        block = "\n".join(lines[i:j])
        return j, (None if _SCHEDULE.search(block) else i)
    return i, None


def typed_line(text: str) -> tuple[int, str] | None:
    """(line number from 1, its text) of the first line in the note `text` that quizgen did not
    write and the plugin does not attach; None when every line is theirs."""
    lines = text.replace("\r\n", "\n").split("\n")
    i = _front_matter_end(lines)
    heading: int | None = None  # a card's heading, until its card is read
    body: int | None = None     # the first line of the card being read (it ends in a marker)
    while i < len(lines):
        line = lines[i]
        if not line.strip() or (body is None and line.startswith(("## ", "# ", "#flashcards/"))):
            if body is not None:         # a paragraph with no marker: not a card of quizgen's
                return body + 1, lines[body]
            if line.startswith("## "):
                if heading is not None:  # a heading with no card under it
                    return heading + 1, lines[heading]
                heading = i
            i += 1
            continue
        body = i if body is None else body
        marker = _MARKER_REST.search(line)
        i += 1
        if marker is None:
            continue
        rest = marker.group(1)
        if rest.strip() and not _SCHEDULE.fullmatch(rest):
            return i, line
        i, broken = _after_marker(lines, i)
        if broken is not None:
            return broken + 1, lines[broken]
        if i < len(lines) and lines[i].strip():
            return i + 1, lines[i]
        heading = body = None
    for start in (body, heading):
        if start is not None:
            return start + 1, lines[start]
    return None


def keep_typed(notes: list[tuple[Path, str]], *, force: bool) -> None:
    """Before quizgen notes are replaced or removed (`notes`: each path and its text): one
    holding typed text is refused (one line naming the note and the line), or with `force`
    copied to NAME.kept first (a warning says so)."""
    from quizgen.files import atomic_write, kept_name

    for path, text in notes:
        found = typed_line(text)
        if found is None:
            continue
        number, line = found
        shown = line.strip()
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        if not force:
            raise QuizgenError(
                f"{path} line {number} holds text quizgen did not write ({shown!r}), which a "
                f"re-export would drop; move it to a note of your own, or pass --force to keep "
                f"the note as {path.name}.kept", field="out")
        kept = kept_name(path)
        atomic_write(kept, text, field="out")
        warnings.warn(f"{path} line {number} holds text quizgen did not write; the note is "
                      f"kept as {kept.name}", stacklevel=3)
