"""Files written atomically: a temporary in the target's own folder, flushed to disk and renamed
over the target, so that a failure (a full disk, an interrupt) leaves the old file as it was and
no temporary behind; and one line for an OSError."""

from __future__ import annotations

import errno
import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from quizgen.errors import QuizgenError
from quizgen.files.signals import TEMPORARIES, signals_held

#: The date of every entry of a zip quizgen writes (the earliest a zip can hold): a package's
#: bytes depend on what it holds, never on when it was made.
ZIP_DATE = (1980, 1, 1, 0, 0, 0)

_FIXES = {
    errno.ENOSPC: "free some space and run again (any old file there is unchanged)",
    errno.EDQUOT: "free some space and run again (any old file there is unchanged)",
    errno.EACCES: "choose a folder you may write to",
    errno.EPERM: "choose a folder you may write to",
    errno.EROFS: "the disk is read-only; choose another folder",
    errno.ENOENT: "create the folder first or fix the path",
    errno.ENOTDIR: "a part of the path is a file, not a folder; fix the path",
    errno.EISDIR: "that is a folder; give a file name",
    errno.ENAMETOOLONG: "give a shorter name",
}


def os_error_text(exc: OSError, path: object | None = None, *, action: str = "write") -> str:
    """One line for an OSError: which path, what went wrong, what to do."""
    where = path if path is not None else exc.filename
    why = exc.strerror or str(exc) or type(exc).__name__
    fix = _FIXES.get(exc.errno or 0)
    head = f"cannot {action} {where}: {why}" if where is not None else f"cannot {action}: {why}"
    return f"{head}; {fix}" if fix else head


def current_umask() -> int:
    """The process's umask (read by setting it and setting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _check_target(path: Path, field: str) -> None:
    if path.is_dir():
        raise QuizgenError(f"{path} is a folder; give a file name", field=field)
    if not path.parent.is_dir():
        what = "is not a folder" if path.parent.exists() else "does not exist"
        raise QuizgenError(f"cannot write {path}: the folder {path.parent} {what}", field=field)


@contextmanager
def atomic_open(path: str | os.PathLike[str], mode: str = "w", *, field: str = "out",
                encoding: str = "utf-8", newline: str | None = "") -> Iterator[IO[Any]]:
    """A file handle to write `path` in pieces; it appears at `path` only when the block ends
    without an error, and replaces the old file in one step."""
    target = Path(path)
    _check_target(target, field)
    if target.exists() and not target.is_file():
        # a device or a pipe (/dev/null, /dev/stdout, a fifo): written straight, never replaced
        try:
            with open(target, mode, **({} if "b" in mode else {"encoding": encoding,
                                                                "newline": newline})) as handle:
                yield handle
        except OSError as exc:
            raise QuizgenError(os_error_text(exc, target), field=field) from None
        return
    try:
        with signals_held():             # a temporary exists only once it is on the list
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name[:100]}.", suffix=".tmp",
                                       dir=target.parent)
            TEMPORARIES.add(tmp)
    except OSError as exc:
        raise QuizgenError(os_error_text(exc, target), field=field) from None
    try:
        try:
            binary = "b" in mode
            handle = os.fdopen(fd, "wb" if binary else "w",
                               **({} if binary else {"encoding": encoding, "newline": newline}))
            with handle:
                yield handle
                handle.flush()
                os.fsync(handle.fileno())
            try:
                old_mode = target.stat().st_mode & 0o777
            except OSError:
                old_mode = 0o666 & ~current_umask()
            os.chmod(tmp, old_mode)
            os.replace(tmp, target)
        except OSError as exc:
            raise QuizgenError(os_error_text(exc, target), field=field) from None
        fsync_folder(target.parent)
    finally:
        if os.path.lexists(tmp):
            try:
                os.unlink(tmp)
            except OSError:
                pass
        TEMPORARIES.discard(tmp)


def atomic_write(path: str | os.PathLike[str], data: str | bytes, *, field: str = "out",
                 encoding: str = "utf-8") -> int:
    """Write `data` to `path` atomically; returns the number of bytes written."""
    raw = data.encode(encoding) if isinstance(data, str) else data
    with atomic_open(path, "wb", field=field) as handle:
        handle.write(raw)
    return len(raw)


def write_pieces(path: str | os.PathLike[str], pieces: Iterable[str], *,
                 field: str = "out") -> int:
    """Write text made piece by piece (a bank streamed as its questions are made) to `path`,
    atomically, in UTF-8; the number of bytes written."""
    size = 0
    with atomic_open(path, "wb", field=field) as handle:
        for piece in pieces:
            data = piece.encode("utf-8")
            handle.write(data)
            size += len(data)
    return size


def fsync_folder(folder: Path) -> None:
    """Flush a folder's entries (a rename into it) to disk, where the system allows it."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextmanager
def temporary_path(prefix: str = "quizgen-", suffix: str = "", folder: str | None = None) -> Iterator[str]:
    """A temporary file name that is removed afterwards, whatever happens (also on SIGTERM)."""
    with signals_held():
        fd, name = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=folder)
        os.close(fd)
        TEMPORARIES.add(name)
    try:
        yield name
    finally:
        try:
            os.unlink(name)
        except OSError:
            pass
        TEMPORARIES.discard(name)
