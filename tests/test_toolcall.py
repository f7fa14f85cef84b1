"""toolcall: tool registry (Python, MCP tools/list), the oracle verifier's report, the plain
holdout, adaptive repairs, generation."""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest

from puzzlekit.core.model import Clue, Instance
from puzzlekit.core.plugins import ENTRY_POINT_GROUP, DuplicateName, UnknownName
from puzzlekit.core.protocols import Step
from puzzlekit.core.report import Verdict
from puzzlekit.families import get_family
from puzzlekit.families.tools import (
    TOOLS,
    field_domain,
    get_tool,
    load_mcp_tools,
    register_tool,
    tool_names,
)
from puzzlekit.generators.adaptive import Adaptive, top_cells
from puzzlekit.loop.batch import GenerateConfig, generate
from puzzlekit.loop.driver import WorkerHoldout
from puzzlekit.quality import parametrize_with_checks
from puzzlekit.verifiers.registry import default_verifier_name, get_verifier

MID = {"tool": "shipping-rate", "expectedVerdict": "mid", "fixedInput": {"note": ""}}
MCP = Path(__file__).parent / "data" / "tools" / "mcp_tools_list.json"


def given(field: str, value: object, pos: int) -> Clue:
    return Clue.make(field, "given", {"field": field, "value": value}, [(pos,)])


def door(inp: dict) -> str:
    if inp["badge"] == "staff":
        return "open"
    if inp["escorted"] and 8 <= inp["hour"] < 18:
        return "open"
    if inp["badge"] == "contractor" and inp["hour"] == 3:
        raise RuntimeError("maintenance window: no answer")
    return "closed"


@parametrize_with_checks([("toolcall", MID)])
def test_family_keeps_the_contract(family, check) -> None:
    check(family)


def test_the_oracle_is_the_default_verifier() -> None:
    assert default_verifier_name(Instance.make("toolcall", MID, [])) == "oracle"


def test_multiple_reports_distribution_and_gap_and_says_when_it_is_a_sample() -> None:
    inst = Instance.make("toolcall", MID, [given("zone", "eu", 0)])
    rep = get_verifier("oracle").verify(inst, solution_cap=5)
    rd = rep.reject_detail
    assert rep.verdict is Verdict.MULTIPLE and rep.solution_count_is_lower_bound
    assert sum(rd.verdict_distribution.values()) == rep.total_completions_enumerated == 36
    assert rd.verdict_distribution["mid"] > 5
    assert {g.field_name for g in rd.discriminative_gap} <= {"weight_kg", "service", "insured"}
    assert all(0 < g.discriminative_power <= 1 for g in rd.discriminative_gap)
    assert any("sample" in d for d in rep.diagnostics)
    full = get_verifier("oracle").verify(inst, solution_cap=100)
    assert not any("sample" in d for d in full.diagnostics)


def test_unsolvable_reports_a_distribution_without_the_expected_verdict() -> None:
    clues = [given("zone", "world", 0), given("service", "express", 2)]
    inst = Instance.make("toolcall", MID, clues)
    rep = get_verifier("oracle").verify(inst)
    assert rep.verdict is Verdict.UNSOLVABLE
    dist = rep.reject_detail.verdict_distribution
    assert "mid" not in dist and sum(dist.values()) == 12
    assert set(rep.reject_detail.conflict.clue_ids) == {"zone", "service"}


def test_domain_too_large_before_any_oracle_call() -> None:
    calls = []
    register_tool(
        "wide",
        {"type": "object", "properties": {f"f{i}": {"enum": list(range(10))} for i in range(6)}},
        lambda inp: calls.append(1) or "ok",
    )
    inst = Instance.make("toolcall", {"tool": "wide", "expectedVerdict": "ok"}, [])
    rep = get_verifier("oracle", max_completions=1000).verify(inst)
    assert rep.verdict is Verdict.DOMAIN_TOO_LARGE and not calls
    assert len(rep.reject_detail.field_cardinalities) == 6
    assert rep.reject_detail.culprits


@pytest.mark.parametrize(
    ("params", "clues", "violation"),
    [
        ({"tool": "no-such-tool", "expectedVerdict": "x"}, [], "unknown-tool"),
        (MID, [given("colour", "red", 0)], "unknown-field"),
        ({"tool": "shipping-rate", "expectedVerdict": "mid"}, [], "not-enumerable"),
        (MID, [given("weight_kg", 99, 1)], "out-of-domain"),
    ],
)
def test_invalid_spec_violations(params: dict, clues: list, violation: str) -> None:
    inst = Instance.make("toolcall", params, clues)
    for name in ("oracle", "oracle-plain"):
        rep = get_verifier(name).verify(inst)
        assert rep.verdict is Verdict.INVALID_SPEC
        assert rep.reject_detail.violations[0].violation_type == violation


