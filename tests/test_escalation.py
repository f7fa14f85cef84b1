from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from puzzlekit.audit.escalation.targets import (
    DEFAULT_HOLD_SECONDS,
    Action,
    Dispatcher,
    EscalationCase,
    EscalationError,
    EscalationStore,
    ReverifyHandler,
    as_checkpoint,
    instance_digest_of,
    retry_holds,
)
from puzzlekit.audit.ledger import Checkpoint, Ledger
from puzzlekit.audit.logic import LogicValue
from puzzlekit.audit.stopping import ReasoningStep, run_stopping_condition
from puzzlekit.core.model import Clue, Instance

T = LogicValue.TRUE
INSTANCE = Instance.make("latin", {"size": 3}, [Clue.make("r1c1", "given", {"value": 1}, [(0, 0)])])


def report(verdict: str) -> dict[str, Any]:
    """A wire-form report as far as the handlers read it (floats included, as real ones have)."""
    return {"uniquenessVerdict": verdict, "solutionCount": 1, "stats": {"seconds": 0.125}}


class FakeVerify:
    """A verify_fn that answers from a script and records its calls."""

    def __init__(self, *verdicts: str, fail: bool = False) -> None:
        self.verdicts = list(verdicts)
        self.fail = fail
        self.calls: list[tuple[str, str, float | None]] = []

    def __call__(self, instance_json: str, verifier: str, budget: float | None) -> dict:
        self.calls.append((instance_json, verifier, budget))
        if self.fail:
            raise RuntimeError("backend crashed")
        return report(self.verdicts.pop(0) if len(self.verdicts) > 1 else self.verdicts[0])


@pytest.fixture
def store(tmp_path: Path) -> EscalationStore:
    return EscalationStore(tmp_path / "run.sqlite")


def case_for(
    value: LogicValue, *, anchor: Ledger | None = None, target_override: str | None = None, **kw
) -> EscalationCase:
    steps = [
        ReasoningStep("valid", "instance is valid", T, "parsed", "model"),
        ReasoningStep("filter", "filter verdict", value, "filter says so", "enumerative", {"x": 1}),
    ]
    options: dict[str, Any] = {"target_override": target_override}
    if anchor is not None:
        options.update(anchor_to_ledger=True, ledger_anchor_fn=anchor)
    out = run_stopping_condition("seq-1", steps, **options)
    kw.setdefault("filter_verifier", "enumerative")
    return EscalationCase(out.escalation, INSTANCE.to_json(), **kw)


def ledger_types(store: EscalationStore) -> list[str]:
    return [e.body.get("type") for e in store.ledger.entries()]


def test_instance_digest_matches_the_model_digest() -> None:
    assert instance_digest_of(INSTANCE.to_json()) == INSTANCE.digest
    assert case_for(LogicValue.NEITHER).instance_digest == INSTANCE.digest
    assert instance_digest_of("{not json").startswith("sha256:")


# --- each target acts -----------------------------------------------------------------------


def test_hold_puts_the_instance_in_the_hold_queue(store: EscalationStore) -> None:
    case = case_for(LogicValue.NEITHER, budget_seconds=5.0)
    action = Dispatcher(store).dispatch(case)
    assert (action.action, action.status) == ("held", "held")
    (item,) = store.list_holds()
    assert item.hold_id == action.detail["hold_id"]
    assert item.instance_json == INSTANCE.to_json() and item.instance_digest == INSTANCE.digest
    assert "neither-halt" in item.reason and "filter says so" in item.reason
    assert (item.verifier, item.budget_seconds, item.status) == ("enumerative", 5.0, "held")
    assert ledger_types(store) == ["hold"]
    assert store.ledger.entries()[0].body["budget_ms"] == 5000
    (rec,) = store.list_escalations()
    assert rec.status == "held" and rec.target == "w48-negcap"


def test_an_escalation_recorded_with_the_old_target_name_hold_is_still_held(
    store: EscalationStore,
) -> None:
    case = case_for(LogicValue.NEITHER)
    old = dataclasses.replace(case, escalation=dataclasses.replace(case.escalation, target="hold"))
    action = Dispatcher(store).dispatch(old)
    assert action.action == "held" and len(store.list_holds("held")) == 1


def test_as_checkpoint_reads_the_seed_names_and_the_older_ones() -> None:
    h = "sha256:" + "c" * 64
    assert as_checkpoint({"appended": True, "entrySeq": 4, "entryHash": h}) == Checkpoint(4, h)
    assert as_checkpoint({"appended": True, "entry_seq": 4, "entry_hash": h}) == Checkpoint(4, h)
    assert as_checkpoint({"appended": False, "reason": "no-anchor-fn"}) is None


