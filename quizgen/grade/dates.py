"""Answers a spreadsheet turned into dates, recognised before they are read as numbers."""

from __future__ import annotations

import re

from quizgen.grade.reading import Parsed, quote, why

# A spreadsheet turns a typed fraction into a date ("4/1" → 4/1/2026 or 1-Apr, "3/8" → 8-Mar):
# such an answer is what a program made of the student's, not the student's answer, so it is
# unreadable (a teacher reviews it), never a number that happens to be wrong (4/1/2026 would be
# 2/1013 and 2026-01-04 would be 2021).
_MONTHS = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*"
_DATE = re.compile(
    r"\s*(?:"
    r"\d{1,2}[/.-]\d{1,2}[/.-](?:19|20)\d\d"                    # 4/1/2026, 01-04-2026, 1.4.2026
    r"|(?:19|20)\d\d[/.-]\d{1,2}[/.-]\d{1,2}(?:[ T]\d\d?:\d\d(?::\d\d)?)?"   # 2026-04-01
    rf"|\d{{1,2}}[ -]{_MONTHS}(?:[ -]\d{{2,4}})?"                   # 1-Apr, 01-Apr-26
    rf"|{_MONTHS}[ -]\d{{1,4}}(?:[ -,]+\d{{2,4}})?"                  # Apr-01, April 1, 2026
    r")\s*", re.IGNORECASE | re.ASCII)


def date_shaped(text: str) -> Parsed | None:
    """The unreadable `Parsed` of a date-shaped answer (a teacher reviews it); None otherwise."""
    if len(text) <= 40 and _DATE.fullmatch(text):
        return Parsed(False, None, "expression", None, text,
                      why("date_shaped", text=quote(text.strip())))
    return None
