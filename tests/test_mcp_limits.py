"""MCP limits that a default, a header or the end of input could bypass: every default time
limit is clamped to ``--max-seconds``, a request with two ``Authorization`` headers is refused,
and every request read before stdin ends is answered before the server exits."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from puzzlekit.app.mcp.args import Limits
from puzzlekit.app.mcp.server import build_server, games_available
from puzzlekit.app.mcp.transport import BearerToken


def _defaults(limits: Limits) -> dict[tuple[str, str], Any]:
    server = build_server(limits, worker=None)
    tools = asyncio.run(server.list_tools())
    return {
        (tool.name, key): spec.get("default")
        for tool in tools
        for key, spec in tool.input_schema["properties"].items()
        if key.endswith("seconds")
    }


def test_every_default_time_limit_is_within_max_seconds() -> None:
    small = _defaults(Limits(max_seconds=5))
    expected = {("puzzle_verify", "budget_seconds"), ("puzzle_generate", "time_limit_seconds")}
    if games_available():
        expected.add(("game_verdict", "budget_seconds"))
    assert expected <= set(small)
    assert all(value is not None and value <= 5 for value in small.values()), small
    roomy = _defaults(Limits(max_seconds=300))
    assert roomy[("puzzle_generate", "time_limit_seconds")] == 60
    assert roomy[("puzzle_verify", "budget_seconds")] == 10


async def _status(headers: list[tuple[bytes, bytes]]) -> int:
    reached: list[bool] = []

    async def app(scope, receive, send) -> None:
        reached.append(True)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    await BearerToken(app, "secret-token")({"type": "http", "headers": headers}, receive, send)
    status = sent[0]["status"]
    assert bool(reached) == (status == 200)
    return status


@pytest.mark.parametrize(
    "headers,status",
    [
        ([(b"authorization", b"Bearer secret-token")], 200),
        ([], 401),
        ([(b"authorization", b"Bearer wrong")], 401),
        ([(b"authorization", b"Bearer wrong"), (b"authorization", b"Bearer secret-token")], 401),
        ([(b"authorization", b"Bearer secret-token"), (b"Authorization", b"Bearer x")], 401),
        ([(b"authorization", b"Bearer secret-token")] * 2, 401),
    ],
    ids=["right", "none", "wrong", "wrong-then-right", "right-then-other", "twice"],
)
def test_exactly_one_authorization_header_with_the_token_passes(headers, status) -> None:
    assert asyncio.run(_status(headers)) == status


def test_every_request_read_before_end_of_input_is_answered() -> None:
    import json
    import subprocess
    import sys

    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        },
    }
    calls = [
        {
            "jsonrpc": "2.0",
            "id": 10 + i,
            "method": "tools/call",
            "params": {
                "name": "puzzle_verify",
                "arguments": {"family": "sudoku", "text": "1..............."},
            },
        }
        for i in range(3)
    ]
    lines = [init, {"jsonrpc": "2.0", "method": "notifications/initialized"}, *calls]
    proc = subprocess.run(
        [sys.executable, "-m", "puzzlekit", "mcp", "--workers", "1"],
        input="".join(json.dumps(m) + "\n" for m in lines),  # stdin closes right after
        capture_output=True,
        text=True,
        timeout=300,
    )
    answers = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    assert sorted(a["id"] for a in answers) == [1, 10, 11, 12], proc.stderr[-2000:]
    assert all("result" in a for a in answers)
    assert proc.returncode == 0


class _Recorder:
    """A worker that answers nothing but records the time limit each call was given."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any], float]] = []

    def call(self, op: str, kwargs: dict[str, Any], timeout: float) -> dict[str, Any]:
        self.calls.append((op, dict(kwargs), timeout))
        raise RuntimeError("recorded")


@pytest.mark.parametrize(
    "tool,arguments",
    [
        ("puzzle_generate", {"family": "sudoku"}),
        ("puzzle_verify", {"family": "sudoku", "text": "1" + "." * 15}),
    ],
)
def test_a_call_that_leaves_its_limit_out_runs_within_max_seconds(tool, arguments) -> None:
    recorder = _Recorder()
    limits = Limits(max_seconds=5)
    server = build_server(limits, worker=recorder)  # type: ignore[arg-type]
    try:
        asyncio.run(server.call_tool(tool, arguments))
    except Exception:
        pass  # the recorder answers nothing; what it was asked is what counts
    assert len(recorder.calls) == 1
    _, kwargs, timeout = recorder.calls[0]
    assert timeout <= 5 + limits.grace_seconds
    assert kwargs.get("budget_seconds", 5) <= 5
    if tool == "puzzle_generate":
        assert timeout <= 5
