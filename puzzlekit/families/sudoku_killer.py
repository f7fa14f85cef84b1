"""Killer Sudoku: a Sudoku whose grid is divided into cages; a cage's digits are all different
and add up to its sum.

Params: as ``sudoku``: ``{"size": N, "box": [rows, cols]}``, default 9 and [3, 3].

Rules: rows, columns and boxes hold 1..N once each (AllDifferent).

Clues (coordinates are 0-based ``[row, col]``):

- ``cage``: ``data = {"sum": s}`` and the cage's cells as coordinates (distinct, orthogonally
  connected, no cell in two cages); a ``Linear`` sum plus an ``AllDifferent`` over the cells. The
  id is ``cage-`` and the name of its first cell in row-major order (``cage-r1c1``).
- ``given``: ``data = {"value": v}`` and one coordinate; the id is the cell name (``r5c3``).

``clues_from_solution`` gives every given and the cages of a fixed tiling by horizontal dominoes.
A fresh puzzle (``initial_clues``) is a random layout covering the grid: single cells merged at
random into cages of at most 5 cells with different digits, until ``k`` cages remain.

JSON format: ``{"family": "sudoku-killer", "params": {"size": 4, "box": [2, 2]}, "clues":
[{"id": "cage-r1c1", "kind": "cage", "data": {"sum": 7}, "coords": [[0, 0], [1, 0]]}, ...]}``.

Text format: Simon Tatham's ``solo`` killer game IDs (``3x3k:zzzc,_aaaa...,12_3a15...``, see
:mod:`puzzlekit.io.tatham`): the givens, the cage layout and each cage's sum on its first cell.
An instance whose cages do not cover the grid (which a game ID cannot say) is written as its
JSON on one line, which :meth:`SudokuKiller.parse_text` reads too.

Repair moves at a cell: reveal its digit, or split its cage into the cell alone and the rest.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from puzzlekit.core import protocols
from puzzlekit.core.model import (
    AllDifferent,
    Clue,
    Constraint,
    Instance,
    Linear,
    Origin,
    Schema,
    Solution,
)
from puzzlekit.core.protocols import FamilyInfo
from puzzlekit.families import register_family
from puzzlekit.families._kit.cages import CageGrid, Cell, int_field
from puzzlekit.families._kit.dihedral import canonical_square, moved_cage
from puzzlekit.families.grid import MAX_SIZE, cell_name
from puzzlekit.families.sudoku import Sudoku


class SudokuKiller(CageGrid, Sudoku):
    info = FamilyInfo(
        name="sudoku-killer",
        description="Sudoku with cages: each cage's digits differ and add up to its sum",
        clue_kinds=("cage", "given"),
        listed_params=(
            {"size": 4, "box": [2, 2]},
            {"size": 6, "box": [2, 3]},
            {"size": 9, "box": [3, 3]},
        ),
        size_limits={"size": MAX_SIZE},
        value_clue_kind="given",
        symmetry_group=(
            "the square's rotations and reflections when boxes are square, the reflections alone "
            "otherwise, cages and givens moved with their cells (no digit relabelling: sums are "
            "not kept by one; no row or column swap within a band or stack: a cage across the two "
            "rows would come apart)"
        ),
        rules_text=(
            "Fill every cell of the {size}×{size} grid with a number from 1 to {size} so that "
            "every row, every column and every box holds each number exactly once, and in every "
            "cage (outlined in the drawing and listed below it as `name: sum [cells]`) the "
            "numbers differ and add up to the cage's sum. The given numbers stay as they are."
        ),
    )
    max_cage = 5

    def canonical_instance(self, instance: Instance) -> Instance:
        br, bc = self.box_shape(self.normalize_params(instance.params_dict()))
        return canonical_square(self, instance, moved_cage, transpose=br == bc)

    def cage_allowed(self, cells: list[Cell], solution: Solution) -> bool:
        vals = [solution[cell_name(*c)] for c in cells]
        return len(set(vals)) == len(vals)

    def cage_options(self, cells: list[Cell], solution: Solution) -> list[dict[str, Any]]:
        return [{"sum": sum(solution[cell_name(*c)] for c in cells)}]

    def cage_constraints(
        self, schema: Schema, clue: Clue, cells: list[Cell]
    ) -> tuple[Constraint, ...]:
        total = int_field(clue, "sum", cells[0])
        names = tuple(cell_name(*c) for c in cells)
        origin = Origin("clue", clue.id, tuple(cells))
        out: list[Constraint] = [Linear(names, (1,) * len(names), "==", total, origin)]
        if len(names) > 1:
            out.append(AllDifferent(names, origin))
        return tuple(out)

    def cage_label(self, clue: Clue) -> str:
        return str(clue.data_dict().get("sum"))

    def parse_text(self, text: str, params: Mapping[str, Any] | None = None) -> Instance:
        from puzzlekit.families.tatham import parse_solo

        if text.lstrip().startswith("{"):
            return protocols.Family.parse_text(self, text, params)
        return parse_solo(text)

    def format_text(self, instance: Instance) -> str:
        from puzzlekit.families._kit.cages import components
        from puzzlekit.families.grid import clue_cell
        from puzzlekit.families.tatham import encode_block_structure, encode_grid

        params = instance.params_dict()
        n = params["size"]
        givens, sums = [0] * (n * n), [0] * (n * n)
        cages: list[list[Cell]] = []
        for clue in instance.clues:
            cells = [clue_cell(clue, n, at=i) for i in range(len(clue.coords))]
            if clue.kind == "given":
                givens[cells[0][0] * n + cells[0][1]] = clue.data_dict()["value"]
            elif clue.kind == "cage":
                cages.append(cells)
                first = min(cells)
                sums[first[0] * n + first[1]] = clue.data_dict()["sum"]
        covered = sorted(cell for cage in cages for cell in cage)
        if covered != [(r, c) for r in range(n) for c in range(n)] or any(
            len(components(cage)) != 1 for cage in cages
        ):
            return instance.to_json()  # a game ID cannot say "no cage here"
        rows, cols = params["box"]
        blocks = encode_block_structure(cages, n)
        return f"{rows}x{cols}k:{encode_grid(givens)},{blocks},{encode_grid(sums)}"


SUDOKU_KILLER = register_family(SudokuKiller())
