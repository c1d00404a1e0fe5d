"""How long a 10,000-note deck takes, end to end, against genanki alone writing the same notes;
and how much memory the build needs.

    python3 bench/bench_deck.py [--notes 10000] [--out DIR]

Figures printed (a small table, then the phases):

* end to end: `build_deck` in a fresh process (generation, card HTML, figures, package, write),
  the better of two runs, with the larger peak resident memory (``ru_maxrss``, imports included);
* export only: problems already generated → notes → written .apkg, in this process;
* floor: genanki alone building and writing the very same notes (fields, tags, GUIDs, media
  files already on disk), i.e. the least any genanki-based exporter can take; measured here,
  in the same run, the best of three;
* phases: generating the problems (a cold process), turning them into notes, writing the .apkg;
* the default deck: ``quizgen deck`` as a user runs it (the packaged default recipe, its lock
  file, a fresh process, imports included), the median of three runs (five in
  ``bench/run.py``, one with ``--smoke``); target 2.5 s at most.

The recipe uses every cell whose problem family works, with levels 1–3. ``bench/run.py deck``
prints the same figures in the suite's table.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

STAMP = 1_800_000_000
RATIO_TARGET = 3.0
MEMORY_TARGET_MB = 300
DEFAULT_DECK_TARGET_S = 2.5


def clock(fn, *args, **kwargs):
    start = time.perf_counter()
    value = fn(*args, **kwargs)
    return value, time.perf_counter() - start


def bench_recipe(notes: int) -> dict:
    """A recipe of about `notes` problems over every cell whose family works today."""
    from quizgen.render.cards import figure_svg
    from quizgen.generator import families, generate_one

    cells = []
    for cell in families():
        try:
            for level in (1, 2, 3):
                for seed in range(3):
                    figure_svg(generate_one(cell, level=level, seed=seed))
        except Exception as exc:  # noqa: BLE001 - a family still being written
            print(f"skipping {cell}: {type(exc).__name__}: {exc}", file=sys.stderr)
        else:
            cells.append(cell)
    per_cell = math.ceil(notes / (len(cells) * 3))
    return {"name": "bench", "cells": cells, "per_cell": per_cell, "levels": [1, 2, 3], "seed": 1,
            "kinds": ["numeric", "mcq", "cloze", "concept"]}


def child_build(recipe_json: str, out: str) -> None:
    """In a fresh process: build the deck once; print seconds, peak memory and counts as JSON."""
    import resource

    from quizgen.export import anki as A
    from quizgen.recipes import recipe_from_dict
    recipe = recipe_from_dict(json.loads(recipe_json))
    summary, seconds = clock(A.build_deck, recipe, out, timestamp=STAMP)
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss   # KB on Linux
    print(json.dumps({"seconds": seconds, "peak_mb": peak_kb / 1024, "notes": summary.notes,
                      "cards": summary.cards, "bytes": summary.bytes}))


def end_to_end(recipe: dict, out: Path) -> dict:
    args = [sys.executable, str(Path(__file__).resolve()), "--child", json.dumps(recipe),
            "--out", str(out)]
    done = subprocess.run(args, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def default_deck(runs: int = 3) -> float:
    """Seconds `quizgen deck -q` takes in a fresh process (wall clock), the median of `runs`;
    each run rebuilds the default deck in the same folder, with the lock file the last left.

    The package is byte-compiled first, as `pip install` does: a user's command never compiles
    its own modules (with PYTHONDONTWRITEBYTECODE set and no compiled files, every run would,
    about 0.3 s)."""
    import compileall

    compileall.compile_dir(str(HERE.parent / "quizgen"), quiet=1)
    env = {**os.environ, "PYTHONPATH": str(HERE.parent)}
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "quizgen", "deck", "-q"], cwd=tmp, env=env,
                           check=True, stdout=subprocess.DEVNULL)
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def floor_write(package, out: Path) -> float:
    """genanki alone: new Note/Deck/Package objects from the same fields, then write_to_file."""
    import genanki

    rows = [(deck.deck_id, deck.name, deck.description,
             [(note.model, list(note.fields), list(note.tags), note.guid) for note in deck.notes])
            for deck in package.decks]
    media_dir = out.parent / "floor-media"
    media_dir.mkdir(exist_ok=True)
    media = []
    for name, data in package.media.items():      # on disk before the clock starts
        (media_dir / name).write_bytes(data)
        media.append(str(media_dir / name))
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


def run(notes: int, out: Path | None = None, deck_runs: int = 3) -> dict:
    """Every figure of the deck benchmark, measured in one run."""
    from quizgen.export import anki as A
    from quizgen.recipes import recipe_from_dict

    data = bench_recipe(notes)
    recipe = recipe_from_dict(data)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(out or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        # Fresh processes, twice: the faster run counts (this machine's speed drifts).
        runs = [end_to_end(data, folder / "deck.apkg") for _ in range(2)]
        built = min(runs, key=lambda r: r["seconds"])
        built["peak_mb"] = max(r["peak_mb"] for r in runs)
        items, t_generate = clock(A.deck_items, recipe)
        package, t_notes = clock(A.build_package, recipe, items)
        del items
        _, t_write = clock(A.write_package, package, folder / "again.apkg", STAMP)
        t_floor = min(floor_write(package, folder / f"floor{i}.apkg") for i in range(3))
    return {"cells": data["cells"], "per_cell": data["per_cell"], **built,
            "generate": t_generate, "notes_html": t_notes, "write": t_write, "floor": t_floor,
            "default_deck": default_deck(deck_runs)}


def rows(result: dict) -> list:
    """The figures as rows of the suite's table (bench/common.py)."""
    from common import Row

    export = result["notes_html"] + result["write"]
    floor = "genanki alone writing the same notes"
    return [
        Row(f"deck end to end, {result['notes']:,} notes", result["seconds"], "s", floor,
            result["floor"], f"≤ {RATIO_TARGET:g}× floor",
            result["seconds"] <= RATIO_TARGET * result["floor"]),
        Row("… export only (notes + write, problems given)", export, "s", floor, result["floor"],
            "", True),
        Row("deck build peak memory (fresh process)", result["peak_mb"], "MB", "", 0.0,
            f"≤ {MEMORY_TARGET_MB} MB", result["peak_mb"] <= MEMORY_TARGET_MB),
        Row("default deck: `quizgen deck` (fresh process)", result["default_deck"], "s", "", 0.0,
            f"≤ {DEFAULT_DECK_TARGET_S:g} s", result["default_deck"] <= DEFAULT_DECK_TARGET_S),
    ]


