"""Instance.canonical_digest: one digest per symmetry class (Sudoku, Latin squares, jigsaw
relabelling, nonogram reflections and turns), the plain digest for families without a group."""

from __future__ import annotations

import numpy as np
import pytest

from puzzlekit.core.model import Clue, Instance
from puzzlekit.core.solutions import compiled_sample
from puzzlekit.families import get_family


def _instance(family: str, params: dict, grid: np.ndarray) -> Instance:
    n = grid.shape[0]
    clues = [
        Clue.make(f"r{r + 1}c{c + 1}", "given", {"value": int(grid[r, c])}, [(r, c)])
        for r in range(n)
        for c in range(n)
        if grid[r, c]
    ]
    return Instance.make(family, params, clues)


def _puzzles(family: str, params: dict, count: int, seed: int) -> list[np.ndarray]:
    fam = get_family(family)
    schema = fam.schema(params)
    n = schema.params_dict()["size"]
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        sol = fam.sample_solution(schema, rng) or compiled_sample(schema, rng)
        grid = np.array([sol[v.name] for v in schema.variables]).reshape(n, n)
        out.append(grid * (rng.random((n, n)) < 0.35))
    return out


def _moved(grid: np.ndarray, band: int, stack: int, transpose: bool, rng) -> np.ndarray:
    n = grid.shape[0]

    def wreath(b: int) -> np.ndarray:
        return np.concatenate([blk * b + rng.permutation(b) for blk in rng.permutation(n // b)])

    if transpose and rng.random() < 0.5:
        grid = grid.T
    grid = grid[wreath(band)][:, wreath(stack)]
    return np.concatenate([[0], rng.permutation(n) + 1])[grid]


CASES = [
    ("sudoku", {"size": 9}, 3, 3, True),
    ("sudoku", {"size": 6, "box": [2, 3]}, 2, 3, False),
    ("latin", {"size": 6}, 6, 6, True),
]


@pytest.mark.parametrize(("family", "params", "band", "stack", "transpose"), CASES)
def test_every_transformed_puzzle_merges_with_its_original(
    family: str, params: dict, band: int, stack: int, transpose: bool
) -> None:
    rng = np.random.default_rng(11)
    grids = _puzzles(family, params, 12, seed=2)
    digests = set()
    for grid in grids:
        original = _instance(family, params, grid)
        for _ in range(2):
            moved = _instance(family, params, _moved(grid, band, stack, transpose, rng))
            assert moved.canonical_digest() == original.canonical_digest()
        digests.add(original.canonical_digest())
    assert len(digests) == len(grids)  # distinct random puzzles stay apart


def test_a_changed_given_is_another_class() -> None:
    grid = _puzzles("sudoku", {"size": 9}, 1, seed=4)[0]
    other = grid.copy()
    r, c = np.argwhere(grid == 0)[0]
    other[r, c] = next(v for v in range(1, 10) if v not in grid[r] and v not in grid[:, c])
    a, b = _instance("sudoku", {"size": 9}, grid), _instance("sudoku", {"size": 9}, other)
    assert a.canonical_digest() != b.canonical_digest()


def test_the_representative_is_in_its_class_and_read_paths_agree() -> None:
    sudoku = get_family("sudoku")
    grid = _puzzles("sudoku", {"size": 9}, 1, seed=5)[0]
    inst = _instance("sudoku", {"size": 9, "box": [3, 3]}, grid)
    rep = sudoku.canonical_instance(inst)
    assert rep.canonical_digest() == inst.canonical_digest() == rep.digest
    line = sudoku.parse_text(sudoku.format_text(inst))  # params as the text line gives them
    assert line.canonical_digest() == inst.canonical_digest()


def test_jigsaw_relabels_digits_only() -> None:
    params = {"size": 6}
    grid = _puzzles("sudoku-jigsaw", params, 1, seed=6)[0]
    perm = np.array([0, 3, 1, 2, 6, 4, 5])
    a, b = _instance("sudoku-jigsaw", params, grid), _instance("sudoku-jigsaw", params, perm[grid])
    assert a.canonical_digest() == b.canonical_digest()
    assert _instance("sudoku-jigsaw", params, grid.T).canonical_digest() != a.canonical_digest()


def test_families_without_a_group_and_unreadable_puzzles_keep_their_digest() -> None:
    grid = Instance.make("logicgrid", {"size": 4, "categories": 3}, [])
    assert grid.canonical_digest() == grid.digest
    assert get_family("logicgrid").info.symmetry_group == ""
    odd = Instance.make("no-such-family", {}, [])
    assert odd.canonical_digest() == odd.digest
    bad = Instance.make("sudoku", {"size": 4}, [Clue.make("x", "given", {"value": 9}, [(0, 0)])])
    assert bad.canonical_digest() == bad.digest


def _nonogram(grid: np.ndarray, cells: int, seed: int) -> Instance:
    """Every line clue of the image ``grid``, and ``cells`` of its cells (seeded), rebuilt from
    the image alone: the moved image gives the moved puzzle independently of the family's move."""
    fam = get_family("nonogram")
    h, w = grid.shape
    schema = fam.schema({"rows": h, "cols": w})
    solution = {f"r{r + 1}c{c + 1}": int(grid[r, c]) for r in range(h) for c in range(w)}
    picked = np.random.default_rng(seed).permutation(h * w)[:cells]
    shown = [fam.cell(divmod(int(i), w), int(grid.flat[i])) for i in picked]
    return Instance.make("nonogram", schema.params_dict(), fam.line_clues(schema, solution) + shown)


@pytest.mark.parametrize("shape", [(6, 6), (5, 8)])
def test_nonogram_reflections_and_turns_merge(shape: tuple[int, int]) -> None:
    rng = np.random.default_rng(3)
    moves = [np.flipud, np.fliplr, lambda g: g[::-1, ::-1]]
    if shape[0] == shape[1]:
        moves += [np.transpose, lambda g: np.rot90(g, 1), lambda g: np.rot90(g, 3)]
    digests = set()
    for k in range(10):
        grid = (rng.random(shape) < 0.5).astype(np.int64)
        original = _nonogram(grid, 0, k)
        for move in moves:
            moved = _nonogram(np.ascontiguousarray(move(grid)), 0, k)
            assert moved.canonical_digest() == original.canonical_digest()
        digests.add(original.canonical_digest())
        # a cell clue moves with the image: the same cell of the moved image, merged too
        marked = grid.copy()
        marked[0, 1] = 1
        one = _nonogram(marked, 0, k).with_clues(
            [*_nonogram(marked, 0, k).clues, get_family("nonogram").cell((0, 1), 1)]
        )
        turned = _nonogram(np.flipud(marked).copy(), 0, k)
        turned = turned.with_clues(
            [*turned.clues, get_family("nonogram").cell((shape[0] - 1, 1), 1)]
        )
        assert one.canonical_digest() == turned.canonical_digest()
    assert len(digests) == 10  # distinct random images stay apart
    assert get_family("nonogram").info.symmetry_group
