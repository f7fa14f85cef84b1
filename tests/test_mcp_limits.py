"""MCP limits that a default or a header could bypass: every default time limit is clamped to
``--max-seconds``, and a request with two ``Authorization`` headers is refused."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from puzzlekit.app.mcp_args import Limits
from puzzlekit.app.mcp_server import build_server, games_available
from puzzlekit.app.mcp_transport import BearerToken


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
