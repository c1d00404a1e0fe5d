"""Anki's clients as models, each written from its own code: how it puts the two sides of a card
on a page, where its type-in box is, and what survives the flip. A model drives a headless
Chromium (tests/browser.py) over a local web server, as AnkiDroid serves its cards.

* ``desktop`` — Anki (qt/aqt/reviewer.py: `Reviewer.typeAnsQuestionFilter` puts
  ``<input type=text id=typeans …>`` in place of ``[[type:Field]]``, `typeAnsAnswerFilter`
  puts the collection's `compare_answer` there, in a div, moving ``<hr id=answer>`` before it;
  ts/reviewer/index.ts: `_updateQA` → `setInnerHTML`: one page for the whole session, each
  side's HTML set into ``#qa`` and its scripts run anew). ``window.pycmd`` exists.
* ``ankidroid`` — AnkiDroid's reviewer, as installed (AbstractFlashcardViewer:
  `displayCardQuestion` / `displayCardAnswer` → AndroidCardRenderContext.renderCard, which wraps
  the side in ``<div id="qa">`` and card_template.html, → `loadContentIntoCard`:
  ``loadDataWithBaseURL(server.baseUrl(), …)``, a new page for each side from the same local
  address; `createWebView` turns DOM storage on). cardviewer/TypeAnswer.filterQuestion: the
  front's ``[[type:Field]]`` becomes ``<span id="typeans" class="typePrompt">........</span>``
  and the answer is typed into a native box below the page (the default, useInputTag false);
  `filterAnswer`: the back's comparison is the collection's compareAnswer.
* ``ankidroid-input`` — the same with the advanced setting that puts an
  ``<input type="text" name="typed" id="typeans" …>`` in the page (useInputTag true).
* ``ankidroid-new`` — AnkiDroid's new study screen (ui/windows/reviewer/ReviewerViewModel
  `typeAnsFilter`: the front's placeholder removed, a native box; previewer/TypeAnswer
  `answerFilter`: the comparison in a div): one page, sides set as desktop sets them.
* ``keeps-nothing`` — a viewer that keeps no page, no script state and no session storage
  across the flip, with an input in the page: what AnkiMobile and AnkiWeb are taken to be at
  worst (their code is not public; AnkiMobile has ``window.anki``, no ``window.pycmd``). Each
  side in a new tab.

The clock is set before any card script runs (``Date`` replaced), in a time zone where 4 am is
an Anki day's start (India's).
"""

from __future__ import annotations

import html
import json
import re
import threading
import uuid
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

TYPE = re.compile(r"\[\[type:(.+?)\]\]")
ZONE = "Asia/Kolkata"

CLIENTS = ("desktop", "ankidroid", "ankidroid-input", "ankidroid-new", "keeps-nothing")
KEEPS_PAGE = {"desktop", "ankidroid-new"}
NATIVE_BOX = {"ankidroid", "ankidroid-new"}

CLOCK = """<script>
var FAKE_NOW = %d;
class FakeDate extends Date {
  constructor(...args) { if (args.length) super(...args); else super(FAKE_NOW); }
  static now() { return FAKE_NOW; }
}
window.Date = FakeDate;
</script>"""

#: The one page Anki desktop (and AnkiDroid's new study screen) keeps for a session.
KEPT_PAGE = """<!doctype html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">%s
%s<script>
function _typeAnsPress() {}
var ankidroid = { onTypeAnswerKeyDown: function () {} };
async function setQA(html) {              // ts/reviewer/index.ts: setInnerHTML, replaceScript
  const qa = document.getElementById("qa");
  qa.innerHTML = html;
  for (const old of [...qa.getElementsByTagName("script")]) {
    const s = document.createElement("script");
    for (const a of old.attributes) s.setAttribute(a.name, a.value);
    s.appendChild(document.createTextNode(old.innerHTML));
    old.replaceWith(s);
  }
}
</script></head><body class="card card1"><div id="qa"></div></body></html>"""

#: AnkiDroid's card_template.html, with the side in place of ::content:: (its own scripts,
#: which define taFocus/taChange/taKey for the in-page box, reduced to what a card calls).
FRESH_PAGE = """<!doctype html>
<html class="mobile android linux js"><head><title>AnkiDroid Flashcard</title><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">%s
<script>function taFocus() {} function taChange(el) {} function taKey(el, e) { return true; }
window.anki = window.anki || {};</script>
</head><body class="card card1"><div id="content" dir="auto"><div id="qa">%s</div></div></body></html>"""


def front_html(client: str, side: str) -> str:
    """A card's front as `client` shows it: its type-in placeholder filled as that client does."""
    if client == "desktop":
        box = ('\n<center>\n<input type=text id=typeans onkeypress="_typeAnsPress();"\n'
               "   style=\"font-family: 'Arial'; font-size: 20px;\">\n</center>\n")
    elif client in ("ankidroid-input", "keeps-nothing"):
        box = ('<center>\n<input type="text" name="typed" id="typeans" data-focus="true" '
               "onfocus=\"taFocus();\" oninput='taChange(this);' "
               'onKeyPress="return taKey(this, event)" autocomplete="off" >\n</center>\n')
    elif client == "ankidroid":
        box = '<span id="typeans" class="typePrompt">........</span>'
    else:
        box = ""
    return TYPE.sub(lambda m: box, side)


