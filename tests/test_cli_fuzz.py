"""Fuzzing the command line: random options and random input files through the real entry point.

Whatever it is given, quizgen exits 0, 1 or 2, never prints a traceback, and writes nothing
outside the output folder it was pointed at (no temporary left there either).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from conftest import with_answer_grid
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quizgen.cli import main

NASTY = ["", "0", "1", "-1", "2", "32", "256", "1,5", "1,500", "1e999999", "1e-999999", "1e30",
         ",32", "32,", "8,,4", "abc", "nan", "inf", "-0", "0.5", "1/3", "48KB", "1,5KB", "9" * 60,
         "२५६", "∞", "=1+1", "  7 ", "100000000000000000000", "32,8,2", "-5KB", "0x10"]

# option → values it is tried with ("{in}/NAME" is an input file, "{out}/NAME" an output)
COMMANDS: dict[str, dict[str, list[str]]] = {
    "occupancy": {
        "--gpu": ["a100", "h100", "textbook", "nope", "mine", ""],
        "--threads": NASTY, "--block": NASTY, "--regs": NASTY, "--smem": NASTY,
        "--dyn-smem": NASTY, "--optin-limit": NASTY, "--carveout": NASTY, "--barriers": NASTY,
        "--model": ["exact", "textbook", "x"], "--lang": ["en", "hinglish", "fr"],
        "--gpu-file": ["{in}/gpus.toml", "{in}", "{in}/missing.toml"],
        "--set": ["smem_per_sm=1,5", "num_sms=abc", "smem_carveout_kb=abc", "warp_size=0",
                  "nope=1", "max_warps_per_sm=9999999999999", "smem_carveout_kb=0,8,16"],
        "--plot": ["{out}/sweep.svg", "{out}", "{out}/no/such/x.svg"],
        "--batch": ["{in}/launches.jsonl", "{in}", "-"],
        "--json": [],
    },
    "warps": {"--block": NASTY, "--thread": NASTY, "--coords": NASTY, "--warp": NASTY,
              "--compare": NASTY, "--json": []},
    "latency": {"--latency": NASTY, "--work": NASTY, "--schedulers": NASTY,
                "--issue-interval": NASTY, "--max-warps": NASTY, "--resident": NASTY,
                "--throughput": NASTY, "--ilp": NASTY, "--json": []},
    "divergence": {"--branch": ["20:30", "12:30", "32:1e999999", ":", "1,5:2", "32:-1",
                                "0:0", "33:1", "x:y"] + NASTY,
                   "--baseline": NASTY, "--active-lanes": NASTY, "--json": []},
    "waves": {"--grid": NASTY, "--blocks-per-sm": NASTY, "--threads": NASTY, "--smem": NASTY,
              "--gpu": ["a100", "nope"], "--json": []},
    "bound": {"--load-bytes": NASTY, "--flops": NASTY, "--load-latency": NASTY,
              "--store-bytes": NASTY, "--flop-latency": NASTY, "--flops-per-cycle": NASTY,
              "--json": []},
    "generate": {"--cell": ["OCC-1", "W-B", "nope"], "--count": ["0", "1", "-1", "1e3", "abc",
                                                                "100000000000000000000"],
                 "--seed": NASTY, "--level": ["1", "2", "4", "x"],
                 "--format": ["md", "json", "html", "pdf"], "--lang": ["en", "fr"],
                 "--out": ["{out}/p.md", "{out}", "{out}/no/such/p.md"]},
    "check": {"--key": ["blocks_per_sm", "occupancy", "nope"], "--lang": ["en", "xx"],
              "--manifest": ["{in}/manifest.json", "{in}/answers.csv", "{in}"],
              "--given": ["occupancy=1", "x", "=", "blocks_per_sm=1e999999"], "--json": []},
    "grade": {"--out": ["{out}/graded", "{out}"], "--invalid": ["flag", "zero", "x"],
              "--lang": ["en", "xx"], "--format": ["md", "html", "pdf"], "--force": []},
    "regrade": {"--out": ["{out}/graded", "{out}"], "--invalid": ["flag", "zero", "x"],
                "--overrides": ["{in}/overrides.csv", "{in}", "{in}/missing.csv",
                                "{in}/answers.csv"],
                "--lang": ["en", "xx"], "--format": ["md", "html"]},
    "scan": {"--manifest": ["{in}/scan.json", "{in}/manifest.json", "{in}/answers.csv", "{in}"],
             "--out": ["{out}/scanned", "{out}"], "--dpi": ["50", "150", "100000", "x"],
             "--no-report": [], "--force": []},
    "export": {"--format": ["moodle", "gift", "qti", "pdf"], "--variants": ["0", "1", "2", "-1",
                                                                          "abc", "1e3", "100000"],
               "--answers": ["main", "all", "occupancy", "nope"], "--lang": ["en", "fr"],
               "--out": ["{out}/bank.xml", "{out}", "{out}/no/such/bank.xml", "{in}/recipe.toml"],
               "--no-figures": [], "--only-new": ["{in}/bank.xml", "{in}/answers.csv", "{in}"]},
}
POSITIONAL = {
    "check": [["{in}/problem.json", "25%"], ["-", "1"], ["{in}/manifest.json", "1"],
              ["{in}/problem.json", "1e999999"], ["OCC-3-x", "(((("]],
    # (grade's --out defaults to graded/ in the working folder: each line names one in {out})
    "grade": [["{in}/manifest.json", "{in}/answers.csv", "--out", "{out}/graded"],
              ["{in}/answers.csv", "{in}/manifest.json", "--out", "{out}/graded"],
              ["{in}/manifest.json", "{in}/problem.json", "--out", "{out}/graded"],
              ["{in}", "{in}/answers.csv", "--out", "{out}/graded"]],
    "regrade": [["{in}/manifest.json", "{in}/answers.csv", "--out", "{out}/graded"],
                ["{in}/scan.json", "{in}/answers.csv", "--out", "{out}/graded"],
                ["{in}/manifest.json", "{in}/answers.csv", "--out", "{out}/graded"]],
    "scan": [["{in}/page.png", "--manifest", "{in}/scan.json", "--out", "{out}/scanned"],
             ["{in}/answers.csv", "--manifest", "{in}/scan.json", "--out", "{out}/scanned"],
             ["{in}/page.png"]],
    # small banks only (a drawn --variants may still ask for more, and is refused above 1,000)
    "export": [["{in}/recipe.toml", "--variants", "1", "--out", "{out}/bank.xml"],
               ["occupancy-basics", "--variants", "1", "--out", "{out}/bank.xml"],
               ["{in}/answers.csv", "--out", "{out}/bank.xml"], ["nope", "--out", "{out}/b.xml"]],
}


# a sound command line that the drawn options then change (the last of a repeated option wins)
SOUND = {
    "occupancy": ["--threads", "256", "--regs", "32"],
    "warps": ["--block", "32,8"],
    "latency": ["--latency", "400", "--work", "20"],
    "divergence": ["--branch", "20:30", "--branch", "12:30"],
    "waves": ["--grid", "2000", "--blocks-per-sm", "8"],
    "bound": ["--load-bytes", "16", "--flops", "10", "--load-latency", "400"],
    "grade": ["--out", "{out}/graded"],
    "regrade": ["--out", "{out}/graded", "--overrides", "{in}/overrides.csv"],
    "scan": ["--manifest", "{in}/scan.json", "--out", "{out}/scanned"],
    "export": ["--out", "{out}/bank.xml"],
}


@st.composite
def command_lines(draw):
    name = draw(st.sampled_from(sorted(COMMANDS)))
    options = COMMANDS[name]
    args = [name, *draw(st.sampled_from(POSITIONAL.get(name, [[]])))]
    if draw(st.booleans()):
        args += SOUND.get(name, [])
    for option in draw(st.lists(st.sampled_from(sorted(options)), max_size=5)):
        args.append(option)
        if options[option]:
            args.append(draw(st.sampled_from(options[option])))
    if name == "generate" and "--cell" not in args:
        args += ["--cell", "OCC-2"]      # one cell, so that a valid run stays quick
    return args


def _json_bytes(value) -> bytes:
    return json.dumps(value).encode()


#: Override rows: sound, in conflict, unreadable, invisible characters, numbers beyond a float.
OVERRIDE_ROWS = ["A1,Q1.occupancy,1,,half", "A1,Q1.occupancy,0,,none", "*,Q1.occupancy,,25%,",
                 "A1,Q1.occupancy,,banana,", "*,q1.blocks_per_sm,,banana,", "\ufeffA1,Q1.occupancy,2,,",
                 "\u200bA1\u200b,Q1.blocks_per_sm,1e309,,", "A1,Q1.occupancy,inf,,",
                 "A1,Q1.occupancy,nan,,", "Z9,Q1.occupancy,1,,nobody", "A1,Q9.nope,1,,",
                 "\ufeffroll,box,points,accept,reason", "A1,Q1.occupancy,1,2,", ",,1,,",
                 "A1,Q1.occupancy,-1,,", "A1,Q1.occupancy,\"1,5\",,", "A1,Q1.occupancy,1/0,,"]

# a scan layout field → values that are wrong in type or range
LAYOUT_EDITS = {
    ("scan", "page_size"): [[1e6, 1e6], [0, 0], "a4", [210], None],
    ("scan", "marks"): [[], [[1e9, 1]], "x", [[1, 2, 3]] * 4],
    ("scan", "radius"): [-1, 0, 1e300, "x"],
    ("scan", "qr"): [[1e9, 0], None],
    ("sheet", "boxes"): ["abc", [1], [{"page": "x"}], None],
    ("sheet", "pages"): [0, 10**9, "2"],
    ("box", "places"): [10**9, -1, "3"],
    ("box", "page"): [99, 0, None],
    ("box", "bubbles"): [[[1, 2]], "x", [[1e9, 1e9, "p0", "1"]]],
    ("box", "kind"): ["essay", None],
}


@st.composite
def input_files(draw, problem: dict, manifest: dict, answers: str) -> dict[str, bytes]:
    """The input folder: each file either sound, slightly broken, or junk."""
    junk = st.one_of(st.binary(max_size=300),
                     st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")),
                     st.sampled_from([b"[" * 5000, b"{}", b"[]", b"null", b'"x"', b"\xff\xfe",
                                      b'{"students": ["x", 5]}', b"name\n\"unclosed,1\n"]))

    def broken_manifest():
        data = json.loads(json.dumps(manifest))
        question = data["students"][0]["questions"][0]
        field = draw(st.sampled_from(["number", "points", "asked", "answers", "tolerances"]))
        question[field] = draw(st.sampled_from(["x", "1e999999", -1, None, [], {}, 10**400]))
        return _json_bytes(data)

    def broken_problem():
        data = json.loads(json.dumps(problem))
        key = draw(st.sampled_from(sorted(data)))
        data[key] = draw(st.sampled_from(["x", None, [], {}, -1, 1e308]))
        return _json_bytes(data)

    def broken_scan_manifest():
        data = json.loads(json.dumps(SCAN_MANIFEST))
        where, values = draw(st.sampled_from(sorted(LAYOUT_EDITS.items(), key=str)))
        node = {"scan": data["scan"], "sheet": data["students"][0]["sheet"],
                "box": data["students"][0]["sheet"]["boxes"][0]}[where[0]]
        node[where[1]] = draw(st.sampled_from(values))
        return _json_bytes(data)

    overrides = st.lists(st.sampled_from(OVERRIDE_ROWS), max_size=4).map(
        lambda rows: ("roll,box,points,accept,reason\n" + "\n".join(rows) + "\n").encode())
    files = {
        "overrides.csv": draw(st.one_of(overrides, overrides, overrides, junk)),
        "scan.json": draw(st.one_of(st.just(_json_bytes(SCAN_MANIFEST)),
                                    st.builds(broken_scan_manifest), junk)),
        "page.png": draw(st.sampled_from([b"\x89PNG\r\n\x1a\n", b"", b"%PDF-1.4\n"])),
        "problem.json": draw(st.one_of(st.just(_json_bytes(problem)), st.builds(broken_problem),
                                       junk)),
        "manifest.json": draw(st.one_of(st.just(_json_bytes(manifest)),
                                        st.builds(broken_manifest), junk)),
        "answers.csv": draw(st.one_of(st.just(answers.encode("utf-8")),
                                      st.just(answers.replace(",,", ",=1+1,", 1).encode()), junk)),
        "gpus.toml": draw(st.one_of(
            st.just(b'[mine]\nbase = "a100"\nsmem_carveout_kb = [0, 8]\n'),
            st.sampled_from([b'[mine]\nbase = "a100"\nsmem_carveout_kb = "abc"\n',
                             b'[mine]\nbase = "a100"\nnum_sms = 1e9\n', b"[mine]\nx = 1\n",
                             b'[mine]\nbase = "nope"\n', b"mine = 5\n"]), junk)),
        "recipe.toml": draw(st.one_of(st.sampled_from(RECIPES), junk)),
        "bank.xml": draw(st.sampled_from([b"<quiz></quiz>", b"<quiz><question type=", b"",
                                          b"\xff\xfe<quiz/>"])),
        "launches.jsonl": b"\n".join(draw(st.lists(st.one_of(
            st.just(b'{"gpu": "a100", "threads_per_block": 256}'),
            st.builds(lambda n: b'{"threads_per_block": ' + str(n).encode() + b"}",
                      st.integers(-10, 10**30)),
            junk), max_size=5))),
    }
    return files


def _snapshot(root: Path, skip: Path) -> dict[str, str]:
    out = {}
    for dirpath, _, names in os.walk(root):
        for name in names:
            path = Path(dirpath) / name
            if skip in path.parents:
                continue
            out[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _run(args: list[str], stdin: bytes) -> tuple[object, str]:
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    old = sys.argv, sys.stdin
    sys.argv = ["quizgen", *args]
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main()
                code: object = 0
            except SystemExit as exc:
                code = exc.code
    finally:
        sys.argv, sys.stdin = old
    err.seek(0)
    return code, err.buffer.getvalue().decode("utf-8", "replace")


def _exam():
    from quizgen.export.sheet import plan_exam
    from quizgen.recipes import Student, parse_exam_recipe
    from quizgen.generator import generate_one

    recipe = {"title": "Fuzz", "lang": "en", "seed": 3,
              "questions": [{"cell": "OCC-3", "level": 1, "points": 4,
                             "answers": ["blocks_per_sm", "occupancy"]}]}
    plan = plan_exam(parse_exam_recipe(recipe), [Student(name="Asha", roll="A1")], None,
                     generate=generate_one)
    manifest = json.loads(plan.manifest_text())
    return manifest["students"][0]["questions"][0], manifest, plan.answers_csv


PROBLEM, MANIFEST, ANSWERS = _exam()


SCAN_MANIFEST = with_answer_grid(MANIFEST)

#: Deck and exam recipes a teacher may hand `export`: sound, and each broken one way.
RECIPES = [b'cells = ["OCC-2", "W-B"]\nper_cell = 1\nlevels = [1]\n',
           b'title = "Q"\n[[questions]]\ncell = "OCC-3"\npoints = 2\n',
           b'title = "Q\x01\xef\xbf\xbe"\n[[questions]]\ncell = "W-B"\npoints = 1e309\n',
           b'cells = ["nope"]\n', b'cells = "OCC-2"\nlevels = [7]\n', b'per_cell = 1e999\n',
           b'title = "Q"\n[lms]\npartial = { no_such_trap = 50 }\n[[questions]]\ncell = "OCC-2"\n',
           b'title = "Q"\nquestions = 5\n', b"[[[\n"]


@settings(max_examples=160, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(command_lines(), input_files(PROBLEM, MANIFEST, ANSWERS), st.binary(max_size=200))
def test_any_command_line_exits_0_1_or_2_and_writes_only_its_output(args, files, stdin):
    root = Path(tempfile.mkdtemp(prefix="quizgen-fuzz-"))
    cwd = os.getcwd()
    try:
        inputs, out = root / "in", root / "out"
        inputs.mkdir()
        out.mkdir()
        for name, data in files.items():
            (inputs / name).write_bytes(data)
        args = [a.replace("{in}", str(inputs)).replace("{out}", str(out)) for a in args]
        before = _snapshot(root, out)
        os.chdir(root)                      # a write to the working folder would show too
        code, err = _run(args, stdin)
        os.chdir(cwd)
        assert code in (0, 1, 2, None), (args, code, err)
        assert "Traceback" not in err, (args, err)
        if code == 2:                       # one error line (after any warnings)
            lines = err.strip().splitlines()
            assert [line for line in lines if not line.startswith("warning: ")] == lines[-1:]
            assert lines[-1].startswith("error: "), (args, err)
        assert _snapshot(root, out) == before, args
        assert not [p for p in out.rglob("*") if p.name.endswith(".tmp")], args
    finally:
        os.chdir(cwd)
        shutil.rmtree(root, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# Manifests and overrides, edited anywhere

ODD_VALUES = [None, True, -1, 0, 1e300, 10**400, "x", "", [], {}, [1e6, 1e6], [[]], {"a": 1},
              "\ufeff\u200b", 2**63, -0.5]


def _paths(node, prefix=()):
    """Every place in a JSON value (as a path of keys and indices), the value itself first."""
    yield prefix
    if isinstance(node, dict):
        for key in sorted(node):
            if key not in ("solution", "figure", "question"):     # long texts: nothing read
                yield from _paths(node[key], prefix + (key,))
    elif isinstance(node, list):
        for i, item in enumerate(node[:3]):
            yield from _paths(item, prefix + (i,))


SCAN_PATHS = [p for p in _paths(SCAN_MANIFEST) if p]


@st.composite
def edited_manifests(draw):
    data = json.loads(json.dumps(SCAN_MANIFEST))
    for path in draw(st.lists(st.sampled_from(SCAN_PATHS), min_size=1, max_size=3)):
        node = data
        try:
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = draw(st.sampled_from(ODD_VALUES))
        except (KeyError, IndexError, TypeError):
            pass                         # an earlier edit replaced the way there
    return json.dumps(data).encode()


def _check_run(args: list[str], files: dict[str, bytes]) -> None:
    root = Path(tempfile.mkdtemp(prefix="quizgen-fuzz-"))
    cwd = os.getcwd()
    try:
        inputs, out = root / "in", root / "out"
        inputs.mkdir()
        out.mkdir()
        for name, data in files.items():
            (inputs / name).write_bytes(data)
        args = [a.replace("{in}", str(inputs)).replace("{out}", str(out)) for a in args]
        before = _snapshot(root, out)
        os.chdir(root)
        code, err = _run(args, b"")
        os.chdir(cwd)
        assert code in (0, 1, 2, None), (args, code, err)
        assert "Traceback" not in err, (args, err)
        if code == 2:
            lines = err.strip().splitlines()
            assert [line for line in lines if not line.startswith("warning: ")] == lines[-1:]
            assert lines[-1].startswith("error: "), (args, err)
        assert all(line.isprintable() for line in err.splitlines()), err
        assert _snapshot(root, out) == before, args
    finally:
        os.chdir(cwd)
        shutil.rmtree(root, ignore_errors=True)


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(edited_manifests(), st.sampled_from(["scan", "grade", "check"]))
def test_a_manifest_edited_anywhere_is_used_or_refused_in_one_line(manifest, command):
    args = {"scan": ["scan", "{in}/page.png", "--manifest", "{in}/m.json", "--out", "{out}/s"],
            "grade": ["grade", "{in}/m.json", "{in}/answers.csv", "--out", "{out}/g"],
            "check": ["check", PROBLEM["id"], "1", "--manifest", "{in}/m.json"]}[command]
    _check_run(args, {"m.json": manifest, "answers.csv": ANSWERS.encode("utf-8"),
                      "page.png": b"\x89PNG\r\n\x1a\n"})


ROLLS = st.one_of(st.sampled_from(["A1", "a1", "*", "\ufeffA1", "A\u200b1", "Z9", ""]),
                  st.just(MANIFEST["students"][0]["version"]), st.text(max_size=6))
BOXES = st.one_of(st.sampled_from(["Q1.occupancy", "q1.blocks_per_sm", " Q1 . occupancy ",
                                   "Q1.nope", "Q2.occupancy", "occupancy", ""]), st.text(max_size=6))
POINTS = st.one_of(st.sampled_from(["0", "1", "2", "0.5", "1,5", "1/3", "4", "5", "1e309", "inf",
                                    "nan", "-1", "=1+1", "1e-400", "10000000"]),
                   st.text(max_size=5))
ACCEPTS = st.one_of(st.sampled_from(["25%", "0.25", "4", "banana", "1/4", "yes", "shared memory",
                                     "\u200b25%"]), st.text(max_size=6))
OVERRIDE = st.one_of(
    st.tuples(ROLLS, BOXES, POINTS, st.just(""), st.text(max_size=10)),
    st.tuples(ROLLS, BOXES, st.just(""), ACCEPTS, st.text(max_size=10)),
    st.lists(st.one_of(ROLLS, POINTS, ACCEPTS), max_size=6))


@settings(max_examples=50, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(OVERRIDE, max_size=5), st.sampled_from([",", ";", "\t"]))
def test_any_overrides_file_is_applied_or_refused_in_one_line(rows, delimiter):
    lines = [delimiter.join(["roll", "box", "points", "accept", "reason"])]
    lines += [delimiter.join(cell.replace(delimiter, " ").replace("\n", " ").replace('"', "")
                             for cell in row) for row in rows]
    _check_run(["regrade", "{in}/manifest.json", "{in}/answers.csv", "--out", "{out}/g",
                "--overrides", "{in}/o.csv"],
               {"manifest.json": _json_bytes(MANIFEST), "answers.csv": ANSWERS.encode("utf-8"),
                "o.csv": ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")})
