"""The shape of the house, computed from its source: modules a reader can hold (at most
`MAX_MODULE_LINES` lines), functions a reader can follow (at most `MAX_FUNCTION_LINES`), no
import cycle among quizgen's modules, and the exporters learning what an answer is from the
answer specs, never from the grader. And every name at one address: no private name (``_name``)
used across a module wall, except by the face (``__init__``) of the package that holds it; no
module that only hands on names from elsewhere; no cycle hidden under ``if TYPE_CHECKING:``.

An import counts wherever it stands (a function body too); one under ``if TYPE_CHECKING:``,
which never runs, counts only for the hidden-cycle check. ``from quizgen.grade import report``
depends on the module ``quizgen.grade.report``; ``from quizgen.grade import grade_class`` on the
package itself.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

import quizgen

ROOT = pathlib.Path(quizgen.__file__).parent
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 60


def module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST, type_checking: bool = False):
    """Every import node of `tree`; those in the bodies of ``if TYPE_CHECKING:`` only with
    `type_checking`."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _is_type_checking(node) and not type_checking:
            yield from (i for n in node.orelse for i in _imports(ast.Module([n], [])))
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        yield from _imports(node, type_checking)


def dependencies(name: str, path: pathlib.Path, modules=MODULES, *,
                 type_checking: bool = False) -> set[str]:
    """The quizgen modules `name` (at `path`) imports (with `type_checking`, also those it
    imports only under ``if TYPE_CHECKING:``)."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out: set[str] = set()
    for node in _imports(ast.parse(path.read_text(encoding="utf-8")), type_checking):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names if alias.name in modules)
            continue
        if node.level:
            base = package[:len(package) - (node.level - 1)]
            target = ".".join(base + ([node.module] if node.module else []))
        else:
            target = node.module or ""
        submodules = {f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in modules}
        out |= submodules
        if len(submodules) < len(node.names) and target in modules:
            out.add(target)
    out.discard(name)
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return sorted(found)


def graph(type_checking: bool = False) -> dict[str, set[str]]:
    return {name: dependencies(name, path, type_checking=type_checking)
            for name, path in MODULES.items()}


def test_the_cycle_finder_finds_a_cycle_through_a_function_body(tmp_path):
    pkg = tmp_path / "quizgen"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "a.py").write_text("from quizgen.sub import b\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    from . import c\n")
    (pkg / "sub" / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                      "    from quizgen.sub import a\nimport quizgen.sub.a\n")
    (pkg / "sub" / "d.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                      "    from quizgen.sub import a\n")
    modules = {}
    for p in pkg.rglob("*.py"):
        parts = list(p.relative_to(tmp_path).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = p
    found = cycles({n: dependencies(n, p, modules) for n, p in modules.items()})
    assert found == [["quizgen.sub.a", "quizgen.sub.b", "quizgen.sub.c"]]


def test_no_import_cycle_among_quizgen_modules():
    assert cycles(graph()) == []


def test_no_cycle_hides_under_type_checking():
    """A type both sides need lives below both (a small module of the package), so that the
    imports run one way even for the type checker."""
    assert cycles(graph(type_checking=True)) == []


def test_the_exporters_import_nothing_from_the_grader():
    wrong = sorted(f"{name} → {dep}" for name, deps in graph().items()
                   if name.startswith("quizgen.export") for dep in deps
                   if dep == "quizgen.grade" or dep.startswith("quizgen.grade."))
    assert wrong == []


@pytest.mark.parametrize("name", sorted(MODULES))
def test_a_module_fits_in_a_reading(name):
    lines = len(MODULES[name].read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_MODULE_LINES, f"{name} has {lines} lines"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_a_function_fits_in_a_reading(name):
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    long = sorted((node.end_lineno - node.lineno + 1, node.name) for node in ast.walk(tree)
                  if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES)
    assert long == []


# ---------------------------------------------------------------------------------------------
# One address per name


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _target(name: str, path: pathlib.Path, node: ast.ImportFrom) -> str:
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    if node.level:
        return ".".join(package[:len(package) - (node.level - 1)]
                        + ([node.module] if node.module else []))
    return node.module or ""


def _face_of(name: str, path: pathlib.Path, owner: str) -> bool:
    """`name` is the face (``__init__``) of the package that holds module `owner`."""
    return path.name == "__init__.py" and owner.startswith(name + ".")


def private_uses(name: str, path: pathlib.Path, modules=MODULES) -> list[str]:
    """Private names of other quizgen modules that module `name` uses: imported (``from x
    import _y``) or read off an imported module (``x._y``). The face of a package may take its
    own modules' names."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found, aliases = [], {}
    for node in _imports(tree, type_checking=True):
        if isinstance(node, ast.Import):
            aliases.update({(a.asname or a.name.split(".")[0]): a.name for a in node.names
                            if a.name in modules})
            continue
        target = _target(name, path, node)
        if not target.startswith("quizgen"):
            continue
        for alias in node.names:
            full = f"{target}.{alias.name}"
            if full in modules:
                aliases[alias.asname or alias.name] = full
            elif _private(alias.name) and target != name and not _face_of(name, path, target):
                found.append(f"{name} imports {target}.{alias.name}")
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and _private(node.attr)
                and isinstance(node.value, ast.Name) and node.value.id in aliases):
            owner = aliases[node.value.id]
            if owner != name and not _face_of(name, path, owner):
                found.append(f"{name} reads {owner}.{node.attr}")
    return found


