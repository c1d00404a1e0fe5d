"""Reading with a size limit: files, standard input and the output of a program, each refused in
one line beyond the largest input of its kind (`LIMITS`)."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from quizgen.errors import QuizgenError
from quizgen.files.atomic import os_error_text

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


@contextmanager
def opened(path: str | os.PathLike[str], field: str) -> Iterator[IO[bytes]]:
    """`path` open for reading its bytes, refusing (one line) a missing file, a folder or one
    that cannot be opened."""
    try:
        fh = open(path, "rb")
    except FileNotFoundError:
        raise QuizgenError(f"no such file: {path}", field=field) from None
    except IsADirectoryError:
        raise QuizgenError(f"{path} is a folder; give a file", field=field) from None
    except OSError as exc:
        raise QuizgenError(os_error_text(exc, path, action="read"), field=field) from None
    with fh:
        yield fh


def too_large(path: str | os.PathLike[str], field: str, limit: int | None = None) -> QuizgenError:
    """The one line that refuses `path` for holding more than `limit` bytes."""
    limit = LIMITS[field] if limit is None else limit
    return QuizgenError(f"{path} is larger than {size_text(limit)}, far more than any "
                        f"{NOUNS.get(field, field)}; give the right file", field=field)


def read_limited(path: str | os.PathLike[str], field: str, limit: int | None = None) -> bytes:
    """The bytes of `path`, refusing (one line) a missing file, a folder, or more than `limit`."""
    limit = LIMITS[field] if limit is None else limit
    with opened(path, field) as fh:
        try:
            data = fh.read(limit + 1)
        except OSError as exc:
            raise QuizgenError(os_error_text(exc, path, action="read"), field=field) from None
    if len(data) > limit:
        raise too_large(path, field, limit)
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
