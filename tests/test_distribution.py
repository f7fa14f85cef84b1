"""The distribution claims one import name: the wheel holds ``puzzlekit`` and its metadata only,
and the floors the package is built from ship inside it (verifiers and generators included)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_wheel_installs_only_the_puzzlekit_package(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    (wheel,) = tmp_path.glob("puzzlekit-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/", 1)[0] for n in names}
    metadata = {t for t in tops if t.endswith(".dist-info")}
    assert tops - metadata == {"puzzlekit"} and len(metadata) == 1, sorted(tops)
    floors = ["core", "audit", "families", "verifiers", "io", "grading", "generators", "loop"]
    for floor in [*floors, "quality", "app"]:
        assert f"puzzlekit/{floor}/__init__.py" in names, floor
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "puzzlekit = puzzlekit.app.cli:main" in text
    assert "puzzlekit.quality.pytest_plugin" in text
