"""The floors contract: import-linter's ``layers`` contract in pyproject.toml holds.

The check runs ``lint-imports`` from the running interpreter's environment on the repository's
own configuration; a failure names every import that goes upward (``a -> b (l.N)``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: one broken import in lint-imports' report: ``- pkg.a -> pkg.b (l.12)``
BROKEN = re.compile(r"^-\s+(\S+ -> \S+ \(l\.[^)]*\))", re.MULTILINE)


def lint_imports(cwd: Path, config: Path) -> tuple[int, list[str], str]:
    """Run import-linter on ``config``; its exit code, the broken imports it lists, its output."""
    exe = Path(sys.executable).parent / ("lint-imports.exe" if os.name == "nt" else "lint-imports")
    if not exe.exists():
        pytest.fail(f"lint-imports is not installed beside {sys.executable}; install '.[dev]'")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(cwd), os.environ.get("PYTHONPATH", "")]),
    }
    proc = subprocess.run(
        [str(exe), "--no-cache", "--no-logo", str(config)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    out = proc.stdout + proc.stderr
    return proc.returncode, BROKEN.findall(out), out


def test_no_floor_imports_upward():
    code, broken, out = lint_imports(ROOT, ROOT / "pyproject.toml")
    assert "Contracts:" in out, out  # it ran and read the contract
    assert not broken, "imports that go upward:\n" + "\n".join(broken)
    assert code == 0, out


def test_the_check_names_an_upward_import(tmp_path: Path):
    pkg = tmp_path / "floorpkg"
    (pkg / "low").mkdir(parents=True)
    (pkg / "high").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "high" / "__init__.py").write_text("")
    (pkg / "low" / "__init__.py").write_text("")
    (pkg / "low" / "leak.py").write_text("import floorpkg.high\n")
    config = tmp_path / "pyproject.toml"
    config.write_text(
        textwrap.dedent(
            """
            [tool.importlinter]
            root_package = "floorpkg"

            [[tool.importlinter.contracts]]
            name = "floors"
            type = "layers"
            layers = ["floorpkg.high", "floorpkg.low"]
            """
        )
    )
    code, broken, out = lint_imports(tmp_path, config)
    assert code != 0, out
    assert broken == ["floorpkg.low.leak -> floorpkg.high (l.1)"], out


def test_generators_never_import_verifiers_and_the_contract_says_so():
    """The ``forbidden`` contract is declared, kept, and no generator module names a backend
    module in an import statement (the compiled sampler is named as ``module:attr`` in core)."""
    import ast
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    forbidden = [c for c in contracts["contracts"] if c["type"] == "forbidden"]
    assert any(
        c["source_modules"] == ["puzzlekit.generators"]
        and c["forbidden_modules"] == ["puzzlekit.verifiers"]
        for c in forbidden
    )
    code, _, out = lint_imports(ROOT, ROOT / "pyproject.toml")
    assert "Generators never import verifiers" in out and code == 0, out
    for path in sorted((ROOT / "puzzlekit" / "generators").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            assert not any(n.startswith("puzzlekit.verifiers") for n in names), path


def test_the_package_never_imports_the_benchmarks():
    """``benchmarks/`` runs from a clone and is not installed: a ``forbidden`` contract (over
    both root packages) keeps the package from importing it (``puzzlekit bench`` loads a study
    by path, from the clone the package runs from)."""
    import tomllib

    linter = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    assert linter["root_packages"] == ["puzzlekit", "benchmarks"]
    assert any(
        c["type"] == "forbidden"
        and c["source_modules"] == ["puzzlekit"]
        and c["forbidden_modules"] == ["benchmarks"]
        for c in linter["contracts"]
    )
    code, broken, out = lint_imports(ROOT, ROOT / "pyproject.toml")
    assert "The package never imports the benchmarks" in out and not broken and code == 0, out
