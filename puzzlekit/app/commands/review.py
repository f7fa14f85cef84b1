"""``puzzlekit review list|accept|reject``: the human review queue."""

from __future__ import annotations

import argparse

from puzzlekit.app.cli import UsageError, add_format
from puzzlekit.app.commands.escalations import add_db_option, open_store, print_rows, short_digest

#: the statuses of a review (:data:`puzzlekit.audit.escalation.targets.REVIEW_STATUSES`, which
#: tests/test_startup.py holds this to), written out so that building the parser loads no floor
REVIEW_STATUSES = ("pending", "accepted", "rejected")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("review", help="list and settle the human review queue")
    cmds = p.add_subparsers(dest="review_command", metavar="ACTION")
    cmds.required = True

    ls = cmds.add_parser("list", help="list reviews (pending ones by default)")
    add_db_option(ls)
    ls.add_argument(
        "--status", choices=(*REVIEW_STATUSES, "all"), default="pending", help="reviews shown"
    )
    add_format(ls, ("table", "json"), "table")
    ls.set_defaults(func=cmd_list)

    for decision in ("accept", "reject"):
        d = cmds.add_parser(decision, help=f"{decision} a pending review, with a note")
        d.add_argument("review_id", type=int, metavar="ID", help="the review's id (see list)")
        d.add_argument("--note", required=True, metavar="TEXT", help="why (recorded in the ledger)")
        add_db_option(d)
        d.set_defaults(func=cmd_settle, decision=decision)


def cmd_list(args: argparse.Namespace) -> int:
    store = open_store(args)
    items = store.list_reviews(None if args.status == "all" else args.status)
    rows = [
        {
            "review_id": r.review_id,
            "status": r.status,
            "created_at": r.created_at,
            "instance_digest": r.instance_digest
            if args.format == "json"
            else short_digest(r.instance_digest),
            "reason": r.reason,
            "note": r.note,
            "escalation_id": r.escalation_id,
            **({"instance": r.instance_json} if args.format == "json" else {}),
        }
        for r in items
    ]
    print_rows(
        rows,
        ["review_id", "status", "created_at", "instance_digest", "reason"],
        args.format == "json",
    )
    return 0


def cmd_settle(args: argparse.Namespace) -> int:
    from puzzlekit.audit.escalation.targets import EscalationError

    store = open_store(args)
    try:
        item = store.settle_review(args.review_id, args.decision, args.note)
    except EscalationError as exc:
        raise UsageError(str(exc)) from None
    print(f"review {item.review_id} {item.status}: {item.note}")
    return 0
