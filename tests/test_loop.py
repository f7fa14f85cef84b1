"""The closed loop: strategies, minimization, the filter/holdout split, isolation."""

from __future__ import annotations

import functools
import os

import numpy as np
import pytest

import puzzlekit as pk
from puzzlekit.core.model import Instance
from puzzlekit.core.protocols import Step, Verifier
from puzzlekit.core.report import Verdict
from puzzlekit.core.solutions import random_solution
from puzzlekit.families import resolve
from puzzlekit.generators.adaptive import Adaptive
from puzzlekit.generators.blind import Blind
from puzzlekit.generators.minimize import minimize
from puzzlekit.loop.driver import CONTAMINATED, InlineHoldout, LoopBudget, WorkerHoldout, run_loop
from puzzlekit.verifiers.registry import get_verifier
from tests.helpers import given, is_valid_sudoku

S4 = pk.schema("sudoku", {"size": 4})
S9 = pk.schema("sudoku", {"size": 9})
SAT = get_verifier("sat")
ENUM = get_verifier("enumerative")


@pytest.mark.parametrize(
    "family,params",
    [
        ("sudoku", {"size": 4}),
        ("sudoku", {"size": 6}),
        ("sudoku", {"size": 9}),
        ("latin", {"size": 5}),
    ],
)
def test_random_solutions_are_valid_and_one_seed_gives_one_solution(family, params):
    schema = pk.schema(family, params)
    a = random_solution(schema, np.random.default_rng(5))
    b = random_solution(schema, np.random.default_rng(5))
    c = random_solution(schema, np.random.default_rng(6))
    assert a == b and a != c
    inst = Instance.make(family, params, pk.get_family(family).clues_from_solution(schema, a))
    assert resolve(inst).check(a)


def _multiple_step() -> tuple[Step, object]:
    sol = random_solution(S4, np.random.default_rng(0))
    inst = Instance.make("sudoku", {"size": 4}, [given(0, 0, sol["r1c1"])])
    return Step(inst, "start", None, sol), SAT.verify(inst)


def test_adaptive_reveals_the_true_clue_at_the_top_discriminative_coordinate():
    step, rep = _multiple_step()
    assert rep.verdict is Verdict.MULTIPLE
    nxt = Adaptive(1).propose(step, rep, np.random.default_rng(1))
    top = rep.reject_detail.discriminative_gap[0].discriminative_power
    tied = {g.coord for g in rep.reject_detail.discriminative_gap if g.discriminative_power == top}
    assert nxt.action == "reveal" and nxt.coord in tied
    (new,) = [c for c in nxt.instance.clues if c.coords[0] == nxt.coord]
    r, c = nxt.coord
    assert new.data_dict()["value"] == step.solution[f"r{r + 1}c{c + 1}"]


def test_adaptive_drops_a_clue_of_the_conflict():
    inst = Instance.make("sudoku", {"size": 4}, [given(0, 0, 1), given(0, 3, 1), given(3, 3, 2)])
    rep = SAT.verify(inst)
    nxt = Adaptive(1).propose(Step(inst, "start"), rep, np.random.default_rng(0))
    assert nxt.action == "drop" and nxt.coord in {(0, 0), (0, 3)}
    assert len(nxt.instance.clues) == 2


def test_adaptive_repairs_what_the_violations_name():
    inst = Instance.make("sudoku", {"size": 4}, [given(0, 0, 1), given(1, 1, 9)])
    rep = ENUM.verify(inst)
    nxt = Adaptive(1).propose(Step(inst, "start"), rep, np.random.default_rng(0))
    assert nxt.action == "repair" and nxt.coord == (1, 1)
    assert [c.id for c in nxt.instance.clues] == ["r1c1"]


def test_adaptive_reveals_a_culprit_when_undecided():
    from puzzlekit.core.protocols import SearchBudget

    sol = random_solution(S9, np.random.default_rng(0))
    inst = Instance.make("sudoku", {"size": 9}, [])
    rep = ENUM.verify(inst, budget=SearchBudget(nodes=5))
    assert rep.verdict is Verdict.UNDECIDED
    nxt = Adaptive(0).propose(Step(inst, "start", None, sol), rep, np.random.default_rng(0))
    assert nxt.action == "reveal"
    assert nxt.coord in {tuple(f.coord) for f in rep.reject_detail.culprits}


def test_blind_starts_over_with_exactly_k_clues():
    step, rep = _multiple_step()
    nxt = Blind(5).propose(step, rep, np.random.default_rng(0))
    assert nxt.action == "restart" and len(nxt.instance.clues) == 5


def test_minimize_leaves_a_unique_puzzle_where_no_clue_can_go():
    res = run_loop(S9, Adaptive(30), SAT, None, LoopBudget(), seed=3)
    mini = minimize(res.instance, SAT, np.random.default_rng(0))
    assert SAT.verify(mini.instance).verdict is Verdict.UNIQUE
    for clue in mini.instance.clues:
        fewer = mini.instance.with_clues(c for c in mini.instance.clues if c.id != clue.id)
        assert SAT.verify(fewer).verdict is Verdict.MULTIPLE


