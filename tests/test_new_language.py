"""A new language is TOML files only.

The packaged templates are copied to a temporary folder and a third language, ``xx``, is added
there as phrase files alone: every English phrase file copied with a marker in front of each
string (and the concept cards copied as they are). quizgen is pointed at that folder with
``QUIZGEN_TEMPLATES`` and must generate problems, build a deck, write an exam sheet and grade it
in ``xx``, with the marker on the card fields, the figure labels, the sheet and the feedback.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from quizgen.resources import data_dir

MARK = "«xx»"
LANG = "xx"


def _toml_value(value) -> str:
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)   # a JSON string is a TOML basic string
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return repr(value)


def _marked(value):
    if isinstance(value, str):
        return f"{MARK} {value}"
    if isinstance(value, list):
        return [_marked(v) for v in value]
    return value


def _phrase_file(data: dict) -> str:
    """A phrase file (section → key → string or list of strings) as TOML, every string marked."""
    lines = []
    for section, table in data.items():
        lines.append(f"[{json.dumps(section)}]")
        if section == "language":
            table = {"name": "Xx-language", "html": "x-xx"}
        for key, value in table.items():
            value = value if section == "language" else _marked(value)
            lines.append(f"{json.dumps(key)} = {_toml_value(value)}")
        lines.append("")
    return "\n".join(lines)


#: Concept-card fields that name things (they must match the English file), left unmarked.
_NAMES = {"id", "topic", "level", "key"}


def _concept_file(data: dict) -> str:
    """The concept cards as TOML: tables of strings, then ``[[card]]`` with ``[[card.wrong]]``."""
    def pairs(table: dict) -> list[str]:
        return [f"{json.dumps(k)} = {_toml_value(v if k in _NAMES else _marked(v))}"
                for k, v in table.items() if not isinstance(v, list) or all(
                    isinstance(x, str) for x in v)]

    lines = []
    for section, table in data.items():
        if isinstance(table, dict):
            lines += [f"[{json.dumps(section)}]", *pairs(table), ""]
    for card in data.get("card", []):
        lines += ["[[card]]", *pairs(card), ""]
        for wrong in card.get("wrong", []):
            lines += ["[[card.wrong]]", *pairs(wrong), ""]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def templates(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("lang") / "templates"
    shutil.copytree(data_dir("templates"), root)
    for path in sorted((root / "phrases").glob("*.en.toml")):
        with path.open("rb") as fh:
            data = tomllib.load(fh)
        target = path.with_name(path.name.replace(".en.toml", f".{LANG}.toml"))
        target.write_text(_phrase_file(data), encoding="utf-8")
    with (root / "concepts" / "l6.en.toml").open("rb") as fh:
        concepts = tomllib.load(fh)
    (root / "concepts" / f"l6.{LANG}.toml").write_text(_concept_file(concepts), encoding="utf-8")
    return root


def _run(templates: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "QUIZGEN_TEMPLATES": str(templates)}
    done = subprocess.run([sys.executable, "-m", "quizgen", *args], capture_output=True,
                          text=True, env=env, cwd=cwd)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and "KeyError" not in done.stderr
    return done


def test_the_third_language_is_listed_only_where_pointed(templates, tmp_path):
    env = {**os.environ, "QUIZGEN_TEMPLATES": str(templates)}
    code = "from quizgen.languages import LANGS, DEFAULT_LANG; print(DEFAULT_LANG, *LANGS)"
    pointed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    packaged = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env={k: v for k, v in os.environ.items() if k != "QUIZGEN_TEMPLATES"})
    assert pointed.stdout.split() == ["hinglish", "hinglish", "en", LANG]
    assert packaged.stdout.split() == ["hinglish", "hinglish", "en"]


def test_generate_deck_sheet_and_grade_in_a_toml_only_language(templates, tmp_path):
    # Problems: every cell, every level; the worked solution speaks the new language.
    out = _run(templates, "generate", "--count", "1", "--level", "1", "--level", "2",
               "--level", "3", "--lang", LANG, "--format", "json", cwd=tmp_path).stdout
    problems = json.loads(out)
    assert len({p["cell"] for p in problems}) >= 30
    for problem in problems:
        assert problem["lang"] == LANG
        assert MARK in problem["question"] and MARK in problem["solution"]["answer"], problem["id"]

    # A deck: card fields, the format hint, the deck's name and the figures' labels.
    apkg = tmp_path / "xx.apkg"
    _run(templates, "deck", "--lang", LANG, "--per-cell", "1", "--seed", "3", "--out", str(apkg),
         cwd=tmp_path)
    with zipfile.ZipFile(apkg) as z:
        names = z.namelist()
        db = tmp_path / "collection.anki2"
        db.write_bytes(z.read("collection.anki2"))
        media = json.loads(z.read("media"))
        svgs = [z.read(number).decode("utf-8") for number, name in media.items()
                if name.endswith(".svg")]
    assert names and svgs
    con = sqlite3.connect(db)
    decks = json.loads(con.execute("select decks from col").fetchone()[0])
    models = json.loads(con.execute("select models from col").fetchone()[0])
    notes = con.execute("select mid, flds from notes").fetchall()
    con.close()
    assert any("::Xx-language::" in d["name"] for d in decks.values())
    fields_by_name: dict[str, list[str]] = {}
    for mid, flds in notes:
        for field, value in zip(models[str(mid)]["flds"], flds.split("\x1f")):
            fields_by_name.setdefault(field["name"], []).append(value)
    assert all(MARK in v for v in fields_by_name["Format"])          # the type-in hint
    assert all(MARK in v for v in fields_by_name["Solution"])        # section labels and prose
    assert all(MARK in svg for svg in svgs)                          # every figure's labels

    # An exam sheet (its Typst data) and a graded class in the new language.
    sheet = tmp_path / "exam"
    _run(templates, "sheet", "--lang", LANG, "--versions", "2", "--out", str(sheet), cwd=tmp_path)
    manifest = json.loads((sheet / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["recipe"]["lang"] == LANG
    if shutil.which("pdftotext"):              # poppler-utils (CI installs it)
        for pdf in ("exam.pdf", "key.pdf"):
            text = subprocess.run(["pdftotext", str(sheet / pdf), "-"], capture_output=True,
                                  text=True, check=True).stdout
            assert MARK in text, pdf                  # the sheet's own labels and the prose
    rows = list(csv.reader(io.StringIO((sheet / "answers.csv").read_text(encoding="utf-8-sig"))))
    header, filled = rows[0], [rows[0]]
    for row, student in zip(rows[1:], manifest["students"]):
        given = {f"Q{q['number']}.{k}": v for q in student["questions"]
                 for k, v in q["answers"].items()}
        filled.append(row[:3] + [_written(given.get(column)) for column in header[3:]])
    answers = tmp_path / "filled.csv"
    with answers.open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows(filled)
    graded = tmp_path / "graded"
    _run(templates, "grade", str(sheet / "manifest.json"), str(answers), "--out", str(graded),
         cwd=tmp_path)
    feedback = sorted((graded / "feedback").glob("*"))
    assert feedback and all(MARK in p.read_text(encoding="utf-8") for p in feedback)
    assert MARK in (graded / "report.md").read_text(encoding="utf-8")

    # HTML says which language it is in: the language's own tag from its [language] table.
    html = _run(templates, "generate", "--cell", "OCC-1", "--lang", LANG, "--format", "html",
                cwd=tmp_path).stdout
    assert 'lang="x-xx"' in html and 'lang="en"' not in html
    graded_html = tmp_path / "graded-html"
    _run(templates, "grade", str(sheet / "manifest.json"), str(answers), "--out",
         str(graded_html), "--format", "html", cwd=tmp_path)
    pages = sorted((graded_html / "feedback").glob("*.html"))
    assert pages and all('<html lang="x-xx">' in p.read_text(encoding="utf-8") for p in pages)


def _written(value) -> str:
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return "" if value is None else str(value)


#: Answers of every shape a class writes: right-looking numbers, a fraction for a count, a size
#: without its unit, a unit that does not fit, unreadable text, limits, yes/no, coordinates.
_TEXTS = ("48", "8.5", "1.5", "25", "0.25", "8 KB", "3 cycles", "8 blocks", "200%", "8 abc",
          "1,5", "(1", "", "maybe", "registers shared memory", "registers", "warps, blocks",
          "yes", "no", "(1, 2)", "(1, 2, 3)")

_GRADE_ALL = f"""
import json, sys
from quizgen.export.sheet.layout import _value_text
from quizgen.generator import generate_one
from quizgen.grade.grader import check_answer
from quizgen.problems import CELLS
from quizgen.render.solution import format_value
texts = {_TEXTS!r}
unmarked, notes = [], 0
for cell in CELLS:
    for level in (1, 2, 3):
        data = generate_one(cell, level=level, seed=3, lang="{LANG}").to_dict()
        for key in data["answers"]:
            for text in texts:
                r = check_answer(data, key, text, lang="{LANG}")
                for field in ("note", "expected_text", "explanation", "carried"):
                    said = getattr(r, field)
                    notes += bool(said)
                    if said and any(c.isalpha() for c in said) and "{MARK}" not in said:
                        unmarked.append([cell, key, text, field, said])
