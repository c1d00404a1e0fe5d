"""Every file quizgen writes goes through here: atomically, and CSV cells made safe to open.

`atomic_write` (and `atomic_open` for output written in pieces) writes a temporary file in the
target's own folder, flushes it to disk and renames it over the target. A failure (a full disk, an
interrupt) leaves the old file as it was and no temporary behind: temporaries are removed on any
error, on Ctrl-C and, once `install_signal_handlers` ran, on SIGTERM and SIGHUP.

`csv_text` / `write_csv` write every CSV: UTF-8 with a byte-order mark (so Excel reads the names
right) and every cell that a spreadsheet would run as a formula (= + - @, tab, carriage return at
its start) prefixed with an apostrophe. `plain_cell` undoes that when quizgen reads its own CSV.
"""

from __future__ import annotations

import atexit
import csv
import errno
import io
import os
import re
import signal
import sys
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from quizgen.errors import QuizgenError

#: Temporaries being written right now; removed at exit if a writer never got to.
_LIVE: set[str] = set()

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


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _check_target(path: Path, field: str) -> None:
    if path.is_dir():
        raise QuizgenError(f"{path} is a folder; give a file name", field=field)
    if not path.parent.is_dir():
        what = "is not a folder" if path.parent.exists() else "does not exist"
        raise QuizgenError(f"cannot write {path}: the folder {path.parent} {what}", field=field)


_HELD = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
              if hasattr(signal, name))


@contextmanager
def _signals_held() -> Iterator[None]:
    """Signals wait while a temporary is made and listed (so that none is ever left unlisted)."""
    try:
        old = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    except (AttributeError, ValueError, OSError):
        old = None
    try:
        yield
    finally:
        if old is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)


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
        with _signals_held():             # a temporary exists only once it is on the list
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name[:100]}.", suffix=".tmp",
                                       dir=target.parent)
            _LIVE.add(tmp)
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
                old_mode = 0o666 & ~_umask()
            os.chmod(tmp, old_mode)
            os.replace(tmp, target)
        except OSError as exc:
            raise QuizgenError(os_error_text(exc, target), field=field) from None
        _fsync_folder(target.parent)
    finally:
        if os.path.lexists(tmp):
            try:
                os.unlink(tmp)
            except OSError:
                pass
        _LIVE.discard(tmp)


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


def _fsync_folder(folder: Path) -> None:
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
    with _signals_held():
        fd, name = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=folder)
        os.close(fd)
        _LIVE.add(name)
    try:
        yield name
    finally:
        try:
            os.unlink(name)
        except OSError:
            pass
        _LIVE.discard(name)


@atexit.register
def _remove_leftovers() -> None:
    for name in list(_LIVE):
        try:
            os.unlink(name)
        except OSError:
            pass
        _LIVE.discard(name)


def _stop(signum: int, frame: object) -> None:
    # Unwinds like Ctrl-C: every `finally` runs, so temporaries go and old files stay.
    raise SystemExit(128 + signum)


def install_signal_handlers() -> None:
    """SIGTERM and SIGHUP end quizgen the way Ctrl-C does (temporaries removed)."""
    if sys.platform == "win32":
        return
    for sig in (signal.SIGTERM, signal.SIGHUP):
        try:
            if signal.getsignal(sig) in (signal.SIG_DFL, None):
                signal.signal(sig, _stop)
        except (ValueError, OSError):    # not the main thread
            pass


# ------------------------------------------------------------------------------------------------
# Reading with a size limit

#: The largest input of each kind quizgen reads (bytes): far above any real one, far below what
#: would exhaust the memory of a small machine.
LIMITS = {
    "problem": 4 << 20,      # one problem as JSON (a few KB in practice)
    "manifest": 512 << 20,   # an exam manifest (about 45 KB per student)
    "answers": 64 << 20,     # a filled answer sheet
    "roster": 16 << 20,      # a class roster
    "gpu-file": 1 << 20,     # a TOML file of GPUs
    "recipe": 1 << 20,       # a deck or exam recipe
    "batch line": 1 << 20,   # one line of an occupancy batch
    "ptxas": 64 << 20,       # a ptxas log, or what nvcc or a demangler prints (KB per kernel)
    "cu": 64 << 20,
}


