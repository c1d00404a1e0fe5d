"""The README is run as written: every command in it, from an empty folder, in its order.

A teacher's inputs are made the way a classroom makes them (a roster saved by Excel: BOM, CRLF,
a Devanagari name, a quoted comma; answers typed into the blank answer sheet; the README's own
overrides.csv and batch line), and each README line runs in one shell, with `quizgen` and
`python3` meaning this interpreter (`sys.executable -m quizgen`), never what PATH holds. A line
that is added to the README is run by this test the day it is added; one that cannot run here
(the install lines, nvcc without a CUDA toolkit, the full-size benchmarks) is listed in
`NOT_HERE` with where it is run instead, and a stale entry fails.

The two set-up lines at the top are run by `test_setup_lines_on_the_system_python`: a fresh
copy of the checkout, the OS's own Python (/usr/bin/python3 where there is one: on Debian it
refuses a bare `pip install`, PEP 668), a new virtual environment, the deck built.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from quizgen.problems import CELLS

from conftest import REPO

README = REPO / "README.md"

#: README lines not run by `test_every_readme_command`, and where each is run instead.
NOT_HERE = {
    "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/quizgen deck --out quizgen-course.apkg":
        "test_setup_lines_on_the_system_python",
    "python3 -m venv .venv && .venv/bin/pip install '.[test]' && .venv/bin/python -m pytest -q":
        "CI (.ci/run runs it; test_ci_runs_the_readme_test_command checks that); its install "
        "part by test_setup_lines_on_the_system_python",
    '.venv/bin/python -m pytest -q -m "not slow"': "the suite itself (test_quick_subset_is_marked)",
    ".venv/bin/pip install '.[scan]'": "test_setup_lines_on_the_system_python",
    "python3 bench/run.py": "full sizes take minutes; `--smoke` runs here, the same code",
    "python3 bench/run.py --quick": "minutes; `--smoke` runs here, the same code",
}
#: Lines that need the CUDA compiler: run when nvcc is installed.
NEEDS_NVCC = ("nvcc ", "--cu ")


def readme_commands(text: str | None = None) -> list[str]:
    """Every command line of the README's indented blocks, without its trailing comment."""
    text = README.read_text(encoding="utf-8") if text is None else text
    commands = []
    for line in text.splitlines():
        if not line.startswith("    ") or line.startswith("     "):
            continue
        body = line.strip()
        words = body.split()
        first = next((w for w in words if not re.fullmatch(r"[A-Z_]+=\S*", w)), "")
        if first not in ("quizgen", "python3", "nvcc", "cat") and not first.startswith(".venv/bin/"):
            continue
        commands.append(_without_comment(body))
    return commands


def _without_comment(line: str) -> str:
    """The line up to a `#` that starts a shell comment (outside quotes, after a space)."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and i > 0 and line[i - 1] == " ":
            return line[:i].rstrip()
    return line.rstrip()


def test_readme_commands_are_found_and_not_here_is_current():
    commands = readme_commands()
    assert len(commands) > 40
    assert commands[0].startswith("python3 -m venv .venv && ")
    assert "quizgen sheet midterm --versions 30 --out practice/ --practice" in commands
    assert _without_comment('quizgen check Q1 "a # b"   # note') == 'quizgen check Q1 "a # b"'
    stale = [line for line in NOT_HERE if line not in commands]
    assert not stale, f"NOT_HERE lists lines the README no longer has: {stale}"


# ---------------------------------------------------------------------------------------------
# The teacher's inputs

ROSTER_NAMES = ["Asha Verma", "Rahul Gupta", "Sneha Iyer", "अनन्या शर्मा", "Kumar, Vikram",
                "Priya Nair", "Arjun Reddy", "Meera Pillai", "Farhan Ali", "Divya Menon",
                "Rohan Das", "Ishita Bose"]


def _roster(path: Path) -> None:
    """As Excel saves 'CSV UTF-8': a byte-order mark, CRLF, quotes where a cell has a comma."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["Roll No", "Student Name", "Section"])
    for i, name in enumerate(ROSTER_NAMES, 1):
        writer.writerow([f"R{i:02d}", name, "A" if i % 2 else "B"])
    path.write_bytes(b"\xef\xbb\xbf" + out.getvalue().encode("utf-8"))


