"""Does any process outlive a killed command? ``--kills`` times per command (``generate``,
``run``, and ``puzzle_generate`` through a ``puzzlekit mcp`` server over stdio), each started on a
loop that takes minutes (a minimized 25x25 Sudoku) and sent ``--signal`` (default KILL) at a
moment drawn uniformly from ``[0.1, --window]`` seconds after its start: during start-up, while
its children import, or mid-loop. Every process under it is recorded (from ``/proc``, polled
until the signal); the study prints, per command, the kills, how many met a loop process, the
processes seen, how many were still alive 2 s after the signal, the slowest end of a whole tree
(the command included, from the signal) and the loop processes' home directories left in the
temporary folder.

Run ``python -m benchmarks.orphans`` (Linux: it reads ``/proc``). A benchmark, not a
test: nothing asserts (``tests/test_orphans.py`` pins the behaviour).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.mcp_queue import initialize
from puzzlekit.core.lifeline import tree

BIG = {"size": 25, "box": [5, 5]}
GENERATE = ["generate", "sudoku", "--params", json.dumps(BIG), "--minimize", "--quiet"]
HYPOTHESIS = (
    '{ id = "H1", claim = "none", metric = "holdout_reject_rate", arms = ["sat"], '
    'direction = "equal", value = 0, test = "bootstrap", alpha = 0.05 }'
)
RUN_CONFIG = (
    'name = "big"\nseed = 1\ntrials = 4\nbatch = 1\nworkers = 2\nminimize = true\n'
    "[budget]\nmax_calls = 200\n"
    '[[schemas]]\nfamily = "sudoku"\nparams = { size = 25, box = [5, 5] }\n'
    '[[strategies]]\nname = "adaptive"\nclues = [300]\n'
    '[[filters]]\nverifier = "sat"\n[holdout]\nverifier = "sat"\n'
    f'[preregistration]\nhypotheses = [{HYPOTHESIS}]\nmetrics = ["holdout_reject_rate"]\n'
)
INIT = initialize("orphans")
CALL = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {
        "name": "puzzle_generate",
        "arguments": {"family": "sudoku", "params": BIG, "minimize": True},
    },
}
#: seconds a process may take to end after the signal before the study ends it by hand
GIVE_UP = 10.0


def _start(command: str, tmp: Path) -> subprocess.Popen:
    env = {**os.environ, "TMPDIR": str(tmp)}
    base = [sys.executable, "-m", "puzzlekit"]
    quiet: dict[str, Any] = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    if command == "generate":
        return subprocess.Popen([*base, *GENERATE, "--seed", "1"], env=env, **quiet)
    if command == "run":
        config = tmp / "big.toml"
        config.write_text(RUN_CONFIG)
        args = ["run", str(config), "--out", str(tmp / "run"), "--quiet"]
        return subprocess.Popen([*base, *args], env=env, **quiet)
    proc = subprocess.Popen(
        [*base, "mcp", "--workers", "1"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    lines = [INIT, {"jsonrpc": "2.0", "method": "notifications/initialized"}, CALL]
    assert proc.stdin is not None
    proc.stdin.write("".join(json.dumps(m) + "\n" for m in lines).encode())
    proc.stdin.flush()  # stdin stays open: the server serves on
    return proc


def _start_time(pid: int) -> str | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()
    return None if fields[0] == "Z" else fields[19]


def _is_loop(pid: int) -> bool:
    try:
        return b"puzzlekit.loop.loop_process" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def _alive(seen: dict[int, str]) -> list[int]:
    return [pid for pid, started in seen.items() if _start_time(pid) == started]


def _watch(root: int, seen: dict[int, str]) -> bool:
    """Add every process now under ``root`` to ``seen``; whether a loop process is among them."""
    loop = False
    for pid in tree(root):
        started = _start_time(pid)
        if started is not None and pid not in seen:
            seen[pid] = started
            loop = loop or _is_loop(pid)
    return loop


def _wait_gone(seen: dict[int, str], start: float) -> tuple[int, list[int], float]:
    """Poll until every process in ``seen`` (and any it starts meanwhile) has ended, or
    :data:`GIVE_UP` s after ``start`` (the signal): how many were alive 2 s after it, those
    alive at the end, the seconds from the signal to the last end."""
    at_2s: int | None = None
    while True:
        for pid in _alive(seen):  # a child started after the signal counts too
            _watch(pid, seen)
        alive = _alive(seen)
        elapsed = time.monotonic() - start
        if at_2s is None and elapsed >= 2.0:
            at_2s = len(alive)
        if not alive or elapsed >= GIVE_UP:
            return at_2s or 0, alive, elapsed
        time.sleep(0.02)


def one_kill(command: str, at: float, sig: signal.Signals) -> dict[str, Any]:
    """Start ``command``, send ``sig`` ``at`` seconds later; what was seen and what was left."""
    tmp = Path(tempfile.mkdtemp(prefix="orphans-"))
    proc = _start(command, tmp)
    seen: dict[int, str] = {}
    loop = False
    start = time.monotonic()
    while time.monotonic() - start < at and proc.poll() is None:
        loop = _watch(proc.pid, seen) or loop
        time.sleep(0.02)
    loop = _watch(proc.pid, seen) or loop
    signalled = time.monotonic()
    proc.send_signal(sig)
    proc.wait()
    at_2s, left, seconds = _wait_gone(seen, signalled)
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    homes = len(list(tmp.glob("puzzlekit-loop-*")))
    shutil.rmtree(tmp, ignore_errors=True)
    return {
        "seen": len(seen),
        "loop": loop,
        "left_2s": at_2s,
        "left_end": len(left),
        "seconds": seconds,
        "homes": homes,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=8, help="kills per command (default 8)")
    parser.add_argument("--window", type=float, default=12.0, help="latest kill, s after start")
    parser.add_argument("--signal", default="KILL", help="KILL (default), TERM or INT")
    parser.add_argument("--commands", default="generate,run,mcp")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    sig = signal.Signals[f"SIG{args.signal.upper()}"]
    rng = random.Random(args.seed)
    print(f"# {platform.system()} {platform.release()}, {os.cpu_count()} CPUs, SIG{args.signal}")
    print(
        "| command | kills | met a loop process | processes seen | alive 2 s after | "
        "slowest end (s) | homes left |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for command in args.commands.split(","):
        rows = [one_kill(command, rng.uniform(0.1, args.window), sig) for _ in range(args.kills)]
        print(
            f"| {command} | {len(rows)} | {sum(r['loop'] for r in rows)} | "
            f"{sum(r['seen'] for r in rows)} | {sum(r['left_2s'] for r in rows)} | "
            f"{max(r['seconds'] for r in rows):.2f} | {sum(r['homes'] for r in rows)} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
