"""The stopping-condition pipeline: find where a sequence of audit steps stops being TRUE, say
which kind of stop it is, and route it to a target that can resolve it.

Generic on purpose: a step is a claim with an eight-valued verdict (:mod:`puzzlekit.audit.logic`), a
reason and a source, and nothing here knows about puzzles. Three pure decision tables make up the
pipeline (DESIGN §7, issue 5), composed by :func:`run_stopping_condition`:

``locate_first_error(steps)``
    L1 empty or not a sequence -> error ``invalid-input``; L2 all TRUE -> ``all-clear``; the first
    step that is not TRUE gives L3 NEITHER -> ``neither-halt``, L4 FALSE -> ``false-violation``,
    L5 ZERO -> ``zero-void``, L6 BOTH/INFINITY/FLOWING/SELF -> ``other-nondefinite``.
``boundary_report(location)``
    B1 all-clear -> target ``none``; B2 neither-halt -> ``hold``; B3 false-violation ->
    ``external-oracle``; B4 zero-void -> ``human``; B5 other-nondefinite -> ``peer-review``.
``escalate(boundary, ...)``
    E1 all-clear -> no anchor, target ``none``; E2 anchoring off -> no ``ledger_anchor`` field;
    E3 anchoring on without a function -> ``{appended: False, reason: "no-anchor-fn"}``; E4 the
    function returns ``(seq, entry_hash)`` -> ``{appended: True, entry_hash, entry_seq}``; E5 the
    function raises -> ``{appended: False, reason: "anchor-threw:<message>"}``, never an exception.

A step may hold a sub-sequence (``substeps``). A step's sub-sequence is audited before the step
itself, so the stop is the first non-TRUE step in post-order and the location carries the path of
indices down to it. :func:`locate_all_errors` lists every stop, not only the first.

This module decides; it does not act. The targets' actions (hold queue, re-verification, review
queue) live in :mod:`puzzlekit.audit.escalation`, the ledger in :mod:`puzzlekit.audit.ledger`. The
only
impure parts are the ``emitted_at`` clock and the escalation id, both injectable.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import math
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import rfc8785

from puzzlekit.audit.logic import LogicValue, value_of


class StopKind(enum.StrEnum):
    ALL_CLEAR = "all-clear"
    NEITHER_HALT = "neither-halt"
    FALSE_VIOLATION = "false-violation"
    ZERO_VOID = "zero-void"
    OTHER_NONDEFINITE = "other-nondefinite"


INVALID_INPUT = "invalid-input"

#: L3-L6: the kind of stop each non-TRUE value makes.
STOP_KIND: Mapping[LogicValue, StopKind] = {
    LogicValue.NEITHER: StopKind.NEITHER_HALT,
    LogicValue.FALSE: StopKind.FALSE_VIOLATION,
    LogicValue.ZERO: StopKind.ZERO_VOID,
    LogicValue.BOTH: StopKind.OTHER_NONDEFINITE,
    LogicValue.INFINITY: StopKind.OTHER_NONDEFINITE,
    LogicValue.FLOWING: StopKind.OTHER_NONDEFINITE,
    LogicValue.SELF: StopKind.OTHER_NONDEFINITE,
}

#: B1-B5: the default target of each kind of stop.
DEFAULT_TARGET: Mapping[StopKind, str] = {
    StopKind.ALL_CLEAR: "none",
    StopKind.NEITHER_HALT: "hold",
    StopKind.FALSE_VIOLATION: "external-oracle",
    StopKind.ZERO_VOID: "human",
    StopKind.OTHER_NONDEFINITE: "peer-review",
}

_SCOPE: Mapping[StopKind, str] = {
    StopKind.NEITHER_HALT: "is still open (NEITHER)",
    StopKind.FALSE_VIOLATION: "was refuted (FALSE) by its own source, which is not an independent "
    "judge",
    StopKind.ZERO_VOID: "is void (ZERO): its input could not be read",
    StopKind.OTHER_NONDEFINITE: "is not definite ({verdict})",
}


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
        """``"2/4"``: the 1-based position of the stop among the top-level steps."""
        if self.index is None:
            return f"0/{self.total}"
        return f"{min(self.index + 1, self.total)}/{self.total}"


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


# --- L: locating the stop -------------------------------------------------------------------


def _check_steps(steps: Any, where: str) -> str | None:
    """Why ``steps`` is not a non-empty sequence of steps (at any depth), or None."""
    if isinstance(steps, str | bytes) or not isinstance(steps, Sequence):
        return f"{where}: expected a sequence of ReasoningStep, got {type(steps).__name__}"
    if len(steps) == 0:
        return f"{where}: the sequence is empty"
    for i, step in enumerate(steps):
        if not isinstance(step, ReasoningStep):
            return f"{where}[{i}]: expected a ReasoningStep, got {type(step).__name__}"
        if step.substeps:
            problem = _check_steps(step.substeps, f"{where}[{i}].substeps")
            if problem:
                return problem
    return None


def _walk(steps: Sequence[ReasoningStep], prefix: tuple[int, ...] = ()) -> Iterator[tuple]:
    """Every step in post-order (a step's sub-sequence before the step), with its path."""
    for i, step in enumerate(steps):
        path = (*prefix, i)
        if step.substeps:
            yield from _walk(step.substeps, path)
        yield path, step


def _all_true(step: ReasoningStep) -> bool:
    return step.verdict is LogicValue.TRUE and all(_all_true(s) for s in step.substeps)


def _counts(steps: Sequence[ReasoningStep]) -> dict[str, int]:
    counts = {v.value: 0 for v in LogicValue}
    for _, step in _walk(steps):
        counts[step.verdict.value] += 1
    return counts


def _invalid(sequence_id: str | None, detail: str, steps: Any) -> Location:
    total = len(steps) if isinstance(steps, Sequence) and not isinstance(steps, str | bytes) else 0
    return Location(
        sequence_id=sequence_id,
        kind=None,
        error=INVALID_INPUT,
        detail=detail,
        index=None,
        path=(),
        step=None,
        total=total,
        verdict_counts={v.value: 0 for v in LogicValue},
        success_count=0,
        last_true_claim=None,
    )


def _locations(steps: Any, sequence_id: str | None, first_only: bool) -> list[Location]:
    problem = _check_steps(steps, "steps")
    if problem:  # L1
        return [_invalid(sequence_id, problem, steps)]
    counts = _counts(steps)
    total = len(steps)
    whole = [_all_true(s) for s in steps]
    out: list[Location] = []
    last_true: str | None = None
    for path, step in _walk(steps):
        if step.verdict is LogicValue.TRUE:
            last_true = step.claim
            continue
        kind = STOP_KIND[step.verdict]  # L3-L6
        index = path[0]
        detail = f"step {step.step_id!r} at path {list(path)} is {step.verdict.value}"
        out.append(
            Location(
                sequence_id=sequence_id,
                kind=kind,
                error=None,
                detail=detail,
                index=index,
                path=path,
                step=step,
                total=total,
                verdict_counts=counts,
                success_count=sum(whole[:index]),
                last_true_claim=last_true,
            )
        )
        if first_only:
            break
    if not out:  # L2
        out.append(
            Location(
                sequence_id=sequence_id,
                kind=StopKind.ALL_CLEAR,
                error=None,
                detail=f"all {total} steps are TRUE",
                index=total,
                path=(),
                step=None,
                total=total,
                verdict_counts=counts,
                success_count=total,
                last_true_claim=last_true,
            )
        )
    return out


def locate_first_error(
    steps: Sequence[ReasoningStep], *, sequence_id: str | None = None
) -> Location:
    """Where ``steps`` stops: the first step (post-order) that is not TRUE, or all-clear, or the
    ``invalid-input`` error when ``steps`` is empty or not a sequence of :class:`ReasoningStep`."""
    return _locations(steps, sequence_id, first_only=True)[0]


def locate_all_errors(
    steps: Sequence[ReasoningStep], *, sequence_id: str | None = None
) -> tuple[Location, ...]:
    """Every stop of ``steps`` in post-order; its first item is :func:`locate_first_error`.

    An all-clear or unreadable sequence gives a single location, as the first-error form does.
    """
    return tuple(_locations(steps, sequence_id, first_only=False))


# --- B: classifying the boundary ------------------------------------------------------------


def _honest_scope(location: Location) -> str:
    if location.kind is StopKind.ALL_CLEAR:
        return (
            f"All {location.total} steps were TRUE as recorded; this vouches only for the claims "
            "the steps made and for the sources that judged them."
        )
    step = location.step
    assert step is not None and location.kind is not None
    what = _SCOPE[location.kind].format(verdict=step.verdict.value)
    return (
        f"Step {step.step_id!r} {what}; the {location.success_count} TRUE steps before it stand, "
        "nothing after it was audited, and no target has resolved it yet."
    )


def boundary_report(location: Location) -> Boundary:
    """Classify a located stop and name its default target (B1-B5).

    Raises ``ValueError`` for an ``invalid-input`` location: there is no boundary to report.
    """
    if location.kind is None:
        raise ValueError(f"no boundary for an {location.error} location: {location.detail}")
    return Boundary(
        sequence_id=location.sequence_id,
        kind=location.kind,
        target=DEFAULT_TARGET[location.kind],
        index=location.index if location.index is not None else 0,
        path=location.path,
        step=location.step,
        total=location.total,
        verdict_counts=location.verdict_counts,
        success_count=location.success_count,
        last_true_claim=location.last_true_claim,
        honest_scope=_honest_scope(location),
    )


# --- E: escalating --------------------------------------------------------------------------

AnchorFn = Callable[[Mapping[str, Any]], Any]


def _utc_now() -> datetime:
    return datetime.now(UTC)


def _new_id() -> str:
    return str(uuid.uuid4())


def _anchor_result(result: Any) -> tuple[int, str]:
    """``(seq, entry_hash)`` from what an anchor function returned: a pair, a mapping with
    ``entry_seq``/``seq`` and ``entry_hash``, or an object with ``seq`` and ``entry_hash``."""
    if isinstance(result, Mapping):
        seq, entry_hash = result.get("entry_seq", result.get("seq")), result.get("entry_hash")
    elif isinstance(result, tuple | list) and len(result) == 2:
        seq, entry_hash = result
    else:
        seq, entry_hash = getattr(result, "seq", None), getattr(result, "entry_hash", None)
    if isinstance(seq, bool) or not isinstance(seq, int) or not isinstance(entry_hash, str):
        raise TypeError(f"anchor function returned {result!r}, expected (seq, entry_hash)")
    return seq, entry_hash


def escalate(
    boundary: Boundary,
    *,
    anchor_to_ledger: bool = False,
    ledger_anchor_fn: AnchorFn | None = None,
    target_override: str | None = None,
    clock: Callable[[], datetime] = _utc_now,
    new_id: Callable[[], str] = _new_id,
) -> Escalation:
    """The escalation payload of ``boundary`` (E1-E5), anchored in a ledger when asked.

    ``ledger_anchor_fn`` receives :meth:`Escalation.anchor_body` and returns ``(seq,
    entry_hash)``; a :class:`puzzlekit.audit.ledger.Ledger` is such a function. Whatever it raises
    is
    reported in the payload, never propagated. ``target_override`` replaces the default target of
    a stop; an all-clear keeps target ``none``.
    """
    now = clock()
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    default = DEFAULT_TARGET[boundary.kind]
    all_clear = boundary.kind is StopKind.ALL_CLEAR
    target = default if all_clear or target_override is None else str(target_override)
    esc = Escalation(
        escalation_id=new_id(),
        emitted_at=now.isoformat(),
        sequence_id=boundary.sequence_id,
        kind=boundary.kind,
        target=target,
        default_target=default,
        boundary=boundary,
    )
    if all_clear or not anchor_to_ledger:  # E1, E2
        return esc
    if ledger_anchor_fn is None:  # E3
        anchor: dict[str, Any] = {"appended": False, "reason": "no-anchor-fn"}
    else:
        try:
            seq, entry_hash = _anchor_result(ledger_anchor_fn(esc.anchor_body()))
            anchor = {"appended": True, "entry_hash": entry_hash, "entry_seq": seq}  # E4
        except Exception as exc:  # E5: anchoring must never break the pipeline
            anchor = {"appended": False, "reason": f"anchor-threw:{exc or type(exc).__name__}"}
    return dataclasses.replace(esc, ledger_anchor=anchor)


def _anchor_word(esc: Escalation) -> str:
    if esc.kind is StopKind.ALL_CLEAR:
        return "none"
    anchor = esc.ledger_anchor
    if anchor is None:
        return "off"
    if anchor.get("appended"):
        return "ok"
    reason = str(anchor.get("reason", ""))
    return "no-anchor-fn" if reason == "no-anchor-fn" else "failed"


def run_stopping_condition(
    sequence_id: str | None, steps: Sequence[ReasoningStep], **escalate_options: Any
) -> StoppingOutcome:
    """Locate, classify and escalate; ``escalate_options`` go to :func:`escalate`.

    The summary reads ``stopping-condition | seq(2/4) | kind=neither-halt | target=hold |
    anchor=ok`` (``path=0.1`` is added for a stop inside a sub-sequence), or
    ``stopping-condition | error=invalid-input | <detail>``.
    """
    location = locate_first_error(steps, sequence_id=sequence_id)
    if location.error is not None:
        summary = f"stopping-condition | error={location.error} | {location.detail}"
        return StoppingOutcome(sequence_id, location, None, None, summary)
    boundary = boundary_report(location)
    esc = escalate(boundary, **escalate_options)
    parts = ["stopping-condition", f"seq({location.position})"]
    if len(location.path) > 1:
        parts.append("path=" + ".".join(str(i) for i in location.path))
    parts += [f"kind={esc.kind.value}", f"target={esc.target}", f"anchor={_anchor_word(esc)}"]
    return StoppingOutcome(sequence_id, location, boundary, esc, " | ".join(parts))


# --- digests of arbitrary payloads ----------------------------------------------------------


def _jsonable(obj: Any) -> Any:
    """``obj`` as plain JSON data for a digest: enums by value, tuples as lists, non-finite
    floats and unknown objects by ``repr``."""
    if isinstance(obj, enum.Enum):
        return _jsonable(obj.value)
    if obj is None or isinstance(obj, bool | int | str):
        return obj
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else repr(obj)
    if isinstance(obj, Mapping):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_jsonable(v) for v in obj]
    if hasattr(obj, "to_json_obj"):
        return _jsonable(obj.to_json_obj())
    return repr(obj)


def json_digest(obj: Any) -> str:
    """``sha256:<hex>`` of the RFC 8785 canonical JSON of ``obj`` (made JSON-safe first)."""
    data = _jsonable(obj)
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
