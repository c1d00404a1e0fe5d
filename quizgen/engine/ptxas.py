"""What the compiler says a kernel uses: the resource lines of `nvcc --resource-usage` (or
`-Xptxas -v`) read into records that the occupancy engine takes.

ptxas prints, per entry function and architecture::

    ptxas info    : Compiling entry function '_Z11sgemm_tiledILi32EEvPKfS1_Pfi' for 'sm_80'
    ptxas info    : Function properties for _Z11sgemm_tiledILi32EEvPKfS1_Pfi
        0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
    ptxas info    : Used 32 registers, used 1 barriers, 8192 bytes smem, 380 bytes cmem[0]

and nvlink (with ``-rdc=true``) prints ``nvlink info : Function properties for 'NAME':`` followed by
``used 8 registers, used 0 barriers, 0 stack, 0 bytes smem, 360 bytes cmem[0], 0 bytes lmem``
(without the architecture). Registers, static shared memory and barriers are what occupancy needs;
dynamic shared memory is a launch argument and never appears in these lines. Names are C++-mangled;
`demangle` turns them into source names with ``cu++filt`` or ``c++filt`` when one is installed.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass, field, replace
from typing import Any, Iterable

from quizgen.errors import QuizgenError

_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(sm_\w+)'")
_PROPS = re.compile(r"ptxas\s+info\s*:\s*Function properties for '?([^'\s:]+)'?")
_SPILLS = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"ptxas\s+info\s*:\s*Used (\d+) registers(.*)$")
_LINK_PROPS = re.compile(r"nvlink\s+info\s*:\s*Function properties for '([^']+)'")
_LINK_USED = re.compile(r"nvlink\s+info\s*:\s*used (\d+) registers(.*)$")
_BARRIERS = re.compile(r"used (\d+) barriers")
_SMEM = re.compile(r"(\d+)(?:\+(\d+))? bytes smem")
_CMEM = re.compile(r"(\d+) bytes cmem\[(\d+)\]")
_LMEM = re.compile(r"(\d+) bytes lmem")
_STACK = re.compile(r"(\d+) bytes cumulative stack size|(\d+) stack\b")
_ARCH = re.compile(r"^(?:sm|compute)_(\d+)(\d)[a-z]?$")


@dataclass(frozen=True, slots=True)
class KernelUsage:
    """The resources one compiled kernel uses on one architecture, as the compiler reported them."""

    name: str                       # the symbol as the log writes it (C++-mangled)
    arch: str | None                # "sm_80"; None when the log does not say (nvlink)
    registers: int
    barriers: int | None = None     # None: the line does not say (older ptxas)
    smem: int = 0                   # static shared memory per block, bytes
    cmem: dict[int, int] = field(default_factory=dict)   # constant bank → bytes
    stack: int = 0                  # stack frame, bytes (local memory per thread)
    spill_stores: int = 0
    spill_loads: int = 0
    lmem: int = 0
    display: str = ""               # the demangled name (the mangled one when none is known)
    line: str = ""                  # the "Used N registers, ..." line itself

    @property
    def shown(self) -> str:
        return self.display or self.name

    @property
    def compute_capability(self) -> str | None:
        return arch_capability(self.arch) if self.arch else None

    @property
    def spills(self) -> bool:
        return bool(self.spill_stores or self.spill_loads)

    @property
    def base_name(self) -> str:
        """The kernel's identifier without namespace, template arguments or parameters."""
        return base_name(self.shown) if self.display and self.display != self.name else base_name(self.name)

    def to_dict(self) -> dict[str, Any]:
        return {"kernel": self.shown, "symbol": self.name, "arch": self.arch,
                "compute_capability": self.compute_capability, "regs_per_thread": self.registers,
                "barriers": self.barriers, "smem_per_block": self.smem,
                "cmem": {str(k): v for k, v in sorted(self.cmem.items())}, "stack_frame": self.stack,
                "spill_stores": self.spill_stores, "spill_loads": self.spill_loads, "lmem": self.lmem}


def arch_capability(arch: str) -> str:
    """'sm_80' → '8.0', 'sm_90a' → '9.0', 'sm_100' → '10.0'; a one-line error otherwise."""
    match = _ARCH.match(arch.strip().lower())
    if not match:
        raise QuizgenError(f"got {arch!r}; expected an architecture like sm_80", field="arch")
    return f"{int(match.group(1))}.{match.group(2)}"


def _details(usage: dict[str, Any], rest: str) -> None:
    if (m := _BARRIERS.search(rest)):
        usage["barriers"] = int(m.group(1))
    if (m := _SMEM.search(rest)):
        usage["smem"] = int(m.group(1)) + int(m.group(2) or 0)
    usage["cmem"] = {int(bank): int(size) for size, bank in _CMEM.findall(rest)}
    if (m := _LMEM.search(rest)):
        usage["lmem"] = int(m.group(1))
    if (m := _STACK.search(rest)):
        usage["stack"] = max(usage.get("stack", 0), int(m.group(1) or m.group(2)))


