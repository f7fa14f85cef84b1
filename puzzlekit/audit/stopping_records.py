"""The records the stopping-condition pipeline passes along: the kind of a stop
(:class:`StopKind`), an audit step (:class:`ReasoningStep`), where a sequence stops
(:class:`Location`), the boundary it reports (:class:`Boundary`), the escalation it emits
(:class:`Escalation`) and the whole outcome (:class:`StoppingOutcome`), each with its JSON form,
and :func:`json_digest`, the digest of an arbitrary payload that an escalation binds.

Frozen data; :mod:`puzzlekit.audit.stopping` re-exports every name here. Not for deciding
anything: the decision tables and the pipeline are in :mod:`puzzlekit.audit.stopping`.
"""

from __future__ import annotations

import enum
import hashlib
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import rfc8785

from puzzlekit.audit.logic import LogicValue, value_of
from puzzlekit.core.jsondata import plain


class StopKind(enum.StrEnum):
    ALL_CLEAR = "all-clear"
    NEITHER_HALT = "neither-halt"
    FALSE_VIOLATION = "false-violation"
    ZERO_VOID = "zero-void"
    OTHER_NONDEFINITE = "other-nondefinite"


@dataclass(frozen=True)
class ReasoningStep:
    """One audit step: a claim, its eight-valued verdict, why, and who said so.

    ``payload`` is carried through the pipeline untouched. ``substeps`` holds a sub-sequence that
    is audited before this step. A verdict given as a string is read as a :class:`LogicValue`.
    """

    step_id: str
    claim: str
    verdict: LogicValue
    reason: str
    source: str
    payload: Any = None
    substeps: tuple[ReasoningStep, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "verdict", value_of(self.verdict))
        object.__setattr__(self, "substeps", tuple(self.substeps))

    def to_json_obj(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "step_id": self.step_id,
            "claim": self.claim,
            "verdict": self.verdict.value,
            "reason": self.reason,
            "source": self.source,
            "payload": self.payload,
        }
        if self.substeps:
            out["substeps"] = [s.to_json_obj() for s in self.substeps]
        return out


@dataclass(frozen=True)
class Location:
    """Where a sequence stops (or that it does not, or that it cannot be read).

    ``kind`` is ``None`` exactly when ``error`` is set (``"invalid-input"``, L1). ``index`` is the
    top-level index of the stop, ``len(steps)`` for all-clear; ``path`` leads from the top level
    down to the stopping step (empty for all-clear). ``verdict_counts`` counts every step at every
    depth; ``success_count`` is the number of wholly TRUE top-level steps before the stop.
    """

    sequence_id: str | None
    kind: StopKind | None
    error: str | None
    detail: str
    index: int | None
    path: tuple[int, ...]
    step: ReasoningStep | None
    total: int
    verdict_counts: Mapping[str, int]
    success_count: int
    last_true_claim: str | None

    @property
    def position(self) -> str:
        """``"2/4"`` for a stop at the third of four top-level steps: the stop's 0-based index
        among the ``n`` steps, as in the pipeline's own example (all-clear: ``n/n``, past the
        last step)."""
        if self.index is None:
            return f"0/{self.total}"
        return f"{min(self.index, self.total)}/{self.total}"


@dataclass(frozen=True)
class Boundary:
    """A classified stop: its kind, the target to resolve it, and what it does not claim."""

    sequence_id: str | None
    kind: StopKind
    target: str
    index: int
    path: tuple[int, ...]
    step: ReasoningStep | None
    total: int
    verdict_counts: Mapping[str, int]
    success_count: int
    last_true_claim: str | None
    honest_scope: str

    @property
    def verdict(self) -> LogicValue | None:
        return self.step.verdict if self.step is not None else None

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "sequence_id": self.sequence_id,
            "kind": self.kind.value,
            "target": self.target,
            "index": self.index,
            "path": list(self.path),
            "step": self.step.to_json_obj() if self.step is not None else None,
            "total": self.total,
            "verdict_counts": dict(self.verdict_counts),
            "success_count": self.success_count,
            "last_true_claim": self.last_true_claim,
            "honest_scope": self.honest_scope,
        }


