"""How ``puzzlekit mcp`` talks: stdio that answers every line, and HTTP that only its client
reaches.

- :func:`serve_stdio`: the SDK's stdio transport, with every line checked first
  (:func:`line_error`): a line that is not JSON gets a JSON-RPC parse error (-32700), one that is
  not a JSON-RPC message an invalid-request error (-32600, with the request's id where it has
  one), where the SDK alone would drop them without a reply. Blank lines are skipped.
- :func:`serve_http`: streamable HTTP. On a loopback address the ``Host`` (and ``Origin``) header
  must name that loopback address, so a web page cannot reach the server by DNS rebinding. Any
  other address must be asked for (``allow_remote``) and needs a token: every request must carry
  ``Authorization: Bearer TOKEN`` (:class:`BearerToken`), or it is answered 401.

Not for: the tools themselves (:mod:`puzzlekit.app.mcp.server`).
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from typing import Any

#: the environment variable that holds the token of a server bound to a non-loopback address
TOKEN_ENV = "PUZZLEKIT_MCP_TOKEN"

PARSE_ERROR = -32700
INVALID_REQUEST = -32600


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or ``localhost``) is this machine alone."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def line_error(line: str) -> dict[str, Any] | None:
    """The JSON-RPC error reply a stdio line deserves, or None when the SDK can take it."""
    import mcp_types as types
    from pydantic import ValidationError

    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return {"code": PARSE_ERROR, "message": "Parse error: the line is not JSON", "id": None}
    try:
        if isinstance(obj, dict) and "id" in obj and not _valid_id(obj["id"]):
            # else read as a notification (extra keys are allowed there) and never answered
            raise ValueError("the id must be a string or an integer")
        types.jsonrpc_message_adapter.validate_python(obj, by_name=False)
    except (ValidationError, ValueError, RecursionError):
        rid = obj.get("id") if isinstance(obj, dict) else None
        if not _valid_id(rid):
            rid = None
        what = "a batch (an array) is not supported" if isinstance(obj, list) else None
        detail = what or "not a JSON-RPC 2.0 request, notification or response"
        return {"code": INVALID_REQUEST, "message": f"Invalid Request: {detail}", "id": rid}
    return None


def _valid_id(rid: Any) -> bool:
    return isinstance(rid, (int, str)) and not isinstance(rid, bool)


class _InFlight:
    """The requests read and the responses written: at end of input the reader waits until
    every request read has its answer, so closing stdin right after a request loses nothing."""

    def __init__(self) -> None:
        import anyio

        self.pending: set[Any] = set()
        self.changed = anyio.Event()

    def read(self, line: str) -> None:
        try:
            obj = json.loads(line)
        except ValueError:
            return
        if isinstance(obj, dict) and "method" in obj and _valid_id(obj.get("id")):
            self.pending.add(obj["id"])

    def answered(self, rid: Any) -> None:
        import anyio

        self.pending.discard(rid)
        self.changed.set()
        self.changed = anyio.Event()

    async def drained(self) -> None:
        while self.pending:
            await self.changed.wait()


class _AnswerTracking:
    """The write stream the session answers through, marking each response's id answered."""

    def __init__(self, stream: Any, flight: _InFlight) -> None:
        self._stream = stream
        self._flight = flight

    async def send(self, item: Any) -> None:
        await self._stream.send(item)
        rid = getattr(getattr(item, "message", None), "id", None)
        if rid is not None and not hasattr(item.message, "method"):
            self._flight.answered(rid)

    async def __aenter__(self) -> _AnswerTracking:
        await self._stream.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._stream.__aexit__(*exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class _CheckedLines:
    """stdin's lines as text (invalid UTF-8 replaced, as the SDK does), minus the ones
    :func:`line_error` answers (through ``reply``). At end of input it ends only once every
    request it passed on has been answered (``flight``)."""

    def __init__(self, source: Any) -> None:
        self.source = source
        self.reply: Any = None
        self.flight = _InFlight()

    def __aiter__(self) -> Any:
        return self._lines()

    async def _lines(self) -> Any:
        async for raw in self.source:
            line = raw.decode("utf-8", errors="replace")
            if not line.strip():
                continue
            error = line_error(line)
            if error is None:
                self.flight.read(line)
                yield line
            elif self.reply is not None:
                await self.reply(error)
        await self.flight.drained()  # every call bounded by its own limit, so this ends


async def serve_stdio(server: Any) -> None:
    """Run ``server`` (an MCPServer) on stdin/stdout until stdin ends; every line answered."""
    import sys

    import anyio
    import mcp_types as types
    from mcp.server.stdio import stdio_server
    from mcp.shared.message import SessionMessage

    stdin = _CheckedLines(anyio.wrap_file(sys.stdin.buffer))
    async with stdio_server(stdin=stdin) as (read_stream, write_stream):  # type: ignore[arg-type]

        async def reply(error: dict[str, Any]) -> None:
            message = types.JSONRPCError(
                jsonrpc="2.0",
                id=error["id"],
                error=types.ErrorData(code=error["code"], message=error["message"]),
            )
            await write_stream.send(SessionMessage(message))

        stdin.reply = reply
        low = server._lowlevel_server
        answers = _AnswerTracking(write_stream, stdin.flight)
        await low.run(read_stream, answers, low.create_initialization_options())


class BearerToken:
    """ASGI middleware: a request without ``Authorization: Bearer <token>`` gets 401."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = [v for k, v in scope.get("headers") or [] if k.lower() == b"authorization"]
            # two Authorization headers are refused whatever they hold (no "last one wins")
            token = given[0] if len(given) == 1 else b""
            if not hmac.compare_digest(token, self._expected):
                body = json.dumps(
                    {
                        "jsonrpc": "2.0",
                        "id": None,
                        "error": {"code": -32001, "message": "Unauthorized: a bearer token needed"},
                    }
                ).encode()
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b"Bearer"),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def http_app(server: Any, host: str, token: str | None) -> Any:
    """The ASGI app of ``server`` for a bind to ``host``: Host checked on loopback, the token
    checked on every request when given."""
    from mcp.server.transport_security import TransportSecuritySettings

    if is_loopback(host):
        bracket = f"[{host.strip('[]')}]" if ":" in host else host
        names = sorted({bracket, "127.0.0.1", "localhost", "[::1]"})
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=[f"{n}:*" for n in names],
            allowed_origins=[f"http://{n}:*" for n in names],
        )
    else:  # reached by other machines under their own names: the token is the guard
        security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    app = server.streamable_http_app(host=host, transport_security=security)
    if token is not None:
        return BearerToken(app, token)
    return app


async def serve_http(server: Any, host: str, port: int, token: str | None) -> None:
    """Serve ``server`` over streamable HTTP at ``http://host:port/mcp`` (see the docstring)."""
    import uvicorn

    config = uvicorn.Config(
        http_app(server, host, token),
        host=host,
        port=port,
        log_level=server.settings.log_level.lower(),
    )
    await _quiet_server(uvicorn.Server)(config).serve()


def _quiet_server(base: type) -> type:
    """uvicorn's ``Server`` class leaving SIGINT and SIGTERM to ``puzzlekit mcp``, which stops
    its workers and exits at once (uvicorn's graceful stop waits for every call in progress)."""
    import contextlib

    class Server(base):  # type: ignore[misc, valid-type]
        @contextlib.contextmanager
        def capture_signals(self) -> Any:
            yield

        def install_signal_handlers(self) -> None:  # its name in older uvicorn versions
            return None

    return Server
