"""The shipped pool cache lists exactly the candidates a live scan finds (same problems either way)."""

from __future__ import annotations

import json

from quizgen import problems
from quizgen.problems import LEVELS, POOL_CACHE, _Pool, families, pool_cache_entries


def test_shipped_pool_cache_is_current():
    shipped = json.loads(POOL_CACHE.read_text(encoding="utf-8"))["pools"]
    fresh = pool_cache_entries()
    stale = sorted(k for k in set(shipped) | set(fresh) if shipped.get(k) != fresh.get(k))
    assert not stale, f"run `python -m quizgen.problems` to refresh: {stale[:5]}"


def test_cached_and_live_pools_agree_beyond_the_prefix():
    for cell in ("OCC-2", "W-C", "X-1", "L-6"):
        fam = families()[cell]
        for level in LEVELS:
            names = fam.gpu_choices(level)
            cached = _Pool(cell, level, names)
            live = _Pool(cell, level, names, use_cache=False)
            want = problems.POOL_PREFIX + 40
            cached.fill(want)
            live.fill(want)
            assert cached.valid == live.valid
