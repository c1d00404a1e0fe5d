"""A shipped kernel's CUDA source and its ptxas report, drawn as an SVG figure (cell K-1).

Cards and sheets show a problem's figure as an image, so the source keeps its lines and its
indentation everywhere (question text is reflowed into paragraphs). The file's opening comment is
left out (the question says what the kernel does); long lines wrap with a hanging indent.
"""

from __future__ import annotations

from quizgen import kernels as shipped
from quizgen.render.canvas import Canvas, check_lang
from quizgen.render.phrases import labels
from quizgen.languages import DEFAULT_LANG

WIDTH = 480
FONT = 10.5
CHAR = 0.6 * FONT          # advance of one character of DejaVu Sans Mono
COLUMNS = int((WIDTH - 16) / CHAR)
REPORT = "#2e86de"
SPILL = "#e4572e"

def code_lines(source: str) -> list[str]:
    """The source without its opening comment block, long lines wrapped at `COLUMNS`."""
    lines = source.rstrip("\n").splitlines()
    while lines and (lines[0].startswith("//") or not lines[0].strip()):
        lines.pop(0)
    out: list[str] = []
    for line in lines:
        indent = len(line) - len(line.lstrip(" "))
        while len(line) > COLUMNS:
            cut = line.rfind(" ", indent + 8, COLUMNS)
            if cut <= indent:
                cut = COLUMNS
            out.append(line[:cut])
            line = " " * (indent + 4) + line[cut:].lstrip(" ")
        out.append(line)
    return out


def report_lines(text: str, width: int = COLUMNS - 8) -> list[str]:
    """A ptxas line broken after its commas so that each piece fits `width` characters."""
    out, current = [], ""
    for part in text.split(", "):
        piece = part if not current else current + ", " + part
        if current and len(piece) > width:
            out.append(current + ",")
            current = "    " + part
        else:
            current = piece
    out.append(current)
    return out


def _short(key: str) -> str:
    return shipped.kernel_meta(key)["entry"].split("(")[0]


def kernel_source_figure(kernel: str, arch: str, lang: str = DEFAULT_LANG, before: str | None = None) -> str:
    lang = check_lang(lang)
    meta = shipped.kernel_meta(kernel)
    title = f"{meta['source']} · {_short(kernel)}"
    c = Canvas(title, width=WIDTH)
    c.text(WIDTH / 2, 16, title, text_anchor="middle", font_weight="bold", font_size="12")
    y = 34.0
    mono = "DejaVu Sans Mono, Menlo, Consolas, monospace"
    for line in code_lines(shipped.kernel_source(kernel)):
        if line.strip():
            c.text(8, y, line, font_family=mono, font_size=str(FONT), style="white-space:pre")
        y += FONT * 1.3
    y += 6
    c.line(8, y - FONT, WIDTH - 8, y - FONT, stroke_opacity="0.3")
    c.text(8, y + 2, labels(lang, "kernel-figure-label")["report"].format(arch=arch), font_size="10", font_weight="bold")
    y += 16
    entries = [(before, "before"), (kernel, "after")] if before else [(kernel, None)]
    for key, label in entries:
        usage = shipped.kernel_usage(key, arch)
        if label:
            c.text(8, y, labels(lang, "kernel-figure-label")[label].format(name=_short(key)), font_size="10")
            y += 13
        for piece in report_lines(usage.line):
            c.text(8, y, piece, font_family=mono, font_size=str(FONT), fill=REPORT, font_weight="bold",
                   style="white-space:pre")
            y += FONT * 1.4
        if usage.spills:
            spill = (f"{usage.stack} bytes stack frame, {usage.spill_stores} bytes spill stores, "
                     f"{usage.spill_loads} bytes spill loads")
            for piece in report_lines(spill):
                c.text(8, y, piece, font_family=mono, font_size=str(FONT), fill=SPILL, style="white-space:pre")
                y += FONT * 1.4
    return c.render(y + 2)