def parse_ptxas(text: str) -> list[KernelUsage]:
    """Every kernel × architecture in a resource-usage log, in the log's order (names mangled).

    Raises a one-line `QuizgenError` when the text holds no resource line at all.
    """
    kernels: list[KernelUsage] = []
    entry: tuple[str, str | None] | None = None
    props: dict[str, tuple[int, int, int]] = {}
    props_name: str | None = None
    link_name: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if (m := _ENTRY.search(line)):
            entry = (m.group(1), m.group(2))
            continue
        if (m := _PROPS.search(line)):
            props_name = m.group(1)
            continue
        if (m := _SPILLS.search(line)) and props_name is not None and not line.startswith("nvlink"):
            props[props_name] = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
            continue
        if (m := _USED.search(line)):
            if entry is None:
                name, arch = props_name or "?", None
            else:
                name, arch = entry
            stack, stores, loads = props.pop(name, (0, 0, 0))
            usage: dict[str, Any] = {"stack": stack}
            _details(usage, m.group(2))
            kernels.append(KernelUsage(name, arch, int(m.group(1)), usage.get("barriers"),
                                       usage.get("smem", 0), usage["cmem"], usage["stack"], stores,
                                       loads, usage.get("lmem", 0), line=_used_text(line)))
            entry = None
            continue
        if (m := _LINK_PROPS.search(line)):
            link_name = m.group(1)
            continue
        if (m := _LINK_USED.search(line)) and link_name is not None:
            usage = {"stack": 0}
            _details(usage, m.group(2))
            kernels.append(KernelUsage(link_name, None, int(m.group(1)), usage.get("barriers"),
                                       usage.get("smem", 0), usage["cmem"], usage["stack"],
                                       lmem=usage.get("lmem", 0), line=_used_text(line)))
            link_name = None
    if not kernels:
        raise QuizgenError("no 'Used N registers' line found; expected the output of "
                           "nvcc --resource-usage or nvcc -Xptxas -v", field="ptxas")
    return kernels


def _used_text(line: str) -> str:
    """The resource line without its 'ptxas info    :' prefix."""
    return re.sub(r"^(ptxas|nvlink)\s+info\s*:\s*", "", line)


def demangler() -> str | None:
    """The C++ demangler on PATH (cu++filt, NVIDIA's, first), or None."""
    for tool in ("cu++filt", "c++filt"):
        found = shutil.which(tool)
        if found:
            return found
    return None


def demangle(names: Iterable[str], tool: str | None = None) -> dict[str, str]:
    """Mangled → source name for each name; a name stays as it is without a demangler."""
    names = list(dict.fromkeys(names))
    out = {n: n for n in names}
    tool = tool or demangler()
    mangled = [n for n in names if n.startswith("_Z")]
    if not tool or not mangled:
        return out
    from quizgen.errors import QuizgenError
    from quizgen.files import run_limited

    try:
        code, stdout, _ = run_limited([tool], "ptxas", input="\n".join(mangled) + "\n",
                                      timeout=20)
    except (OSError, subprocess.SubprocessError, QuizgenError):
        return out                      # names stay mangled; the numbers do not depend on them
    if code != 0:
        return out
    lines = stdout.splitlines()
    if len(lines) == len(mangled):
        out.update({n: d.strip() or n for n, d in zip(mangled, lines)})
    return out


def with_display_names(kernels: list[KernelUsage], tool: str | None = None) -> list[KernelUsage]:
    names = demangle((k.name for k in kernels), tool)
    return [replace(k, display=_tidy(names[k.name])) for k in kernels]


def _tidy(name: str) -> str:
    """'void sgemm_tiled<16>(float const*, ...)' → 'sgemm_tiled<16>(float const*, ...)'."""
    return re.sub(r"^void\s+", "", name)


def base_name(name: str) -> str:
    """'sgemm_tiled<16>(float const*, float*)' → 'sgemm_tiled'; '_Z10reduce_sumPKfPfi' →
    'reduce_sum'; 'ns::k(int)' → 'k'; an unmangled C name stays as it is."""
    if name.startswith("_Z"):
        nested = name.startswith("_ZN")
        pos, parts = (3 if nested else 2), []
        while pos < len(name) and name[pos].isdigit():
            digits = re.match(r"\d+", name[pos:]).group(0)
            pos += len(digits)
            parts.append(name[pos:pos + int(digits)])
            pos += int(digits)
            if not nested:
                break
        if parts:
            return parts[-1]
    head = name.split("(", 1)[0]
    depth, plain = 0, []
    for ch in head:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0:
            plain.append(ch)
    return "".join(plain).split("::")[-1].strip().split(" ")[-1]


def short_name(kernel: KernelUsage) -> str:
    """The display name without its parameter list: 'sgemm_tiled<16>'."""
    shown = kernel.shown
    return shown.split("(", 1)[0] if kernel.display and kernel.display != kernel.name else shown


def find_kernels(kernels: list[KernelUsage], wanted: str) -> list[KernelUsage]:
    """The kernels `wanted` names: the symbol, the demangled name with or without its
    parameters, or the bare identifier (which may name several template instances)."""
    key = wanted.strip()
    for test in (lambda k: k.name == key, lambda k: k.shown == key,
                 lambda k: short_name(k) == key,
                 lambda k: short_name(k).replace(" ", "") == key.replace(" ", ""),
                 lambda k: k.base_name == key):
        found = [k for k in kernels if test(k)]
        if found:
            return found
    return []
