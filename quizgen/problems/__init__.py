"""The problem families: one per scenario cell, random yet on target, solved exactly.

This package decides what a problem is (its parameters, answers, steps and what its words may
claim); it writes no words. `quizgen.generator` puts a family's solution into words with
`quizgen.render.writers`:

    from quizgen.problems import CELLS, family, draw
    gpu, params = draw("OCC-2", level=2, seed=7)
"""

from __future__ import annotations

import importlib
from functools import cache
from pathlib import Path
from typing import Any

from quizgen.collector import collector_paused
from quizgen.errors import QuizgenError
from quizgen.problems.base import LEVELS, rng_for
from quizgen.problems.registry import FAMILIES, registered_cells

#: Modules of this package that hold the machinery, not families; every other module defines
#: families (each registers its own on import), so a new family module needs no list.
MACHINERY = frozenset({"applicability", "base", "model", "options", "records", "registry",
                       "relations", "sampling", "specs"})


def family_modules() -> list[str]:
    import pkgutil

    return sorted(f"{__name__}.{m.name}" for m in pkgutil.iter_modules(__path__)
                  if m.name not in MACHINERY)

__all__ = ["CELLS", "LEVELS", "draw", "families", "family", "pool"]


@cache
def families() -> dict[str, Any]:
    for name in family_modules():
        importlib.import_module(name)
    return {cell: FAMILIES[cell] for cell in registered_cells()}


def __getattr__(name: str) -> Any:
    # CELLS: every registered cell in the course's order (computed on first use, since the
    # families register themselves when their modules are imported).
    if name == "CELLS":
        return tuple(families())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def family(cell: str):
    """The family of `cell` (any case, spaces around it ignored)."""
    fams = families()
    found = fams.get(cell)
    if found is not None:
        return found
    key = cell.strip().upper()
    if key not in fams:
        known = ", ".join(fams)
        raise QuizgenError(f"unknown cell {cell!r}; cells are: {known}", field="cell")
    return fams[key]


def check_level(level: Any) -> int:
    if isinstance(level, bool) or not isinstance(level, int) or level not in LEVELS:
        raise QuizgenError(f"got {level!r}; expected one of {', '.join(map(str, LEVELS))}", field="level")
    return level


class _Pool:
    """The candidates of one cell and level in a fixed shuffle, checked lazily as seeds ask.

    Seed i gets the i-th candidate (in shuffled order) that lands in the cell, so seeds 0…N−1 are
    N distinct problems; only as many candidates are solved as the seeds asked for need. For the
    default GPUs, which candidates land in the cell is shipped with the package
    (``quizgen/data/pools.json``, checked by a test), so a fresh process solves none of them.
    """

    def __init__(self, cell: str, level: int, gpu_names: tuple[str, ...], *,
                 use_cache: bool = True) -> None:
        self.family = family(cell)
        entry = _pool_cache().get(pool_cache_key(cell, level, gpu_names)) if use_cache else None
        # Where the cache says the GPUs ask every candidate of the space (the default pools
        # do), asking each again is skipped; a cache that does not fit the candidates is unused.
        all_asked = entry is not None and entry.get("all_asked", False)
        self.raw, self.unasked = self._candidates(cell, level, gpu_names, ask=not all_asked)
        if entry is not None and (entry["raw"] != len(self.raw)
                                  or entry["print"] != _fingerprint(self.raw)):
            if all_asked:
                self.raw, self.unasked = self._candidates(cell, level, gpu_names, ask=True)
            entry = None
        self.cursor = 0
        self.valid_at: list[int] = []           # positions in `raw` of the on-target candidates
        self._seen: set[tuple[str, Any]] | None = None
        if entry is not None:
            self._load(entry)

    def _candidates(self, cell: str, level: int, gpu_names: tuple[str, ...],
                    ask: bool) -> tuple[list[tuple[str, dict[str, Any]]], int]:
        """The space on each GPU (only what the GPU asks, with `ask`) in the pool's shuffle,
        and how many candidates the GPUs do not ask."""
        raw: list[tuple[str, dict[str, Any]]] = []
        unasked = 0
        with collector_paused(lasting=True):
            for name in gpu_names:
                gpu = resolve_named_gpu(name)
                if ask:
                    asks = self.family.asker(gpu)
                    for params in self.family.space(level, gpu):
                        if asks(params):
                            raw.append((name, params))
                        else:
                            unasked += 1
                else:
                    raw.extend((name, params) for params in self.family.space(level, gpu))
            rng_for(cell, level, 0).shuffle(raw)
        return raw, unasked

    def _load(self, entry: dict[str, Any]) -> None:
        at = 0
        valid_at = self.valid_at
        for step in entry["valid"]:
            at += step
            valid_at.append(at)
        self.cursor = entry["scanned"]

    def _advance(self) -> bool:
        if self.cursor >= len(self.raw):
            return False
        seen = self._seen
        if seen is None:
            # Candidates found so far (a candidate off target twice is off target twice).
            seen = self._seen = {(self.raw[i][0], _freeze(self.raw[i][1])) for i in self.valid_at}
        at = self.cursor
        name, params = self.raw[at]
        self.cursor += 1
        key = (name, _freeze(params))
        if key in seen:  # the same candidate twice in the space
            return True
        seen.add(key)
        gpu = resolve_named_gpu(name)
        if self.family.in_cell(params, gpu, self.family.solve(params, gpu, explain=False)):
            self.valid_at.append(at)
        return True

    def fill(self, count: int) -> None:
        while len(self.valid_at) < count and self._advance():
            pass

    def position(self, index: int) -> int:
        """Where in `raw` seed `index` lands (seeds past the end wrap around)."""
        valid_at = self.valid_at
        while len(valid_at) <= index and self._advance():
            pass
        if not valid_at:
            raise IndexError("empty pool")
        return valid_at[index] if index < len(valid_at) else valid_at[index % len(valid_at)]

    def params(self, index: int) -> tuple[str, dict[str, Any]]:
        """(GPU name, a fresh copy of the parameters) of seed `index`."""
        name, params = self.raw[self.position(index)]
        return name, _sorted_copy(params)

    def __getitem__(self, index: int) -> tuple[str, Any]:
        name, params = self.raw[self.position(index)]
        return name, _freeze(params)

    @property
    def valid(self) -> list[tuple[str, Any]]:
        return [(self.raw[i][0], _freeze(self.raw[i][1])) for i in self.valid_at]

    def __len__(self) -> int:
        while self._advance():
            pass
        return len(self.valid_at)


