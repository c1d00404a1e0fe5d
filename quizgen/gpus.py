"""The GPU catalogue: per-SM hardware facts as data (quizgen/data/gpus.toml), plus user GPUs.

A `GPU` is a frozen, JSON-safe record. Presets come from the packaged TOML; a user can load their
own TOML file of the same shape, or override single fields of a preset (`with_overrides`).
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
import tomllib
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, Mapping

from quizgen.errors import QuizgenError

DATA_FILE = Path(__file__).with_name("data") / "gpus.toml"

#: Fields that every GPU must have, with the smallest value each may take.
INT_FIELDS: dict[str, int] = {
    "num_sms": 1,
    "warp_size": 1,
    "max_threads_per_block": 1,
    "max_warps_per_sm": 1,
    "max_blocks_per_sm": 1,
    "regs_per_sm": 1,
    "regs_per_block": 1,
    "max_regs_per_thread": 1,
    "smem_per_sm": 1,
    "smem_per_block": 1,
    "smem_per_block_optin": 1,
    "reserved_smem_per_block": 0,
    "reg_alloc_unit": 1,
    "smem_alloc_unit": 1,
    "schedulers_per_sm": 1,
    "barriers_per_sm": 0,
}


#: Fields that hold a text (the others are whole numbers, and `smem_carveout_kb` a list of KB).
TEXT_FIELDS = ("name", "compute_capability", "description", "base", "peak_source")


def field_kinds() -> dict[str, str]:
    """Every field a GPU has (what the catalogue, a GPU file and ``--set`` may give), by the kind
    of value it takes: "int" (its least value in `INT_FIELDS`, else 0), "text" or "kb_list"."""
    return {f.name: ("kb_list" if f.name == "smem_carveout_kb" else
                     "text" if f.name in TEXT_FIELDS else "int") for f in dataclasses.fields(GPU)}


@dataclass(frozen=True, slots=True)
class GPU:
    """Per-SM facts of one GPU, under the canonical field names."""

    name: str
    compute_capability: str | None
    num_sms: int
    warp_size: int
    max_threads_per_block: int
    max_warps_per_sm: int
    max_blocks_per_sm: int
    regs_per_sm: int
    regs_per_block: int
    max_regs_per_thread: int
    smem_per_sm: int
    smem_per_block: int
    smem_per_block_optin: int
    reserved_smem_per_block: int
    reg_alloc_unit: int
    smem_alloc_unit: int
    schedulers_per_sm: int
    #: Named block barriers per SM (cc ≥ 9.0 limits blocks by them); 0 = not a limit.
    barriers_per_sm: int = 0
    #: Shared-memory sizes (KB) the L1/shared carveout can take; empty = any size.
    smem_carveout_kb: tuple[int, ...] = ()
    description: str = ""
    #: The preset this GPU was built from ("textbook" keeps the notes' model as default).
    base: str | None = None
    #: Peak FP32 throughput (GFLOP/s, non-tensor) and memory bandwidth (GB/s) of the whole GPU,
    #: for the roofline; 0 = unknown. `peak_source` says where the two figures come from.
    peak_fp32_gflops: int = 0
    mem_bandwidth_gbs: int = 0
    peak_source: str = ""

    @property
    def machine_balance(self) -> Fraction | None:
        """FLOP per byte at which the roofline bends: peak FLOP/s ÷ peak bytes/s (None: unknown)."""
        if not (self.peak_fp32_gflops and self.mem_bandwidth_gbs):
            return None
        return Fraction(self.peak_fp32_gflops, self.mem_bandwidth_gbs)

    @property
    def dual_issue(self) -> bool:
        """Whether one warp scheduler can issue two independent instructions of a warp in one
        cycle: two dispatch units per scheduler on Kepler, Maxwell and Pascal (cc 3.x to 6.x;
        the architectures' whitepapers), one on Fermi GF100 (cc 2.0) and from Volta on."""
        return 3 <= self.cc_major <= 6

    @property
    def max_threads_per_sm(self) -> int:
        return self.max_warps_per_sm * self.warp_size

    @property
    def spoken_name(self) -> str:
        """The GPU as a person says it ("A100", "RTX 4090", "V100"), not its catalogue string."""
        if self.is_textbook or not self.description:
            return self.name
        text = self.description.split(" (")[0].split(",")[0]
        for word in ("NVIDIA ", "GeForce ", "Tesla "):
            text = text.replace(word, "")
        return text.strip() or self.name

    @property
    def is_textbook(self) -> bool:
        return self.name == "textbook" or self.base == "textbook"

    @property
    def default_model(self) -> str:
        return "textbook" if self.is_textbook else "exact"

    @property
    def cc_major(self) -> int:
        if not self.compute_capability:
            return 0
        return int(self.compute_capability.split(".")[0])

    def to_dict(self) -> dict[str, Any]:
        out = dict(_gpu_dict(self))
        out["smem_carveout_kb"] = list(self.smem_carveout_kb)
        return out

    def with_overrides(self, **overrides: Any) -> "GPU":
        """A copy with some fields changed (validated); the copy remembers its base preset."""
        if not overrides:
            return self
        data = self.to_dict()
        base = self.base or self.name
        data.update(overrides)
        if "name" not in overrides:
            data["name"] = f"{self.name}*"
        data.setdefault("base", base)
        if data.get("base") is None:
            data["base"] = base
        return gpu_from_dict(data)


_GPU_DICTS: dict[int, tuple[GPU, dict[str, Any]]] = {}


def _gpu_dict(gpu: GPU) -> dict[str, Any]:
    # Keyed by identity: hashing a GPU hashes all its fields, which costs more than the copy.
    # The entry keeps its GPU alive, so the id cannot be reused while it is cached.
    entry = _GPU_DICTS.get(id(gpu))
    if entry is None or entry[0] is not gpu:
        if len(_GPU_DICTS) > 256:
            _GPU_DICTS.clear()
        entry = _GPU_DICTS[id(gpu)] = (gpu, {f.name: getattr(gpu, f.name) for f in dataclasses.fields(GPU)})
    return entry[1]


def gpu_from_dict(data: Mapping[str, Any], *, name: str | None = None) -> GPU:
    """Build a GPU from a mapping of canonical fields; `base` copies a preset first."""
    data = dict(data)
    if name is not None:
        data.setdefault("name", name)
    base_name = data.get("base")
    merged: dict[str, Any] = {}
    if base_name is not None:
        base = get_gpu(str(base_name))
        merged.update(base.to_dict())
        merged["base"] = base.base or base.name
        merged.pop("name")
        merged.pop("description")
    merged.update({k: v for k, v in data.items() if k != "base"})
    if "name" not in merged:
        raise QuizgenError("a GPU needs a name", field="gpu")
    known = {f.name for f in dataclasses.fields(GPU)}
    unknown = sorted(set(merged) - known)
    if unknown:
        raise QuizgenError(
            f"unknown field {unknown[0]!r}; GPU fields are: {', '.join(sorted(known))}", field="gpu")
    for key, minimum in INT_FIELDS.items():
        if key not in merged:
            raise QuizgenError(f"GPU {merged['name']!r} is missing {key!r}", field="gpu")
        value = merged[key]
        if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= MAX_FIELD:
            raise QuizgenError(
                f"GPU {merged['name']!r}: {key} must be a whole number from {minimum} to "
                f"{MAX_FIELD:,}, got {_short(value)}", field="gpu")
    for key in ("peak_fp32_gflops", "mem_bandwidth_gbs"):
        value = merged.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_FIELD:
            raise QuizgenError(f"GPU {merged['name']!r}: {key} must be a whole number from 0 to "
                               f"{MAX_FIELD:,}, got {_short(value)}", field="gpu")
    for key in ("name", "description", "peak_source"):
        if not isinstance(merged.get(key, ""), str) or len(merged.get(key, "")) > 1000:
            raise QuizgenError(f"GPU {key} must be a short text, got {_short(merged[key])}",
                               field="gpu")
    cc = merged.get("compute_capability")
    if cc is not None:
        cc = str(cc)
        parts = cc.split(".")
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            raise QuizgenError(f"compute_capability must look like '8.0', got {cc!r}", field="gpu")
    merged["compute_capability"] = cc
    merged["smem_carveout_kb"] = carveout_sizes(merged.get("smem_carveout_kb", ()),
                                                merged["name"])
    merged["name"] = str(merged["name"])
    return GPU(**merged)


#: The largest value any GPU count or size may take (2^31: far above any real SM).
MAX_FIELD = 1 << 31


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def carveout_sizes(value: Any, name: str = "") -> tuple[int, ...]:
    """`smem_carveout_kb` checked: a list of whole numbers of KB (0 to 2^21), sorted or not."""
    ok = isinstance(value, (list, tuple)) and len(value) <= 64 and all(
        isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 1 << 21 for v in value)
    if not ok:
        who = f"GPU {name!r}: " if name else ""
        raise QuizgenError(f"{who}smem_carveout_kb must be a list of whole numbers of KB like "
                           f"[0, 8, 16, 32, 64, 100], got {_short(value)}", field="gpu")
    return tuple(value)


@cache
def _catalogue_raw() -> dict[str, dict[str, Any]]:
    with DATA_FILE.open("rb") as fh:
        return tomllib.load(fh)


@cache
def get_gpu(name: str) -> GPU:
    """A preset by name (case-insensitive), e.g. ``get_gpu("a100")``."""
    key = name.strip().lower()
    raw = _catalogue_raw()
    if key not in raw:
        raise QuizgenError(
            f"unknown GPU {name!r}; presets are: {', '.join(preset_names())}", field="gpu")
    return gpu_from_dict(raw[key], name=key)


def preset_names() -> list[str]:
    return list(_catalogue_raw())


def load_gpu_file(path: str | Path) -> dict[str, GPU]:
    """Read a user's TOML file of GPUs (same shape as the catalogue); returns name → GPU."""
    from quizgen.files import read_limited, utf8_text

    path = Path(path)
    text = utf8_text(read_limited(path, "gpu-file"), path, "gpu-file")
    try:
        raw = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        why = exc if isinstance(exc, tomllib.TOMLDecodeError) else "nested too deeply"
        raise QuizgenError(f"{path} is not valid TOML ({why})", field="gpu-file") from None
    out = {}
    for name, table in raw.items():
        if not isinstance(table, dict):
            raise QuizgenError(f"{path}: [{name}] must be a table of GPU fields", field="gpu-file")
        out[name.lower()] = gpu_from_dict(table, name=name.lower())
    return out


def resolve_gpu(spec: "str | Mapping[str, Any] | GPU", *, extra: Mapping[str, GPU] | None = None) -> GPU:
    """A GPU from a preset name, a dict of fields (optionally with ``base``), or a GPU."""
    if isinstance(spec, GPU):
        return spec
    if isinstance(spec, str):
        if extra and spec.lower() in extra:
            return extra[spec.lower()]
        return get_gpu(spec)
    if isinstance(spec, Mapping):
        try:
            # the type is part of the key: True and 1 are equal keys, but only 1 is a valid count
            key = tuple(sorted((k, type(v).__name__, tuple(v) if isinstance(v, list) else v)
                               for k, v in spec.items()))
            return _gpu_from_items(key)
        except TypeError:       # unhashable values: build it without the cache
            pass
        return _gpu_from_mapping(spec)
    raise QuizgenError(f"expected a preset name or a table of fields, got {spec!r}", field="gpu")


def _gpu_from_mapping(spec: Mapping[str, Any]) -> GPU:
    data = dict(spec)
    if "base" in data and "name" not in data:
        data["name"] = f"{str(data['base']).lower()}*"
    return gpu_from_dict(data)


@lru_cache(maxsize=256)
def _gpu_from_items(items: tuple[tuple[str, str, Any], ...]) -> GPU:
    """`resolve_gpu` of a dict, remembered: figures and problems carry their GPU as a dict."""
    return _gpu_from_mapping({k: list(v) if isinstance(v, tuple) else v for k, _, v in items})
