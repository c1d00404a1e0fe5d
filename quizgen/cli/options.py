"""Options shared by several commands, defined once (typer ``Annotated`` aliases)."""


from pathlib import Path
from typing import Annotated, Optional

import typer

from quizgen.errors import QuizgenError

GpuOpt = Annotated[str, typer.Option("--gpu", "-g", help="GPU preset (textbook, v100, t4, a100, a10, rtx4090, h100, h200, b200) or a name from --gpu-file.")]
GpuFileOpt = Annotated[Optional[Path], typer.Option("--gpu-file", help="TOML file with your own GPUs (same fields as the catalogue; `base = \"a100\"` copies a preset).")]
SetOpt = Annotated[Optional[list[str]], typer.Option("--set", help="Override a GPU field, e.g. --set smem_per_sm=65536 (repeatable).")]
LangOpt = Annotated[str, typer.Option("--lang", "-l", help="Language of the worked solution: hinglish or en.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of the worked solution.")]
ModelOpt = Annotated[Optional[str], typer.Option("--model", "-m", help="Occupancy model: exact (NVIDIA's allocation rules) or textbook (the notes' formulas). Default: textbook for the textbook GPU, exact for real GPUs.")]


def parse_size(field: str, text: str | None) -> int:
    """Bytes from '49152', '48K', '48 KB', '48KiB', '1.5KB' (KB = 1024 B); one-line error otherwise."""
    if text is None:
        return 0
    raw = text.strip().replace(",", "").replace("_", "")
    lowered = raw.lower()
    factor = 1
    for suffix, mult in (("kib", 1024), ("kb", 1024), ("k", 1024), ("mib", 1 << 20), ("mb", 1 << 20),
                         ("b", 1)):
        if lowered.endswith(suffix):
            lowered = lowered[: -len(suffix)].strip()
            factor = mult
            break
    try:
        value = float(lowered)
    except ValueError:
        raise QuizgenError(f"got {text!r}; expected bytes like 49152, 48K or 48KB", field=field) from None
    size = value * factor
    if size < 0 or not size.is_integer():
        raise QuizgenError(f"got {text!r}; expected a whole number of bytes ≥ 0", field=field)
    return int(size)


def parse_overrides(items: list[str] | None) -> dict[str, object]:
    out: dict[str, object] = {}
    for item in items or []:
        if "=" not in item:
            raise QuizgenError(f"got {item!r}; expected field=value", field="set")
        key, value = item.split("=", 1)
        key = key.strip()
        value = value.strip()
        if key == "smem_carveout_kb":
            out[key] = [int(v) for v in value.split(",") if v.strip()]
        elif key in ("compute_capability", "name", "description", "base"):
            out[key] = value
        else:
            try:
                out[key] = int(value)
            except ValueError:
                raise QuizgenError(f"{key} must be a whole number, got {value!r}", field="set") from None
    return out


def load_gpu(name: str, gpu_file: Path | None, overrides: list[str] | None):
    from quizgen.gpus import load_gpu_file, resolve_gpu

    extra = load_gpu_file(gpu_file) if gpu_file else None
    gpu = resolve_gpu(name, extra=extra)
    return gpu.with_overrides(**parse_overrides(overrides))


def check_lang(lang: str) -> str:
    if lang not in ("hinglish", "en"):
        raise QuizgenError(f"got {lang!r}; expected hinglish or en", field="lang")
    return lang
