"""Skill cards in headless Chromium, the way Anki shows them: one page load runs every check.

The page holds the HTML that the `anki` package rendered for each card's front and back. It sets
the clock (``Date`` is replaced before any card script runs), puts a side into ``#qa`` and runs its
scripts as Anki desktop's reviewer does, then reads which variant is left. MathJax (3, SVG output,
from the ``django-static-mathjax`` wheel) typesets after the scripts, as in Anki. A sandboxed frame
without scripts shows what a viewer that runs none would show.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

DAY_MS = 86_400_000
#: Noon UTC of 2026-01-05: every test day is this plus whole days.
BASE_MS = 1_767_614_400_000


def chromium() -> str | None:
    return shutil.which("chromium") or (os.path.exists("/usr/bin/chromium") and "/usr/bin/chromium") or None


def mathjax_url() -> str:
    import mathjax

    path = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5" / "tex-svg.js"
    assert path.is_file(), path
    return path.as_uri()


PAGE = r"""<!doctype html>
<html><head><meta charset="utf-8">
<script>
var FAKE_NOW = 0;
class FakeDate extends Date {
  constructor(...args) { if (args.length) super(...args); else super(FAKE_NOW); }
  static now() { return FAKE_NOW; }
}
window.Date = FakeDate;
window.MathJax = { tex: { inlineMath: [["\\(", "\\)"]], displayMath: [["\\[", "\\]"]] },
                   svg: { fontCache: "global" }, startup: { typeset: false } };
</script>
<script src="__MATHJAX__"></script>
</head>
<body class="card"><div id="qa"></div><pre id="qz-result">pending</pre>
<script>
const CARDS = __CARDS__;
const PLAN = __PLAN__;

function setQA(html) {            // Anki desktop: innerHTML, then each script run anew
  const qa = document.getElementById("qa");
  qa.innerHTML = html;
  for (const old of qa.querySelectorAll("script")) {
    const s = document.createElement("script");
    s.text = old.text;
    old.replaceWith(s);
  }
  return qa;
}

function shown(qa) {
  const root = qa.querySelector(".qz-skill");
  const lists = [...qa.querySelectorAll(".qz-vs")].map(
    (list) => [...list.children].map((el) => el.getAttribute("data-v")));
  return { shown: root.getAttribute("data-shown"), day: root.getAttribute("data-day"), lists };
}

function visible(el) {
  return !!el && el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
}

function prose(el) {              // text outside scripts and styles: what a reader sees
  const copy = el.cloneNode(true);
  for (const s of copy.querySelectorAll("script, style")) s.remove();
  return copy.textContent;
}

async function typeset(qa) {
  await MathJax.typesetPromise([qa]);
  const imgs = [...qa.querySelectorAll("img")];
  await Promise.all(imgs.map((img) => img.decode().catch(() => null)));
  return {
    math: qa.querySelectorAll("mjx-container").length,
    merror: qa.querySelectorAll("mjx-merror, [data-mjx-error]").length,
    raw: /\\\(|\\\[/.test(prose(qa)),
    imgs: imgs.map((img) => [img.getAttribute("src"), img.naturalWidth, visible(img)]),
  };
}

function frame(html) {
  return new Promise((resolve) => {
    const f = document.createElement("iframe");
    f.setAttribute("sandbox", "allow-same-origin");
    f.style.width = "400px"; f.style.height = "800px";
    f.onload = () => resolve(f);
    f.srcdoc = "<!doctype html><html><body class=card>" + html + "</body></html>";
    document.body.appendChild(f);
  });
}

async function noScript(card) {
  const out = {};
  for (const side of ["q", "a"]) {
    const f = await frame(card[side]);
    const doc = f.contentDocument;
    await Promise.all([...doc.images].map((img) => img.decode().catch(() => null)));
    const lists = [...doc.querySelectorAll(".qz-vs")].map((list) =>
      [...list.children].filter((el) => getComputedStyle(el).display !== "none").map((el) => el.getAttribute("data-v")));
    const v1 = [...doc.querySelectorAll('.qz-vs > [data-v="1"]')];
    out[side] = {
      ran: doc.querySelector(".qz-skill").hasAttribute("data-shown"),
      lists,
      question: v1.length ? visible(v1[0].querySelector(".qz-q")) : false,
      answer: visible(doc.querySelector('[data-v="1"] .qz-answer')),
      trap: doc.querySelector('[data-v="1"] .qz-trap') ? visible(doc.querySelector('[data-v="1"] .qz-trap')) : null,
      steps: !!doc.querySelector('[data-v="1"] details.qz-fold ol.qz-steps li'),
      summary: visible(doc.querySelector('[data-v="1"] details.qz-fold > summary')),
      imgs: [...doc.querySelectorAll('[data-v="1"] img')].map((img) => [img.naturalWidth, visible(img)]),
      typeBox: visible(doc.querySelector("#typeans")),
      comparison: doc.querySelector("code#typeans") ? doc.querySelector("code#typeans").textContent : null,
    };
    f.remove();
  }
  return out;
}

async function main() {
  const result = { cards: [], checks: [] };
  for (const card of CARDS) {
    const entry = { id: card.id, days: [], typeset: [], noscript: null };
    for (let d = 0; d < PLAN.days; d++) {
      FAKE_NOW = PLAN.base + d * PLAN.dayMs + (PLAN.hours[d % PLAN.hours.length] || 0) * 3600000;
      const front = shown(setQA(card.q));
      const back = shown(setQA(card.a));
      entry.days.push([front, back]);
      if (d < PLAN.typesetDays) entry.typeset.push(Object.assign({ v: back.shown }, await typeset(document.getElementById("qa"))));
    }
    entry.noscript = await noScript(card);
    result.cards.push(entry);
  }
  for (const c of PLAN.checks) result.checks.push(window.qzAnswer.check(c[0], c[1], c[2], c[3], c[4]));
  document.getElementById("qz-result").textContent = JSON.stringify(result);
}
main().catch((e) => { document.getElementById("qz-result").textContent = "ERROR " + e + "\n" + e.stack; });
</script></body></html>
"""


def run_page(cards: list[dict], media_dir: str | Path, *, days: int, typeset_days: int = 0,
             hours: list[int] | None = None, checks: list[list] | None = None,
             timeout: float = 180) -> dict:
    """Load one page with every card and plan in Chromium; return what the page measured.
    Each card's sides are HTML as Anki desktop shows them (the type-in box filled in)."""
    plan = {"base": BASE_MS, "dayMs": DAY_MS, "days": days, "typesetDays": typeset_days,
            "hours": hours or [0], "checks": checks or []}
    text = (PAGE.replace("__MATHJAX__", mathjax_url())
            .replace("__CARDS__", _script_json(cards)).replace("__PLAN__", _script_json(plan)))
    page = Path(media_dir) / "skill-harness.html"
    page.write_text(text, encoding="utf-8")
    profile = tempfile.mkdtemp(prefix="quizgen-chromium-")
    try:
        out = subprocess.run(
            [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", f"--user-data-dir={profile}", "--allow-file-access-from-files",
             "--virtual-time-budget=120000", "--dump-dom", page.as_uri()],
            capture_output=True, text=True, timeout=timeout)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    match = re.search(r'<pre id="qz-result">(.*?)</pre>', out.stdout, re.S)
    assert match, out.stderr[-2000:]
    body = html.unescape(match.group(1))
    assert not body.startswith(("ERROR", "pending")), body[:2000]
    return json.loads(body)


def _script_json(data) -> str:
    """JSON safe inside a <script> element."""
    return json.dumps(data).replace("</", "<\\/").replace("<!--", "<\\!--")
