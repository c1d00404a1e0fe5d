"""Make the data files shipped in ``quizgen/data/`` afresh: ``python -m quizgen.build_data``.

Three files are generated from the code and shipped with the package, so that the hot paths need
no sympy and no scanning, and ``quizgen --help`` answers at once:

* ``pools.json``: which candidates of each cell and level land in the cell (from the families'
  spaces and checks);
* ``formulas.json``: every formula of the engine printed by sympy (LaTeX, Unicode, Typst, MathML);
* ``help.txt``: the top-level ``quizgen --help`` as the CLI prints it in 80 columns.

Run it after changing a family's space or check, a formula, or a command's help. It rewrites only
the files whose contents change; ``--check`` writes nothing and exits 1 when a file is out of date
(the tests run the same check). The compiled kernels' reports (``data/kernels/``) need nvcc and
are made by ``python -m quizgen.build_kernels``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

#: The command that makes every shipped data file.
COMMAND = "python -m quizgen.build_data"
DATA_DIR = Path(__file__).resolve().parent / "data"


def _pools() -> str:
    from quizgen.problems import pool_cache_text

    return pool_cache_text()


def _formulas() -> str:
    from quizgen.render.math import cache_text

    return cache_text()


def _help() -> str:
    from quizgen.launch import live_help

    return live_help()


@dataclass(frozen=True)
class DataFile:
    """One generated file: its name in ``quizgen/data/``, what it holds, how it is made."""

    name: str
    holds: str
    make: Callable[[], str]


DATA_FILES = (
    DataFile("pools.json", "which candidates land in each cell and level", _pools),
    DataFile("formulas.json", "the engine's formulas printed by sympy", _formulas),
    DataFile("help.txt", "the top-level `quizgen --help`", _help),
)


def _chosen(names: Sequence[str] | None) -> list[DataFile]:
    if not names:
        return list(DATA_FILES)
    known = {f.name: f for f in DATA_FILES}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown data file {unknown[0]!r}; the data files are: "
                         + ", ".join(known))
    return [known[n] for n in names]


def stale(names: Sequence[str] | None = None, data_dir: Path = DATA_DIR) -> list[str]:
    """The data files (by name) whose shipped contents differ from what the code makes today."""
    out = []
    for data in _chosen(names):
        try:
            shipped = (data_dir / data.name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            shipped = None
        if shipped != data.make():
            out.append(data.name)
    return out


def build(names: Sequence[str] | None = None, data_dir: Path = DATA_DIR) -> list[str]:
    """Write the data files whose contents change; returns the names written."""
    from quizgen.files import atomic_write

    written = []
    for data in _chosen(names):
        path = data_dir / data.name
        text = data.make()
        try:
            same = path.read_text(encoding="utf-8") == text
        except (OSError, UnicodeDecodeError):
            same = False
        if not same:
            atomic_write(path, text)
            written.append(data.name)
    return written


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog=COMMAND, description="Make the data files shipped in "
                                 "quizgen/data/ afresh (only the ones that change are written).")
    ap.add_argument("names", nargs="*", metavar="FILE",
                    help="only these files (" + ", ".join(f.name for f in DATA_FILES) + ")")
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 when a file is out of date")
    ap.add_argument("--data-dir", type=Path, default=DATA_DIR, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    try:
        _chosen(args.names)
    except ValueError as exc:
        ap.error(str(exc))
    if args.check:
        out_of_date = stale(args.names, args.data_dir)
        for name in out_of_date:
            print(f"quizgen/data/{name} is out of date: run `{COMMAND}`", file=sys.stderr)
        raise SystemExit(1 if out_of_date else 0)
    written = build(args.names, args.data_dir)
    for data in _chosen(args.names):
        state = "written" if data.name in written else "already current"
        print(f"quizgen/data/{data.name} ({data.holds}): {state}")


if __name__ == "__main__":
    main()
