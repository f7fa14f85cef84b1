"""The band search's propagation against a search that shares none of its code, on random 9×9
puzzles (hypothesis) and on the public sets: the same count to the cap and the same solutions
below it; and a chunk of grid lines started and searched in one compiled call
(``line.values_band9``, the path of ``pk.verify_many``) gives each row the count, solutions,
nodes and status its own search gives."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import puzzlekit as pk
from puzzlekit.core.solutions import random_solution
from puzzlekit.families import get_family
from puzzlekit.families.grid import SYMBOLS
from puzzlekit.verifiers.bitmask.backend import prepare_instance
from puzzlekit.verifiers.bitmask.band9 import (
    _SHRINK,
    ALL,
    WIDTH,
    load_band9,
    propagate_band9,
    search_band9,
)
from puzzlekit.verifiers.bitmask.kernel import DONE, PAUSED
from puzzlekit.verifiers.bitmask.line import line_plan, values_band9
from puzzlekit.verifiers.bitmask.search import Search, start_domains

ROOT = Path(__file__).parent.parent
SHARED = Path("/work/shared/data/sudoku")
SCHEMA = get_family("sudoku").schema({"size": 9})


def _random_line(seed: int, keep: float, wrong: bool) -> str:
    """A random solution's cells kept with probability ``keep``; ``wrong``: one blank cell
    given a value other than its solution's (often UNSOLVABLE)."""
    rng = random.Random(seed)
    sol = random_solution(SCHEMA, np.random.default_rng(seed))
    cells = [SYMBOLS[sol[v.name] - 1] for v in SCHEMA.variables]
    line = [c if rng.random() < keep else "." for c in cells]
    if wrong and "." in line:
        at = line.index(".")
        line[at] = SYMBOLS[(SYMBOLS.index(cells[at]) + 1 + rng.randrange(8)) % 9]
    return "".join(line)


def _band(dom: np.ndarray, cap: int) -> tuple[int, list[tuple[int, ...]]]:
    """The band search alone: solutions found and their rows (sorted)."""
    nodes = np.zeros((83, WIDTH), np.int64)
    branch, state = np.zeros((83, 2), np.int64), np.zeros(4, np.int64)
    sols = np.zeros((cap, 81), np.int64)
    load_band9(dom, nodes[0])
    while search_band9(nodes, branch, state, sols, 1 << 30) == PAUSED:
        pass
    return int(state[2]), sorted(map(tuple, sols[: state[2]].tolist()))


def _general(text: str, cap: int) -> tuple[np.ndarray, Search]:
    """The start domains of ``text`` and a search of them on the general kernel (no band, no
    9×9 bitboards), run."""
    cs, effects = prepare_instance(pk.parse("sudoku", text))
    dom = start_domains(cs, effects)
    general = Search(cs, cs.structure(list(effects.values())), cap)
    general.grid9 = general.band9 = None
    general.run(dom, None, None)
    return dom, general


