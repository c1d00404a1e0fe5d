"""CLI start-up: `quizgen --help` and one `quizgen occupancy ...`, against `python -c pass`."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import Row, command_time, pick, print_table, python  # noqa: E402


def measure(size: str = "full") -> list[Row]:
    repeat = pick(size, 9, 3, 1)
    floor = command_time([python(), "-c", "pass"], repeat)
    helps = command_time([python(), "-m", "quizgen", "--help"], repeat)
    occ = command_time([python(), "-m", "quizgen", "occupancy", "--gpu", "a100", "--threads", "256",
                        "--regs", "64", "--smem", "48KB"], repeat)
    return [
        Row("CLI start: quizgen --help", helps, "s", "python -c pass", floor, "< 0.15 s", helps < 0.15),
        Row("CLI: one quizgen occupancy (worked solution)", occ, "s", "python -c pass", floor,
            "< 0.5 s", occ < 0.5),
    ]


if __name__ == "__main__":
    print_table(measure("quick" if "--quick" in sys.argv else "full"))
