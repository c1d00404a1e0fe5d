"""Text that XML 1.0 can hold: the one sanitiser every XML, SVG and HTML writer calls.

XML 1.0 (section 2.2, production ``Char``) allows tab, line feed, carriage return, U+0020–U+D7FF,
U+E000–U+FFFD and U+10000–U+10FFFF. Anything else in a document makes a conforming parser stop
(Moodle's import, Canvas, a browser showing an SVG): the C0 controls other than those three,
the noncharacters U+FFFE and U+FFFF, and a surrogate code point standing alone (Python keeps
one from a broken decode, e.g. ``surrogateescape``). Text pasted from a PDF or a spreadsheet
carries them.
"""

from __future__ import annotations

import re

__all__ = ["xml_text"]

_CONTROLS = "\x00-\x08\x0b\x0c\x0e-\x1f"
_FORBIDDEN = re.compile(f"[{_CONTROLS}\ufffe\uffff\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def xml_text(text: str) -> str:
    """`text` without the characters XML 1.0 forbids: controls and U+FFFE/U+FFFF dropped (they
    carry nothing visible), a lone surrogate replaced by U+FFFD (a character was lost there).
    Text that holds none comes back as the same object. (Every such character is one that
    `str.isprintable` refuses, and that test reads a long text much faster than the pattern.)"""
    if text.isprintable() or _FORBIDDEN.search(text) is None:
        return text
    return _FORBIDDEN.sub("", _SURROGATE.sub("\ufffd", text))