def test_empty_enum_is_no_enum_domain() -> None:
    register_tool("empty", {"type": "object", "properties": {"x": {"enum": []}}}, lambda i: "v")
    rep = get_verifier("oracle").verify(
        Instance.make("toolcall", {"tool": "empty", "expectedVerdict": "v"}, [])
    )
    assert rep.reject_detail.violations[0].violation_type == "no-enum-domain"


def test_mcp_tools_list_registers_tools_with_python_oracles() -> None:
    tools = load_mcp_tools(MCP, {"door-lock": door})
    assert [t.name for t in tools] == ["door-lock"]
    assert "no-oracle" not in TOOLS
    assert field_domain(get_tool("door-lock").properties["hour"]) == list(range(24))
    params = {"tool": "door-lock", "expectedVerdict": "open", "fixedInput": {"reason": "x"}}
    inst = Instance.make("toolcall", params, [given("badge", "contractor", 0)])
    rep = get_verifier("oracle").verify(inst, solution_cap=100)
    plain = get_verifier("oracle-plain").verify(inst, solution_cap=100)
    assert rep.dispatch_error_count == plain.dispatch_error_count == 2  # hour 3, both escorts
    assert rep.verdict is plain.verdict is Verdict.MULTIPLE
    assert rep.solution_count == plain.solution_count == 10
    assert rep.reject_detail.verdict_distribution == plain.reject_detail.verdict_distribution


def test_adaptive_reveals_the_most_discriminative_field() -> None:
    fam = get_family("toolcall")
    schema = fam.schema(MID)
    sol = fam.sample_solution(schema, np.random.default_rng(1))
    inst = Instance.make("toolcall", MID, [])
    rep = get_verifier("oracle").verify(inst)
    step = Adaptive(1).propose(
        Step(inst, "start", None, sol, schema), rep, np.random.default_rng(0)
    )
    top = rep.reject_detail.discriminative_gap[0]
    assert step.action == "reveal" and step.coord == tuple(top.coord)


def test_adaptive_repairs_an_unsolvable_call_back_to_its_solution() -> None:
    fam = get_family("toolcall")
    schema = fam.schema(MID)
    sol = {"zone": 1, "weight_kg": 3, "service": 1, "insured": 0}
    wrong = Instance.make(
        "toolcall", MID, [given("zone", "world", 0), given("service", "express", 2)]
    )
    step = Step(wrong, "start", None, sol, schema)
    strategy, rng, oracle = Adaptive(1), np.random.default_rng(0), get_verifier("oracle")
    for _ in range(10):
        rep = oracle.verify(step.instance)
        if rep.accepted:
            break
        step = strategy.propose(step, rep, rng)
    assert rep.accepted  # a conflict clue was dropped, a discriminative field revealed
    assert step.action in ("reveal", "drop")
    moves = fam.repair_moves(schema, wrong, sol, (0,))
    assert moves[0].action == "change" and moves[0].remove == ("zone",)


def test_generation_has_no_holdout_rejects() -> None:
    cfg = GenerateConfig(
        "toolcall", MID, count=10, filter="oracle", holdout="oracle-plain", holdout_in_process=True
    )
    recs = [r for r in generate(cfg) if r["status"] == "accepted"]
    assert len(recs) == 10 and all(r["holdoutVerdict"] == "UNIQUE" for r in recs)


def test_tools_are_one_registry_that_refuses_a_taken_name() -> None:
    with pytest.raises(DuplicateName, match="shipping-rate"):
        register_tool("shipping-rate", {"type": "object", "properties": {}}, lambda i: "x")
    with pytest.raises(UnknownName, match="unknown tool 'shiping-rate'; closest: shipping-rate"):
        get_tool("shiping-rate")
    assert {"shipping-rate", "review-kernel", "game-verdict"} <= set(tool_names())


def test_an_unknown_tool_is_an_invalid_spec_naming_the_closest() -> None:
    inst = Instance.make("toolcall", {"tool": "review-kernal", "expectedVerdict": "x"}, [])
    rep = get_verifier("oracle").verify(inst)
    assert rep.verdict is Verdict.INVALID_SPEC
    assert "closest: review-kernel" in rep.reject_detail.violations[0].detail


def test_the_example_tools_are_puzzlekits_own_entry_point_plugin() -> None:
    # if this fails after a pull, the editable install predates the entry point:
    # re-run `pip install --no-deps -e .`
    eps = metadata.entry_points(group=ENTRY_POINT_GROUP)
    assert "puzzlekit.app.example_tools" in {ep.value for ep in eps}
    assert TOOLS.origin("review-kernel") == "puzzlekit.app.example_tools"
    assert TOOLS.origin("shipping-rate") == "puzzlekit"


