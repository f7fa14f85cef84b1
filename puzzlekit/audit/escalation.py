"""Escalation targets that act: the hold queue, re-verification by another backend, and the
human review queue, all stored beside the ledger in one SQLite database.

:func:`puzzlekit.audit.stopping.escalate` names a target; a :class:`Dispatcher` looks up the handler
registered under that name and runs it on an :class:`EscalationCase` (the escalation plus the
instance it is about). The built-in handlers (DESIGN §7, issue 5):

``none``
    all-clear: nothing to do.
``hold``
    keep the question open: the instance goes into the hold queue, which :func:`retry_holds`
    re-verifies later with a larger budget.
``external-oracle``
    re-verify with the first other backend and record its verdict.
``peer-review``
    re-verify with every other backend and record each verdict.
``human``
    put the instance into the review queue, settled by :meth:`EscalationStore.settle_review`
    (accept or reject, with a note).

A target without a handler, a handler that raises, and a re-verification that cannot run (no
``verify_fn``, no other backend, every call failed) all fall back to a safe place instead of
dropping the case: a failed handler goes to human review, a re-verification that cannot run goes
on hold. Every queue write commits together with a ledger entry that records it.

This module is on the ground floor: it never imports ``verifiers`` or ``generators``. Handlers
that re-verify call an injected ``verify_fn(instance_json, verifier_name, budget_seconds)`` that
returns the report's JSON wire form; the CLI builds one from :mod:`puzzlekit.verifiers.registry`.
Deciding
*which* target a stop goes to is :mod:`puzzlekit.audit.stopping`, not this module.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import rfc8785

from puzzlekit.audit.ledger import Checkpoint, Ledger
from puzzlekit.audit.logic import LogicValue, from_verdict
from puzzlekit.audit.stopping import Escalation, json_digest
from puzzlekit.core.report import Verdict

VerifyFn = Callable[[str, str, float | None], Mapping[str, Any]]
Clock = Callable[[], datetime]

#: backends tried, in order, when a target re-verifies with "another backend"
DEFAULT_BACKENDS: tuple[str, ...] = ("sat", "enumerative")
#: the budget a hold starts from when the one that ran out is unknown (the verifiers' default)
DEFAULT_HOLD_SECONDS = 120.0
HOLD_STATUSES = ("held", "released")
REVIEW_STATUSES = ("pending", "accepted", "rejected")

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


class EscalationError(Exception):
    """A queue operation that cannot be done: unknown id, already settled, empty note."""


def instance_digest_of(instance_json: str) -> str:
    """``sha256:<hex>`` of the canonical JSON of an instance text (of its raw bytes when the
    text is not JSON, as an INVALID_SPEC instance may be)."""
    try:
        raw = rfc8785.dumps(json.loads(instance_json))
    except (ValueError, TypeError):
        raw = instance_json.encode("utf-8")
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def _ms(seconds: float | None) -> int | None:
    return None if seconds is None else round(seconds * 1000)


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, default=repr)


@dataclass(frozen=True)
class EscalationCase:
    """What a handler acts on: an escalation, the instance it is about, and its verification
    context (which backends judged it, and the budget that was in force)."""

    escalation: Escalation
    instance_json: str
    instance_digest: str = ""
    filter_verifier: str | None = None
    holdout_verifier: str | None = None
    budget_seconds: float | None = None

    def __post_init__(self) -> None:
        if not self.instance_digest:
            object.__setattr__(self, "instance_digest", instance_digest_of(self.instance_json))

    @property
    def target(self) -> str:
        return self.escalation.target

    def reason(self) -> str:
        step = self.escalation.boundary.step
        if step is None:
            return self.escalation.kind.value
        return (
            f"{self.escalation.kind.value} at step {step.step_id} ({step.verdict}): {step.reason}"
        )


@dataclass(frozen=True)
class Action:
    """What a handler did. ``status`` becomes the escalation's status in the store."""

    escalation_id: str
    target: str
    action: str
    status: str
    detail: Mapping[str, Any] = field(default_factory=dict)

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "escalation_id": self.escalation_id,
            "target": self.target,
            "action": self.action,
            "status": self.status,
            "detail": dict(self.detail),
        }


@dataclass(frozen=True)
class HoldItem:
    hold_id: int
    escalation_id: str | None
    instance_digest: str
    instance_json: str
    reason: str
    verifier: str | None
    budget_seconds: float | None
    attempts: int
    status: str
    verdict: str | None
    created_at: str
    updated_at: str


@dataclass(frozen=True)
class ReviewItem:
    review_id: int
    escalation_id: str | None
    instance_digest: str
    instance_json: str
    reason: str
    payload: Any
    status: str
    note: str | None
    created_at: str
    settled_at: str | None


@dataclass(frozen=True)
class EscalationRecord:
    escalation_id: str
    emitted_at: str
    sequence_id: str | None
    kind: str
    target: str
    instance_digest: str
    status: str
    outcome: Any
    updated_at: str


