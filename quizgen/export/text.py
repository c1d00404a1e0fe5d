"""Problems as Markdown, HTML or JSON (what `quizgen generate` prints)."""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Iterator

from quizgen.problems.model import Problem
from quizgen.languages import html_lang
from quizgen.render.text import render_solution

_HTML_HEAD = """<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>quizgen problems</title>
<style>body{{font-family:system-ui,sans-serif;max-width:46rem;margin:auto;padding:1rem;line-height:1.5}}
.quizgen-problem{{border-top:1px solid #8884;padding-top:1rem;margin-top:1.5rem}}.note{{opacity:.8}}
math{{font-size:1.1em;math-style:normal}}</style>
</head><body>
"""


def _choices_md(problem: Problem) -> str:
    if not problem.choices:
        return ""
    from quizgen.render.answers import answer_name

    letters = "ABCDEFGH"
    head = f"*{answer_name(problem.main_answer, problem.lang)}:*\n" if problem.main_answer else ""
    return head + "\n".join(f"- ({letters[i]}) {c.text}" for i, c in enumerate(problem.choices)) + "\n\n"


def write_problems(problems: list[Problem], fmt: str, lang: str) -> str:
    return "".join(iter_problems_text(problems, fmt, lang))


def iter_problems_text(problems: Iterable[Problem], fmt: str, lang: str) -> Iterator[str]:
    """The text of `write_problems` in pieces, one problem at a time (memory flat in their number)."""
    if fmt == "json":
        first = True
        for p in problems:
            item = json.dumps(p.to_dict(), ensure_ascii=False, indent=2)
            # the same text as json.dumps of the whole list, indent=2
            yield ("[\n  " if first else ",\n  ") + item.replace("\n", "\n  ")
            first = False
        yield "[]\n" if first else "\n]\n"
        return
    if fmt == "md":
        for p in problems:
            parts = [f"<!-- {p.id} · {p.cell} · level {p.level} -->\n"]
            body = render_solution(p.solution, p.lang, "md", title=f"{p.cell} · {p.title}",
                                   question=p.question)
            # the options follow the whole question (which may hold several paragraphs, code)
            at = body.find(p.question) + len(p.question) if p.question else body.find("\n\n")
            head, rest = body[:at].rstrip("\n"), body[at:].lstrip("\n")
            parts.append(head + "\n\n")
            parts.append(_choices_md(p))
            parts.append(rest)
            parts.append("\n---\n\n")
            yield "".join(parts)
        return
    yield _HTML_HEAD.format(lang=html_lang(lang))
    for p in problems:
        parts = [f"<!-- {html.escape(p.id)} -->\n"]
        parts.append(render_solution(p.solution, p.lang, "html", title=f"{p.cell} · {p.title}",
                                     question=p.question))
        if p.choices:
            items = "".join(f"<li>{html.escape(c.text)}</li>" for c in p.choices)
            parts.append(f"<ol type=A class=choices>{items}</ol>\n")
        yield "".join(parts)
    yield "</body></html>\n"
