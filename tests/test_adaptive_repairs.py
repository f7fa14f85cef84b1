"""The adaptive strategy's family hooks: the report's found solutions always passed to repair
moves, and on UNSOLVABLE a ``change`` move at a conflict clue before any drop."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from puzzlekit.core.model import Clue, Instance, Schema, Solution
from puzzlekit.core.protocols import Family, FamilyInfo, Repair, Step
from puzzlekit.core.report import Verdict
from puzzlekit.core.solutions import random_solution
from puzzlekit.families import get_family
from puzzlekit.generators.adaptive import Adaptive, conflict_changes
from puzzlekit.verifiers.registry import get_verifier
from tests.helpers import given

MID = {"tool": "shipping-rate", "expectedVerdict": "mid", "fixedInput": {"note": ""}}
#: a solution of MID: eu (1), 3 kg, standard (1), not insured
SOL = {"zone": 1, "weight_kg": 3, "service": 1, "insured": 0}


def field(name: str, value: object, pos: int) -> Clue:
    return Clue.make(name, "given", {"field": name, "value": value}, [(pos,)])


class Ranking(Family):
    """A repair_moves override that records the ``found`` it gets."""

    info = FamilyInfo(name="ranking")

    def __init__(self, inner: Family) -> None:
        self.inner = inner
        self.got: list[Sequence[Solution]] = []

    def clues_from_solution(self, schema: Schema, solution: Solution) -> list[Clue]:
        return self.inner.clues_from_solution(schema, solution)

    def repair_moves(
        self,
        schema: Schema,
        instance: Instance,
        solution: Solution,
        coord: tuple,
        *,
        found: Sequence[Solution] = (),
    ) -> list[Repair]:
        self.got.append(found)
        return self.inner.repair_moves(schema, instance, solution, coord, found=found)


def test_a_repair_moves_override_receives_the_reports_found_solutions(monkeypatch) -> None:
    import puzzlekit.generators.adaptive as adaptive

    sudoku = get_family("sudoku")
    ranking = Ranking(sudoku)
    monkeypatch.setattr(adaptive, "get_family", lambda name: ranking)
    schema = sudoku.schema({"size": 4})
    sol = random_solution(schema, np.random.default_rng(0))
    inst = Instance.make("sudoku", {"size": 4}, [])
    rep = get_verifier("sat").verify(inst, solution_cap=3)
    assert rep.verdict is Verdict.MULTIPLE
    Adaptive(0).propose(Step(inst, "start", None, sol, schema), rep, np.random.default_rng(0))
    assert ranking.got and all(got == rep.solutions for got in ranking.got)


def test_on_unsolvable_toolcall_changes_the_conflicting_given_instead_of_dropping_it() -> None:
    fam = get_family("toolcall")
    schema = fam.schema(MID)
    wrong = Instance.make(
        "toolcall", MID, [field("zone", "world", 0), field("service", "express", 2)]
    )
    rep = get_verifier("oracle").verify(wrong)
    assert rep.verdict is Verdict.UNSOLVABLE
    conflict = {c.clue_id: tuple(c.coord) for c in rep.reject_detail.conflict.clues}
    assert conflict == {"zone": (0,), "service": (2,)}
    for seed in range(4):
        step = Adaptive(1).propose(
            Step(wrong, "start", None, SOL, schema), rep, np.random.default_rng(seed)
        )
        assert step.action == "change"
        assert step.coord in conflict.values()
        assert len(step.instance.clues) == len(wrong.clues)  # nothing dropped
        (changed,) = [c for c in step.instance.clues if c not in wrong.clues]
        name = changed.data_dict()["field"]
        assert changed == fam.given(schema, name, SOL[name])  # the solution's value now


def test_a_wrong_toolcall_input_is_repaired_without_a_drop() -> None:
    schema = get_family("toolcall").schema(MID)
    wrong = Instance.make(
        "toolcall", MID, [field("zone", "world", 0), field("service", "express", 2)]
    )
    step = Step(wrong, "start", None, SOL, schema)
    strategy, rng, oracle = Adaptive(1), np.random.default_rng(0), get_verifier("oracle")
    actions = []
    for _ in range(10):
        rep = oracle.verify(step.instance)
        if rep.accepted:
            break
        step = strategy.propose(step, rep, rng)
        actions.append(step.action)
    assert rep.accepted and list(rep.solutions) == [SOL]
    assert "change" in actions and "drop" not in actions


def test_grid_families_offer_no_change_so_a_conflict_clue_is_dropped() -> None:
    schema = get_family("sudoku").schema({"size": 4})
    sol = random_solution(schema, np.random.default_rng(0))
    # two equal digits in row 1: a conflict whatever the solution
    inst = Instance.make("sudoku", {"size": 4}, [given(0, 0, 1), given(0, 3, 1)])
    rep = get_verifier("sat").verify(inst)
    assert rep.verdict is Verdict.UNSOLVABLE
    assert conflict_changes(get_family("sudoku"), schema, inst, sol, rep) == []
    nxt = Adaptive(1).propose(Step(inst, "start", None, sol, schema), rep, np.random.default_rng(0))
    assert nxt.action == "drop" and len(nxt.instance.clues) == 1