@dataclass(frozen=True)
class Reverification:
    """One re-verification: which backend, what budget, the verdict or the error."""

    reverification_id: int
    verifier: str
    budget_seconds: float | None
    verdict: str | None
    value: str | None
    error: str | None
    report: Mapping[str, Any] | None = None

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "reverification_id": self.reverification_id,
            "verifier": self.verifier,
            "budget_seconds": self.budget_seconds,
            "verdict": self.verdict,
            "value": self.value,
            "error": self.error,
        }


# --- the store ------------------------------------------------------------------------------


def _utc_now() -> datetime:
    return datetime.now(UTC)


class EscalationStore:
    """The queues, in the same SQLite database as the ledger that records every change to them.

    ``db`` is a path or an open :class:`Ledger`. Each write and its ledger entry commit in one
    transaction, so the queues and the ledger never disagree.
    """

    def __init__(
        self, db: str | os.PathLike[str] | Ledger, *, create: bool = True, clock: Clock = _utc_now
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


# --- handlers -------------------------------------------------------------------------------

Handler = Callable[[EscalationCase, EscalationStore], Action]


def none_handler(case: EscalationCase, store: EscalationStore) -> Action:
    """``none``: an all-clear needs no action."""
    return Action(case.escalation.escalation_id, case.target, "none", "closed")


def hold_handler(case: EscalationCase, store: EscalationStore) -> Action:
    """``hold``: keep the question open in the hold queue."""
    hold_id = store.hold(case, case.reason())
    return Action(case.escalation.escalation_id, case.target, "held", "held", {"hold_id": hold_id})


def human_handler(case: EscalationCase, store: EscalationStore) -> Action:
    """``human``: put the case in the review queue."""
    review_id = store.enqueue_review(case, case.reason())
    return Action(
        case.escalation.escalation_id,
        case.target,
        "queued-for-review",
        "pending",
        {"review_id": review_id},
    )


def _read_report(report: Any) -> Mapping[str, Any]:
    if not isinstance(report, Mapping) or "uniquenessVerdict" not in report:
        raise ValueError("verify_fn returned something that is not a report's JSON wire form")
    Verdict(report["uniquenessVerdict"])
    return report


def reverify(
    store: EscalationStore,
    verify_fn: VerifyFn,
    *,
    instance_json: str,
    instance_digest: str,
    verifier: str,
    budget_seconds: float | None,
    escalation_id: str | None = None,
    hold_id: int | None = None,
) -> Reverification:
    """Run ``verify_fn`` once and record its report, or the error it raised, in ``store``."""
    try:
        report = _read_report(verify_fn(instance_json, verifier, budget_seconds))
        error = None
    except Exception as exc:  # a failing backend is an outcome to record, not a crash
        report, error = None, f"{type(exc).__name__}: {exc}"
    return store.record_reverification(
        escalation_id=escalation_id,
        instance_digest=instance_digest,
        verifier=verifier,
        budget_seconds=budget_seconds,
        report=report,
        error=error,
        hold_id=hold_id,
    )


@dataclass(frozen=True)
class ReverifyHandler:
    """``external-oracle`` (``panel=False``: the first other backend) and ``peer-review``
    (``panel=True``: every other backend). "Other" excludes the filter and holdout backends
    when that leaves any; otherwise only the filter backend.

    When nothing can run, or every run fails, the case goes on hold with the reason.
    """

    verify_fn: VerifyFn | None
    backends: tuple[str, ...] = DEFAULT_BACKENDS
    panel: bool = False
    budget_seconds: float | None = None

    def others(self, case: EscalationCase) -> list[str]:
        used = {case.filter_verifier, case.holdout_verifier} - {None}
        others = [b for b in self.backends if b not in used]
        if not others:
            others = [b for b in self.backends if b != case.filter_verifier]
        return others if self.panel else others[:1]

    def __call__(self, case: EscalationCase, store: EscalationStore) -> Action:
        eid = case.escalation.escalation_id
        chosen = self.others(case)
        if self.verify_fn is None or not chosen:
            why = "no verify_fn" if self.verify_fn is None else "no other backend"
            hold_id = store.hold(case, f"{case.reason()} [cannot re-verify: {why}]")
            return Action(eid, case.target, "held", "held", {"hold_id": hold_id, "fallback": why})
        budget = self.budget_seconds if self.budget_seconds is not None else case.budget_seconds
        results = [
            reverify(
                store,
                self.verify_fn,
                instance_json=case.instance_json,
                instance_digest=case.instance_digest,
                verifier=name,
                budget_seconds=budget,
                escalation_id=eid,
            )
            for name in chosen
        ]
        detail: dict[str, Any] = {"results": [r.to_json_obj() for r in results]}
        ran = [r for r in results if r.error is None]
        if not ran:
            hold_id = store.hold(case, f"{case.reason()} [every re-verification failed]")
            detail.update(hold_id=hold_id, fallback="every re-verification failed")
            return Action(eid, case.target, "held", "held", detail)
        step = case.escalation.boundary.step
        values = {r.value for r in ran}
        detail["peers_agree"] = len(values) == 1
        detail["confirms_step"] = step is not None and values == {step.verdict.value}
        return Action(eid, case.target, "re-verified", "re-verified", detail)


def default_handlers(
    verify_fn: VerifyFn | None = None, backends: Sequence[str] = DEFAULT_BACKENDS
) -> dict[str, Handler]:
    """The built-in handler of each target of :data:`puzzlekit.audit.stopping.DEFAULT_TARGET`."""
    backends = tuple(backends)
    return {
        "none": none_handler,
        "hold": hold_handler,
        "external-oracle": ReverifyHandler(verify_fn, backends, panel=False),
        "peer-review": ReverifyHandler(verify_fn, backends, panel=True),
        "human": human_handler,
    }


class Dispatcher:
    """Runs the handler registered for an escalation's target, and records what it did.

    ``handlers`` add to or replace the defaults by target name; :meth:`register` does the same
    later. A target without a handler, or a handler that raises, sends the case to human review.
    """

    def __init__(
        self,
        store: EscalationStore,
        handlers: Mapping[str, Handler] | None = None,
        *,
        verify_fn: VerifyFn | None = None,
        backends: Sequence[str] = DEFAULT_BACKENDS,
    ) -> None:
        self.store = store
        self.handlers: dict[str, Handler] = {**default_handlers(verify_fn, backends)}
        self.handlers.update(handlers or {})

    def register(self, target: str, handler: Handler) -> None:
        self.handlers[target] = handler

    def dispatch(self, case: EscalationCase) -> Action:
        self.store.record_escalation(case)
        handler = self.handlers.get(case.target)
        if handler is None:
            action = self._to_human(case, f"no handler for target {case.target!r}")
        else:
            try:
                action = handler(case, self.store)
            except Exception as exc:  # fail closed: a person looks at it
                action = self._to_human(case, f"handler {case.target!r} failed: {exc}")
        self.store.set_escalation_status(action.escalation_id, action.status, action.to_json_obj())
        return action

    def _to_human(self, case: EscalationCase, why: str) -> Action:
        review_id = self.store.enqueue_review(case, f"{case.reason()} [{why}]")
        return Action(
            case.escalation.escalation_id,
            case.target,
            "queued-for-review",
            "pending",
            {"review_id": review_id, "fallback": why},
        )


# --- retrying holds -------------------------------------------------------------------------


@dataclass(frozen=True)
class RetryResult:
    hold_id: int
    verifier: str
    budget_seconds: float
    verdict: str | None
    released: bool
    error: str | None

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "hold_id": self.hold_id,
            "verifier": self.verifier,
            "budget_seconds": self.budget_seconds,
            "verdict": self.verdict,
            "released": self.released,
            "error": self.error,
        }


