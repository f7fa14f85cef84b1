"""The distribution claims one import name: the wheel holds ``puzzlekit`` and its metadata only,
and the floors the package is built from ship inside it (verifiers and generators included)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of this source tree, built once for the module's tests."""
    wheels = tmp_path_factory.mktemp("wheels")
    _pip("wheel", "-q", "--no-deps", "-w", str(wheels), str(ROOT))
    (built,) = wheels.glob("puzzlekit-*.whl")
    return built


def test_the_wheel_installs_only_the_puzzlekit_package(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/", 1)[0] for n in names}
    metadata = {t for t in tops if t.endswith(".dist-info")}
    assert tops - metadata == {"puzzlekit"} and len(metadata) == 1, sorted(tops)
    floors = ["core", "audit", "families", "verifiers", "io", "grading", "generators", "loop"]
    for floor in [*floors, "quality", "app"]:
        assert f"puzzlekit/{floor}/__init__.py" in names, floor
    # the benchmarks run from a clone; the publish gate's study is a command's, so it ships
    assert not [n for n in names if "benchmarks" in n or "studies" in n]
    assert "puzzlekit/app/experiment/publish_gate.py" in names
    # the subpackages inside a floor ship too (the MCP server, the policy strategy's file reader)
    assert {"puzzlekit/app/mcp/server.py", "puzzlekit/generators/policy/file.py"} <= set(names)
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "puzzlekit = puzzlekit.app.cli:main" in text
    assert "puzzlekit.quality.pytest_plugin" in text
    # PEP 561: type checkers read the package's annotations
    assert "puzzlekit/py.typed" in names
    # editors complete experiment configs from the shipped schema
    assert "puzzlekit/schemas/experiment-config.schema.json" in names


def _pip(*args: str) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "pip", *args], capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr


@pytest.fixture(scope="module")
def site(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel installed in a folder of its own (no source tree beside the package)."""
    site = tmp_path_factory.mktemp("site")
    _pip("install", "-q", "--no-deps", "--target", str(site), str(wheel))
    return site


def test_a_regular_install_of_the_wheel_imports_every_floor_and_verifies(
    site: Path, tmp_path: Path
) -> None:
    """Installed from the wheel (ahead of any source tree on the path), the floors import and a
    puzzle verifies: verifiers and generators ship inside puzzlekit."""
    code = (
        f"import sys; sys.path.insert(0, {str(site)!r})\n"
        "import puzzlekit, puzzlekit.verifiers.sat.backend, puzzlekit.generators.adaptive\n"
        "import puzzlekit.app.cli\n"
        "print(puzzlekit.__file__)\n"
        "print(puzzlekit.verify(puzzlekit.parse('sudoku', '1' + '.' * 15)).verdict.value)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120
    )
    assert out.returncode == 0, out.stderr
    where, verdict = out.stdout.split()
    assert where.startswith(str(site)) and verdict == "MULTIPLE"


def test_bench_from_an_installed_package_is_one_line_and_exit_2(site: Path, tmp_path: Path) -> None:
    """An installed package has no benchmarks: ``puzzlekit bench`` says so in one line, even with
    a ``benchmarks`` package of a clone importable (this suite's editable install puts one on the
    path)."""
    (tmp_path / "bench.toml").write_text('study = "bench_fast"\n')
    code = (
        f"import sys; sys.path.insert(0, {str(site)!r})\n"
        "from puzzlekit.app.cli import main\n"
        "sys.exit(main(['bench', 'bench.toml']))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120
    )
    assert out.returncode == 2, out.stderr
    assert out.stderr.count("\n") == 1 and "from a clone" in out.stderr, out.stderr
    assert str(site) in out.stderr
