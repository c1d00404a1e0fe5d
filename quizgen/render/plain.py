"""Plain phrases, rendered without Jinja's machinery to the very text Jinja writes.

Most phrases print values and choose words by a condition: ``{{ B }} block{% if B != 1 %}s{%
endif %}``, ``{{ (B * need)|num }} B``, ``{{ n|agree('leta hai', 'lete hain') }}``. Rendering one
through Jinja costs a context, a generator and a lookup function per value, and loading its
compiled code; a worked solution prints a few dozen. `plain_phrase` reads this part of Jinja's
language and nothing more:

- values: a name of the phrase's values, a key of a plain dict among them (``gpu.regs_per_sm``,
  never one of dict's own attributes), a whole number or a quoted string without backslashes;
- ``+ - * / // %``, one comparison (``== != < <= > >=``), ``not``, ``and``, ``or``, parentheses,
  with Jinja's precedence (a filter binds to the value before it: ``a * b|num`` is
  ``a * (b|num)``);
- filters of the environment that take no context (the project's ``num``, ``of``, ``agree``, …,
  Jinja's ``format``), with arguments in parentheses;
- ``{% if %}``, ``{% elif %}``, ``{% else %}``, ``{% endif %}``.

Everything else (loops, tests, calls, subscripts, a minus sign before a value, Jinja's constants,
comments, white-space control, a carriage return) is Jinja's: `plain_phrase` gives None. A plain
phrase reads only what the sandbox lets a phrase read (its values and keys of plain dicts) and
calls only the environment's filters, as Jinja would. It prints what Jinja prints: each value
through the environment's ``finalize``, then ``str``; operators are Python's, as in Jinja's
compiled code. A value that cannot be found the way the phrase says (a missing name, a key of
something that is not a dict) raises, and the caller renders the phrase with Jinja, which prints
it or raises Jinja's own error.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import marshal
import os
import re
import tempfile
from pathlib import Path
from types import CodeType
from typing import Any, Callable

Getter = Callable[[dict[str, Any]], Any]

#: A phrase cut into text, ``{{ … }}`` and ``{% … %}`` (Jinja's default delimiters).
_TAGS = re.compile(r"(\{\{.*?\}\}|\{%.*?%\})", re.S)
#: A token of an expression, after optional white space.
_TOKEN = re.compile(r"\s*(//|==|!=|<=|>=|[-+*/%|()<>,]|'[^'\\]*'|\"[^\"\\]*\"|"
                    r"[A-Za-z_][A-Za-z0-9_.]*|0|[1-9][0-9]*)")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ARITH = frozenset({"+", "-"})
_TERMS = frozenset({"*", "/", "//", "%"})
_COMPARE = frozenset({"==", "!=", "<", "<=", ">", ">="})
_OR, _AND = frozenset({"or"}), frozenset({"and"})
#: Names Jinja reads as something other than a value of the phrase.
_RESERVED = frozenset({"true", "false", "none", "True", "False", "None", "and", "or", "not",
                       "in", "is", "if", "else", "elif", "endif", "for", "self", "loop",
                       "caller", "varargs", "kwargs"})
#: dict's own attributes: ``d.items`` in a phrase is the method (the sandbox's), not a key.
DICT_ATTRS = frozenset(dir(dict))


class NotPlain(Exception):
    """Not this module's part of Jinja (while reading a phrase), or a value it does not look up
    (while rendering one): Jinja does it."""


def _tokens(expression: str) -> list[str]:
    out, at, end = [], 0, len(expression.rstrip())
    while at < end:
        found = _TOKEN.match(expression, at)
        if found is None:
            raise NotPlain(expression)
        out.append(found.group(1))
        at = found.end()
    return out


class _Expression:
    """A recursive-descent reader of one expression's tokens, writing it as Python source over
    `v` (the values), `_key` (a key of a plain dict) and `_f` (the filters it names, by number, in `used`)."""

    def __init__(self, tokens: list[str], filters: dict[str, Callable],
                 used: list[str]) -> None:
        self.tokens, self.at, self.filters, self.used = tokens, 0, filters, used

    def read(self) -> str:
        source = self._or()
        if self.at != len(self.tokens):
            raise NotPlain(self.tokens[self.at])
        return source

    def _peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def _take(self, token: str | None = None) -> str:
        current = self._peek()
        if current is None or token is not None and current != token:
            raise NotPlain(token)
        self.at += 1
        return current

    def _or(self) -> str:
        return self._binary(self._and, _OR)

    def _and(self) -> str:
        return self._binary(self._not, _AND)

    def _not(self) -> str:
        if self._peek() == "not":
            self.at += 1
            return f"(not {self._not()})"
        return self._compare()

    def _compare(self) -> str:
        left = self._binary(self._terms, _ARITH)
        op = self._peek()
        if op not in _COMPARE:
            return left
        self.at += 1
        right = self._binary(self._terms, _ARITH)
        if self._peek() in _COMPARE:        # a chain of comparisons: Jinja's
            raise NotPlain("chain")
        return f"({left} {op} {right})"

    def _terms(self) -> str:
        return self._binary(self._filtered, _TERMS)

    def _binary(self, operand: Callable[[], str], ops: frozenset[str]) -> str:
        left = operand()
        while self._peek() in ops:
            op = self._take()
            left = f"({left} {op} {operand()})"
        return left

    def _filtered(self) -> str:
        source = self._primary()
        while self._peek() == "|":
            self.at += 1
            name = self._take()
            fn = self.filters.get(name)
            if fn is None or getattr(fn, "jinja_pass_arg", None) is not None:
                raise NotPlain(name)
            args = [source]
            if self._peek() == "(":
                self.at += 1
                while self._peek() != ")":
                    args.append(self._or())
                    if self._peek() != ")":
                        self._take(",")
                self.at += 1
            self.used.append(name)
            source = f"_f[{len(self.used) - 1}]({', '.join(args)})"
        return source

    def _primary(self) -> str:
        token = self._take()
        if token == "(":
            inner = self._or()
            self._take(")")
            return inner
        if token[0] in "'\"":
            return repr(token[1:-1])
        if token[0].isdigit():
            return str(int(token))
        name, *keys = token.split(".")
        if not _IDENT.fullmatch(name) or name in _RESERVED or any(
                not _IDENT.fullmatch(key) or key in DICT_ATTRS for key in keys):
            raise NotPlain(token)
        source = f"v[{name!r}]"
        for key in keys:
            source = f"_key({source}, {key!r})"
        return source


def _key(value: Any, key: str) -> Any:
    """`value[key]` of a plain dict (what the sandbox's ``value.key`` gives); Jinja does the rest."""
    if value.__class__ is not dict:
        raise NotPlain(key)
    return value[key]


def _source(text: str, filters: dict[str, Callable], used: list[str]) -> str:
    """The phrase as one Python expression over the values (raises NotPlain)."""
    root: list[str] = []
    stack: list[tuple[list[str], list[list[Any]]]] = []  # (body the choice sits in, branches)
    body = root
    parts = _TAGS.split(text)
    for i, part in enumerate(parts):
        if i % 2 == 0:
            # a "{" just before a tag makes "{{%" or "{{{", where Jinja's "{{" starts first
            if "{{" in part or "{%" in part or "{#" in part or (
                    part.endswith("{") and i + 1 < len(parts)):
                raise NotPlain(part)
            if part:
                body.append(repr(part))
            continue
        inner = part[2:-2]
        if part[1] == "{":
            body.append(f"_o({_Expression(_tokens(inner), filters, used).read()})")
            continue
        words = _tokens(inner)
        head = words[0] if words else ""
        if head == "if":
            branches: list[list[Any]] = [[_Expression(words[1:], filters, used).read(), []]]
            stack.append((body, branches))
            body = branches[0][1]
        elif head in ("elif", "else") and stack and stack[-1][1][-1][0] is not None:
            if head == "else" and len(words) != 1:
                raise NotPlain(inner)
            condition = _Expression(words[1:], filters, used).read() if head == "elif" else None
            stack[-1][1].append([condition, []])
            body = stack[-1][1][-1][1]
        elif head == "endif" and len(words) == 1 and stack:
            outer, branches = stack.pop()
            choice = "''" if branches[-1][0] is not None else _joined(branches[-1][1])
            for condition, branch in reversed(branches):
                if condition is not None:
                    choice = f"({_joined(branch)} if {condition} else {choice})"
            outer.append(choice)
            body = outer
        else:
            raise NotPlain(inner)
    if stack:
        raise NotPlain("if")
    return _joined(root)


def _joined(pieces: list[str]) -> str:
    if not pieces:
        return "''"
    if len(pieces) == 1:
        return pieces[0]
    return "''.join((" + ", ".join(pieces) + ",))"


def plain_phrase(text: str, finalize: Callable[[Any], str], filters: dict[str, Callable],
                 store: CodeStore | None = None) -> Callable[[dict[str, Any]], str] | None:
    """`text` as a function of its values when it is a plain phrase (see the module), else None.
    `finalize` gives the text of a value, as Jinja prints it (the environment's ``finalize``,
    then ``str``). The compiled code is taken from `store` when there (and kept there when not)."""
    if "\r" in text or "{#" in text:
        return None
    kept = store.get(text) if store is not None else None
    if kept is not None:
        code, names = kept
        if not names:
            return None
        used = [filters[name] for name in names[1:]]
    else:
        used_names: list[str] = []
        try:
            source = _source(text, filters, used_names)
            code = compile(f"def render(v):\n    return {source}\n", "<phrase>", "exec")
        except (NotPlain, RecursionError, SyntaxError, MemoryError):   # deep nesting: Jinja's
            if store is not None:
                store.put(text, None, ())
            return None
        if store is not None:
            store.put(text, code, ("", *used_names))
        used = [filters[name] for name in used_names]

    # Python made only of the phrase's text as string literals, names and keys checked above,
    # whole numbers, operators and calls of the filters by number: no name of Python's
    scope = {"__builtins__": {}, "_o": finalize, "_key": _key, "_f": tuple(used)}
    exec(code, scope)
    return scope["render"]


class CodeStore:
    """Plain phrases' compiled code kept between processes: one file in a private folder (code
    read from it runs) holding, for each phrase text, its code and the filters it calls (or that
    it is not plain). The file is read on first use and written again (replaced whole,
    atomically) as the process ends when it read any phrase the file did not hold, keeping at
    most `LIMIT` phrases: those this process rendered, then the latest others. It is valid only
    for the reader that wrote it (this module's source and Jinja's version, in its key): a file
    of another, or one that cannot be read, is a file of nothing; one that cannot be written is
    left as it was."""

    #: The most phrases kept: both languages' books hold about 2,800 with placeholders, and a
    #: folder of someone's own phrasebooks adds its own.
    LIMIT = 6_000

    def __init__(self, path: Path, version: str) -> None:
        self.path = path
        self.key = hashlib.blake2b(Path(__file__).read_bytes() + version.encode(),
                                   digest_size=16).digest()
        self.entries: dict[bytes, tuple[Any, tuple[str, ...]]] | None = None
        self.rendered: dict[bytes, None] = {}      # in the order last rendered
        self.changed = False

    def get(self, text: str) -> tuple[Any, tuple[str, ...]] | None:
        """(code or None, ("", filter names…) when plain, () when not) of phrase `text`."""
        entries = self.entries if self.entries is not None else self._read()
        digest = hashlib.blake2b(text.encode(), digest_size=16).digest()
        found = entries.get(digest)
        if found is not None:
            self.rendered.pop(digest, None)
            self.rendered[digest] = None
        return found

    def put(self, text: str, code: CodeType | None, names: tuple[str, ...]) -> None:
        entries = self.entries if self.entries is not None else self._read()
        digest = hashlib.blake2b(text.encode(), digest_size=16).digest()
        entries[digest] = (code, names)
        self.rendered.pop(digest, None)
        self.rendered[digest] = None
        if not self.changed:
            self.changed = True
            atexit.register(self.write)

    def _read(self) -> dict[bytes, tuple[Any, tuple[str, ...]]]:
        try:
            key, entries = marshal.loads(self.path.read_bytes())
        except (OSError, ValueError, EOFError, TypeError):
            key = entries = None
        if key != self.key or not isinstance(entries, dict):
            entries = {}
        self.entries = entries
        return entries

    def kept(self) -> dict[bytes, tuple[Any, tuple[str, ...]]]:
        """What `write` writes: every phrase when they are few, else the phrases this process
        rendered last, then the others latest first, `LIMIT` in all."""
        entries = self.entries or {}
        if len(entries) <= self.LIMIT:
            return entries
        kept: dict[bytes, tuple[Any, tuple[str, ...]]] = {}
        for digest in [*reversed(self.rendered), *reversed(entries)]:
            if len(kept) >= self.LIMIT:
                break
            if digest in entries:
                kept.setdefault(digest, entries[digest])
        return kept

    def write(self) -> None:
        name = None
        try:
            handle, name = tempfile.mkstemp(dir=self.path.parent, prefix=".plain-")
            with os.fdopen(handle, "wb") as fh:
                marshal.dump((self.key, self.kept()), fh)
            os.replace(name, self.path)
        except (OSError, ValueError):
            if name is not None:
                with contextlib.suppress(OSError):
                    os.unlink(name)