shown = [_value_text(True, "{LANG}"), _value_text([True, False], "{LANG}"), format_value(False, "{LANG}")]
print(json.dumps({{"unmarked": unmarked, "notes": notes, "shown": shown}}))
"""


def test_grader_notes_sheet_values_and_calculators_speak_the_new_language(templates, tmp_path):
    env = {**os.environ, "QUIZGEN_TEMPLATES": str(templates)}
    done = subprocess.run([sys.executable, "-c", _GRADE_ALL], capture_output=True, text=True,
                          env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout)
    assert found["notes"] > 1000                     # the texts above drew many remarks
    assert found["unmarked"] == [], found["unmarked"][:10]
    assert all(MARK in text for text in found["shown"]), found["shown"]

    # The occupancy calculator: its heading and its Answer line are the new language's phrases.
    out = _run(templates, "occupancy", "--gpu", "a100", "--threads", "256", "--regs", "64",
               "--lang", LANG, cwd=tmp_path).stdout.strip().splitlines()
    assert MARK in out[0]
    assert out[-1].count(MARK) >= 2, out[-1]        # the label and the sentence
    # The CLI offers the phrasebook's languages and takes the new one by name.
    helped = " ".join(_run(templates, "generate", "--help", cwd=tmp_path).stdout.split())
    assert f"en or {LANG}" in helped


def test_scan_report_and_reasons_speak_the_new_language(templates, tmp_path):
    """A paper exam in the new language, scanned in part (the first page of the first paper,
    nothing of the second) with a page that is no exam page: the report's words, its sentences
    and every box's and page's reason are the new language's, and so are review.csv's reasons."""
    import re
    from html import escape

    import cv2
    import numpy as np
    import pypdfium2 as pdfium

    sheet = tmp_path / "paper"
    _run(templates, "sheet", "--lang", LANG, "--versions", "2", "--bubbles", "--out", str(sheet),
         cwd=tmp_path)
    manifest = json.loads((sheet / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["students"][0]["sheet"]["pages"] >= 2      # so that a page goes missing
    page = pdfium.PdfDocument(str(sheet / "exam.pdf"))[0]
    image = page.render(scale=150 / 72, grayscale=True).to_numpy()
    cv2.imwrite(str(tmp_path / "page-1.png"), image[..., 0] if image.ndim == 3 else image)
    cv2.imwrite(str(tmp_path / "white.png"), np.full((1754, 1240), 250, np.uint8))
    scanned = tmp_path / "scanned"
    done = _run(templates, "scan", "page-1.png", "white.png", "--manifest",
                str(sheet / "manifest.json"), "--out", str(scanned), cwd=tmp_path)
    assert "no QR code" in done.stderr       # the command's own warnings stay in English

    report = (scanned / "scan-report.html").read_text(encoding="utf-8")
    assert '<html lang="x-xx">' in report

    def texts(tag: str) -> list[str]:
        return re.findall(rf"<{tag}[^>]*>(.*?)</{tag}>", report, flags=re.S)

    assert len(texts("li")) == 4 and len(texts("h2")) >= 3   # with a missing page, a paper
    shown = texts("title") + texts("h1") + texts("li") + texts("h2") + texts("th")
    assert all(MARK in text for text in shown), [t for t in shown if MARK not in t]
    reasons = [row[5] for row in csv.reader(io.StringIO(
        (scanned / "review.csv").read_text(encoding="utf-8-sig")))][1:]
    assert len(set(reasons)) >= 3           # a box of the page, a page missing, a paper missing
    assert all(MARK in r for r in reasons), reasons
    assert any(escape(r, quote=False) in report for r in reasons if "scan" not in r)
    unreadable = re.search(r"<td>white\.png</td><td>(.*?)</td>", report)
    assert unreadable and MARK in unreadable.group(1)

    # --lang asks for another of the phrasebook's languages than the exam's.
    _run(templates, "scan", "page-1.png", "white.png", "--manifest", str(sheet / "manifest.json"),
         "--out", str(tmp_path / "in-en"), "--lang", "en", cwd=tmp_path)
    english = (tmp_path / "in-en" / "scan-report.html").read_text(encoding="utf-8")
    assert '<html lang="en">' in english and "To review" in english
    assert MARK not in english
