"""``puzzlekit ledger verify|checkpoint|show``: audit a hash-chained ledger from the shell.

``show --chain SEQUENCE_ID`` walks the escalation chain of one sequence
(:mod:`puzzlekit.audit.escalation.chain`): its escalations oldest first, each naming the one
before; a broken chain is one line on stderr and exit 1."""

from __future__ import annotations

import argparse
import json
import sqlite3
from typing import TYPE_CHECKING

from puzzlekit.app.cli import UsageError, add_format

if TYPE_CHECKING:  # the floors load when a command runs, not when the parser is built
    from puzzlekit.audit.ledger import Entry, Ledger

MAX_SEQ = 2**62  # seqs are SQLite integers; larger arguments are refused, not overflowed


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ledger", help="verify, checkpoint or show a ledger database")
    cmds = p.add_subparsers(dest="ledger_command", metavar="ACTION")
    cmds.required = True

    v = cmds.add_parser("verify", help="check the chain; exit 1 naming the first bad seq")
    v.add_argument("db", metavar="DB", help="the SQLite database holding the ledger")
    v.add_argument("--checkpoint", metavar="FILE", help="a checkpoint file kept elsewhere")
    add_format(v, ("text", "json"), "text", {"json": "the result as one JSON object"})
    v.set_defaults(func=cmd_verify)

    c = cmds.add_parser("checkpoint", help="print the head (seq, entry_hash) as a checkpoint")
    c.add_argument("db", metavar="DB", help="the SQLite database holding the ledger")
    c.add_argument("--out", metavar="FILE", help="write the checkpoint file here instead")
    c.set_defaults(func=cmd_checkpoint)

    s = cmds.add_parser("show", help="print entries as JSON lines")
    s.add_argument("db", metavar="DB", help="the SQLite database holding the ledger")
    s.add_argument(
        "--from", dest="start", type=int, default=1, metavar="SEQ", help="first entry shown"
    )
    s.add_argument("--limit", type=int, default=None, metavar="N", help="at most N entries")
    s.add_argument(
        "--chain",
        metavar="SEQUENCE_ID",
        default=None,
        help="only the escalations of this sequence id, oldest first, walked through the "
        "previous-escalation hash each one records; exit 1 when the chain is broken",
    )
    s.set_defaults(func=cmd_show)


def open_ledger(path: str) -> Ledger:
    """The existing ledger at ``path``, opened read-only (an audit changes no byte of it); a
    :class:`UsageError` when there is none."""
    from puzzlekit.audit.ledger import Ledger, LedgerError

    try:
        return Ledger(path, create=False, readonly=True)
    except FileNotFoundError:
        raise UsageError(f"no database at {path}") from None
    except (LedgerError, sqlite3.Error) as exc:
        raise UsageError(f"{path}: {exc}") from None


def cmd_verify(args: argparse.Namespace) -> int:
    from puzzlekit.audit.ledger import read_checkpoint

    checkpoint = None
    if args.checkpoint:
        try:
            checkpoint = read_checkpoint(args.checkpoint)
        except OSError as exc:
            raise UsageError(f"cannot read {args.checkpoint}: {exc.strerror or exc}") from None
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    with open_ledger(args.db) as ledger:
        try:
            result = ledger.verify(checkpoint)
        except sqlite3.Error as exc:  # not a ledger table we can read: unusable input
            raise UsageError(f"{args.db}: {exc}") from None
    print(json.dumps(result.to_json_obj()) if args.format == "json" else result.summary())
    return 0 if result.ok else 1


def cmd_checkpoint(args: argparse.Namespace) -> int:
    with open_ledger(args.db) as ledger:
        if args.out:
            try:
                cp = ledger.export_checkpoint(args.out)
            except OSError as exc:
                raise UsageError(f"cannot write {args.out}: {exc.strerror or exc}") from None
            except (sqlite3.Error, ValueError) as exc:
                raise UsageError(f"{args.db}: {exc}") from None
            print(f"checkpoint seq {cp.seq} {cp.entry_hash} written to {args.out}")
        else:
            try:
                cp = ledger.checkpoint()
            except (sqlite3.Error, ValueError) as exc:
                raise UsageError(f"{args.db}: {exc}") from None
            print(json.dumps({**cp.to_json_obj(), "ledger": args.db}, indent=2))
    return 0


def _print_entry(e: Entry) -> None:
    obj = {"seq": e.seq, "prev_hash": e.prev_hash, "entry_hash": e.entry_hash}
    obj["body"] = e.body
    if e.body_error is not None:
        obj["bodyError"] = e.body_error
    print(json.dumps(obj, ensure_ascii=False))


def cmd_show(args: argparse.Namespace) -> int:
    if args.chain is not None:
        return _show_chain(args)
    if not 1 <= args.start <= MAX_SEQ:
        raise UsageError(f"--from must be in 1..{MAX_SEQ}, got {args.start}")
    if args.limit is not None and not 0 <= args.limit <= MAX_SEQ:
        raise UsageError(f"--limit must be in 0..{MAX_SEQ}, got {args.limit}")
    with open_ledger(args.db) as ledger:
        stop = min(args.start + args.limit, MAX_SEQ) if args.limit is not None else None
        try:
            entries = ledger.entries(args.start, stop)
        except sqlite3.Error as exc:
            raise UsageError(f"{args.db}: {exc}") from None
        for e in entries:
            _print_entry(e)
    return 0


def _show_chain(args: argparse.Namespace) -> int:
    import sys

    from puzzlekit.audit.escalation.chain import walk_chain

    if args.start != 1 or args.limit is not None:
        raise UsageError("--chain walks one whole chain; it takes no --from or --limit")
    with open_ledger(args.db) as ledger:
        try:
            chain = walk_chain(ledger, args.chain)
        except sqlite3.Error as exc:
            raise UsageError(f"{args.db}: {exc}") from None
    for e in chain.entries:
        _print_entry(e)
    if not chain.entries:
        print(f"puzzlekit: no escalation of sequence {args.chain!r} in {args.db}", file=sys.stderr)
    if not chain.ok:
        print(f"puzzlekit: chain of {args.chain!r} broken: {chain.problems[0]}", file=sys.stderr)
        return 1
    return 0
