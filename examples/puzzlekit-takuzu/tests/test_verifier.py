"""takuzu-lines: the verifier contract, agreement with sat and enumerative, and every report."""

from __future__ import annotations

import numpy as np
import pytest
from puzzlekit.core.model import Clue, Instance
from puzzlekit.core.protocols import SearchBudget
from puzzlekit.core.report import Verdict
from puzzlekit.quality.checks import check_verifier
from puzzlekit.verifiers.registry import get_verifier

from puzzlekit_takuzu import TAKUZU, Takuzu, TakuzuLines

from .helpers import brute_force, parse

LINES = TakuzuLines()


def test_verifier_keeps_the_puzzlekit_verifier_contract():
    specs = [("takuzu", p) for p in Takuzu.info.listed_params]
    summary = check_verifier(LINES, specs)
    assert summary.reports["takuzu-lines"] >= summary.instances


def test_the_verifier_is_registered_under_its_name():
    assert isinstance(get_verifier("takuzu-lines"), TakuzuLines)


def _random_instances(n: int, count: int, seed: int) -> list[Instance]:
    """Seeded puzzles from sparse to full, a fifth of them with one given flipped."""
    rng = np.random.default_rng([seed, n])
    schema = TAKUZU.schema({"size": n})
    out = []
    for i in range(count):
        sol = TAKUZU.sample_solution(schema, rng)
        clues = TAKUZU.initial_clues(schema, sol, int(rng.integers(0, n * n + 1)), rng)
        if clues and i % 5 == 4:
            j = int(rng.integers(len(clues)))
            flip = clues[j]
            clues[j] = TAKUZU.given(flip.coords[0], 1 - flip.data_dict()["value"])
        out.append(Instance.make("takuzu", {"size": n}, clues))
    return out


def _solution_set(rep) -> set[tuple]:
    return {tuple(sorted(s.items())) for s in rep.solutions}


@pytest.mark.parametrize("n,count", [(4, 40), (6, 20)])
def test_verdicts_counts_and_solutions_agree_with_sat_and_enumerative(n, count):
    sat, enum = get_verifier("sat"), get_verifier("enumerative")
    seen = set()
    for inst in _random_instances(n, count, seed=11):
        mine = LINES.verify(inst, solution_cap=6)
        seen.add(mine.verdict)
        for other in (sat.verify(inst, solution_cap=6), enum.verify(inst, solution_cap=6)):
            assert (mine.verdict, mine.solution_count) == (other.verdict, other.solution_count)
            if not mine.solution_count_is_lower_bound:
                assert _solution_set(mine) == _solution_set(other)
        # at the cap each backend reports its own first solutions (sat: in a variable order
        # drawn from the digest, so that capped sets carry no reading-order bias)
        sat_rep = sat.verify(inst, solution_cap=6)
        if mine.verdict is Verdict.UNSOLVABLE:
            mc, sc = mine.reject_detail.conflict, sat_rep.reject_detail.conflict
            assert mc.clue_ids == sc.clue_ids and mc.minimal
    assert seen == {Verdict.UNIQUE, Verdict.MULTIPLE, Verdict.UNSOLVABLE}


@pytest.mark.parametrize("n", [8, 10])
def test_verdicts_and_counts_agree_with_sat_on_larger_grids(n):
    sat = get_verifier("sat")
    for inst in _random_instances(n, 8, seed=5):
        mine, other = LINES.verify(inst, solution_cap=4), sat.verify(inst, solution_cap=4)
        assert (mine.verdict, mine.solution_count) == (other.verdict, other.solution_count)
        if not mine.solution_count_is_lower_bound:  # at the cap, each backend picks its own
            assert _solution_set(mine) == _solution_set(other)


def test_solutions_match_a_brute_force_count_of_4x4_grids():
    empty = Instance.make("takuzu", {"size": 4}, [])
    every = brute_force(4, {})
    rep = LINES.verify(empty, solution_cap=1000)
    assert rep.verdict is Verdict.MULTIPLE and not rep.solution_count_is_lower_bound
    # all of them (listed in the digest-drawn order every report uses)
    assert sorted(rep.solutions, key=lambda s: sorted(s.items())) == every
    capped = LINES.verify(empty, solution_cap=5)  # the search finds the lexicographic first five
    assert capped.solution_count_is_lower_bound
    assert sorted(capped.solutions, key=lambda s: sorted(s.items())) == every[:5]


