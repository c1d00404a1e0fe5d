"""A small compiler for the Jinja subset our phrase files use, to plain Python functions.

Phrases are rendered tens of times per problem; Jinja's per-render context setup costs more than
the text itself. Our phrase templates (our own files, never user input) use only ``{{ expr }}``
with arithmetic, attribute access, the project's filters (`quizgen.render.jinja.FILTERS`),
``upper, lower, join, format, replace, length, string``, and ``{% if/elif/else %}``,
``{% set x = … %}`` and ``{% for x in y %}`` with ``loop.last`` / ``loop.index``. This module compiles exactly that
subset; anything else raises `Unsupported`, and `phrase_function` / `file_template` fall back to
the one Jinja environment (`quizgen.render.jinja.environment`). Semantics follow Jinja's:
attribute lookup tries ``getattr`` then the item, an undefined name is an error (like
``StrictUndefined``), ``x is none`` tests for None; a phrase prints values through the
environment's phrase finalize. ``tests/phrase_sweep.py`` renders every variant of every phrase
both ways (with QUIZGEN_CHECK_PHRASES set) and fails where they differ or where a variant is
never reached; the few variants outside the subset are rendered by the environment itself.

Why it stays (measured on one core, 3,000 problems a round, best of three): generation renders
4,483 (Hinglish) and 4,625 (English) problems/s with compiled phrases, 3,018 and 3,232 with every
phrase rendered by Jinja (30-33% slower; Jinja's fastest call, a shared context, is used); the
default deck builds in 2.34-2.41 s against 2.74-2.80 s. Measured again once the writers wrote
the problems (CPU time, a loaded machine): 3,243-4,269 against 2,277-2,792 problems/s, and
2.6-2.8 s against 3.2 s of CPU for the default deck.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from typing import Any, Callable

_TOKENS = re.compile(r"(\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\})", re.S)


class Unsupported(Exception):
    """The template uses something outside the compiled subset."""


class _Loop:
    __slots__ = ("index0", "length")

    def __init__(self, index0: int, length: int) -> None:
        self.index0 = index0
        self.length = length

    @property
    def index(self) -> int:
        return self.index0 + 1

    @property
    def first(self) -> bool:
        return self.index0 == 0

    @property
    def last(self) -> bool:
        return self.index0 == self.length - 1


_DICT_ATTRS = frozenset(dir(dict))


def _get(obj: Any, name: str) -> Any:
    # Jinja tries the attribute first, then the item; for a plain dict the attribute exists only
    # for dict's own methods, so look the key up directly (much quicker than a failed getattr).
    if type(obj) is dict and name not in _DICT_ATTRS:
        try:
            return obj[name]
        except KeyError:
            raise KeyError(f"{name!r} is undefined on dict") from None
    try:
        return getattr(obj, name)
    except AttributeError:
        pass
    try:
        return obj[name]
    except (TypeError, LookupError):
        raise KeyError(f"{name!r} is undefined on {type(obj).__name__}") from None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


def _rewrite_filters(expr: str) -> str:
    """`a|f(x)` → `_f_f(a, x)`, applied until no filter is left (filters bind to the primary)."""
    expr = re.sub(r"\bis\s+not\s+none\b", "is not None", expr)
    expr = re.sub(r"\bis\s+none\b", "is None", expr)
    for _ in range(50):
        match = None
        in_str = None
        for i, ch in enumerate(expr):
            if in_str:
                if ch == in_str:
                    in_str = None
                continue
            if ch in "'\"":
                in_str = ch
            elif ch == "|":
                match = i
                break
        if match is None:
            return expr
        name_match = re.match(r"\|\s*([A-Za-z_]\w*)", expr[match:])
        if not name_match or name_match.group(1) not in filters():
            raise Unsupported(f"filter at {expr[match:]!r}")
        name = name_match.group(1)
        after = match + name_match.end()
        args = ""
        if after < len(expr) and expr[after] == "(":
            depth, j = 0, after
            while j < len(expr):
                if expr[j] == "(":
                    depth += 1
                elif expr[j] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            args = expr[after + 1:j]
            after = j + 1
        # The primary to the left of '|'.
        k = match
        while k > 0 and expr[k - 1] == " ":
            k -= 1
        end = k
        if end and expr[end - 1] == ")":
            depth, k = 0, end - 1
            while k >= 0:
                if expr[k] == ")":
                    depth += 1
                elif expr[k] == "(":
                    depth -= 1
                    if depth == 0:
                        break
                k -= 1
            start = k
            while start > 0 and (expr[start - 1].isalnum() or expr[start - 1] in "_."):
                start -= 1
        elif end and expr[end - 1] in "'\"":
            quote = expr[end - 1]
            start = expr.rindex(quote, 0, end - 1)
        else:
            start = end
            while start > 0 and (expr[start - 1].isalnum() or expr[start - 1] in "_.[]"):
                start -= 1
        primary = expr[start:end]
        if not primary:
            raise Unsupported(f"no value before filter in {expr!r}")
        call = f"_f_{name}({primary}{', ' + args if args.strip() else ''})"
        expr = expr[:start] + call + expr[after:]
    raise Unsupported("too many filters")


class _Names(ast.NodeTransformer):
    def __init__(self, local: set[str]) -> None:
        self.local = local

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.local or node.id.startswith("_f_") or node.id in ("None", "True", "False"):
            return node
        if node.id in ("true", "false", "none"):
            return ast.copy_location(ast.Constant({"true": True, "false": False, "none": None}[node.id]), node)
        return ast.copy_location(ast.Subscript(ast.Name("_c", ast.Load()), ast.Constant(node.id),
                                               ast.Load()), node)

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        value = self.visit(node.value)
        return ast.copy_location(ast.Call(ast.Name("_get", ast.Load()),
                                          [value, ast.Constant(node.attr)], []), node)

    def visit_Lambda(self, node):  # not part of the subset
        raise Unsupported("lambda")


_CONSTANTS = {"true": "True", "false": "False", "none": "None",
              "True": "True", "False": "False", "None": "None"}
#: an expression of names (dotted or not), numbers, operators and calls of filters only
_PLAIN = re.compile(r"[\w\s.+\-*/%<>=!(),]*")
_NAME = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_KEYWORDS = frozenset({"and", "or", "not", "in", "is", "if", "else"})


def _path(text: str, local: set[str]) -> str:
    """A name or dotted name (``a.b.c``) as the code `_Names` would make of it."""
    head, *attrs = text.split(".")
    if head in _KEYWORDS or head in local or head.startswith("_f_"):
        code = head
    else:
        code = _CONSTANTS.get(head) or f"_c[{head!r}]"
    for attr in attrs:
        code = f"_get({code}, {attr!r})"
    return code


def _expr(source: str, local: set[str]) -> str:
    text = _rewrite_filters(source.strip())
    if _PLAIN.fullmatch(text):
        # Most holes (``t.name|num``, ``B * w``, ``result != 1``, ``not loop.last``) are written
        # directly, each name a context lookup: a quarter of the cost of the parse below.
        return _NAME.sub(lambda m: _path(m.group(), local), text)
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise Unsupported(str(exc)) from None
    for node in ast.walk(tree):
        if isinstance(node, (ast.Lambda, ast.NamedExpr, ast.Await, ast.Yield, ast.ListComp,
                             ast.DictComp, ast.SetComp, ast.GeneratorExp)):
            raise Unsupported(type(node).__name__)
    tree = _Names(local).visit(tree)
    ast.fix_missing_locations(tree)
    return ast.unparse(tree)


def _targets(source: str) -> list[str]:
    names = [n.strip() for n in source.split(",")]
    if not all(re.fullmatch(r"[A-Za-z_]\w*", n) for n in names):
        raise Unsupported(f"for target {source!r}")
    return names


def _hole(code: str, finalize: bool = False) -> str:
    """Source of an f-string printing the value of `code` as str() does (quicker than a call),
    or of a call to the template's `finalize` (as Jinja's ``finalize`` option does)."""
    if "\\" not in code and "{" not in code and "}" not in code:
        for quote in ("'", '"', "'''", '"""'):
            if quote not in code:
                return (f"f{quote}{{_fin({code})}}{quote}" if finalize
                        else f"f{quote}{{({code})!s}}{quote}")
    return f"(_fin({code}))" if finalize else f"(_text({code}))"


