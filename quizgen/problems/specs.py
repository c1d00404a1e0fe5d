"""What each answer of a problem means, declared once by its family.

An `AnswerSpec` says, for one answer key: its kind (how it is read and compared), its unit, how it
is written for a person (`format`), the grading tolerance, and which other answers and parameters
it is computed from (`depends_on`) with the function that computes it (`compute`, which calls the
engine function the solver uses). Every consumer reads the spec: the record's JSON carries it
(``answer_specs``), the grader takes kinds and tolerances from it, and the same `compute`, fed a
student's own earlier answers, gives carried-error credit.

Kinds (CELLS.md): ``count`` (whole things), ``fraction`` (a share in [0, 1]), ``ratio``, ``bytes``,
``cycles``, ``real`` (any other number), ``coords`` (a tuple of whole numbers), ``choice`` (one of
named options), ``yes_no`` and ``limits`` (a set of limit names).

Formats: ``number`` (plain), ``percent`` (a fraction shown as 37.5%), ``times`` (a ratio shown as
2×), ``tuple``, ``yes_no``, ``limits`` and ``text`` (a named option).

What a written unit means is declared here too (`canonical_unit`, `COUNT_UNITS`), and the kinds a
typed number is compared by (`COMPARE_KINDS`): the grader reads answers by them and the cards and
banks print and check answers by them, so they agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Mapping

KINDS = ("count", "fraction", "ratio", "bytes", "cycles", "real", "coords", "choice", "yes_no",
         "limits")
NUMERIC_KINDS = frozenset({"count", "fraction", "ratio", "bytes", "cycles", "real"})
FORMATS = ("number", "percent", "times", "tuple", "yes_no", "limits", "text")

#: The format a kind is written in unless its spec says otherwise.
DEFAULT_FORMAT = {"count": "number", "fraction": "percent", "ratio": "times", "bytes": "number",
                  "cycles": "number", "real": "number", "coords": "tuple", "choice": "text",
                  "yes_no": "yes_no", "limits": "limits"}

#: Formats whose written value says what it is, with no unit after it (37.5%, 2×, (1, 0, 2), yes,
#: a limit's name, a named option).
SELF_DESCRIBING_FORMATS = frozenset({"percent", "times", "tuple", "yes_no", "limits", "text"})

#: Units that name a kind of answer, not something counted: never printed after a value.
KIND_UNITS = frozenset({"fraction", "ratio", "limiter"})

#: Tolerances by kind when a spec gives none (absolute, in the answer's own units).
DEFAULT_TOLERANCE = {"fraction": 0.0005, "ratio": 0.0005, "real": 0.0005}

Compute = Callable[[Mapping[str, Any], Any], Any]

#: How a typed number is compared with its key, by the kind of quantity asked: the numeric spec
#: kinds, and ``percent`` (a key already in percent, 25 meaning 25%).
COMPARE_KINDS = ("count", "fraction", "percent", "ratio", "bytes", "cycles", "real")

#: Canonical units a read answer may carry.
UNITS = ("warps", "blocks", "threads", "lanes", "registers", "B", "cycles", "instructions", "iterations",
         "SMs", "waves", "x", "%")

#: Units that count whole things.
COUNT_UNITS = frozenset({"warps", "blocks", "threads", "lanes", "registers", "instructions", "iterations",
                         "SMs", "waves"})

#: Unit words, lower-cased, to their canonical unit.
UNIT_WORDS: dict[str, str] = {word: canon for canon, words in {
    "warps": ("warp", "warps"),
    "blocks": ("block", "blocks", "blk", "blks", "tb", "tbs"),
    "threads": ("thread", "threads", "thr"),
    "lanes": ("lane", "lanes"),
    "registers": ("register", "registers", "reg", "regs"),
    "cycles": ("cycle", "cycles", "cyc", "cycs", "clk", "clks", "clock", "clocks"),
    "instructions": ("instruction", "instructions", "instr", "instrs", "inst", "insts"),
    "iterations": ("iteration", "iterations", "iter", "iters"),
    "SMs": ("sm", "sms"),
    "waves": ("wave", "waves"),
}.items() for word in words}

#: Byte units (course convention, seed 000: K = 1024), lower-cased, to their size in bytes.
BYTE_WORDS: dict[str, int] = {
    "b": 1, "byte": 1, "bytes": 1,
    "kb": 1024, "kib": 1024, "kbyte": 1024, "kbytes": 1024, "kilobyte": 1024,
    "kilobytes": 1024, "kibibyte": 1024, "kibibytes": 1024,
    "mb": 1024**2, "mib": 1024**2, "mbyte": 1024**2, "mbytes": 1024**2, "megabyte": 1024**2,
    "megabytes": 1024**2, "mebibyte": 1024**2, "mebibytes": 1024**2,
}
PERCENT_WORDS = frozenset({"percent", "pct"})
RATIO_WORDS = frozenset({"x", "times"})


def canonical_unit(word: str) -> str | None:
    """The canonical unit a unit word stands for (``"warp"`` → ``"warps"``, ``"KiB"`` → ``"B"``,
    ``"×"`` → ``"x"``, ``"percent"`` → ``"%"``), or None for a word that is not a unit."""
    name = word.strip()
    if name in UNITS:
        return name
    name = name.lower()
    if name in UNIT_WORDS:
        return UNIT_WORDS[name]
    if name in BYTE_WORDS:
        return "B"
    if name in RATIO_WORDS or name == "×":
        return "x"
    if name in PERCENT_WORDS:
        return "%"
    return None


@dataclass(frozen=True, slots=True)
class AnswerSpec:
    """One answer key's meaning. `compute(values, gpu)` gets the values of `depends_on` by name
    (answers and parameters) and the problem's GPU, and returns the answer."""

    kind: str
    unit: str = ""
    format: str = ""
    tolerance: float = 0.0
    depends_on: tuple[str, ...] = ()
    compute: Compute | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown answer kind {self.kind!r}")
        if not self.format:
            object.__setattr__(self, "format", DEFAULT_FORMAT[self.kind])
        if self.format not in FORMATS:
            raise ValueError(f"unknown answer format {self.format!r}")
        if not self.tolerance and self.kind in DEFAULT_TOLERANCE:
            object.__setattr__(self, "tolerance", DEFAULT_TOLERANCE[self.kind])
        object.__setattr__(self, "depends_on", tuple(self.depends_on))

    @property
    def printed_unit(self) -> str:
        """The unit a person reads after the value ("blocks", "B"); empty where the written form
        says what it is (37.5%, 2×, a limit's name) or the unit only names the kind. Cards,
        sheets and LMS banks print this, so they agree."""
        if self.format in SELF_DESCRIBING_FORMATS or self.unit in KIND_UNITS:
            return ""
        return self.unit

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "unit": self.unit, "format": self.format,
                "tolerance": self.tolerance, "depends_on": list(self.depends_on)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "AnswerSpec":
        kind = str(data.get("kind", "real"))
        fmt = str(data.get("format") or "")
        tol = data.get("tolerance") or 0.0
        deps = data.get("depends_on") or ()
        if kind not in KINDS:
            raise ValueError(f"unknown answer kind {kind!r}")
        if fmt and fmt not in FORMATS:
            fmt = ""
        if not isinstance(tol, (int, float)) or isinstance(tol, bool) or tol < 0:
            raise ValueError(f"bad tolerance {tol!r}")
        return cls(kind, str(data.get("unit") or ""), fmt, float(tol),
                   tuple(str(d) for d in deps) if isinstance(deps, (list, tuple)) else ())

    def with_(self, **changes: Any) -> "AnswerSpec":
        fields = {"kind": self.kind, "unit": self.unit, "format": self.format,
                  "tolerance": self.tolerance, "depends_on": self.depends_on,
                  "compute": self.compute}
        fields.update(changes)
        return AnswerSpec(**fields)


