"""Hypothesis: capped counts and discriminative gaps against brute force on 4×4 Sudoku."""

from __future__ import annotations

import itertools

from hypothesis import given as hgiven
from hypothesis import settings
from hypothesis import strategies as st

from puzzlekit.core.model import Instance
from puzzlekit.core.report import Verdict
from puzzlekit.verifiers.enumerative import EnumerativeVerifier
from tests.helpers import given, is_valid_sudoku


def _all_4x4() -> list[dict[str, int]]:
    out = []
    for rows in itertools.product(itertools.permutations(range(1, 5)), repeat=4):
        grid = {f"r{r + 1}c{c + 1}": rows[r][c] for r in range(4) for c in range(4)}
        if is_valid_sudoku(grid, 4, (2, 2)):
            out.append(grid)
    return out


ALL = _all_4x4()
V = EnumerativeVerifier()

cells = st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(1, 4))


@hgiven(
    st.dictionaries(
        st.tuples(st.integers(0, 3), st.integers(0, 3)), st.integers(1, 4), max_size=10
    ),
    st.integers(2, 40),
)
@settings(max_examples=150, deadline=None)
def test_capped_count_equals_brute_force_and_gap_is_exactly_the_differing_cells(givens, cap):
    inst = Instance.make("sudoku", {"size": 4}, [given(r, c, v) for (r, c), v in givens.items()])
    truth = [g for g in ALL if all(g[f"r{r + 1}c{c + 1}"] == v for (r, c), v in givens.items())]
    rep = V.verify(inst, solution_cap=cap)
    assert rep.solution_count == min(len(truth), cap)
    assert rep.solution_count_is_lower_bound == (len(truth) >= cap)
    keys = [tuple(sorted(s.items())) for s in rep.solutions]
    assert len(set(keys)) == len(keys)
    assert set(keys) <= {tuple(sorted(g.items())) for g in truth}
    if not truth:
        assert rep.verdict is Verdict.UNSOLVABLE
    elif len(truth) == 1:
        assert rep.verdict is Verdict.UNIQUE
    else:
        assert rep.verdict is Verdict.MULTIPLE
        differing = {name for name in rep.solutions[0] if len({s[name] for s in rep.solutions}) > 1}
        assert {g.field_name for g in rep.reject_detail.discriminative_gap} == differing
        for g in rep.reject_detail.discriminative_gap:
            seen = {s[g.field_name] for s in rep.solutions}
            assert set(g.values_in_solutions) == seen
            # the share of the found solutions a clue with the first (target) value rules out
            target = rep.solutions[0][g.field_name]
            out = sum(s[g.field_name] != target for s in rep.solutions)
            assert g.discriminative_power == round(out / len(rep.solutions), 6)
