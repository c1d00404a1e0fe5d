"""Reading real compiler reports: `quizgen occupancy --ptxas` answers what the numbers typed by
hand answer, for every shipped kernel, architecture and three block sizes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from quizgen import kernels as shipped
from quizgen.cli import app
from quizgen.engine.ptxas import (arch_capability, base_name, demangle, find_kernels, parse_ptxas,
                                  with_display_names)
from quizgen.errors import QuizgenError

runner = CliRunner()
LOGS = shipped.KERNEL_DIR / "ptxas"

# Printed by nvcc 13.0 (`nvcc --resource-usage -arch=sm_80 -c t.cu`), word for word: an extern "C"
# kernel and a template instance, with the gmem and "Compile time" lines.
REAL_LOG = """\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'add' for 'sm_80'
ptxas info    : Function properties for add
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, used 0 barriers, 360 bytes cmem[0]
ptxas info    : Compile time = 11.763 ms
ptxas info    : Compiling entry function '_Z5sgemmILi16EEvPKfS1_Pfi' for 'sm_80'
ptxas info    : Function properties for _Z5sgemmILi16EEvPKfS1_Pfi
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 32 registers, used 1 barriers, 2048 bytes smem, 380 bytes cmem[0]
ptxas info    : Compile time = 9.083 ms
"""

# Printed by nvlink 13.0 for the same file compiled with -rdc=true and linked with --resource-usage.
REAL_NVLINK = """\
nvlink info    : 0 bytes gmem
nvlink info    : Function properties for 'add':
nvlink info    : used 8 registers, used 0 barriers, 0 stack, 0 bytes smem, 360 bytes cmem[0], 0 bytes lmem
nvlink info    : Function properties for '_Z5sgemmILi16EEvPKfS1_Pfi':
nvlink info    : used 32 registers, used 1 barriers, 0 stack, 2048 bytes smem, 380 bytes cmem[0], 0 bytes lmem
"""

# Older ptxas (before barriers were printed), with a split static size and local memory.
OLD_STYLE = """\
ptxas info    : Compiling entry function '_Z6kernelPf' for 'sm_70'
ptxas info    : Function properties for _Z6kernelPf
    16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 40 registers, 4096+16 bytes smem, 352 bytes cmem[0], 8 bytes cmem[2], 16 bytes lmem
