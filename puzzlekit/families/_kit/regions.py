"""Private helpers of the skyscrapers, starbattle, nonogram and kakuro families.

Param checks that raise :class:`~puzzlekit.core.model.SpecError`, the one-cell clue check, seeded
region growth over a grid, and the ASCII mark convention. Not part of the public API.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from puzzlekit.core.model import Clue, Schema, SpecError, Variable, Violation
from puzzlekit.families.grid import SYMBOLS

Cell = tuple[int, int]


def cell_name(r: int, c: int) -> str:
    """Players' name of the cell at 0-based (r, c): ``r1c1`` is the top-left cell."""
    return f"r{r + 1}c{c + 1}"


def fail(vtype: str, coord: Any, field: str, detail: str) -> SpecError:
    return SpecError([Violation(vtype, coord, field, detail)])


def check_keys(params: Mapping[str, Any], allowed: Iterable[str], family: str) -> None:
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise SpecError(
            [
                Violation("unknown-field", None, f"params.{k}", f"{family} has no param {k!r}")
                for k in unknown
            ]
        )


def int_param(params: Mapping[str, Any], key: str, lo: int, hi: int, default: int | None) -> int:
    value = params.get(key, default)
    if value is None:
        raise fail("malformed", None, f"params.{key}", "missing required param")
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise fail("malformed", None, f"params.{key}", f"must be an integer {lo}..{hi}: {value!r}")
    return value


def clue_int(clue: Clue, key: str, lo: int, hi: int, coord: Any = None) -> int:
    value = clue.data_dict().get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise fail(
            "out-of-domain", coord, f"clue {clue.id}", f"{key} {value!r} is not in {lo}..{hi}"
        )
    return value


def one_cell(schema: Schema, clue: Clue) -> Variable:
    """The variable of a clue that names exactly one cell of the grid."""
    if len(clue.coords) != 1:
        raise fail("shape-mismatch", None, f"clue {clue.id}", "this clue names exactly one cell")
    var = schema.var_at(clue.coords[0])
    if var is None:
        raise fail(
            "shape-mismatch",
            clue.coords[0],
            f"clue {clue.id}",
            f"cell {list(clue.coords[0])} is outside the grid",
        )
    return var


def same_cells(clue: Clue, cells: Sequence[Cell]) -> None:
    """Raise unless the clue's coordinates are exactly ``cells`` (in order)."""
    if tuple(tuple(c) for c in clue.coords) != tuple(cells):
        raise fail(
            "shape-mismatch",
            clue.coords[0] if clue.coords else None,
            f"clue {clue.id}",
            f"coords must be the cells of its line: {[list(c) for c in cells]}",
        )


def neighbours4(cell: Cell, h: int, w: int) -> list[Cell]:
    r, c = cell
    out = []
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        if 0 <= r + dr < h and 0 <= c + dc < w:
            out.append((r + dr, c + dc))
    return out


def connected(cells: Iterable[Cell]) -> bool:
    """Whether ``cells`` form one 4-connected piece (an empty set is not connected)."""
    todo = set(cells)
    if not todo:
        return False
    stack = [todo.pop()]
    while stack:
        r, c = stack.pop()
        for n in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if n in todo:
                todo.discard(n)
                stack.append(n)
    return not todo


def grow(
    h: int, w: int, seeds: Sequence[Sequence[Cell]], rng: np.random.Generator
) -> list[list[int]]:
    """Seeded random region growth: region ``i`` starts as ``seeds[i]`` and absorbs neighbouring
    free cells one at a time until the grid is covered. Returns a grid of region indices."""
    label = [[-1] * w for _ in range(h)]
    for i, cells in enumerate(seeds):
        for r, c in cells:
            label[r][c] = i
    frontier: list[tuple[Cell, int]] = []
    for i, cells in enumerate(seeds):
        for cell in cells:
            frontier += [(n, i) for n in neighbours4(cell, h, w)]
    while frontier:
        j = int(rng.integers(len(frontier)))
        frontier[j], frontier[-1] = frontier[-1], frontier[j]
        (r, c), i = frontier.pop()
        if label[r][c] != -1:
            continue
        label[r][c] = i
        frontier += [(n, i) for n in neighbours4((r, c), h, w) if label[n[0]][n[1]] == -1]
    return label


def mark_of(marks: Mapping[tuple, str] | None, cell: Cell) -> str:
    """The one-character mark drawn beside a cell (a space when unmarked)."""
    return (marks or {}).get(tuple(cell), " ")


def regions_to_rows(n: int, groups: Sequence[Sequence[Cell]]) -> list[str]:
    """A partition as n strings of n labels (``1``-``9``, ``A``...), labelled in row-major order
    of first appearance, so one partition has one spelling."""
    label_of: dict[Cell, int] = {}
    for gi, cells in enumerate(groups):
        for cell in cells:
            label_of[tuple(cell)] = gi
    relabel: dict[int, str] = {}
    rows = []
    for r in range(n):
        row = ""
        for c in range(n):
            g = label_of[(r, c)]
            if g not in relabel:
                relabel[g] = SYMBOLS[len(relabel)]
            row += relabel[g]
        rows.append(row)
    return rows


def rows_to_regions(rows: Sequence[str]) -> list[list[Cell]]:
    """The groups of a label layout, each sorted, in row-major order of their first cell."""
    groups: dict[str, list[Cell]] = {}
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            groups.setdefault(ch, []).append((r, c))
    return sorted(groups.values())