def test_symmetric_minimize_keeps_rotational_symmetry():
    sol = random_solution(S9, np.random.default_rng(4))
    full = Instance.make(
        "sudoku", {"size": 9}, pk.get_family("sudoku").clues_from_solution(S9, sol)
    )
    mini = minimize(full, SAT, np.random.default_rng(0), symmetric=True)
    cells = {c.coords[0] for c in mini.instance.clues}
    assert all((8 - r, 8 - c) in cells for r, c in cells)
    assert SAT.verify(mini.instance).verdict is Verdict.UNIQUE


class _Spy:
    """A strategy wrapper that records everything it is given."""

    extras = ()

    def __init__(self, inner):
        self.inner, self.name, self.seen = inner, inner.name, []

    def start(self, schema, rng):
        return self.inner.start(schema, rng)

    def propose(self, step, report, rng):
        self.seen.append(report)
        return self.inner.propose(step, report, rng)


class _MarkedHoldout(InlineHoldout):
    def check(self, canonical, digest, cap):
        rep = super().check(canonical, digest, cap)
        return rep.with_stats(marker="holdout-only")


def test_a_strategy_never_receives_the_holdout_or_its_reports():
    spy = _Spy(Adaptive(8))
    hold = _MarkedHoldout(ENUM)
    res = run_loop(S9, spy, SAT, hold, LoopBudget(), seed=0)
    assert res.accepted and res.holdout_report.stats.get("marker") == "holdout-only"
    assert spy.seen, "the strategy must have read filter reports"
    assert all(r.source["verifier"] == "sat" for r in spy.seen)
    assert all("marker" not in r.stats for r in spy.seen)
    assert not any(hold is v for v in vars(spy.inner).values())


def test_worker_holdout_runs_in_its_own_process_and_checks_the_digest():
    with WorkerHoldout(functools.partial(get_verifier, "enumerative"), "enumerative") as hold:
        assert hold.pid != os.getpid()
        res = run_loop(S4, Adaptive(4), SAT, hold, LoopBudget(), seed=1)
        assert res.holdout_report.verdict is Verdict.UNIQUE
        assert res.holdout_report.instance_digest == res.instance.digest
        with pytest.raises(RuntimeError, match="does not match its digest"):
            hold.check(res.instance.canonical_json(), "sha256:" + "0" * 64, 2)


class _Tamperer(Verifier):
    name, version, exact = "tamper", "1", True

    def verify(self, instance, *, solution_cap=2, budget=None, extras=()):
        rep = SAT.verify(instance, solution_cap=solution_cap)
        object.__setattr__(instance, "clues", instance.clues[:-1])
        return rep


def test_a_verifier_that_changes_its_input_is_reported_contaminated():
    res = run_loop(S4, Adaptive(6), _Tamperer(), None, LoopBudget(max_calls=3), seed=0)
    assert res.trace[0].verdict == CONTAMINATED
    assert not res.accepted


def test_exact_filter_gives_no_holdout_rejects():
    hold = InlineHoldout(ENUM)
    results = [run_loop(S4, Adaptive(3), SAT, hold, LoopBudget(), seed=s) for s in range(40)]
    results += [run_loop(S9, Adaptive(24), SAT, hold, LoopBudget(), seed=s) for s in range(8)]
    assert all(r.accepted for r in results)
    assert sum(r.holdout_rejected for r in results) == 0


def test_faulty_filter_is_caught_by_the_holdout_with_coordinates():
    faulty = get_verifier("faulty")
    hold = InlineHoldout(SAT)
    results = [run_loop(S4, Adaptive(4), faulty, hold, LoopBudget(), seed=s) for s in range(20)]
    rejected = [r for r in results if r.holdout_rejected]
    assert rejected, "a filter that ignores the boxes must let some invalid puzzles through"
    for r in rejected:
        rd = r.holdout_report.reject_detail
        assert rd.coords(), "holdout rejects carry coordinates"
        assert all(S4.has_coord(c) for c in rd.coords())


def test_one_seed_gives_one_loop_result():
    a = run_loop(S9, Adaptive(22), SAT, None, LoopBudget(), seed=11)
    b = run_loop(S9, Adaptive(22), SAT, None, LoopBudget(), seed=11)
    assert a.instance.digest == b.instance.digest
    assert [x.to_json_obj() for x in a.trace] == [x.to_json_obj() for x in b.trace]


def test_loop_solution_is_a_valid_sudoku_matching_the_clues():
    res = run_loop(S9, Blind(40), SAT, None, LoopBudget(), seed=2)
    assert res.accepted and is_valid_sudoku(res.solution, 9, (3, 3))
    for c in res.instance.clues:
        r, col = c.coords[0]
        assert res.solution[f"r{r + 1}c{col + 1}"] == c.data_dict()["value"]


def test_fast_minimization_with_a_known_solution_equals_the_verify_path():
    sol = random_solution(S9, np.random.default_rng(9))
    full = Instance.make(
        "sudoku", {"size": 9}, pk.get_family("sudoku").clues_from_solution(S9, sol)
    )
    fast = minimize(full, SAT, np.random.default_rng(1), solution=sol)
    slow = minimize(full, SAT, np.random.default_rng(1))
    assert fast.instance == slow.instance and fast.calls == slow.calls


def test_only_solution_answers_one_solver_call_questions():
    sol = random_solution(S4, np.random.default_rng(2))
    clues = pk.get_family("sudoku").clues_from_solution(S4, sol)
    full = Instance.make("sudoku", {"size": 4}, clues)
    assert SAT.only_solution(full, sol) is True
    assert SAT.only_solution(full.with_clues(clues[:1]), sol) is False