def test_multiple_reports_the_cells_that_differ_as_the_gap():
    inst = parse("1.0.......1....0")
    rep = LINES.verify(inst, solution_cap=100)
    sols = brute_force(4, {(0, 0): 1, (0, 2): 0, (2, 2): 1, (3, 3): 0})
    assert rep.verdict is Verdict.MULTIPLE and rep.solution_count == len(sols) > 1
    differ = {
        (r, c)
        for r in range(4)
        for c in range(4)
        if len({s[f"r{r + 1}c{c + 1}"] for s in sols}) > 1
    }
    assert {tuple(g.coord) for g in rep.reject_detail.discriminative_gap} == differ


def test_three_equal_givens_in_a_row_are_the_conflict_with_that_rows_rule():
    inst = parse("000.....1.......")
    rep = LINES.verify(inst)
    conflict = rep.reject_detail.conflict
    assert rep.verdict is Verdict.UNSOLVABLE and conflict.minimal
    assert conflict.clue_ids == ("r1c1", "r1c2", "r1c3")
    assert [r.rule for r in conflict.rules] == ["row1"]


def _unsolvable_4x4(count: int) -> list[Instance]:
    found = [i for i in _random_instances(4, 60, seed=3) if not brute_force(4, _givens(i))]
    assert len(found) >= count
    return found[:count]


def _givens(inst: Instance) -> dict[tuple[int, int], int]:
    return {c.coords[0]: c.data_dict()["value"] for c in inst.clues}


@pytest.mark.parametrize("inst", _unsolvable_4x4(4), ids=lambda i: TAKUZU.format_text(i))
def test_a_conflict_is_unsatisfiable_under_its_rules_and_minimal_in_its_clues(inst):
    rep = LINES.verify(inst)
    assert rep.verdict is Verdict.UNSOLVABLE
    conflict = rep.reject_detail.conflict
    givens = _givens(inst)
    kept = {c.coord: givens[c.coord] for c in conflict.clues}
    schema = TAKUZU.schema({"size": 4})
    rules = [r for r in schema.rules if r.origin.id in {x.rule for x in conflict.rules}]
    grids = [
        {f"r{i // 4 + 1}c{i % 4 + 1}": (w >> (15 - i)) & 1 for i in range(16)}
        for w in range(1 << 16)
        if all((w >> (15 - (r * 4 + c))) & 1 == v for (r, c), v in kept.items())
    ]
    assert not any(all(rule.holds(g) for rule in rules) for g in grids)
    for coord in kept:
        assert brute_force(4, {k: v for k, v in kept.items() if k != coord})


@pytest.mark.parametrize(
    "clue,vtype",
    [
        (Clue.make("r9c1", "given", {"value": 1}, [(8, 0)]), "shape-mismatch"),
        (Clue.make("r1c1", "given", {"value": 2}, [(0, 0)]), "out-of-domain"),
        (Clue.make("r1c1", "given", {"value": "1"}, [(0, 0)]), "out-of-domain"),
        (Clue.make("r1c1", "star", {}, [(0, 0)]), "malformed"),
    ],
)
def test_malformed_clues_give_invalid_spec_with_the_violation(clue, vtype):
    rep = LINES.verify(Instance.make("takuzu", {"size": 4}, [clue]))
    assert rep.verdict is Verdict.INVALID_SPEC
    assert [v.violation_type for v in rep.reject_detail.violations] == [vtype]


def test_an_unknown_family_is_invalid_spec_and_another_family_is_declined():
    rep = LINES.verify(Instance.make("takuzoo", {}, []))
    assert rep.reject_detail.violations[0].violation_type == "unknown-family"
    with pytest.raises(NotImplementedError, match="takuzu only, not sudoku"):
        LINES.verify(Instance.make("sudoku", {"size": 4}, []))


def test_a_spent_budget_is_undecided_with_what_ran_out():
    rep = LINES.verify(Instance.make("takuzu", {"size": 12}, []), budget=SearchBudget(nodes=3))
    assert rep.verdict is Verdict.UNDECIDED
    assert rep.reject_detail.budget.resource == "nodes" and rep.solution_count_is_lower_bound


def test_a_cap_below_two_is_refused():
    with pytest.raises(ValueError, match="at least 2"):
        LINES.verify(parse("." * 16), solution_cap=1)
