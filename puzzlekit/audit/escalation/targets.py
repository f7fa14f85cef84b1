"""Escalation targets that act: the hold queue, re-verification by another backend, and the
human review queue, all stored beside the ledger in one SQLite database.

:func:`puzzlekit.audit.stopping.escalate` names a target; a :class:`Dispatcher` looks up the handler
registered under that name and runs it on an :class:`EscalationCase` (the escalation plus the
instance it is about). The built-in handlers:

``none``
    all-clear: nothing to do.
``w48-negcap``
    negative capability: keep the question open. The instance goes into the hold queue, which
    :func:`retry_holds` re-verifies later with a larger budget. ``hold`` names it too (an alias,
    :data:`puzzlekit.audit.stopping.TARGET_ALIASES`), in handlers given here and in stored
    escalations.
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
Deciding *which* target a stop goes to is :mod:`puzzlekit.audit.stopping`, not this module.

Layout: the cases, actions and queue items are frozen data in
:mod:`~puzzlekit.audit.escalation.cases`; the queues and their ledger entries are
:class:`~puzzlekit.audit.escalation.store.EscalationStore`; this module holds the handlers, the
:class:`Dispatcher` and :func:`retry_holds`, and re-exports every public name of the other two.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from puzzlekit.audit.escalation.cases import (
    DEFAULT_BACKENDS,
    DEFAULT_HOLD_SECONDS,
    HOLD_STATUSES,
    REVIEW_STATUSES,
    Action,
    EscalationCase,
    EscalationError,
    EscalationRecord,
    HoldItem,
    Reverification,
    ReviewItem,
    VerifyFn,
    instance_digest_of,
)
from puzzlekit.audit.escalation.store import EscalationStore
from puzzlekit.audit.ledger import Checkpoint
from puzzlekit.audit.logic import LogicValue
from puzzlekit.audit.stopping import NEGATIVE_CAPABILITY, canonical_target
from puzzlekit.core.clock import Clock
from puzzlekit.core.report import Verdict

__all__ = [
    "DEFAULT_BACKENDS",
    "DEFAULT_HOLD_SECONDS",
    "HOLD_STATUSES",
    "REVIEW_STATUSES",
    "Action",
    "Clock",
    "Dispatcher",
    "EscalationCase",
    "EscalationError",
    "EscalationRecord",
    "EscalationStore",
    "Handler",
    "HoldItem",
    "RetryResult",
    "Reverification",
    "ReverifyHandler",
    "ReviewItem",
    "VerifyFn",
    "as_checkpoint",
    "default_handlers",
    "hold_handler",
    "human_handler",
    "instance_digest_of",
    "none_handler",
    "retry_holds",
    "reverify",
]


# --- handlers -------------------------------------------------------------------------------

Handler = Callable[[EscalationCase, EscalationStore], Action]


def none_handler(case: EscalationCase, store: EscalationStore) -> Action:
    """``none``: an all-clear needs no action."""
    return Action(case.escalation.escalation_id, case.target, "none", "closed")


def hold_handler(case: EscalationCase, store: EscalationStore) -> Action:
    """``w48-negcap`` (alias ``hold``): keep the question open in the hold queue, to retry."""
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
        NEGATIVE_CAPABILITY: hold_handler,
        "external-oracle": ReverifyHandler(verify_fn, backends, panel=False),
        "peer-review": ReverifyHandler(verify_fn, backends, panel=True),
        "human": human_handler,
    }


class Dispatcher:
    """Runs the handler registered for an escalation's target, and records what it did.

    ``handlers`` add to or replace the defaults by target name; :meth:`register` does the same
    later. An alias (``hold``) names the target it stands for, here and in a case's target. A
    target without a handler, or a handler that raises, sends the case to human review.
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
        for target, handler in (handlers or {}).items():
            self.register(target, handler)

    def register(self, target: str, handler: Handler) -> None:
        self.handlers[canonical_target(target)] = handler

    def dispatch(self, case: EscalationCase) -> Action:
        self.store.record_escalation(case)
        handler = self.handlers.get(canonical_target(case.target))
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
            "uniquenessVerdict": self.verdict,
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
    """The ledger position an escalation's ``ledger_anchor`` names, when it was appended (its
    ``entrySeq``/``entryHash``, or ``entry_seq``/``entry_hash`` as older records hold them)."""
    if not anchor or not anchor.get("appended"):
        return None
    seq = anchor["entrySeq"] if "entrySeq" in anchor else anchor["entry_seq"]
    entry_hash = anchor["entryHash"] if "entryHash" in anchor else anchor["entry_hash"]
    return Checkpoint(int(seq), str(entry_hash))