def _typed_answers(folder: Path, sheet: str) -> None:
    """The blank answer sheet with answers typed in: the key's for most boxes (written as a
    student writes them), a wrong one here and there, one a spreadsheet made a date."""
    from quizgen.render.answers import answer_text

    manifest = json.loads((folder / "midterm" / "manifest.json").read_text(encoding="utf-8"))
    by_version = {s["version"]: s for s in manifest["students"]}
    with open(folder / "midterm" / "answers.csv", encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.reader(fh))
    head = rows[0]
    for n, row in enumerate(rows[1:]):
        student = by_version[row[head.index("version")]]
        for question in student["questions"]:
            for key in question["asked"]:
                column = head.index(f"Q{question['number']}.{key}")
                value = question["answers"][key]
                text = answer_text(value, question["units"].get(key, ""), "en")
                if (n + column) % 7 == 0 and isinstance(value, (int, float)) \
                        and not isinstance(value, bool):
                    text = str(value + 1)
                row[column] = text
    rows[1][head.index("Q1.occupancy")] = "3/8/2026"
    with open(folder / sheet, "w", encoding="utf-8-sig", newline="") as fh:
        csv.writer(fh, lineterminator="\r\n").writerows(rows)


def _readme_block(first_line: str) -> str:
    lines = README.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == first_line)
    block = []
    for line in lines[start:]:
        if line.strip() and not line.startswith("    "):
            break
        block.append(line.strip())
    return "\n".join(block).strip() + "\n"


def _filled_review(folder: Path) -> None:
    """The teacher's readings of the doubtful boxes: every one read as blank (the papers
    were handed in empty), in review.csv's answer column."""
    path = folder / "scanned" / "review.csv"
    with open(path, encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.reader(fh))
    at = rows[0].index("answer")
    for row in rows[1:]:
        row[at] = "blank"
    with open(path, "w", encoding="utf-8-sig", newline="") as fh:
        csv.writer(fh).writerows(rows)


def _templates_copy(home: Path) -> None:
    """~/my-templates: a full copy of the templates with a language xx (the English files)."""
    from quizgen.resources import data_dir

    target = home / "my-templates"
    shutil.copytree(data_dir("templates"), target)
    for english in [*target.glob("phrases/*.en.toml"), *target.glob("concepts/*.en.toml")]:
        text = english.read_text(encoding="utf-8")
        text = text.replace('name = "English"\nhtml = "en"', 'name = "Xx"\nhtml = "x-xx"')
        english.with_name(english.name.replace(".en.", ".xx.")).write_text(text, encoding="utf-8")


def _build_log(folder: Path) -> None:
    """What `nvcc --resource-usage` printed for two kernels (a shipped compiler report)."""
    shipped = REPO / "quizgen" / "data" / "kernels" / "ptxas"
    reports = [shipped / "reduce_sum.log", shipped / "sgemm_tiled.log"]
    (folder / "build.log").write_text("".join(p.read_text(encoding="utf-8") for p in reports),
                                      encoding="utf-8")