def back_html(client: str, side: str, comparison: str) -> str:
    """A card's back as `client` shows it: its type-in placeholder replaced by the comparison."""
    if client == "ankidroid" or client == "ankidroid-input":
        return TYPE.sub(lambda m: comparison, side)
    wrapped = f"<div style=\"font-family: 'Arial'; font-size: 20px\">{comparison}</div>"
    if client == "desktop":                    # typeAnsAnswerFilter's <hr id=answer> move
        without = side.replace("<hr id=answer>", "")
        if without != side and TYPE.search(without):
            return TYPE.sub(lambda m: "<hr id=answer>" + wrapped, without)
    return TYPE.sub(lambda m: wrapped, side)


class Server:
    """The media folder over http on the loopback (AnkiDroid serves its cards from one)."""

    def __init__(self, folder: Path):
        handler = partial(_Quiet, directory=str(folder))
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.folder = folder
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


class Viewer:
    """One client's reviewer: shows fronts and backs at set times, takes what is typed."""

    def __init__(self, browser, server: Server, client: str):
        self.browser, self.server, self.client = browser, server, client
        self.page = None
        if client in KEEPS_PAGE:
            self.page = self._tab()
            bridge = "<script>window.pycmd = function () { return null; };</script>" \
                if client == "desktop" else ""     # Anki desktop's bridge; AnkiDroid has none
            self._open(KEPT_PAGE % (CLOCK % 0, bridge))
        elif client != "keeps-nothing":
            self.page = self._tab()

    def _tab(self):
        page = self.browser.page(360, 740, mobile=True)
        page.send("Emulation.setTimezoneOverride", {"timezoneId": ZONE})
        return page

    def _open(self, text: str) -> None:
        name = f"side-{uuid.uuid4().hex}.html"
        (self.server.folder / name).write_text(text, encoding="utf-8")
        self.page.send("Page.navigate", {"url": self.server.url + name})
        self.page.eval("new Promise(done => { const ok = () => done(true); "
                       "if (document.readyState === 'complete' && location.href.endsWith("
                       + json.dumps(name) + ")) ok(); else addEventListener('load', ok); })",
                       await_promise=True)
        ready = self.page.eval("document.readyState === 'complete' && location.href")
        assert ready and ready.endswith(name), ready

    def show(self, side: str, at_ms: int) -> dict:
        if self.client in KEEPS_PAGE:
            self.page.eval(f"FAKE_NOW = {at_ms}; setQA({json.dumps(side)}).then(() => true)",
                           await_promise=True)
        else:
            if self.client == "keeps-nothing":
                if self.page is not None:
                    self.page.send("Page.close")
                self.page = self._tab()
            self._open(FRESH_PAGE % (CLOCK % at_ms, side))
        return self.state()

    def state(self) -> dict:
        return self.page.eval("""(() => {
            const root = document.querySelector('.qz-skill');
            const checked = root.querySelector('.qz-checked');
            const lists = [...root.querySelectorAll('.qz-vs')].map(l => [...l.children].map(
                e => e.getAttribute('data-v')));
            const other = root.querySelector('.qz-other-day');
            const typeans = document.getElementById('typeans');
            return {shown: root.getAttribute('data-shown'), how: root.getAttribute('data-how'),
                    day: root.getAttribute('data-day'), lists,
                    other: other ? other.getAttribute('data-v') : null,
                    verdict: checked && !checked.hidden ? checked.getAttribute('data-verdict') : null,
                    message: checked ? checked.textContent : '',
                    box: typeans ? typeans.tagName.toLowerCase() : null,
                    comparison: typeans && typeans.tagName === 'CODE' ? getComputedStyle(typeans).display : null};
        })()""")

    def type(self, text: str) -> str:
        """Type `text` as this client takes it: into the page's input, or the native box (which
        the page never sees); the text the client then compares."""
        if self.client in NATIVE_BOX:
            return text
        self.page.eval(f"(() => {{ const i = document.getElementById('typeans'); "
                       f"i.value = {json.dumps(text)}; i.dispatchEvent(new Event('input')); "
                       "return true; })()")
        return self.page.eval("document.getElementById('typeans').value")

    def close(self) -> None:
        if self.page is not None:
            self.page.send("Page.close")
            self.page = None


def review(viewer: Viewer, col, card, front_ms: int, back_ms: int, typing=None) -> dict:
    """One review: the front at `front_ms`, `typing(front_state)` typed (None: nothing), the back
    at `back_ms` with the collection's own comparison of what was typed."""
    front = viewer.show(front_html(viewer.client, card["q"]), front_ms)
    typed = viewer.type(typing(front)) if typing is not None else ""
    comparison = col.compare_answer(card["fields"]["Words"], typed) if TYPE.search(card["a"]) else ""
    back = viewer.show(back_html(viewer.client, card["a"], comparison), back_ms)
    return {"front": front, "back": back, "typed": typed}


def local_ms(date: str, clock: str) -> int:
    """Milliseconds since the epoch of a wall-clock time in `ZONE` (UTC+5:30, no DST)."""
    from datetime import datetime, timedelta, timezone

    at = datetime.fromisoformat(f"{date}T{clock}").replace(tzinfo=timezone(timedelta(hours=5, minutes=30)))
    return int(at.timestamp() * 1000)


def plain(text: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", text))
