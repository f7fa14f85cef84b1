"""``puzzlekit escalations list|retry``: the recorded escalations and the hold queue."""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from puzzlekit.app.cli import UsageError, add_format

if TYPE_CHECKING:  # the floors load when a command runs, not when the parser is built
    from puzzlekit.audit.escalation.targets import EscalationStore

DB_ENV = "PUZZLEKIT_DB"


def add_db_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--db", metavar="DB", default=None, help=f"the run's SQLite database (default: ${DB_ENV})"
    )


def open_store(args: argparse.Namespace) -> EscalationStore:
    """The escalation store named by ``--db`` or ``$PUZZLEKIT_DB``; never creates one."""
    from puzzlekit.audit.escalation.targets import EscalationError, EscalationStore
    from puzzlekit.audit.ledger import LedgerError

    path = args.db or os.environ.get(DB_ENV)
    if not path:
        raise UsageError(f"no database: pass --db DB or set {DB_ENV}")
    try:
        return EscalationStore(path, create=False)
    except FileNotFoundError:
        raise UsageError(f"no database at {path}") from None
    except (LedgerError, EscalationError, sqlite3.Error) as exc:
        raise UsageError(f"{path}: {exc}") from None


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("escalations", help="list escalations and re-verify held instances")
    cmds = p.add_subparsers(dest="escalations_command", metavar="ACTION")
    cmds.required = True

    ls = cmds.add_parser("list", help="list recorded escalations (or the hold queue)")
    add_db_option(ls)
    ls.add_argument("--holds", action="store_true", help="list the hold queue instead")
    ls.add_argument("--status", default=None, help="only this status (e.g. held, pending)")
    add_format(ls, ("table", "json"), "table")
    ls.set_defaults(func=cmd_list)

    rt = cmds.add_parser("retry", help="re-verify held instances with a larger budget")
    add_db_option(rt)
    rt.add_argument(
        "--id",
        dest="ids",
        type=int,
        action="append",
        metavar="HOLD_ID",
        help="retry only this hold (repeatable)",
    )
    rt.add_argument("--factor", type=float, default=2.0, help="budget multiplier (default 2)")
    rt.add_argument("--budget-seconds", type=float, default=None, help="use this budget instead")
    rt.add_argument("--verifier", default=None, help="backend (default: the one that held it)")
    add_format(rt, ("table", "json"), "table")
    rt.set_defaults(func=cmd_retry)


def print_rows(rows: list[Mapping[str, Any]], columns: list[str], as_json: bool) -> None:
    if as_json:
        for row in rows:
            print(json.dumps(row, ensure_ascii=False))
        return
    if not rows:
        print("(none)")
        return
    widths = {c: max(len(c), *(len(str(r[c])) for r in rows)) for c in columns}
    print("  ".join(c.ljust(widths[c]) for c in columns).rstrip())
    for row in rows:
        print("  ".join(str(row[c]).ljust(widths[c]) for c in columns).rstrip())


def short_digest(digest: str) -> str:
    return digest[:19] if digest.startswith("sha256:") else digest


def cmd_list(args: argparse.Namespace) -> int:
    store = open_store(args)
    if args.holds:
        holds = store.list_holds(args.status)
        rows = [
            {
                "hold_id": h.hold_id,
                "status": h.status,
                "attempts": h.attempts,
                "verifier": h.verifier,
                "budget_seconds": h.budget_seconds,
                "uniquenessVerdict": h.verdict,
                "instance_digest": h.instance_digest
                if args.format == "json"
                else short_digest(h.instance_digest),
                "reason": h.reason,
                "escalation_id": h.escalation_id,
            }
            for h in holds
        ]
        columns = [
            "hold_id",
            "status",
            "attempts",
            "verifier",
            "budget_seconds",
            "uniquenessVerdict",
            "instance_digest",
            "reason",
        ]
    else:
        records = store.list_escalations(args.status)
        rows = [
            {
                "escalation_id": r.escalation_id,
                "emitted_at": r.emitted_at,
                "kind": r.kind,
                "target": r.target,
                "status": r.status,
                "instance_digest": r.instance_digest
                if args.format == "json"
                else short_digest(r.instance_digest),
                "sequence_id": r.sequence_id,
            }
            for r in records
        ]
        columns = ["escalation_id", "emitted_at", "kind", "target", "status", "instance_digest"]
    print_rows(rows, columns, args.format == "json")
    return 0


def cmd_retry(args: argparse.Namespace) -> int:
    from puzzlekit.audit.escalation.targets import EscalationError, retry_holds

    if args.factor <= 0:
        raise UsageError(f"--factor must be positive, got {args.factor}")
    if args.budget_seconds is not None and args.budget_seconds <= 0:
        raise UsageError(f"--budget-seconds must be positive, got {args.budget_seconds}")
    if args.verifier is not None:
        from puzzlekit.verifiers.registry import VERIFIERS

        VERIFIERS.get(args.verifier)  # UnknownName: one line naming the closest, exit 2
    from puzzlekit.verifiers.registry import registry_verify_fn

    store = open_store(args)
    try:
        results = retry_holds(
            store,
            registry_verify_fn,
            factor=args.factor,
            budget_seconds=args.budget_seconds,
            verifier=args.verifier,
            hold_ids=args.ids,
        )
    except EscalationError as exc:
        raise UsageError(str(exc)) from None
    rows = [r.to_json_obj() for r in results]
    print_rows(
        rows,
        ["hold_id", "verifier", "budget_seconds", "uniquenessVerdict", "released", "error"],
        args.format == "json",
    )
    return 0
