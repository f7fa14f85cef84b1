"""The house's other rules: no import circle, no private name imported across packages.

A concept bigger than one module is a subpackage split by meaning (``verifiers/bitmask/``,
``audit/review/``, ``families/_kit/``, ...; ``tests/test_sizes.py`` keeps every module and
function short). A split must not leave its halves importing each other: :func:`circles` finds
every set of modules of ``puzzlekit`` that import one another in a loop, counting every import
statement (at module level, inside functions, under ``TYPE_CHECKING``), and there must be none.
A private name (``_x``: a module, or anything a module defines) is used only inside the package
that holds it: :func:`private_crossings` lists every import of one from outside (within one
package, across its files, is fine), and there must be none, so what two packages share has a
public name.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import puzzlekit

PACKAGE = Path(puzzlekit.__file__).resolve().parent


def module_names(package: Path) -> dict[str, Path]:
    """Every module of ``package`` (a directory with ``__init__.py``) by its dotted name."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> list[tuple[str, str, int]]:
    """Each import of ``path`` (module ``name``) as (the module imported, the dotted path named,
    its line): ``from a.b import c`` names ``a.b.c``, the module ``a.b.c`` if there is one."""
    is_package = path.name == "__init__.py"
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        named = []
        if isinstance(node, ast.Import):
            named = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = name.split(".")[: len(name.split(".")) - node.level + is_package]
                base = ".".join([*parts, *([base] if base else [])])
            named = [f"{base}.{a.name}" for a in node.names]
        for dotted in named:
            target = dotted
            while target not in modules and "." in target:
                target = target.rpartition(".")[0]
            if target in modules:
                out.append((target, dotted, node.lineno))
    return out


def circles(package: Path) -> list[list[str]]:
    """The sets of modules of ``package`` that import each other in a loop (strongly connected
    components of more than one module), each sorted, as ``module:line -> module`` edges."""
    modules = module_names(package)
    edges: dict[str, dict[str, int]] = {m: {} for m in modules}
    for name, path in modules.items():
        for target, _, line in _imports(name, path, modules):
            if target != name:
                edges[name].setdefault(target, line)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(v: str) -> None:  # Tarjan's algorithm
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(modules) + 100))
    try:
        for v in modules:
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return [
        [f"{a}:{edges[a][b]} -> {b}" for a in group for b in sorted(edges[a]) if b in group]
        for group in sorted(found)
    ]


def private_crossings(package: Path) -> list[str]:
    """Every import of a private name (a segment ``_x`` of the dotted path named, dunders aside)
    by a module outside the package that holds it, as ``module:line imports dotted.path``."""
    modules = module_names(package)
    packages = {m for m, p in modules.items() if p.name == "__init__.py"}
    found = []
    for name, path in modules.items():
        for _, dotted, line in _imports(name, path, modules):
            parts = dotted.split(".")
            for i, part in enumerate(parts):
                if not part.startswith("_") or part.startswith("__"):
                    continue
                holder = ".".join(parts[:i])  # the module or package that defines ``part``
                home = holder if holder in packages else holder.rpartition(".")[0]
                if name != home and not name.startswith(home + "."):
                    found.append(f"{name}:{line} imports {dotted}")
    return found


def test_no_import_circle():
    found = circles(PACKAGE)
    assert not found, "modules that import each other:\n" + "\n".join(
        "  " + "; ".join(group) for group in found
    )


def test_no_private_name_crosses_a_package():
    found = private_crossings(PACKAGE)
    assert not found, "private names imported from outside their package:\n" + "\n".join(
        "  " + line for line in found
    )


def _probe(tmp_path: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path / "pkg"


def test_the_circle_check_finds_imports_inside_functions(tmp_path: Path):
    package = _probe(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from pkg.b import B\n",
            "pkg/b.py": "B = 1\n\n\ndef f():\n    from pkg import a\n\n    return a\n",
            "pkg/c.py": "from . import a\n",
        },
    )
    assert circles(package) == [["pkg.a:1 -> pkg.b", "pkg.b:5 -> pkg.a"]]
    (package / "b.py").write_text("B = 1\n")
    assert circles(package) == []


def test_the_private_check_allows_a_package_its_own_names(tmp_path: Path):
    package = _probe(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/one/__init__.py": "",
            "pkg/one/_kit.py": "_helper = 1\nshared = 2\n",
            "pkg/one/user.py": "from pkg.one._kit import _helper, shared\n",
            "pkg/one/sub/deep.py": "from pkg.one import _kit\n",
            "pkg/two.py": "from pkg.one._kit import shared\nimport pkg.one.user as u\n",
            "pkg/three.py": "from pkg.one.user import _x\n",
        },
    )
    assert private_crossings(package) == [
        "pkg.three:1 imports pkg.one.user._x",
        "pkg.two:1 imports pkg.one._kit.shared",
    ]
