"""Settling one loop outcome: audit it, stop or clear it, escalate or decide, and act.

This is the top floor of the flow (DESIGN §1, §7-§9). One :class:`~puzzlekit.loop.driver.LoopResult`
goes in; one :class:`Settlement` comes out, after these stages:

1. :func:`audit_steps` turns the loop's reports into eight-valued audit steps: the instance is
   valid (ZERO on INVALID_SPEC), the filter's verdict, the holdout's verdict, a replay of the
   filter on the same digest gives the same verdict (FLOWING if not), filter and holdout agree
   (BOTH if not), and the holdout is another backend than the filter (SELF if not). A loop that
   spent its budget ends its sequence with NEITHER: the question is still open.
2. :func:`puzzlekit.audit.stopping.run_stopping_condition` locates the first step that is not TRUE
and
   names its target, anchored in the ledger when one is given.
3. A stop other than all-clear is dispatched through :class:`puzzlekit.audit.escalation.Dispatcher`
   (hold queue, re-verification by another backend, review queue).
4. An all-clear is judged by the review kernel: the ``rbk.request.v1`` is derived only from the
   filter and holdout reports and the corpus policy (:func:`puzzlekit.loop.publish.derive_request`),
   decided under the default puzzle policy, and acted on: ``auto_apply`` appends the puzzle to
   the corpus (a JSON Lines file) together with a ledger entry; ``human_required`` puts it into
   the review queue; ``incomplete`` holds it with the evidence that would resolve it.

Part 7 of the publish-gate work lives here too: :func:`run_publish_gate` runs the prospective
experiment of ``experiments/publish_gate.toml`` (``python -m puzzlekit.loop.settle CONFIG``).

Not for: running the loop (:mod:`puzzlekit.loop.driver`), choosing where a stop goes
(:mod:`puzzlekit.audit.stopping`) or how a decision is made (:mod:`puzzlekit.audit.kernel`). The
pure parts
(:func:`audit_steps`, :func:`derive_and_decide`) take their times as arguments; only
:func:`settle` touches files, and it reads the clock only when no time is passed in.
"""

from __future__ import annotations

import json
import os
import sys
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from puzzlekit.audit.escalation import Action, Dispatcher, EscalationCase, EscalationStore
from puzzlekit.audit.kernel import decide, parse_datetime
from puzzlekit.audit.ledger import Ledger
from puzzlekit.audit.logic import LogicValue, agreement, from_verdict, independence, replay
from puzzlekit.audit.stopping import (
    ReasoningStep,
    StopKind,
    StoppingOutcome,
    run_stopping_condition,
)
from puzzlekit.core.clock import FROZEN_AT, frozen_clock
from puzzlekit.core.report import Verdict, VerifierReport
from puzzlekit.loop.driver import LoopBudget, LoopResult, guarded_verify
from puzzlekit.loop.publish import DEFAULT_CORPUS, CorpusPolicy, DerivedRequest, default_policy
from puzzlekit.loop.publish import derive_request as _derive_request

#: Action words of a :class:`Settlement` (``escalated`` and the queue words come from the
#: dispatcher's handlers when a store is given).
CORPUS_APPEND = "corpus-append"
PUBLISHABLE = "publishable"  # auto_apply, but no corpus file was given
QUEUED_FOR_REVIEW = "queued-for-review"
REVIEW_NEEDED = "review-needed"  # human_required, but no store to queue it in
HELD = "held"
INCOMPLETE = "incomplete"  # incomplete, but no store to hold it in
ESCALATED = "escalated"  # a stop with no store to dispatch it to


# --- 1. audit steps -------------------------------------------------------------------------


def _step(
    step_id: str, claim: str, value: LogicValue, reason: str, source: str, /, **payload: Any
) -> ReasoningStep:
    return ReasoningStep(step_id, claim, value, reason, source, payload or None)


def _src(report: VerifierReport | None, fallback: str) -> str:
    if report is None:
        return fallback
    return f"{report.source.get('verifier', fallback)} {report.source.get('version', '?')}"


