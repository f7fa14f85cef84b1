"""Instance.canonical_digest of the grid families with a dihedral group (Futoshiki and its
Adjacent variant, KenKen, Skyscrapers, Star Battle, Kakuro, Killer and jigsaw Sudoku) and of
Latin squares under paratopy.

Each moved puzzle is rebuilt here from the moved solution grid and an index grid turned by
numpy (``np.rot90``, ``np.flipud``, ...), not by the family's own move of its clues: the images
of one puzzle must share its canonical digest, distinct puzzles must not, and a change outside
the stated group (a digit relabelling of a Killer, a row swap) must not merge.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from benchmarks.symmetry_images import FLIPS, TURNS, Turn, moved_clues, solution_grid
from puzzlekit.core.model import Clue, Instance
from puzzlekit.families import get_family


def _solution(family: str, params: dict, seed: int) -> tuple[dict, np.ndarray]:
    _, sol, grid = solution_grid(family, params, np.random.default_rng(seed))
    return sol, grid


def _image(inst: Instance, turn: Turn, grid: np.ndarray, params: dict | None = None) -> Instance:
    """``inst`` moved by ``turn`` (``grid``: its solution, already relabelled where the image
    relabels values): :func:`moved_clues`, cells moved by an index grid turned by numpy."""
    return Instance.make(inst.family, params or inst.params_dict(), moved_clues(inst, turn, grid))


def _puzzles(family: str, params: dict, count: int) -> Iterator[tuple[Instance, np.ndarray]]:
    fam = get_family(family)
    schema = fam.schema(params)
    for seed in range(count):
        sol, grid = _solution(family, params, seed)
        clues = fam.initial_clues(schema, sol, 3 + seed % 4, np.random.default_rng(seed))
        if family == "futoshiki":  # inequalities on a seeded share of the neighbour pairs
            rng = np.random.default_rng(seed)
            n = grid.shape[0]
            for r in range(n):
                for c in range(n):
                    for b in ((r, c + 1), (r + 1, c)):
                        if b[0] < n and b[1] < n and rng.random() < 0.3:
                            op = "<" if grid[r, c] < grid[b] else ">"
                            clues.append(
                                Clue.make(f"p{r}{c}{b}", "inequality", {"op": op}, [(r, c), b])
                            )
        yield Instance.make(family, schema.params_dict(), clues), grid


SQUARE = [
    ("futoshiki", {"size": 5}, True),
    ("futoshiki-adjacent", {"size": 5}, True),
    ("kenken", {"size": 5}, False),
    ("starbattle", {"size": 6, "stars": 1}, False),
    ("sudoku-killer", {"size": 4, "box": [2, 2]}, False),
]


@pytest.mark.parametrize(("family", "params", "reverse"), SQUARE)
def test_every_image_under_the_group_merges_and_distinct_puzzles_stay_apart(
    family: str, params: dict, reverse: bool
) -> None:
    digests = set()
    puzzles = list(_puzzles(family, params, 3))
    for inst, grid in puzzles:
        n = grid.shape[0]
        for turn in FLIPS + TURNS:
            for rev in (False, True) if reverse else (False,):
                image = _image(inst, turn, n + 1 - grid if rev else grid)
                assert image.canonical_digest() == inst.canonical_digest(), (turn, rev)
        digests.add(inst.canonical_digest())
    assert len(digests) == len({p.digest for p, _ in puzzles})
    assert get_family(family).info.symmetry_group


def test_skyscrapers_edge_clues_move_with_their_lines() -> None:
    fam = get_family("skyscrapers")
    schema = fam.schema({"size": 5})
    digests = set()
    for seed in range(5):
        sol, grid = _solution("skyscrapers", {"size": 5}, seed)
        base = Instance.make("skyscrapers", {"size": 5}, fam.edge_clues(schema, sol))
        for turn in FLIPS + TURNS:
            moved = turn(grid)
            sol2 = {f"r{r + 1}c{c + 1}": int(v) for (r, c), v in np.ndenumerate(moved)}
            image = Instance.make("skyscrapers", {"size": 5}, fam.edge_clues(schema, sol2))
            assert image.canonical_digest() == base.canonical_digest()
        digests.add(base.canonical_digest())
        reversed_sol = {k: 6 - v for k, v in sol.items()}  # heights reversed: another puzzle
        other = Instance.make("skyscrapers", {"size": 5}, fam.edge_clues(schema, reversed_sol))
        assert other.canonical_digest() != base.canonical_digest()
    assert len(digests) == 5


def test_kakuro_turns_and_transposes_its_layout() -> None:
    fam = get_family("kakuro")
    params = {"rows": 6, "cols": 7, "seed": 3}
    schema = fam.schema(params)
    layout = fam.layout_of(schema.params_dict())
    digests = set()
    for seed in range(4):
        sol, grid = _solution("kakuro", params, seed)
        givens = [fam.given(v.coord, sol[v.name]) for v in schema.variables[seed::5]]
        base = Instance.make("kakuro", params, fam.run_clues(schema, sol) + givens)
        for turn in FLIPS + TURNS:
            white = turn(np.array([[ch == "." for ch in row] for row in layout]))
            moved = {"layout": ["".join("." if x else "#" for x in row) for row in white]}
            image = _image(base.with_clues(givens), turn, grid, moved)
            moved_grid = turn(grid)
            sol2 = {f"r{r + 1}c{c + 1}": int(v) for (r, c), v in np.ndenumerate(moved_grid) if v}
            runs = fam.run_clues(fam.schema(moved), sol2)
            image = image.with_clues([*image.clues, *runs])
            assert image.canonical_digest() == base.canonical_digest()
        digests.add(base.canonical_digest())
    assert len(digests) == 4


def test_killer_merges_its_flips_but_not_a_relabelling_or_a_row_swap() -> None:
    params = {"size": 6, "box": [2, 3]}  # oblong boxes: the reflections alone
    for inst, grid in _puzzles("sudoku-killer", params, 4):
        for turn in FLIPS:
            assert _image(inst, turn, grid).canonical_digest() == inst.canonical_digest()
        assert _image(inst, np.transpose, grid).canonical_digest() != inst.canonical_digest()
        perm = np.array([0, 2, 3, 1, 5, 6, 4])
        relabelled = _image(inst, FLIPS[0], perm[grid])
        sums = {}  # the cage sums of the relabelled solution: a valid Killer, another puzzle
        for clue in relabelled.clues:
            if clue.kind == "cage":
                sums[clue.id] = int(sum(perm[grid][tuple(c)] for c in clue.coords))
        relabelled = relabelled.with_clues(
            [Clue.make(c.id, c.kind, {"sum": sums[c.id]}, c.coords) if c.id in sums else c
             for c in relabelled.clues]
        )  # fmt: skip
        assert relabelled.canonical_digest() != inst.canonical_digest()
        swapped = _image(inst, lambda a: a[[1, 0, 2, 3, 4, 5]], grid)  # rows 1 and 2 of a band
        assert swapped.canonical_digest() != inst.canonical_digest()


def test_jigsaw_moves_its_regions_and_relabels_digits() -> None:
    fam = get_family("sudoku-jigsaw")
    schema = fam.schema({"size": 6})
    regions = schema.params_dict()["regions"]
    labels = np.array([[int(ch, 36) for ch in row] for row in regions])
    for inst, grid in _puzzles("sudoku-jigsaw", {"size": 6}, 4):
        perm = np.array([0, 3, 1, 2, 6, 4, 5])
        for turn in FLIPS + TURNS:
            moved = turn(labels)
            params = {"size": 6, "regions": ["".join(str(x) for x in row) for row in moved]}
            image = _image(inst, turn, perm[grid], params)
            assert image.canonical_digest() == inst.canonical_digest()
        taken = {c.coords[0] for c in inst.clues}
        row = [
            Clue.make(f"g{c}", "given", {"value": int(grid[0, c])}, [(0, c)])
            for c in range(3)
            if (0, c) not in taken
        ]
        inst = inst.with_clues([*inst.clues, *row])  # givens in the swapped rows
        shifted = _image(inst, lambda a: a[[1, 0, 2, 3, 4, 5]], grid)  # regions left in place
        assert shifted.canonical_digest() != inst.canonical_digest()


def test_latin_conjugates_merge() -> None:
    rng = np.random.default_rng(5)
    digests = set()
    for seed in range(6):
        _, grid = _solution("latin", {"size": 5}, seed)
        triples = [(r, c, int(v) - 1) for (r, c), v in np.ndenumerate(grid) if rng.random() < 0.4]
        base = None
        for roles in ((0, 1, 2), (2, 1, 0), (0, 2, 1), (1, 2, 0), (2, 0, 1), (1, 0, 2)):
            perms = [rng.permutation(5) for _ in range(3)]
            moved = [tuple(int(perms[k][t[roles[k]]]) for k in range(3)) for t in triples]
            clues = [Clue.make(f"r{r + 1}c{c + 1}", "given", {"value": v + 1}, [(r, c)])
                     for r, c, v in moved]  # fmt: skip
            inst = Instance.make("latin", {"size": 5}, clues)
            base = base or inst.canonical_digest()
            assert inst.canonical_digest() == base, roles
        digests.add(base)
    assert len(digests) == 6


def test_a_clue_the_family_would_not_build_keeps_the_puzzle_apart() -> None:
    """An edge clue whose cells are not its line, a run whose cells run backwards under the
    wrong direction: such a puzzle does not read (INVALID_SPEC), so it keeps its own digest and
    never shares the canonical digest of a puzzle that does."""
    sky = get_family("skyscrapers")
    data = {"side": "top", "index": 0, "value": 2}
    bad = Instance.make(
        "skyscrapers",
        {"size": 4},
        [Clue.make("top1", "edge", data, [(0, 0), (0, 1), (1, 1), (2, 2)])],
    )
    good = [
        Instance.make("skyscrapers", {"size": 4}, [sky.edge(4, side, i, 2)])
        for side in ("top", "bottom", "left", "right")
        for i in range(4)
    ]
    assert bad.canonical_digest() == bad.digest
    assert bad.canonical_digest() not in {g.canonical_digest() for g in good}

    kakuro = get_family("kakuro")
    params = {"rows": 6, "cols": 7, "seed": 3}
    sol, _ = _solution("kakuro", params, 0)
    runs = kakuro.run_clues(kakuro.schema(params), sol)
    across = next(c for c in runs if c.data_dict()["direction"] == "across")
    backwards = Clue.make(
        across.id, "run", {**across.data_dict(), "direction": "down"}, list(reversed(across.coords))
    )
    base = Instance.make("kakuro", params, runs)
    broken = base.with_clues([backwards if c is across else c for c in runs])
    assert broken.canonical_digest() == broken.digest != base.canonical_digest()
