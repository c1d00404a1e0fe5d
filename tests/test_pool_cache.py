"""The shipped pool cache gives the same problems as a live scan (that it is current:
test_build_data.py)."""

from __future__ import annotations

from quizgen.problems import LEVELS, _Pool, families


def test_cached_and_live_pools_agree():
    for cell in ("OCC-2", "W-C", "X-1", "L-6"):
        fam = families()[cell]
        for level in LEVELS:
            names = fam.gpu_choices(level)
            cached = _Pool(cell, level, names)
            live = _Pool(cell, level, names, use_cache=False)
            assert cached.cursor == len(cached.raw)      # the shipped cache covers the whole pool
            assert cached.raw == live.raw                # candidates unasked only where all are
            assert len(cached) == len(live) > 0
            assert cached.valid == live.valid
            for seed in (0, 1, len(live) - 1, len(live), 7919):
                assert cached.params(seed) == live.params(seed)


def test_a_pool_scanned_past_its_cache_skips_repeated_candidates():
    fam = families()["OCC-2"]
    names = fam.gpu_choices(1)
    pool = _Pool("OCC-2", 1, names)
    first = pool.valid_at[:5]
    pool.valid_at[:] = first            # as if the cache listed only these five
    pool.cursor = first[-1] + 1
    pool.raw.append(pool.raw[first[0]])   # a repeat of a candidate already on target
    live = _Pool("OCC-2", 1, names, use_cache=False)
    assert len(pool) == len(live)
    assert pool.valid == live.valid


def test_a_gpu_that_refuses_candidates_is_asked_each_one():
    # The default pools ask every candidate (the cache says so, and the check is skipped); on
    # a GPU with fewer registers per thread than a space draws, the refused ones are left out.
    from quizgen.problems import _pool_cache, pool_cache_key

    fam = families()["OCC-2"]
    assert _pool_cache()[pool_cache_key("OCC-2", 3, fam.gpu_choices(3))]["all_asked"]
    refused = _Pool("OCC-2", 3, ("c2050",), use_cache=False)   # Fermi: 63 registers a thread
    assert refused.unasked > 0
    assert all(p["regs_per_thread"] <= 63 for _, p in refused.raw)


def test_a_new_pool_goes_straight_to_the_oldest_generation():
    # Its candidates live as long as the process: the collector's frequent passes skip them.
    import gc

    assert gc.get_freeze_count() == 0
    pool = _Pool("OCC-2", 2, families()["OCC-2"].gpu_choices(2), use_cache=False)
    oldest = {id(o) for o in gc.get_objects(generation=2)}
    assert id(pool.raw) in oldest
    assert gc.get_freeze_count() == 0
