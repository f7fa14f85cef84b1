"""The stopping-condition pipeline: find where a sequence of audit steps stops being TRUE, say
which kind of stop it is, and route it to a target that can resolve it.

Generic on purpose: a step is a claim with an eight-valued verdict (:mod:`puzzlekit.audit.logic`), a
reason and a source, and nothing here knows about puzzles. Three pure decision tables make up the
pipeline, composed by :func:`run_stopping_condition`:

``locate_first_error(steps)``
    L1 empty or not a sequence -> error ``invalid-input``; L2 all TRUE -> ``all-clear``; the first
    step that is not TRUE gives L3 NEITHER -> ``neither-halt``, L4 FALSE -> ``false-violation``,
    L5 ZERO -> ``zero-void``, L6 BOTH/INFINITY/FLOWING/SELF -> ``other-nondefinite``.
``boundary_report(location)``
    B1 all-clear -> target ``none``; B2 neither-halt -> ``w48-negcap``; B3 false-violation ->
    ``external-oracle``; B4 zero-void -> ``human``; B5 other-nondefinite -> ``peer-review``.
    ``w48-negcap`` is negative capability: keep the question open (the hold queue) and retry it
    later with a larger budget. Where a user names a target, ``hold`` is accepted as an alias of
    ``w48-negcap`` (:data:`TARGET_ALIASES`, :func:`canonical_target`).
``escalate(boundary, ...)``
    E1 all-clear -> no anchor, target ``none``; E2 anchoring off -> no ``ledger_anchor`` field;
    E3 anchoring on without a function -> ``{appended: False, reason: "no-anchor-fn"}``; E4 the
    function returns ``(seq, entry_hash)`` -> ``{appended: True, entryHash, entrySeq}``; E5 the
    function raises -> ``{appended: False, reason: "anchor-threw:<message>"}`` (the exception's
    type name when its message is empty), never an exception.

A step may hold a sub-sequence (``substeps``). A step's sub-sequence is audited before the step
itself, so the stop is the first non-TRUE step in post-order and the location carries the path of
indices down to it. :func:`locate_all_errors` lists every stop, not only the first.

This module decides; it does not act. The targets' actions (hold queue, re-verification, review
queue) live in :mod:`puzzlekit.audit.escalation.targets`, the ledger in
:mod:`puzzlekit.audit.ledger`. The only impure parts are the ``emitted_at`` clock
(:func:`puzzlekit.core.clock.utc_now` unless one is passed) and the escalation id, both injectable.
The records the pipeline passes along, and
:func:`json_digest`, are in :mod:`puzzlekit.audit.stopping_records` and re-exported here.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import UTC
from typing import Any

from puzzlekit.audit.escalation.chain import chain_anchor
from puzzlekit.audit.logic import LogicValue
from puzzlekit.audit.stopping_records import (
    Boundary,
    Escalation,
    Location,
    ReasoningStep,
    StopKind,
    StoppingOutcome,
    json_digest,
)
from puzzlekit.core.clock import Clock, utc_now

__all__ = [
    "DEFAULT_TARGET",
    "INVALID_INPUT",
    "NEGATIVE_CAPABILITY",
    "STOP_KIND",
    "AnchorFn",
    "Boundary",
    "Escalation",
    "Location",
    "ReasoningStep",
    "StopKind",
    "StoppingOutcome",
    "TARGET_ALIASES",
    "anchor_record",
    "boundary_report",
    "canonical_target",
    "escalate",
    "json_digest",
    "locate_all_errors",
    "locate_first_error",
    "run_stopping_condition",
    "run_stopping_condition_async",
]


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

#: B2's target: negative capability, keep the question open (the hold queue) and retry it later
NEGATIVE_CAPABILITY = "w48-negcap"

#: names a user may give for a target, and the target each one means
TARGET_ALIASES: Mapping[str, str] = {"hold": NEGATIVE_CAPABILITY}

#: B1-B5: the default target of each kind of stop.
DEFAULT_TARGET: Mapping[StopKind, str] = {
    StopKind.ALL_CLEAR: "none",
    StopKind.NEITHER_HALT: NEGATIVE_CAPABILITY,
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


# --- L: locating the stop -------------------------------------------------------------------


#: the deepest nesting of sub-steps the pipeline reads; deeper input is ``invalid-input``
MAX_DEPTH = 200


def _check_steps(steps: Any, where: str) -> str | None:
    """Why ``steps`` is not a non-empty sequence of steps (at any depth, up to
    :data:`MAX_DEPTH`, without cycles), or None. Iterative, so deep or cyclic input is reported,
    never a RecursionError."""

    def name(path: tuple[int, ...]) -> str:
        return where + "".join(f"[{i}].substeps" for i in path)

    todo: list[tuple[Any, tuple[int, ...], frozenset[int]]] = [(steps, (), frozenset())]
    while todo:
        seq, path, above = todo.pop()
        if isinstance(seq, str | bytes) or not isinstance(seq, Sequence):
            return f"{name(path)}: expected a sequence of ReasoningStep, got {type(seq).__name__}"
        if len(seq) == 0:
            return f"{name(path)}: the sequence is empty"
        if len(path) >= MAX_DEPTH:
            return f"{where}: sub-steps nested deeper than {MAX_DEPTH} levels"
        for i, step in enumerate(seq):
            if not isinstance(step, ReasoningStep):
                return f"{name(path)}[{i}]: expected a ReasoningStep, got {type(step).__name__}"
            if id(step) in above:
                return f"{name(path)}[{i}]: a step contains itself (cyclic sub-steps)"
        for i in range(len(seq) - 1, -1, -1):
            if seq[i].substeps:
                todo.append((seq[i].substeps, (*path, i), above | {id(seq[i])}))
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


def _new_id() -> str:
    return str(uuid.uuid4())


def canonical_target(name: str) -> str:
    """The target ``name`` means: an alias (:data:`TARGET_ALIASES`, ``hold``) read as the target
    it stands for, any other name as given."""
    return TARGET_ALIASES.get(name, name)


def _first_key(obj: Mapping[str, Any], *keys: str) -> Any:
    return next((obj[k] for k in keys if k in obj), None)


def _anchor_result(result: Any) -> tuple[int, str]:
    """``(seq, entry_hash)`` from what an anchor function returned: a pair, a mapping with
    ``entrySeq`` and ``entryHash`` (or the older ``entry_seq``/``seq`` and ``entry_hash``), or an
    object with ``seq`` and ``entry_hash``."""
    if isinstance(result, Mapping):
        seq = _first_key(result, "entrySeq", "entry_seq", "seq")
        entry_hash = _first_key(result, "entryHash", "entry_hash")
    elif isinstance(result, tuple | list) and len(result) == 2:
        seq, entry_hash = result
    else:
        seq, entry_hash = getattr(result, "seq", None), getattr(result, "entry_hash", None)
    if isinstance(seq, bool) or not isinstance(seq, int) or not isinstance(entry_hash, str):
        raise TypeError(f"anchor function returned {result!r}, expected (seq, entry_hash)")
    return seq, entry_hash


def anchor_record(call: Callable[[], Any]) -> dict[str, Any]:
    """The anchor record of one anchoring attempt (E4, E5): ``call()`` returns what the anchor
    function returned; whatever it raises is reported, never propagated."""
    try:
        return anchor_appended(call())
    except Exception as exc:  # E5: anchoring must never break the pipeline
        return anchor_threw(exc)


def anchor_appended(result: Any) -> dict[str, Any]:
    """E4: the record of an anchor function's result (raises ``TypeError`` if unreadable)."""
    seq, entry_hash = _anchor_result(result)
    return {"appended": True, "entryHash": entry_hash, "entrySeq": seq}


