"""Re-importing a bank into Moodle: what its import does with idnumbers, and `--only-new`."""

from __future__ import annotations

import subprocess
import sys

from lms_readers import MoodleBank, read_moodle_xml


def _export(tmp_path, name, *args):
    out = tmp_path / name
    run = subprocess.run([sys.executable, "-m", "quizgen", "export", "occupancy-basics",
                          "--out", str(out), *args], capture_output=True, text=True,
                         encoding="utf-8", cwd=tmp_path)
    return run, out


def test_a_second_import_of_the_bigger_bank_drops_every_repeated_idnumber_and_only_new_keeps_all(
        tmp_path):
    first, a = _export(tmp_path, "a.xml", "--variants", "2")
    bigger, full = _export(tmp_path, "full.xml", "--variants", "4")
    more, b = _export(tmp_path, "b.xml", "--variants", "4", "--only-new", "a.xml")
    assert first.returncode == bigger.returncode == more.returncode == 0, more.stderr
    old, whole, new = (read_moodle_xml(p.read_bytes()) for p in (a, full, b))
    ids = lambda qs: {q.idnumber for q in qs}                       # noqa: E731
    assert ids(old) <= ids(whole) and not ids(old) & ids(new)
    assert ids(old) | ids(new) == ids(whole)
    assert f"({len(old)} already in a.xml left out)" in more.stdout

    naive = MoodleBank()                 # what the README warns about
    naive.import_questions(old)
    added, removed = naive.import_questions(whole)
    assert added == len(whole) and removed == len(old)
    kept = MoodleBank()                  # what --only-new gives
    kept.import_questions(old)
    added, removed = kept.import_questions(new)
    assert added == len(new) and removed == 0
    assert sum(len(v) for v in kept.entries.values()) == len(whole)


def test_only_new_refuses_what_is_not_a_moodle_bank_in_one_line(tmp_path):
    (tmp_path / "notes.xml").write_text("<html><body/></html>", encoding="utf-8")
    (tmp_path / "broken.xml").write_text("<quiz><question", encoding="utf-8")
    for name, message in [("missing.xml", "no such file"), ("notes.xml", "not a Moodle XML bank"),
                          ("broken.xml", "not a Moodle XML bank")]:
        run, out = _export(tmp_path, "x.xml", "--only-new", name)
        assert run.returncode == 2 and message in run.stderr, run.stderr
        assert run.stderr.startswith("error: only-new:") and run.stderr.count("\n") == 1
        assert not out.exists()
    _export(tmp_path, "a.xml", "--variants", "2")
    run, out = _export(tmp_path, "x.xml", "--variants", "2", "--only-new", "a.xml")
    assert run.returncode == 2 and "already in the previous one" in run.stderr
    assert not out.exists()


def test_only_new_given_twice_leaves_out_the_problems_of_both_banks(tmp_path):
    """A bank grown twice (2, then 4, then 6 variants): the third export is made against both
    banks already imported, and holds exactly what neither has."""
    _, a = _export(tmp_path, "a.xml", "--variants", "2")
    _, b = _export(tmp_path, "b.xml", "--variants", "4", "--only-new", "a.xml")
    _, full = _export(tmp_path, "full.xml", "--variants", "6")
    run, c = _export(tmp_path, "c.xml", "--variants", "6", "--only-new", "a.xml",
                     "--only-new", "b.xml")
    assert run.returncode == 0, run.stderr
    ids = lambda p: {q.idnumber for q in read_moodle_xml(p.read_bytes())}   # noqa: E731
    assert ids(c) == ids(full) - ids(a) - ids(b) and ids(c)
    assert not ids(c) & (ids(a) | ids(b))
    assert f"({len(ids(a) | ids(b))} already in a.xml, b.xml left out)" in run.stdout
    bank = MoodleBank()                  # the three imports: every idnumber kept, none twice
    for path in (a, b, c):
        added, removed = bank.import_questions(read_moodle_xml(path.read_bytes()))
        assert removed == 0
    assert sum(len(v) for v in bank.entries.values()) == len(ids(full))
