"""Reading an exam manifest from its file: size-limited, UTF-8, JSON whose every number is
finite, then validated (`quizgen.manifest.check`) before anything uses it. One loader for
grade, scan and check."""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path
from typing import Any

from quizgen.errors import QuizgenError
from quizgen.manifest.check import check_manifest
from quizgen.manifest.record import Manifest

# A float literal whose exponent has three digits may overflow to infinity when parsed.
_BIG_EXPONENT = re.compile(rb"[0-9][eE]\+?0*[0-9]{3,}")


def load_manifest(path: str | os.PathLike[str], *, scan: bool = False) -> Manifest:
    """The manifest at `path`, validated (see `check_manifest`); `scan` also validates the
    answer grids' layout (``scan`` and every student's ``sheet``), which only `quizgen scan`
    reads."""
    from quizgen.files import read_limited

    path = Path(path)
    raw = read_limited(path, "manifest")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise QuizgenError(f"{path} is not a JSON manifest ({exc})", field="manifest") from None
    del raw             # a class of 1,000 is 190 MB of JSON: not held twice while it is parsed
    data = load_json(text, str(path), "manifest", noun="a JSON manifest")
    del text
    return Manifest.from_dict(check_manifest(data, str(path), scan=scan), str(path))


def load_json(text: str, where: str, field: str, *, noun: str = "JSON") -> Any:
    """JSON a teacher gives (a manifest, a problem), refusing in one line what is not JSON,
    what is nested too deeply, and any number that is not finite (``NaN``, ``Infinity``,
    ``1e400``): one rule for every number quizgen reads."""
    kwargs: dict[str, Any] = {"parse_constant": _no_constant}
    if _BIG_EXPONENT.search(text.encode("utf-8", "surrogatepass")):
        kwargs["parse_float"] = _finite_float
    try:
        return json.loads(text, **kwargs)
    except _NotFinite as exc:
        raise QuizgenError(f"{where} holds {exc.args[0]}, which is not a finite number; "
                           "numbers quizgen reads must be finite", field=field) from None
    except ValueError as exc:
        raise QuizgenError(f"{where} is not {noun} ({exc})", field=field) from None
    except RecursionError:
        raise QuizgenError(f"{where} is not {noun} (nested too deeply)", field=field) from None


class _NotFinite(ValueError):
    pass


def _no_constant(name: str) -> Any:
    raise _NotFinite(name)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotFinite(text)
    return value