def compile_function(text: str, finalize: Callable[[Any], str] | None = None
                     ) -> Callable[[dict[str, Any]], str]:
    """Compile `text` to a function render(context_dict) -> str, or raise `Unsupported`.

    A template without tags becomes one string expression (literal pieces and f-string holes);
    one with tags becomes a function that appends pieces to a list. `finalize` turns each
    printed value into text, as Jinja's ``finalize`` option does (default: str()).
    """
    fin = finalize is not None
    parts = [p for p in _TOKENS.split(text) if p and not p.startswith("{#")]
    if not any(p.startswith("{%") for p in parts):
        pieces = []
        for part in parts:
            if part.startswith("{{"):
                inner = part[2:-2]
                if inner.startswith("-") or inner.endswith("-"):
                    raise Unsupported("whitespace control")
                pieces.append(_hole(_expr(inner, set()), fin))
            else:
                pieces.append(repr(part))
        # literals and f-strings join by adjacency; a call (a hole with braces) needs a '+'
        joiner = " + " if any(p.startswith("(") for p in pieces) else " "
        lines = ["def _render(_c):", f" return {joiner.join(pieces) or repr('')}"]
    else:
        lines = _statements(parts, fin)
    namespace: dict[str, Any] = {"_get": _get, "_Loop": _Loop, "_text": _text, "_fin": finalize}
    namespace.update({f"_f_{name}": fn for name, fn in filters().items()})
    try:
        exec(compile("\n".join(lines), "<phrase>", "exec"), namespace)  # our own templates only
    except SyntaxError as exc:
        raise Unsupported(str(exc)) from None
    return namespace["_render"]


