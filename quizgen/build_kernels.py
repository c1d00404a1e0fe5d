"""Compile the shipped kernels and record what nvcc reports: `python -m quizgen.build_kernels`.

For every source listed in ``quizgen/data/kernels/kernels.toml`` this runs, once per source,

    nvcc --resource-usage -gencode arch=compute_XX,code=sm_XX ... -c SOURCE -o /dev/null

for the catalogue's architectures, keeps the log as ``ptxas/<source>.log`` (without the
"Compile time" lines, which change from run to run), and writes ``usage.json``: each kernel's
resources per architecture, read from those logs by `quizgen.engine.ptxas` and named as the
demangler prints them. Anyone with nvcc can re-run it; the tests read the shipped files and never
need nvcc.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from quizgen.engine.ptxas import arch_capability, demangler, parse_ptxas, with_display_names
from quizgen.kernels import KERNEL_DIR, load_catalogue


def find_nvcc(explicit: str | None = None) -> str | None:
    from quizgen.kernels import find_nvcc as on_path

    for candidate in (explicit, on_path(), "/usr/local/cuda/bin/nvcc"):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


def nvcc_version(nvcc: str) -> str:
    out = subprocess.run([nvcc, "--version"], capture_output=True, text=True, check=True).stdout
    found = re.search(r"release [^\n]*", out)
    return found.group(0).strip() if found else out.strip().splitlines()[-1]


def compile_log(nvcc: str, source: Path, archs: list[str]) -> str:
    """What `nvcc --resource-usage` prints for `source` on `archs` (Compile time lines dropped)."""
    cmd = [nvcc, "--resource-usage", "-O3", "-std=c++17"]
    for arch in archs:
        num = arch.split("_", 1)[1]
        cmd += ["-gencode", f"arch=compute_{num},code=sm_{num}"]
    cmd += ["-c", str(source), "-o", os.devnull]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"nvcc failed on {source.name}:\n{done.stderr}")
    text = done.stdout + done.stderr
    keep = [line for line in text.splitlines() if "Compile time" not in line]
    return "\n".join(keep) + "\n"


def supported_archs(nvcc: str, wanted: list[str]) -> tuple[list[str], list[str]]:
    out = subprocess.run([nvcc, "--list-gpu-arch"], capture_output=True, text=True).stdout
    have = {line.strip().replace("compute_", "sm_") for line in out.splitlines() if line.strip()}
    if not have:
        return wanted, []
    return [a for a in wanted if a in have], [a for a in wanted if a not in have]


def build(nvcc: str, out_dir: Path = KERNEL_DIR) -> dict:
    catalogue = load_catalogue()
    archs, missing = supported_archs(nvcc, catalogue["archs"])
    if missing:
        print(f"nvcc does not support {', '.join(missing)}; skipping them", file=sys.stderr)
    log_dir = out_dir / "ptxas"
    log_dir.mkdir(exist_ok=True)
    tool = demangler()
    found: dict[tuple[str, str], dict] = {}
    for source in sorted({k["source"] for k in catalogue["kernels"].values()}):
        log = compile_log(nvcc, out_dir / source, archs)
        (log_dir / f"{Path(source).stem}.log").write_text(log, encoding="utf-8")
        for usage in with_display_names(parse_ptxas(log), tool):
            found[(source, usage.shown)] = {usage.arch: usage, **found.get((source, usage.shown), {})}
    kernels = {}
    for key, meta in catalogue["kernels"].items():
        per_arch = found.get((meta["source"], meta["entry"]))
        if per_arch is None:
            raise SystemExit(f"{key}: no kernel named {meta['entry']!r} in the log of {meta['source']}"
                             + ("" if tool else " (no demangler found: install binutils for c++filt)"))
        kernels[key] = {arch: {**usage.to_dict(), "line": usage.line}
                        for arch, usage in sorted(per_arch.items(), key=lambda kv: float(arch_capability(kv[0])))}
    data = {"nvcc": nvcc_version(nvcc), "archs": archs, "missing_archs": missing, "kernels": kernels}
    (out_dir / "usage.json").write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m quizgen.build_kernels", description=__doc__.split("\n\n")[0])
    parser.add_argument("--nvcc", help="path to nvcc (default: $NVCC, PATH, /usr/local/cuda/bin/nvcc)")
    args = parser.parse_args(argv)
    nvcc = find_nvcc(args.nvcc)
    if nvcc is None:
        print("error: nvcc not found; install the CUDA toolkit or pass --nvcc PATH", file=sys.stderr)
        return 2
    data = build(nvcc)
    print(f"{len(data['kernels'])} kernels × {len(data['archs'])} architectures ({data['nvcc']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
