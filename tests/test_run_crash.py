"""A run survives being killed: SIGKILL at any point, then ``--resume``, gives the rows of an
uninterrupted run and a valid ledger; no child process outlives a killed run; Ctrl-C ends a run
with one line and a directory that resumes. Kill points are chosen by the test-only environment
variable ``PUZZLEKIT_TEST_KILL_AT`` (:func:`puzzlekit.app.experiment.store.kill_point`), so each
test kills at the same place every time."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pandas as pd
import pytest

from puzzlekit.app.experiment import parse_config, plan, run_experiment
from puzzlekit.app.experiment.store import KILL_ENV
from puzzlekit.audit.ledger import Ledger
from puzzlekit.core.files import atomic_write, is_temporary
from tests.proc_helpers import descendants, needs_proc, wait_gone

ROOT = Path(__file__).resolve().parent.parent
SMOKE = ROOT / "experiments" / "smoke.toml"


def tiny_toml(tmp_path: Path, trials: int = 1, **edits: str) -> tuple[Path, object]:
    """The smoke config with ``trials`` trials, one per task (and ``edits``: old -> new text);
    its path and parsed config."""
    text = SMOKE.read_text().replace("trials = 6", f"trials = {trials}")
    text = text.replace("batch = 3", "batch = 1")
    for old, new in edits.items():
        assert old in text
        text = text.replace(old, new)
    path = tmp_path / "tiny.toml"
    path.write_text(text)
    return path, parse_config(tomllib.loads(text))


#: four small tasks (two arms, one filter, two trials), the holdout in the run's own process
KILL_EDITS = {
    "clues = [5, 7]": "clues = [5]",
    'label = "faulty-box"\nsettings = { ignore = "box" }': 'label = "sat2"',
    'verifier = "faulty"': 'verifier = "sat"',
    'arms = ["faulty-box"]': 'arms = ["sat2"]',  # a hypothesis names an arm of the config
    '[holdout]\nverifier = "enumerative"': '[holdout]\nverifier = "enumerative"\nprocess = false',
}


def without_timings(path: Path) -> pd.DataFrame:
    from puzzlekit.loop.row_schema import TIMINGS

    df = pd.read_parquet(path)
    return df.drop(columns=[c for c in TIMINGS if c in df.columns]).reset_index(drop=True)


def run_cli(config: Path, out: Path, *extra: str, **kw) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "puzzlekit", "run", str(config), "--out", str(out), "--quiet"]
    return subprocess.Popen([*cmd, *extra], cwd=ROOT, text=True, **kw)


def _serial(config, out: Path, resume: bool = False) -> Path:
    return run_experiment(config, out, executor="serial", quiet=True, report=False, resume=resume)


def _killed_at(point: str, config, out: Path) -> int:
    """Run ``config`` into ``out`` in a forked copy of this process that SIGKILLs itself at
    ``point``; its wait status (a fork: no interpreter start, the imports are warm)."""
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            os.environ[KILL_ENV] = point
            sys.stderr = open(os.devnull, "w")  # noqa: SIM115
            _serial(config, out)
        finally:
            os._exit(0)
    return os.waitpid(pid, 0)[1]


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> tuple[Path, object]:
    """One uninterrupted run of the kill config: its run directory and config."""
    base = tmp_path_factory.mktemp("ref")
    _, config = tiny_toml(base, trials=2, **KILL_EDITS)
    return _serial(config, base / "run"), config


def _points(config) -> list[str]:
    first = plan(config)[0].id
    return [
        "written:manifest.json",  # killed before the manifest's rename: nothing but a temp file
        "manifest",  # after the manifest, before the ledger
        "ledger",  # after the pre-registration
        f"written:{first}.attempts.parquet",  # in the middle of saving the first task
        f"written:{first}.puzzles.parquet",  # its attempts saved, not its done marker
        "task:1",
        "task:3",
        "written:attempts.parquet",  # merging
        "merged",
        "end",
        "run-end",
    ]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="kills a forked copy of the test process")
@pytest.mark.parametrize("index", range(11))
def test_sigkill_at_any_point_then_resume_gives_the_rows_of_an_uninterrupted_run(
    reference, tmp_path, index
) -> None:
    ref, config = reference
    point = _points(config)[index]
    out = tmp_path / "run"
    status = _killed_at(point, config, out)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, point
    assert out.is_dir()
    _serial(config, out, resume=True)
    for name in ("attempts.parquet", "puzzles.parquet"):
        pd.testing.assert_frame_equal(without_timings(out / name), without_timings(ref / name))
    assert not [p for p in out.rglob("*") if is_temporary(p.name)]
    with Ledger(out / "ledger.db") as ledger:
        assert ledger.verify().ok
        kinds = [e.body["kind"] for e in ledger.entries()]
    assert kinds[0] == "preregistration" and kinds[-1] == "run-end"
    assert kinds.count("preregistration") == 1


def _wait_for_workers(proc: subprocess.Popen, out: Path) -> dict[int, str]:
    """Poll until the run has saved a task and has its pool and holdout workers running."""
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the run ended before it could be stopped"
        kids = descendants(proc.pid)
        if len(kids) >= 3 and list((out / "parts").glob("*.puzzles.parquet")):
            return kids
        time.sleep(0.05)
    raise AssertionError("the run never started its workers")


@needs_proc
@pytest.mark.parametrize("executor", ["local", "dask"])
def test_no_child_process_outlives_a_killed_run(tmp_path, executor) -> None:
    if executor == "dask":
        pytest.importorskip("distributed")
    path, _ = tiny_toml(tmp_path, trials=20)  # killed at its first saved task: still running
    out = tmp_path / "run"
    proc = run_cli(path, out, "--executor", executor, "--workers", "2", stderr=subprocess.DEVNULL)
    try:
        kids = _wait_for_workers(proc, out)
    finally:
        proc.kill()
        proc.wait(timeout=60)
    assert not wait_gone(kids)


@needs_proc
def test_ctrl_c_ends_a_run_with_one_line_and_it_resumes(tmp_path) -> None:
    path, config = tiny_toml(tmp_path, trials=10)  # enough tasks to be running at the SIGINT
    out = tmp_path / "run"
    # its own session, as a shell gives a job: Ctrl-C is SIGINT to the job's process group
    proc = run_cli(
        path, out, "--executor", "local", "--workers", "2",
        stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    kids = _wait_for_workers(proc, out)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("puzzlekit: interrupted"), err
    assert "--resume" in lines[0]
    assert not wait_gone(kids)
    run = _serial(config, out, resume=True)
    assert len(pd.read_parquet(run / "puzzles.parquet")) == len(plan(config))  # a trial a task


def test_atomic_write_creates_a_fresh_file_and_never_follows_a_planted_link(tmp_path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep")
    target = tmp_path / "manifest.json"
    for guess in (".manifest.json.tmp", "manifest.json.tmp"):  # the names a writer might use
        (tmp_path / guess).symlink_to(victim)
    with atomic_write(target) as fh:
        fh.write(b"new")
    assert target.read_text() == "new" and not target.is_symlink()
    assert victim.read_text() == "keep"


def test_atomic_write_leaves_the_old_file_when_the_writer_fails(tmp_path) -> None:
    target = tmp_path / "f.json"
    target.write_text("old")
    with pytest.raises(RuntimeError), atomic_write(target) as fh:
        fh.write(b"half")
        raise RuntimeError("writer failed")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["f.json"]
