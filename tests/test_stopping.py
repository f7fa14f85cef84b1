from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzlekit.audit.logic import LogicValue
from puzzlekit.audit.stopping import (
    DEFAULT_TARGET,
    INVALID_INPUT,
    ReasoningStep,
    StopKind,
    boundary_report,
    escalate,
    locate_all_errors,
    locate_first_error,
    run_stopping_condition,
)

T, F = LogicValue.TRUE, LogicValue.FALSE


def step(i: int | str, verdict: LogicValue | str, payload: object = None, **kw) -> ReasoningStep:
    return ReasoningStep(f"s{i}", f"claim {i}", verdict, f"reason {i}", "test", payload, **kw)


def seq(*verdicts: LogicValue | str) -> list[ReasoningStep]:
    return [step(i, v) for i, v in enumerate(verdicts)]


class Recorder:
    """An anchor function that records what it was given and answers like a ledger."""

    def __init__(self) -> None:
        self.bodies: list[dict] = []

    def __call__(self, body: dict) -> tuple[int, str]:
        self.bodies.append(body)
        return len(self.bodies), "sha256:" + f"{len(self.bodies):064x}"


# --- L: locate_first_error ------------------------------------------------------------------


@pytest.mark.parametrize(
    "steps", [[], (), None, "TRUE", 42, [object()], [step(0, T), {"verdict": "TRUE"}]]
)
def test_L1_empty_or_not_a_sequence_is_invalid_input(steps: object) -> None:
    loc = locate_first_error(steps)  # type: ignore[arg-type]
    assert loc.error == INVALID_INPUT
    assert loc.kind is None and loc.step is None


def test_L1_a_bad_nested_step_is_invalid_input_with_its_path() -> None:
    bad = step(0, T, substeps=(step("a", T), "oops"))  # type: ignore[arg-type]
    loc = locate_first_error([bad])
    assert loc.error == INVALID_INPUT
    assert "steps[0].substeps[1]" in loc.detail


def test_L2_all_true_is_all_clear() -> None:
    loc = locate_first_error(seq(T, T, T))
    assert loc.kind is StopKind.ALL_CLEAR and loc.error is None
    assert loc.index == 3 and loc.success_count == 3 and loc.step is None
    assert loc.last_true_claim == "claim 2"


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        (LogicValue.NEITHER, StopKind.NEITHER_HALT),  # L3
        (LogicValue.FALSE, StopKind.FALSE_VIOLATION),  # L4
        (LogicValue.ZERO, StopKind.ZERO_VOID),  # L5
        (LogicValue.BOTH, StopKind.OTHER_NONDEFINITE),  # L6
        (LogicValue.INFINITY, StopKind.OTHER_NONDEFINITE),  # L6
        (LogicValue.FLOWING, StopKind.OTHER_NONDEFINITE),  # L6
        (LogicValue.SELF, StopKind.OTHER_NONDEFINITE),  # L6
    ],
)
def test_L3_to_L6_first_non_true_step_sets_the_kind(value: LogicValue, kind: StopKind) -> None:
    steps = seq(T, T, value, F, LogicValue.ZERO)
    loc = locate_first_error(steps)
    assert loc.kind is kind
    assert loc.index == 2 and loc.path == (2,)
    assert loc.step is steps[2]
    assert loc.success_count == 2
    assert loc.last_true_claim == "claim 1"


def test_location_counts_every_verdict_of_the_whole_sequence() -> None:
    loc = locate_first_error(seq(T, "NEITHER", F, F, "SELF"))
    assert loc.verdict_counts["TRUE"] == 1
    assert loc.verdict_counts["FALSE"] == 2
    assert loc.verdict_counts["NEITHER"] == 1
    assert loc.verdict_counts["SELF"] == 1
    assert sum(loc.verdict_counts.values()) == 5


def test_a_stop_at_the_first_step_has_no_last_true_claim() -> None:
    loc = locate_first_error(seq(F, T))
    assert loc.index == 0 and loc.success_count == 0 and loc.last_true_claim is None


