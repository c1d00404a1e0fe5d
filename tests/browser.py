"""A headless Chromium driven over the DevTools protocol (a pipe, no extra Python packages).

Tests open one browser per module (`chromium` fixture-style helper `launch`), load cards as
pages, emulate the system's colour scheme and a phone's width, evaluate JavaScript and take
screenshots. Screenshots are decoded by the browser itself (a canvas), so no image library is
needed either.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

def _scaled(seconds: float) -> float:
    try:
        from conftest import scaled
    except ImportError:          # used outside pytest
        return seconds * 3
    return scaled(seconds)


FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--allow-file-access-from-files", "--remote-debugging-pipe"]


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name) or (f"/usr/bin/{name}" if Path(f"/usr/bin/{name}").exists() else None)
        if found:
            return found
    return None


class BrowserError(RuntimeError):
    pass


class Browser:
    """One Chromium process; `page()` opens a tab."""

    def __init__(self) -> None:
        exe = chromium_path()
        if exe is None:
            raise BrowserError("chromium is not installed")
        self._profile = tempfile.mkdtemp(prefix="quizgen-chromium-")
        to_child_r, self._to_child_w = os.pipe()
        self._from_child_r, from_child_w = os.pipe()

        def fds() -> None:          # the protocol pipes are fds 3 (commands) and 4 (replies)
            a, b = os.dup(to_child_r), os.dup(from_child_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self._proc = subprocess.Popen([exe, *FLAGS, f"--user-data-dir={self._profile}", "about:blank"],
                                      preexec_fn=fds, close_fds=False, stdin=subprocess.DEVNULL,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_child_r)
        os.close(from_child_w)
        self._out = os.fdopen(self._to_child_w, "wb", buffering=0)
        self._in = os.fdopen(self._from_child_r, "rb", buffering=0)
        self._buf = b""
        self._next = 0

    #: Longest wait for one reply: 40 s on the reference machine, scaled by this machine's
    #: measured speed (a loaded machine is slow; a hung page must not hang the tests).
    TIMEOUT = _scaled(40)

    def send(self, method: str, params: dict[str, Any] | None = None,
             session: str | None = None) -> dict[str, Any]:
        self._next += 1
        msg: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self._out.write(json.dumps(msg).encode("utf-8") + b"\0")
        while True:
            while b"\0" not in self._buf:
                ready, _, _ = select.select([self._in], [], [], self.TIMEOUT)
                if not ready:
                    raise BrowserError(f"no reply from chromium to {method} in {self.TIMEOUT} s")
                chunk = self._in.read(1 << 20)
                if not chunk:
                    raise BrowserError(f"chromium closed the pipe during {method}")
                self._buf += chunk
            raw, self._buf = self._buf.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def page(self, width: int = 800, height: int = 900, mobile: bool = False) -> "Page":
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, session)
        page.viewport(width, height, mobile)
        return page

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (BrowserError, OSError):
            pass
        try:
            self._proc.wait(timeout=_scaled(10))
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        for handle in (self._out, self._in):
            try:
                handle.close()
            except OSError:
                pass
        shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class Page:
    def __init__(self, browser: Browser, session: str) -> None:
        self.browser = browser
        self.session = session

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.browser.send(method, params, self.session)

    def viewport(self, width: int, height: int, mobile: bool = False) -> None:
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})

    def system_dark(self, dark: bool) -> None:
        """The system's colour scheme as CSS sees it (``prefers-color-scheme``)."""
        self.send("Emulation.setEmulatedMedia",
                  {"features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]})

    def eval(self, expression: str, await_promise: bool = False) -> Any:
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": await_promise})
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise BrowserError(f"JavaScript error: {text}")
        return result["result"].get("value")

    def open(self, path: Path) -> None:
        """Load a local file and wait until it and its images are loaded."""
        self.send("Page.navigate", {"url": path.resolve().as_uri()})
        self.eval("""new Promise(done => {
            const ready = () => Promise.all([...document.images].map(
                img => img.complete ? null : new Promise(r => { img.onload = img.onerror = r; })))
                .then(() => done(true));
            if (document.readyState === 'complete') ready();
            else addEventListener('load', ready);
        })""", await_promise=True)

    def screenshot(self, clip: dict[str, float] | None = None) -> str:
        """A PNG of the page (or of `clip`: x, y, width, height), base64-encoded."""
        params: dict[str, Any] = {"format": "png", "captureBeyondViewport": True}
        if clip is not None:
            params["clip"] = {**clip, "scale": 1}
        return self.send("Page.captureScreenshot", params)["data"]

    def save_screenshot(self, path: Path, clip: dict[str, float] | None = None) -> None:
        path.write_bytes(base64.b64decode(self.screenshot(clip)))

    def pixels_js(self, png_b64: str, script: str) -> Any:
        """Run `script` (a function body with `data`, `width`, `height` of the decoded PNG's RGBA
        pixels) in this page and return its value."""
        return self.eval(f"""new Promise((done, fail) => {{
            const img = new Image();
            img.onload = () => {{
                const canvas = document.createElement('canvas');
                canvas.width = img.width; canvas.height = img.height;
                const ctx = canvas.getContext('2d');
                ctx.drawImage(img, 0, 0);
                const data = ctx.getImageData(0, 0, img.width, img.height).data;
                const width = img.width, height = img.height;
                done((() => {{ {script} }})());
            }};
            img.onerror = () => fail(new Error('bad png'));
            img.src = 'data:image/png;base64,{png_b64}';
        }})""", await_promise=True)