def measure(size: str = "full") -> list:
    """Rows for bench/run.py."""
    from common import pick

    return rows(run(pick(size, 10_000, 2_000, 200), deck_runs=pick(size, 5, 3, 1)))


def report(result: dict) -> None:
    export = result["notes_html"] + result["write"]
    floor = result["floor"]
    print(f"cells: {len(result['cells'])}, levels 1-3, {result['per_cell']} per cell and level; "
          f"deck: {result['notes']} notes, {result['cards']} cards, {result['bytes'] / 1e6:.1f} MB")
    print()
    print(f"{'figure':34s} {'quizgen':>9s} {'floor':>9s} {'ratio':>7s}  target")
    print(f"{'deck end to end (fresh process)':34s} {result['seconds']:8.2f}s {floor:8.2f}s "
          f"{result['seconds'] / floor:6.2f}x  ≤ {RATIO_TARGET:g}x")
    print(f"{'export only (notes + write)':34s} {export:8.2f}s {floor:8.2f}s {export / floor:6.2f}x")
    print(f"{'peak memory (fresh process)':34s} {result['peak_mb']:7.0f}MB {'':>9s} {'':>7s}  "
          f"≤ {MEMORY_TARGET_MB} MB")
    print(f"{'default deck (quizgen deck)':34s} {result['default_deck']:8.2f}s {'':>9s} {'':>7s}  "
          f"< {DEFAULT_DECK_TARGET_S:g} s")
    print()
    print("phases (this process):")
    print(f"  generate problems (cold):   {result['generate']:7.2f} s")
    print(f"  problems -> notes:          {result['notes_html']:7.2f} s  (HTML, figures, genanki notes)")
    print(f"  write .apkg (normalised):   {result['write']:7.2f} s")
    print(f"  floor (genanki alone):      {floor:7.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--child", metavar="RECIPE_JSON", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child_build(args.child, str(args.out))
        return
    report(run(args.notes, args.out))


if __name__ == "__main__":
    main()
