"""Solution samplers a strategy can be given in place of the family's own: the base generator.

:data:`SAMPLERS` maps a name to ``sampler(schema, rng) -> solution``. The strategies that start
from a fresh solution (``blind``, ``adaptive``, ``pattern``, ``policy``) take ``sampler=NAME`` as
a setting (``--sampler NAME``, ``sampler = "NAME"`` in an experiment's strategy; ``puzzlekit
train --sampler NAME`` trains in it). Built-in:

- ``planted-deadly`` (a test and benchmark generator with a systematic defect): a Sudoku
  solution with a *deadly pattern* planted in one region, every time. The pattern is a unique
  rectangle, four cells ``r1c1, r1cB+1, r2c1, r2cB+1`` (``B`` the box width: two rows of the
  first band, the first columns of the first two stacks) holding ``a b / b a``; swapping ``a``
  and ``b`` there gives another solution, so a puzzle without a clue in those four cells is
  never unique (an unavoidable set). The solution is the family's random one, moved by the
  Sudoku symmetries (bands, rows in a band, stacks, columns in a stack) so that one of its unique
  rectangles lands on those cells; a solution without one is drawn again.

A sampler with a systematic defect names where it is (:func:`sampler_region`): what a human
who found the defect would be told, so ``fix_region`` (the human's one-time fix of the
generator, :class:`puzzlekit.generators.base.FreshStart`) and a learned map's overlap with the
defect (an experiment hypothesis) read the same cells.

The default, :func:`sample_solution`, is the family's own sampler, else the compiled one, else
the generic search. Not for: the strategies themselves (:mod:`puzzlekit.generators.base`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from puzzlekit.core.model import Schema
from puzzlekit.core.plugins import Registry
from puzzlekit.core.solutions import random_solution
from puzzlekit.families import get_family

#: the strategies that take ``sampler=NAME``
SAMPLER_STRATEGIES = ("blind", "adaptive", "pattern", "policy")
#: the strategies that take ``fix_region`` (a start with one clue in the sampler's region)
FIX_STRATEGIES = ("blind", "adaptive")
#: draws of the family's sampler ``planted-deadly`` tries before it gives up
PLANT_TRIES = 200


def _load_builtin() -> None:
    SAMPLERS.register("planted-deadly", planted_deadly)


#: solution samplers by name: ``sampler(schema, rng)`` gives a solution (variable name -> value)
SAMPLERS: Registry[Callable[[Schema, np.random.Generator], dict[str, int]]] = Registry(
    "sampler", _load_builtin
)


def sample_solution(schema: Schema, rng: np.random.Generator) -> dict[str, int]:
    """The family's own seeded sampler if it has one; else, for a schema the compiled search
    takes, its randomized search (:func:`puzzlekit.core.solutions.compiled_sample`, far
    faster on large grids); else the generic randomized search."""
    from puzzlekit.core.solutions import compiled_sample

    own = get_family(schema.family).sample_solution(schema, rng)
    if own is not None:
        return dict(own)
    compiled = compiled_sample(schema, rng)
    return compiled if compiled is not None else random_solution(schema, rng)


def check_sampler(name: str, schema: Schema) -> str | None:
    """What is wrong with drawing ``schema`` 's solutions with sampler ``name`` (None: nothing):
    an unknown name, or a built-in sampler that does not take the schema."""
    from puzzlekit.core.plugins import UnknownName

    try:
        SAMPLERS.get(name)
    except UnknownName as exc:
        return str(exc).strip("'\"")
    if name == "planted-deadly":
        try:
            _box(schema)
        except ValueError as exc:
            return str(exc)
    return None


def sampler_region(name: str, schema: Schema) -> tuple[tuple[int, ...], ...] | None:
    """The cells (0-based coordinates) where sampler ``name`` plants its defect in ``schema``'s
    solutions; None for a sampler that names no region (a plugin's, unless it registers one in
    :data:`REGIONS`). ValueError when the sampler does not take the schema."""
    if name not in REGIONS:
        return None
    return tuple(tuple(c) for c in REGIONS[name](schema))


def planted_region(schema: Schema) -> tuple[tuple[int, int], ...]:
    """The four cells (0-based coordinates) where ``planted-deadly`` puts its unique rectangle."""
    _, bw = _box(schema)
    return ((0, 0), (0, bw), (1, 0), (1, bw))


#: the region of each sampler with a planted defect: ``region(schema)`` gives its cells
REGIONS: dict[str, Callable[[Schema], tuple[tuple[int, ...], ...]]] = {
    "planted-deadly": planted_region
}


def _box(schema: Schema) -> tuple[int, int]:
    if schema.family != "sudoku":
        raise ValueError(f"sampler planted-deadly plants in Sudoku grids, not {schema.family}")
    params = schema.params_dict()
    box = params["box"]
    n = int(params["size"])
    if n // int(box[1]) < 2 or int(box[0]) < 2:
        raise ValueError(f"sampler planted-deadly needs two stacks and two rows a box, got {box}")
    return int(box[0]), int(box[1])


def planted_deadly(schema: Schema, rng: np.random.Generator) -> dict[str, int]:
    """A solution of ``schema`` (Sudoku) with a unique rectangle at :func:`planted_region`."""
    bh, bw = _box(schema)
    n = int(schema.params_dict()["size"])
    names = {tuple(v.coord): v.name for v in schema.variables}
    for _ in range(PLANT_TRIES):
        sol = sample_solution(schema, rng)
        grid = np.array([[sol[names[(r, c)]] for c in range(n)] for r in range(n)])
        found = _rectangles(grid, bh, bw)
        if not found:
            continue
        r1, r2, c1, c2 = found[int(rng.integers(len(found)))]
        grid = grid[_order(r1, r2, bh, n), :][:, _order(c1, c2, bw, n)]
        return {names[(r, c)]: int(grid[r, c]) for r in range(n) for c in range(n)}
    raise ValueError(f"no solution with a unique rectangle in {PLANT_TRIES} draws")


def _rectangles(grid: Any, bh: int, bw: int) -> list[tuple[int, int, int, int]]:
    """Every unique rectangle ``(r1, r2, c1, c2)``: rows of one band, columns of two stacks."""
    n = grid.shape[0]
    out = []
    for r1 in range(n):
        for r2 in range(r1 + 1, (r1 // bh + 1) * bh):
            for c1 in range(n):
                for c2 in range((c1 // bw + 1) * bw, n):
                    if grid[r1, c1] == grid[r2, c2] and grid[r1, c2] == grid[r2, c1]:
                        out.append((r1, r2, c1, c2))
    return out


def _order(i: int, j: int, size: int, n: int) -> list[int]:
    """A permutation of ``0..n-1`` (bands of ``size`` kept whole, lines moved within bands) that
    puts line ``i`` first and line ``j`` at the start of the second band (or second, when both
    lie in one band)."""
    bi, bj = i // size, j // size
    bands = [bi] + ([bj] if bj != bi else []) + [b for b in range(n // size) if b not in (bi, bj)]
    lines: list[int] = []
    for b in bands:
        members = list(range(b * size, (b + 1) * size))
        first = [x for x in (i, j) if x in members]
        lines += first + [x for x in members if x not in first]
    return lines
