"""No process outlives its run: a ``generate`` or ``run`` killed (SIGKILL) or stopped (SIGTERM,
what ``timeout`` and ``kill`` send) in the middle of a long loop leaves no process behind; an MCP
``puzzle_generate`` past its time limit ends its worker with everything under it; SIGINT ends the
MCP server and its workers at once.

Each test first waits until the loop process is demonstrably busy: started, inside its serve
loop (its own process group leader, which :func:`puzzlekit.core.lifeline.follow_parent` makes
it) and with CPU time spent on a loop that takes minutes (a minimized 25x25 Sudoku), so a signal
never meets a run that already ended. Deadlines are generous polls, not sleeps.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.mcp_queue import initialize
from tests.proc_helpers import alive, descendants, needs_proc

ROOT = Path(__file__).resolve().parent.parent
#: a loop that runs for minutes: a minimized 25x25 Sudoku (one takes well over 100 s)
BIG = {"size": 25, "box": [5, 5]}
SLOW = ["generate", "sudoku", "--params", json.dumps(BIG), "--minimize", "--quiet"]
#: seconds a started process may take to reach its loop, on a loaded machine
START_SECONDS = 120
#: seconds everything may take to be gone once its parent was killed or stopped
GONE_SECONDS = 10
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _stat(pid: int) -> list[str] | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rindex(")") + 2 :].split()


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _busy_loop(root: subprocess.Popen, cpu: float = 0.5) -> tuple[int, dict[int, str]]:
    """Wait until a loop process under ``root`` leads its own group (inside its serve loop) and
    has spent ``cpu`` s of CPU; then every process under ``root``, and the loop process."""
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        assert root.poll() is None, f"ended before it could be stopped ({root.returncode})"
        for pid in descendants(root.pid):
            fields = _stat(pid)
            if fields is None or "puzzlekit.loop.loop_process" not in _cmdline(pid):
                continue
            used = (int(fields[11]) + int(fields[12])) / _TICK
            if int(fields[2]) == pid and used >= cpu:
                return pid, descendants(root.pid)
        time.sleep(0.1)
    raise AssertionError("no loop process got busy")


def _gone_within(procs: dict[int, str], seconds: float) -> tuple[list[int], float]:
    """Poll until none of ``procs`` is alive or ``seconds`` passed: those alive, the wait."""
    start = time.monotonic()
    while alive(procs) and time.monotonic() - start < seconds:
        time.sleep(0.05)
    return alive(procs), time.monotonic() - start


def _kill_all(procs: dict[int, str]) -> None:
    for pid in alive(procs):  # a failed test leaves nothing behind either
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _start(args: list[str], tmp: Path, **kw: Any) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp)}
    return subprocess.Popen([sys.executable, "-m", "puzzlekit", *args], cwd=ROOT, env=env, **kw)


@needs_proc
def test_no_process_outlives_a_killed_generate(tmp_path) -> None:
    proc = _start([*SLOW, "--seed", "3"], tmp_path, stdout=subprocess.DEVNULL)
    kids: dict[int, str] = {}
    try:
        _, kids = _busy_loop(proc)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    left, _ = _gone_within(kids, GONE_SECONDS)
    _kill_all(kids)
    assert not left, f"still running {GONE_SECONDS} s after SIGKILL: {left}"


@needs_proc
def test_sigterm_ends_generate_with_its_children_and_their_directory(tmp_path) -> None:
    proc = _start(
        [*SLOW, "--seed", "4"], tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    kids: dict[int, str] = {}
    try:
        _, kids = _busy_loop(proc)
        assert list(tmp_path.glob("puzzlekit-loop-*")), "the loop process's home is missing"
        proc.send_signal(signal.SIGTERM)  # what timeout(1) and kill(1) send
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.wait(timeout=60)
        left, _ = _gone_within(kids, GONE_SECONDS)
        _kill_all(kids)
    assert proc.returncode == 143, err
    assert err.decode().strip().splitlines() == ["puzzlekit: terminated"]
    assert not left
    assert not list(tmp_path.glob("puzzlekit-loop-*"))  # the cleanup Ctrl-C gets ran


@needs_proc
def test_an_external_strategy_that_ignores_its_pipes_ends_with_a_killed_generate(tmp_path) -> None:
    deaf = tmp_path / "deaf.py"  # never reads a request, never notices its stdin closed
    deaf.write_text(
        "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "print('ready', flush=True)\ntime.sleep(300)\n"
    )
    cmd = f"{sys.executable} {deaf}"
    args = ["generate", "sudoku", "--strategy", "external", "--cmd", cmd, "--cmd-timeout", "120"]
    proc = _start(args, tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    kids: dict[int, str] = {}
    try:
        deadline = time.monotonic() + START_SECONDS
        while not any(str(deaf) in _cmdline(p) for p in kids) and time.monotonic() < deadline:
            assert proc.poll() is None, f"generate ended first ({proc.returncode})"
            time.sleep(0.1)
            kids = descendants(proc.pid)
        assert any(str(deaf) in _cmdline(p) for p in kids), "the program never started"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    left, _ = _gone_within(kids, GONE_SECONDS)
    _kill_all(kids)
    assert not left, f"still running {GONE_SECONDS} s after SIGKILL: {left}"


def _big_run_config(tmp: Path) -> Path:
    """A run whose two pool workers each minimize a 25x25 Sudoku (minutes a task)."""
    path = tmp / "big.toml"
    hypothesis = (
        '{ id = "H1", claim = "none", metric = "holdout_reject_rate", arms = ["sat"], '
        'direction = "equal", value = 0, test = "bootstrap", alpha = 0.05 }'
    )
    path.write_text(
        'name = "big"\nseed = 1\ntrials = 4\nbatch = 1\nworkers = 2\nminimize = true\n'
        "[budget]\nmax_calls = 200\n"
        '[[schemas]]\nfamily = "sudoku"\nparams = { size = 25, box = [5, 5] }\n'
        '[[strategies]]\nname = "adaptive"\nclues = [300]\n'
        '[[filters]]\nverifier = "sat"\n[holdout]\nverifier = "sat"\n'
        f'[preregistration]\nhypotheses = [{hypothesis}]\nmetrics = ["holdout_reject_rate"]\n'
    )
    return path


@needs_proc
def test_no_process_outlives_a_killed_run(tmp_path) -> None:
    config = _big_run_config(tmp_path)
    args = ["run", str(config), "--out", str(tmp_path / "run"), "--quiet", "--workers", "2"]
    proc = _start(args, tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    kids: dict[int, str] = {}
    try:
        _, kids = _busy_loop(proc)  # a pool worker's loop process, two levels down
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    left, _ = _gone_within(kids, GONE_SECONDS)
    _kill_all(kids)
    assert not left, f"still running {GONE_SECONDS} s after SIGKILL: {left}"


# --- the MCP server --------------------------------------------------------------------------

INIT = initialize("test")


def _generate_call(rid: int, limit: float, params: dict = BIG) -> dict[str, Any]:
    args = {"family": "sudoku", "params": params, "minimize": True, "time_limit_seconds": limit}
    return {
        "jsonrpc": "2.0",
        "id": rid,
        "method": "tools/call",
        "params": {"name": "puzzle_generate", "arguments": args},
    }


def _mcp(tmp: Path) -> subprocess.Popen:
    proc = _start(
        ["mcp", "--workers", "1"],
        tmp,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _send(proc, INIT)
    assert _reply(proc, START_SECONDS)["id"] == 0
    _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    return proc


def _send(proc: subprocess.Popen, message: dict[str, Any]) -> None:
    proc.stdin.write(json.dumps(message) + "\n")
    proc.stdin.flush()


def _reply(proc: subprocess.Popen, seconds: float) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 0.2)
        if ready:
            line = proc.stdout.readline()
            assert line, "the server closed stdout"
            return json.loads(line)
    raise AssertionError(f"no reply within {seconds} s")


@needs_proc
def test_an_mcp_generate_past_its_limit_leaves_no_process(tmp_path) -> None:
    proc = _mcp(tmp_path)
    worker_tree: dict[int, str] = {}
    try:
        _send(proc, _generate_call(1, 120, {"size": 4, "box": [2, 2]}))
        assert "error" not in _reply(proc, 120)  # the worker's loop process is started
        _send(proc, _generate_call(2, 8))  # that loop process takes this one up at once
        loop_pid, kids = _busy_loop(proc)
        worker = int(_stat(loop_pid)[1])  # the loop process's parent: the worker
        worker_tree = {p: s for p, s in kids.items() if p == worker or p in descendants(worker)}
        answer = _reply(proc, 60)
        assert answer["id"] == 2 and answer["result"]["isError"]
        assert "time limit" in answer["result"]["content"][0]["text"]
        left, _ = _gone_within(worker_tree, GONE_SECONDS)
        assert not left, f"the stopped call left {left} running"
        assert proc.poll() is None  # the server serves on
    finally:
        proc.kill()
        proc.wait(timeout=60)
        _kill_all(worker_tree)


@needs_proc
def test_sigint_ends_the_mcp_server_and_its_workers_during_a_call(tmp_path) -> None:
    proc = _mcp(tmp_path)
    kids: dict[int, str] = {}
    try:
        _send(proc, _generate_call(1, 200))
        _, kids = _busy_loop(proc)
        proc.send_signal(signal.SIGINT)
        start = time.monotonic()
        proc.wait(timeout=30)
        took = time.monotonic() - start
    finally:
        proc.kill()
        proc.wait(timeout=60)
    left, _ = _gone_within(kids, GONE_SECONDS)
    _kill_all(kids)
    assert proc.returncode == 128 + signal.SIGINT, proc.stderr.read()[-2000:]
    assert took < GONE_SECONDS, f"the server took {took:.1f} s to end"
    assert not left, f"still running after the server ended: {left}"
