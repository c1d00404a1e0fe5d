"""quizgen's one Jinja environment: phrases, worked solutions, exam sheets, grade and scan reports.

- Sandboxed (Jinja's ``ImmutableSandboxedEnvironment``): a template, ours or one from a folder
  ``QUIZGEN_TEMPLATES`` names, reads no attribute starting with ``_``, calls nothing marked
  unsafe and changes no list or dict it is given; one that tries is a `TemplateError` (one line
  naming the template and its line), as is any other template that cannot be read or rendered.
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

Every template is compiled once per process: file templates are kept by the environment (no
size limit), phrases by `phrase_renderer` (one function per text, rendered from a plain dict; a
plain phrase, values and conditions only, by `quizgen.render.plain` without Jinja's context,
to the same text).
Jinja's compiled code is also kept between processes, in Jinja's own bytecode cache (`cache_dir`,
a folder only this user may open), keyed by the template's source and the versions of Python and
Jinja: compiling the 750 phrases of the default deck takes about as long as building the rest.
"""

from __future__ import annotations

import re
import sys
import traceback
from functools import cache
from typing import Any, Callable

import jinja2
from jinja2.nodes import EvalContext
from jinja2.runtime import Context, LoopContext
from jinja2.sandbox import ImmutableSandboxedEnvironment

from quizgen.errors import QuizgenError
from quizgen.resources import cache_dir, private_folder as _private_folder  # noqa: F401
from quizgen.languages import html_lang
from quizgen.render import numbers
from quizgen.render.plain import DICT_ATTRS, CodeStore, plain_phrase
from quizgen.xmltext import xml_text
from quizgen.render.typst import typst_string

#: What a phrase prints for ``{{ value }}`` (Jinja's ``finalize``, for templates without a name).
phrase_finalize = numbers.shown


class TemplateError(QuizgenError):
    """A template (a file or a phrase) that cannot be compiled or rendered: one line naming it
    and its line."""


def typst_array(items: Any) -> str:
    """A Typst array literal of strings, e.g. ``("a", "b", )``."""
    return "(" + "".join(typst_string(i) + ", " for i in items) + ")"


_MD_SPECIAL = re.compile(r"([\\`*_\[\]#|~>])")


def md_escape(text: Any) -> str:
    """Text typed by a student, safe inside Markdown (and a table cell): one line, escaped."""
    one = " ".join(str(text).split())
    one = one.replace("&", "&amp;").replace("<", "&lt;")
    return _MD_SPECIAL.sub(r"\\\1", one)


#: The project's filters, by name.
FILTERS = {"num": numbers.number, "pct": numbers.percent, "kb": numbers.kb, "size": numbers.size,
           "of": numbers.counted, "agree": numbers.agree,
           "typst_string": typst_string, "typst_array": typst_array, "md": md_escape,
           "html_lang": html_lang}


#: A for loop's own variables (``loop.index``, ``loop.last``, …): public, read only.
_LOOP_ATTRS = frozenset(name for name in dir(LoopContext) if not name.startswith("_"))


class Sandbox(ImmutableSandboxedEnvironment):
    """Jinja's immutable sandbox, with quick paths for the commonest lookups of all, each giving
    what the sandbox gives: a key of a plain dict (``gpu.regs_per_sm``: a failed ``getattr``,
    then the item, without raising and catching an AttributeError first), and a loop's own
    variables (``loop.index``: public attributes of Jinja's loop, safe by the sandbox's rules)."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if obj.__class__ is dict and attribute not in DICT_ATTRS:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        if obj.__class__ is LoopContext and attribute in _LOOP_ATTRS:
            return getattr(obj, attribute)
        return super().getattr(obj, attribute)


@jinja2.pass_context
def _finalize(context, value: Any) -> Any:
    if value.__class__ is str:
        # an HTML page holds only what XML 1.0 allows (a student's answer or a roster name
        # pasted from a PDF can carry control characters): `quizgen.xmltext`
        return xml_text(value) if context.name is not None and context.eval_ctx.autoescape \
            else value
    if context.name is not None:
        return value
    return phrase_finalize(value)


class PhraseContext(Context):
    """The context Jinja makes for a template without a name, blocks or globals rendered with
    ``new_context(values, shared=True)`` (what every phrase is), built without working out
    again each time what those make: no autoescape (a phrase is text), nothing but `values`."""

    def __init__(self, environment: jinja2.Environment, values: dict[str, Any]) -> None:
        self.parent = values
        self.vars = {}
        self.environment = environment
        self.eval_ctx = eval_ctx = EvalContext.__new__(EvalContext)
        eval_ctx.environment, eval_ctx.autoescape, eval_ctx.volatile = environment, False, False
        self.exported_vars = set()
        self.name = None
        self.globals_keys = _NO_GLOBALS
        self.blocks = {}


_NO_GLOBALS: frozenset[str] = frozenset()


#: The bytecode cache's file names: the number changes with the environment's options (code
#: compiled under other options is never read).
CACHE_PATTERN = "__quizgen_sandbox_1_%s.cache"
#: The file of the plain phrases' compiled code (`quizgen.render.plain`), per Python version.
PLAIN_PATTERN = "__quizgen_plain_phrases_%s.marshal"


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    """Jinja's bytecode cache in `cache_dir`, or None (compile every time) where that folder
    cannot be used (`_private_folder`)."""
    folder = _private_folder()
    if folder is None:
        return None
    return jinja2.FileSystemBytecodeCache(str(folder), pattern=CACHE_PATTERN)


@cache
def _plain_store() -> CodeStore | None:
    """The plain phrases' compiled code, kept in `cache_dir` (one file per Python)."""
    folder = _private_folder()
    if folder is None:
        return None
    # valid for this Jinja and these filters (a phrase's code calls them by name)
    filters = ",".join(f"{name}:{getattr(fn, 'jinja_pass_arg', '')}"
                       for name, fn in sorted(environment().filters.items()))
    return CodeStore(folder / (PLAIN_PATTERN % sys.implementation.cache_tag),
                     f"{jinja2.__version__}|{filters}")


