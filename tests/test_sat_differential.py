"""The sat and enumerative backends agree on seeded random Sudoku and Latin-square instances.

For each family: clue subsets of random full solutions, the same with a contradictory given added,
and invalid ones. Both backends must give the same verdict and capped solution count, the same
solution set below the cap, and for UNSOLVABLE a conflict that the other backend confirms minimal.
``PUZZLEKIT_DIFF_N`` sets how many instances per family (default 300; 9×9 runs a third as many).
"""

from __future__ import annotations

import os
import random

import pytest

from puzzlekit.core.model import Clue, Instance
from puzzlekit.core.report import Verdict, VerifierReport
from puzzlekit.families import get_family
from puzzlekit.verifiers.enumerative import EnumerativeVerifier
from puzzlekit.verifiers.sat.backend import SatVerifier

N = int(os.environ.get("PUZZLEKIT_DIFF_N", "300"))
CAP = 3

SCHEMAS = [
    ("sudoku", {"size": 4, "box": [2, 2]}, N),
    ("sudoku", {"size": 6, "box": [2, 3]}, N),
    ("sudoku", {"size": 9, "box": [3, 3]}, max(N // 3, 10)),
    ("latin", {"size": 4}, N),
    ("latin", {"size": 5}, N),
    ("latin", {"size": 6}, N),
]


def random_solution(family: str, params: dict, rng: random.Random) -> list[list[int]]:
    """A seeded random full grid: a base pattern under random symmetries of the family."""
    n = params["size"]
    if family == "sudoku":
        br, bc = params["box"]
        grid = [[(bc * (r % br) + r // br + c) % n for c in range(n)] for r in range(n)]
        bands = rng.sample(range(n // br), n // br)
        rows = [b * br + r for b in bands for r in rng.sample(range(br), br)]
        stacks = rng.sample(range(n // bc), n // bc)
        cols = [s * bc + c for s in stacks for c in rng.sample(range(bc), bc)]
    else:
        grid = [[(r + c) % n for c in range(n)] for r in range(n)]
        rows, cols = rng.sample(range(n), n), rng.sample(range(n), n)
    symbols = rng.sample(range(1, n + 1), n)
    return [[symbols[grid[r][c]] for c in cols] for r in rows]


def given(r: int, c: int, v: int, cid: str | None = None) -> Clue:
    return Clue.make(cid or f"r{r + 1}c{c + 1}", "given", {"value": v}, [(r, c)])


def make_instance(family: str, params: dict, seed: int) -> Instance:
    """Kind by seed: mostly clue subsets, every 4th with a contradiction, every 10th invalid."""
    rng = random.Random(seed)
    n = params["size"]
    grid = random_solution(family, params, rng)
    cells = [(r, c) for r in range(n) for c in range(n)]
    low = {4: 3, 5: 5, 6: 8, 9: 28}[n]
    k = rng.randint(low, min(n * n - 1, low + n * n // 3))
    chosen = rng.sample(cells, k)
    clues = [given(r, c, grid[r][c]) for r, c in chosen]
    if seed % 10 == 9:  # invalid: out of domain, outside the grid, or the same cell twice
        r, c = chosen[0]
        bad = [given(r, c, n + 1, "bad"), given(n, 0, 1, "bad"), given(r, c, grid[r][c], "bad")]
        clues.append(bad[rng.randrange(3)])
    elif seed % 4 == 3:  # a contradiction: a clue's value again in a free cell of its row
        r, c = chosen[0]
        free = [cc for cc in range(n) if (r, cc) not in chosen]
        if free:
            clues.insert(rng.randrange(len(clues) + 1), given(r, rng.choice(free), grid[r][c]))
    rng.shuffle(clues)
    return Instance.make(family, params, clues)


def solution_set(rep: VerifierReport) -> set[tuple]:
    return {tuple(sorted(s.items())) for s in rep.solutions}


def check_minimal(instance: Instance, rep: VerifierReport, other) -> None:
    """The conflict is unsatisfiable and every one-clue-smaller subset is satisfiable."""
    conflict = rep.reject_detail.conflict
    assert conflict.minimal
    ids = set(conflict.clue_ids)
    kept = [c for c in instance.clues if c.id in ids]
    assert other.verify(instance.with_clues(kept), solution_cap=2).verdict is Verdict.UNSOLVABLE
    for drop in kept:
        rest = [c for c in kept if c is not drop]
        verdict = other.verify(instance.with_clues(rest), solution_cap=2).verdict
        assert verdict is not Verdict.UNSOLVABLE, f"{rep.source} conflict minus {drop.id}"


@pytest.mark.parametrize(("family", "params", "count"), SCHEMAS, ids=lambda x: str(x))
def test_sat_and_enumerative_agree(family: str, params: dict, count: int) -> None:
    sat, enum = SatVerifier(), EnumerativeVerifier()
    seen: dict[str, int] = {}
    for seed in range(count):
        instance = make_instance(family, params, seed)
        a = enum.verify(instance, solution_cap=CAP)
        b = sat.verify(instance, solution_cap=CAP)
        where = f"{family} {params} seed {seed}"
        assert a.verdict is b.verdict, where
        assert a.solution_count == b.solution_count, where
        assert a.solution_count_is_lower_bound == b.solution_count_is_lower_bound, where
        seen[a.verdict.value] = seen.get(a.verdict.value, 0) + 1
        if a.solution_count < CAP:
            assert solution_set(a) == solution_set(b), where
        if a.verdict is Verdict.INVALID_SPEC:
            assert a.reject_detail == b.reject_detail, where
        if a.verdict is Verdict.UNSOLVABLE:
            check_minimal(instance, a, sat)
            check_minimal(instance, b, enum)
            # both shrink in instance order, so with exact answers they name the same clues
            assert a.reject_detail.conflict.clue_ids == b.reject_detail.conflict.clue_ids
        for s in b.solutions:
            assert get_family(family).schema(params).names == tuple(s), "schema order"
    assert {"UNSOLVABLE", "INVALID_SPEC"} <= set(seen), seen
    assert {"UNIQUE", "MULTIPLE"} & set(seen), seen
