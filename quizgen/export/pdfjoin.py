"""Join PDFs page after page into one file, streaming: memory stays flat in the number of parts.

An exam for 1,000 students is compiled in chunks (see `quizgen.export.sheet`); this module joins
the chunks' PDFs into ``exam.pdf`` and ``key.pdf``. Each part is read with pypdf, the objects its
pages reach are copied to the output at once under new numbers, and only their byte offsets, the
page numbers and the bookmarks are remembered. General-purpose joiners (pypdf's writer, qpdf)
hold the whole output in memory until they save it.

What is kept: every page with its resources, fonts, images and links, and the top-level
bookmarks (one per student's paper or version), pointing at the joined pages. What is left out:
the parts' tag trees (accessibility structure) and XMP metadata; the document title of the
first part is kept.
"""

from __future__ import annotations

import gc
import hashlib
import io
import os
from array import array
from collections import deque
from dataclasses import dataclass
from typing import Any, BinaryIO, Iterable

__all__ = ["join_pdfs"]

_HEADER = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"
# Page keys that tie a page to its part's tag tree or page tree: dropped or replaced.
_PAGE_SKIP = frozenset({"/Parent", "/StructParents"})


@dataclass(slots=True)
class _Bookmark:
    title: Any        # a pypdf text string object (writes itself escaped or as UTF-16)
    page: int         # object number of the page in the output
    left: float
    top: float


class _Writer:
    """Numbered objects written as they come; the cross-reference table at the end."""

    def __init__(self, fh: BinaryIO) -> None:
        self.fh = fh
        # each object's byte offset (-1: reserved, not yet written); object 0 is the free-list
        # head. Eight bytes an object: a joined exam of 5,000 papers has about 110,000.
        self.offsets = array("q", [-1])
        fh.write(_HEADER)

    def reserve(self) -> int:
        self.offsets.append(-1)
        return len(self.offsets) - 1

    def write(self, number: int, body: bytes) -> None:
        self.offsets[number] = self.fh.tell()
        self.fh.write(b"%d 0 obj\n" % number)
        self.fh.write(body)
        self.fh.write(b"\nendobj\n")

    def finish(self, root: int, info: int | None, ident: bytes) -> None:
        start = self.fh.tell()
        lines = [b"xref\n0 %d\n" % len(self.offsets), b"0000000000 65535 f \n"]
        for offset in self.offsets[1:]:
            if offset < 0:   # reserved and never written: cannot happen, but stay valid
                lines.append(b"0000000000 65535 f \n")
            else:
                lines.append(b"%010d 00000 n \n" % offset)
        self.fh.write(b"".join(lines))
        hexid = ident.hex().encode("ascii")
        info_part = b"/Info %d 0 R" % info if info is not None else b""
        self.fh.write(b"trailer\n<</Size %d/Root %d 0 R%s/ID[<%s><%s>]>>\nstartxref\n%d\n%%%%EOF\n"
                      % (len(self.offsets), root, info_part, hexid, hexid, start))


def _serialize(obj: Any) -> bytes:
    buf = io.BytesIO()
    obj.write_to_stream(buf)
    return buf.getvalue()


class _Part:
    """One input PDF being copied: its objects get new numbers on first reference."""

    def __init__(self, reader, writer: _Writer) -> None:
        self.reader = reader
        self.writer = writer
        self.numbers: dict[int, int] = {}
        self.queue: deque[int] = deque()

    def ref(self, old) -> Any:
        from pypdf.generic import IndirectObject

        number = self.numbers.get(old.idnum)
        if number is None:
            number = self.numbers[old.idnum] = self.writer.reserve()
            self.queue.append(old.idnum)
        return IndirectObject(number, 0, None)

    def remap(self, obj: Any, skip: frozenset[str] = frozenset()) -> Any:
        from pypdf.generic import ArrayObject, DictionaryObject, IndirectObject, StreamObject

        if isinstance(obj, IndirectObject):
            return self.ref(obj)
        if isinstance(obj, StreamObject):
            out = StreamObject()
            for key, value in obj.items():
                if key != "/Length" and key not in skip:
                    out[key] = self.remap(value)
            # The encoded bytes as stored (pypdf keeps them in `_data`; decoding and encoding
            # again would cost time and could change them).
            out.set_data(obj._data)
            return out
        if isinstance(obj, DictionaryObject):
            out = DictionaryObject()
            for key, value in obj.items():
                if key not in skip:
                    out[key] = self.remap(value)
            return out
        if isinstance(obj, ArrayObject):
            return ArrayObject(self.remap(v) for v in obj)
        return obj

    def drain(self) -> None:
        while self.queue:
            old = self.queue.popleft()
            obj = self.reader.get_object(old)
            self.writer.write(self.numbers[old], _serialize(self.remap(obj)))