def _statements(parts: list[str], fin: bool = False) -> list[str]:
    lines = ["def _render(_c):", " _o = []", " _a = _o.append"]
    depth = 1
    local: list[set[str]] = [set()]
    stack: list[str] = []
    counter = 0
    for part in parts:
        pad = " " * depth
        if part.startswith("{{"):
            inner = part[2:-2]
            if inner.startswith("-") or inner.endswith("-"):
                raise Unsupported("whitespace control")
            lines.append(f"{pad}_a({_hole(_expr(inner, set().union(*local)), fin)})")
        elif part.startswith("{%"):
            inner = part[2:-2].strip()
            if inner.startswith("-") or inner.endswith("-"):
                raise Unsupported("whitespace control")
            word, _, rest = inner.partition(" ")
            if word == "if":
                lines.append(f"{pad}if {_expr(rest, set().union(*local))}:")
                lines.append(f"{pad} pass")
                depth += 1
                stack.append("if")
            elif word == "elif":
                if not stack or stack[-1] != "if":
                    raise Unsupported("elif outside if")
                lines.append(f"{' ' * (depth - 1)}elif {_expr(rest, set().union(*local))}:")
                lines.append(f"{pad}pass")
            elif word == "else":
                if not stack or stack[-1] != "if":
                    raise Unsupported("else outside if")
                lines.append(f"{' ' * (depth - 1)}else:")
                lines.append(f"{pad}pass")
            elif word == "endif":
                if not stack or stack.pop() != "if":
                    raise Unsupported("endif")
                depth -= 1
            elif word == "for":
                target, sep, iterable = rest.partition(" in ")
                if not sep:
                    raise Unsupported("for without in")
                names = _targets(target)
                items = f"_it{counter}"
                counter += 1
                lines.append(f"{pad}{items} = list({_expr(iterable, set().union(*local))})")
                lines.append(f"{pad}for _i{counter}, {names[0]} in enumerate({items}):"
                             if len(names) == 1 else
                             f"{pad}for _i{counter}, ({', '.join(names)}) in enumerate({items}):")
                lines.append(f"{pad} loop = _Loop(_i{counter}, len({items}))")
                depth += 1
                local.append(set(names) | {"loop"})
                stack.append("for")
            elif word == "set":
                name, eq, value = rest.partition("=")
                name = name.strip()
                if not eq or not re.fullmatch(r"[A-Za-z_]\w*", name):
                    raise Unsupported(f"set {rest!r}")
                lines.append(f"{pad}{name} = {_expr(value, set().union(*local))}")
                local[-1].add(name)
            elif word == "endfor":
                if not stack or stack.pop() != "for":
                    raise Unsupported("endfor")
                local.pop()
                depth -= 1
            else:
                raise Unsupported(f"tag {word!r}")
        else:
            lines.append(f"{pad}_a({part!r})")
    if stack:
        raise Unsupported("unclosed block")
    lines.append(" return ''.join(_o)")
    return lines


def compile_template(text: str) -> Callable[..., str]:
    """Compile `text` to a function render(**context) -> str, or raise `Unsupported`."""
    fn = compile_function(text)

    def render(**context: Any) -> str:
        return fn(context)

    return render


@cache
def filters() -> dict[str, Callable[..., Any]]:
    """The filters a compiled template may use: the environment's own (the project's), and
    Jinja's built-ins of the subset written as plain functions."""
    from quizgen.render.jinja import FILTERS

    return {
        **FILTERS,
        "upper": lambda v: _text(v).upper(),
        "lower": lambda v: _text(v).lower(),
        "join": lambda v, d="": d.join(_text(x) for x in v),
        "format": lambda v, *args: v % args,
        "replace": lambda v, old, new, count=-1: _text(v).replace(old, new, count),
        "length": len,
        "string": _text,
    }


def phrase_function(text: str) -> Callable[[dict[str, Any]], str]:
    """The phrase `text` as a function of one context dict: compiled, or the environment's
    template where `text` uses what the compiler does not cover."""
    from quizgen.render.jinja import phrase_finalize

    try:
        return compile_function(text, phrase_finalize)
    except Unsupported:
        return jinja_function(text)


def jinja_function(text: str) -> Callable[[dict[str, Any]], str]:
    """The phrase `text` rendered by the environment from a dict, with a shared context (no
    globals merged per call: Jinja's quickest call)."""
    from quizgen.render.jinja import environment

    template = environment().from_string(text)

    def render(context: dict[str, Any]) -> str:
        return "".join(template.root_render_func(template.new_context(context, shared=True)))

    return render


def file_template(name: str) -> Callable[..., str]:
    """The file template `name` as render(**context): compiled where the environment does not
    escape it and the compiler covers it, else the environment's."""
    from quizgen.render.jinja import environment

    env = environment()
    if not env.autoescape(name):
        source = env.loader.get_source(env, name)[0]
        try:
            return compile_template(source)
        except Unsupported:
            pass
    return env.get_template(name).render
