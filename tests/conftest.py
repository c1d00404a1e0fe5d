"""Shared test helpers."""

from __future__ import annotations

from pathlib import Path

from hypothesis import settings

# Timing deadlines fail under load on a shared machine; the tests' own sizes bound their work.
settings.register_profile("quizgen", deadline=None)
settings.load_profile("quizgen")

REPO = Path(__file__).resolve().parent.parent


def seeds_dir() -> Path | None:
    """The source notes: ../shared/seeds beside the checkout (as on developer machines and CI)."""
    for candidate in (REPO.parent / "shared" / "seeds", Path("/work/shared/seeds")):
        if candidate.is_dir():
            return candidate
    return None