NOUNS = {"problem": "problem", "manifest": "exam manifest", "answers": "answer sheet",
         "roster": "class roster", "gpu-file": "GPU file", "recipe": "recipe",
         "batch line": "launch", "ptxas": "ptxas log", "cu": "compiler output"}


def refuse_overwriting_inputs(out: str | os.PathLike[str],
                              inputs: Iterable[str | os.PathLike[str] | None],
                              field: str = "out") -> None:
    """One error line when the output `out` is one of the command's own input files (a recipe,
    a previous bank, a lock): writing it would destroy what the command reads."""
    target = Path(out).resolve()
    for source in inputs:
        if source is not None and Path(source).is_file() and Path(source).resolve() == target:
            raise QuizgenError(f"{out} would overwrite the input {source}; give another output "
                               "file", field=field)


def size_text(n: int) -> str:
    return f"{n >> 20} MB" if n >= 1 << 20 else f"{n >> 10} KB"


def read_limited(path: str | os.PathLike[str], field: str, limit: int | None = None) -> bytes:
    """The bytes of `path`, refusing (one line) a missing file, a folder, or more than `limit`."""
    limit = LIMITS[field] if limit is None else limit
    try:
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
    except FileNotFoundError:
        raise QuizgenError(f"no such file: {path}", field=field) from None
    except IsADirectoryError:
        raise QuizgenError(f"{path} is a folder; give a file", field=field) from None
    except OSError as exc:
        raise QuizgenError(os_error_text(exc, path, action="read"), field=field) from None
    if len(data) > limit:
        raise QuizgenError(f"{path} is larger than {size_text(limit)}, far more than any "
                           f"{NOUNS.get(field, field)}; give the right file", field=field)
    return data


def read_stream_limited(stream: IO[Any] | None, field: str, limit: int | None = None,
                        name: str = "standard input") -> bytes:
    """Up to `limit` bytes from an open stream (standard input), refused beyond that."""
    limit = LIMITS[field] if limit is None else limit
    if stream is None:
        raise QuizgenError(f"{name} is closed; pipe the {field} into it or give a file",
                           field=field)
    source = getattr(stream, "buffer", stream)
    try:
        data = source.read(limit + 1)
    except OSError as exc:
        if exc.errno == errno.EBADF:
            raise QuizgenError(f"{name} is closed; pipe the {field} into it or give a file",
                               field=field) from None
        raise QuizgenError(os_error_text(exc, name, action="read"), field=field) from None
    if isinstance(data, str):
        data = data.encode("utf-8")
    if len(data) > limit:
        raise QuizgenError(f"{name} holds more than {size_text(limit)}, far more than any "
                           f"{NOUNS.get(field, field)}; pipe the right file", field=field)
    return data