def anchor_threw(exc: BaseException) -> dict[str, Any]:
    """E5: ``anchor-threw:<message>``, or ``anchor-threw:<ExceptionType>`` for an empty one."""
    return {"appended": False, "reason": f"anchor-threw:{str(exc) or type(exc).__name__}"}


def escalate(
    boundary: Boundary,
    *,
    anchor_to_ledger: bool = False,
    ledger_anchor_fn: AnchorFn | None = None,
    target_override: str | None = None,
    clock: Clock = utc_now,
    new_id: Callable[[], str] = _new_id,
) -> Escalation:
    """The escalation payload of ``boundary`` (E1-E5), anchored in a ledger when asked.

    ``ledger_anchor_fn`` receives :meth:`Escalation.anchor_body` and returns ``(seq,
    entry_hash)``; a :class:`puzzlekit.audit.ledger.Ledger` is such a function, and its entries
    are chained: each names the previous escalation of the same sequence id
    (:mod:`puzzlekit.audit.escalation.chain`). Whatever the function raises is reported in the
    payload, never propagated. ``target_override`` replaces the default target of
    a stop; an all-clear keeps target ``none``.
    """
    esc = _unanchored(boundary, target_override, clock, new_id)
    if esc.kind is StopKind.ALL_CLEAR or not anchor_to_ledger:  # E1, E2
        return esc
    if ledger_anchor_fn is None:  # E3
        return dataclasses.replace(esc, ledger_anchor=dict(NO_ANCHOR_FN))
    fn, body = chain_anchor(ledger_anchor_fn), esc.anchor_body()
    return dataclasses.replace(esc, ledger_anchor=anchor_record(lambda: fn(body)))  # E4, E5


