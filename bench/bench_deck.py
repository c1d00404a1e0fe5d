"""How long a 10,000-note deck takes, end to end, against genanki alone writing the same notes.

    python3 bench/bench_deck.py [--notes 10000] [--out DIR]

Figures printed:

* end to end: `build_deck` on a recipe of ~N problems (generation, card HTML, package, write);
* phases: generating the problems, turning them into notes, writing the .apkg;
* floor: genanki alone building and writing the very same notes (fields, tags, GUIDs, media),
  i.e. the least any genanki-based exporter can take;
* ratio: end to end ÷ floor, and (export only: notes + write) ÷ floor.

The recipe uses every cell whose problem family works, with levels 1–3.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from quizgen.export import anki as A  # noqa: E402
from quizgen.export.cards import figure_svg  # noqa: E402
from quizgen.recipes import recipe_from_dict  # noqa: E402

STAMP = 1_800_000_000


def clock(fn, *args, **kwargs):
    start = time.perf_counter()
    value = fn(*args, **kwargs)
    return value, time.perf_counter() - start


def floor_write(package, out: Path) -> float:
    """genanki alone: new Note/Deck/Package objects from the same fields, then write_to_file."""
    import genanki

    rows = [(deck.deck_id, deck.name, deck.description,
             [(note.model, list(note.fields), list(note.tags), note.guid) for note in deck.notes])
            for deck in package.decks]
    media = list(package.media_files)
    start = time.perf_counter()
    decks = []
    for deck_id, name, description, notes in rows:
        deck = genanki.Deck(deck_id, name, description=description)
        for model, fields, tags, guid in notes:
            deck.add_note(genanki.Note(model=model, fields=fields, tags=tags, guid=guid))
        decks.append(deck)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", module="genanki")
        genanki.Package(decks, media_files=media).write_to_file(str(out), timestamp=STAMP)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()

    from quizgen.problems import families, generate_one
    from quizgen.render.math import warm

    cells = []
    for cell in families():          # only cells whose family works today
        try:
            for level in (1, 2, 3):
                for seed in range(3):
                    figure_svg(generate_one(cell, level=level, seed=seed))
        except Exception as exc:  # noqa: BLE001 - a family still being written
            print(f"skipping {cell}: {type(exc).__name__}: {exc}", file=sys.stderr)
        else:
            cells.append(cell)
    levels = [1, 2, 3]
    per_cell = math.ceil(args.notes / (len(cells) * len(levels)))
    recipe = recipe_from_dict({"name": "bench", "cells": cells, "per_cell": per_cell,
                               "levels": levels, "seed": 1, "kinds": ["numeric", "mcq", "cloze",
                                                                      "concept"]})
    warm()   # formula printers are built once per process; do not bill them to one phase

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(args.out or tmp)
        out.mkdir(parents=True, exist_ok=True)
        summary, total = clock(A.build_deck, recipe, out / "deck.apkg", timestamp=STAMP)

        items, t_generate = clock(A.deck_items, recipe)
        with tempfile.TemporaryDirectory() as media:
            package, t_notes = clock(A.build_package, recipe, items, Path(media))
            _, t_write = clock(A.write_package, package, out / "again.apkg", STAMP)
            t_floor = floor_write(package, out / "floor.apkg")
    export = t_notes + t_write
    print(f"cells: {len(cells)} ({', '.join(cells)}), levels 1-3, {per_cell} per cell and level")
    print(f"deck: {summary.notes} notes, {summary.cards} cards, {summary.bytes / 1e6:.1f} MB")
    print(f"end to end (build_deck):    {total:7.2f} s  ({total / summary.notes * 1e3:.2f} ms/note)")
    print(f"  generate problems:        {t_generate:7.2f} s")
    print(f"  problems -> notes (HTML): {t_notes:7.2f} s")
    print(f"  write .apkg (normalised): {t_write:7.2f} s")
    print(f"floor (genanki alone):      {t_floor:7.2f} s")
    print(f"ratio end to end / floor:   {total / t_floor:7.1f}x")
    print(f"ratio export only / floor:  {export / t_floor:7.1f}x  (notes + write, no generation)")


if __name__ == "__main__":
    main()