@dataclass(frozen=True)
class Escalation:
    """The payload of one escalation. ``ledger_anchor`` is ``None`` when anchoring was off (E2)
    and then absent from :meth:`to_json_obj`."""

    escalation_id: str
    emitted_at: str
    sequence_id: str | None
    kind: StopKind
    target: str
    default_target: str
    boundary: Boundary
    ledger_anchor: Mapping[str, Any] | None = None

    @property
    def payload(self) -> Any:
        """The stopping step's payload, as the step carried it."""
        return self.boundary.step.payload if self.boundary.step is not None else None

    def to_json_obj(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "escalation_id": self.escalation_id,
            "emitted_at": self.emitted_at,
            "sequence_id": self.sequence_id,
            "kind": self.kind.value,
            "target": self.target,
            "default_target": self.default_target,
            "boundary": self.boundary.to_json_obj(),
        }
        if self.ledger_anchor is not None:
            out["ledger_anchor"] = dict(self.ledger_anchor)
        return out

    def anchor_body(self) -> dict[str, Any]:
        """What the ledger records: ids, kind, target, the stopping step, and the digest of the
        whole boundary (whose payload may hold floats, which ledger bodies must not)."""
        step = self.boundary.step
        return {
            "type": "escalation",
            "escalation_id": self.escalation_id,
            "emitted_at": self.emitted_at,
            "sequence_id": self.sequence_id,
            "kind": self.kind.value,
            "target": self.target,
            "index": self.boundary.index,
            "path": list(self.boundary.path),
            "step_id": step.step_id if step is not None else None,
            "verdict": step.verdict.value if step is not None else None,
            "success_count": self.boundary.success_count,
            "total": self.boundary.total,
            "boundary_digest": json_digest(self.boundary.to_json_obj()),
        }


@dataclass(frozen=True)
class StoppingOutcome:
    """What :func:`run_stopping_condition` returns: every stage, and a one-line summary."""

    sequence_id: str | None
    location: Location
    boundary: Boundary | None
    escalation: Escalation | None
    summary: str

    @property
    def error(self) -> str | None:
        return self.location.error

    @property
    def all_clear(self) -> bool:
        return self.location.kind is StopKind.ALL_CLEAR

    @property
    def target(self) -> str | None:
        return self.escalation.target if self.escalation is not None else None

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "sequence_id": self.sequence_id,
            "error": self.location.error,
            "detail": self.location.detail,
            "escalation": self.escalation.to_json_obj() if self.escalation else None,
            "summary": self.summary,
        }


# --- digests of arbitrary payloads ----------------------------------------------------------


def _digest_leaf(obj: Any) -> Any:
    """A leaf of a digested payload as JSON data: enums by value, non-finite floats and unknown
    objects by ``repr``, objects with ``to_json_obj`` by their JSON form."""
    if isinstance(obj, enum.Enum):
        return plain(obj.value, _digest_leaf)
    if obj is None or isinstance(obj, bool | int | str):
        return obj
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else repr(obj)
    if hasattr(obj, "to_json_obj"):
        return plain(obj.to_json_obj(), _digest_leaf)
    return repr(obj)


def json_digest(obj: Any) -> str:
    """``sha256:<hex>`` of the RFC 8785 canonical JSON of ``obj`` (made JSON-safe first)."""
    data = plain(obj, _digest_leaf)
    try:
        raw = rfc8785.dumps(data)
    except rfc8785.CanonicalizationError:  # integers beyond 2**53: keep them exact as strings
        raw = rfc8785.dumps(_big_ints_as_str(data))
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def _big_ints_as_str(obj: Any) -> Any:
    if isinstance(obj, int) and not isinstance(obj, bool) and abs(obj) > 2**53 - 1:
        return str(obj)
    if isinstance(obj, dict):
        return {k: _big_ints_as_str(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_big_ints_as_str(v) for v in obj]
    return obj
