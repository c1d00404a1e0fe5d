"""Options shared by several commands, defined once (typer ``Annotated`` aliases)."""


from pathlib import Path
from typing import Annotated, Optional

import typer

from quizgen.errors import QuizgenError
from quizgen.languages import LANGS


def either(names) -> str:
    """Names as a choice in a help line or an error: "hinglish or en", "hinglish, en or xx"."""
    names = list(names)
    return " or ".join(names) if len(names) < 3 else f"{', '.join(names[:-1])} or {names[-1]}"


#: The phrasebook's languages as a help line lists them (the default first).
LANG_CHOICES = either(LANGS)

def _preset_list() -> str:
    from quizgen.gpus import preset_names

    return ", ".join(preset_names())


GpuOpt = Annotated[str, typer.Option("--gpu", "-g", help=f"GPU preset ({_preset_list()}) or a name from --gpu-file.")]
GpuFileOpt = Annotated[Optional[Path], typer.Option("--gpu-file", help="TOML file with your own GPUs (same fields as the catalogue; `base = \"a100\"` copies a preset).")]
SetOpt = Annotated[Optional[list[str]], typer.Option("--set", help="Override a GPU field, e.g. --set smem_per_sm=65536 (repeatable).")]
LangOpt = Annotated[str, typer.Option("--lang", "-l", help=f"Language of the worked solution: {LANG_CHOICES}.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of the worked solution.")]
ModelOpt = Annotated[Optional[str], typer.Option("--model", help="Occupancy model: exact (NVIDIA's allocation rules) or textbook (the notes' formulas). Default: textbook for the textbook GPU, exact for real GPUs.")]


#: The largest size (bytes) a launch may ask for: 2 GiB, far above any SM's shared memory.
MAX_SIZE = 1 << 31


def parse_size(field: str, text: str | None) -> int:
    """Bytes from '49152', '48K', '48 KB', '48KiB', '1.5KB', '65,536' (KB = 1024 B), read by the
    answer reader: '1,5' or '1e30' is a one-line error, never a misread."""
    if text is None:
        return 0
    from quizgen.grade.parse import read_number

    value = read_number(field, text, units=(None, "B"), minimum=0, maximum=MAX_SIZE,
                        expected="bytes like 49152, 48K or 48KB")
    if value.denominator != 1:
        raise QuizgenError(f"got {text!r}; expected a whole number of bytes", field=field)
    return int(value)


def parse_whole(field: str, text: str, *, minimum: int = 0, maximum: int = MAX_SIZE) -> int:
    from quizgen.grade.parse import read_number

    return int(read_number(field, text, minimum=minimum, maximum=maximum, whole=True,
                           expected="a whole number"))


def parse_block(field: str, text: str | None) -> str | None:
    """A block shape x[,y[,z]]: whole numbers only, so ',32' or '1,,2' is an error, not 32×1×1."""
    import re

    if text is None:
        return None
    if not re.fullmatch(r"\s*[(\[]?\s*\d{1,10}(\s*[,x×X]\s*\d{1,10}){0,2}\s*[)\]]?\s*", text):
        raise QuizgenError(f"got {text!r}; expected a block shape x,y,z like 32,8,1 or 256",
                           field=field)
    return text


def parse_overrides(items: list[str] | None) -> dict[str, object]:
    """`--set field=value` for every field of the catalogue (quizgen.gpus.field_kinds); the GPU
    they build is checked as a whole afterwards, as a GPU file's is."""
    from quizgen.gpus import INT_FIELDS, MAX_FIELD, carveout_sizes, field_kinds

    kinds = field_kinds()
    out: dict[str, object] = {}
    for item in items or []:
        if "=" not in item:
            raise QuizgenError(f"got {item!r}; expected field=value", field="set")
        key, value = item.split("=", 1)
        key = key.strip()
        value = value.strip()
        kind = kinds.get(key)
        if kind == "kb_list":
            sizes = [parse_whole("set", v, maximum=1 << 21) for v in value.strip("[]").split(",")
                     if v.strip()]
            out[key] = list(carveout_sizes(sizes))
        elif kind == "text":
            out[key] = value
        elif kind == "int":
            out[key] = parse_whole("set", value, minimum=INT_FIELDS.get(key, 0), maximum=MAX_FIELD)
        else:
            raise QuizgenError(f"unknown GPU field {key!r}; fields are: {', '.join(sorted(kinds))}",
                               field="set")
    return out


def load_gpu(name: str, gpu_file: Path | None, overrides: list[str] | None):
    from quizgen.gpus import load_gpu_file, resolve_gpu

    extra = load_gpu_file(gpu_file) if gpu_file else None
    gpu = resolve_gpu(name, extra=extra)
    return gpu.with_overrides(**parse_overrides(overrides))


def check_lang(lang: str) -> str:
    if lang not in LANGS:
        raise QuizgenError(f"got {lang!r}; expected {LANG_CHOICES}", field="lang")
    return lang


#: Off a terminal, a long command prints a progress line on stderr this often (seconds);
#: ``QUIZGEN_PROGRESS_SECONDS`` sets another interval (0: a line at every step).
PROGRESS_SECONDS = 5.0


def progress_reporter(what: str, unit: str, *, quiet: bool = False):
    """A context manager yielding ``update(done, total)`` (or None when `quiet`).

    On a terminal: a progress bar on stderr, gone when the work is done. Elsewhere (a log, CI, a
    pipe): a line on stderr every few seconds, ``deck: 120/464 problems (12 s)``, so long work is
    never silent. Standard output only ever gets the command's result.
    """
    import os
    import time
    from contextlib import contextmanager

    @contextmanager
    def reporter():
        if quiet:
            yield None
            return
        from rich.console import Console

        console = Console(stderr=True)
        if console.is_terminal:
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                       TimeElapsedColumn)

            bar = Progress(TextColumn(what), BarColumn(), MofNCompleteColumn(), TextColumn(unit),
                           TimeElapsedColumn(), console=console, transient=True)
            task = bar.add_task(what, total=None)
            shown = [0.0]

            def update(done: int, total: int) -> None:
                now = time.monotonic()    # the bar redraws ten times a second: no need for more
                if done < total and now - shown[0] < 0.1:
                    return
                shown[0] = now
                bar.update(task, completed=done, total=total)

            with bar:
                yield update
            return
        try:
            every = float(os.environ.get("QUIZGEN_PROGRESS_SECONDS", PROGRESS_SECONDS))
        except ValueError:
            every = PROGRESS_SECONDS
        start = time.monotonic()
        last = [start]

        def update(done: int, total: int) -> None:
            now = time.monotonic()
            if now - last[0] < every or done >= total:
                return
            last[0] = now
            try:
                sys.stderr.write(f"{what}: {done:,}/{total:,} {unit} ({now - start:.0f} s)\n")
                sys.stderr.flush()
            except (OSError, ValueError, AttributeError):
                pass
        yield update

    import sys

    return reporter()