def test_external_oracle_reverifies_with_another_backend(store: EscalationStore) -> None:
    fake = FakeVerify("UNSOLVABLE")
    action = Dispatcher(store, verify_fn=fake).dispatch(case_for(LogicValue.FALSE))
    assert [c[1] for c in fake.calls] == ["sat"]
    assert fake.calls[0][0] == INSTANCE.to_json()
    assert (action.action, action.status) == ("re-verified", "re-verified")
    assert action.detail["confirms_step"] is True
    (rv,) = store.list_reverifications(action.escalation_id)
    assert (rv.verifier, rv.verdict, rv.value) == ("sat", "UNSOLVABLE", "FALSE")
    assert rv.report == report("UNSOLVABLE")
    (entry,) = store.ledger.entries()
    assert entry.body["type"] == "reverification" and entry.body["verdict"] == "UNSOLVABLE"
    assert entry.body["report_digest"].startswith("sha256:")


def test_external_oracle_records_a_contradiction(store: EscalationStore) -> None:
    fake = FakeVerify("UNIQUE")
    action = Dispatcher(store, verify_fn=fake).dispatch(case_for(LogicValue.FALSE))
    assert action.detail["confirms_step"] is False
    assert action.detail["results"][0]["value"] == "TRUE"


def test_peer_review_asks_every_other_backend(store: EscalationStore) -> None:
    fake = FakeVerify("MULTIPLE")
    dispatcher = Dispatcher(store, verify_fn=fake, backends=("sat", "enumerative", "gametree"))
    case = case_for(LogicValue.BOTH, holdout_verifier="sat")
    action = dispatcher.dispatch(case)
    assert [c[1] for c in fake.calls] == ["gametree"]
    assert action.detail["peers_agree"] is True
    fake.calls.clear()
    dispatcher.dispatch(case_for(LogicValue.SELF, holdout_verifier="enumerative"))
    assert [c[1] for c in fake.calls] == ["sat", "gametree"]


def test_reverify_falls_back_to_the_filter_exclusion_when_holdout_leaves_nothing() -> None:
    handler = ReverifyHandler(None, ("sat", "enumerative"), panel=True)
    case = case_for(LogicValue.BOTH, holdout_verifier="sat")
    assert handler.others(case) == ["sat"]


def test_reverification_without_verify_fn_goes_on_hold(store: EscalationStore) -> None:
    action = Dispatcher(store).dispatch(case_for(LogicValue.FALSE))
    assert (action.action, action.detail["fallback"]) == ("held", "no verify_fn")
    assert len(store.list_holds("held")) == 1


def test_a_failing_backend_is_recorded_and_the_case_held(store: EscalationStore) -> None:
    action = Dispatcher(store, verify_fn=FakeVerify(fail=True)).dispatch(
        case_for(LogicValue.INFINITY)
    )
    assert action.action == "held" and "failed" in action.detail["fallback"]
    (rv,) = store.list_reverifications()
    assert rv.verdict is None and "backend crashed" in rv.error
    assert ledger_types(store) == ["reverification", "hold"]


def test_a_malformed_report_counts_as_a_failure(store: EscalationStore) -> None:
    action = Dispatcher(store, verify_fn=lambda *a: {"verdict": "UNIQUE"}).dispatch(
        case_for(LogicValue.FALSE)
    )
    assert action.action == "held"
    assert "wire form" in store.list_reverifications()[0].error


def test_human_puts_the_case_in_the_review_queue(store: EscalationStore) -> None:
    action = Dispatcher(store).dispatch(case_for(LogicValue.ZERO))
    assert (action.action, action.status) == ("queued-for-review", "pending")
    (item,) = store.list_reviews("pending")
    assert item.review_id == action.detail["review_id"]
    assert item.instance_digest == INSTANCE.digest and "zero-void" in item.reason
    assert item.payload["escalation_id"] == action.escalation_id
    assert item.payload["boundary"]["step"]["payload"] == {"x": 1}


def test_all_clear_needs_no_action(store: EscalationStore) -> None:
    action = Dispatcher(store).dispatch(case_for(T))
    assert (action.target, action.action, action.status) == ("none", "none", "closed")
    assert store.list_holds() == [] and store.list_reviews() == []


EXPECTED = {
    LogicValue.TRUE: "none",
    LogicValue.NEITHER: "held",
    LogicValue.FALSE: "re-verified",
    LogicValue.ZERO: "queued-for-review",
    LogicValue.BOTH: "re-verified",
    LogicValue.INFINITY: "re-verified",
    LogicValue.FLOWING: "re-verified",
    LogicValue.SELF: "re-verified",
}