def _prepare(folder: Path, command: str) -> None:
    """Make the inputs a command reads that the README's earlier commands did not write."""
    if "class.csv" in command and not (folder / "class.csv").exists():
        _roster(folder / "class.csv")
    if "filled-answers.csv" in command and not (folder / "filled-answers.csv").exists():
        _typed_answers(folder, "filled-answers.csv")
    if "overrides.csv" in command and not (folder / "overrides.csv").exists():
        (folder / "overrides.csv").write_text(_readme_block("roll,box,points,accept,reason"),
                                              encoding="utf-8")
    if "launches.jsonl" in command and not (folder / "launches.jsonl").exists():
        readme = README.read_text(encoding="utf-8")
        lines = re.findall(r"`(\{\"gpu\": [^`]*\})`", readme)
        assert len(lines) >= 2, "the README's --batch example lines"
        (folder / "launches.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    if "class.pdf" in command and not (folder / "class.pdf").exists():
        # the printed papers, handed in without a mark on them, scanned as one PDF
        shutil.copy(folder / "midterm" / "exam.pdf", folder / "class.pdf")
    if "--fix scanned/review.csv" in command:
        _filled_review(folder)
    if "build.log" in command and not (folder / "build.log").exists():
        _build_log(folder)
    if "kernels.cu" in command and not (folder / "kernels.cu").exists():
        shutil.copy(REPO / "quizgen" / "data" / "kernels" / "reduce_sum.cu", folder / "kernels.cu")
    if "QUIZGEN_TEMPLATES=~/my-templates" in command and not (folder / "home" / "my-templates").exists():
        _templates_copy(folder / "home")


def _quizgen(folder: Path, *args: str) -> None:
    subprocess.run([sys.executable, "-m", "quizgen", *args], cwd=folder, check=True,
                   capture_output=True, timeout=120)


def _shims(folder: Path) -> Path:
    """A bin folder where `quizgen` and `python3` are this interpreter."""
    bin_dir = folder / ".bin"
    bin_dir.mkdir()
    for name, target in (("quizgen", f'"{sys.executable}" -m quizgen'),
                         ("python3", f'"{sys.executable}"')):
        shim = bin_dir / name
        shim.write_text(f'#!/bin/sh\nexec {target} "$@"\n', encoding="utf-8")
        shim.chmod(0o755)
    return bin_dir


def _expected_exit(command: str) -> set[int]:
    # `check` says right (0) or wrong (1); the typed answer is not necessarily the right one
    return {0, 1} if command.startswith("quizgen check ") else {0}


def _outputs(command: str) -> list[str]:
    words = shlex.split(command)
    return [words[i + 1] for i, w in enumerate(words[:-1]) if w == "--out"]


@pytest.mark.slow
def test_every_readme_command(tmp_path):
    folder = tmp_path / "course"
    (folder / "home").mkdir(parents=True)
    bin_dir = _shims(folder)
    env = {**os.environ, "HOME": str(folder / "home"),
           "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
           "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH"))
                                         if p)}
    env.pop("QUIZGEN_TEMPLATES", None)
    has_nvcc = shutil.which("nvcc") is not None or Path("/usr/local/cuda/bin/nvcc").exists()
    if has_nvcc:
        env["PATH"] += os.pathsep + "/usr/local/cuda/bin"
    ran = []
    for command in readme_commands():
        if command in NOT_HERE or (any(t in command for t in NEEDS_NVCC) and not has_nvcc):
            continue
        if command.startswith("python3 -m quizgen.build_data"):
            command = "python3 -m quizgen.build_data --check"   # it writes into the package
        _prepare(folder, command)
        # the benchmarks live in the checkout (and the sdist), not in the installed package
        where = REPO if command.startswith("python3 bench/") else folder
        done = subprocess.run(["bash", "-c", f"set -o pipefail; {command}"], cwd=where, env=env,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode in _expected_exit(command), \
            f"README line failed ({done.returncode}): {command}\n{done.stderr[-2000:]}"
        assert "Traceback" not in done.stderr, (command, done.stderr[-2000:])
        for out in _outputs(command):
            assert (folder / out).exists(), f"{command}: wrote no {out}"
        ran.append(command)
    # the big ones did run, and wrote what the README says
    assert any(c.startswith("quizgen regrade ") for c in ran)
    assert (folder / "graded" / "changes.csv").is_file()
    assert (folder / "midterm" / "key.pdf").is_file()
    with open(folder / "graded" / "results.csv", encoding="utf-8-sig") as fh:
        results = list(csv.DictReader(fh))
    assert len(results) == len(ROSTER_NAMES)
    assert len(ran) >= len(readme_commands()) - len(NOT_HERE) - 3


#: The files a teacher brings (the README says what each is); every other file a README line
#: reads is written by a line before it.
TEACHERS_FILES = ("class.csv", "filled-answers.csv", "overrides.csv", "launches.jsonl",
                  "class.pdf", "build.log", "kernels.cu", "scanned/review.csv")


def _last_of_pipe(command: str) -> list[str]:
    """The words of a command line's last command, read as a shell reads them (a `|` inside
    quotes, as in a condition `a || b`, is part of its word)."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars="|")
    lexer.whitespace_split = True
    tokens = list(lexer)
    pipes = [i for i, t in enumerate(tokens) if set(t) == {"|"}]
    return tokens[pipes[-1] + 1:] if pipes else tokens


def test_a_readme_line_reads_only_what_an_earlier_line_wrote_or_the_teacher_brings():
    """From an empty folder, in order: a recipe file is copied out before it is built, an exam
    folder is made before it is graded, and the benchmarks (not in the installed package) are
    introduced as a checkout's."""
    text = README.read_text(encoding="utf-8")
    made: set[str] = set()
    for command in readme_commands():
        words = _last_of_pipe(command)
        if words[:3] == ["quizgen", "recipe", "copy"]:
            made.add(words[-1])
            continue
        for word in words:
            if word in TEACHERS_FILES or word.startswith("-"):
                continue
            if word.endswith(".toml") and not word.startswith(("decks/", "~")):
                assert word in made, f"{command}: {word} is read before a line writes it"
            if word.endswith("/manifest.json"):
                assert word.split("/")[0] in made, f"{command}: {word} before its sheet"
        made.update(out.rstrip("/") for out in _outputs(command))
    bench = text.index("    python3 bench/run.py ")
    assert "checkout" in text[text.rindex("\n\n", 0, bench - 1):bench]
    assert "decks/exams/" not in " ".join(readme_commands())


def test_readme_python_block_is_true():
    block = _readme_block("from quizgen import get_gpu, launch_config, occupancy")
    lines = block.splitlines()
    namespace: dict = {}
    for line in filter(None, lines):
        code, _, comment = line.partition("#")
        code = code.strip()
        if comment.strip().startswith("(") and code:
            assert repr(eval(code, namespace)) == comment.strip(), line  # the comment's value
        else:
            exec(code, namespace)
    assert namespace["problem"].cell == "OCC-2"


def test_ci_runs_the_readme_test_command():
    script = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert 'lines.index("Install and run the tests:")' in script
    assert 'bash -c "$test_command"' in script
    lines = README.read_text(encoding="utf-8").splitlines()
    at = lines.index("Install and run the tests:")
    command = next(line.strip() for line in lines[at + 1:] if line.startswith("    "))
    assert command == readme_commands()[1]


def test_quick_subset_is_marked():
    """`-m "not slow"` leaves out the end-to-end checks and keeps the fast ones."""
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", "not slow",
                           str(REPO / "tests")], capture_output=True, text=True, cwd=REPO,
                          timeout=300)
    assert done.returncode == 0, done.stdout[-2000:]
    chosen = [line for line in done.stdout.splitlines() if "::" in line]
    assert not any("test_readme.py::test_every_readme_command" in c for c in chosen)
    assert not any("test_cards_in_chromium.py" in c for c in chosen)
    assert any("test_parse.py" in c for c in chosen)