def run_limited(argv: Sequence[str], field: str, *, input: str | None = None,
                timeout: float = 600, limit: int | None = None) -> tuple[int, str, str]:
    """Run `argv` (no shell) and return (exit code, stdout, stderr) as text, reading at most
    `limit` bytes of its output in all: a program that prints more is stopped and refused in
    one line, instead of holding everything it printed in memory."""
    import subprocess
    import threading

    limit = LIMITS[field] if limit is None else limit
    proc = subprocess.Popen(list(argv), stdin=subprocess.PIPE if input is not None else
                            subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    chunks: dict[int, list[bytes]] = {1: [], 2: []}
    total = [0]
    over = threading.Event()
    lock = threading.Lock()

    def drain(stream: IO[bytes], key: int) -> None:
        while True:
            chunk = stream.read1(1 << 16)       # type: ignore[attr-defined]
            if not chunk:
                return
            with lock:
                total[0] += len(chunk)
                if total[0] > limit:
                    over.set()
                    proc.kill()
                    return
                chunks[key].append(chunk)

    readers = [threading.Thread(target=drain, args=(proc.stdout, 1), daemon=True),
               threading.Thread(target=drain, args=(proc.stderr, 2), daemon=True)]
    for reader in readers:
        reader.start()
    try:
        if input is not None:
            try:
                proc.stdin.write(input.encode("utf-8"))       # type: ignore[union-attr]
                proc.stdin.close()                            # type: ignore[union-attr]
            except (BrokenPipeError, OSError):
                pass
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise
    finally:
        for reader in readers:
            reader.join(timeout=5)
        for stream in (proc.stdout, proc.stderr):
            stream.close()                                    # type: ignore[union-attr]
    if over.is_set():
        raise QuizgenError(f"{Path(argv[0]).name} printed more than {size_text(limit)}, far more "
                           f"than any {NOUNS.get(field, field)}; stopped it", field=field)
    return (code, b"".join(chunks[1]).decode("utf-8", "replace"),
            b"".join(chunks[2]).decode("utf-8", "replace"))


def utf8_text(data: bytes, where: object, field: str) -> str:
    """`data` as UTF-8 (a byte-order mark is dropped), or one line saying where it is not."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise QuizgenError(f"{where} is not UTF-8 text (line {line}); save it as UTF-8",
                           field=field) from None


# ------------------------------------------------------------------------------------------------
# File names made from a teacher's text (a roll number, a student's name)

#: Names Windows keeps for devices, with or without an extension (``CON.html`` opens the console).
_RESERVED = frozenset({"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$", "CLOCK$",
                       *(f"{d}{n}" for d in ("COM", "LPT") for n in "0123456789¹²³")})
#: A stem's length: well inside 255 bytes (Linux, macOS) and 255 UTF-16 units (Windows), with
#: room for a suffix, an extension and a folder inside Windows' 260-character paths.
STEM_CHARS, STEM_BYTES = 80, 160


def file_stems(names: Sequence[str], *, alternates: Sequence[str] | None = None,
               fallback: str = "file") -> list[str]:
    """A file stem for each name, safe on Windows, macOS and Linux, and distinct from each other
    as those systems compare names (without case; é composed or not).

    Characters other than letters, digits, ``.`` and ``-`` become ``_``; leading and trailing
    dots, spaces and ``_`` go (Windows drops trailing ones); a device name (CON, PRN, AUX, NUL,
    COM1, LPT1, with or without an extension) gets a leading ``_``; a long name is cut. A name
    already taken gets ``-<its alternate>`` (a version code), then ``-2``, ``-3``..."""
    seen: set[str] = set()
    out = []
    for i, name in enumerate(names):
        stem = _safe_stem(name) or _safe_stem(fallback) or "file"
        if _fold(stem) in seen:
            alternate = _safe_stem(alternates[i]) if alternates and alternates[i] else ""
            room = len(alternate.encode("utf-8")) + 6          # "-<alternate>-<n>"
            base = _cut(stem, STEM_CHARS - room, STEM_BYTES - room)
            stem = f"{base}-{alternate}" if alternate else base
            n = 2
            while _fold(stem) in seen:
                stem, n = f"{base}-{alternate + '-' if alternate else ''}{n}", n + 1
        seen.add(_fold(stem))
        out.append(stem)
    return out


def _safe_stem(text: str) -> str:
    import unicodedata

    stem = re.sub(r"[^\w.\-]+", "_", unicodedata.normalize("NFC", str(text)))
    stem = _cut(stem.strip("._ -"), STEM_CHARS).rstrip("._ -")
    if stem.split(".", 1)[0].upper() in _RESERVED:
        stem = "_" + stem
    return stem


def _cut(text: str, chars: int, size: int = STEM_BYTES) -> str:
    """`text` cut to at most `chars` characters and `size` bytes of UTF-8."""
    text = text[:max(chars, 1)]
    while len(text.encode("utf-8")) > max(size, 4):
        text = text[:-1]
    return text


def _fold(stem: str) -> str:
    import unicodedata

    return unicodedata.normalize("NFKC", stem).casefold()


# ------------------------------------------------------------------------------------------------
# CSV

BOM = "\ufeff"
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?%?")


def safe_cell(value: object) -> str:
    """A cell as text that no spreadsheet runs as a formula: a leading = + - @ tab or CR gets an
    apostrophe in front (a plain signed number such as -3 or +2.5 stays as it is)."""
    text = "" if value is None else str(value)
    if text.startswith(_FORMULA_START) and not _PLAIN_NUMBER.fullmatch(text):
        return "'" + text
    return text


def plain_cell(text: str) -> str:
    """Undo `safe_cell` for a cell read back from a CSV quizgen wrote."""
    if len(text) > 1 and text[0] == "'" and text[1] in "=+-@\t\r":
        return text[1:]
    return text


#: Characters that show nothing and that a spreadsheet or a copy from a web page leaves in a
#: cell: byte-order marks (two exports pasted into one file), zero-width space, word joiner,
#: Mongolian vowel separator, and the direction marks and embeddings.
_INVISIBLE = re.compile("[\ufeff\u200b\u2060\u180e\u200e\u200f\u202a-\u202e\u2066-\u2069]"
                        # zero-width (non-)joiners join letters of Devanagari and other scripts:
                        # kept between two such letters, dropped beside ASCII, a space or an edge
                        "|(?<![^\x00-\x7f\\s])[\u200c\u200d]|[\u200c\u200d](?![^\x00-\x7f\\s])")


def clean_cell(text: str) -> str:
    """A cell as read from any CSV a teacher gives: without byte-order marks and zero-width
    characters, which no one typed on purpose and which make a roll or a box unmatchable."""
    return _INVISIBLE.sub("", text) if not text.isascii() else text


class CsvRows:
    """`csv.reader` over `source` whose every cell is `clean_cell`ed; `line_num` as csv's."""

    def __init__(self, source: Iterable[str], delimiter: str = ",", *, strict: bool = False) -> None:
        # A byte-order mark goes before the CSV is split: one at the start of a pasted export
        # would otherwise stand before a quote and keep the quotes in the cell.
        lines = (line.replace(BOM, "") if BOM in line else line for line in source)
        self._reader = csv.reader(lines, delimiter=delimiter, strict=strict)

    @property
    def line_num(self) -> int:
        return self._reader.line_num

    def __iter__(self) -> "CsvRows":
        return self

    def __next__(self) -> list[str]:
        row = next(self._reader)
        if "".join(row).isascii():          # most rows: nothing to clean
            return row
        return [clean_cell(cell) for cell in row]


def csv_rows(source: Iterable[str], delimiter: str = ",", *, strict: bool = False) -> CsvRows:
    """The one reader of every CSV quizgen reads (rosters, answer sheets, overrides, a scan's
    review fixes): rows of cells cleaned of invisible characters (see `clean_cell`)."""
    return CsvRows(source, delimiter, strict=strict)


def visible(text: str) -> str:
    """`text` with every character that prints as nothing (control and format characters,
    such as a byte-order mark) written as its code, ``<U+FEFF>``: for warnings that quote a
    teacher's text."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else f"<U+{ord(ch):04X}>" for ch in text)


def sniff_delimiter(first_line: str) -> str:
    """The separator that splits a CSV header into the most fields: comma, semicolon (Excel in
    many locales) or tab; a comma on a tie. Rosters and answer sheets are read alike."""
    best, width = ",", 1
    for delim in (",", ";", "\t"):
        fields = len(next(csv.reader([first_line], delimiter=delim)))
        if fields > width:
            best, width = delim, fields
    return best


def csv_text(rows: Iterable[Sequence[object]], *, bom: bool = True) -> str:
    """Rows as CSV text (comma-separated, quoted where needed, one row per line)."""
    buf = io.StringIO()
    if bom:
        buf.write(BOM)
    writer = csv.writer(buf, lineterminator="\n")
    for row in rows:
        writer.writerow([safe_cell(cell) for cell in row])
    return buf.getvalue()


def write_csv(path: str | os.PathLike[str], rows: Iterable[Sequence[object]], *,
              field: str = "out") -> int:
    return atomic_write(path, csv_text(rows), field=field)


# ------------------------------------------------------------------------------------------------
# Output folders: replace only what quizgen wrote

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


def _kept_name(path: Path) -> Path:
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
        os.chmod(staged, 0o777 & ~_umask())
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
            _fsync_folder(folder.parent)
            return []
        old = read_ledger(folder)
        previous = set(foreign_files(folder, own=own))
        kept = []
        for rel in names:
            target = folder / rel
            if rel in previous and os.path.lexists(target):
                moved = _kept_name(target)
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
