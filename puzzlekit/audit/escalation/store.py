"""The escalation queues (holds, reviews, escalations, re-verifications) in the SQLite database
of the ledger: :class:`EscalationStore` writes each queue change and the ledger entry that
records it in one transaction, so the queues and the ledger never disagree.

Part of :mod:`puzzlekit.audit.escalation.targets`, which re-exports :class:`EscalationStore`. Not
for deciding what to do with a case (the handlers in :mod:`puzzlekit.audit.escalation.targets` do
that).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from datetime import UTC
from typing import Any

from puzzlekit.audit.escalation.cases import (
    EscalationCase,
    EscalationError,
    EscalationRecord,
    HoldItem,
    Reverification,
    ReviewItem,
)
from puzzlekit.audit.ledger import Ledger
from puzzlekit.audit.logic import from_verdict
from puzzlekit.audit.stopping_records import json_digest
from puzzlekit.core.clock import Clock, utc_now

_SCHEMA = """
CREATE TABLE IF NOT EXISTS escalations (
    escalation_id   TEXT PRIMARY KEY,
    emitted_at      TEXT NOT NULL,
    sequence_id     TEXT,
    kind            TEXT NOT NULL,
    target          TEXT NOT NULL,
    instance_digest TEXT NOT NULL,
    status          TEXT NOT NULL,
    payload         TEXT NOT NULL,
    outcome         TEXT,
    updated_at      TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS hold_queue (
    hold_id         INTEGER PRIMARY KEY AUTOINCREMENT,
    escalation_id   TEXT,
    instance_digest TEXT NOT NULL,
    instance_json   TEXT NOT NULL,
    reason          TEXT NOT NULL,
    verifier        TEXT,
    budget_seconds  REAL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    status          TEXT NOT NULL DEFAULT 'held' CHECK (status IN ('held', 'released')),
    verdict         TEXT,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS reverifications (
    reverification_id INTEGER PRIMARY KEY AUTOINCREMENT,
    escalation_id     TEXT,
    hold_id           INTEGER,
    instance_digest   TEXT NOT NULL,
    verifier          TEXT NOT NULL,
    budget_seconds    REAL,
    verdict           TEXT,
    value             TEXT,
    report            TEXT,
    error             TEXT,
    created_at        TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS review_queue (
    review_id       INTEGER PRIMARY KEY AUTOINCREMENT,
    escalation_id   TEXT,
    instance_digest TEXT NOT NULL,
    instance_json   TEXT NOT NULL,
    reason          TEXT NOT NULL,
    payload         TEXT,
    status          TEXT NOT NULL DEFAULT 'pending'
                    CHECK (status IN ('pending', 'accepted', 'rejected')),
    note            TEXT,
    created_at      TEXT NOT NULL,
    settled_at      TEXT
);
"""


def _ms(seconds: float | None) -> int | None:
    return None if seconds is None else round(seconds * 1000)


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, default=repr)


# --- the store ------------------------------------------------------------------------------


class EscalationStore:
    """The queues, in the same SQLite database as the ledger that records every change to them.

    ``db`` is a path or an open :class:`Ledger`. Each write and its ledger entry commit in one
    transaction, so the queues and the ledger never disagree.
    """

    def __init__(
        self, db: str | os.PathLike[str] | Ledger, *, create: bool = True, clock: Clock = utc_now
    ) -> None:
        self.ledger = db if isinstance(db, Ledger) else Ledger(db, create=create)
        self.clock = clock
        if create:
            with self.ledger.transaction() as tx:
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        tx.execute(statement)
        else:
            with self.ledger.snapshot() as conn:
                found = conn.execute(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'hold_queue'"
                ).fetchone()
            if found is None:
                raise EscalationError(f"{self.ledger.path} holds no escalation queues")

    def _now(self) -> str:
        now = self.clock()
        return (now if now.tzinfo else now.replace(tzinfo=UTC)).isoformat()

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        with self.ledger.snapshot() as conn:
            return conn.execute(sql, params).fetchall()

    # -- escalations ----------------------------------------------------------------------------
    def record_escalation(self, case: EscalationCase, status: str = "open") -> None:
        """Insert (or refresh) the escalation's row with its full payload."""
        esc, now = case.escalation, self._now()
        with self.ledger.transaction() as tx:
            tx.execute(
                "INSERT INTO escalations (escalation_id, emitted_at, sequence_id, kind, target, "
                "instance_digest, status, payload, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT(escalation_id) DO UPDATE SET status = excluded.status, "
                "target = excluded.target, updated_at = excluded.updated_at",
                (
                    esc.escalation_id,
                    esc.emitted_at,
                    esc.sequence_id,
                    esc.kind.value,
                    esc.target,
                    case.instance_digest,
                    status,
                    _dumps(esc.to_json_obj()),
                    now,
                ),
            )

    def set_escalation_status(self, escalation_id: str, status: str, outcome: Any = None) -> None:
        with self.ledger.transaction() as tx:
            tx.execute(
                "UPDATE escalations SET status = ?, outcome = ?, updated_at = ? "
                "WHERE escalation_id = ?",
                (status, _dumps(outcome), self._now(), escalation_id),
            )

    def list_escalations(self, status: str | None = None) -> list[EscalationRecord]:
        sql = (
            "SELECT escalation_id, emitted_at, sequence_id, kind, target, instance_digest, status, "
            "outcome, updated_at FROM escalations"
        )
        rows = self._rows(
            sql + (" WHERE status = ?" if status else "") + " ORDER BY emitted_at",
            (status,) if status else (),
        )
        return [EscalationRecord(*r[:7], json.loads(r[7]) if r[7] else None, r[8]) for r in rows]

    # -- hold queue -----------------------------------------------------------------------------
    def hold(
        self,
        case: EscalationCase,
        reason: str,
        *,
        verifier: str | None = None,
        budget_seconds: float | None = None,
    ) -> int:
        """Put the case's instance on hold; returns the hold id."""
        now = self._now()
        verifier = verifier if verifier is not None else case.filter_verifier
        budget = budget_seconds if budget_seconds is not None else case.budget_seconds
        with self.ledger.transaction() as tx:
            cur = tx.execute(
                "INSERT INTO hold_queue (escalation_id, instance_digest, instance_json, reason, "
                "verifier, budget_seconds, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    case.escalation.escalation_id,
                    case.instance_digest,
                    case.instance_json,
                    reason,
                    verifier,
                    budget,
                    now,
                    now,
                ),
            )
            hold_id = int(cur.lastrowid)
            self.ledger.append_in(
                tx,
                {
                    "type": "hold",
                    "hold_id": hold_id,
                    "escalation_id": case.escalation.escalation_id,
                    "instance_digest": case.instance_digest,
                    "reason": reason,
                    "verifier": verifier,
                    "budget_ms": _ms(budget),
                    "at": now,
                },
            )
        return hold_id

    def list_holds(self, status: str | None = None) -> list[HoldItem]:
        sql = (
            "SELECT hold_id, escalation_id, instance_digest, instance_json, reason, verifier, "
            "budget_seconds, attempts, status, verdict, created_at, updated_at FROM hold_queue"
        )
        where = " WHERE status = ?" if status else ""
        rows = self._rows(sql + where + " ORDER BY hold_id", (status,) if status else ())
        return [HoldItem(*r) for r in rows]

    def get_hold(self, hold_id: int) -> HoldItem:
        found = [h for h in self.list_holds() if h.hold_id == hold_id]
        if not found:
            raise EscalationError(f"no hold with id {hold_id}")
        return found[0]

    def update_hold(
        self, hold_id: int, *, budget_seconds: float | None, verdict: str | None, released: bool
    ) -> None:
        """Count one retry; release the hold when it got a verdict."""
        now = self._now()
        with self.ledger.transaction() as tx:
            row = tx.execute(
                "SELECT escalation_id, instance_digest, attempts FROM hold_queue WHERE hold_id = ?",
                (hold_id,),
            ).fetchone()
            if row is None:
                raise EscalationError(f"no hold with id {hold_id}")
            status = "released" if released else "held"
            tx.execute(
                "UPDATE hold_queue SET attempts = attempts + 1, budget_seconds = ?, status = ?, "
                "verdict = ?, updated_at = ? WHERE hold_id = ?",
                (budget_seconds, status, verdict, now, hold_id),
            )
            if released and row[0]:
                tx.execute(
                    "UPDATE escalations SET status = 'released', updated_at = ? "
                    "WHERE escalation_id = ?",
                    (now, row[0]),
                )
            self.ledger.append_in(
                tx,
                {
                    "type": "hold-release" if released else "hold-retry",
                    "hold_id": hold_id,
                    "escalation_id": row[0],
                    "instance_digest": row[1],
                    "attempt": row[2] + 1,
                    "budget_ms": _ms(budget_seconds),
                    "verdict": verdict,
                    "at": now,
                },
            )

    # -- re-verifications -----------------------------------------------------------------------
    def record_reverification(
        self,
        *,
        escalation_id: str | None,
        instance_digest: str,
        verifier: str,
        budget_seconds: float | None,
        report: Mapping[str, Any] | None,
        error: str | None,
        hold_id: int | None = None,
    ) -> Reverification:
        """Store one re-verification outcome (a report or an error) and ledger it."""
        now = self._now()
        verdict = str(report["uniquenessVerdict"]) if report is not None else None
        value = from_verdict(verdict).value if verdict is not None else None
        with self.ledger.transaction() as tx:
            cur = tx.execute(
                "INSERT INTO reverifications (escalation_id, hold_id, instance_digest, verifier, "
                "budget_seconds, verdict, value, report, error, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    escalation_id,
                    hold_id,
                    instance_digest,
                    verifier,
                    budget_seconds,
                    verdict,
                    value,
                    _dumps(report) if report is not None else None,
                    error,
                    now,
                ),
            )
            rid = int(cur.lastrowid)
            self.ledger.append_in(
                tx,
                {
                    "type": "reverification",
                    "reverification_id": rid,
                    "escalation_id": escalation_id,
                    "hold_id": hold_id,
                    "instance_digest": instance_digest,
                    "verifier": verifier,
                    "budget_ms": _ms(budget_seconds),
                    "verdict": verdict,
                    "value": value,
                    "report_digest": json_digest(report) if report is not None else None,
                    "error": error,
                    "at": now,
                },
            )
        return Reverification(rid, verifier, budget_seconds, verdict, value, error, report)

    def list_reverifications(self, escalation_id: str | None = None) -> list[Reverification]:
        sql = (
            "SELECT reverification_id, verifier, budget_seconds, verdict, value, error, report "
            "FROM reverifications"
        )
        where = " WHERE escalation_id = ?" if escalation_id else ""
        params = (escalation_id,) if escalation_id else ()
        rows = self._rows(sql + where + " ORDER BY reverification_id", params)
        return [Reverification(*r[:6], json.loads(r[6]) if r[6] else None) for r in rows]

    # -- review queue ---------------------------------------------------------------------------
    def enqueue_review(self, case: EscalationCase, reason: str) -> int:
        """Put the case in the human review queue; returns the review id."""
        now = self._now()
        with self.ledger.transaction() as tx:
            cur = tx.execute(
                "INSERT INTO review_queue (escalation_id, instance_digest, instance_json, reason, "
                "payload, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (
                    case.escalation.escalation_id,
                    case.instance_digest,
                    case.instance_json,
                    reason,
                    _dumps(case.escalation.to_json_obj()),
                    now,
                ),
            )
            review_id = int(cur.lastrowid)
            self.ledger.append_in(
                tx,
                {
                    "type": "review-enqueued",
                    "review_id": review_id,
                    "escalation_id": case.escalation.escalation_id,
                    "instance_digest": case.instance_digest,
                    "reason": reason,
                    "at": now,
                },
            )
        return review_id

    def list_reviews(self, status: str | None = None) -> list[ReviewItem]:
        sql = (
            "SELECT review_id, escalation_id, instance_digest, instance_json, reason, payload, "
            "status, note, created_at, settled_at FROM review_queue"
        )
        where = " WHERE status = ?" if status else ""
        rows = self._rows(sql + where + " ORDER BY review_id", (status,) if status else ())
        return [ReviewItem(*r[:5], json.loads(r[5]) if r[5] else None, *r[6:]) for r in rows]

    def settle_review(self, review_id: int, decision: str, note: str) -> ReviewItem:
        """Accept or reject a pending review with a note (required); ledgered."""
        if decision not in ("accept", "reject"):
            raise EscalationError(f"decision must be accept or reject, got {decision!r}")
        if not note or not note.strip():
            raise EscalationError("a review decision needs a note saying why")
        status = "accepted" if decision == "accept" else "rejected"
        now = self._now()
        with self.ledger.transaction() as tx:
            row = tx.execute(
                "SELECT status, escalation_id, instance_digest FROM review_queue "
                "WHERE review_id = ?",
                (review_id,),
            ).fetchone()
            if row is None:
                raise EscalationError(f"no review with id {review_id}")
            if row[0] != "pending":
                raise EscalationError(f"review {review_id} is already {row[0]}")
            tx.execute(
                "UPDATE review_queue SET status = ?, note = ?, settled_at = ? WHERE review_id = ?",
                (status, note, now, review_id),
            )
            if row[1]:
                tx.execute(
                    "UPDATE escalations SET status = ?, updated_at = ? WHERE escalation_id = ?",
                    (status, now, row[1]),
                )
            self.ledger.append_in(
                tx,
                {
                    "type": "review-settled",
                    "review_id": review_id,
                    "escalation_id": row[1],
                    "instance_digest": row[2],
                    "decision": status,
                    "note": note,
                    "at": now,
                },
            )
        return [r for r in self.list_reviews() if r.review_id == review_id][0]
