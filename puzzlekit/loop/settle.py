"""To settle a loop outcome is to give it its final disposition: audit it, stop or clear it,
escalate or decide, and act.

This is the last stage of the flow (docs/architecture.md). One
:class:`~puzzlekit.loop.driver.LoopResult`
goes in; one :class:`Settlement` comes out, after these stages:

1. :func:`puzzlekit.loop.steps.audit_steps` turns the loop's reports into eight-valued audit
   steps (instance valid, filter verdict, holdout verdict, replay, agreement, independence).
2. :func:`puzzlekit.audit.stopping.run_stopping_condition` locates the first step that is not
   TRUE and names its target, anchored in the ledger when one is given.
3. A stop other than all-clear is dispatched through
:class:`puzzlekit.audit.escalation.targets.Dispatcher`
   (hold queue, re-verification by another backend, review queue).
4. An all-clear is judged by the review kernel: the ``rbk.request.v1`` is derived only from the
   filter and holdout reports and the corpus policy (:func:`puzzlekit.loop.publish.derive_request`),
   decided under the default puzzle policy, and acted on: ``auto_apply`` appends the puzzle to
   the corpus (a JSON Lines file) together with a ledger entry; ``human_required`` puts it into
   the review queue; ``incomplete`` holds it with the evidence that would resolve it.

Not for: running the loop (:mod:`puzzlekit.loop.driver`), choosing where a stop goes
(:mod:`puzzlekit.audit.stopping`), how a decision is made (:mod:`puzzlekit.audit.review.kernel`) or
the publish-gate study (:mod:`puzzlekit.app.experiment.publish_gate`). The pure parts
(:func:`~puzzlekit.loop.steps.audit_steps`, :func:`derive_and_decide`) take their times as
arguments; only :func:`settle` touches files, and it reads the clock only when no time is passed
in.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from puzzlekit.audit.escalation.targets import Action, Dispatcher, EscalationCase, EscalationStore
from puzzlekit.audit.ledger import Ledger
from puzzlekit.audit.review.kernel import decide, parse_datetime
from puzzlekit.audit.stopping import (
    ReasoningStep,
    StopKind,
    StoppingOutcome,
    run_stopping_condition,
)
from puzzlekit.core.clock import frozen_clock
from puzzlekit.core.report import Verdict, VerifierReport
from puzzlekit.loop.driver import CONTAMINATED, LoopBudget, LoopResult, guarded_verify
from puzzlekit.loop.publish import DEFAULT_CORPUS, CorpusPolicy, DerivedRequest, default_policy
from puzzlekit.loop.publish import derive_request as _derive_request
from puzzlekit.loop.steps import audit_steps

__all__ = [
    "Settlement",
    "audit_steps",
    "derive_and_decide",
    "hand_filled_fields",
    "settle",
]

#: Action words of a :class:`Settlement` (``escalated`` and the queue words come from the
#: dispatcher's handlers when a store is given).
CORPUS_APPEND = "corpus-append"
PUBLISHABLE = "publishable"  # auto_apply, but no corpus file was given
QUEUED_FOR_REVIEW = "queued-for-review"
REVIEW_NEEDED = "review-needed"  # human_required, but no store to queue it in
HELD = "held"
INCOMPLETE = "incomplete"  # incomplete, but no store to hold it in
ESCALATED = "escalated"  # a stop with no store to dispatch it to


# --- 2. the kernel on an all-clear ----------------------------------------------------------


def derive_and_decide(
    instance_digest: str,
    filter_report: VerifierReport,
    holdout_report: VerifierReport,
    *,
    observed_at: str,
    computed_at: str,
    policy: Mapping[str, Any] | None = None,
    corpus: CorpusPolicy = DEFAULT_CORPUS,
    verifiers: tuple[str, str] | None = None,
) -> tuple[DerivedRequest, dict[str, Any]]:
    """The derived request and the kernel's decision for publishing one instance. Pure.
    ``verifiers``: the filter's and the holdout's registry names from the run's own record."""
    derived = _derive_request(
        instance_digest,
        filter_report,
        holdout_report,
        observed_at=observed_at,
        corpus=corpus,
        verifiers=verifiers,
    )
    decision = decide(
        policy if policy is not None else default_policy(), derived.request, computed_at=computed_at
    )
    return derived, decision


