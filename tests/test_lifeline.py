"""core.lifeline: a child's whole tree ended on a time limit (a grandchild in a session of its
own included), SIGTERM raised as a KeyboardInterrupt for a command's cleanup, and a server
stopped at once on SIGINT or SIGTERM although a thread of it is blocked."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from puzzlekit.core.lifeline import (
    Terminated,
    end_tree,
    interrupt_word,
    terminated_as_interrupt,
)
from tests.proc_helpers import alive, descendants, needs_proc

ROOT = Path(__file__).resolve().parent.parent


def _poll(check, seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return False


@needs_proc
def test_end_tree_ends_a_grandchild_that_left_the_group_and_the_session() -> None:
    # the grandchild starts its own session: neither the child's group nor its death reach it
    code = (
        "import subprocess, sys, time\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)'], "
        "start_new_session=True)\n"
        "time.sleep(300)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", code])
    kids: dict[int, str] = {}
    try:
        assert _poll(lambda: bool(descendants(child.pid)))
        kids = descendants(child.pid)
        end_tree(child.pid)
        child.wait(timeout=30)
        assert _poll(lambda: not alive(kids)), f"left running: {alive(kids)}"
    finally:
        child.kill()
        for pid in alive(kids):
            os.kill(pid, signal.SIGKILL)


def test_sigterm_raises_terminated_inside_the_block_and_the_old_handler_comes_back() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(Terminated), terminated_as_interrupt():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler raises before this ends
    assert signal.getsignal(signal.SIGTERM) is before
    assert interrupt_word(Terminated()) == ("terminated", 143)
    assert interrupt_word(KeyboardInterrupt()) == ("interrupted", 130)
    assert issubclass(Terminated, KeyboardInterrupt)  # every Ctrl-C cleanup serves SIGTERM too


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_server_stops_its_children_and_exits_at_once_though_a_thread_is_blocked(
    tmp_path, sig
) -> None:
    mark = tmp_path / "stopped"
    code = textwrap.dedent(f"""
        import sys, threading, time
        from puzzlekit.core.lifeline import stop_on_signals
        blocker = threading.Event()
        # a non-daemon thread that never ends: a KeyboardInterrupt alone would wait for it
        threading.Thread(target=blocker.wait).start()
        def stop():
            open({str(mark)!r}, "w").write("children ended")
        with stop_on_signals(stop, "server"):
            print("ready", flush=True)
            while True:
                time.sleep(0.1)
        """)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    try:
        assert proc.stdout.readline() == b"ready\n"
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
        proc.wait(timeout=30)
    assert proc.returncode == 128 + sig
    assert mark.read_text() == "children ended"
    assert err.decode().strip() == f"server: stopped by {signal.Signals(sig).name}"


#: a parent that starts a child from a short-lived thread, the way an MCP call's thread restarts
#: a worker, then lets that thread end; the child holds the GIL in C code (no Python thread of
#: its own runs there), so only the kernel's death signal can end it
_PARENT = """
import subprocess, sys, threading
from puzzlekit.core.lifeline import in_lasting_thread, parent_token
CHILD = (
    "import sys; from puzzlekit.core.lifeline import ParentToken, follow_parent; "
    "follow_parent(ParentToken(int(sys.argv[1]), sys.argv[2] == '1')); "
    "print('busy', flush=True); sum(range(10 ** 15))"
)
def launch():
    token = parent_token()
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(token.pid), "1" if token.lasting else "0"]
    )
box = []
thread = threading.Thread(target=lambda: box.append(in_lasting_thread(launch)))
thread.start()
thread.join()  # the thread that asked for the child has ended
print(box[0].pid, flush=True)
threading.Event().wait()
"""


@needs_proc
def test_a_child_started_from_a_passing_thread_outlives_the_thread_and_ends_with_the_parent() -> (
    None
):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    parent = subprocess.Popen([sys.executable, "-c", _PARENT], stdout=subprocess.PIPE, env=env)
    kids: dict[int, str] = {}
    try:
        first = parent.stdout.readline().decode().strip()
        second = parent.stdout.readline().decode().strip()
        busy, child = sorted([first, second], key=lambda line: line != "busy")
        assert busy == "busy", (first, second)
        kids = {p: s for p, s in descendants(parent.pid).items() if p == int(child)}
        time.sleep(1.0)  # the starting thread ended a while ago: the child must still run
        assert alive(kids), "the child ended with the thread that started it"
        parent.kill()
        parent.wait(timeout=30)
        assert _poll(lambda: not alive(kids), 10), "the child outlived its parent"
    finally:
        parent.kill()
        for pid in alive(kids):
            os.kill(pid, signal.SIGKILL)