def is_alias(path: pathlib.Path) -> bool:
    """A module (not a package's face) that only imports names and hands them on: nothing but
    a docstring, imports and dunder assignments (``__all__``)."""
    if path.name == "__init__.py":
        return False
    body = ast.parse(path.read_text(encoding="utf-8")).body
    rest = [node for node in body
            if not isinstance(node, (ast.Import, ast.ImportFrom))
            and not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
            and not (isinstance(node, ast.Assign)
                     and all(isinstance(t, ast.Name) and t.id.startswith("__")
                             for t in node.targets))]
    return bool(body) and not rest


def test_the_address_finders_find_what_they_look_for(tmp_path):
    pkg = tmp_path / "quizgen"
    (pkg / "sub").mkdir(parents=True)
    files = {"__init__.py": "", "sub/__init__.py": "from quizgen.sub.a import _ok_for_the_face\n",
             "sub/a.py": "_x = 1\ndef _f(): pass\n",
             "sub/b.py": "from quizgen.sub.a import _x\n\nY = _x + 1\n",
             "sub/c.py": "from quizgen.sub import a\n\ndef g():\n    return a._f()\n",
             "sub/d.py": '"""Old address."""\nfrom quizgen.sub.a import _x as x\n__all__ = ["x"]\n',
             "sub/e.py": "from . import a\nfrom .a import y\n"}
    for rel, text in files.items():
        (pkg / rel).write_text(text)
    modules = {}
    for p in pkg.rglob("*.py"):
        parts = list(p.relative_to(tmp_path).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = p
    found = sorted(f for n, p in modules.items() for f in private_uses(n, p, modules))
    assert found == ["quizgen.sub.b imports quizgen.sub.a._x",
                     "quizgen.sub.c reads quizgen.sub.a._f",
                     "quizgen.sub.d imports quizgen.sub.a._x"]
    assert sorted(n for n, p in modules.items() if is_alias(p)) == ["quizgen.sub.d",
                                                                    "quizgen.sub.e"]


def test_no_private_name_crosses_a_module_wall():
    """A name another module needs is public in its module (a package's face may hand on its
    own modules' names); a ``_name`` stays where it is defined."""
    assert [f for name, path in MODULES.items() for f in private_uses(name, path)] == []


def test_no_module_only_hands_on_names_from_elsewhere():
    """An old address kept alive by re-exporting tells a reader the boundary is elsewhere: import
    each name from the module that defines it."""
    assert sorted(name for name, path in MODULES.items() if is_alias(path)) == []


def unused_private_names(path: pathlib.Path) -> list[str]:
    """Private names a module defines (a function, a class, a value) and never uses: left over
    from code that went. A decorated function is used by its decorator (``@atexit.register``)."""
    import re

    text = path.read_text(encoding="utf-8")
    defined = []
    for node in ast.parse(text).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if all(isinstance(d, ast.Name) and d.id in ("cache", "dataclass")
                   for d in node.decorator_list):
                defined.append(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            defined += [t.id for t in targets if isinstance(t, ast.Name)]
    return [name for name in defined if _private(name)
            and len(re.findall(rf"(?<![\w.]){re.escape(name)}\b", text)) < 2]


def test_the_unused_name_finder_finds_one(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("import atexit\n_a = 1\n_b = 2\nB = _b\n\n\n@atexit.register\n"
                    "def _c():\n    pass\n\n\ndef _d():\n    return self._a\n")
    assert unused_private_names(path) == ["_a", "_d"]


def test_every_private_name_is_used_where_it_is_defined():
    assert [f"{name}.{unused}" for name, path in MODULES.items()
            for unused in unused_private_names(path)] == []


# ---------------------------------------------------------------------------------------------
# One definition per constant


def _value(node: ast.expr):
    """A constant's value: a literal, or arithmetic on literals (``10**6``, ``1 << 20``)."""
    import operator

    if isinstance(node, ast.BinOp):
        ops = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
               ast.Pow: operator.pow, ast.LShift: operator.lshift, ast.FloorDiv: operator.floordiv,
               ast.Div: operator.truediv}
        if type(node.op) in ops:
            return ops[type(node.op)](_value(node.left), _value(node.right))
    return ast.literal_eval(node)


def constants(path: pathlib.Path) -> dict[str, str]:
    """The module's constants (upper-case names bound at module level): name → its value, or the
    source text of an expression that is not one (``WARP = warps.WARP_SIZE``)."""
    out = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        for target in targets:
            if isinstance(target, ast.Name) and target.id.isupper():
                try:
                    out[target.id] = repr(_value(value))
                except (ValueError, TypeError, SyntaxError, ArithmeticError):
                    out[target.id] = ast.unparse(value)
    return out


def defined_twice(modules=MODULES) -> list[str]:
    """Constants two modules define alike (one name, one value): each should have one home."""
    seen: dict[tuple[str, str], list[str]] = {}
    for name, path in modules.items():
        for constant, value in constants(path).items():
            seen.setdefault((constant, value), []).append(name)
    return sorted(f"{constant} = {value} in {', '.join(where)}"
                  for (constant, value), where in seen.items() if len(where) > 1)


def test_the_constant_finder_finds_one_defined_twice(tmp_path):
    texts = {"a": "LEVELS = (1, 2, 3)\nMAX = 10**6\nWARP = w.SIZE\nFONT = 12\n",
             "b": "LEVELS = (1, 2, 3)\nMAX = 1_000_000\nWARP = w.SIZE\nFONT = 10.5\n"}
    modules = {}
    for name, text in texts.items():
        (tmp_path / f"{name}.py").write_text(text)
        modules[name] = tmp_path / f"{name}.py"
    assert defined_twice(modules) == ["LEVELS = (1, 2, 3) in a, b", "MAX = 1000000 in a, b",
                                      "WARP = w.SIZE in a, b"]


def test_no_constant_is_defined_twice():
    """A limit, a list of levels or a size defined in two places drifts apart; define it once
    and import it (two constants that share a name but not a value are two things)."""
    assert defined_twice() == []


def test_a_ceiling_is_taken_one_way():
    """⌈a/b⌉ is written ``ceiling(a, b)`` (`quizgen.engine.arith`), never by hand as
    ``-(-a // b)``: one place says how a ceiling is taken exactly."""
    import re

    by_hand = re.compile(r"-\s*\(\s*-[^\n]*//")
    found = [f"{name}:{number}" for name, path in MODULES.items() if name != "quizgen.engine.arith"
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if by_hand.search(line)]
    assert found == []