def hand_filled_fields(
    derived: DerivedRequest,
    instance_digest: str,
    filter_report: VerifierReport,
    holdout_report: VerifierReport,
    corpus: CorpusPolicy = DEFAULT_CORPUS,
) -> list[str]:
    """Request fields whose provenance names neither report, the corpus policy, the instance
    digest nor the contract. Empty when no field was filled by hand.

    Two process facts are named by what produced them, not by a document: who proposed the
    action (``action.proposed_by``, the loop) and when the evidence was gathered
    (``observed_at``); they carry no judgment and are allowed by name.
    """
    allowed = {
        f"filter report {filter_report.digest()}",
        f"holdout report {holdout_report.digest()}",
        corpus.source,
        f"instance {instance_digest}",
    }
    process = {"action.proposed_by": "the proposing process", "observed_at": "the gathering"}
    bad = []
    for record in derived.provenance:
        if not record.sources:
            bad.append(record.field)
            continue
        for source in record.sources:
            if any(source.startswith(a) for a in allowed) or source.startswith("contract rbk."):
                continue
            if record.field in process and source.startswith(process[record.field]):
                continue
            bad.append(record.field)
            break
    return bad


# --- 3. settling ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Settlement:
    """How one loop outcome was settled: the stop kind, its escalation target and ledger anchor,
    the kernel's outcome and the settle action (what was done, with its detail)."""

    sequence_id: str
    status: str
    instance_digest: str | None
    stop_kind: str | None
    escalation_target: str | None
    ledger_anchor: Mapping[str, Any] | None
    summary: str
    steps: tuple[ReasoningStep, ...]
    escalation_id: str | None
    kernel_outcome: str | None
    basis_complete: bool | None
    decision_id: str | None
    required_evidence: tuple[str, ...]
    settle_action: str
    settle_detail: Mapping[str, Any] = field(default_factory=dict)
    decision: Mapping[str, Any] | None = None
    request: DerivedRequest | None = None

    @property
    def all_clear(self) -> bool:
        return self.stop_kind == StopKind.ALL_CLEAR.value

    def to_json_obj(self) -> dict[str, Any]:
        anchor = self.ledger_anchor
        return {
            "sequenceId": self.sequence_id,
            "status": self.status,
            "instanceDigest": self.instance_digest,
            "stopKind": self.stop_kind,
            "escalationTarget": self.escalation_target,
            "ledgerAnchor": dict(anchor) if anchor is not None else None,
            "summary": self.summary,
            "steps": [s.to_json_obj() for s in self.steps],
            "escalationId": self.escalation_id,
            "kernelOutcome": self.kernel_outcome,
            "basisComplete": self.basis_complete,
            "decisionId": self.decision_id,
            "requiredEvidence": list(self.required_evidence),
            "settleAction": self.settle_action,
            "settleDetail": dict(self.settle_detail),
        }


