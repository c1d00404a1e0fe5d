"""The writer of every family that has none of its own."""

from __future__ import annotations

from quizgen.problems.base import Family
from quizgen.render.writers import writes
from quizgen.render.writers.base import Writer


@writes(Family)
class FamilyWriter(Writer):
    pass
