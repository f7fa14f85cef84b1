from __future__ import annotations

import os
import signal
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import puzzlekit.families as families_mod
from puzzlekit.families import register_family

DATA = Path(__file__).parent / "data"

# A suite started in the background (``cmd &`` in a script) inherits SIGINT ignored, and so would
# every process a test starts, which then keeps it ignored (as a server started that way should);
# the tests of Ctrl-C need SIGINT as a terminal gives it.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def _compile_kernels() -> None:
    """Run each numba kernel once (a 9×9 and a 4×4 Sudoku through ``verify`` and
    ``verify_many``, a late Connect Four position), so every one is in numba's cache
    (``__pycache__`` beside its module) before the workers start: on a fresh clone each worker,
    and each command a test starts, then loads the kernels instead of compiling them again."""
    import puzzlekit as pk
    from benchmarks.c4bench import cells_of
    from puzzlekit.families.games import connect4

    line = ".................1..2.34........524..1.6.....7...........81.9....5....2..6..7...."
    pk.verify(pk.parse("sudoku", line))
    pk.verify(pk.parse("sudoku", "1..............."))
    pk.verify_many([line, line[::-1]], "sudoku")
    board = connect4.bitboards(*cells_of("722272655151467726566416413"))
    connect4.score(board)
    connect4.move_scores(board)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Under pytest-xdist, the controller compiles the kernels before it starts the workers."""
    if os.environ.get("PYTEST_XDIST_WORKER") or not session.config.getoption("numprocesses", 0):
        return
    try:
        _compile_kernels()
    except Exception as exc:  # noqa: BLE001 - a warm-up only: the tests report what fails
        warnings.warn(f"kernel warm-up failed: {exc!r}", stacklevel=1)


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
        added.append(fam.info.name)
        return register_family(fam, replace=True)

    yield add
    for name in added:
        families_mod.FAMILIES.unregister(name)


@pytest.fixture(autouse=True)
def _fresh_shared_clues() -> Iterator[None]:
    """The clue objects the grid lines of a schema share (``families._kit.gridline``) dropped
    after each test: a test that rewrites a clue's cache on purpose (the contamination tests)
    then reaches no later test in the same worker, which would see a fresh line's
    ``cache_intact`` fail."""
    yield
    from puzzlekit.families._kit import gridline

    for table in list(gridline._TABLES.values()):
        table.clues.clear()
