"""random-gap and rule-out: where they repair, that they work for every family, one seed one
output."""

from __future__ import annotations

import numpy as np
import pytest
from puzzlekit.core.model import Instance
from puzzlekit.core.protocols import Step
from puzzlekit.core.report import Verdict
from puzzlekit.families import families, get_family
from puzzlekit.generators import STRATEGIES
from puzzlekit.loop.driver import LoopBudget, run_loop
from puzzlekit.verifiers.registry import default_filter_name, get_verifier

from puzzlekit_takuzu import TAKUZU, RandomGap, RuleOut

STRATEGY_NAMES = ["random-gap", "rule-out"]


def test_both_strategies_are_registered():
    assert STRATEGIES.get("random-gap") is RandomGap and STRATEGIES.get("rule-out") is RuleOut


def _multiple_step(seed: int, cap: int = 12):
    """A sparse 6x6 takuzu step, its solution and the filter's MULTIPLE report."""
    schema = TAKUZU.schema({"size": 6})
    rng = np.random.default_rng(seed)
    solution = TAKUZU.sample_solution(schema, rng)
    clues = TAKUZU.initial_clues(schema, solution, 5, rng)
    step = Step(Instance.make("takuzu", {"size": 6}, clues), "start", None, solution, schema)
    report = get_verifier("takuzu-lines").verify(step.instance, solution_cap=cap)
    assert report.verdict is Verdict.MULTIPLE
    return step, solution, report


def test_random_gap_reveals_the_true_value_at_cells_spread_over_the_whole_gap():
    step, solution, report = _multiple_step(1)
    gap = {tuple(g.coord) for g in report.reject_detail.discriminative_gap}
    touched = set()
    for seed in range(40):
        nxt = RandomGap(5).propose(step, report, np.random.default_rng(seed))
        assert nxt.action == "reveal" and nxt.coord in gap
        (added,) = set(nxt.instance.clues) - set(step.instance.clues)
        assert added.coords == (nxt.coord,)
        assert added.data_dict()["value"] == solution[f"r{nxt.coord[0] + 1}c{nxt.coord[1] + 1}"]
        touched.add(nxt.coord)
    assert len(touched) > len(gap) // 2


def _ruled_out(coord, solution, report) -> int:
    name = f"r{coord[0] + 1}c{coord[1] + 1}"
    return sum(1 for s in report.solutions if s[name] != solution[name])


@pytest.mark.parametrize("seed", range(5))
def test_rule_out_reveals_where_the_true_value_rules_out_the_most_found_solutions(seed):
    step, solution, report = _multiple_step(seed)
    best = max(_ruled_out(v.coord, solution, report) for v in step.schema.variables)
    for s in range(10):
        nxt = RuleOut(5).propose(step, report, np.random.default_rng(s))
        assert nxt.action == "reveal"
        assert _ruled_out(nxt.coord, solution, report) == best


def test_other_rejects_are_handled_as_adaptive_handles_them():
    step, solution, _ = _multiple_step(2)
    full = TAKUZU.clues_from_solution(step.schema, solution)
    flipped = [TAKUZU.given((0, 0), 1 - solution["r1c1"]), *full[1:]]  # row 1 unbalanced
    bad = Step(step.instance.with_clues(flipped), "start", None, solution, step.schema)
    report = get_verifier("takuzu-lines").verify(bad.instance, solution_cap=2)
    assert report.verdict is Verdict.UNSOLVABLE
    for name in STRATEGY_NAMES:
        mine = STRATEGIES.get(name)(5).propose(bad, report, np.random.default_rng(0))
        theirs = STRATEGIES.get("adaptive")(5).propose(bad, report, np.random.default_rng(0))
        assert mine.action == "change" and mine.coord == (0, 0)
        assert (mine.action, mine.instance) == (theirs.action, theirs.instance)


def _families():
    for fam in families():
        params = dict(fam.info.listed_params[0]) if fam.info.listed_params else {}
        yield pytest.param(fam.info.name, params, id=fam.info.name)


@pytest.mark.parametrize("name", STRATEGY_NAMES)
@pytest.mark.parametrize("family,params", list(_families()))
def test_the_strategies_generate_for_every_registered_family(name, family, params):
    schema = get_family(family).schema(params)
    filt = get_verifier(default_filter_name(family))
    strategy = STRATEGIES.get(name)(max(1, round(0.3 * len(schema.variables))))
    budget = LoopBudget(max_calls=100, solution_cap=4)
    results = [run_loop(schema, strategy, filt, None, budget, seed) for seed in (1, 2)]
    assert all(r.accepted and r.filter_report.verdict is Verdict.UNIQUE for r in results)
    again = run_loop(schema, strategy, filt, None, budget, 1)
    assert again.instance.digest == results[0].instance.digest
    assert [a.action_coord for a in again.trace] == [a.action_coord for a in results[0].trace]
