"""Shared test helpers."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def seeds_dir() -> Path | None:
    """The source notes: ../shared/seeds beside the checkout (as on developer machines and CI)."""
    for candidate in (REPO.parent / "shared" / "seeds", Path("/work/shared/seeds")):
        if candidate.is_dir():
            return candidate
    return None
