"""Writing a built deck: the .apkg (the collection written by genanki, zipped here with fixed
entry dates) and the lock file, each atomically through `quizgen.files`. The only I/O of the
Anki exporter."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import sqlite3
import warnings
import zipfile
from pathlib import Path

from quizgen.errors import QuizgenError
from quizgen.export.anki.plan import LOCK_FORMAT, Stamps
from quizgen.export.anki.types import DeckPackage
from quizgen.files import ZIP_DATE
from quizgen.recipes import DeckRecipe



def write_lock(path: str | Path, recipe: DeckRecipe, stamps: Stamps) -> None:
    """Write the lock atomically: one line per note, sorted, so a diff shows what changed."""
    from quizgen.files import atomic_write

    lines = ["{", f'"format": {LOCK_FORMAT},', f'"recipe": {json.dumps(recipe.name)},',
             '"note_types": {']
    models = sorted(stamps.lock_models.items())
    lines += [f"{json.dumps(k)}: {json.dumps(v)}" + ("," if i < len(models) - 1 else "")
              for i, (k, v) in enumerate(models)]
    lines += ["},", '"notes": {']
    notes = sorted(stamps.lock_notes.items())
    lines += [f"{json.dumps(k)}: {json.dumps(v)}" + ("," if i < len(notes) - 1 else "")
              for i, (k, v) in enumerate(notes)]
    lines += ["}", "}", ""]
    atomic_write(Path(path), "\n".join(lines), field="lock")


def write_package(package: DeckPackage, out_path: str | Path, timestamp: int,
                  stamps: Stamps | None = None) -> int:
    """Write `package` to `out_path` atomically; returns the file's size.

    Every note and note type is stamped `timestamp`, or with its own time from `stamps`.

    The collection is written by genanki; the zip is written here in one pass, with fixed entry
    dates and modes (genanki would stamp them with 'now') and the media straight from memory.
    """
    from quizgen.files import atomic_open, temporary_path

    out = Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    # both temporaries go whatever happens (an error, Ctrl-C, SIGTERM); the old deck stays
    with temporary_path(prefix="quizgen-", suffix=".anki2") as db_name:
        try:
            _write_collection(package, db_name, timestamp, stamps)
        except sqlite3.Error as exc:      # a full or read-only disk, as SQLite reports it
            raise QuizgenError(f"cannot write the deck's collection in {Path(db_name).parent}: "
                               f"{exc}; free some space there (or set TMPDIR) and try again",
                               field="out") from None
        names = list(package.media)
        with atomic_open(out, "wb") as handle, zipfile.ZipFile(handle, "w") as zout:
            info = _zip_entry("collection.anki2")
            info.file_size = os.path.getsize(db_name)
            with open(db_name, "rb") as src, zout.open(info, "w") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
            # the media index as genanki writes it: {"0": "quizgen-….svg", …}
            zout.writestr(_zip_entry("media"), json.dumps(dict(enumerate(names))))
            for index, name in enumerate(names):
                zout.writestr(_zip_entry(str(index)), package.media[name])
    return out.stat().st_size


def _write_collection(package: DeckPackage, db_path: str, timestamp: int,
                      stamps: Stamps | None = None) -> None:
    """The Anki collection (SQLite) of the package, written the way genanki's Package does;
    with `stamps`, each note, its cards and each note type then get their own time."""
    import genanki

    if stamps is not None:
        timestamp = stamps.latest or timestamp
    conn = sqlite3.connect(db_path)
    try:
        # A scratch file, zipped once written: no journal and no waits for the disk (the
        # .apkg itself is written atomically). The database's bytes are the same.
        conn.execute("PRAGMA journal_mode = OFF")
        conn.execute("PRAGMA synchronous = OFF")
        cursor = conn.cursor()
        with warnings.catch_warnings():
            # Fields are escaped by construction; genanki's HTML heuristic has nothing to add.
            warnings.filterwarnings("ignore", module="genanki")
            genanki.Package(package.decks).write_to_db(cursor, timestamp,
                                                       itertools.count(int(timestamp * 1000)))
        if stamps is not None:
            # by note id (the key; cards are indexed by it), not by guid, which has no index
            ids = dict(cursor.execute("SELECT guid, id FROM notes"))
            rows = [(mod, ids[guid]) for guid, mod in stamps.notes.items()
                    if mod != timestamp and guid in ids]
            cursor.executemany("UPDATE notes SET mod = ? WHERE id = ?", rows)
            cursor.executemany("UPDATE cards SET mod = ? WHERE nid = ?", rows)
            (models_json,) = cursor.execute("SELECT models FROM col").fetchone()
            models = json.loads(models_json)
            for model_id, mod in stamps.models.items():
                if str(model_id) in models:
                    models[str(model_id)]["mod"] = mod
            cursor.execute("UPDATE col SET models = ?", (json.dumps(models),))
        conn.commit()
    finally:
        conn.close()


#: How hard the package's entries are deflated: zlib's fastest level. A default deck's 13 MB
#: collection (mostly card HTML) deflates to 1.6 MB in about a third of the time the usual
#: level 6 takes for 1.0 MB.
DEFLATE_LEVEL = 1


def _zip_entry(name: str) -> zipfile.ZipInfo:
    """A zip entry with a fixed date and mode, deflated at `DEFLATE_LEVEL`."""
    info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info._compresslevel = DEFLATE_LEVEL    # what ZipFile.open(info, "w") deflates at
    info.external_attr = 0o644 << 16
    info.create_system = 3
    return info
