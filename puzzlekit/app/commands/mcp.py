"""``puzzlekit mcp``: serve the verifier, the generator and the game solver to MCP clients.

Over stdio by default (an MCP client starts ``puzzlekit mcp`` and talks on its stdin/stdout);
``--http PORT`` serves the SDK's streamable HTTP transport at ``http://HOST:PORT/mcp`` instead,
bound to 127.0.0.1 unless ``--host`` says otherwise (a non-loopback address needs
``--allow-remote`` and a token in ``PUZZLEKIT_MCP_TOKEN``, and prints a warning). See
:mod:`puzzlekit.app.mcp.server` and :mod:`puzzlekit.app.mcp.transport`.
"""

from __future__ import annotations

import argparse
from typing import Any

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
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="HTTP bind address (default 127.0.0.1); another than a loopback address needs "
        "--allow-remote and a token",
    )
    p.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a non-loopback --host: every request must then carry 'Authorization: Bearer "
        "TOKEN', the token read from the environment variable PUZZLEKIT_MCP_TOKEN",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=3,
        help="worker processes, so calls run side by side (default 3)",
    )
    p.add_argument(
        "--short-seconds",
        type=float,
        default=30.0,
        help="a call whose time limit is at most this is short: one worker in three (at least "
        "one of two or more) takes short calls only, so they never wait behind slow ones "
        "(default 30)",
    )
    p.add_argument(
        "--max-count", type=int, default=20, help="puzzles per puzzle_generate call at most"
    )
    p.add_argument(
        "--max-seconds", type=float, default=300.0, help="seconds one call may take at most"
    )
    p.add_argument(
        "--max-input-chars", type=int, default=100_000, help="characters per input field at most"
    )
    p.add_argument(
        "--ledger",
        metavar="DB",
        default=None,
        help="the ledger database stopping_condition_run anchors escalations in (created if "
        "missing); without it, anchoring answers no-anchor-fn",
    )
    # a judging process: puzzle_generate runs a holdout; plugins are only named here, imported
    # in a worker for the calls that run none, and in the loop process (docs/security.md)
    p.set_defaults(func=cmd_mcp, judges=lambda a: True)


def cmd_mcp(args: argparse.Namespace) -> int:
    from puzzlekit.app.mcp.server import Limits, serve

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
    if args.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {args.workers}")
    if not args.short_seconds >= 0:
        raise UsageError(f"--short-seconds must be at least 0, got {args.short_seconds}")
    token = _remote_token(args)
    _check_plugins()
    limits = Limits(
        max_input_chars=args.max_input_chars,
        max_count=args.max_count,
        max_seconds=args.max_seconds,
    )
    ledger = _open_ledger(args.ledger)
    try:
        serve(
            http_port=args.http,
            host=args.host,
            limits=limits,
            workers=args.workers,
            short_seconds=args.short_seconds,
            token=token,
            ledger=ledger,
        )
    except KeyboardInterrupt:
        pass
    finally:
        if ledger is not None:
            ledger.close()
    return 0


def _check_plugins() -> None:
    """Import the named plugins once in a loop process, never here: PluginError (one line naming
    the plugin, exit 2) now rather than at the first call."""
    from puzzlekit.core.plugins import kept_out

    if not kept_out():
        return
    from puzzlekit.app.judging import loop_imports
    from puzzlekit.loop.isolation import close_loop_workers

    try:
        loop_imports()
    finally:
        close_loop_workers()


def _open_ledger(path: str | None) -> Any:
    """The ledger at ``path`` (created when missing), or None; a one-line error when the file
    is not a ledger."""
    if path is None:
        return None
    import sqlite3

    from puzzlekit.audit.ledger import Ledger, LedgerError

    try:
        return Ledger(path)
    except (LedgerError, sqlite3.Error, OSError) as exc:
        raise UsageError(f"--ledger {path}: {exc}") from None


def _remote_token(args: argparse.Namespace) -> str | None:
    """The token a non-loopback bind needs (None on loopback); refuses a bind not asked for."""
    import os
    import sys

    from puzzlekit.app.mcp.transport import TOKEN_ENV, is_loopback

    if args.http is None or is_loopback(args.host):
        return None
    if not args.allow_remote:
        raise UsageError(
            f"--host {args.host} is reachable from other machines; pass --allow-remote "
            f"(and set {TOKEN_ENV}) to serve there"
        )
    token = os.environ.get(TOKEN_ENV, "")
    if len(token) < 16:
        raise UsageError(
            f"--allow-remote needs a token of at least 16 characters in {TOKEN_ENV}, e.g. "
            "python -c 'import secrets; print(secrets.token_urlsafe(32))'"
        )
    print(
        f"puzzlekit: warning: serving MCP on {args.host}:{args.http}, reachable from other "
        f"machines; every request must carry 'Authorization: Bearer' and the {TOKEN_ENV} token",
        file=sys.stderr,
    )
    return token
