"""Typst for PDFs: escaping for user text. (Math: `quizgen.render.typst_printer`, which
imports sympy, prints the engine's formulas as Typst math.)

Text that a user supplies (roster names, titles, instructions) must never be read as Typst code.
The sheet templates pass such text as *data* (JSON strings that Typst displays verbatim); for the
places where text has to be written into Typst source, `typst_string` makes a string literal and
`typst_escape` makes markup that prints every character literally.
"""

from __future__ import annotations

import string

__all__ = ["typst_escape", "typst_string"]


def _quote(text: str) -> str:
    """A Typst string literal: "..." with backslash and quote escaped (valid in code and math)."""
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{{{ord(ch):x}}}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def typst_string(text: str) -> str:
    """`text` as a Typst string literal, e.g. ``"say \\"hi\\""``: data, never code or markup."""
    return _quote(str(text))


# Every ASCII punctuation character can be escaped with a backslash in Typst markup, and every
# markup construct (#code, $math$, *strong*, _emph_, `raw`, <label>, @ref, ~, // comments,
# = headings, - + / lists, smart quotes, ... ellipses, -- dashes) starts with one of them. Escaping
# all of them leaves no construct to forget.
_MARKUP_SPECIAL = frozenset(string.punctuation)


def typst_escape(text: str) -> str:
    """`text` as Typst markup that prints literally and can never run code.

    Every ASCII punctuation character is backslash-escaped; line breaks are kept (a blank line
    still separates paragraphs); other control characters are dropped.
    """
    text = str(text).replace("\r\n", "\n").replace("\r", "\n")
    out = []
    for ch in text:
        if ch in _MARKUP_SPECIAL:
            out.append("\\" + ch)
        elif ch == "\n" or ch == "\t":
            out.append(ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            continue
        else:
            out.append(ch)
    return "".join(out)

