from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import puzzlekit.families as families_mod
from puzzlekit.families import register_family

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA


@pytest.fixture(scope="session")
def seventeen() -> list[str]:
    return (DATA / "sudoku9_17clue_sample.txt").read_text().split()


@pytest.fixture(scope="session")
def two_family_run_and_stderr(tmp_path_factory) -> tuple[Path, str]:
    """One small run of ``experiments/two_families.toml`` (4×4 Sudoku and 5×5 KenKen, 2 trials
    an arm), made once a session for every test of the analyses and notebooks, and what it said
    on stderr."""
    import contextlib
    import io
    import tomllib

    from puzzlekit.app.experiment import parse_config, run_experiment

    root = Path(__file__).resolve().parent.parent
    raw = tomllib.loads((root / "experiments" / "two_families.toml").read_text())
    config = parse_config({**raw, "trials": 2, "batch": 2})
    out = tmp_path_factory.mktemp("two_families") / "run"
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        run = run_experiment(config, out, executor="serial", quiet=True, report=False)
    return run, err.getvalue()


@pytest.fixture(scope="session")
def two_family_run(two_family_run_and_stderr) -> Path:
    """The run directory of :func:`two_family_run_and_stderr`."""
    return two_family_run_and_stderr[0]


@pytest.fixture
def registered() -> Iterator[Any]:
    """Register families for one test, then restore the registry."""
    added: list[str] = []

    def add(fam: Any) -> Any:
        added.append(fam.name)
        return register_family(fam, replace=True)

    yield add
    for name in added:
        families_mod.FAMILIES.unregister(name)