def test_string_verdicts_are_read_and_unknown_ones_refused() -> None:
    assert step(0, "ZERO").verdict is LogicValue.ZERO
    with pytest.raises(ValueError):
        step(0, "MAYBE")


# --- B: boundary_report ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "target"),
    [
        (None, "none"),  # B1
        (LogicValue.NEITHER, "w48-negcap"),  # B2
        (LogicValue.FALSE, "external-oracle"),  # B3
        (LogicValue.ZERO, "human"),  # B4
        (LogicValue.BOTH, "peer-review"),  # B5
    ],
)
def test_B1_to_B5_each_kind_gets_its_target(value: LogicValue | None, target: str) -> None:
    steps = seq(T, T) if value is None else seq(T, value, T)
    b = boundary_report(locate_first_error(steps))
    assert b.target == target
    assert b.last_true_claim == ("claim 1" if value is None else "claim 0")
    assert b.honest_scope and "." in b.honest_scope


def test_boundary_honest_scope_names_the_stopping_step() -> None:
    b = boundary_report(locate_first_error(seq(T, "FLOWING")))
    assert "'s1'" in b.honest_scope and "FLOWING" in b.honest_scope


def test_boundary_of_invalid_input_is_refused() -> None:
    with pytest.raises(ValueError, match="invalid-input"):
        boundary_report(locate_first_error([]))


# --- E: escalate ----------------------------------------------------------------------------


def test_E1_all_clear_is_not_anchored_and_targets_none() -> None:
    rec = Recorder()
    b = boundary_report(locate_first_error(seq(T)))
    esc = escalate(b, anchor_to_ledger=True, ledger_anchor_fn=rec, target_override="human")
    assert esc.target == "none"
    assert esc.ledger_anchor is None and "ledger_anchor" not in esc.to_json_obj()
    assert rec.bodies == []


def test_E2_anchoring_off_leaves_no_ledger_anchor_field() -> None:
    rec = Recorder()
    esc = escalate(boundary_report(locate_first_error(seq(F))), ledger_anchor_fn=rec)
    assert "ledger_anchor" not in esc.to_json_obj()
    assert rec.bodies == []


def test_E3_anchoring_on_without_a_function_says_so() -> None:
    esc = escalate(boundary_report(locate_first_error(seq(F))), anchor_to_ledger=True)
    assert esc.to_json_obj()["ledger_anchor"] == {"appended": False, "reason": "no-anchor-fn"}


def test_E4_a_working_anchor_function_gives_seq_and_hash() -> None:
    rec = Recorder()
    b = boundary_report(locate_first_error(seq(T, "INFINITY")))
    esc = escalate(b, anchor_to_ledger=True, ledger_anchor_fn=rec)
    expected_hash = "sha256:" + "0" * 63 + "1"
    assert esc.ledger_anchor == {"appended": True, "entryHash": expected_hash, "entrySeq": 1}
    (body,) = rec.bodies
    assert body["escalation_id"] == esc.escalation_id
    assert body["kind"] == "other-nondefinite" and body["step_id"] == "s1"
    assert body["boundary_digest"].startswith("sha256:")


def test_E4_an_anchor_function_may_answer_with_a_mapping() -> None:
    b = boundary_report(locate_first_error(seq(F)))
    h = "sha256:" + "a" * 64
    esc = escalate(
        b, anchor_to_ledger=True, ledger_anchor_fn=lambda body: {"entry_seq": 7, "entry_hash": h}
    )
    assert esc.ledger_anchor == {"appended": True, "entryHash": h, "entrySeq": 7}


def test_E4_an_anchor_function_may_answer_with_the_seed_names() -> None:
    b = boundary_report(locate_first_error(seq(F)))
    h = "sha256:" + "b" * 64
    esc = escalate(
        b, anchor_to_ledger=True, ledger_anchor_fn=lambda body: {"entrySeq": 3, "entryHash": h}
    )
    assert esc.ledger_anchor == {"appended": True, "entryHash": h, "entrySeq": 3}


def test_E5_a_raising_anchor_function_is_reported_not_raised() -> None:
    def boom(body: dict) -> None:
        raise RuntimeError("disk full")

    esc = escalate(
        boundary_report(locate_first_error(seq(F))), anchor_to_ledger=True, ledger_anchor_fn=boom
    )
    assert esc.ledger_anchor == {"appended": False, "reason": "anchor-threw:disk full"}