#: E3: anchoring asked for, but no function to anchor with
NO_ANCHOR_FN: Mapping[str, Any] = {"appended": False, "reason": "no-anchor-fn"}


def _unanchored(
    boundary: Boundary, target_override: str | None, clock: Clock, new_id: Callable[[], str]
) -> Escalation:
    now = clock()
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    default = DEFAULT_TARGET[boundary.kind]
    all_clear = boundary.kind is StopKind.ALL_CLEAR
    target = default if all_clear or target_override is None else str(target_override)
    target = canonical_target(target)
    return Escalation(
        escalation_id=new_id(),
        emitted_at=now.isoformat(),
        sequence_id=boundary.sequence_id,
        kind=boundary.kind,
        target=target,
        default_target=default,
        boundary=boundary,
    )


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

    The summary reads ``stopping-condition | seq(2/4) | kind=neither-halt | target=w48-negcap |
    anchor=ok`` (``path=0.1`` is added for a stop inside a sub-sequence), or
    ``stopping-condition | error=invalid-input | <detail>``.
    """
    location = locate_first_error(steps, sequence_id=sequence_id)
    if location.error is not None:
        return _unreadable(sequence_id, location)
    boundary = boundary_report(location)
    return _outcome(location, boundary, escalate(boundary, **escalate_options))


async def run_stopping_condition_async(
    sequence_id: str | None,
    steps: Sequence[ReasoningStep],
    *,
    anchor_to_ledger: bool = False,
    ledger_anchor_fn: Callable[[Mapping[str, Any]], Any] | None = None,
    target_override: str | None = None,
    clock: Clock = utc_now,
    new_id: Callable[[], str] = _new_id,
) -> StoppingOutcome:
    """:func:`run_stopping_condition` with an anchor function that may be awaitable: a
    coroutine function (or one returning an awaitable) is awaited; any other runs in a worker
    thread (:func:`asyncio.to_thread`), so a blocking ledger write never holds up the event
    loop. The outcome, summary and E1-E5 are those of the synchronous pipeline; what the anchor
    function raises, or the awaitable it returns raises, is reported, never propagated."""
    location = locate_first_error(steps, sequence_id=sequence_id)
    if location.error is not None:
        return _unreadable(sequence_id, location)
    boundary = boundary_report(location)
    esc = _unanchored(boundary, target_override, clock, new_id)
    if esc.kind is not StopKind.ALL_CLEAR and anchor_to_ledger:
        if ledger_anchor_fn is None:  # E3
            anchor: Mapping[str, Any] = dict(NO_ANCHOR_FN)
        else:
            anchor = await _anchor_async(chain_anchor(ledger_anchor_fn), esc.anchor_body())
        esc = dataclasses.replace(esc, ledger_anchor=anchor)
    return _outcome(location, boundary, esc)


async def _anchor_async(fn: Callable[[Mapping[str, Any]], Any], body: Mapping[str, Any]) -> Any:
    try:
        if inspect.iscoroutinefunction(fn):
            result = fn(body)
        else:
            result = await asyncio.to_thread(fn, body)
        if inspect.isawaitable(result):
            result = await result
        return anchor_appended(result)  # E4
    except Exception as exc:  # E5
        return anchor_threw(exc)


def _unreadable(sequence_id: str | None, location: Location) -> StoppingOutcome:
    summary = f"stopping-condition | error={location.error} | {location.detail}"
    return StoppingOutcome(sequence_id, location, None, None, summary)


def _outcome(location: Location, boundary: Boundary, esc: Escalation) -> StoppingOutcome:
    parts = ["stopping-condition", f"seq({location.position})"]
    if len(location.path) > 1:
        parts.append("path=" + ".".join(str(i) for i in location.path))
    parts += [f"kind={esc.kind.value}", f"target={esc.target}", f"anchor={_anchor_word(esc)}"]
    return StoppingOutcome(location.sequence_id, location, boundary, esc, " | ".join(parts))