def _system_python() -> str:
    """The OS's Python where there is one (Debian's refuses a bare pip install), else this one."""
    for candidate in ("/usr/bin/python3",):
        if Path(candidate).exists():
            version = subprocess.run([candidate, "-c", "import sys; print(sys.version_info >= (3, 11))"],
                                     capture_output=True, text=True, timeout=60).stdout.strip()
            if version == "True":
                return candidate
    return sys.executable


def _fresh_copy(target: Path) -> None:
    """The checkout as a fresh clone has it: the files git knows, as they are now."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=REPO, capture_output=True, timeout=120)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    for rel in filter(None, listed.stdout.decode("utf-8").split("\0")):
        source = REPO / rel
        if source.is_file():
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / rel)


@pytest.mark.slow
def test_setup_lines_on_the_system_python(tmp_path):
    clone = tmp_path / "quizgen"
    _fresh_copy(clone)
    python = _system_python()
    deck_line = readme_commands()[0]
    # the README's line as written, with python3 being the OS's interpreter
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run(["bash", "-c", deck_line.replace("python3 ", f"{shlex.quote(python)} ", 1)],
                          cwd=clone, env=env, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (clone / "quizgen-course.apkg").stat().st_size > 100_000
    # the deck's summary is its last line (pip's lines come before it), progress on stderr
    assert re.match(rf"\d+ notes, \d+ cards, {len(CELLS)} cells", done.stdout.splitlines()[-1]), done.stdout
    assert re.search(r"^deck: [\d,]+/[\d,]+ problems", done.stderr, re.M) or \
        "notes" not in done.stderr
    venv = clone / ".venv" / "bin"
    version = subprocess.run([str(venv / "quizgen"), "--version"], capture_output=True, text=True,
                             timeout=120, cwd=tmp_path)
    assert version.stdout.startswith("quizgen "), version
    # the test line's install and the scan extra, into the same environment (the tests
    # themselves are what CI runs), then the test runner collects the suite of the copy
    for extra in ("'.[test]'", "'.[scan]'"):
        done = subprocess.run(["bash", "-c", f".venv/bin/pip install -q {extra}"], cwd=clone,
                              env=env, capture_output=True, text=True, timeout=1800)
        assert done.returncode == 0, done.stderr[-3000:]
    done = subprocess.run([str(venv / "python"), "-m", "pytest", "--collect-only", "-q",
                           "tests/test_parse.py"], cwd=clone, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0 and "test_parse.py::" in done.stdout, done.stdout[-2000:]
    scan = subprocess.run([str(venv / "python"), "-c", "import cv2, pypdfium2, zxingcpp"],
                          capture_output=True, text=True, timeout=120)
    assert scan.returncode == 0, scan.stderr
