"""The API reference builds from the docstrings (pdoc) for every floor of the package."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_docs import API_MODULES


def test_the_api_reference_builds_from_the_docstrings(tmp_path: Path) -> None:
    pytest.importorskip("pdoc")
    proc = subprocess.run(
        [sys.executable, "-m", "pdoc", *API_MODULES, "-o", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    for page in ("puzzlekit.html", "puzzlekit/core.html", "puzzlekit/quality.html"):
        assert (tmp_path / page).stat().st_size > 0, page
    quality = (tmp_path / "puzzlekit" / "quality.html").read_text()
    assert "check_family" in quality