@pytest.mark.parametrize("exc", [RuntimeError(), ValueError(""), OSError()])
def test_E5_an_empty_exception_message_gives_the_exception_type(exc: Exception) -> None:
    def boom(body: dict) -> None:
        raise exc

    esc = escalate(
        boundary_report(locate_first_error(seq(F))), anchor_to_ledger=True, ledger_anchor_fn=boom
    )
    assert esc.ledger_anchor == {
        "appended": False,
        "reason": f"anchor-threw:{type(exc).__name__}",
    }


def test_E5_an_anchor_function_with_an_unreadable_answer_counts_as_throwing() -> None:
    esc = escalate(
        boundary_report(locate_first_error(seq(F))),
        anchor_to_ledger=True,
        ledger_anchor_fn=lambda body: "yes",
    )
    assert esc.ledger_anchor is not None
    assert esc.ledger_anchor["appended"] is False
    assert esc.ledger_anchor["reason"].startswith("anchor-threw:")


def test_target_override_replaces_the_default_target() -> None:
    esc = escalate(boundary_report(locate_first_error(seq(F))), target_override="human")
    assert esc.target == "human" and esc.default_target == "external-oracle"


def test_hold_is_an_alias_of_w48_negcap_where_a_user_names_a_target() -> None:
    esc = escalate(boundary_report(locate_first_error(seq(F))), target_override="hold")
    assert esc.target == "w48-negcap" and esc.to_json_obj()["target"] == "w48-negcap"


def test_emitted_at_is_iso8601_from_the_injected_clock() -> None:
    moment = datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=timezone(timedelta(hours=2)))
    esc = escalate(boundary_report(locate_first_error(seq(F))), clock=lambda: moment)
    assert esc.emitted_at == "2024-05-06T07:08:09.123456+02:00"
    assert datetime.fromisoformat(esc.emitted_at) == moment


def test_emitted_at_defaults_to_now_in_utc() -> None:
    before = datetime.now(UTC)
    esc = escalate(boundary_report(locate_first_error(seq(F))))
    emitted = datetime.fromisoformat(esc.emitted_at)
    assert emitted.tzinfo is not None and before <= emitted <= datetime.now(UTC)


def test_escalation_ids_are_unique_over_10000_runs() -> None:
    steps = seq(T, F)
    ids = {run_stopping_condition("s", steps).escalation.escalation_id for _ in range(10_000)}
    assert len(ids) == 10_000


# --- the eight verdicts end to end ----------------------------------------------------------

EXPECTED_TARGET = {
    LogicValue.TRUE: "none",
    LogicValue.NEITHER: "w48-negcap",
    LogicValue.FALSE: "external-oracle",
    LogicValue.ZERO: "human",
    LogicValue.BOTH: "peer-review",
    LogicValue.INFINITY: "peer-review",
    LogicValue.FLOWING: "peer-review",
    LogicValue.SELF: "peer-review",
}


@pytest.mark.parametrize("value", list(LogicValue))
def test_every_verdict_reaches_its_expected_target(value: LogicValue) -> None:
    out = run_stopping_condition("seq-1", seq(T, value))
    assert out.error is None
    assert out.target == EXPECTED_TARGET[value]
    assert out.escalation.to_json_obj()["target"] == EXPECTED_TARGET[value]


def test_default_targets_cover_every_kind() -> None:
    assert set(DEFAULT_TARGET) == set(StopKind)


# --- run_stopping_condition -----------------------------------------------------------------


def test_summary_line_names_position_kind_target_and_anchor() -> None:
    rec = Recorder()
    out = run_stopping_condition(
        "seq-9", seq(T, T, "NEITHER", T), anchor_to_ledger=True, ledger_anchor_fn=rec
    )
    # the stop at the third of four steps: its 0-based index among n, as in the seed's example
    assert out.summary == (
        "stopping-condition | seq(2/4) | kind=neither-halt | target=w48-negcap | anchor=ok"
    )
    assert out.escalation.sequence_id == "seq-9" and rec.bodies[0]["sequence_id"] == "seq-9"


