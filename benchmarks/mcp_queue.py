"""Is a fast MCP call behind slow ones answered within its own limit? A ``puzzlekit mcp`` server
over stdio with ``--workers`` workers gets ``--slow`` slow calls (``puzzle_generate`` of 25×25
Sudokus, which run to their time limit) and then ``--fast`` fast ones (``puzzle_verify`` of a 4×4
Sudoku), all at once; it prints, per kind, how many were answered, how many within their limit
(counted from the moment the request was written), and the wait in seconds.

Run ``python -m benchmarks.mcp_queue`` (``--short-seconds 0`` serves every call as a
long one: no worker is kept for short calls). A benchmark, not a test: nothing asserts.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import threading
import time
from typing import Any


def initialize(client: str) -> dict[str, Any]:
    """The JSON-RPC ``initialize`` request a client named ``client`` opens a stdio session with."""
    return {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": client, "version": "1"},
        },
    }


INIT = initialize("mcp_queue")


def _call(call_id: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": call_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


def _requests(
    slow: int, fast: int, slow_limit: float, fast_budget: float
) -> list[tuple[str, dict]]:
    out: list[tuple[str, dict]] = []
    for i in range(slow):
        args = {
            "family": "sudoku",
            "params": {"size": 25},
            "count": 20,
            "seed": i,
            "time_limit_seconds": slow_limit,
        }
        out.append(("slow", _call(100 + i, "puzzle_generate", args)))
    for i in range(fast):
        args = {"family": "sudoku", "text": "1" + "." * 15, "budget_seconds": fast_budget}
        out.append(("fast", _call(1000 + i, "puzzle_verify", args)))
    return out


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """Run the server, send every call, and time each answer."""
    cmd = [sys.executable, "-m", "puzzlekit", "mcp", "--workers", str(args.workers)]
    cmd += ["--short-seconds", str(args.short_seconds)]
    proc = subprocess.Popen(
        cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
    )
    assert proc.stdin is not None and proc.stdout is not None
    answered: dict[int, tuple[float, bool]] = {}
    ready = threading.Event()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            msg = json.loads(line)
            if msg.get("id") == 0:
                ready.set()
            elif "id" in msg:
                error = "error" in msg or bool(msg.get("result", {}).get("isError"))
                answered[msg["id"]] = (time.monotonic(), error)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    proc.stdin.write(json.dumps(INIT) + "\n")
    ready.wait(120)
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    # one verification in each worker first (its imports and first search), not measured
    for i in range(args.workers):
        warm = {"family": "sudoku", "text": "1" + "." * 15}
        proc.stdin.write(json.dumps(_call(10 + i, "puzzle_verify", warm)) + "\n")
    proc.stdin.flush()
    end = time.monotonic() + 300
    while len(answered) < args.workers and time.monotonic() < end:
        time.sleep(0.1)
    answered.clear()
    requests = _requests(args.slow, args.fast, args.slow_limit, args.fast_budget)
    sent: dict[int, tuple[str, float]] = {}
    for kind, msg in requests:
        sent[msg["id"]] = (kind, time.monotonic())
        proc.stdin.write(json.dumps(msg) + "\n")
    proc.stdin.flush()
    end = time.monotonic() + args.slow_limit * 3 + 60
    while len(answered) < len(sent) and time.monotonic() < end:
        time.sleep(0.1)
    proc.stdin.close()
    proc.wait(60)
    from puzzlekit.app.mcp.args import Limits

    limits = {"slow": args.slow_limit, "fast": args.fast_budget + Limits().grace_seconds}
    rows: dict[str, Any] = {}
    for kind in ("slow", "fast"):
        ids = [i for i, (k, _) in sent.items() if k == kind]
        waits = sorted(answered[i][0] - sent[i][1] for i in ids if i in answered)
        rows[kind] = {
            "calls": len(ids),
            "answered": len(waits),
            "errors": sum(answered[i][1] for i in ids if i in answered),
            "withinLimit": sum(w <= limits[kind] for w in waits),
            "limit": limits[kind],
            "medianSeconds": waits[len(waits) // 2] if waits else None,
            "maxSeconds": waits[-1] if waits else None,
        }
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--workers", type=int, default=3)
    p.add_argument("--slow", type=int, default=10, help="slow calls (default 10)")
    p.add_argument("--fast", type=int, default=40, help="fast calls (default 40)")
    p.add_argument(
        "--slow-limit", type=float, default=45.0, help="slow calls' limit (s; over --short-seconds)"
    )
    p.add_argument("--fast-budget", type=float, default=2.0, help="fast calls' budget (s)")
    p.add_argument("--short-seconds", type=float, default=30.0, help="the server's option")
    args = p.parse_args(argv)
    rows = measure(args)
    print(
        f"# {args.workers} workers, {args.slow} slow + {args.fast} fast calls, "
        f"--short-seconds {args.short_seconds:g}; {platform.machine()}, {os.cpu_count()} cores, "
        f"load {os.getloadavg()[0]:.1f}"
    )
    print("| calls | sent | answered | tool errors | within limit | limit s | median s | max s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for kind, r in rows.items():
        med = "-" if r["medianSeconds"] is None else f"{r['medianSeconds']:.2f}"
        top = "-" if r["maxSeconds"] is None else f"{r['maxSeconds']:.2f}"
        print(
            f"| {kind} | {r['calls']} | {r['answered']} | {r['errors']} | {r['withinLimit']} "
            f"| {r['limit']:g} | {med} | {top} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
