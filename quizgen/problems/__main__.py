"""`python -m quizgen.problems`: refresh the shipped pool cache (quizgen/data/pools.json)."""

from quizgen.problems import POOL_CACHE, write_pool_cache

print(f"{write_pool_cache()} pools → {POOL_CACHE}")