# Short constructors for declarations ---------------------------------------------------------


def count(unit: str, *depends_on: str, compute: Compute | None = None) -> AnswerSpec:
    return AnswerSpec("count", unit, "number", 0.0, depends_on, compute)


def fraction(*depends_on: str, compute: Compute | None = None,
             tolerance: float = 0.0005) -> AnswerSpec:
    return AnswerSpec("fraction", "fraction", "percent", tolerance, depends_on, compute)


def ratio(*depends_on: str, compute: Compute | None = None, tolerance: float = 0.0005) -> AnswerSpec:
    return AnswerSpec("ratio", "ratio", "times", tolerance, depends_on, compute)


def cycles(*depends_on: str, compute: Compute | None = None) -> AnswerSpec:
    return AnswerSpec("cycles", "cycles", "number", 0.0, depends_on, compute)


def real(unit: str, *depends_on: str, compute: Compute | None = None,
         tolerance: float = 0.0005) -> AnswerSpec:
    return AnswerSpec("real", unit, "number", tolerance, depends_on, compute)


def bytes_(*depends_on: str, compute: Compute | None = None) -> AnswerSpec:
    return AnswerSpec("bytes", "B", "number", 0.0, depends_on, compute)


def coords(*depends_on: str, compute: Compute | None = None) -> AnswerSpec:
    return AnswerSpec("coords", "", "tuple", 0.0, depends_on, compute)