def _valid(row: tuple[int, ...]) -> bool:
    grid = [row[9 * r : 9 * r + 9] for r in range(9)]
    units = [grid[r] for r in range(9)] + [[grid[r][c] for r in range(9)] for c in range(9)]
    units += [
        [grid[3 * (b // 3) + i][3 * (b % 3) + j] for i in range(3) for j in range(3)]
        for b in range(9)
    ]
    return all(sorted(u) == list(range(9)) for u in units)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    keep=st.floats(0.12, 0.6),
    wrong=st.booleans(),
    cap=st.sampled_from([2, 3, 9]),
)
def test_random_puzzles_count_and_solve_as_the_general_search(
    seed: int, keep: float, wrong: bool, cap: int
) -> None:
    """Random clue subsets of random grids (few givens: many solutions; a wrong given: often
    none): the band search's count equals the general search's, its solutions below the cap
    are the same set, and at the cap they are distinct solutions."""
    text = _random_line(seed, keep, wrong)
    dom, general = _general(text, cap)
    found, rows = _band(dom, cap)
    assert found == general.found, text
    if found < cap:
        assert rows == sorted(map(tuple, general.bits().tolist())), text
    else:
        assert len(set(rows)) == cap and all(_valid(r) for r in rows), text


def _public(count: int, seed: int) -> list[str]:
    """Puzzles of the three public sets (the shared copies where present, else the
    repository's samples), and each with three givens removed (MULTIPLE) and a clash added
    (UNSOLVABLE)."""
    rng = random.Random(seed)
    out = []
    for shared, sample in (
        ("sudoku9_17clue_1000.txt", "17clue"),
        ("sudoku9_top1465.txt", "top1465"),
        ("sudoku9_forum_hardest_500.txt", "forum_hardest"),
    ):
        path = SHARED / shared
        if not path.is_file():
            path = ROOT / f"experiments/data/sudoku9_{sample}_200.txt"
        for line in rng.sample(path.read_text().split(), count):
            givens = [i for i, ch in enumerate(line) if ch not in ".0"]
            cells = list(line)
            for i in rng.sample(givens, 3):
                cells[i] = "."
            blank = line.index(".")
            clash = line[:blank] + line[givens[0]] + line[blank + 1 :]
            out += [line, "".join(cells), clash]
    return out


@pytest.mark.parametrize("cap", [2, 5])
def test_a_chunk_searched_in_one_call_gives_each_row_its_own_search(cap: int) -> None:
    """``values_band9`` (start domains and band search of a chunk of lines in one call): each
    row's start domains, count, nodes, status and solutions are those of the row's own
    :meth:`Search.run` from its domains; the rows at the cap are counted."""
    lines = _public(12, 4)
    insts = [pk.parse("sudoku", text) for text in lines]
    plan = line_plan(insts[0])[1]  # type: ignore[index]
    values = np.array([list(i.__dict__["_source"].values) for i in insts], np.uint8)
    search = Search(plan.cs, plan.cs.base_structure, cap)
    starts, out, sols, at_cap = values_band9(plan, search, values, 1 << 30)
    sols = sols.copy()
    assert out[0].tolist() == [sum(ch != "." for ch in t) for t in lines]
    capped = 0
    for row, text in enumerate(lines):
        cs, effects = prepare_instance(pk.parse("sudoku", text))
        dom = start_domains(cs, effects)
        assert np.array_equal(starts[row], dom), text
        alone = Search(cs, cs.base_structure, cap)
        alone.ordered = False  # the band search's own answer, not the ordered one at the cap
        alone.run(dom, None, None)
        assert (out[1, row], out[2, row], out[3, row]) == (alone.found, alone.nodes, DONE)
        assert np.array_equal(sols[row, : alone.found], alone.bits()), text
        capped += alone.found >= cap
    assert at_cap == capped > 0
    assert {min(int(f), 2) for f in out[1]} == {0, 1, 2}


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), keep=st.floats(0.15, 0.5))
def test_propagation_ends_at_its_fixpoint(seed: int, keep: float) -> None:
    """After :func:`propagate_band9` (every value to look at, as the root is searched), looking
    at every value again changes no word: the node is the rules' fixpoint, which does not
    depend on the order the rules ran in (so the tree, its nodes and the order the solutions
    are found in are the rules', not the schedule's)."""
    cs, effects = prepare_instance(pk.parse("sudoku", _random_line(seed, keep, False)))
    node = np.zeros(WIDTH, np.int64)
    load_band9(start_domains(cs, effects), node)
    if propagate_band9(node, node[30]):
        again = node.copy()
        assert propagate_band9(again, ALL)
        assert np.array_equal(again[:30], node[:30])


def test_the_triad_shrink_is_idempotent() -> None:
    """A value-band word shrunk to the triads of the permutations inside its pattern has a
    pattern whose permutations keep the same triads (the value's fixpoint loop stops on a
    round where the columns took nothing out, on the strength of this), for every pattern."""
    for pattern in range(512):
        mask = int(_SHRINK[pattern])
        kept = sum(1 << t for t in range(9) if (mask >> (9 * (t // 3) + 3 * (t % 3))) & 7)
        assert int(_SHRINK[pattern & kept]) == mask, pattern