"""


def test_a_real_log_reads_every_number():
    add, sgemm = parse_ptxas(REAL_LOG)
    assert (add.name, add.arch, add.registers, add.barriers, add.smem, add.cmem) == ("add", "sm_80", 8, 0, 0, {0: 360})
    assert (sgemm.name, sgemm.registers, sgemm.barriers, sgemm.smem, sgemm.cmem) == (
        "_Z5sgemmILi16EEvPKfS1_Pfi", 32, 1, 2048, {0: 380})
    assert sgemm.line == "Used 32 registers, used 1 barriers, 2048 bytes smem, 380 bytes cmem[0]"
    assert not sgemm.spills and sgemm.compute_capability == "8.0"


def test_nvlink_and_older_ptxas_reports():
    add, sgemm = parse_ptxas(REAL_NVLINK)
    assert (add.arch, add.registers, sgemm.registers, sgemm.smem, sgemm.barriers) == (None, 8, 32, 2048, 1)
    (old,) = parse_ptxas(OLD_STYLE)
    assert (old.registers, old.barriers, old.smem, old.cmem, old.lmem) == (40, None, 4112, {0: 352, 2: 8}, 16)
    assert (old.stack, old.spill_stores, old.spill_loads, old.spills) == (16, 8, 4, True)


def test_a_multi_kernel_multi_arch_log_with_spills():
    kernels = parse_ptxas((LOGS / "nbody_unrolled.log").read_text())
    archs = shipped.shipped_archs()
    assert len(kernels) == 3 * len(archs)
    assert {k.arch for k in kernels} == set(archs)
    spilled = [k for k in kernels if k.name == "_Z14nbody_unrolledILi4EEvPK6float4Pfi"]
    assert len(spilled) == len(archs)
    assert all(k.spills and k.registers == 64 and k.stack == 352 for k in spilled)
    assert all(not k.spills for k in kernels if k not in spilled)
    assert any(k.cmem for k in kernels) and any(not k.cmem for k in kernels)   # sm_90 prints no cmem


def test_not_a_log_is_one_line_error():
    with pytest.raises(QuizgenError, match="Used N registers"):
        parse_ptxas("hello\nworld\n")


@pytest.mark.parametrize("arch, cc", [("sm_75", "7.5"), ("sm_80", "8.0"), ("sm_90a", "9.0"), ("sm_100", "10.0")])
def test_arch_to_compute_capability(arch, cc):
    assert arch_capability(arch) == cc


def test_names_without_a_demangler_fall_back_to_the_symbol():
    names = demangle(["_Z10reduce_sumPKfPfi", "add"], tool="/nonexistent/c++filt")
    assert names == {"_Z10reduce_sumPKfPfi": "_Z10reduce_sumPKfPfi", "add": "add"}
    assert base_name("_Z10reduce_sumPKfPfi") == "reduce_sum"
    assert base_name("_ZN2ns6kernelILi4EEEvv") == "kernel"
    kernels = with_display_names(parse_ptxas(REAL_LOG), tool="/nonexistent/c++filt")
    assert [k.shown for k in kernels] == ["add", "_Z5sgemmILi16EEvPKfS1_Pfi"]
    assert find_kernels(kernels, "sgemm") == kernels[1:]


@pytest.mark.skipif(not shutil.which("c++filt"), reason="no demangler")
def test_names_are_demangled_when_a_demangler_exists():
    kernels = with_display_names(parse_ptxas(REAL_LOG))
    assert kernels[1].shown == "sgemm<16>(float const*, float const*, float*, int)"
    assert find_kernels(kernels, "sgemm<16>") == kernels[1:]


def test_shipped_logs_are_what_usage_json_says():
    usage = shipped.load_usage()
    seen = 0
    for log in sorted(LOGS.glob("*.log")):
        for k in parse_ptxas(log.read_text()):
            matches = [key for key, per in usage["kernels"].items()
                       if k.arch in per and per[k.arch]["symbol"] == k.name]
            assert len(matches) == 1, (log.name, k.name)
            recorded = shipped.kernel_usage(matches[0], k.arch)
            assert (recorded.registers, recorded.smem, recorded.barriers, recorded.cmem,
                    recorded.spill_stores, recorded.spill_loads, recorded.stack) == (
                k.registers, k.smem, k.barriers, k.cmem, k.spill_stores, k.spill_loads, k.stack)
            seen += 1
    assert seen == sum(len(per) for per in usage["kernels"].values())


def test_shipped_set_covers_the_kernels_and_architectures():
    keys = shipped.kernel_names()
    for wanted in ("sgemm_tiled_16", "reduce_sum", "stencil_2d", "histogram_atomic", "transpose_padded",
                   "softmax_rows", "nbody_unrolled_4"):
        assert wanted in keys
    assert {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90"} <= set(shipped.shipped_archs())
    assert any(shipped.kernel_usage(k, "sm_80").spills for k in keys)
    for key in keys:
        assert "__global__" in shipped.kernel_source(key)


def _invoke(*args: str):
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, (args, result.output)
    return result


def _by_hand(row: dict) -> dict:
    args = ["occupancy", "--gpu", row["gpu"], "--threads", str(row["threads_per_block"]),
            "--regs", str(row["ptxas"]["regs_per_thread"]), "--barriers", str(row["barriers"]), "--json"]
    if row["ptxas"]["smem_per_block"]:
        args += ["--smem", str(row["ptxas"]["smem_per_block"])]
    return json.loads(_invoke(*args).stdout)


@pytest.mark.parametrize("threads", [96, 256, 1024])
def test_ptxas_gives_the_same_answer_as_the_numbers_by_hand(threads):
    rows = []
    for log in sorted(LOGS.glob("*.log")):
        out = _invoke("occupancy", "--ptxas", str(log), "--threads", str(threads), "--json").stdout
        rows += [json.loads(line) for line in out.splitlines()]
    usage = shipped.load_usage()
    assert len(rows) == sum(len(per) for per in usage["kernels"].values())
    presets = {"sm_75": "t4", "sm_80": "a100", "sm_86": "a10", "sm_89": "rtx4090", "sm_90": "h100",
               "sm_100": "b200"}
    for row in rows:
        assert row["gpu"] == presets[row["arch"]]
        expected = _by_hand(row)
        got = {k: v for k, v in row.items() if k not in ("kernel", "arch", "ptxas")}
        assert got == expected, (row["kernel"], row["arch"], threads)


def test_table_kernel_and_gpu_warning_from_the_real_command():
    log = (LOGS / "sgemm_tiled.log").read_text()
    done = subprocess.run([sys.executable, "-m", "quizgen", "occupancy", "--ptxas", "-", "--gpu", "a100",
                           "--block", "sgemm_tiled<32>=32,32", "--block", "16,16", "--lang", "en"],
                          input=log, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "warning: the log's sm_75 code is for compute capability 7.5 but a100 has 8.0" in done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split()[:4] == ["kernel", "arch", "GPU", "block"]
    rows = [ln.split() for ln in lines[2:]]
    assert len(rows) == 3 * len(shipped.shipped_archs())     # sgemm_tiled<8>, <16>, <32>
    assert all(r[2] == "a100" for r in rows)
    if shutil.which("c++filt"):
        assert {r[3] for r in rows if r[0] == "sgemm_tiled<32>"} == {"32×32×1"}
        assert {r[3] for r in rows if r[0] == "sgemm_tiled<16>"} == {"16×16×1"}


def test_worked_solution_for_one_kernel_names_its_report():
    out = _invoke("occupancy", "--ptxas", str(LOGS / "nbody_unrolled.log"), "--kernel",
                  "_Z14nbody_unrolledILi4EEvPK6float4Pfi", "--arch", "sm_80", "--threads", "256",
                  "--lang", "en").stdout
    assert 'report for' in out and "Used 64 registers" in out
    assert "Spills: ptxas moved 152 B" in out
    assert "4 blocks/SM → 32 active warps" in out


def test_shipped_kernel_by_name_uses_its_block_and_dynamic_shared_memory():
    row = json.loads(_invoke("occupancy", "--kernel", "reduce_sum", "--arch", "sm_80", "--json").stdout)
    assert (row["threads_per_block"], row["dyn_smem"], row["regs_per_thread"]) == (
        128, 512, shipped.kernel_usage("reduce_sum", "sm_80").registers)


@pytest.mark.parametrize("args, message", [
    (["--ptxas", "/no/such/file.log", "--threads", "128"], "cannot read"),
    (["--ptxas", str(LOGS / "vector_add.log")], "needs a block size"),
    (["--ptxas", str(LOGS / "vector_add.log"), "--threads", "64", "--kernel", "nope"], "no kernel named"),
    (["--ptxas", str(LOGS / "vector_add.log"), "--threads", "64", "--arch", "sm_61"], "no kernel compiled for sm_61"),
    (["--ptxas", str(LOGS / "vector_add.log"), "--threads", "64", "--regs", "32"], "come from the compiler"),
    (["--kernel", "sgemm_tiled"], "names 3 shipped kernels"),
    (["--cu", "x.cu"], "--cu needs --arch"),
])
def test_bad_kernel_input_is_one_line_exit_2(args, message):
    done = subprocess.run([sys.executable, "-m", "quizgen", "occupancy", *args], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_cu_without_nvcc_says_so(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NVCC"}
    env["PATH"] = str(tmp_path)
    done = subprocess.run([sys.executable, "-m", "quizgen", "occupancy", "--cu",
                           str(shipped.KERNEL_DIR / "vector_add.cu"), "--arch", "sm_80", "--threads", "256"],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 2
    assert "nvcc is not on PATH" in done.stderr


NVCC = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if Path("/usr/local/cuda/bin/nvcc").is_file() else None)


@pytest.mark.skipif(NVCC is None, reason="nvcc not installed")
def test_cu_compiles_with_nvcc_and_matches_the_shipped_report():
    env = dict(os.environ, NVCC=NVCC)
    done = subprocess.run([sys.executable, "-m", "quizgen", "occupancy", "--cu",
                           str(shipped.KERNEL_DIR / "vector_add.cu"), "--arch", "sm_80", "--threads", "256",
                           "--json"], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    row = json.loads(done.stdout)
    assert row["regs_per_thread"] == shipped.kernel_usage("vector_add", "sm_80").registers
    assert row["gpu"] == "a100"


def test_dynamic_shared_memory_above_48_kb_needs_the_opt_in():
    base = ["occupancy", "--kernel", "softmax_cached", "--gpu", "h200", "--dyn-smem", "48KB", "--json"]
    without = json.loads(_invoke(*base).stdout)
    with_optin = json.loads(_invoke(*base, "--optin").stdout)
    assert without["blocks_per_sm"] == 0 and without["launch_fails"]
    assert with_optin["blocks_per_sm"] >= 1 and with_optin["optin"] == 49152
