"""``puzzlekit mcp``: serve the verifier, the generator and the game solver to MCP clients.

Over stdio by default (an MCP client starts ``puzzlekit mcp`` and talks on its stdin/stdout);
``--http PORT`` serves the SDK's streamable HTTP transport at ``http://HOST:PORT/mcp`` instead,
bound to 127.0.0.1 unless ``--host`` says otherwise. See :mod:`puzzlekit.app.mcp_server`.
"""

from __future__ import annotations

import argparse

from puzzlekit.app.cli import UsageError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("mcp", help="serve puzzlekit's tools over the Model Context Protocol")
    p.add_argument(
        "--http",
        type=int,
        metavar="PORT",
        default=None,
        help="serve streamable HTTP on PORT (path /mcp) instead of stdio",
    )
    p.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default 127.0.0.1)")
    p.add_argument(
        "--max-count", type=int, default=20, help="puzzles per puzzle_generate call at most"
    )
    p.add_argument(
        "--max-seconds", type=float, default=300.0, help="seconds one call may take at most"
    )
    p.add_argument(
        "--max-input-chars", type=int, default=100_000, help="characters per input field at most"
    )
    p.set_defaults(func=cmd_mcp)


def cmd_mcp(args: argparse.Namespace) -> int:
    from puzzlekit.app.mcp_server import Limits, serve

    if args.http is not None and not 0 < args.http < 65536:
        raise UsageError(f"--http: port must be in 1..65535, got {args.http}")
    if args.host != "127.0.0.1" and args.http is None:
        raise UsageError("--host needs --http")
    if args.max_count < 1:
        raise UsageError(f"--max-count must be at least 1, got {args.max_count}")
    if not args.max_seconds > 0:
        raise UsageError(f"--max-seconds must be positive, got {args.max_seconds}")
    if args.max_input_chars < 1:
        raise UsageError(f"--max-input-chars must be at least 1, got {args.max_input_chars}")
    limits = Limits(
        max_input_chars=args.max_input_chars,
        max_count=args.max_count,
        max_seconds=args.max_seconds,
    )
    try:
        serve(http_port=args.http, host=args.host, limits=limits)
    except KeyboardInterrupt:
        pass
    return 0