@cache
def environment() -> Sandbox:
    """The one environment (built on first use)."""
    from quizgen.resources import data_dir

    env = Sandbox(
        loader=jinja2.FileSystemLoader(str(data_dir("templates"))),
        undefined=jinja2.StrictUndefined,
        autoescape=jinja2.select_autoescape(("html", "html.j2"), default_for_string=False,
                                            default=False),
        keep_trailing_newline=True,
        finalize=_finalize,
        cache_size=-1,       # every file template compiled once
        bytecode_cache=_bytecode_cache(),
    )
    env.filters.update(FILTERS)
    return env


def _line(exc: BaseException, filename: str | None) -> int | None:
    """The template line where `exc` happened, from the traceback Jinja rewrote for it."""
    lineno = getattr(exc, "lineno", None)         # a syntax error knows its line
    if lineno:
        return lineno
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if frame.filename == (filename or "<template>"):
            return frame.lineno
    return None


def template_error(what: str, exc: BaseException, filename: str | None = None) -> TemplateError:
    """`exc`, raised compiling or rendering template `what`, as one line naming it and its line."""
    if isinstance(exc, TemplateError):
        return exc
    line = _line(exc, filename)
    if isinstance(exc, jinja2.TemplateNotFound):
        message = f"no template {exc.name!r} in {environment().loader.searchpath[0]}"
    else:
        message = " ".join(str(exc).split()) or type(exc).__name__
    return TemplateError(f"{what}{f', line {line}' if line else ''}: {message}", field="template")


class FileTemplate:
    """A file template of the environment, rendered with keyword values."""

    __slots__ = ("name", "_template")

    def __init__(self, name: str, compiled: jinja2.Template) -> None:
        self.name, self._template = name, compiled

    def render(self, **context: Any) -> str:
        try:
            return self._template.render(**context)
        except Exception as exc:
            raise template_error(self._where(), exc, self._template.filename) from None

    def _where(self) -> str:
        return self._template.filename or self.name


def template(name: str) -> FileTemplate:
    """The file template `name` (its path in the templates folder), compiled once."""
    env = environment()
    try:
        return FileTemplate(name, env.get_template(name))
    except Exception as exc:
        raise template_error(name, exc, getattr(exc, "filename", None)) from None


def _phrase_template(env: Sandbox, text: str) -> jinja2.Template:
    """`env.from_string(text)`, its compiled code taken from the bytecode cache when there."""
    cache_ = env.bytecode_cache
    if cache_ is None:
        return env.from_string(text, globals={})
    bucket = cache_.get_bucket(env, text, None, text)    # one file per phrase text
    if bucket.code is None:
        bucket.code = env.compile(text)
        try:
            cache_.set_bucket(bucket)
        except OSError:          # a full or read-only temporary folder: compiled, not kept
            pass
    return env.template_class.from_code(env, bucket.code, {})


@cache
def phrase_renderer(text: str) -> Callable[[dict[str, Any]], str]:
    """The phrase `text` compiled once, as a function of one plain dict of values.

    A plain phrase (`quizgen.render.plain`: values, a sum or product of two, a filter) is
    rendered without Jinja, to the text Jinja writes; when a value cannot be looked up that way,
    and for every other phrase, Jinja renders it (compiled on first need).
    Errors come out as Jinja raised them (`phrase_error` names the phrase)."""
    plain = plain_phrase(text, phrase_finalize, environment().filters, _plain_store())
    if plain is None:
        return _jinja_phrase(text)

    def render(values: dict[str, Any]) -> str:
        try:
            return plain(values)
        except Exception:
            return _jinja_phrase(text)(values)

    return render


@cache
def _jinja_phrase(text: str) -> Callable[[dict[str, Any]], str]:
    """The phrase `text` compiled by Jinja, rendered with a context whose values are the dict
    itself (no globals, nothing copied: `PhraseContext`); a name the dict lacks is an error."""
    env = environment()
    compiled = _phrase_template(env, text)
    root = compiled.root_render_func
    if compiled.blocks or env.autoescape(None):    # not a phrase's: Jinja's own context
        return lambda values: compiled.render(values)

    def render(values: dict[str, Any]) -> str:
        try:
            return "".join(root(PhraseContext(env, values)))
        except Exception:
            env.handle_exception()     # the traceback in the template's lines

    return render


def phrase_error(what: str, exc: BaseException) -> TemplateError:
    """`exc` from compiling or rendering the phrase `what`, as one line."""
    return template_error(what, exc, None)
