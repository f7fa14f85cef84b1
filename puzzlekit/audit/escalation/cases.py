"""What escalation handlers act on and what the queues hold: an :class:`EscalationCase`, the
:class:`Action` a handler took, queue items (:class:`HoldItem`, :class:`ReviewItem`), the record
of an escalation (:class:`EscalationRecord`) and of a re-verification (:class:`Reverification`).

Frozen data and the small helpers that build it; part of :mod:`puzzlekit.audit.escalation.targets`,
which re-exports every public name here. Not for storing anything (that is
:mod:`puzzlekit.audit.escalation.store`) or for deciding where a case goes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import rfc8785

from puzzlekit.audit.stopping import Escalation

VerifyFn = Callable[[str, str, float | None], Mapping[str, Any]]

#: backends tried, in order, when a target re-verifies with "another backend"
DEFAULT_BACKENDS: tuple[str, ...] = ("sat", "enumerative")
#: the budget a hold starts from when the one that ran out is unknown (the verifiers' default)
DEFAULT_HOLD_SECONDS = 120.0
HOLD_STATUSES = ("held", "released")
REVIEW_STATUSES = ("pending", "accepted", "rejected")


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
