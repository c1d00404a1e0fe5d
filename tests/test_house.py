"""The shape of the house, computed from its source: modules a reader can hold (at most
`MAX_MODULE_LINES` lines), functions a reader can follow (at most `MAX_FUNCTION_LINES`), no
import cycle among quizgen's modules, and the exporters learning what an answer is from the
answer specs, never from the grader.

An import counts wherever it stands (a function body too), except under ``if TYPE_CHECKING:``,
which never runs. ``from quizgen.grade import report`` depends on the module
``quizgen.grade.report``; ``from quizgen.grade import grade_class`` on the package itself.
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


def _imports(tree: ast.AST):
    """Every import node of `tree`, skipping the bodies of ``if TYPE_CHECKING:``."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _is_type_checking(node):
            yield from (i for n in node.orelse for i in _imports(ast.Module([n], [])))
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        yield from _imports(node)


def dependencies(name: str, path: pathlib.Path, modules=MODULES) -> set[str]:
    """The quizgen modules `name` (at `path`) imports."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out: set[str] = set()
    for node in _imports(ast.parse(path.read_text(encoding="utf-8"))):
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


def graph() -> dict[str, set[str]]:
    return {name: dependencies(name, path) for name, path in MODULES.items()}


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