def test_a_holdout_worker_process_finds_the_example_tools() -> None:
    inst = Instance.make(
        "toolcall", {"tool": "game-verdict", "expectedVerdict": "LOSS"}, [given("to_move", "o", 1)]
    )
    with WorkerHoldout(functools.partial(get_verifier, "oracle-plain"), "oracle-plain") as hold:
        rep = hold.check(inst.canonical_json(), inst.digest, 2)
    assert rep.verdict is Verdict.UNIQUE


# -- the verdict distribution by field (the fieldVerdicts extra) ---------------------------------


def test_field_verdicts_break_the_distribution_down_by_hidden_field_and_value() -> None:
    inst = Instance.make("toolcall", MID, [given("zone", "eu", 0)])
    oracle = get_verifier("oracle")
    plain = oracle.verify(inst, solution_cap=2)
    asked = oracle.verify(inst, solution_cap=2, extras={"fieldVerdicts"})
    assert "fieldVerdicts" not in plain.stats
    assert asked.content_json_obj() == plain.content_json_obj()  # the extra changes nothing else
    fv = asked.stats["fieldVerdicts"]
    assert fv["expectedVerdict"] == "mid"
    # every completion, counted by brute force over the tool's oracle
    spec = get_family("toolcall").spec(get_family("toolcall").schema(MID))
    hidden = [f for f in spec.fields if f.name != "zone"]
    expected: dict[tuple[str, object], Counter] = {}
    for values in itertools.product(*(f.values for f in hidden)):
        inp = {"zone": "eu", "note": "", **{f.name: v for f, v in zip(hidden, values, strict=True)}}
        verdict = get_tool("shipping-rate").oracle(inp)
        for f, v in zip(hidden, values, strict=True):
            expected.setdefault((f.name, v), Counter())[verdict] += 1
    got = {(e["field"], e["value"]): Counter(e["verdicts"]) for e in fv["fields"]}
    assert got == expected  # the given field is not listed; every hidden value is
    for e in fv["fields"]:
        assert spec.field(e["field"]).decode(e["domainValue"]) == e["value"]
    assert (
        sum(e["verdicts"].get("mid", 0) for e in fv["fields"] if e["field"] == "service")
        == asked.stats["matchingCompletions"]
    )


def test_adaptive_reveals_the_field_leaving_fewest_solutions_over_every_completion() -> None:
    fam = get_family("toolcall")
    schema = fam.schema(MID)
    inst = Instance.make("toolcall", MID, [])
    oracle = get_verifier("oracle")
    rep = oracle.verify(inst, solution_cap=2, extras=Adaptive(1).extras)
    fv = rep.stats["fieldVerdicts"]
    for seed in range(4):
        sol = fam.sample_solution(schema, np.random.default_rng(seed))
        left = {
            tuple(e["coord"]): e["verdicts"].get("mid", 0)
            for e in fv["fields"]
            if sol[e["field"]] == e["domainValue"]
        }
        best = {c for c, n in left.items() if n == min(left.values())}
        gap_top = set(top_cells(rep.reject_detail.discriminative_gap, rep.solutions, sol))
        assert best != gap_top  # two capped solutions differ in one field only: not the best
        step = Adaptive(1).propose(
            Step(inst, "start", None, sol, schema), rep, np.random.default_rng(seed)
        )
        assert step.action == "reveal" and step.coord in best
        # without the extra (a filter that does not give it) the gap decides, as before
        bare = oracle.verify(inst, solution_cap=2)
        step = Adaptive(1).propose(
            Step(inst, "start", None, sol, schema), bare, np.random.default_rng(seed)
        )
        assert step.coord in gap_top


def test_the_loop_asks_an_oracle_filter_for_field_verdicts() -> None:
    cfg = GenerateConfig(
        "toolcall", MID, count=3, filter="oracle", holdout="oracle-plain", holdout_in_process=True
    )
    recs = [r for r in generate(cfg) if r["status"] == "accepted"]
    assert len(recs) == 3 and all(r["holdoutVerdict"] == "UNIQUE" for r in recs)
    assert "fieldVerdicts" in Adaptive(1).extras


def test_the_verdict_signal_study_runs_both_strategies_as_a_user_does() -> None:
    from benchmarks.verdict_signal import SCHEMAS, run_one

    got = {s: run_one(SCHEMAS[0], s, 4, 0) for s in ("adaptive", "adaptive-gap-only")}
    for one in got.values():
        assert one["code"] == 0 and one["accepted"] == 4 and one["holdoutRejects"] == 0
        assert one["filterCalls"] >= one["accepted"]