@pytest.mark.parametrize(
    ("options", "word"),
    [
        ({}, "off"),
        ({"anchor_to_ledger": True}, "no-anchor-fn"),
        ({"anchor_to_ledger": True, "ledger_anchor_fn": lambda b: 1 / 0}, "failed"),
    ],
)
def test_summary_line_reports_the_anchor_state(options: dict, word: str) -> None:
    out = run_stopping_condition("x", seq(F), **options)
    assert out.summary.endswith(f"anchor={word}")


def test_summary_of_all_clear() -> None:
    out = run_stopping_condition("x", seq(T, T), anchor_to_ledger=True, ledger_anchor_fn=Recorder())
    assert out.all_clear
    assert (
        out.summary == "stopping-condition | seq(2/2) | kind=all-clear | target=none | anchor=none"
    )


def test_invalid_input_is_an_error_outcome_not_an_exception() -> None:
    out = run_stopping_condition("x", [])
    assert out.error == "invalid-input" and out.escalation is None and out.boundary is None
    assert out.summary.startswith("stopping-condition | error=invalid-input | ")


def test_unknown_escalate_options_are_refused() -> None:
    with pytest.raises(TypeError):
        run_stopping_condition("x", seq(F), anchor=True)


# --- payloads -------------------------------------------------------------------------------


def test_escalation_keeps_the_step_payload_unchanged() -> None:
    payload = {"report": {"seconds": 0.25, "solutions": [{"r1c1": 1}]}, "tags": ["a", "b"]}
    snapshot = copy.deepcopy(payload)
    rec = Recorder()
    out = run_stopping_condition(
        "x", [step(0, T), step(1, "BOTH", payload)], anchor_to_ledger=True, ledger_anchor_fn=rec
    )
    assert out.escalation.payload is payload
    assert out.escalation.to_json_obj()["boundary"]["step"]["payload"] is payload
    assert payload == snapshot
    assert "0.25" not in repr(rec.bodies[0])  # the anchored body holds a digest, not the floats


def test_boundary_digest_changes_with_the_payload() -> None:
    a = escalate(boundary_report(locate_first_error([step(0, F, {"x": 1})])))
    b = escalate(boundary_report(locate_first_error([step(0, F, {"x": 2})])))
    assert a.anchor_body()["boundary_digest"] != b.anchor_body()["boundary_digest"]


# --- properties -----------------------------------------------------------------------------

values = st.sampled_from(list(LogicValue))


@settings(max_examples=300, deadline=None)
@given(st.lists(values, min_size=1, max_size=12))
def test_first_stop_is_the_first_non_true_and_success_count_bounded(vs: list[LogicValue]) -> None:
    loc = locate_first_error(seq(*vs))
    assert loc.success_count <= loc.index
    non_true = [i for i, v in enumerate(vs) if v is not T]
    if non_true:
        assert loc.index == non_true[0] and loc.step.verdict is vs[non_true[0]]
    else:
        assert loc.kind is StopKind.ALL_CLEAR
    assert sum(loc.verdict_counts.values()) == len(vs)


@settings(max_examples=300, deadline=None)
@given(st.lists(values, min_size=1, max_size=12))
def test_all_errors_lists_every_non_true_step_in_order(vs: list[LogicValue]) -> None:
    locs = locate_all_errors(seq(*vs))
    assert locs[0] == locate_first_error(seq(*vs))
    non_true = [i for i, v in enumerate(vs) if v is not T]
    if non_true:
        assert [loc.index for loc in locs] == non_true
        for loc in locs:
            assert loc.success_count <= loc.index
            assert loc.success_count == sum(1 for v in vs[: loc.index] if v is T)
    else:
        assert len(locs) == 1 and locs[0].kind is StopKind.ALL_CLEAR


# --- locate_all_errors and nested sequences -------------------------------------------------


