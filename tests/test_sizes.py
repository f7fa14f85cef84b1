"""Modules under about 500 lines, functions under about 80, floor by floor.

Each floor of ``puzzlekit`` (its subpackages, and the facade ``puzzlekit/__init__.py``) is one
test id, and so is the repository's ``benchmarks/`` folder; a failure names every module over
:data:`MAX_MODULE_LINES` lines and every function (nested ones too) over
:data:`MAX_FUNCTION_LINES` lines, with its line number.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import puzzlekit

PACKAGE = Path(puzzlekit.__file__).resolve().parent
#: the cap: a concept that outgrows one module becomes a subpackage split by meaning
#: (verifiers/bitmask/, audit/review/, ...; tests/test_house.py), not prefixed siblings
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 80
#: modules allowed past :data:`MAX_MODULE_LINES`: path -> (their limit, why)
LARGER_MODULES: dict[str, tuple[int, str]] = {
    "puzzlekit/core/protocols.py": (
        960,
        "every plug point (Family, Verifier, Strategy, Holdout, Game) and the records its hooks "
        "exchange in one module: their one import path (tests/test_protocol_homes.py)",
    ),
}


#: the benchmarks run from a clone (not installed) and are held to the same limits
BENCHMARKS = PACKAGE.parent / "benchmarks"


def floors() -> list[str]:
    subpackages = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file())
    return ["facade", *subpackages, "benchmarks"]


def modules(floor: str) -> list[Path]:
    if floor == "facade":
        return [PACKAGE / "__init__.py"]
    if floor == "benchmarks":
        return sorted(BENCHMARKS.rglob("*.py"))
    return sorted((PACKAGE / floor).rglob("*.py"))


def oversized(path: Path, root: Path = PACKAGE.parent) -> list[str]:
    """What in ``path`` is over the limits, one line each (module length, then functions), with
    paths relative to ``root``."""
    source = path.read_text(encoding="utf-8")
    where = path.relative_to(root).as_posix()
    found = []
    lines = len(source.splitlines())
    limit = LARGER_MODULES.get(where, (MAX_MODULE_LINES, ""))[0]
    if lines > limit:
        found.append(f"{where}: {lines} lines (limit {limit})")
    for node in ast.walk(ast.parse(source, filename=str(path))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            length = (node.end_lineno or node.lineno) - start + 1
            if length > MAX_FUNCTION_LINES:
                found.append(
                    f"{where}:{node.lineno} {node.name}(): {length} lines "
                    f"(limit {MAX_FUNCTION_LINES})"
                )
    return found


@pytest.mark.parametrize("floor", floors())
def test_modules_and_functions_stay_small(floor: str):
    found = [line for path in modules(floor) for line in oversized(path)]
    assert not found, f"over the size limits in the {floor} floor:\n" + "\n".join(found)


def test_the_check_names_what_is_too_long(tmp_path: Path):
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES))
    source = f'"""A module."""\n\n\ndef long_one():\n{body}\n\ndef short_one():\n    return 1\n'
    source += "\n" * MAX_MODULE_LINES
    probe = tmp_path / "pkg" / "probe.py"
    probe.parent.mkdir()
    probe.write_text(source)
    assert oversized(probe, tmp_path) == [
        f"pkg/probe.py: {len(source.splitlines())} lines (limit {MAX_MODULE_LINES})",
        f"pkg/probe.py:4 long_one(): {MAX_FUNCTION_LINES + 1} lines (limit {MAX_FUNCTION_LINES})",
    ]


def test_a_larger_module_is_held_to_its_own_limit(tmp_path: Path):
    (where, (limit, why)) = next(iter(LARGER_MODULES.items()))
    probe = tmp_path / where
    probe.parent.mkdir(parents=True)
    probe.write_text('"""A module."""\n' + "\n" * (limit - 1))
    assert why and oversized(probe, tmp_path) == []
    probe.write_text('"""A module."""\n' + "\n" * limit)
    assert oversized(probe, tmp_path) == [f"{where}: {limit + 1} lines (limit {limit})"]


def test_a_small_module_passes(tmp_path: Path):
    probe = tmp_path / "small.py"
    probe.write_text('"""A module."""\n\n\ndef f():\n    return 1\n')
    assert oversized(probe, tmp_path) == []
