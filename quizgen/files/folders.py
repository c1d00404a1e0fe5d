"""Output folders: replace only what quizgen wrote. Each folder keeps a ledger of the files quizgen
wrote there (and their SHA-256); a command builds its result in a staged folder and publishes it
over the old one, keeping any file of the user's in the way."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from quizgen.errors import QuizgenError
from quizgen.files.atomic import fsync_folder, current_umask, atomic_write, os_error_text

#: In each output folder, the files quizgen wrote there and their SHA-256 (relative path → hex).
LEDGER = ".quizgen-files.json"


def _digest(path: Path) -> str:
    import hashlib

    sha = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            sha.update(chunk)
    return sha.hexdigest()


def read_ledger(folder: Path) -> dict[str, str]:
    import json

    try:
        data = json.loads((folder / LEDGER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, dict):
        return {}
    return {k: v for k, v in files.items() if isinstance(k, str) and isinstance(v, str)}


def _entries(folder: Path) -> list[str]:
    """Every file under `folder` (relative, with '/'), except the ledger."""
    out = []
    for root, dirs, names in os.walk(folder):
        dirs.sort()
        for name in sorted(names):
            rel = os.path.relpath(os.path.join(root, name), folder).replace(os.sep, "/")
            if rel != LEDGER:
                out.append(rel)
    return out


def foreign_files(folder: str | os.PathLike[str], *, own=None) -> list[str]:
    """The files in `folder` that quizgen did not write there, or that changed since it did
    (a filled answer sheet, a teacher's notes). `own(rel, path)` may vouch for a file that an
    older quizgen wrote before it kept a ledger."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    ledger = read_ledger(folder)
    foreign = []
    for rel in _entries(folder):
        path = folder / rel
        try:
            mine = rel in ledger and path.is_file() and _digest(path) == ledger[rel]
        except OSError:
            mine = False
        if not mine and not (own is not None and not ledger and own(rel, path)):
            foreign.append(rel)
    return foreign


def _listing(names: Sequence[str], limit: int = 4) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def check_folder(folder: str | os.PathLike[str], *, force: bool, field: str = "out",
                 own=None) -> list[str]:
    """Refuse (one line) an output folder holding files quizgen did not write, unless `force`;
    returns those files (with `force` they are kept)."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise QuizgenError(f"{folder} exists and is not a folder", field=field)
    foreign = foreign_files(folder, own=own)
    if foreign and not force:
        raise QuizgenError(f"{folder} holds files quizgen did not write ({_listing(foreign)}); "
                           "choose a new folder, or pass --force to replace only quizgen's own "
                           "files there (yours are kept)", field=field)
    return foreign


def kept_name(path: Path) -> Path:
    """Where a file in the way is kept: NAME.kept, else NAME.kept2, … (the first free one)."""
    candidate = path.with_name(path.name + ".kept")
    n = 2
    while os.path.lexists(candidate):
        candidate = path.with_name(f"{path.name}.kept-{n}")
        n += 1
    return candidate


@contextmanager
def staged_folder(out: str | os.PathLike[str]) -> Iterator[Path]:
    """A new hidden folder beside `out` (``.NAME.….partial``) to build a command's result in
    before `publish_folder` moves it into place; whatever happens (an error, Ctrl-C, SIGTERM),
    it is gone afterwards."""
    import shutil

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    staged = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=out.parent))
    try:
        # mkdtemp's folder is private (0700); the published folder gets the user's umask, like
        # any folder mkdir makes, so that a TA or a web server can read it
        os.chmod(staged, 0o777 & ~current_umask())
        yield staged
    finally:
        shutil.rmtree(staged, ignore_errors=True)    # already moved into place when published


def publish_folder(staged: str | os.PathLike[str], folder: str | os.PathLike[str],
                   names: Sequence[str], *, own=None, field: str = "out") -> list[str]:
    """Move the files `names` (relative paths, in this order) from the folder `staged` into
    `folder`, which `check_folder` has cleared, and remove `staged`.

    A new folder appears whole (one rename). In an existing one, each file is replaced in one
    step; quizgen's own files from an earlier run that this run does not write are removed; any
    other file stays, and one in the way of a new file is renamed NAME.kept. Returns one line per
    file kept that way.
    """
    import json
    import shutil

    staged, folder = Path(staged), Path(folder)
    ledger = {}
    for rel in names:                     # on disk before any of them replaces an old file
        ledger[rel] = _digest(staged / rel)
        fd = os.open(staged / rel, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    ledger_text = json.dumps({"files": ledger}, indent=1, sort_keys=True) + "\n"
    try:
        if not folder.exists():
            (staged / LEDGER).write_text(ledger_text, encoding="utf-8")
            os.replace(staged, folder)
            fsync_folder(folder.parent)
            return []
        old = read_ledger(folder)
        previous = set(foreign_files(folder, own=own))
        kept = []
        for rel in names:
            target = folder / rel
            if rel in previous and os.path.lexists(target):
                moved = kept_name(target)
                os.replace(target, moved)
                kept.append(f"{target} was not written by quizgen; kept as {moved.name}")
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.is_dir():
                raise QuizgenError(f"{target} is a folder in the way of a file quizgen writes; "
                                   "move it", field=field)
            os.replace(staged / rel, target)
        for rel in (old.keys() | ({r for r in _entries(folder)} if own and not old else set())):
            path = folder / rel
            if rel in ledger or rel in previous or not path.is_file():
                continue
            path.unlink()                          # ours, unchanged, and no longer part of the run
            try:
                path.parent.relative_to(folder)
                if path.parent != folder and not any(path.parent.iterdir()):
                    path.parent.rmdir()
            except (ValueError, OSError):
                pass
        atomic_write(folder / LEDGER, ledger_text, field=field)
        return kept
    except OSError as exc:
        raise QuizgenError(os_error_text(exc, folder), field=field) from None
    finally:
        shutil.rmtree(staged, ignore_errors=True)


def add_to_ledger(folder: str | os.PathLike[str], path: str | os.PathLike[str]) -> None:
    """Record one more file quizgen wrote into an output folder (after `publish_folder`)."""
    import json

    folder, path = Path(folder), Path(path)
    ledger = read_ledger(folder)
    ledger[os.path.relpath(path, folder).replace(os.sep, "/")] = _digest(path)
    atomic_write(folder / LEDGER, json.dumps({"files": ledger}, indent=1, sort_keys=True) + "\n")
