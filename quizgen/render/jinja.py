"""quizgen's one Jinja environment: phrases, worked solutions, exam sheets, grade and scan reports.

- ``StrictUndefined``: a missing value is an error, never an empty gap in what a student reads.
- The loader reads the templates folder (``QUIZGEN_TEMPLATES`` names another one); a template is
  named by its path in it: ``solution.md.j2``, ``grade/report.md.j2``, ``sheet/exam.typ.j2``.
- Autoescape by name: HTML templates (``*.html``, ``*.html.j2``) are escaped; text, Markdown,
  Typst and the phrases (templates made from a string) are not.
- A file template ends as its file does (``keep_trailing_newline``).
- A phrase (a template from a string, with no name) prints an integer of 1,000 or more grouped
  ("9,750", `numbers.shown`); file templates print values as they are.
- The filters, registered once: ``num``, ``pct``, ``kb``, ``size`` (the one number formatter's
  forms), ``typst_string``, ``typst_array`` (sheets), ``md`` (a student's text in Markdown).

Phrases are rendered tens of times per problem, so `quizgen.render.fastjinja` compiles the phrase
templates (and the text and Markdown solutions) to Python with these same filters and the same
phrase finalize, and falls back to this environment for what it does not compile.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from quizgen.languages import html_lang
from quizgen.render import numbers
from quizgen.render.typst import typst_string

#: What a phrase prints for ``{{ value }}`` (Jinja's ``finalize``, for templates without a name).
phrase_finalize = numbers.shown


def typst_array(items: Any) -> str:
    """A Typst array literal of strings, e.g. ``("a", "b", )``."""
    return "(" + "".join(typst_string(i) + ", " for i in items) + ")"


_MD_SPECIAL = re.compile(r"([\\`*_\[\]#|~>])")


def md_escape(text: Any) -> str:
    """Text typed by a student, safe inside Markdown (and a table cell): one line, escaped."""
    one = " ".join(str(text).split())
    one = one.replace("&", "&amp;").replace("<", "&lt;")
    return _MD_SPECIAL.sub(r"\\\1", one)


#: The project's filters, by name (the environment's and the compiled phrases').
FILTERS = {"num": numbers.number, "pct": numbers.percent, "kb": numbers.kb, "size": numbers.size,
           "of": numbers.counted, "agree": numbers.agree,
           "typst_string": typst_string, "typst_array": typst_array, "md": md_escape,
           "html_lang": html_lang}


@cache
def environment():
    """The cached environment (built on first use)."""
    import jinja2

    from quizgen.resources import data_dir

    @jinja2.pass_context
    def finalize(context, value: Any) -> Any:
        return phrase_finalize(value) if context.name is None else value

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(data_dir("templates"))),
        undefined=jinja2.StrictUndefined,
        autoescape=jinja2.select_autoescape(("html", "html.j2"), default_for_string=False,
                                            default=False),
        keep_trailing_newline=True,
        finalize=finalize,
    )
    env.filters.update(FILTERS)
    return env


def template(name: str):
    """The file template `name` (its path in the templates folder)."""
    return environment().get_template(name)