POOL_CACHE = Path(__file__).resolve().parent.parent / "data" / "pools.json"


def pool_cache_key(cell: str, level: int, gpu_names: tuple[str, ...]) -> str:
    return f"{cell}|{level}|{','.join(gpu_names)}"


def _fingerprint(raw: list) -> int:
    import json
    import zlib

    picks = [raw[i] for i in sorted({0, len(raw) // 3, len(raw) // 2, len(raw) - 1}) if 0 <= i < len(raw)]
    return zlib.crc32(json.dumps(picks, sort_keys=True).encode())


@cache
def _pool_cache() -> dict[str, Any]:
    import json

    try:
        return json.loads(POOL_CACHE.read_text(encoding="utf-8"))["pools"]
    except (OSError, ValueError, KeyError):
        return {}


def pool_cache_entries() -> dict[str, Any]:
    """The cache's contents computed afresh (what `write_pool_cache` stores; tests compare)."""
    out = {}
    for cell, fam in families().items():
        for level in LEVELS:
            names = fam.gpu_choices(level)
            pool = _Pool(cell, level, names, use_cache=False)
            pool.fill(len(pool.raw))   # the whole pool
            steps, last = [], 0
            for at in pool.valid_at:
                steps.append(at - last)
                last = at
            out[pool_cache_key(cell, level, names)] = {
                "raw": len(pool.raw), "print": _fingerprint(pool.raw), "valid": steps,
                "scanned": pool.cursor, "all_asked": pool.unasked == 0}
    return out


def pool_cache_text() -> str:
    """The contents of ``pools.json`` made afresh (see `quizgen.build_data`)."""
    import json

    return json.dumps({"pools": pool_cache_entries()}, sort_keys=True, separators=(",", ":")) + "\n"


class _Frozen(tuple):
    """A frozen list (or, with `is_dict`, a frozen dict's sorted items)."""

    is_dict = False


class _FrozenDict(_Frozen):
    is_dict = True


def _freeze(value: Any) -> Any:
    """A hashable, order-independent form of JSON-like parameters."""
    if isinstance(value, dict):
        return _FrozenDict(sorted((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return _Frozen(_freeze(v) for v in value)
    return value


def _sorted_copy(value: Any) -> Any:
    """A copy of JSON-like data with every dict's keys sorted, tuples as lists (the JSON form)."""
    cls = value.__class__
    if cls is dict:
        out = {}
        for k in sorted(value):
            v = value[k]
            c = v.__class__
            out[k] = v if c is int or c is str or c is float or v is None else _sorted_copy(v)
        return out
    if cls is list or cls is tuple:
        return [_sorted_copy(v) for v in value]
    if isinstance(value, dict):
        return {k: _sorted_copy(value[k]) for k in sorted(value)}
    if isinstance(value, (list, tuple)):
        return [_sorted_copy(v) for v in value]
    return value


@cache
def pool(cell: str, level: int, gpu_names: tuple[str, ...]) -> _Pool:
    """The candidates of `cell` at `level` on these GPUs, in the order seeds take them (made
    once per process; ``pool(...).params(seed)`` is what seed `seed` draws)."""
    return _Pool(cell, level, gpu_names)


#: SM variants some cells use (the notes' twists), by name: base preset + changed fields.
VARIANT_GPUS = {
    "textbook-bmax16": ("textbook", {"max_blocks_per_sm": 16}),
    "textbook-64kb": ("textbook", {"smem_per_sm": 65536}),
}


@cache
def resolve_named_gpu(name: str):
    from quizgen.gpus import get_gpu

    if name in VARIANT_GPUS:
        base, fields = VARIANT_GPUS[name]
        return get_gpu(base).with_overrides(name=name, **fields)
    return get_gpu(name)


def draw(cell: str, *, level: int = 1, seed: int = 0, gpu: str | None = None) -> tuple[Any, dict[str, Any]]:
    """What `generate_one` would pick for these arguments, without solving or writing anything:
    (the GPU, the parameters). Cheap; lets a deck skip a repeat before paying for its words."""
    fam = family(cell)
    level = check_level(level)
    names = (resolve_named_gpu(gpu).name,) if gpu else fam.gpu_choices(level)
    try:
        gpu_name, params = pool(fam.cell, level, names).params(seed)
    except IndexError:
        raise QuizgenError(f"no {fam.cell} problem exists at level {level} on GPU "
                           f"{', '.join(names)}; try another GPU or level", field="gpu") from None
    return resolve_named_gpu(gpu_name), params


def spec_dicts(fam) -> dict[str, dict[str, Any]]:
    """A family's answer specs as the record writes them (made once per family)."""
    found = _SPEC_DICTS.get(fam.cell)
    if found is None:
        found = _SPEC_DICTS[fam.cell] = {k: s.to_dict() for k, s in fam.answer_specs.items()}
    return found


_SPEC_DICTS: dict[str, dict[str, dict[str, Any]]] = {}