@pytest.mark.parametrize("value", list(LogicValue))
def test_every_verdict_is_acted_on_by_its_target(store: EscalationStore, value: LogicValue) -> None:
    action = Dispatcher(store, verify_fn=FakeVerify("UNIQUE")).dispatch(
        case_for(value, anchor=store.ledger)
    )
    assert action.action == EXPECTED[value]
    assert store.ledger.verify().ok
    if value is not T:  # the escalation itself was anchored first, then the action
        assert ledger_types(store)[0] == "escalation"
        assert len(ledger_types(store)) >= 2


# --- pluggable handlers and failing closed --------------------------------------------------


def test_handlers_are_pluggable_by_target_name(store: EscalationStore) -> None:
    seen: list[str] = []

    def lawyer(case: EscalationCase, s: EscalationStore) -> Action:
        seen.append(case.instance_digest)
        return Action(case.escalation.escalation_id, case.target, "filed", "filed")

    dispatcher = Dispatcher(store, {"lawyer": lawyer})
    action = dispatcher.dispatch(case_for(LogicValue.FALSE, target_override="lawyer"))
    assert action.action == "filed" and seen == [INSTANCE.digest]
    assert store.list_escalations("filed")[0].target == "lawyer"
    dispatcher.register("hold", lawyer)
    assert dispatcher.dispatch(case_for(LogicValue.NEITHER)).action == "filed"


def test_a_target_without_handler_goes_to_human_review(store: EscalationStore) -> None:
    action = Dispatcher(store).dispatch(case_for(LogicValue.FALSE, target_override="nobody"))
    assert action.action == "queued-for-review" and "no handler" in action.detail["fallback"]
    assert "nobody" in store.list_reviews()[0].reason


def test_a_raising_handler_goes_to_human_review(store: EscalationStore) -> None:
    def broken(case: EscalationCase, s: EscalationStore) -> Action:
        raise RuntimeError("bug in handler")

    action = Dispatcher(store, {"hold": broken}).dispatch(case_for(LogicValue.NEITHER))
    assert action.status == "pending" and "bug in handler" in action.detail["fallback"]


