"""The enumerative verifier's verdicts and reject details."""

from __future__ import annotations

import itertools

import pytest

import puzzlekit as pk
from puzzlekit.core.protocols import SearchBudget
from puzzlekit.core.report import Verdict, validate_report_json
from puzzlekit.families import resolve
from puzzlekit.verifiers.enumerative import EnumerativeVerifier
from tests.helpers import given, is_valid_sudoku, latin, sudoku

V = EnumerativeVerifier()


def test_17_clue_puzzle_is_unique_with_a_valid_solution_respecting_the_givens(seventeen):
    line = seventeen[0]
    inst = pk.parse("sudoku", line)
    rep = V.verify(inst)
    assert rep.verdict is Verdict.UNIQUE
    assert rep.reject_detail is None
    (sol,) = rep.solutions
    assert is_valid_sudoku(sol, 9, (3, 3))
    for i, ch in enumerate(line):
        if ch != ".":
            assert sol[f"r{i // 9 + 1}c{i % 9 + 1}"] == int(ch)


def test_every_16_clue_subset_of_a_17_clue_puzzle_is_multiple_with_gap_on_empty_cells(seventeen):
    inst = pk.parse("sudoku", seventeen[0])
    assert len(inst.clues) == 17
    for dropped in range(17):
        sub = inst.with_clues(c for i, c in enumerate(inst.clues) if i != dropped)
        rep = V.verify(sub, solution_cap=20)
        assert rep.verdict is Verdict.MULTIPLE, dropped
        gap = rep.reject_detail.discriminative_gap
        assert gap, "a MULTIPLE report must name the cells that differ"
        filled = {c.coords[0] for c in sub.clues}
        assert all(g.coord not in filled for g in gap)
        assert all(0 <= g.coord[0] < 9 and 0 <= g.coord[1] < 9 for g in gap)
        powers = [g.discriminative_power for g in gap]
        assert powers == sorted(powers, reverse=True)


def test_two_equal_givens_in_a_row_conflict_is_exactly_those_two_clues():
    inst = sudoku(9, [(0, 0, 5), (0, 7, 5), (4, 4, 1), (8, 2, 3)])
    rep = V.verify(inst)
    assert rep.verdict is Verdict.UNSOLVABLE
    conflict = rep.reject_detail.conflict
    assert set(conflict.clue_ids) == {"r1c1", "r1c8"}
    assert conflict.minimal
    assert [r.rule for r in conflict.rules] == ["row1"]
    assert {tuple(c.coord) for c in conflict.clues} == {(0, 0), (0, 7)}


def _satisfiable(instance) -> bool:
    return V.verify(instance, solution_cap=2).verdict is not Verdict.UNSOLVABLE


def test_a_contradiction_needing_four_clues_gives_a_proven_minimal_conflict():
    # Row 1 holds 1, 2, 3, so r1c4 must be 4; column 4 already has a 4 in row 2.
    # Several minimal conflicts exist here; whichever is reported must be proven minimal.
    inst = latin(4, [(0, 0, 1), (0, 1, 2), (0, 2, 3), (1, 3, 4), (3, 0, 2), (2, 2, 4)])
    rep = V.verify(inst)
    assert rep.verdict is Verdict.UNSOLVABLE
    ids = set(rep.reject_detail.conflict.clue_ids)
    assert len(ids) >= 3
    core = inst.with_clues(c for c in inst.clues if c.id in ids)
    assert not _satisfiable(core), "the conflict must itself be unsatisfiable"
    for cid in ids:
        assert _satisfiable(inst.with_clues(c for c in core.clues if c.id != cid)), (
            f"dropping {cid} must make the conflict satisfiable"
        )


def test_domain_too_large_names_cardinalities_and_the_culprits_that_blow_it_up():
    rep = EnumerativeVerifier(max_cartesian_log10=3.0).verify(sudoku(4, [(0, 0, 1)]))
    assert rep.verdict is Verdict.DOMAIN_TOO_LARGE
    rd = rep.reject_detail
    assert rd.field_cardinalities and rd.culprits
    cards = {f.field_name: f.cardinality for f in rd.field_cardinalities}
    assert "r1c1" not in cards  # a given has one value
    import math

    rest = sum(math.log10(c) for c in cards.values()) - sum(
        math.log10(f.cardinality) for f in rd.culprits
    )
    assert rest <= 3.0
    validate_report_json(rep.to_json_obj())


def test_node_budget_gives_undecided_with_budget_and_culprits():
    rep = V.verify(sudoku(9, []), solution_cap=100, budget=SearchBudget(nodes=50, seconds=None))
    assert rep.verdict is Verdict.UNDECIDED
    b = rep.reject_detail.budget
    assert b.resource == "nodes" and b.limit == 50 and b.nodes > 50
    assert rep.reject_detail.culprits
    assert rep.solution_count_is_lower_bound
    validate_report_json(rep.to_json_obj())


def test_cap_makes_the_count_a_lower_bound():
    rep = V.verify(sudoku(4, []), solution_cap=10)
    assert rep.verdict is Verdict.MULTIPLE
    assert rep.solution_count == 10 and rep.solution_count_is_lower_bound
    rep = V.verify(sudoku(4, []), solution_cap=1000)
    assert rep.solution_count == 288 and not rep.solution_count_is_lower_bound


def test_verification_is_deterministic_and_does_not_mutate_the_instance(seventeen):
    inst = pk.parse("sudoku", seventeen[1])
    before = inst.canonical_json()
    a, b = V.verify(inst), V.verify(inst)
    assert a.digest() == b.digest()
    assert inst.canonical_json() == before
    assert a.instance_digest == inst.digest


@pytest.mark.parametrize(
    "size,box", [(4, (2, 2)), (6, (2, 3)), (9, (3, 3)), (12, (3, 4)), (16, (4, 4))]
)
def test_every_listed_sudoku_size_has_a_solution_with_its_boxes(size, box):
    rep = V.verify(sudoku(size, [(0, 0, 1)]), solution_cap=2)
    assert rep.verdict is Verdict.MULTIPLE
    assert all(is_valid_sudoku(s, size, box) for s in rep.solutions)


def test_solutions_satisfy_every_constraint_of_the_problem():
    inst = latin(4, [(0, 0, 2), (1, 1, 3)])
    rep = V.verify(inst, solution_cap=1000)
    problem = resolve(inst)
    assert rep.solutions and all(problem.check(s) for s in rep.solutions)
    keys = {tuple(sorted(s.items())) for s in rep.solutions}
    assert len(keys) == len(rep.solutions)
    # brute force over all 4x4 latin squares
    count = 0
    for rows in itertools.product(itertools.permutations(range(1, 5)), repeat=4):
        if rows[0][0] != 2 or rows[1][1] != 3:
            continue
        if all(len({rows[r][c] for r in range(4)}) == 4 for c in range(4)):
            count += 1
    assert rep.solution_count == count


def test_given_clue_helper_builds_the_json_format():
    assert given(0, 4, 7).to_json_obj() == {
        "id": "r1c5",
        "kind": "given",
        "data": {"value": 7},
        "coords": [[0, 4]],
    }
