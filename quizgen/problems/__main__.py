"""`python -m quizgen.problems`: the earlier command for ``pools.json``; every shipped data
file is now made by ``python -m quizgen.build_data``."""

from quizgen import build_data

build_data.main(["pools.json"])