def join_pdfs(parts: Iterable[str | os.PathLike[str]], out: str | os.PathLike[str]) -> int:
    """Write the pages of `parts`, in order, as one PDF at `out`; return the page count.

    Each part's top-level bookmarks are kept, in order, pointing at their pages.
    """
    from pypdf import PdfReader

    kids: list[int] = []
    bookmarks: list[_Bookmark] = []
    digest = hashlib.sha256()
    info_dict = None
    lang = None
    with open(out, "wb") as fh:
        writer = _Writer(fh)
        pages_root = writer.reserve()
        for path in parts:
            reader = PdfReader(str(path))
            part = _Part(reader, writer)
            ident = reader.trailer.get("/ID")
            digest.update(repr(list(ident) if ident is not None else str(path)).encode())
            if info_dict is None:
                info_dict = reader.metadata
                lang = reader.trailer["/Root"].get_object().get("/Lang")
            refs = [page.indirect_reference for page in reader.pages]
            first = len(kids)
            for ref in refs:   # pages first, so that links and bookmarks find their numbers
                number = part.numbers[ref.idnum] = writer.reserve()
                kids.append(number)
            for ref in refs:
                page = part.remap(ref.get_object(), _PAGE_SKIP)
                from pypdf.generic import IndirectObject, NameObject

                page[NameObject("/Parent")] = IndirectObject(pages_root, 0, None)
                writer.write(part.numbers[ref.idnum], _serialize(page))
            part.drain()
            for item in reader.outline:
                if isinstance(item, list):   # nested bookmarks: only the top level is kept
                    continue
                index = reader.get_destination_page_number(item)
                if index is None:
                    continue
                bookmarks.append(_Bookmark(item.title, kids[first + index],
                                           float(item.get("/Left") or 0),
                                           float(item.get("/Top") or 0)))
            # A reader's objects point back at it: only the cycle collector frees them, and
            # left to itself it lets several parts' worth pile up.
            del part, reader
            gc.collect()
        _finish(writer, pages_root, kids, bookmarks, info_dict, lang, digest.digest()[:16])
    return len(kids)


def _finish(writer: _Writer, pages_root: int, kids: list[int], bookmarks: list[_Bookmark],
            info_dict, lang, ident: bytes) -> None:
    writer.write(pages_root, b"<</Type/Pages/Count %d/Kids[%s]>>"
                 % (len(kids), b" ".join(b"%d 0 R" % k for k in kids)))
    outlines = None
    if bookmarks:
        outlines = writer.reserve()
        numbers = [writer.reserve() for _ in bookmarks]
        for i, (mark, number) in enumerate(zip(bookmarks, numbers)):
            links = b"/Parent %d 0 R" % outlines
            if i > 0:
                links += b"/Prev %d 0 R" % numbers[i - 1]
            if i + 1 < len(numbers):
                links += b"/Next %d 0 R" % numbers[i + 1]
            writer.write(number, b"<<%s/Title %s/Dest[%d 0 R/XYZ %s %s 0]>>"
                         % (links, _serialize(mark.title), mark.page, _num(mark.left),
                            _num(mark.top)))
        writer.write(outlines, b"<</Type/Outlines/First %d 0 R/Last %d 0 R/Count %d>>"
                     % (numbers[0], numbers[-1], len(numbers)))
    catalog = writer.reserve()
    body = b"<</Type/Catalog/Pages %d 0 R" % pages_root
    if outlines is not None:
        body += b"/Outlines %d 0 R" % outlines
    if lang is not None:
        body += b"/Lang " + _serialize(lang)
    writer.write(catalog, body + b">>")
    info = None
    if info_dict:
        from pypdf.generic import DictionaryObject, NameObject

        clean = DictionaryObject()
        for key, value in info_dict.items():
            if not hasattr(value, "idnum"):   # direct strings only (title, producer)
                clean[NameObject(key)] = value
        info = writer.reserve()
        writer.write(info, _serialize(clean))
    writer.finish(catalog, info, ident)


def _num(value: float) -> bytes:
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return (text or "0").encode("ascii")
