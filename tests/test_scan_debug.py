"""`quizgen scan --debug DIR`: the pictures go into a folder of their own like every output
(a user's file there is never replaced), and a disk that fills up is one line and exit 2, the
answers of an earlier scan intact. Run as a user runs it."""

from __future__ import annotations

import json
import resource
import subprocess
import sys

import pytest

pytest.importorskip("cv2")
pytest.importorskip("pypdfium2")

RECIPE = {"title": "Debug pictures", "lang": "en", "seed": 4,
          "questions": [{"cell": "OCC-2", "level": 1, "space": 0.3}]}


@pytest.fixture(scope="module")
def scanned(tmp_path_factory):
    """An exam with answer grids for one student, and its blank pages as a scan at 150 dpi."""
    from quizgen.export.sheet import build_exam
    from quizgen.generator import generate_one
    from quizgen.recipes import parse_exam_recipe
    from quizgen.scan.synth import images_to_pdf
    import pypdfium2 as pdfium

    base = tmp_path_factory.mktemp("scan-debug")
    build_exam(parse_exam_recipe(RECIPE), None, 1, base / "exam", generate=generate_one,
               bubbles=True)
    pages = [page.render(scale=150 / 72, grayscale=True).to_numpy()
             for page in pdfium.PdfDocument(str(base / "exam" / "exam.pdf"))]
    import cv2

    pages = [cv2.imencode(".jpg", p[..., 0] if p.ndim == 3 else p)[1].tobytes() for p in pages]
    images_to_pdf(pages, str(base / "class.pdf"), 150)
    manifest = json.loads((base / "exam" / "manifest.json").read_text(encoding="utf-8"))
    return base, manifest["students"][0]["version"]


def _scan(base, cwd, *extra, fsize: int | None = None):
    def limit():
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    return subprocess.run([sys.executable, "-m", "quizgen", "scan", str(base / "class.pdf"),
                           "--manifest", str(base / "exam" / "manifest.json"), "--dpi", "150",
                           "--no-report", *extra], cwd=cwd, capture_output=True, text=True,
                          timeout=300, preexec_fn=limit)


def test_a_users_file_in_the_debug_folder_is_never_replaced(scanned, tmp_path):
    base, version = scanned
    done = _scan(base, tmp_path, "--out", "s1", "--debug", "dbg")
    assert done.returncode == 0, done.stderr
    pictures = sorted(p.name for p in (tmp_path / "dbg").glob("*.png"))
    assert pictures and all(name.startswith(version) for name in pictures)
    assert (tmp_path / "dbg" / pictures[0]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # a re-run replaces quizgen's own pictures without a word
    done = _scan(base, tmp_path, "--out", "s1", "--debug", "dbg")
    assert done.returncode == 0 and "kept" not in done.stderr, done.stderr
    # a picture of the user's own under a debug page's name: refused, then kept with --force
    mine = tmp_path / "dbg" / pictures[0]
    mine.write_bytes(b"my own drawing")
    done = _scan(base, tmp_path, "--out", "s2", "--debug", "dbg")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert pictures[0] in done.stderr and "--force" in done.stderr
    assert mine.read_bytes() == b"my own drawing" and not (tmp_path / "s2").exists()
    done = _scan(base, tmp_path, "--out", "s2", "--debug", "dbg", "--force")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "dbg" / f"{pictures[0]}.kept").read_bytes() == b"my own drawing"
    assert mine.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and "kept as" in done.stderr


def test_the_out_folder_is_not_a_debug_folder(scanned, tmp_path):
    base, _ = scanned
    done = _scan(base, tmp_path, "--out", "s", "--debug", "s")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert not (tmp_path / "s").exists()


def test_a_full_disk_is_one_line_and_exit_2_with_earlier_answers_intact(scanned, tmp_path):
    base, _ = scanned
    done = _scan(base, tmp_path, "--out", "s", "--force")
    assert done.returncode == 0, done.stderr
    before = (tmp_path / "s" / "answers.csv").read_bytes()
    # room for the answers (a few KB) but not for one page's picture (hundreds of KB): a disk
    # that fills up while the pictures are written
    done = _scan(base, tmp_path, "--out", "s", "--debug", "dbg", fsize=64 << 10)
    said = done.stderr.strip()
    assert done.returncode == 2, said
    assert len(said.splitlines()) == 1 and "Traceback" not in said and "libpng" not in said, said
    assert "dbg" in said
    assert (tmp_path / "s" / "answers.csv").read_bytes() == before
    assert not (tmp_path / "dbg").exists() or not list((tmp_path / "dbg").glob("*.png"))
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]