def _now_iso() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _append_corpus_line(path: Path, line: Mapping[str, Any]) -> int:
    """Append one JSON line and fsync it; returns the line number (1-based)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+", encoding="utf-8") as fh:
        fh.seek(0)
        count = sum(1 for _ in fh)
        fh.write(json.dumps(line, separators=(",", ":"), ensure_ascii=False) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    return count + 1


def _publish(
    result: LoopResult,
    decision: Mapping[str, Any],
    *,
    ledger: Ledger | None,
    corpus_path: str | os.PathLike[str] | None,
    corpus: CorpusPolicy,
    computed_at: str,
) -> tuple[str, dict[str, Any]]:
    inst = result.instance
    assert inst is not None
    if corpus_path is None:
        return PUBLISHABLE, {"reason": "auto_apply, but no corpus file was given"}
    line = {
        "instance": inst.to_json_obj(),
        "digest": inst.digest,
        "decision_id": decision["decision_id"],
    }
    body = {
        "type": "corpus-append",
        "corpus_id": corpus.corpus_id,
        "corpus_path": str(corpus_path),
        "instance_digest": inst.digest,
        "decision_id": decision["decision_id"],
        "policy_id": decision["policy_id"],
        "policy_version": decision["policy_version"],
        "outcome": decision["outcome"],
        "at": computed_at,
    }
    if ledger is None:
        number = _append_corpus_line(Path(corpus_path), line)
        return CORPUS_APPEND, {"corpus_line": number}
    # the line is written inside the ledger transaction: a failed write rolls the entry back
    with ledger.transaction() as tx:
        seq, entry_hash = ledger.append_in(tx, body)
        number = _append_corpus_line(Path(corpus_path), line)
    return CORPUS_APPEND, {"corpus_line": number, "entry_seq": seq, "entry_hash": entry_hash}


def _reasons(decision: Mapping[str, Any]) -> list[str]:
    out = []
    for f in decision.get("factors", []):
        if f.get("verdict") != "satisfied":
            out += [f"{f['factor']}: {r}" for r in f.get("reasons", [])]
    return out


def _replay(result: LoopResult, filter: Any, solution_cap: int) -> Verdict | None:
    """The filter's verdict when it replays the accepted instance; None when it changed its
    input (the step stays open, NEITHER) or nothing was accepted."""
    if not result.accepted or result.instance is None:
        return None
    if result.replay_verdict is not None:
        # replayed in the loop's own process (an isolated loop: the filter never runs here)
        recorded = result.replay_verdict
        return None if recorded == CONTAMINATED else Verdict(recorded)
    again, _ = guarded_verify(filter, result.instance, solution_cap)
    return again.verdict if again is not None else None


def settle(
    result: LoopResult,
    *,
    filter: Any,
    holdout_name: str | None,
    ledger: Ledger | None = None,
    store: EscalationStore | None = None,
    dispatcher: Dispatcher | None = None,
    corpus_path: str | os.PathLike[str] | None = None,
    policy: Mapping[str, Any] | None = None,
    corpus: CorpusPolicy = DEFAULT_CORPUS,
    computed_at: str | None = None,
    observed_at: str | None = None,
    solution_cap: int = LoopBudget().solution_cap,
    sequence_id: str | None = None,
    new_id: Callable[[], str] | None = None,
) -> Settlement:
    """Audit, stop or clear, escalate or decide, and act on one loop outcome.

    ``filter`` is the loop's filter verifier: it replays the accepted instance once (unless the
    loop recorded its replay, :attr:`LoopResult.replay_verdict`), and its ``name`` identifies the
    filter backend when the result does not record one. ``ledger`` anchors escalations and
    records corpus appends; ``store`` (default: one on ``ledger``) holds the queues;
    ``dispatcher`` (default: one on ``store`` that re-verifies through the verifier registry)
    runs escalation targets.
    Without a store a stop is recorded as ``escalated`` and a review or hold as needed but not
    queued. ``computed_at`` (RFC 3339, default: now) is when the kernel decides and escalations
    are emitted; ``observed_at`` (default: ``computed_at``) is when the evidence was gathered.
    """
    computed_at = computed_at or _now_iso()
    observed_at = observed_at or computed_at
    if parse_datetime(computed_at) is None or parse_datetime(observed_at) is None:
        raise ValueError(f"computed_at {computed_at!r} / observed_at {observed_at!r}: not RFC 3339")
    # the verifiers the loop called, from its own record (never from what a report declares)
    filter_name = result.filter_name or str(getattr(filter, "name", "filter"))
    holdout_name = result.holdout_name or holdout_name
    inst = result.instance
    digest = inst.digest if inst is not None else None
    seq_id = sequence_id or f"loop:{result.strategy}:{result.seed}:{digest}"

    replay_verdict = _replay(result, filter, solution_cap)
    steps = audit_steps(
        result, filter_name=filter_name, holdout_name=holdout_name, replay_verdict=replay_verdict
    )
    options: dict[str, Any] = {"clock": frozen_clock(computed_at)}
    if new_id is not None:
        options["new_id"] = new_id
    if ledger is not None:
        options.update(anchor_to_ledger=True, ledger_anchor_fn=ledger)
    outcome: StoppingOutcome = run_stopping_condition(seq_id, steps, **options)
    esc = outcome.escalation
    assert esc is not None  # audit_steps never returns an unreadable sequence

    if store is None and dispatcher is not None:
        store = dispatcher.store
    if store is None and ledger is not None:
        store = EscalationStore(ledger)
    case = EscalationCase(
        esc,
        inst.canonical_json().decode("utf-8") if inst is not None else "null",
        digest or "",
        filter_verifier=filter_name,
        holdout_verifier=holdout_name,
    )
    base = dict(
        sequence_id=seq_id,
        status=result.status,
        instance_digest=digest,
        stop_kind=esc.kind.value,
        escalation_target=esc.target,
        ledger_anchor=esc.ledger_anchor,
        summary=outcome.summary,
        steps=tuple(steps),
        escalation_id=esc.escalation_id,
    )
    if not outcome.all_clear:
        return _escalated(base, case, store, dispatcher)
    when = {"observed_at": observed_at, "computed_at": computed_at}
    return _decided(base, result, case, store, ledger, corpus_path, policy, corpus, when)


def _escalated(
    base: Mapping[str, Any],
    case: EscalationCase,
    store: EscalationStore | None,
    dispatcher: Dispatcher | None,
) -> Settlement:
    """A stop other than all-clear: dispatched to its target, or recorded as escalated."""
    undecided = dict(kernel_outcome=None, basis_complete=None, decision_id=None)
    if store is None:
        return Settlement(
            **base,
            **undecided,
            required_evidence=(),
            settle_action=ESCALATED,
            settle_detail={"reason": "no escalation store to dispatch to"},
        )
    if dispatcher is None:
        from puzzlekit.verifiers.registry import registry_verify_fn

        dispatcher = Dispatcher(store, verify_fn=registry_verify_fn)
    act: Action = dispatcher.dispatch(case)
    return Settlement(
        **base,
        **undecided,
        required_evidence=(),
        settle_action=act.action,
        settle_detail=act.to_json_obj(),
    )


def _decided(
    base: Mapping[str, Any],
    result: LoopResult,
    case: EscalationCase,
    store: EscalationStore | None,
    ledger: Ledger | None,
    corpus_path: str | os.PathLike[str] | None,
    policy: Mapping[str, Any] | None,
    corpus: CorpusPolicy,
    when: Mapping[str, str],
) -> Settlement:
    """An all-clear: the kernel decides, and the decision is acted on."""
    fr, hr, digest = result.filter_report, result.holdout_report, base["instance_digest"]
    assert fr is not None and hr is not None and digest is not None
    derived, decision = derive_and_decide(
        digest,
        fr,
        hr,
        policy=policy,
        corpus=corpus,
        verifiers=(case.filter_verifier, case.holdout_verifier or "?"),
        **when,
    )
    kernel_outcome = str(decision["outcome"])
    required = tuple(decision.get("routing", {}).get("required_evidence_modes", ()))
    if kernel_outcome == "auto_apply":
        action, detail = _publish(
            result,
            decision,
            ledger=ledger,
            corpus_path=corpus_path,
            corpus=corpus,
            computed_at=when["computed_at"],
        )
    elif kernel_outcome == "human_required":
        reason = "kernel human_required: " + "; ".join(_reasons(decision))
        if store is None:
            action, detail = REVIEW_NEEDED, {"reason": reason}
        else:
            store.record_escalation(case, status="pending")
            review_id = store.enqueue_review(case, reason)
            action, detail = QUEUED_FOR_REVIEW, {"review_id": review_id, "reason": reason}
    else:
        reason = "kernel incomplete; would resolve: " + (", ".join(required) or "unknown")
        if store is None:
            action, detail = INCOMPLETE, {"reason": reason}
        else:
            store.record_escalation(case, status="held")
            hold_id = store.hold(case, reason, verifier=case.filter_verifier)
            action, detail = HELD, {"hold_id": hold_id, "reason": reason}
    return Settlement(
        **base,
        kernel_outcome=kernel_outcome,
        basis_complete=bool(decision["basis_complete"]),
        decision_id=str(decision["decision_id"]),
        required_evidence=required,
        settle_action=action,
        settle_detail=detail,
        decision=decision,
        request=derived,
    )
