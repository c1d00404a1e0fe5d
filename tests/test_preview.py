"""`quizgen preview`: the site a teacher opens before building, read in Chromium with the
network off (figures drawn, every language, nothing fetched)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from browser import Browser, chromium_path

pytestmark = pytest.mark.slow


def _build(tmp_path, recipe):
    done = subprocess.run([sys.executable, "-m", "quizgen", "preview", recipe, "--out", "site"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return tmp_path / "site", done.stdout


def test_a_deck_recipe_preview_is_offline_and_complete(tmp_path):
    site, said = _build(tmp_path, "occupancy-basics")
    assert said.startswith("5 pages, 20 problems → site/index.html"), said
    pages = sorted(p.name for p in site.glob("*.html"))
    assert pages == ["OCC-1.html", "OCC-2.html", "OCC-3.html", "OCC-4.html", "OCC-5.html",
                     "index.html"]
    for page in site.glob("*.html"):
        text = page.read_text(encoding="utf-8")
        # nothing to fetch: no script, no remote address in any src or href
        assert "<script" not in text
        assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text), page.name
    if chromium_path() is None:
        pytest.skip("chromium is not installed")
    with Browser() as browser:
        page = browser.page(width=400, height=900, mobile=True)
        page.send("Network.enable")
        page.send("Network.emulateNetworkConditions", {"offline": True, "latency": 0,
                                                       "downloadThroughput": -1,
                                                       "uploadThroughput": -1})
        page.open(site / "OCC-2.html")
        seen = page.eval("""(() => {
            const sections = [...document.querySelectorAll('section.quizgen-problem')];
            return {
              langs: sections.map(s => s.lang),
              figures: sections.map(s => { const svg = s.querySelector('.figure svg');
                                           const r = svg && svg.getBoundingClientRect();
                                           return r ? [r.width, r.height] : null; }),
              steps: sections.map(s => s.querySelectorAll('ol.steps li').length),
              why: sections.map(s => s.querySelector('ol.steps li i').textContent),
              answer: sections.map(s => s.innerText.includes('18.75%') || s.innerText.length),
              overflow: document.documentElement.scrollWidth,
            };
        })()""")
        assert len(set(seen["langs"])) == 2 and "en" in seen["langs"], seen   # both languages
        assert len(seen["langs"]) == 4                      # 2 levels × 2 languages
        for size in seen["figures"]:
            assert size is not None and size[0] > 200 and size[1] > 80, seen["figures"]
        assert all(n >= 5 for n in seen["steps"])
        assert {"Yeh step kyun?", "Why this step?"} <= set(seen["why"]), seen["why"]
        assert seen["overflow"] <= 400                      # fits a phone's width
        index = browser.page(width=400, height=900, mobile=True)
        index.open(site / "index.html")
        links = index.eval("[...document.querySelectorAll('a')].map(a => a.getAttribute('href'))")
        assert links == ["OCC-1.html", "OCC-2.html", "OCC-3.html", "OCC-4.html", "OCC-5.html"]


def test_an_exam_recipe_preview_has_a_page_per_question(tmp_path):
    site, said = _build(tmp_path, "midterm")
    assert said.startswith("6 pages, ")
    q1 = (site / "Q1.html").read_text(encoding="utf-8")
    for cell in ("OCC-2", "OCC-3", "OCC-4"):            # the versions' cells, each shown
        assert f"<h2>{cell} · " in q1
    assert 'lang="en"' in q1
    pytest.importorskip("pypdfium2")
    index = (site / "index.html").read_text(encoding="utf-8")
    for n in (1, 2):                                    # two versions' first pages, as printed
        png = site / f"version-{n}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000
        assert f'src="version-{n}.png"' in index
    assert (site / "version-1.png").read_bytes() != (site / "version-2.png").read_bytes()


def test_a_missing_recipe_is_one_line_naming_the_packaged_ones(tmp_path):
    done = subprocess.run([sys.executable, "-m", "quizgen", "preview", "nope.toml"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "midterm (exams)" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