def audit_steps(
    result: LoopResult,
    *,
    filter_name: str,
    holdout_name: str | None,
    replay_verdict: Verdict | str | None = None,
) -> list[ReasoningStep]:
    """The audit sequence of one loop outcome (see the module docstring).

    ``replay_verdict`` is the filter's verdict when it re-verified the accepted instance once;
    without it the replay step is NEITHER (the question whether the verdict is stable is open).
    An accepted loop without a holdout gets a NEITHER holdout step, for the same reason.
    """
    fr, hr = result.filter_report, result.holdout_report
    digest = result.instance.digest if result.instance is not None else None
    invalid = [r for r in (fr, hr) if r is not None and r.verdict is Verdict.INVALID_SPEC]
    steps = [
        _step(
            "instance-valid",
            "the instance is a well-formed puzzle of its schema",
            LogicValue.ZERO if invalid else LogicValue.TRUE,
            "INVALID_SPEC from " + _src(invalid[0], filter_name)
            if invalid
            else "no verifier reported INVALID_SPEC",
            _src(invalid[0] if invalid else fr, filter_name),
            instance_digest=digest,
        )
    ]
    if not result.accepted:
        last = fr.verdict.value if fr is not None else None
        steps.append(
            _step(
                "loop-budget",
                "the loop found a puzzle its filter accepts within the budget",
                LogicValue.NEITHER,
                f"budget spent after {result.filter_calls} filter calls; last verdict {last}",
                f"loop {result.strategy} seed {result.seed}",
                filter_calls=result.filter_calls,
                last_verdict=last,
            )
        )
        return steps
    assert fr is not None
    steps.append(
        _step(
            "filter-verdict",
            "the filter proves the puzzle has exactly one solution",
            from_verdict(fr.verdict),
            f"filter verdict {fr.verdict.value}",
            _src(fr, filter_name),
            verdict=fr.verdict.value,
        )
    )
    if hr is None:
        steps.append(
            _step(
                "holdout-verdict",
                "an isolated holdout proves the puzzle has exactly one solution",
                LogicValue.NEITHER,
                "no holdout ran",
                "none",
            )
        )
    else:
        steps.append(
            _step(
                "holdout-verdict",
                "an isolated holdout proves the puzzle has exactly one solution",
                from_verdict(hr.verdict),
                f"holdout verdict {hr.verdict.value}",
                _src(hr, holdout_name or "holdout"),
                verdict=hr.verdict.value,
            )
        )
    if replay_verdict is None:
        rv, why = LogicValue.NEITHER, "the filter was not replayed"
    else:
        rv = replay([fr.verdict, replay_verdict])
        why = f"first {fr.verdict.value}, replay {Verdict(replay_verdict).value}"
    steps.append(
        _step(
            "replay",
            "verifying the same digest again gives the same verdict",
            rv,
            why,
            _src(fr, filter_name),
            replay_verdict=None if replay_verdict is None else Verdict(replay_verdict).value,
        )
    )
    if hr is not None:
        steps.append(
            _step(
                "agreement",
                "filter and holdout reach the same verdict",
                agreement(fr.verdict, hr.verdict),
                f"filter {fr.verdict.value}, holdout {hr.verdict.value}",
                f"{filter_name} and {holdout_name}",
            )
        )
        steps.append(
            _step(
                "independence",
                "the holdout is another backend than the filter",
                independence(filter_name, holdout_name or ""),
                f"filter {filter_name}, holdout {holdout_name}",
                f"{filter_name} and {holdout_name}",
            )
        )
    return steps


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
) -> tuple[DerivedRequest, dict[str, Any]]:
    """The derived request and the kernel's decision for publishing one instance. Pure."""
    derived = _derive_request(
        instance_digest, filter_report, holdout_report, observed_at=observed_at, corpus=corpus
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
    """How one loop outcome was settled: the stop, its target and anchor, the kernel's outcome
    and what was done. ``stable_json_obj`` leaves out ids and times that vary between runs."""

    sequence_id: str
    status: str
    instance_digest: str | None
    stop_kind: str | None
    target: str | None
    anchor: Mapping[str, Any] | None
    summary: str
    steps: tuple[ReasoningStep, ...]
    escalation_id: str | None
    kernel_outcome: str | None
    basis_complete: bool | None
    decision_id: str | None
    required_evidence: tuple[str, ...]
    action: str
    action_detail: Mapping[str, Any] = field(default_factory=dict)
    decision: Mapping[str, Any] | None = None
    request: DerivedRequest | None = None

    @property
    def all_clear(self) -> bool:
        return self.stop_kind == StopKind.ALL_CLEAR.value

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "sequenceId": self.sequence_id,
            "status": self.status,
            "instanceDigest": self.instance_digest,
            "stoppingKind": self.stop_kind,
            "escalationTarget": self.target,
            "ledgerAnchor": dict(self.anchor) if self.anchor is not None else None,
            "summary": self.summary,
            "steps": [s.to_json_obj() for s in self.steps],
            "escalationId": self.escalation_id,
            "kernelOutcome": self.kernel_outcome,
            "basisComplete": self.basis_complete,
            "decisionId": self.decision_id,
            "requiredEvidence": list(self.required_evidence),
            "action": self.action,
            "actionDetail": dict(self.action_detail),
        }

    def record_fields(self) -> dict[str, Any]:
        """The fields a ``puzzlekit generate`` record gains: deterministic for one seed."""
        return {
            "stoppingKind": self.stop_kind,
            "escalationTarget": self.target,
            "kernelOutcome": self.kernel_outcome,
            "action": self.action,
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

    ``filter`` is the loop's filter verifier: it replays the accepted instance once, and its
    ``name`` identifies the filter backend. ``ledger`` anchors escalations and records corpus
    appends; ``store`` (default: one on ``ledger``) holds the queues; ``dispatcher`` (default:
    one on ``store`` that re-verifies through the verifier registry) runs escalation targets.
    Without a store a stop is recorded as ``escalated`` and a review or hold as needed but not
    queued. ``computed_at`` (RFC 3339, default: now) is when the kernel decides and escalations
    are emitted; ``observed_at`` (default: ``computed_at``) is when the evidence was gathered.
    """
    computed_at = computed_at or _now_iso()
    observed_at = observed_at or computed_at
    if parse_datetime(computed_at) is None or parse_datetime(observed_at) is None:
        raise ValueError(f"computed_at {computed_at!r} / observed_at {observed_at!r}: not RFC 3339")
    filter_name = str(getattr(filter, "name", "filter"))
    inst = result.instance
    digest = inst.digest if inst is not None else None
    seq_id = sequence_id or f"loop:{result.strategy}:{result.seed}:{digest}"

    replay_verdict = None
    if result.accepted and inst is not None:
        again, _ = guarded_verify(filter, inst, solution_cap)
        # a replay that changed its input carries no verdict; the step stays open (NEITHER)
        replay_verdict = again.verdict if again is not None else None
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
        target=esc.target,
        anchor=esc.ledger_anchor,
        summary=outcome.summary,
        steps=tuple(steps),
        escalation_id=esc.escalation_id,
    )

    if not outcome.all_clear:
        if store is None:
            return Settlement(
                **base,
                kernel_outcome=None,
                basis_complete=None,
                decision_id=None,
                required_evidence=(),
                action=ESCALATED,
                action_detail={"reason": "no escalation store to dispatch to"},
            )
        if dispatcher is None:
            from puzzlekit.verifiers.registry import registry_verify_fn

            dispatcher = Dispatcher(store, verify_fn=registry_verify_fn)
        act: Action = dispatcher.dispatch(case)
        return Settlement(
            **base,
            kernel_outcome=None,
            basis_complete=None,
            decision_id=None,
            required_evidence=(),
            action=act.action,
            action_detail=act.to_json_obj(),
        )

    fr, hr = result.filter_report, result.holdout_report
    assert fr is not None and hr is not None and digest is not None
    derived, decision = derive_and_decide(
        digest,
        fr,
        hr,
        observed_at=observed_at,
        computed_at=computed_at,
        policy=policy,
        corpus=corpus,
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
            computed_at=computed_at,
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
            hold_id = store.hold(case, reason, verifier=filter_name)
            action, detail = HELD, {"hold_id": hold_id, "reason": reason}
    return Settlement(
        **base,
        kernel_outcome=kernel_outcome,
        basis_complete=bool(decision["basis_complete"]),
        decision_id=str(decision["decision_id"]),
        required_evidence=required,
        action=action,
        action_detail=detail,
        decision=decision,
        request=derived,
    )


# --- 4. the prospective publish-gate experiment ---------------------------------------------

#: When the experiment's evidence is dated: fixed, so that the figures are reproducible.
EXPERIMENT_AT = FROZEN_AT


def load_config(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The ``[publish_gate]`` table of a TOML experiment config, with its arms and schemas."""
    with open(path, "rb") as fh:
        doc = tomllib.load(fh)
    cfg = doc.get("publish_gate")
    if not isinstance(cfg, dict) or not cfg.get("arms") or not cfg.get("schemas"):
        raise ValueError(f"{path}: needs [publish_gate] with [[publish_gate.arms]] and schemas")
    return cfg


def run_arm(
    family_name: str,
    params: Mapping[str, Any],
    count: int,
    *,
    filter_name: str,
    holdout_name: str,
    strategy: str = "adaptive",
    seed: int = 0,
    max_calls: int = 200,
    at: str = EXPERIMENT_AT,
) -> dict[str, Any]:
    """Generate up to ``count`` puzzles with one filter/holdout pair and count the gate's
    outcomes. The kernel is also run on every accepted puzzle whatever its stop ("kernel
    alone"), so that a gate that relied only on the stopping condition would show."""
    from puzzlekit.families import get_family
    from puzzlekit.generators import STRATEGIES
    from puzzlekit.loop.batch import default_clues, loop_seed
    from puzzlekit.loop.driver import InlineHoldout, run_loop
    from puzzlekit.verifiers.registry import get_verifier

    schema = get_family(family_name).schema(dict(params))
    strat = STRATEGIES.get(strategy)(default_clues(len(schema.variables)))
    filt = get_verifier(filter_name)
    holdout = InlineHoldout(get_verifier(holdout_name))
    counts: dict[str, Any] = {
        "loops": 0,
        "accepted": 0,
        "holdout_rejected": 0,
        "stop": {},
        "gate": {},
        "kernel_alone": {},
        "auto_apply_of_holdout_rejected": 0,
        "hand_filled_fields": 0,
        "provenance_records": 0,
    }
    for index in range(count):
        result = run_loop(
            schema, strat, filt, holdout, LoopBudget(max_calls=max_calls), loop_seed(seed, index)
        )
        counts["loops"] += 1
        s = settle(result, filter=filt, holdout_name=holdout_name, computed_at=at)
        counts["stop"][s.stop_kind] = counts["stop"].get(s.stop_kind, 0) + 1
        gate = s.kernel_outcome or f"escalated:{s.target}"
        counts["gate"][gate] = counts["gate"].get(gate, 0) + 1
        if not result.accepted:
            continue
        counts["accepted"] += 1
        counts["holdout_rejected"] += int(result.holdout_rejected)
        assert result.instance is not None and result.filter_report and result.holdout_report
        derived, decision = derive_and_decide(
            result.instance.digest,
            result.filter_report,
            result.holdout_report,
            observed_at=at,
            computed_at=at,
        )
        alone = str(decision["outcome"])
        counts["kernel_alone"][alone] = counts["kernel_alone"].get(alone, 0) + 1
        if result.holdout_rejected and "auto_apply" in (alone, s.kernel_outcome):
            counts["auto_apply_of_holdout_rejected"] += 1
        counts["provenance_records"] += len(derived.provenance)
        counts["hand_filled_fields"] += len(
            hand_filled_fields(
                derived, result.instance.digest, result.filter_report, result.holdout_report
            )
        )
    return counts


def run_publish_gate(config: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per (arm, schema) of a ``[publish_gate]`` config, with its counts."""
    rows = []
    seed = int(config.get("seed", 0))
    for arm in config["arms"]:
        for sch in config["schemas"]:
            counts = run_arm(
                sch["family"],
                sch.get("params", {}),
                int(sch.get("count", 12)),
                filter_name=arm["filter"],
                holdout_name=arm["holdout"],
                strategy=arm.get("strategy", config.get("strategy", "adaptive")),
                seed=seed,
                max_calls=int(config.get("max_calls", 200)),
            )
            rows.append(
                {
                    "arm": arm["name"],
                    "filter": arm["filter"],
                    "holdout": arm["holdout"],
                    "family": sch["family"],
                    "params": dict(sch.get("params", {})),
                    **counts,
                }
            )
    return rows


def check_hypotheses(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """The pre-registered claims that fail, in words; empty when all hold.

    H1: with an exact filter and an exact, independent holdout every accepted puzzle is
    auto_apply. H2: no puzzle the holdout rejected is ever auto_apply, and an inexact filter's
    puzzles are never auto_apply. H3: no request field is filled by hand.
    """
    failed = []
    exact = {"sat", "enumerative"}
    for r in rows:
        where = f"{r['arm']} {r['family']} {r['params']}"
        both_exact = r["filter"] in exact and r["holdout"] in exact
        if both_exact and r["filter"] != r["holdout"]:
            if r["gate"].get("auto_apply", 0) != r["accepted"]:
                failed.append(f"H1 {where}: {r['gate']} for {r['accepted']} accepted")
        if r["auto_apply_of_holdout_rejected"]:
            failed.append(f"H2 {where}: {r['auto_apply_of_holdout_rejected']} rejected, auto")
        if r["filter"] not in exact and (
            r["gate"].get("auto_apply") or r["kernel_alone"].get("auto_apply")
        ):
            failed.append(f"H2 {where}: an inexact filter's puzzle was auto_apply")
        if r["hand_filled_fields"]:
            failed.append(f"H3 {where}: {r['hand_filled_fields']} hand-filled fields")
    return failed


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m puzzlekit.loop.settle CONFIG``: run the publish-gate experiment, print JSON."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m puzzlekit.loop.settle CONFIG.toml", file=sys.stderr)
        return 2
    rows = run_publish_gate(load_config(args[0]))
    failed = check_hypotheses(rows)
    for row in rows:
        print(json.dumps(row, sort_keys=True))
    print(json.dumps({"hypotheses_failed": failed}))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
