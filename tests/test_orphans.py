"""No process outlives its run: SIGKILL of ``generate`` in the middle of a long loop leaves no
loop process and no holdout worker behind (the loop process follows its parent even while it is
busy in a loop and reads no pipe)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

from tests.proc_helpers import alive, descendants, needs_proc

#: a schema whose loop runs far longer than the test waits
SLOW = ["generate", "sudoku", "--params", '{"size": 25, "box": [5, 5]}', "--count", "1"]


def _busy_children(proc: subprocess.Popen, n: int) -> dict[int, str]:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert proc.poll() is None, "generate ended before it could be stopped"
        kids = descendants(proc.pid)
        if len(kids) >= n:
            time.sleep(1.0)  # inside the loop by now
            return descendants(proc.pid)
        time.sleep(0.05)
    raise AssertionError("generate never started its loop process")


@needs_proc
def test_no_child_outlives_a_killed_generate_by_2_seconds() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "puzzlekit", *SLOW, "--holdout", "sat", "--seed", "3"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        kids = _busy_children(proc, 1)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    deadline = time.monotonic() + 2.0
    while alive(kids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(kids), f"still running 2 s after SIGKILL: {alive(kids)}"
