"""An image's pixel size from its file header, before anything is decoded.

`image_sizes` reads the (width, height) of every frame of a PNG, JPEG, TIFF, BMP, WebP or
PGM/PBM file from the bytes that describe it (a few kilobytes at most), so that an image too
large for the scanner is refused before a decoder allocates its pixels. A file whose header is not
one of these gives no size.
"""

from __future__ import annotations

import struct
from pathlib import Path

#: How far into a file a JPEG's frame header is looked for (thumbnails and metadata come first).
JPEG_SEARCH = 1 << 20
#: The most TIFF frames followed (a chain that loops, or a file of 10,000 frames, stops here).
MAX_FRAMES = 10_000


def image_sizes(path: Path) -> list[tuple[int, int]]:
    """(width, height) of each frame; [] when the header is not understood."""
    with open(path, "rb") as fh:
        head = fh.read(64)
        try:
            if head.startswith(b"\x89PNG\r\n\x1a\n") and head[12:16] == b"IHDR":
                return [struct.unpack(">II", head[16:24])]
            if head.startswith(b"\xff\xd8"):
                fh.seek(0)
                return _jpeg(fh.read(JPEG_SEARCH))
            if head[:4] in (b"II*\x00", b"MM\x00*"):
                return _tiff(fh)
            if head.startswith(b"BM"):
                width, height = struct.unpack("<ii", head[18:26])
                return [(abs(width), abs(height))]
            if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
                return _webp(head)
            if head[:1] == b"P" and head[1:2] in b"123456":
                return _pnm(head + fh.read(1024))
        except (struct.error, ValueError, IndexError):
            return []
    return []


def _jpeg(data: bytes) -> list[tuple[int, int]]:
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
            i += 1 if marker == 0xFF else 2
            continue
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[i + 5:i + 9])
            return [(width, height)]
        i += 2 + length
    return []


def _tiff(fh) -> list[tuple[int, int]]:
    fh.seek(0)
    order = "<" if fh.read(2) == b"II" else ">"
    fh.seek(4)
    offset = struct.unpack(order + "I", fh.read(4))[0]
    sizes, seen = [], set()
    while offset and offset not in seen and len(sizes) < MAX_FRAMES:
        seen.add(offset)
        fh.seek(offset)
        count = struct.unpack(order + "H", fh.read(2))[0]
        entries = fh.read(12 * count)
        width = height = None
        for k in range(count):
            tag, kind = struct.unpack(order + "HH", entries[12 * k:12 * k + 4])
            value = (struct.unpack(order + "H", entries[12 * k + 8:12 * k + 10])[0] if kind == 3
                     else struct.unpack(order + "I", entries[12 * k + 8:12 * k + 12])[0])
            if tag == 256:
                width = value
            elif tag == 257:
                height = value
        if width is None or height is None:
            return []
        sizes.append((width, height))
        offset = struct.unpack(order + "I", fh.read(4))[0]
    return sizes


def _webp(head: bytes) -> list[tuple[int, int]]:
    chunk = head[12:16]
    if chunk == b"VP8 ":
        width, height = struct.unpack("<HH", head[26:30])
        return [(width & 0x3FFF, height & 0x3FFF)]
    if chunk == b"VP8L":
        bits = int.from_bytes(head[21:25], "little")
        return [((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)]
    if chunk == b"VP8X":
        return [(int.from_bytes(head[24:27], "little") + 1,
                 int.from_bytes(head[27:30], "little") + 1)]
    return []


def _pnm(head: bytes) -> list[tuple[int, int]]:
    words: list[bytes] = []
    for line in head[2:].split(b"\n"):
        words += line.split(b"#", 1)[0].split()
        if len(words) >= 2:
            return [(int(words[0]), int(words[1]))]
    return []
