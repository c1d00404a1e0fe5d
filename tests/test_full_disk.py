"""A disk that fills up mid-write: every writer says so in one line and exits 2, no traceback,
and what an earlier run wrote stays as it was. The full disk is a file-size limit
(RLIMIT_FSIZE) on the command's process, as a user runs it."""

from __future__ import annotations

import os
import resource
import subprocess
import sys

import pytest

from conftest import CLASS_RECIPE, CLASS_ROSTER, make_class

#: Room for a line or two, not for any deck, page or bank.
ROOM = 4096


def _limited(args, cwd, room=ROOM):
    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (room, room))

    return subprocess.run([sys.executable, "-m", "quizgen", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=600, preexec_fn=limit,
                          env={**os.environ, "TMPDIR": str(cwd)})


COMMANDS = {
    "anki deck": (["deck", "occupancy-basics", "--out", "d.apkg", "-q"], "d.apkg"),
    "skill deck": (["deck", "occupancy-basics", "--skills", "--variants", "3", "--out",
                    "d.apkg", "-q"], "d.apkg"),
    "obsidian": (["deck", "occupancy-basics", "--format", "obsidian", "--out", "v", "-q"],
                 "v/OCC-1.hinglish.md"),
    "moodle bank": (["export", "midterm", "--format", "moodle", "--out", "b.xml"], "b.xml"),
    "preview": (["preview", "occupancy-basics", "--out", "site", "-q"], "site/index.html"),
}


@pytest.mark.parametrize("what", list(COMMANDS))
def test_a_full_disk_is_one_line_and_the_earlier_output_stays(what, tmp_path):
    args, output = COMMANDS[what]
    first = subprocess.run([sys.executable, "-m", "quizgen", *args], cwd=tmp_path,
                           capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stderr
    before = (tmp_path / output).read_bytes()
    args = [a if a != "occupancy-basics" else "default" for a in args]   # another, larger build
    if what == "moodle bank":
        args += ["--variants", "3"]
    done = _limited(args + (["--force"] if what == "obsidian" else []), tmp_path)
    said = done.stderr.strip()
    assert done.returncode == 2, said
    assert len(said.splitlines()) == 1 and "Traceback" not in said, said
    assert (tmp_path / output).read_bytes() == before


def test_grade_with_follow_up_decks_on_a_full_disk(tmp_path):
    klass = make_class(tmp_path, CLASS_RECIPE, CLASS_ROSTER,
                       lambda roll, n, box, right: "7")
    done = _limited(["grade", klass.manifest, klass.answers, "--out", "g", "--remedial", "fu",
                     "-q"], tmp_path, room=64 << 10)
    said = done.stderr.strip()
    assert done.returncode == 2 and len(said.splitlines()) == 1 and "Traceback" not in said, said
    assert not (tmp_path / "fu").exists() or not list((tmp_path / "fu").glob("*.apkg"))