def test_all_errors_gives_each_boundary_its_kind_and_last_true_claim() -> None:
    locs = locate_all_errors(seq(T, "NEITHER", T, "ZERO", "SELF"))
    assert [loc.kind for loc in locs] == [
        StopKind.NEITHER_HALT,
        StopKind.ZERO_VOID,
        StopKind.OTHER_NONDEFINITE,
    ]
    assert [loc.last_true_claim for loc in locs] == ["claim 0", "claim 2", "claim 2"]
    assert [loc.success_count for loc in locs] == [1, 2, 2]
    assert [boundary_report(loc).target for loc in locs] == ["w48-negcap", "human", "peer-review"]


def test_all_errors_of_invalid_input_is_the_single_error() -> None:
    (loc,) = locate_all_errors("not steps")  # type: ignore[arg-type]
    assert loc.error == INVALID_INPUT


def nested() -> list[ReasoningStep]:
    inner = (step("1.0", T), step("1.1", T, substeps=(step("1.1.0", T), step("1.1.1", "FLOWING"))))
    return [step(0, T), step(1, T, substeps=inner), step(2, F)]


def test_nested_location_gives_the_path_to_the_first_non_true_leaf() -> None:
    loc = locate_first_error(nested())
    assert loc.path == (1, 1, 1)
    assert loc.index == 1
    assert loc.step.step_id == "s1.1.1"
    assert loc.kind is StopKind.OTHER_NONDEFINITE
    assert loc.last_true_claim == "claim 1.1.0"
    assert loc.success_count == 1


def test_nested_counts_include_every_depth() -> None:
    loc = locate_first_error(nested())
    assert sum(loc.verdict_counts.values()) == 7
    assert loc.verdict_counts["FLOWING"] == 1 and loc.verdict_counts["FALSE"] == 1


def test_a_sub_sequence_is_audited_before_its_parent() -> None:
    parent = step(0, "NEITHER", substeps=(step("0.0", T), step("0.1", "ZERO")))
    assert locate_first_error([parent]).path == (0, 1)
    whole_true_children = step(0, "NEITHER", substeps=(step("0.0", T),))
    loc = locate_first_error([whole_true_children])
    assert loc.path == (0,) and loc.kind is StopKind.NEITHER_HALT


def test_a_false_parent_over_a_stopping_child_is_a_second_boundary() -> None:
    parent = step(0, F, substeps=(step("0.0", "ZERO"),))
    assert [loc.path for loc in locate_all_errors([parent])] == [(0, 0), (0,)]


def test_nested_all_errors_and_summary_path() -> None:
    locs = locate_all_errors(nested())
    assert [loc.path for loc in locs] == [(1, 1, 1), (2,)]
    out = run_stopping_condition("n", nested())
    assert "| path=1.1.1 |" in out.summary and "seq(1/3)" in out.summary


def test_nested_all_true_is_all_clear() -> None:
    tree = [step(0, T, substeps=(step("0.0", T), step("0.1", T))), step(1, T)]
    assert locate_first_error(tree).kind is StopKind.ALL_CLEAR


# --- deep and cyclic input ------------------------------------------------------------------


def _deep(depth: int) -> list[ReasoningStep]:
    node = step("leaf", "NEITHER")
    for i in range(depth):
        node = step(f"d{i}", T, substeps=(node,))
    return [node]


def test_steps_nested_3000_deep_are_invalid_input_not_recursion_error() -> None:
    out = run_stopping_condition("deep", _deep(3000))
    assert out.error == "invalid-input" and out.escalation is None
    assert "deeper than" in out.summary
    assert locate_all_errors(_deep(3000))[0].error == "invalid-input"


def test_cyclic_steps_are_invalid_input() -> None:
    a = step("a", T)
    b = step("b", T, substeps=(a,))
    object.__setattr__(a, "substeps", (b,))  # a frozen step made to contain itself
    out = run_stopping_condition("cyc", [a])
    assert out.error == "invalid-input" and "cyclic" in out.summary


def test_nesting_within_the_limit_is_read() -> None:
    from puzzlekit.audit.stopping import MAX_DEPTH

    loc = locate_first_error(_deep(MAX_DEPTH - 2))
    assert loc.error is None and loc.kind is StopKind.NEITHER_HALT