def yes_no(*depends_on: str, compute: Compute | None = None) -> AnswerSpec:
    return AnswerSpec("yes_no", "", "yes_no", 0.0, depends_on, compute)


def limits(*depends_on: str, compute: Compute | None = None) -> AnswerSpec:
    return AnswerSpec("limits", "limiter", "limits", 0.0, depends_on, compute)


def choice(*depends_on: str, compute: Compute | None = None) -> AnswerSpec:
    return AnswerSpec("choice", "", "text", 0.0, depends_on, compute)


# Values a student wrote, checked before they feed a computation ------------------------------


def usable(spec: AnswerSpec, value: Any) -> bool:
    """Whether a value of this kind may feed a dependent answer: a count that is not whole, or a
    fraction outside [0, 1], is itself the mistake a question tests, so nothing carries from it."""
    if spec.kind in ("count", "bytes"):
        return _whole(value) and value >= 0
    if spec.kind == "fraction":
        return _number(value) and 0 <= value <= 1
    if spec.kind in ("ratio", "cycles", "real"):
        return _number(value) and value >= 0
    return value is not None


def _number(value: Any) -> bool:
    return isinstance(value, (int, float, Fraction)) and not isinstance(value, bool)


def _whole(value: Any) -> bool:
    if not _number(value):
        return False
    if isinstance(value, Fraction):
        return value.denominator == 1
    return float(value).is_integer()


def plain_number(value: Any) -> Any:
    """A whole Fraction as an int, another Fraction as-is (engines take ints or Fractions)."""
    if isinstance(value, Fraction) and value.denominator == 1:
        return value.numerator
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def order(specs: Mapping[str, AnswerSpec]) -> list[str]:
    """The answer keys in an order where every key comes after the answers it depends on."""
    out: list[str] = []
    seen: set[str] = set()

    def visit(key: str, path: tuple[str, ...]) -> None:
        if key in seen or key not in specs:
            return
        if key in path:
            raise ValueError(f"answers depend on each other in a cycle: {' → '.join(path + (key,))}")
        for dep in specs[key].depends_on:
            if dep != key:              # an answer that repeats a given (L-5's latency)
                visit(dep, path + (key,))
        seen.add(key)
        out.append(key)

    for key in specs:
        visit(key, ())
    return out