def test_a_queue_row_and_its_ledger_entry_commit_together(
    store: EscalationStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(tx: sqlite3.Connection, body: Mapping[str, Any]) -> tuple[int, str]:
        raise OSError("ledger unavailable")

    monkeypatch.setattr(store.ledger, "append_in", fail)
    with pytest.raises(OSError):
        store.hold(case_for(LogicValue.NEITHER), "reason")
    monkeypatch.undo()
    assert store.list_holds() == [] and len(store.ledger) == 0


# --- review decisions -----------------------------------------------------------------------


def test_review_accept_and_reject_settle_with_a_note(store: EscalationStore) -> None:
    d = Dispatcher(store)
    a = d.dispatch(case_for(LogicValue.ZERO)).detail["review_id"]
    b = d.dispatch(case_for(LogicValue.ZERO)).detail["review_id"]
    accepted = store.settle_review(a, "accept", "spec fixed upstream; puzzle is fine")
    rejected = store.settle_review(b, "reject", "clue out of grid")
    assert (accepted.status, accepted.note) == ("accepted", "spec fixed upstream; puzzle is fine")
    assert rejected.status == "rejected" and rejected.settled_at
    assert [r.review_id for r in store.list_reviews("pending")] == []
    settled = [e.body for e in store.ledger.entries() if e.body["type"] == "review-settled"]
    assert [(s["review_id"], s["decision"]) for s in settled] == [(a, "accepted"), (b, "rejected")]
    assert {r.status for r in store.list_escalations()} == {"accepted", "rejected"}


def test_review_refuses_double_settling_empty_notes_and_unknown_ids(
    store: EscalationStore,
) -> None:
    rid = Dispatcher(store).dispatch(case_for(LogicValue.ZERO)).detail["review_id"]
    with pytest.raises(EscalationError, match="note"):
        store.settle_review(rid, "accept", "  ")
    with pytest.raises(EscalationError, match="accept or reject"):
        store.settle_review(rid, "maybe", "x")
    store.settle_review(rid, "reject", "no")
    with pytest.raises(EscalationError, match="already rejected"):
        store.settle_review(rid, "accept", "changed my mind")
    with pytest.raises(EscalationError, match="no review"):
        store.settle_review(999, "accept", "x")


# --- retrying holds -------------------------------------------------------------------------


def test_retry_raises_the_budget_until_a_verdict_releases_the_hold(store: EscalationStore) -> None:
    Dispatcher(store).dispatch(case_for(LogicValue.NEITHER, budget_seconds=5.0))
    fake = FakeVerify("UNDECIDED", "UNIQUE")
    (first,) = retry_holds(store, fake)
    assert (first.budget_seconds, first.verdict, first.released) == (10.0, "UNDECIDED", False)
    (item,) = store.list_holds("held")
    assert (item.attempts, item.budget_seconds) == (1, 10.0)
    (second,) = retry_holds(store, fake, factor=3.0)
    assert (second.budget_seconds, second.verdict, second.released) == (30.0, "UNIQUE", True)
    assert [c[2] for c in fake.calls] == [10.0, 30.0]
    assert [c[1] for c in fake.calls] == ["enumerative", "enumerative"]
    assert store.list_holds("held") == []
    (released,) = store.list_holds("released")
    assert (released.verdict, released.attempts) == ("UNIQUE", 2)
    assert store.list_escalations()[0].status == "released"
    expected = ["hold", "reverification", "hold-retry", "reverification", "hold-release"]
    assert ledger_types(store) == expected
    assert retry_holds(store, fake) == []


def test_retry_without_a_known_budget_starts_from_the_default(store: EscalationStore) -> None:
    Dispatcher(store).dispatch(case_for(LogicValue.NEITHER, filter_verifier=None))
    fake = FakeVerify("UNSOLVABLE")
    (result,) = retry_holds(store, fake, default_verifier="sat")
    assert result.budget_seconds == DEFAULT_HOLD_SECONDS * 2 and result.verifier == "sat"
    assert result.released


def test_retry_keeps_the_hold_when_the_backend_fails(store: EscalationStore) -> None:
    Dispatcher(store).dispatch(case_for(LogicValue.NEITHER))
    (result,) = retry_holds(store, FakeVerify(fail=True), budget_seconds=7.0, verifier="sat")
    assert not result.released and "crashed" in result.error
    assert store.list_holds("held")[0].attempts == 1


def test_retry_of_selected_holds_and_unknown_ids(store: EscalationStore) -> None:
    d = Dispatcher(store)
    h1 = d.dispatch(case_for(LogicValue.NEITHER)).detail["hold_id"]
    d.dispatch(case_for(LogicValue.NEITHER))
    fake = FakeVerify("UNIQUE")
    assert [r.hold_id for r in retry_holds(store, fake, hold_ids=[h1])] == [h1]
    assert len(store.list_holds("held")) == 1
    with pytest.raises(EscalationError, match="no open hold"):
        retry_holds(store, fake, hold_ids=[h1])


# --- the store ------------------------------------------------------------------------------


def test_queues_live_in_the_same_database_as_the_ledger(tmp_path: Path) -> None:
    path = tmp_path / "run.sqlite"
    store = EscalationStore(path)
    Dispatcher(store).dispatch(case_for(LogicValue.NEITHER))
    tables = {r[0] for r in sqlite3.connect(path).execute("SELECT name FROM sqlite_master")}
    assert {"ledger_entries", "hold_queue", "review_queue", "reverifications"} <= tables
    reopened = EscalationStore(path, create=False)
    assert len(reopened.list_holds()) == 1 and reopened.ledger.verify().ok


def test_opening_a_bare_ledger_without_create_is_refused(tmp_path: Path) -> None:
    Ledger(tmp_path / "l.sqlite").append({"a": 1})
    with pytest.raises(EscalationError, match="no escalation queues"):
        EscalationStore(tmp_path / "l.sqlite", create=False)


def test_store_timestamps_come_from_the_injected_clock(tmp_path: Path) -> None:
    moment = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)
    clock: Callable[[], datetime] = lambda: moment  # noqa: E731
    store = EscalationStore(tmp_path / "c.sqlite", clock=clock)
    store.hold(case_for(LogicValue.NEITHER), "r")
    assert store.list_holds()[0].created_at == moment.isoformat()
    assert store.ledger.entries()[0].body["at"] == moment.isoformat()


def test_an_anchored_escalation_names_a_checkpoint(store: EscalationStore) -> None:
    case = case_for(LogicValue.FALSE, anchor=store.ledger)
    cp = as_checkpoint(case.escalation.ledger_anchor)
    assert cp is not None and store.ledger.verify(cp).ok
    assert json.loads(json.dumps(case.escalation.to_json_obj()))["ledger_anchor"]["appended"]
    assert as_checkpoint({"appended": False, "reason": "no-anchor-fn"}) is None
