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
        # the index speaks one language: each page listed by its English problem's title
        listed = index.eval("[...document.querySelectorAll('li')].map(li => li.textContent)")
        assert index.eval("document.documentElement.lang") == "en"
        for name, line in zip(links, listed):
            page.open(site / name)
            english = page.eval("[...document.querySelectorAll('section.quizgen-problem')]"
                                ".filter(s => s.lang === 'en')[0].querySelector('h2')"
                                ".textContent.split(' · ').slice(1).join(' · ')")
            assert line.endswith(": " + english), (line, english)


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


@pytest.mark.parametrize("width", [360, 1280])
@pytest.mark.parametrize("dark", [False, True])
def test_kernel_code_keeps_its_lines_and_figures_show_in_either_theme(tmp_path_factory, width,
                                                                      dark):
    if chromium_path() is None:
        pytest.skip("chromium is not installed")
    site = tmp_path_factory.getbasetemp() / "midterm-site"
    if not (site / "index.html").exists():
        site, _ = _build(tmp_path_factory.getbasetemp(), "midterm")
        site.rename(tmp_path_factory.getbasetemp() / "midterm-site")
        site = tmp_path_factory.getbasetemp() / "midterm-site"
    with Browser() as browser:
        page = browser.page(width=width, height=900, mobile=width < 500)
        page.system_dark(dark)
        page.open(site / "Q6.html")                     # the midterm's K-1 kernel question
        seen = page.eval("""(() => {
            const pre = [...document.querySelectorAll('section.quizgen-problem pre')];
            const svg = document.querySelector('.figure svg');
            const r = svg ? svg.getBoundingClientRect() : null;
            return {text: document.body.innerText, scroll: document.documentElement.scrollWidth,
                    pre: pre.map(p => ({text: p.innerText, right: p.getBoundingClientRect().right})),
                    paper: getComputedStyle(document.body).backgroundColor,
                    box: r && {x: r.x, y: r.y + scrollY, width: r.width, height: r.height}};
        })()""")
        assert "```" not in seen["text"]
        code = next(p for p in seen["pre"] if "__global__" in p["text"])
        assert len(code["text"].strip().splitlines()) >= 5      # the source keeps its lines
        assert any("ptxas info" in p["text"] for p in seen["pre"])
        assert all(p["right"] <= width + 0.5 for p in seen["pre"]) and seen["scroll"] <= width
        page.open(site / "Q1.html")                     # an occupancy question: a bar figure
        box = page.eval("""(() => { const r = document.querySelector('.figure svg')
                                                    .getBoundingClientRect();
                                    return {x: r.x, y: r.y + scrollY, width: r.width,
                                            height: r.height}; })()""")
        shot = page.screenshot(box)
        # the figure as a reader sees it: its ground (the commonest grey level, the page's own
        # through the figure's clear ground) and the share of pixels far from it (the ink),
        # which vanish when dark ink meets a dark ground
        ground, far = page.pixels_js(shot, """
            const count = new Array(256).fill(0);
            for (let i = 0; i < data.length; i += 4)
                count[Math.round((data[i] + data[i + 1] + data[i + 2]) / 3)]++;
            const ground = count.indexOf(Math.max(...count));
            let far = 0;
            for (let v = 0; v < 256; v++) if (Math.abs(v - ground) > 120) far += count[v];
            return [ground, far / (width * height)];""")
        assert (ground < 80) is dark, ground
        assert far > 0.01, far
