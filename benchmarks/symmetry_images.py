"""Study helper: seeded random puzzles of every grid family with a symmetry group, and their
images under random elements of the group, built independently of the families' own moves.

A puzzle is drawn from a sampled solution (the family's ``initial_clues`` on it, or every line
or run clue of it plus some givens). Its image under a group element is rebuilt from the moved
solution and an index grid moved by numpy (``np.rot90``, ``np.flipud``, a permutation of rows):
a cell's clue goes to its moved cell, and what a cell's value decides (an inequality's sign, a
star) is read from the moved solution; line, edge and run clues are recomputed from it. So a
family's :meth:`~puzzlekit.core.protocols.Family.canonical_instance` is checked against a move it
did not make. Used by :mod:`benchmarks.dataset_bench` (``--families``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from puzzlekit.core.model import Clue, Instance
from puzzlekit.core.solutions import compiled_sample
from puzzlekit.families import get_family

Turn = Callable[[np.ndarray], np.ndarray]
FLIPS: list[Turn] = [lambda a: a, np.flipud, np.fliplr, lambda a: a[::-1, ::-1]]
TURNS: list[Turn] = [
    np.transpose,
    lambda a: np.rot90(a, 1),
    lambda a: np.rot90(a, 3),
    lambda a: np.rot90(a.T, 2),
]

#: family -> (params, value reversal in the group, oblong: reflections alone)
FAMILIES: dict[str, tuple[dict[str, Any], bool, bool]] = {
    "futoshiki": ({"size": 5}, True, False),
    "futoshiki-adjacent": ({"size": 5}, True, False),
    "kenken": ({"size": 5}, False, False),
    "skyscrapers": ({"size": 5}, False, False),
    "starbattle": ({"size": 6, "stars": 1}, False, False),
    "kakuro": ({"rows": 6, "cols": 7, "seed": 3}, False, False),
    "sudoku-killer": ({"size": 9, "box": [3, 3]}, False, False),
    "sudoku-jigsaw": ({"size": 6}, False, False),
    "latin": ({"size": 6}, False, False),
    "nonogram": ({"rows": 8, "cols": 8}, False, False),
}


def solution_grid(
    family: str, params: dict, rng: np.random.Generator
) -> tuple[Any, dict, np.ndarray]:
    """The schema of ``params``, a sampled solution and its values as a grid (0: no cell)."""
    fam = get_family(family)
    schema = fam.schema(params)
    sol = fam.sample_solution(schema, rng) or compiled_sample(schema, rng)
    h = 1 + max(v.coord[0] for v in schema.variables)
    w = 1 + max(v.coord[1] for v in schema.variables)
    grid = np.zeros((h, w), dtype=np.int64)
    for v in schema.variables:
        grid[v.coord] = sol[v.name]
    return schema, sol, grid


def _as_solution(grid: np.ndarray, white: np.ndarray | None = None) -> dict[str, int]:
    return {
        f"r{r + 1}c{c + 1}": int(v)
        for (r, c), v in np.ndenumerate(grid)
        if white is None or white[r, c]
    }


def random_puzzle(family: str, rng: np.random.Generator) -> tuple[Instance, np.ndarray]:
    """A seeded random puzzle of ``family`` (:data:`FAMILIES` params) and its solution grid."""
    fam = get_family(family)
    schema, sol, grid = solution_grid(family, FAMILIES[family][0], rng)
    params = schema.params_dict()
    if family == "skyscrapers":
        clues = fam.edge_clues(schema, sol)
    elif family == "kakuro":
        clues = fam.run_clues(schema, sol)
    elif family == "nonogram":
        clues = fam.line_clues(schema, sol)
    elif family in ("latin", "sudoku-jigsaw"):
        clues = [fam.given(schema, v.coord, sol[v.name]) for v in schema.variables]
        clues = [c for c in clues if rng.random() < 0.35]
    else:  # a Killer's cages: some 30 on 81 cells
        k = int(rng.integers(25, 35) if family == "sudoku-killer" else rng.integers(3, 8))
        clues = fam.initial_clues(schema, sol, k, rng)
    if family in ("futoshiki", "skyscrapers", "kakuro"):  # a share of the givens too
        clues += [
            Clue.make(f"g{r}-{c}", "given", {"value": int(grid[r, c])}, [(r, c)])
            for (r, c), v in np.ndenumerate(grid)
            if v and rng.random() < 0.15
        ]
    if family == "futoshiki":  # inequalities on a share of the neighbour pairs
        n = grid.shape[0]
        for (r, c), _ in np.ndenumerate(grid):
            for b in ((r, c + 1), (r + 1, c)):
                if b[0] < n and b[1] < n and rng.random() < 0.3:
                    op = "<" if grid[r, c] < grid[b] else ">"
                    clues.append(Clue.make(f"p{r}-{c}-{b}", "inequality", {"op": op}, [(r, c), b]))
    return Instance.make(family, params, clues), grid


def where_of(turn: Turn, h: int, w: int) -> dict[tuple[int, int], tuple[int, int]]:
    """Each cell of an h x w grid -> its cell in the grid moved by ``turn``."""
    image = turn(np.arange(h * w).reshape(h, w))
    return {divmod(int(v), w): (r, c) for (r, c), v in np.ndenumerate(image)}


def moved_clues(inst: Instance, turn: Turn, grid: np.ndarray) -> list[Clue]:
    """The clues of ``inst`` that sit on cells, moved (``grid``: the solution, relabelled
    already where the element relabels values)."""
    where = where_of(turn, *grid.shape)
    moved = turn(grid)
    out = []
    for i, clue in enumerate(inst.clues):
        if clue.kind in ("edge", "run", "row", "col"):
            continue  # recomputed from the moved solution
        cells = sorted(where[tuple(c)] for c in clue.coords)
        data = dict(clue.data_dict())
        kind = clue.kind
        if kind == "given":
            data["value"] = int(moved[cells[0]])
        elif kind == "inequality":
            data["op"] = "<" if moved[cells[0]] < moved[cells[1]] else ">"
        elif kind in ("star", "empty"):
            kind = "star" if moved[cells[0]] else "empty"
        out.append(Clue.make(f"c{i}", kind, data, cells))
    return out


def moved_puzzle(inst: Instance, grid: np.ndarray, rng: np.random.Generator) -> Instance:
    """``inst`` moved by a random element of its family's group (module docstring)."""
    family = inst.family
    fam = get_family(family)
    params = inst.params_dict()
    if family == "latin":
        return _conjugate(inst, rng)
    square = grid.shape[0] == grid.shape[1] and not FAMILIES[family][2]
    turns = FLIPS + TURNS if square or family == "kakuro" else FLIPS
    turn = turns[int(rng.integers(len(turns)))]
    if FAMILIES[family][1] and rng.random() < 0.5:
        grid = grid.max() + 1 - grid  # the value reversal
    if family == "sudoku-jigsaw":
        grid = np.concatenate([[0], rng.permutation(grid.shape[0]) + 1])[grid]
        labels = np.array([[int(ch, 36) for ch in row] for row in params["regions"]])
        params["regions"] = ["".join(np.base_repr(x, 36) for x in row) for row in turn(labels)]
    clues = moved_clues(inst, turn, grid)
    moved = turn(grid)
    if family == "kakuro":
        white = turn(np.array([[ch == "." for ch in row] for row in fam.layout_of(params)]))
        params = {"layout": ["".join("." if x else "#" for x in row) for row in white]}
        clues += fam.run_clues(fam.schema(params), _as_solution(moved, white))
    elif family == "skyscrapers":
        clues += fam.edge_clues(fam.schema(params), _as_solution(moved))
    elif family == "nonogram":
        params = {"rows": moved.shape[0], "cols": moved.shape[1]}
        clues += fam.line_clues(fam.schema(params), _as_solution(moved))
    return Instance.make(family, params, clues)


def _conjugate(inst: Instance, rng: np.random.Generator) -> Instance:
    """A Latin square's givens under a random paratopy: the roles of row, column and symbol
    permuted, then each of the three relabelled."""
    n = inst.params_dict()["size"]
    roles = rng.permutation(3)
    perms = [rng.permutation(n) for _ in range(3)]
    triples = [(*c.coords[0], c.data_dict()["value"] - 1) for c in inst.clues]
    moved = [tuple(int(perms[k][t[roles[k]]]) for k in range(3)) for t in triples]
    clues = [
        Clue.make(f"r{r + 1}c{c + 1}", "given", {"value": v + 1}, [(r, c)]) for r, c, v in moved
    ]
    return Instance.make("latin", {"size": n}, clues)
