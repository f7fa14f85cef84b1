from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA


@pytest.fixture(scope="session")
def seventeen() -> list[str]:
    return (DATA / "sudoku9_17clue_sample.txt").read_text().split()