def retry_holds(
    store: EscalationStore,
    verify_fn: VerifyFn,
    *,
    factor: float = 2.0,
    budget_seconds: float | None = None,
    verifier: str | None = None,
    hold_ids: Iterable[int] | None = None,
    default_verifier: str = "enumerative",
) -> list[RetryResult]:
    """Re-verify held instances with a larger budget; release those that now get a verdict.

    The new budget is ``budget_seconds`` when given, else the hold's last budget (or
    :data:`DEFAULT_HOLD_SECONDS`) times ``factor``. The backend is ``verifier``, else the one the
    hold names, else ``default_verifier``. UNDECIDED, or a failed call, keeps the hold.
    """
    if factor <= 0:
        raise ValueError(f"factor must be positive, got {factor}")
    wanted = set(hold_ids) if hold_ids is not None else None
    held = [h for h in store.list_holds("held") if wanted is None or h.hold_id in wanted]
    if wanted is not None:
        missing = wanted - {h.hold_id for h in held}
        if missing:
            raise EscalationError(f"no open hold with id {', '.join(map(str, sorted(missing)))}")
    out = []
    for item in held:
        budget = budget_seconds
        if budget is None:
            budget = (item.budget_seconds or DEFAULT_HOLD_SECONDS) * factor
        name = verifier or item.verifier or default_verifier
        rec = reverify(
            store,
            verify_fn,
            instance_json=item.instance_json,
            instance_digest=item.instance_digest,
            verifier=name,
            budget_seconds=budget,
            escalation_id=item.escalation_id,
            hold_id=item.hold_id,
        )
        released = rec.verdict is not None and rec.value != LogicValue.NEITHER.value
        store.update_hold(
            item.hold_id,
            budget_seconds=budget,
            verdict=rec.verdict,
            released=released,
        )
        out.append(RetryResult(item.hold_id, name, budget, rec.verdict, released, rec.error))
    return out


def as_checkpoint(anchor: Mapping[str, Any] | None) -> Checkpoint | None:
    """The ledger position an escalation's ``ledger_anchor`` names, when it was appended."""
    if not anchor or not anchor.get("appended"):
        return None
    return Checkpoint(int(anchor["entry_seq"]), str(anchor["entry_hash"]))
