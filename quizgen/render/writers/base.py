"""The writer contract: a family's problem in words (see `quizgen.render.writers`)."""

from __future__ import annotations

from typing import Any

from quizgen.gpus import GPU
from quizgen.problems.base import Family, Solved
from quizgen.problems.model import Choice, Solution


class Writer:
    """Writes the problems of one family. Subclasses override `write` and, where the cell has
    them, `mcq_stem` and `choices`.

    A writer reads its family's declarations (``cell``, ``trap_applies``, ``context``, ...) as
    its own attributes: ``self.cell`` is ``self.fam.cell``.
    """

    def __init__(self, fam: Family) -> None:
        self.fam = fam

    def __getattr__(self, name: str) -> Any:
        # Only reached for names the writer lacks: the family's declarations and data methods.
        return getattr(self.fam, name)

    def write(self, params: dict[str, Any], gpu: GPU, solved: Solved, lang: str,
              salt: str) -> tuple[str, str, Solution]:
        """(title, question, solution) in `lang`."""
        raise NotImplementedError

    def shared_context(self, params: dict[str, Any], gpu: GPU, solved: Solved) -> dict[str, Any]:
        """A copy of the problem's `context`, which is built once per problem: the worked
        solution, its multiple-choice stem and its options all quote the same numbers."""
        built = solved.data.get("writer_context")
        if built is None:
            built = solved.data["writer_context"] = self.context(params, gpu, solved)
        return dict(built)

    def mcq_stem(self, params: dict[str, Any], gpu: GPU, solved: Solved, lang: str,
                 salt: str) -> str:
        """The multiple-choice stem in `lang`: the question's setup and one ask, the quantity
        the options give (the main answer). Empty: a card falls back to the whole question."""
        return ""

    def choices(self, params: dict[str, Any], gpu: GPU, solved: Solved, lang: str,
                salt: str) -> list[Choice] | None:
        """Options of a family without a numeric main answer (concept cards); None: the
        options come from the main answer and the family's misconceptions."""
        return None
