"""Settling a loop outcome: audit steps, stop kinds and targets, escalation actions, the publish
gate's corpus append, review and hold, and the prospective publish-gate test."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from puzzlekit.app.cli import main
from puzzlekit.app.experiment.publish_gate import check_hypotheses, load_config, run_publish_gate
from puzzlekit.audit.escalation.targets import Dispatcher, EscalationStore, as_checkpoint
from puzzlekit.audit.ledger import Ledger
from puzzlekit.audit.logic import LogicValue
from puzzlekit.audit.stopping import locate_first_error
from puzzlekit.core.report import Verdict, VerifierReport
from puzzlekit.families import get_family
from puzzlekit.generators.adaptive import Adaptive
from puzzlekit.generators.blind import Blind
from puzzlekit.loop.driver import InlineHoldout, LoopBudget, LoopResult, run_loop
from puzzlekit.loop.publish import CorpusPolicy, Provenance
from puzzlekit.loop.settle import (
    audit_steps,
    derive_and_decide,
    hand_filled_fields,
    settle,
)
from puzzlekit.verifiers.registry import get_verifier, registry_verify_fn
from tests.helpers import fake_report

AT = "2026-08-09T09:00:00Z"
ROOT = Path(__file__).resolve().parents[1]


def _schema(size: int = 4):
    return get_family("sudoku").schema({"size": size})


def _loop(filter_name: str = "sat", holdout_name: str | None = "enumerative", seed: int = 1):
    holdout = InlineHoldout(get_verifier(holdout_name)) if holdout_name else None
    filt = get_verifier(filter_name)
    result = run_loop(_schema(), Adaptive(5), filt, holdout, LoopBudget(), seed)
    return result, filt


@pytest.fixture(scope="module")
def accepted() -> LoopResult:
    result, _ = _loop()
    assert result.accepted and result.holdout_report.verdict is Verdict.UNIQUE
    return result


def _report(verdict: Verdict, verifier: str, digest: str) -> VerifierReport:
    return fake_report(verdict, verifier, digest, cap=2)


def _first_stop(steps):
    loc = locate_first_error(steps)
    return (loc.step.step_id, loc.step.verdict) if loc.step is not None else None, loc.kind.value


# --- audit steps: one row per mapping -------------------------------------------------------


@pytest.mark.parametrize(
    "filter_verdict,holdout_verdict,replay_verdict,holdout_name,stop,kind",
    [
        ("UNIQUE", "UNIQUE", "UNIQUE", "enumerative", None, "all-clear"),
        ("INVALID_SPEC", "INVALID_SPEC", "INVALID_SPEC", "enumerative",
         ("instance-valid", LogicValue.ZERO), "zero-void"),
        ("UNIQUE", "UNSOLVABLE", "UNIQUE", "enumerative",
         ("holdout-verdict", LogicValue.FALSE), "false-violation"),
        ("UNIQUE", "MULTIPLE", "UNIQUE", "enumerative",
         ("holdout-verdict", LogicValue.BOTH), "other-nondefinite"),
        ("UNIQUE", "UNDECIDED", "UNIQUE", "enumerative",
         ("holdout-verdict", LogicValue.NEITHER), "neither-halt"),
        ("UNIQUE", "DOMAIN_TOO_LARGE", "UNIQUE", "enumerative",
         ("holdout-verdict", LogicValue.INFINITY), "other-nondefinite"),
        ("MULTIPLE", "MULTIPLE", "MULTIPLE", "enumerative",
         ("filter-verdict", LogicValue.BOTH), "other-nondefinite"),
        ("UNIQUE", "UNIQUE", "MULTIPLE", "enumerative",
         ("replay", LogicValue.FLOWING), "other-nondefinite"),
        ("UNIQUE", "UNIQUE", "UNIQUE", "sat", ("independence", LogicValue.SELF),
         "other-nondefinite"),
    ],
    ids=["clear", "invalid", "refuted", "multiple", "undecided", "too-large", "filter-multiple",
         "flowing", "self"],
)  # fmt: skip
def test_audit_steps_map_each_verdict_to_its_stop(
    accepted, filter_verdict, holdout_verdict, replay_verdict, holdout_name, stop, kind
):
    d = accepted.instance.digest
    result = dataclasses.replace(
        accepted,
        filter_report=_report(Verdict(filter_verdict), "sat", d),
        holdout_report=_report(Verdict(holdout_verdict), holdout_name, d),
    )
    steps = audit_steps(
        result, filter_name="sat", holdout_name=holdout_name, replay_verdict=replay_verdict
    )
    assert [s.step_id for s in steps] == [
        "instance-valid",
        "filter-verdict",
        "holdout-verdict",
        "replay",
        "agreement",
        "independence",
    ]
    assert _first_stop(steps) == (stop, kind)


def test_disagreement_is_both_at_the_agreement_step(accepted):
    steps = audit_steps(
        accepted, filter_name="sat", holdout_name="enumerative", replay_verdict="UNIQUE"
    )
    d = accepted.instance.digest
    odd = dataclasses.replace(accepted, holdout_report=_report(Verdict.MULTIPLE, "enumerative", d))
    agree = {s.step_id: s.verdict for s in audit_steps(odd, filter_name="sat", holdout_name="x")}
    assert agree["agreement"] is LogicValue.BOTH
    assert all(s.verdict is LogicValue.TRUE for s in steps)


def test_no_replay_and_no_holdout_leave_the_question_open(accepted):
    steps = audit_steps(accepted, filter_name="sat", holdout_name="enumerative")
    assert {s.step_id: s.verdict for s in steps}["replay"] is LogicValue.NEITHER
    bare = dataclasses.replace(accepted, holdout_report=None)
    steps = audit_steps(bare, filter_name="sat", holdout_name=None, replay_verdict="UNIQUE")
    assert _first_stop(steps) == (("holdout-verdict", LogicValue.NEITHER), "neither-halt")


def test_an_exhausted_loop_ends_with_neither(accepted):
    result = dataclasses.replace(accepted, status="exhausted", holdout_report=None)
    steps = audit_steps(result, filter_name="sat", holdout_name="enumerative")
    assert steps[-1].step_id == "loop-budget" and steps[-1].verdict is LogicValue.NEITHER
    assert _first_stop(steps) == (("loop-budget", LogicValue.NEITHER), "neither-halt")


# --- settling: escalations ------------------------------------------------------------------


def test_exhausted_loop_is_a_neither_halt_held_in_the_queue(tmp_path):
    filt = get_verifier("sat")
    result = run_loop(_schema(9), Blind(5), filt, None, LoopBudget(max_calls=2), 3)
    assert result.status == "exhausted"
    ledger = Ledger(tmp_path / "l.db")
    s = settle(result, filter=filt, holdout_name="enumerative", ledger=ledger, computed_at=AT)
    assert (s.stop_kind, s.escalation_target, s.settle_action) == (
        "neither-halt",
        "w48-negcap",
        "held",
    )
    holds = EscalationStore(ledger).list_holds("held")
    assert len(holds) == 1 and holds[0].instance_digest == result.instance.digest
    assert holds[0].escalation_id == s.escalation_id
    assert s.ledger_anchor["appended"] and ledger.verify().ok
    assert s.kernel_outcome is None and s.decision_id is None


def test_faulty_filter_rejected_by_holdout_escalates_with_an_anchor_that_verifies(tmp_path):
    for seed in range(20):
        result, filt = _loop("faulty", "enumerative", seed)
        if result.accepted and result.holdout_rejected:
            break
    else:
        pytest.fail("no faulty-filter puzzle was rejected by the holdout in 20 seeds")
    ledger = Ledger(tmp_path / "l.db")
    store = EscalationStore(ledger)
    dispatcher = Dispatcher(store, verify_fn=registry_verify_fn)
    s = settle(
        result,
        filter=filt,
        holdout_name="enumerative",
        ledger=ledger,
        dispatcher=dispatcher,
        computed_at=AT,
    )
    assert s.stop_kind in ("false-violation", "other-nondefinite")
    assert s.escalation_target in ("external-oracle", "peer-review")
    assert s.kernel_outcome is None  # a stop never reaches the kernel
    assert s.ledger_anchor["appended"] is True
    checkpoint = as_checkpoint(s.ledger_anchor)
    assert ledger.verify(checkpoint).ok and ledger.verify().ok
    anchored = ledger.entries(checkpoint.seq, checkpoint.seq + 1)[0].body
    assert anchored["escalation_id"] == s.escalation_id and anchored["type"] == "escalation"
    assert s.settle_action == "re-verified"
    redone = store.list_reverifications(s.escalation_id)
    assert [r.verifier for r in redone] == ["sat"] and redone[0].error is None
    assert [e.status for e in store.list_escalations()] == ["re-verified"]


def test_without_a_store_a_stop_is_only_escalated(accepted):
    d = accepted.instance.digest
    odd = dataclasses.replace(accepted, holdout_report=_report(Verdict.MULTIPLE, "enumerative", d))
    s = settle(odd, filter=get_verifier("sat"), holdout_name="enumerative", computed_at=AT)
    assert (s.stop_kind, s.settle_action, s.ledger_anchor) == (
        "other-nondefinite",
        "escalated",
        None,
    )


# --- settling: the publish gate -------------------------------------------------------------


def test_all_clear_exact_appends_to_the_corpus_with_a_ledger_entry(accepted, tmp_path):
    ledger = Ledger(tmp_path / "l.db")
    corpus = tmp_path / "corpus.jsonl"
    s = settle(
        accepted,
        filter=get_verifier("sat"),
        holdout_name="enumerative",
        ledger=ledger,
        corpus_path=corpus,
        computed_at=AT,
    )
    assert (s.stop_kind, s.escalation_target, s.kernel_outcome, s.settle_action) == (
        "all-clear",
        "none",
        "auto_apply",
        "corpus-append",
    )
    assert s.basis_complete is True and s.ledger_anchor is None
    lines = [json.loads(x) for x in corpus.read_text().splitlines()]
    assert lines == [
        {
            "instance": accepted.instance.to_json_obj(),
            "digest": accepted.instance.digest,
            "decision_id": s.decision_id,
        }
    ]
    body = ledger.entries()[-1].body
    assert body["type"] == "corpus-append" and body["decision_id"] == s.decision_id
    assert body["instance_digest"] == accepted.instance.digest
    assert ledger.verify().ok
    assert json.loads(json.dumps(s.to_json_obj()))["kernelOutcome"] == "auto_apply"


def test_human_required_goes_to_the_review_queue(accepted, tmp_path):
    ledger = Ledger(tmp_path / "l.db")
    s = settle(
        accepted,
        filter=get_verifier("sat"),
        holdout_name="enumerative",
        ledger=ledger,
        corpus_path=tmp_path / "c.jsonl",
        corpus=CorpusPolicy(visibility="public"),
        computed_at=AT,
    )
    assert (s.kernel_outcome, s.settle_action) == ("human_required", "queued-for-review")
    reviews = EscalationStore(ledger).list_reviews("pending")
    assert [r.instance_digest for r in reviews] == [accepted.instance.digest]
    assert "risk" in reviews[0].reason
    assert not (tmp_path / "c.jsonl").exists() and ledger.verify().ok


def test_incomplete_is_held_with_the_evidence_that_would_resolve_it(accepted, tmp_path):
    d = accepted.instance.digest
    sampled = dataclasses.replace(accepted, filter_report=_report(Verdict.UNIQUE, "sampling", d))
    ledger = Ledger(tmp_path / "l.db")
    s = settle(
        sampled, filter=get_verifier("sat"), holdout_name="enumerative", ledger=ledger,
        computed_at=AT,
    )  # fmt: skip
    assert (s.kernel_outcome, s.settle_action, s.basis_complete) == ("incomplete", "held", False)
    assert s.required_evidence
    holds = EscalationStore(ledger).list_holds("held")
    assert len(holds) == 1 and all(m in holds[0].reason for m in s.required_evidence)


# --- the CLI --------------------------------------------------------------------------------


def test_generate_with_ledger_settles_each_loop_and_the_ledger_verifies(capsys, tmp_path):
    base = ["generate", "sudoku", "--params", '{"size": 4}', "--count", "3", "--seed", "5"]
    outs = []
    for run in ("a", "b"):
        extra = ["--ledger", str(tmp_path / f"{run}.db"), "--corpus", str(tmp_path / f"{run}.jl")]
        assert main([*base, *extra]) == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1]  # nothing that varies between runs is in the record
    rows = [json.loads(line) for line in outs[0].splitlines()]
    assert [
        (r["stopKind"], r["escalationTarget"], r["kernelOutcome"], r["settleAction"]) for r in rows
    ] == [("all-clear", "none", "auto_apply", "corpus-append")] * 3
    ledger = Ledger(tmp_path / "a.db", create=False)
    assert ledger.verify().ok and len(ledger) == 3
    corpus = [json.loads(x) for x in (tmp_path / "a.jl").read_text().splitlines()]
    assert [c["digest"] for c in corpus] == [r["instanceDigest"] for r in rows]
    assert main(["ledger", "verify", str(tmp_path / "a.db")]) == 0
    assert capsys.readouterr().out.startswith("ok: 3 entries")
    assert main(base) == 0
    plain = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert "stopKind" not in plain[0] and [p["instanceDigest"] for p in plain] == [
        r["instanceDigest"] for r in rows
    ]


# --- the prospective publish-gate test ------------------------------------------------------


def test_publish_gate_prospective_hypotheses_hold():
    config = load_config(ROOT / "experiments" / "publish_gate.toml")
    config = {
        **config,
        "schemas": [
            {"family": "sudoku", "params": {"size": 4}, "count": 12},
            {"family": "sudoku", "params": {"size": 9}, "count": 4},
        ],
    }
    rows = run_publish_gate(config)
    assert check_hypotheses(rows) == []
    by_arm: dict[str, list] = {}
    for r in rows:
        by_arm.setdefault(r["arm"], []).append(r)
    for r in by_arm["exact"]:
        assert r["accepted"] == r["loops"] and r["gate"] == {"auto_apply": r["accepted"]}
    for arm in ("sampling", "faulty"):
        assert not any(r["gate"].get("auto_apply") for r in by_arm[arm])
        assert not any(r["kernel_alone"].get("auto_apply") for r in by_arm[arm])
    # H2 is not vacuous: the faulty filter's puzzles were rejected by the holdout
    assert sum(r["holdout_rejected"] for r in by_arm["faulty"]) > 0
    assert all(r["hand_filled_fields"] == 0 and r["provenance_records"] for r in rows)


def test_a_hand_filled_field_is_caught(accepted):
    fr, hr, d = accepted.filter_report, accepted.holdout_report, accepted.instance.digest
    derived, _ = derive_and_decide(d, fr, hr, observed_at=AT, computed_at=AT)
    assert hand_filled_fields(derived, d, fr, hr) == []
    typed = Provenance("action.risk.uncertainty", 0.0, ("the requester",), "typed in")
    forged = dataclasses.replace(derived, provenance=(*derived.provenance, typed))
    assert hand_filled_fields(forged, d, fr, hr) == ["action.risk.uncertainty"]
