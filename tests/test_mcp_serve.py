"""How ``puzzlekit mcp`` serves: every stdio line gets a reply, calls run side by side (a slow
call does not hold up quick ones), the Host header is checked on loopback, and a non-loopback
bind needs ``--allow-remote`` and a token that every request carries."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import select
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from puzzlekit.app.cli import main
from puzzlekit.app.mcp.transport import INVALID_REQUEST, PARSE_ERROR, line_error
from tests.proc_helpers import descendants, needs_proc, wait_gone

ROOT = Path(__file__).resolve().parent.parent
SUDOKU4 = {"size": 4, "box": [2, 2]}

INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}

#: malformed lines and the error code and id each must be answered with
MALFORMED = [
    ("not json", PARSE_ERROR, None),
    ("[]", INVALID_REQUEST, None),
    ("{}", INVALID_REQUEST, None),
    ('{"jsonrpc": "2.0", "id": 1}', INVALID_REQUEST, 1),
    ('{"jsonrpc": "1.0", "id": 2, "method": "tools/list"}', INVALID_REQUEST, 2),
    ('{"jsonrpc": "2.0", "id": {"a": 1}, "method": "tools/list"}', INVALID_REQUEST, None),
    ('{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": "x"}', INVALID_REQUEST, 3),
    ('{"jsonrpc": "2.0", "id": 4, "method": "tools/call"}', -32602, 4),
    ('{"jsonrpc": "2.0", "id": 5, "method": "no/such"}', -32601, 5),
]


@pytest.mark.parametrize(("line", "code", "rid"), MALFORMED[:7])
def test_a_malformed_line_is_named_for_its_error(line: str, code: int, rid: Any) -> None:
    error = line_error(line)
    assert error is not None and error["code"] == code and error["id"] == rid


def test_a_well_formed_line_is_left_to_the_server() -> None:
    assert line_error(json.dumps(INIT)) is None


def _read_reply(proc: subprocess.Popen, deadline: float) -> dict[str, Any]:
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 0.5)
        if ready:
            line = proc.stdout.readline()
            assert line, "the server closed stdout"
            return json.loads(line)
    raise AssertionError("no reply")


def test_every_stdio_line_gets_a_reply() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "puzzlekit", "mcp", "--workers", "1"],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        proc.stdin.write(json.dumps(INIT) + "\n")
        proc.stdin.flush()
        assert _read_reply(proc, time.monotonic() + 120)["id"] == 0
        proc.stdin.write('{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        for line, code, rid in MALFORMED:
            proc.stdin.write(line + "\n\n")  # the blank line is skipped, not answered
            proc.stdin.flush()
            reply = _read_reply(proc, time.monotonic() + 60)
            assert reply["id"] == rid and reply["error"]["code"] == code, (line, reply)
    finally:
        proc.kill()
        proc.wait(timeout=30)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(port: int, *extra: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "puzzlekit", "mcp", "--http", str(port), *extra],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def _post(port: int, headers: dict[str, str]) -> int:
    """The status of an ``initialize`` POST with ``headers`` (polls until the server listens)."""
    body = json.dumps(INIT)
    base = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    deadline = time.monotonic() + 120
    while True:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            conn.request("POST", "/mcp", body=body, headers={**base, **headers})
            return conn.getresponse().status
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)
        finally:
            conn.close()


def test_a_slow_call_does_not_hold_up_quick_ones_and_a_foreign_host_is_refused() -> None:
    port = _free_port()
    proc = _start(port, "--workers", "2")
    url = f"http://127.0.0.1:{port}/mcp"

    async def slow(client: Client) -> float:
        # the empty 7x6 board is not solved within 6 s: the call takes its whole budget
        empty = "/".join(["......."] * 6)
        args = {"game": "connect", "position": empty, "budget_seconds": 6}
        await client.call_tool("game_verdict", args)
        return time.monotonic()

    async def quick(client: Client) -> tuple[float, bool]:
        text = "1" + "." * 15
        args = {"family": "sudoku", "params": SUDOKU4, "text": text, "solution_cap": 2}
        res = await client.call_tool("puzzle_verify", args)
        return time.monotonic(), res.is_error

    async def talk() -> tuple[float, list[tuple[float, bool]]]:
        async with Client(url) as a, Client(url) as b:
            await b.call_tool("puzzle_schema_list", {})  # both workers warm
            slow_task = asyncio.create_task(slow(a))
            await asyncio.sleep(1.0)  # the slow call holds one worker
            quick_done = [await quick(b) for _ in range(3)]
            return await slow_task, quick_done

    try:
        assert _post(port, {"Host": "evil.example"}) >= 400  # DNS rebinding: refused
        assert _post(port, {"Host": f"127.0.0.1:{port}"}) == 200
        slow_done, quick_done = asyncio.run(talk())
    finally:
        proc.terminate()
        proc.communicate(timeout=60)
    assert not any(error for _, error in quick_done)
    assert max(t for t, _ in quick_done) < slow_done  # answered while the slow call ran


def test_a_non_loopback_bind_needs_the_flag_and_a_token(capsys) -> None:
    assert main(["mcp", "--http", "8765", "--host", "0.0.0.0"]) == 2
    assert "--allow-remote" in capsys.readouterr().err
    os.environ.pop("PUZZLEKIT_MCP_TOKEN", None)
    assert main(["mcp", "--http", "8765", "--host", "0.0.0.0", "--allow-remote"]) == 2
    assert "PUZZLEKIT_MCP_TOKEN" in capsys.readouterr().err


def test_a_remote_server_answers_only_requests_that_carry_its_token() -> None:
    port = _free_port()
    token = "t0ken-for-this-test-only-0123456789"
    proc = _start(
        port, "--host", "0.0.0.0", "--allow-remote", "--workers", "1",
        env={"PUZZLEKIT_MCP_TOKEN": token},
    )  # fmt: skip
    try:
        assert _post(port, {}) == 401
        assert _post(port, {"Authorization": "Bearer wrong-token-of-some-length"}) == 401
        assert _post(port, {"Authorization": f"Bearer {token}"}) == 200
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=60)
    assert "warning" in err and "0.0.0.0" in err


@needs_proc
def test_the_workers_end_with_a_killed_server() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "puzzlekit", "mcp", "--workers", "2"],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        kids = descendants(proc.pid)
        while len(kids) < 2 and time.monotonic() < deadline:  # the two workers, at least
            time.sleep(0.1)
            kids = descendants(proc.pid)
        assert len(kids) >= 2, "the server never started its workers"
    finally:
        proc.kill()
        proc.wait(timeout=60)
    assert not wait_gone(kids)
