"""Benchmark: `quizgen scan` over a class's scanned papers in one PDF of 300-dpi JPEG pages
(filled by program, turned, blurred, noisy, some upside down, shuffled), against rasterising the
same PDF alone (the floor: every scan has to decode its pages).

    python3 bench/bench_scan.py [--pages 100] [--dpi 300] [--photos 20]

Phone photos (1600×2200 JPEG, tilted, shadowed: `synth.photograph`) are timed the same way, per
page, beside their own floor (decoding the same JPEGs alone).

The figure is the scan command's CPU time (user + system of its process), which is what one core
needs whatever threads OpenCV starts; its wall time is printed too.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGET_S = 60.0     # a 100-page PDF at 300 dpi, on one core
PHOTO_TARGET_S = 1.5   # one phone photo, on one core

RECIPE = {
    "title": "GPU Architecture — Midterm", "lang": "en", "seed": 2025,
    "questions": [
        {"cell": ["OCC-2", "OCC-3", "OCC-4"], "level": 2,
         "points": {"blocks_per_sm": 2, "active_warps": 1, "occupancy": 2, "limiter": 1}},
        {"cell": "OCC-9", "level": 2},
        {"cell": "W-B", "level": 1},
        {"cell": ["W-E", "W-F"], "level": 2,
         "points": {"warps_needed": 2, "deficit": 1, "hidable": 1}},
        {"cell": "OCC-7", "level": 2},
        {"cell": "K-1", "level": 1,
         "points": {"blocks_per_sm": 2, "active_warps": 1, "occupancy": 1, "limiter": 1}},
    ],
}


def make_class_pdf(pages_wanted: int, dpi: int, work: Path) -> tuple[Path, Path, int]:
    """Sheets with grids for enough students to fill `pages_wanted` pages, filled and scanned
    into one PDF: (manifest, pdf, pages)."""
    import pypdfium2 as pdfium

    from quizgen.export.sheet import build_exam
    from quizgen.recipes import parse_exam_recipe
    from quizgen.generator import generate_one
    from quizgen.scan.synth import distort, fill_page, images_to_pdf, plan_answers

    recipe = parse_exam_recipe(RECIPE)
    warnings.simplefilter("ignore")
    probe = work / "probe"
    build_exam(recipe, None, 1, probe, generate=generate_one, bubbles=True)
    per_student = json.loads((probe / "manifest.json").read_text())["students"][0]["sheet"]["pages"]
    students = max(1, -(-pages_wanted // per_student))
    exam = work / "exam"
    build_exam(recipe, None, students, exam, generate=generate_one, bubbles=True)
    manifest = json.loads((exam / "manifest.json").read_text())
    rng = random.Random(7)
    document = pdfium.PdfDocument(str(exam / "exam.pdf"))
    jpegs = []
    index = 0
    for student in manifest["students"]:
        plan = plan_answers(student, rng)
        for page in range(1, student["sheet"]["pages"] + 1):
            image = document[index].render(scale=dpi / 72, grayscale=True).to_numpy()
            image = image[..., 0] if image.ndim == 3 else image
            index += 1
            if len(jpegs) < pages_wanted:
                jpegs.append(distort(fill_page(image, dpi, plan.get(page, []), rng), rng,
                                     upside_down=rng.random() < 0.15, jpeg=60))
    rng.shuffle(jpegs)
    pdf = work / "class.pdf"
    images_to_pdf(jpegs, str(pdf), dpi)
    return exam / "manifest.json", pdf, len(jpegs)


def run(pages: int, dpi: int) -> dict:
    work = Path(tempfile.mkdtemp(prefix="bench-scan-"))
    try:
        manifest, pdf, count = make_class_pdf(pages, dpi, work)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "quizgen", "scan", str(pdf), "--manifest",
                               str(manifest), "--out", str(work / "scanned")],
                              capture_output=True, text=True, cwd=ROOT)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            raise RuntimeError(done.stderr)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        floor = subprocess.run([sys.executable, "-c", (
            "import sys, pypdfium2 as p\n"
            "d = p.PdfDocument(sys.argv[1])\n"
            "for page in d: page.render(scale=200 / 72, grayscale=True).to_numpy()\n"), str(pdf)],
            capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if floor.returncode != 0:
            raise RuntimeError(floor.stderr)
        floor_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return {"pages": count, "dpi": dpi, "cpu_s": cpu, "wall_s": wall, "floor_s": floor_cpu,
                "summary": done.stdout.strip()}
    finally:
        import shutil

        shutil.rmtree(work, ignore_errors=True)


def run_photos(count: int) -> dict:
    """`quizgen scan` over `count` phone photos of filled pages: CPU per page, and the floor
    (decoding the same JPEG files alone)."""
    import pypdfium2 as pdfium

    from quizgen.export.sheet import build_exam
    from quizgen.recipes import parse_exam_recipe
    from quizgen.generator import generate_one
    from quizgen.scan.synth import STYLES, fill_page, photograph, plan_answers

    work = Path(tempfile.mkdtemp(prefix="bench-photo-"))
    try:
        warnings.simplefilter("ignore")
        recipe = parse_exam_recipe(RECIPE)
        build_exam(recipe, None, max(1, count // 6 + 1), work / "exam", generate=generate_one,
                   bubbles=True)
        manifest = json.loads((work / "exam" / "manifest.json").read_text())
        document = pdfium.PdfDocument(str(work / "exam" / "exam.pdf"))
        rng = random.Random(11)
        files, index = [], 0
        for student in manifest["students"]:
            plan = plan_answers(student, rng, STYLES)
            for page in range(1, student["sheet"]["pages"] + 1):
                image = document[index].render(scale=200 / 72, grayscale=True).to_numpy()
                image = image[..., 0] if image.ndim == 3 else image
                index += 1
                if len(files) < count:
                    path = work / f"IMG_{len(files):04d}.jpg"
                    path.write_bytes(photograph(fill_page(image, 200, plan.get(page, []), rng), rng))
                    files.append(str(path))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run([sys.executable, "-m", "quizgen", "scan", *files, "--manifest",
                               str(work / "exam" / "manifest.json"), "--out",
                               str(work / "scanned"), "--no-report"],
                              capture_output=True, text=True, cwd=ROOT)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            raise RuntimeError(done.stderr)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-c", "import sys, cv2\n"
                        "for f in sys.argv[1:]: cv2.imread(f, cv2.IMREAD_GRAYSCALE)\n", *files],
                       check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        floor = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return {"pages": len(files), "cpu_per_page": cpu / len(files),
                "floor_per_page": floor / len(files), "summary": done.stdout.strip()}
    finally:
        import shutil

        shutil.rmtree(work, ignore_errors=True)


def measure(size: str = "full") -> list:
    """Rows for bench/run.py."""
    from common import Row, pick

    m = run(pick(size, 100, 30, 4), pick(size, 300, 300, 150))
    target = TARGET_S * m["pages"] / 100
    photos = run_photos(pick(size, 20, 8, 2))
    return [Row(f"scan: {m['pages']} pages at {m['dpi']} dpi in one PDF (CPU)", m["cpu_s"], "s",
                "rasterising the same PDF alone", m["floor_s"], f"≤ {target:g} s",
                m["cpu_s"] <= target),
            Row(f"scan: {photos['pages']} phone photos, per page (CPU)", photos["cpu_per_page"],
                "s", "decoding the same JPEGs alone, per page", photos["floor_per_page"],
                f"≤ {PHOTO_TARGET_S:g} s", photos["cpu_per_page"] <= PHOTO_TARGET_S)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=100)
    ap.add_argument("--dpi", type=int, default=300)
    ap.add_argument("--photos", type=int, default=20)
    args = ap.parse_args()
    photos = run_photos(args.photos)
    print(photos["summary"])
    print(f"{photos['pages']} phone photos: {photos['cpu_per_page']:.2f} s CPU per page "
          f"(decoding alone: {photos['floor_per_page']:.3f} s per page)")
    m = run(args.pages, args.dpi)
    print(m["summary"])
    print(f"{m['pages']} pages at {m['dpi']} dpi: {m['cpu_s']:.1f} s CPU, {m['wall_s']:.1f} s wall "
          f"(rasterising alone: {m['floor_s']:.1f} s CPU); target ≤ {TARGET_S:g} s per 100 pages")


if __name__ == "__main__":
    main()
